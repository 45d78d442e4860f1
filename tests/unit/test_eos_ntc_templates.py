"""ntc-templates' arista_eos parsers over every EOS show output the simulator prints.

ntc-templates' templates are built from real device captures and end in `-> Error` on a
line they do not expect, so a parse that yields the right rows is evidence that the
simulator prints what the device prints.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from ntc_templates.parse import parse_output

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "lab" / "simulators"))
from switch_sim import eos  # noqa: E402
from switch_sim.state import SwitchState  # noqa: E402


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    """A 7060 with the lab's kind of settings: a LAG, VLANs, descriptions, cabled ports."""
    state = SwitchState(tmp_path_factory.mktemp("eos") / "state.json", eos.factory("lab-7060"))
    state.cabled_ports = frozenset({1, 21, 31, 32})
    session = eos.EOSSession(state)
    lines = [
        "configure",
        "vlan 10",
        "name data",
        "interface Ethernet1/1",
        "description lab-compute-1",
        "switchport access vlan 10",
        "interface Ethernet21/1",
        "speed forced 40gfull",
        "description lab-isilon-1",
        "interface Ethernet31/1",
        "channel-group 10 mode active",
        "interface Ethernet32/1",
        "channel-group 10 mode active",
        "interface Ethernet2/1",
        "shutdown",
        "end",
    ]
    for line in lines:
        assert session.execute(line) == "", line
    return session


def parse(session, command: str) -> list[dict]:
    return parse_output(platform="arista_eos", command=command, data=session.execute(command))


def test_show_version(session):
    (row,) = parse(session, "show version")
    assert row["model"] == "DCS-7060CX2-32S"
    assert row["image"] == "4.20.15M"
    assert row["serial_number"] == "JPE00000000"
    assert row["total_memory"] == "8010424" and row["free_memory"] == "5123456"


def test_show_hostname(session):
    assert parse(session, "show hostname") == [{"hostname": "lab-7060", "fqdn": "lab-7060"}]


def test_show_interfaces_status(session):
    rows = {row["port"]: row for row in parse(session, "show interfaces status")}
    assert len(rows) == 32 * 4 + 2 + 1 + 1  # lanes, SFP+ ports, Ma1, Po10
    assert rows["Et1/1"]["status"] == "connected"
    assert rows["Et1/1"]["name"] == "lab-compute-1"
    assert rows["Et1/1"]["vlan_id"] == "10"
    assert rows["Et21/1"]["speed"] == "40G" and rows["Et21/1"]["type"] == "40GBASE-CR4"
    assert rows["Et2/1"]["status"] == "disabled"
    assert rows["Et3/1"]["status"] == "notconnect" and rows["Et3/1"]["type"] == "Not Present"
    assert rows["Et1/2"]["status"] == "inactive" and rows["Et1/2"]["speed"] == "unconf"
    assert rows["Et31/1"]["vlan_id"] == "Po10"
    assert rows["Po10"]["status"] == "connected" and rows["Po10"]["type"] == "N/A"


def test_show_interfaces(session):
    rows = {row["interface"]: row for row in parse(session, "show interfaces")}
    assert rows["Ethernet1/1"]["link_status"] == "up"
    assert rows["Ethernet1/1"]["protocol_status"] == "up (connected)"
    assert rows["Ethernet1/1"]["description"] == "lab-compute-1"
    assert rows["Ethernet1/1"]["mtu"] == "9214"
    assert rows["Ethernet1/1"]["bandwidth"] == "100000000 kbit"
    assert rows["Ethernet2/1"]["link_status"] == "administratively down"
    assert rows["Ethernet21/1"]["bandwidth"] == "40000000 kbit"
    assert "Port-Channel10" in rows


def test_show_lldp_neighbors_has_no_neighbours(session):
    assert parse(session, "show lldp neighbors") == []


def test_show_vlan(session):
    rows = {row["vlan_id"]: row for row in parse(session, "show vlan")}
    assert rows["10"] == {
        "vlan_id": "10", "vlan_name": "data", "status": "active", "interfaces": ["Et1/1"],
    }  # fmt: skip
    assert rows["1"]["vlan_name"] == "default"
    assert rows["1"]["interfaces"] == ["Et21/1", "Po10"]  # only ports that are up


def test_show_port_channel_summary(session):
    (row,) = parse(session, "show port-channel summary")
    assert row["bundle_name"] == "Po10" and row["bundle_status"] == "U"
    assert row["bundle_protocol"] == "LACP" and row["bundle_protocol_state"] == "a"
    assert row["member_interface"] == ["Et31/1", "Et32/1"]
    assert row["member_interface_status"] == ["PG+", "PG+"]


def test_dir_all_filesystems(session):
    rows = parse(session, "dir all-filesystems")
    files = {row["name"]: row for row in rows if row["name"]}
    assert files["startup-config"]["file_system"] == "flash:/"
    assert "EOS-4.20.15M.swi" in files
