"""Rendered switch configurations against the papers' own listings, line for line."""

from __future__ import annotations

import os
import re
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


def _network(site: str, *args: str) -> subprocess.CompletedProcess:
    """ansible-playbook playbooks/network.yml on one inventory, with `args`."""
    env = {**os.environ, "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"), "ANSIBLE_NOCOLOR": "1"}
    return subprocess.run(
        [
            str(Path(sys.executable).parent / "ansible-playbook"),
            "-i",
            f"inventories/{site}",
            "playbooks/network.yml",
            *args,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def _render(site: str, out: Path, *extra: str) -> None:
    """`--tags render` of playbooks/network.yml for one inventory, into `out`."""
    result = _network(site, "--tags", "render", "-e", f"switches_render_dir={out}", *extra)
    assert result.returncode == 0, result.stdout + result.stderr


def _switch_play_tasks(listing: str) -> list[str]:
    """The task names of the switches' play in a `--list-tasks` listing."""
    play = listing.split("Configure the data switches", 1)[1]
    return [line.split("\t")[0].strip() for line in play.splitlines() if "TAGS:" in line][1:]


def test_the_network_tag_configures_and_the_render_tag_only_renders():
    """The play's tasks carry the tags, not the play: `--tags network` would otherwise
    select the render tasks as well (their `never` yields to a requested tag)."""
    configure = _network("lab", "--list-tasks", "--tags", "network")
    render = _network("lab", "--list-tasks", "--tags", "render")
    assert configure.returncode == 0 and render.returncode == 0, configure.stderr + render.stderr
    # every switch is the switches role's; the fabric switches' inputs are planned in the
    # early phase, for both tags (and not for a --tags onefs run)
    assert _switch_play_tasks(configure.stdout) == [
        "Configure the switch",
        "Check an InfiniBand fabric switch's links",
    ]
    assert _switch_play_tasks(render.stdout) == ["Render the intended configuration only"]
    for listing in (configure.stdout, render.stdout):
        assert "(switches): Plan the fabrics' switches from their links" in listing
    onefs = _network("lab", "--list-tasks", "--tags", "onefs")
    assert onefs.returncode == 0, onefs.stderr
    assert "Plan a storage fabric switch from its links" not in onefs.stdout


def test_a_render_without_a_directory_is_refused(tmp_path):
    """Without -e switches_render_dir the render names what is missing (it once wrote
    <host>.cfg at the control host's /); check mode, so a regression writes nothing."""
    result = _network("dss8440", "--tags", "render", "--check", "--limit", "s5232-1")
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "switches_render_dir must be an absolute directory on the control host" in output


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    out = tmp_path_factory.mktemp("render")
    for site in ("dss8440", "dgx1"):
        _render(site, out)
    return out


@pytest.fixture(scope="module")
def rendered_lab_sn3700(tmp_path_factory):
    out = tmp_path_factory.mktemp("render-lab")
    _render("lab", out, "--limit", "lab-sn3700")
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


# ---- Cumulus Linux: one set of variables, an NCLU text (4.x) and an NVUE text (5.x) ----------


def _nvue_of_nclu(line: str) -> list[str]:
    """The `nv set` lines (5.10 grammar: the Cumulus Linux 5.10 user guide's NVUE pages) that
    one `net add` line of the NCLU template stands for."""
    rules = [
        (r"net add interface (\S+)$", ["nv set interface {0} type swp"]),
        (r"net add interface (\S+) alias (.+)$", ["nv set interface {0} description {1}"]),
        (r"net add interface (\S+) link speed (\d+)000$", ["nv set interface {0} link speed {1}G"]),
        (r"net add interface (\S+) mtu (\d+)$", ["nv set interface {0} link mtu {1}"]),
        (r"net add interface (\S+) bridge access (\d+)$",
         ["nv set interface {0} bridge domain br_default access {1}"]),
        (r"net add bridge bridge vids (\d+)$", ["nv set bridge domain br_default vlan {0}"]),
    ]  # fmt: skip
    for pattern, lines in rules:
        match = re.match(pattern, line)
        if match:
            return [text.format(*match.groups()) for text in lines]
    match = re.match(r"net add bond (\S+) bond slaves (\S+)$", line)
    if match:
        bond, slaves = match.groups()
        return [f"nv set interface {bond} type bond"] + [
            f"nv set interface {bond} bond member {slave}" for slave in slaves.split(",")
        ]
    match = re.match(r"net add bridge bridge ports (\S+)$", line)
    assert match, f"no NVUE form for {line!r}"
    return [f"nv set interface {p} bridge domain br_default" for p in match.group(1).split(",")]


def test_render_writes_the_sn3700_in_both_dialects(rendered_lab_sn3700):
    assert sorted(p.name for p in rendered_lab_sn3700.iterdir()) == [
        "lab-sn3700.cfg",
        "lab-sn3700.nvue.cfg",
    ]


def test_sn3700_nvue_config_sets_what_the_nclu_config_adds(rendered_lab_sn3700):
    nclu = _lines(rendered_lab_sn3700 / "lab-sn3700.cfg")
    nvue = _lines(rendered_lab_sn3700 / "lab-sn3700.nvue.cfg")
    assert nvue and all(line.startswith("nv set ") for line in nvue)
    assert sorted(nvue) == sorted(line for item in nclu for line in _nvue_of_nclu(item))
    assert "nv set interface swp21 link speed 40G" in nvue
    assert "nv set interface swp1 bridge domain br_default access 100" in nvue
    assert "nv set bridge domain br_default vlan 100" in nvue
