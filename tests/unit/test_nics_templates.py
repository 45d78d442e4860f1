"""The nics role's rendered configuration against the papers' own listings."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import jinja2
import yaml

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location("nics", ROOT / "filter_plugins" / "nics.py")
nics = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(nics)

# The DGX-1 paper's /etc/network/interfaces for DGX1-1 (the data ports), line for line.
DGX1_1_PAPER = """\
auto enp5s0
iface enp5s0 inet static
address 10.55.5.231
netmask 255.255.255.0
mtu 9000
auto enp12s0
iface enp12s0 inet static
address 10.55.12.232
netmask 255.255.255.0
mtu 9000
auto enp132s0
iface enp132s0 inet static
address 10.55.66.231
netmask 255.255.255.0
gateway 10.55.66.1
dns-nameservers 8.8.8.8
mtu 9000
auto enp139s0
iface enp139s0 inet static
address 10.55.139.234
netmask 255.255.255.0
mtu 9000
"""


def _hostvars(site: str, host: str) -> dict:
    env = {**os.environ, "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg")}
    out = subprocess.run(
        [
            str(Path(sys.executable).parent / "ansible-inventory"),
            "-i",
            f"inventories/{site}",
            "--host",
            host,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out)


def _render(template: str, **context) -> str:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(ROOT / "roles" / "nics" / "templates"),
        trim_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["nics_netplan"] = nics.nics_netplan
    env.filters["to_nice_yaml"] = lambda v, indent=2: yaml.safe_dump(
        v, indent=indent, sort_keys=False
    )
    return env.get_template(template).render(**context)


def test_dgx1_1_ifupdown_stanzas_match_the_paper_line_for_line():
    wanted = nics.nics_with_defaults(_hostvars("dgx1", "dgx1-1")["nics_interfaces"], 1500)
    rendered = "".join(_render("ifupdown.j2", item=nic) for nic in wanted)
    lines = [line.strip() for line in rendered.splitlines() if not line.startswith("#")]
    assert "\n".join(lines) + "\n" == DGX1_1_PAPER


def test_dss8440_stanza_carries_the_papers_address_and_netmask():
    wanted = nics.nics_with_defaults(_hostvars("dss8440", "dss8440-1")["nics_interfaces"], 1500)
    rendered = _render("ifupdown.j2", item=wanted[0])
    assert rendered.splitlines()[1:] == [
        "auto enp31s0f0",
        "iface enp31s0f0 inet static",
        "    address 172.16.1.1",
        "    netmask 255.255.255.0",
        "    mtu 1500",
    ]


def test_dgx1_1_netplan_has_the_gateway_on_one_port_only():
    wanted = nics.nics_with_defaults(_hostvars("dgx1", "dgx1-1")["nics_interfaces"], 1500)
    plan = yaml.safe_load(_render("netplan.yaml.j2", _nics_wanted=wanted))
    ethernets = plan["network"]["ethernets"]
    assert ethernets["enp132s0"] == {
        "addresses": ["10.55.66.231/24"],
        "mtu": 9000,
        "routes": [{"to": "default", "via": "10.55.66.1"}],
        "nameservers": {"addresses": ["8.8.8.8"]},
    }
    assert [name for name, cfg in ethernets.items() if "routes" in cfg] == ["enp132s0"]
    assert ethernets["enp5s0"] == {"addresses": ["10.55.5.231/24"], "mtu": 9000}


def test_ipoib_stanza_comes_up_on_hotplug_with_its_mode_and_mtu():
    (wanted,) = nics.nics_with_defaults(
        [{"name": "ibp12s0", "address": "10.70.1.11/24", "type": "ipoib"}], 9000
    )
    assert _render("ifupdown.j2", item=wanted).splitlines()[1:] == [
        "allow-hotplug ibp12s0",
        "iface ibp12s0 inet static",
        "    address 10.70.1.11",
        "    netmask 255.255.255.0",
        "    pre-up echo datagram > /sys/class/net/$IFACE/mode",
        "    mtu 4092",
    ]


def test_netplan_file_gives_ipoib_its_mode_beside_the_ethernet_ports():
    wanted = nics.nics_with_defaults(
        [
            {"name": "enp225s0f0", "address": "10.60.1.11/24", "mtu": 9000},
            {
                "name": "ibp12s0",
                "address": "10.70.1.11/24",
                "type": "ipoib",
                "ipoib_mode": "connected",
            },
        ],
        9000,
    )
    rendered = _render("netplan.yaml.j2", _nics_wanted=wanted)
    assert rendered.startswith("# managed by dlcluster: nics\n")
    ethernets = yaml.safe_load(rendered)["network"]["ethernets"]
    assert ethernets == {
        "enp225s0f0": {"addresses": ["10.60.1.11/24"], "mtu": 9000},
        "ibp12s0": {"addresses": ["10.70.1.11/24"], "mtu": 65520, "infiniband-mode": "connected"},
    }
