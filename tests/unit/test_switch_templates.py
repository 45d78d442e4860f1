"""Rendered switch configurations against the papers' own listings, line for line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# The DSS 8440 paper, "DELL EMC NETWORKING S5232 SWITCH" (both listings, in order).
S5232_PAPER = (
    ["ip vrf default"]
    + [f"interface breakout 1/1/{n} map 40g-1x" for n in range(21, 33)]
    + ["interface vlan1", "no shutdown"]
)
for _n in range(21, 33):
    S5232_PAPER += [f"interface ethernet1/1/{_n}:1", "no shutdown", "switchport access vlan 1"]

# The DGX-1 paper, "ARISTA DATA SWITCHES".
ARISTA_PAPER = [
    "transceiver qsfp default-mode 4x10G",
    "spanning-tree mode mstp",
    "interface Port-Channel10",
    "interface Ethernet31/1",
    "channel-group 10 mode active",
    "interface Ethernet32/1",
    "channel-group 10 mode active",
    "ip route 0.0.0.0/0 10.55.67.1",
    "ip routing",
]


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    out = tmp_path_factory.mktemp("render")
    env = {**os.environ, "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"), "ANSIBLE_NOCOLOR": "1"}
    for site in ("dss8440", "dgx1"):
        result = subprocess.run(
            [
                str(Path(sys.executable).parent / "ansible-playbook"),
                "-i",
                f"inventories/{site}",
                "playbooks/network.yml",
                "--tags",
                "render",
                "-e",
                f"switches_render_dir={out}",
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, result.stdout + result.stderr
    return out


def _lines(path: Path) -> list[str]:
    return [
        line.strip()
        for line in path.read_text().splitlines()
        if line.strip() and line.strip() != "!"
    ]


def test_s5232_config_matches_the_dss8440_paper(rendered):
    assert _lines(rendered / "s5232-1.cfg") == S5232_PAPER


def test_s5232_config_is_in_os10_format(rendered):
    text = (rendered / "s5232-1.cfg").read_text()
    assert "interface ethernet1/1/21:1\n no shutdown\n switchport access vlan 1\n!\n" in text


def _without_port_settings(lines: list[str]) -> list[str]:
    """The lines without per-port speeds and descriptions (the paper says which speed
    each kind of port runs at, not in configuration lines), and without the interface
    lines left empty by that."""
    kept = [line for line in lines if not line.startswith(("speed ", "description "))]
    return [
        line
        for i, line in enumerate(kept)
        if not (
            line.startswith("interface Ethernet")
            and (i + 1 == len(kept) or not kept[i + 1].startswith("channel-group"))
        )
    ]


@pytest.mark.parametrize("switch", ["arista-7060-1", "arista-7060-2"])
def test_7060_config_matches_the_dgx1_paper(rendered, switch):
    assert _without_port_settings(_lines(rendered / f"{switch}.cfg")) == ARISTA_PAPER


def test_7060_config_is_in_eos_format(rendered):
    text = (rendered / "arista-7060-1.cfg").read_text()
    assert (
        "interface Ethernet31/1\n   speed forced 100gfull\n   channel-group 10 mode active\n!\n"
        in text
    )


def test_render_contacts_no_switch(rendered):
    # the render tag never reaches the switch_config task, which is the only one that
    # opens a session (the example sites' addresses must never be contacted)
    assert sorted(p.name for p in rendered.iterdir()) == [
        "arista-7060-1.cfg",
        "arista-7060-2.cfg",
        "s5232-1.cfg",
    ]
