"""The MLNX-OS (QM8700) device model of the switch simulator, in-process and over SSH with
netmiko's own `mellanox_mlnxos` driver.

The facts and their public sources (MLNX-OS User Manual v3.10, mellanox.onyx, netmiko,
public QM8700 and SX6036 captures) are named in lab/simulators/switch_sim/mlnxos.py and
mlnxos_model.py.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pytest
from netmiko.exceptions import ConfigInvalidException

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "lab" / "simulators"))
from sim_lab import SimLab  # noqa: E402
from switch_sim import mlnxos, mlnxos_model  # noqa: E402
from switch_sim.server import apply_initial_config  # noqa: E402
from switch_sim.state import SessionEnd, SwitchState  # noqa: E402

HOST = "lab-sw [standalone: master]"
ERRORS = r"(?m)^%.*"  # MLNX-OS error lines begin with `%` (mellanox.onyx's stderr regex)


@pytest.fixture
def state(tmp_path) -> SwitchState:
    return SwitchState(tmp_path / "state.json", mlnxos_model.factory("lab-sw"))


@pytest.fixture
def cli(state) -> mlnxos.MLNXOSSession:
    """A session as an SSH login leaves it: at the Standard prompt."""
    session = mlnxos.MLNXOSSession(state)
    session.login("admin", "admin")
    return session


def run(cli: mlnxos.MLNXOSSession, *lines: str) -> list[str]:
    return [cli.execute(line) for line in lines]


def config_mode(cli: mlnxos.MLNXOSSession) -> None:
    assert run(cli, "enable", "configure terminal") == ["", ""]


# ---- modes and prompts (MLNX-OS manual, SX6036 notes) ---------------------------------------


def test_login_lands_at_standard_and_each_mode_has_the_devices_prompt(cli):
    assert cli.prompt() == f"{HOST} > "
    assert not cli.in_config
    cli.execute("enable")
    assert cli.prompt() == f"{HOST} # "
    cli.execute("configure terminal")
    assert cli.prompt() == f"{HOST} (config) # " and cli.in_config
    cli.execute("interface ib 1/1-1/18")
    assert cli.prompt() == f"{HOST} (config interface ib 1/1-1/18) # " and cli.in_config
    cli.execute("exit")
    assert cli.prompt() == f"{HOST} (config) # "
    cli.execute("interface ib 1/7")
    assert cli.execute("no configure") == ""
    assert cli.prompt() == f"{HOST} # " and not cli.in_config
    cli.execute("disable")
    assert cli.prompt() == f"{HOST} > "
    with pytest.raises(SessionEnd):
        cli.execute("exit")


def test_exit_from_enable_logs_out(cli):
    run(cli, "enable", "configure terminal", "exit")
    with pytest.raises(SessionEnd):
        cli.execute("exit")


def test_standard_mode_refuses_configuration_and_privileged_shows(cli):
    assert cli.execute("configure terminal") == '% Unrecognized command "configure".'
    assert cli.execute("show running-config") == '% Unrecognized command "running-config".'
    assert cli.execute("show ib sm") == '% Unrecognized command "ib".'
    assert cli.prompt() == f"{HOST} > "
    assert "Product release:   3.9.0606" in cli.execute("show version")
    assert cli.execute("no cli session paging enable") == ""  # what netmiko sends first


def test_config_commands_are_refused_outside_config_mode(cli, state):
    cli.execute("enable")
    before = copy.deepcopy(state.running)
    assert cli.execute("ib sm") == '% Unrecognized command "ib".'
    assert cli.execute("interface ib 1/1") == '% Unrecognized command "interface".'
    assert cli.execute("configuration write") == '% Unrecognized command "configuration".'
    assert state.running == before and cli.prompt() == f"{HOST} # "


def test_keywords_take_unique_prefixes_and_unknown_words_are_named(cli):
    assert run(cli, "en", "config term", "int ib 1/1-1/36") == ["", "", ""]
    assert cli.prompt() == f"{HOST} (config interface ib 1/1-1/36) # "
    assert cli.execute("shut") == ""
    assert cli.execute("no shut") == ""
    assert cli.execute("frobnicate now") == '% Unrecognized command "frobnicate".'
    assert cli.execute("interface") == "% Incomplete command."
    assert cli.execute("end") == '% Unrecognized command "end".'  # netmiko: no single exit


# ---- ports, splits, speeds (MLNX-OS manual, QM8700 capture) -------------------------------


def test_factory_has_forty_unsplit_ports_and_no_port_lines(cli):
    cli.execute("enable")
    assert sorted(cli.state.running["ports"], key=mlnxos_model.port_key) == [
        f"1/{n}" for n in range(1, 41)
    ]
    config = cli.execute("show running-config")
    lines = config.splitlines()
    assert lines[:2] == ["##", '## Running database "initial"']
    assert lines[2].startswith("## Generated at ")
    assert lines[3:6] == ["## Hostname: lab-sw", "## Product release: 3.9.0606", "##"]
    assert "##\n## Running-config temporary prefix mode setting\n##\n" in config
    assert "no cli default prefix-modes enable" in lines
    assert "interface ib" not in config and "ib sm" not in config
    assert "   hostname lab-sw" in lines
    assert cli.execute("interface ib 1/41") == '% Unrecognized command "interface".'
    run(cli, "configure terminal")
    assert cli.execute("interface ib 1/41") == "% Interface ib 1/41 does not exist."
    assert cli.execute("interface ib 1/40") == ""


def test_split_gives_two_hdr100_sub_ports_and_removes_the_port(cli):
    config_mode(cli)
    assert cli.execute("interface ib 1/2 module-type qsfp-split-2 force") == ""
    ports = cli.state.running["ports"]
    assert "1/2" not in ports and {"1/2/1", "1/2/2"} <= set(ports)
    assert cli.execute("interface ib 1/2/2") == ""
    assert cli.prompt() == f"{HOST} (config interface ib 1/2/2) # "
    config = cli.execute("show running-config")
    assert "   interface ib 1/2 module-type qsfp-split-2 force" in config.splitlines()


def test_split_refusals_change_nothing(cli, state):
    config_mode(cli)
    cli.execute("interface ib 1/2 module-type qsfp-split-2 force")
    before = copy.deepcopy(state.running)
    # the port is already split: its old name is gone, its sub-ports cannot split again
    assert cli.execute("interface ib 1/2 module-type qsfp-split-2 force") == (
        "% Interface ib 1/2 does not exist."
    )
    assert cli.execute("interface ib 1/2/1 module-type qsfp-split-2 force") == (
        "% Interface ib 1/2/1 is already split."
    )
    # a sub-port of a port that is not split, a range across the split port, port 41
    assert cli.execute("interface ib 1/3/1 shutdown") == "% Interface ib 1/3/1 does not exist."
    assert cli.execute("interface ib 1/1-1/4 shutdown") == "% Interface ib 1/2 does not exist."
    assert cli.execute("interface ib 1/39-1/41 shutdown") == "% Interface ib 1/41 does not exist."
    assert cli.execute("interface ib 1/5 module-type qsfp force") == (
        "% Interface ib 1/5 is not split."
    )
    assert state.running == before


def test_unsplit_through_a_sub_port_restores_the_port(cli):
    config_mode(cli)
    run(cli, "interface ib 1/9 module-type qsfp-split-2 force", "interface ib 1/9/1")
    assert cli.execute("module-type qsfp force") == ""
    assert cli.prompt() == f"{HOST} (config) # "  # the mode's interface is gone
    ports = cli.state.running["ports"]
    assert "1/9" in ports and "1/9/1" not in ports and "1/9/2" not in ports
    assert "module-type" not in cli.execute("show running-config")


def test_shutdown_and_speed_render_as_one_line_commands(cli):
    config_mode(cli)
    run(cli, "interface ib 1/3-1/4", "shutdown", "exit", "interface ib 1/4 no shutdown")
    run(cli, "interface ib 1/6 speed hdr edr")
    lines = cli.execute("show running-config").splitlines()
    assert "   interface ib 1/3 shutdown" in lines
    assert "   interface ib 1/4 shutdown" not in lines
    assert "   interface ib 1/6 speed edr hdr" in lines  # the device's order, not as typed
    assert cli.execute("interface ib 1/6 speed fast") == '% Unrecognized command "fast".'
    assert cli.execute("interface ib 1/6 speed") == "% Incomplete command."
    run(cli, "interface ib 1/6", "no speed")
    assert "speed" not in cli.execute("show running-config")


def test_description_takes_the_rest_of_the_line_and_shows_where_the_port_does(cli):
    config_mode(cli)
    run(cli, "interface ib 1/3", "description port 3", "exit")  # as Omnia sends it
    assert cli.execute("interface ib 1/4-1/5 description rack-4") == ""
    lines = cli.execute("show running-config").splitlines()
    assert '   interface ib 1/3 description "port 3"' in lines
    assert "   interface ib 1/5 description rack-4" in lines
    detail = cli.execute("show interfaces ib 1/3").splitlines()
    assert "        Description                 : port 3" in detail
    rows = [line.split()[:2] for line in cli.execute("show interfaces ib status").splitlines()]
    assert ["IB1/4", "rack-4"] in rows
    assert cli.execute("interface ib 1/3 description") == "% Incomplete command."
    run(cli, "interface ib 1/3", "no description")
    assert "description" not in cli.state.running["ports"]["1/3"]
    run(cli, "exit", "interface ib 1/5 module-type qsfp-split-2 force")
    assert "ib 1/5 description" not in cli.execute("show running-config")  # split: afresh


# ---- SNMP (Omnia's infiniband role, UFM, mellanox.onyx) ---------------------------------------


def test_snmp_lines_omnia_and_ufm_send_apply_and_list_in_running_config(cli):
    config_mode(cli)
    sent = [
        "snmp-server enable",  # Omnia's four lines
        "snmp-server enable notify",
        "snmp-server community omnia ro",
        "snmp-server host 10.5.0.1 traps version 1 omnia",
        "snmp-server host 10.5.0.2 traps",  # UFM's
        "snmp-server host 10.5.0.3 informs port 1162 version 2c",
        "snmp-server community ops",
    ]
    assert run(cli, *sent) == [""] * len(sent)
    snmp = cli.state.running["snmp"]
    assert snmp["communities"] == {"omnia": "ro", "ops": "ro"}
    assert snmp["hosts"]["10.5.0.1"] == {"type": "traps", "version": "1", "community": "omnia"}
    lines = cli.execute("show running-config | include snmp").splitlines()
    assert lines == [
        "   snmp-server community omnia ro",
        "   snmp-server community ops ro",
        "   snmp-server host 10.5.0.1 traps version 1 omnia",
        "   snmp-server host 10.5.0.2 traps",
        "   snmp-server host 10.5.0.3 informs port 1162 version 2c",
    ]  # on by default, so `snmp-server enable` lists nothing
    run(cli, "no snmp-server enable notify", "no snmp-server host 10.5.0.2")
    run(cli, "no snmp-server community ops")
    lines = cli.execute("show running-config | include snmp").splitlines()
    assert "   no snmp-server enable notify" in lines
    assert not any("10.5.0.2" in line or " ops " in line for line in lines)


def test_snmp_refusals_change_nothing(cli, state):
    config_mode(cli)
    before = copy.deepcopy(state.running)
    assert cli.execute("snmp-server host nms traps") == '% Unrecognized command "nms".'
    assert cli.execute("snmp-server host 10.0.0.1") == "% Incomplete command."
    assert cli.execute("snmp-server host 10.0.0.1 traps version 3 u") == (
        '% Unrecognized command "3".'
    )  # SNMPv3 is not modelled
    assert cli.execute("snmp-server host 10.0.0.1 traps port 0") == '% Unrecognized command "0".'
    assert cli.execute("snmp-server host 10.0.0.1 traps a b") == '% Unrecognized command "b".'
    assert cli.execute("snmp-server community c rx") == '% Unrecognized command "rx".'
    assert cli.execute("snmp-server") == "% Incomplete command."
    cli.execute("exit")
    assert cli.execute("snmp-server enable") == '% Unrecognized command "snmp-server".'
    assert state.running == before


# ---- link state and shows ------------------------------------------------------------------


def test_link_is_active_only_where_cabled_not_shut_and_an_sm_runs(state):
    state.cabled_ports = frozenset({1, 2, 4})
    cli = mlnxos.MLNXOSSession(state)
    run(cli, "configure terminal", "interface ib 1/2 module-type qsfp-split-2 force")
    run(cli, "interface ib 1/4 shutdown")

    def rows() -> dict[str, list[str]]:
        table = cli.execute("show interfaces ib status").splitlines()
        assert table[0].split()[:2] == ["Interface", "Description"]
        return {line.split()[0]: line.split()[1:] for line in table[2:]}

    assert rows()["IB1/1"] == ["hdr", "200.0", "Gbps", "Initialize", "LinkUp"]  # no SM yet
    cli.execute("ib sm")
    status = rows()
    assert status["IB1/1"] == ["hdr", "200.0", "Gbps", "Active", "LinkUp"]
    assert status["IB1/2/1"] == ["hdr", "100.0", "Gbps", "Active", "LinkUp"]
    assert status["IB1/3"] == ["-", "-", "Down", "Polling"]  # no cable
    assert status["IB1/4"] == ["-", "-", "Down", "Disabled"]  # cabled but shut down
    assert cli.execute("show interfaces ib status | include LinkUp").count("LinkUp") == 3
    detail = cli.execute("show interfaces ib 1/2/1").splitlines()
    assert detail[0] == "IB1/2/1 state:"
    assert "        Logical port state          : Active" in detail
    assert "        Width                       : 2X" in detail
    assert "        MTU                         : 4096" in detail
    assert "        IB Subnet                   : infiniband-default" in detail


def test_subnet_manager_is_off_by_default_and_follows_ib_sm(cli):
    config_mode(cli)
    assert cli.execute("show ib sm") == "disable"
    assert cli.execute("ib sm") == ""
    assert cli.execute("show ib sm") == "enable"
    assert "   ib sm" in cli.execute("show running-config").splitlines()
    assert cli.execute("show ib smnode lab-sw sm-running") == "active"
    assert cli.execute("ib smnode lab-sw disable") == ""
    assert cli.execute("show ib smnode lab-sw sm-state") == "disable"
    assert cli.execute("show ib smnode lab-sw sm-running") == "not active"
    assert cli.execute("ib smnode other-sw enable") == "% Unknown SM node other-sw."
    run(cli, "ib smnode lab-sw enable", "no ib sm")
    assert cli.execute("show ib sm") == "disable"
    assert cli.execute("show ib smnode lab-sw sm-running") == "not active"


def test_json_print_of_version_and_port_status(cli):
    version = json.loads(cli.execute("show version | json-print"))
    assert version["Product name"] == "MLNX-OS"
    assert version["Product release"] == "3.9.0606"
    assert {"Version summary", "Product model"} <= set(version)
    cli.execute("enable")
    status = json.loads(cli.execute("show interfaces ib status | json-print"))
    assert len(status) == 40 and status["IB1/40"][0]["Physical port state"] == "Polling"
    assert cli.execute("show ib sm | json-print") == '% Unrecognized command "json-print".'


def test_show_hosts_names_the_switch(cli):
    assert cli.execute("show hosts | include Hostname") == "Hostname: lab-sw"


# ---- save and startup (MLNX-OS manual: config applies at once, save copies to startup) ------


def test_configuration_write_and_write_memory_save_and_files_show_unsaved(cli, state):
    config_mode(cli)
    cli.execute("ib sm")
    assert state.startup["sm"] is False  # applied to running only
    assert cli.execute("show configuration files").endswith("Unsaved changes: yes")
    assert cli.execute("configuration write") == ""
    assert state.startup["sm"] is True
    assert cli.execute("show configuration files") == (
        "initial (active)\n\nActive configuration: initial\nUnsaved changes: no"
    )
    run(cli, "interface ib 1/1 shutdown", "exit")
    assert cli.execute("write memory") == ""
    reloaded = SwitchState(state.path, mlnxos_model.factory("lab-sw"))
    assert reloaded.running["ports"]["1/1"]["shutdown"] is True and reloaded.running["sm"]


def test_initial_config_lines_apply_at_the_console_and_are_saved(tmp_path):
    day0 = tmp_path / "day0.cfg"
    day0.write_text("ib sm\n   interface ib 1/2 module-type qsfp-split-2 force\n")
    state = SwitchState(tmp_path / "state.json", mlnxos_model.factory("lab-sw"))
    apply_initial_config(state, mlnxos.MLNXOSSession, day0)
    assert state.startup["sm"] is True and "1/2/1" in state.startup["ports"]
    day0.write_text("interface ib 1/99 shutdown\n")
    with pytest.raises(ValueError, match="refused the line"):
        apply_initial_config(state, mlnxos.MLNXOSSession, day0)


def test_running_config_replays_to_the_same_configuration(cli, state, tmp_path):
    config_mode(cli)
    run(cli, "interface ib 1/2 module-type qsfp-split-2 force", "interface ib 1/3 shutdown")
    run(cli, "interface ib 1/2/1 speed hdr", "ib sm", "hostname ib-a")
    run(cli, "interface ib 1/4 description port 4", "interface ib 1/5 description r5")
    run(cli, "no snmp-server enable", "snmp-server community c rw")
    run(cli, "snmp-server host 10.0.0.1 informs port 1162 version 2c c")
    text = cli.execute("show running-config")
    other = SwitchState(tmp_path / "other.json", mlnxos_model.factory("lab-sw"))
    replay = tmp_path / "replay.cfg"
    replay.write_text(text)
    apply_initial_config(other, mlnxos.MLNXOSSession, replay)
    assert other.running == state.running


# ---- over SSH with netmiko's mellanox_mlnxos driver -------------------------------------------


@pytest.fixture
def lab(tmp_path):
    lab = SimLab(tmp_path, "mlnxos", cabled=[1, 2], fast_cli=True)
    yield lab
    lab.switch.stop()


def test_netmiko_configures_saves_and_sees_refusals(lab):
    """Each netmiko login costs the driver's 2 s quiet read, so one session does it all."""
    lab.faults.write_text(json.dumps({"reject_commands": ["^hostname "]}))
    with lab.connect() as conn:
        assert conn.find_prompt() == f"{HOST} >"
        assert "Product release:   3.9.0606" in conn.send_command("show version")
        conn.enable()
        assert conn.find_prompt() == f"{HOST} #"
        output = conn.send_config_set(
            ["interface ib 1/2 module-type qsfp-split-2 force", "interface ib 1/2/1",
             "no shutdown", "exit", "ib sm"],
            error_pattern=ERRORS,
        )  # fmt: skip
        assert f"{HOST} (config interface ib 1/2/1) #" in output
        assert conn.find_prompt() == f"{HOST} #"  # netmiko left config mode with `exit`s
        status = conn.send_command("show interfaces ib status | include LinkUp")
        assert [line.split()[0] for line in status.splitlines()] == ["IB1/1", "IB1/2/1", "IB1/2/2"]
        with pytest.raises(ConfigInvalidException, match="% Interface ib 1/41 does not exist"):
            conn.send_config_set(["interface ib 1/41 shutdown"], error_pattern=ERRORS)
        with pytest.raises(ConfigInvalidException, match="% Command rejected"):
            conn.send_config_set(["hostname ib-a"], error_pattern=ERRORS)
        conn.save_config()
        conn.send_config_set(["interface ib 1/5 shutdown"], error_pattern=ERRORS)
        assert "   interface ib 1/5 shutdown" in conn.send_command("show running-config")
    lab.restart()  # what the restarted switch shows, read at its console (no 2nd login)
    console = mlnxos.MLNXOSSession(lab.switch.state)
    config = console.execute("show running-config")
    assert console.execute("show ib sm") == "enable"
    assert "   interface ib 1/2 module-type qsfp-split-2 force" in config.splitlines()
    assert "interface ib 1/5 shutdown" not in config  # not saved: lost on restart
    assert "## Hostname: lab-sw" in config  # the rejected line changed nothing


def test_the_session_drops_after_n_config_commands(lab):
    lab.faults.write_text(json.dumps({"drop_after_config_commands": 2}))
    conn = lab.connect(read_timeout=2)  # the dropped session ends in a read timeout
    conn.enable()
    with pytest.raises(Exception):  # noqa: B017 - netmiko raises a read error or timeout
        conn.send_config_set(
            [f"interface ib 1/{n} shutdown" for n in (11, 12, 13)], error_pattern=ERRORS
        )
    ports = lab.switch.state.running["ports"]
    assert ports["1/11"]["shutdown"] and ports["1/12"]["shutdown"]
    assert not ports["1/13"]["shutdown"]  # never sent: the session died after two
