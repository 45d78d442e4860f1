"""The OS10 simulator (lab/simulators/switch_sim/os10.py, its device model os10_model.py)
in-process: its factory state, what clients send, and what it refuses.

The facts and their public sources are named in lab/simulators/switch_sim/os10.py and
os10_model.py.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "lab" / "simulators"))
sys.path.insert(0, str(ROOT / "module_utils"))
import switch_config as lib  # noqa: E402
from switch_sim import os10, os10_model  # noqa: E402
from switch_sim.state import SwitchState  # noqa: E402


@pytest.fixture
def state(tmp_path) -> SwitchState:
    return SwitchState(tmp_path / "state.json", os10_model.factory("lab-sw"))


@pytest.fixture
def cli(state) -> os10.OS10Session:
    return os10.OS10Session(state)


def run(cli: os10.OS10Session, *lines: str) -> list[str]:
    return [cli.execute(line) for line in lines]


# ---- factory state -------------------------------------------------------------------------


def test_factory_lists_a_native_breakout_line_for_every_qsfp28_port(cli):
    config = cli.execute("show running-configuration")
    lines = config.splitlines()
    assert lines[0] == "! Version 10.5.1.3"
    assert lines[1].startswith("! Last configuration change at ")
    assert lines[2:5] == ["!", "ip vrf default", "!"]
    breakouts = [line for line in lines if line.startswith("interface breakout")]
    assert breakouts == [f"interface breakout 1/1/{n} map 100g-1x" for n in range(1, 33)]
    # native map: the ports keep their own names; SFP+ 33-34 have no breakout
    assert "interface ethernet1/1/21\n no shutdown\n switchport access vlan 1\n!" in config
    assert "interface ethernet1/1/34\n" in config
    assert not [line for line in lines if line.startswith("interface ethernet") and ":" in line]
    assert config.index("interface breakout 1/1/32") < config.index("interface ethernet1/1/1\n")


def test_non_native_map_creates_the_colon_one_sub_port_and_native_map_restores_the_name(cli):
    assert run(cli, "configure terminal", "interface breakout 1/1/25 map 40g-1x") == ["", ""]
    config = cli.execute("show running-configuration")
    assert "interface breakout 1/1/25 map 40g-1x" in config
    assert "interface ethernet1/1/25:1\n no shutdown\n switchport access vlan 1\n!" in config
    assert "interface ethernet1/1/25\n" not in config
    assert cli.execute("no interface breakout 1/1/25") == ""
    config = cli.execute("show running-configuration")
    assert "interface breakout 1/1/25 map 100g-1x" in config
    assert "interface ethernet1/1/25\n" in config and "ethernet1/1/25:1" not in config


def test_four_way_map_on_a_factory_port_at_once_and_a_split_port_only_after_unsplit(cli):
    run(cli, "configure terminal")
    assert cli.execute("interface breakout 1/1/13 map 10g-4x") == ""
    assert cli.execute("interface ethernet 1/1/13:4") == ""
    assert cli.prompt() == "lab-sw(conf-if-eth1/1/13:4)# "
    assert cli.execute("interface breakout 1/1/13 map 25g-4x").startswith(
        "% Error: Port 1/1/13 is already in breakout mode 10g-4x"
    )
    run(cli, "no interface breakout 1/1/13", "interface breakout 1/1/13 map 25g-4x")
    assert "interface breakout 1/1/13 map 25g-4x" in cli.execute("show running-configuration")


def test_configuration_is_shown_in_the_devices_form_not_as_typed(cli):
    run(
        cli,
        "conf t",
        "int eth 1/1/3",
        "desc link to isilon-1",
        "mtu 09216",
        "switchport access vlan 0001",
        "end",
    )
    block = cli.execute("show running-configuration interface ethernet1/1/3")
    assert block == (
        'interface ethernet1/1/3\n description "link to isilon-1"\n no shutdown\n'
        " switchport access vlan 1\n mtu 9216\n!"
    )


# ---- what clients send (dellemc.os10, Omnia, napalm-dellos10) ------------------------------


def test_abbreviations_expand_as_the_cli_completes_them(cli, state):
    assert cli.execute("sh run") == cli.execute("show running-configuration")
    assert cli.execute("show running-config") == cli.execute("show running-configuration")
    assert cli.execute("conf t") == "" and cli.prompt() == "lab-sw(config)# "
    run(cli, "interface breakout 1/1/30 map 40g-1x", "end")
    assert cli.execute("copy run start") == ""
    assert state.startup["breakouts"]["1/1/30"] == "40g-1x"
    assert cli.execute("s run") == "% Error: Ambiguous command."  # show, start


def test_commit_typed_in_configuration_mode_without_a_transaction_is_silent(cli, state):
    # dellemc.os10 appends `commit` to every config change (its load_config, issue #66)
    out = run(cli, "configure terminal", "interface breakout 1/1/22 map 40g-1x", "commit", "end")
    assert out == ["", "", "", ""]
    assert state.running["breakouts"]["1/1/22"] == "40g-1x"


def test_grep_and_except_filter_lines(cli):
    assert cli.execute("show running-configuration | grep hostname") == "hostname lab-sw"
    kept = cli.execute("show running-configuration | except breakout").splitlines()
    assert kept and not any("breakout" in line for line in kept)
    omnia = cli.execute('show system | grep "Current Type"')
    assert omnia.split()[-1] == "S5232F-ON"


def test_display_xml_answers_the_paths_os10_facts_reads(cli):
    version = ET.fromstring(cli.execute("show version | display-xml").encode())
    assert version.find("./data/system-sw-state/sw-version/sw-version").text == "10.5.1.3"
    assert version.find("./data/system-sw-state/sw-version/sw-platform").text == "S5232F-ON"
    assert version.find("./data/system-state/system-status/hostname").text == "lab-sw"
    system = ET.fromstring(cli.execute("show system | display-xml").encode())
    assert system.find("./data/system/node/unit/mfg-info/service-tag") is not None
    # several documents, one per interface, split where `?xml version` starts a line
    docs = cli.execute("show interface | display-xml").split('<?xml version="1.0"')[1:]
    assert len(docs) == 34
    first = ET.fromstring(('<?xml version="1.0"' + docs[0]).encode())
    assert first.find("./data/interfaces/interface/name").text == "ethernet1/1/1"
    assert first.find("./data/interfaces/interface/mtu").text == "1532"
    assert first.find("./bulk/data/interface/oper-status").text == "down"
    lldp = ET.fromstring(cli.execute("show lldp neighbors | display-xml").encode())
    assert lldp.findall("./bulk/data/interface") == []


def test_exec_commands_run_in_configuration_mode(cli):
    run(cli, "configure terminal")
    assert cli.execute("show version").splitlines()[2] == "OS Version: 10.5.1.3"
    assert cli.execute("do show version") == cli.execute("show version")


# ---- link state from the cabling ------------------------------------------------------------


def test_only_cabled_ports_that_are_not_shut_down_are_up(cli, state):
    state.cabled_ports = frozenset({1, 21})
    run(
        cli, "conf t", "interface breakout 1/1/21 map 40g-1x", "interface ethernet1/1/1", "shutdown"
    )
    status = cli.execute("show interface status").splitlines()
    assert status[0] == "-" * 98 and status[2] == "-" * 98 and status[-1] == "-" * 98
    assert status[1].index("Status") == 32 and status[1].index("Tagged-Vlans") == 69
    rows = {line[:16].strip(): line for line in status[3:-1]}
    assert rows["Eth 1/1/21:1"][32:].split()[:3] == ["up", "40G", "full"]
    assert rows["Eth 1/1/1"][32:].split()[:2] == ["down", "0"]  # cabled but shut down
    assert rows["Eth 1/1/2"][32:].split() == ["down", "0", "full", "A", "1", "-"]


def test_a_factory_switch_without_cabling_has_every_port_down(cli):
    status = cli.execute("show interface status").splitlines()[3:-1]
    assert len(status) == 34 and all(line[32:].startswith("down") for line in status)


# ---- validation: each refused input gives the device's error and changes nothing -----------

REFUSED = [
    # (mode lines, refused command, error)
    ((), "ip route 0.0.0.0/33 10.0.0.1", os10.ERR_ILLEGAL),
    ((), "ip route 10.1.2.3/8 10.0.0.1", os10.ERR_ILLEGAL),
    ((), "ip route 300.0.0.0/8 10.0.0.1", os10.ERR_ILLEGAL),
    ((), "ip route 10.0.0.0/8", os10.ERR_INCOMPLETE),
    ((), "interface breakout 1/1/21", os10.ERR_INCOMPLETE),
    ((), "interface breakout 1/1/21 map 30g-1x", os10.ERR_UNRECOGNIZED),
    ((), "interface breakout 1/1/33 map 10g-4x", "% Error: Port 1/1/33 does not support breakout."),
    ((), "interface ethernet1/1/35", "% Error: Interface ethernet1/1/35 does not exist."),
    ((), "interface ethernet1/1/21:1", "% Error: Interface ethernet1/1/21:1 does not exist."),
    ((), "interface vlan 4095", os10.ERR_ILLEGAL),
    ((), "hostname", os10.ERR_INCOMPLETE),
    ((), "mtu 9216", os10.ERR_UNRECOGNIZED),  # an interface command in config mode
    ((), "switchport access vlan 1", os10.ERR_UNRECOGNIZED),
    ((), "bogus", os10.ERR_UNRECOGNIZED),
    (("interface ethernet1/1/5",), "switchport access vlan 4095", os10.ERR_ILLEGAL),
    (("interface ethernet1/1/5",), "switchport access vlan 0", os10.ERR_ILLEGAL),
    (("interface ethernet1/1/5",), "switchport access vlan", os10.ERR_INCOMPLETE),
    (("interface ethernet1/1/5",), "mtu 99999", os10.ERR_ILLEGAL),
    (("interface ethernet1/1/5",), "mtu 1311", os10.ERR_ILLEGAL),
    (("interface ethernet1/1/5",), "mtu", os10.ERR_INCOMPLETE),
    (("interface ethernet1/1/5",), "speed 25000", os10.ERR_ILLEGAL),  # a 100G port
    (("interface ethernet1/1/33",), "speed 40000", os10.ERR_ILLEGAL),  # SFP+
    (("interface ethernet1/1/5",), "description", os10.ERR_INCOMPLETE),
    (("interface vlan1",), "mtu 9216", os10.ERR_UNRECOGNIZED),
]


@pytest.mark.parametrize(("modes", "command", "error"), REFUSED)
def test_refused_input_gives_the_devices_error_and_changes_nothing(cli, modes, command, error):
    before = cli.execute("show running-configuration")
    run(cli, "configure terminal", *modes)
    assert cli.execute(command) == error
    assert cli.execute("do show running-configuration") == before


def test_refused_lines_inside_a_transaction_leave_the_candidate_alone(cli, state):
    run(cli, "start transaction", "configure terminal", "interface breakout 1/1/21 map 40g-1x")
    diff = cli.execute("do show diff candidate-configuration running-configuration")
    assert cli.execute("interface breakout 1/1/21 map 10g-4x").startswith("% Error:")
    assert cli.execute("do show diff candidate-configuration running-configuration") == diff
    # before commit the running configuration is unchanged, as the device shows it
    assert "1/1/21 map 100g-1x" in cli.execute("do show running-configuration")
    run(cli, "end", "commit")
    assert state.running["breakouts"]["1/1/21"] == "40g-1x"


def test_accepted_limits_and_exec_error_for_terminal_width(cli):
    run(cli, "configure terminal", "interface ethernet1/1/5")
    assert (
        run(cli, "mtu 9216", "mtu 1312", "switchport access vlan 4093", "speed 40000") == [""] * 4
    )
    assert cli.execute("do terminal width 511") == os10.ERR_UNRECOGNIZED


def test_error_pattern_catches_error_lines_after_escape_sequences():
    # OS10 may open an error line with a BEL or terminal escape sequences (from the public
    # OS10 sources os10.py lists)
    for line in (
        "% Error: Illegal parameter.",
        "\x07% Error: Illegal parameter.",
        "\x1b[1;31m% Error: Unrecognized command.\x1b[0m",
        "\x1b[K\x07 % Error: Incomplete command.",
        "ok\r\n\x1b[?25h% Error: Illegal parameter.",
    ):
        assert lib.re.search(lib.ERROR_PATTERN, line), repr(line)
    assert not lib.re.search(lib.ERROR_PATTERN, " description no % Error here")


def test_a_state_file_of_the_older_model_is_upgraded_keeping_its_breakouts(tmp_path):
    old = os10_model.factory("lab-sw")
    old["breakouts"] = {"1/1/21": "40g-1x"}
    del old["routes"]
    old["interfaces"] = {
        name: {"shutdown": False, "access_vlan": 1, "description": None, "mtu": None,
               "speed": "40G" if ":" in name else "100G"}
        for name in ["ethernet1/1/1", "ethernet1/1/21:1"]
    }  # fmt: skip
    cli = os10.OS10Session(SwitchState(tmp_path / "s.json", old))
    config = cli.execute("show running-configuration")
    assert "interface breakout 1/1/21 map 40g-1x" in config
    assert "interface breakout 1/1/22 map 100g-1x" in config
    assert " speed " not in config
    assert cli.execute("show interface status").count("down") == 2
