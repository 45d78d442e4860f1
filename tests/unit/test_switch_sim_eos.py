"""The EOS (DCS-7060CX2-32S) simulator: factory state, validation, pipes, JSON, privilege,
configuration sessions. Most checks drive the device model in-process (fast); the ones
about logins, passwords and connections go through SSH with netmiko, a real client.
"""

from __future__ import annotations

import json
import re
import sys
import threading
from pathlib import Path

import paramiko
import pytest
from netmiko import ConnectHandler
from netmiko.exceptions import ConfigInvalidException

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "lab" / "simulators"))
from switch_sim import eos, eos_model  # noqa: E402
from switch_sim.server import Switch  # noqa: E402
from switch_sim.state import SwitchState  # noqa: E402

ERRORS = r"(?m)^% ?(Error|Invalid|Incomplete|Ambiguous|Cannot)"
HOST_KEY = paramiko.RSAKey.generate(1024)


# ---- helpers ------------------------------------------------------------------------------


def new_state(tmp_path: Path, cabled: set[int] | None = None) -> SwitchState:
    state = SwitchState(tmp_path / "state.json", eos.factory("lab-sw"))
    state.cabled_ports = frozenset(cabled or ())
    return state


def cli(state: SwitchState, *lines: str) -> list[str]:
    """Type lines into one session of the device model; returns each reply."""
    session = eos.EOSSession(state)
    return [session.execute(line) for line in lines]


def configure(state: SwitchState, *lines: str) -> None:
    replies = cli(state, "configure", *lines, "end")
    errors = [r for r in replies if r.startswith("%")]
    assert not errors, errors


def running(state: SwitchState) -> str:
    return eos.EOSSession(state).execute("show running-config")


class Lab:
    """The simulator on an ephemeral 127.0.0.1 port, as the lab runs it."""

    def __init__(self, tmp_path: Path, initial_config: str | None = None):
        self.tmp_path = tmp_path
        initial = None
        if initial_config is not None:
            initial = tmp_path / "day0.cfg"
            initial.write_text(initial_config)
        self.switch = Switch(
            "eos",
            str(tmp_path / "state.json"),
            {"admin": "pw", "ops": "pw2"},
            HOST_KEY,
            "lab-sw",
            initial_config_path=str(initial) if initial else None,
        )
        self.port = self.switch.listen("127.0.0.1", 0)
        threading.Thread(target=self.switch.serve_forever, daemon=True).start()

    def connect(self, username: str = "admin", password: str = "pw", **extra):
        return ConnectHandler(
            device_type="arista_eos",
            host="127.0.0.1",
            port=self.port,
            username=username,
            password=password,
            conn_timeout=10,
            read_timeout_override=10,
            **extra,
        )


@pytest.fixture
def lab(tmp_path):
    lab = Lab(tmp_path)
    yield lab
    lab.switch.stop()


# ---- factory state ------------------------------------------------------------------------


def test_factory_config_is_eos_shaped_with_every_lane(tmp_path):
    config = running(new_state(tmp_path))
    lines = config.splitlines()
    assert lines[:3] == [
        "! Command: show running-config",
        "! device: lab-sw (DCS-7060CX2-32S, EOS-4.20.15M)",
        "!",
    ]
    assert lines[-1] == "end"
    assert "username admin privilege 1 role network-admin nopassword" in lines
    assert "spanning-tree mode mstp" in lines
    assert "aaa authorization exec default local" not in config
    interfaces = [line.split()[1] for line in lines if line.startswith("interface ")]
    assert interfaces[:5] == [
        "Ethernet1/1", "Ethernet1/2", "Ethernet1/3", "Ethernet1/4", "Ethernet2/1",
    ]  # fmt: skip
    assert len(interfaces) == 32 * 4 + 2 + 1  # 32 QSFP x 4 lanes, Ethernet33/34, Management1
    assert "Ethernet34" in interfaces and "Ethernet33/1" not in interfaces
    assert " no shutdown" not in config and "\n  interface" not in config


# ---- validation: the device's errors, nothing changed -----------------------------------

VALIDATION = [
    # (mode lines, refused line, the device's reply)
    ([], "ip route 0.0.0.0/33 10.0.0.1", "% Invalid input (at token 2: '0.0.0.0/33')"),
    ([], "ip route 10.0.0.0/8", "% Incomplete command"),
    ([], "ip route 10.0.0.0/8 10.0.0.300", "% Invalid input (at token 3: '10.0.0.300')"),
    ([], "vlan 4095", "% Invalid input (at token 1: '4095')"),
    ([], "vlan 0", "% Invalid input (at token 1: '0')"),
    ([], "vlan 10-4095", "% Invalid input (at token 1: '10-4095')"),
    ([], "vlan", "% Incomplete command"),
    ([], "hostname", "% Incomplete command"),
    ([], "interface", "% Incomplete command"),
    ([], "interface Ethernet35/1", "% Invalid input (at token 1: 'Ethernet35/1')"),
    ([], "interface Ethernet1", "% Invalid input (at token 1: 'Ethernet1')"),
    ([], "switchport access vlan 10", "% Invalid input (at token 0: 'switchport')"),
    ([], "spanning-tree mode fast", "% Invalid input (at token 2: 'fast')"),
    (["interface Ethernet1/1"], "switchport access vlan 4095",
     "% Invalid input (at token 3: '4095')"),
    (["interface Ethernet1/1"], "switchport access vlan", "% Incomplete command"),
    (["interface Ethernet1/1"], "mtu 99999", "% Invalid input (at token 1: '99999')"),
    (["interface Ethernet1/1"], "mtu 67", "% Invalid input (at token 1: '67')"),
    (["interface Ethernet1/1"], "mtu", "% Incomplete command"),
    (["interface Ethernet1/1"], "description", "% Incomplete command"),
    (["interface Ethernet1/2"], "speed 100g", "% Invalid input (at token 1: '100g')"),
    (["interface Ethernet1/2"], "speed forced 40gfull",
     "% Invalid input (at token 2: '40gfull')"),
    (["interface Ethernet33"], "speed forced 100gfull",
     "% Invalid input (at token 2: '100gfull')"),
    (["interface Ethernet1/1"], "speed 40gfull", "% Invalid input (at token 1: '40gfull')"),
    (["interface Ethernet1/1", "no switchport"], "ip address 10.1.1.1/32",
     "% Prefix length must be less than 32"),
    (["interface Ethernet1/1"], "channel-group 10 mode bogus",
     "% Invalid input (at token 3: 'bogus')"),
    (["interface Ethernet1/1", "channel-group 10 mode active", "interface Ethernet2/1"],
     "channel-group 10 mode on", "% Cannot change mode; remove all members and try again."),
]  # fmt: skip


@pytest.mark.parametrize(("mode", "line", "error"), VALIDATION, ids=[v[1] for v in VALIDATION])
def test_refused_commands_give_the_device_error_and_change_nothing(tmp_path, mode, line, error):
    state = new_state(tmp_path)
    session = eos.EOSSession(state)
    session.execute("configure")
    for command in mode:
        assert session.execute(command) == "", command
    before = running(state)
    assert session.execute(line) == error
    assert running(state) == before


def test_a_refused_command_inside_a_session_leaves_the_session_unchanged(tmp_path):
    session = eos.EOSSession(new_state(tmp_path))
    session.execute("configure session s1")
    session.execute("interface Ethernet1/1")
    session.execute("description uplink")
    assert session.execute("mtu 99999").startswith("% Invalid input")
    diff = session.execute("show session-config diffs")
    assert "+   description uplink" in diff and "mtu" not in diff


def test_mode_errors_exec_commands_refuse_config_lines(tmp_path):
    assert cli(new_state(tmp_path), "vlan 10") == ["% Invalid input (at token 0: 'vlan')"]


# ---- normalisation: shown as EOS shows it -------------------------------------------------


def test_config_is_shown_in_the_devices_form_not_as_typed(tmp_path):
    state = new_state(tmp_path)
    configure(
        state,
        "int et1/1",
        "switchport mode access",
        "switchport access vlan 1",
        "mtu 1500",
        "exit",
        "interface ethernet 2/1",
        "switchport mode trunk",
        "switchport trunk allowed vlan 10,11,12,20",
        "switchport trunk allowed vlan remove 11",
        "switchport trunk allowed vlan add 30",
        "exit",
        "vlan 20",
        "vlan 10,11",
        "vlan 12",
        "vlan 40",
        "name storage",
        "exit",
        "ip route 10.1.2.3/8 10.201.0.1",
        "enable secret s3cret",
    )
    config = running(state)
    assert "interface Ethernet1/1\n!" in config  # defaults are not printed
    assert (
        "interface Ethernet2/1\n   switchport trunk allowed vlan 10,12,20,30\n"
        "   switchport mode trunk\n!"
    ) in config
    assert "vlan 10-12,20\n!\nvlan 40\n   name storage\n!" in config
    assert "ip route 10.0.0.0/8 10.201.0.1" in config
    assert re.search(r"^enable secret sha512 \$6\$\S+$", config, re.M)
    assert "s3cret" not in config


def test_port_channel_members_and_saved_config(tmp_path):
    state = new_state(tmp_path)
    configure(
        state,
        "interface Ethernet31/1",
        "speed forced 100gfull",
        "channel-group 10 mode active",
        "interface Ethernet32/1",
        "channel-group 10 mode active",
    )
    config = running(state)
    assert config.index("interface Port-Channel10") < config.index("interface Ethernet1/1")
    assert "interface Ethernet31/1\n   speed forced 100gfull\n   channel-group 10 mode active" in (
        config
    )
    assert "Port-Channel10" not in cli(state, "show startup-config")[0]
    assert cli(state, "copy running-config startup-config") == ["Copy completed successfully."]
    assert cli(state, "show startup-config") == [config]


# ---- pipes --------------------------------------------------------------------------------


def test_section_include_begin_exclude(tmp_path):
    state = new_state(tmp_path)
    configure(
        state,
        "interface Ethernet1/1",
        "description lab-compute-1",
        "exit",
        "vlan 10",
        "name data",
        "exit",
        "ip route 0.0.0.0/0 10.201.0.1",
        "ip routing",
    )
    session = eos.EOSSession(state)
    interfaces = session.execute("show running-config | section ^interface")
    assert interfaces.startswith("interface Ethernet1/1\n   description lab-compute-1\n")
    assert "vlan" not in interfaces and "!" not in interfaces
    assert interfaces.count("interface ") == 32 * 4 + 3
    assert session.execute("show running-config | section ^vlan") == "vlan 10\n   name data"
    # the rest of the line is one regex, `|` included (arista.eos sends this form)
    assert session.execute("show running-config | include ^ip route|^ipv6 route") == (
        "ip route 0.0.0.0/0 10.201.0.1"
    )
    assert session.execute("show running-config | begin ^ip route").splitlines() == [
        "ip route 0.0.0.0/0 10.201.0.1", "!", "ip routing", "!", "end",
    ]  # fmt: skip
    assert "interface" not in session.execute("show running-config | exclude interface|   ")
    assert session.execute("show running-config | section description") == (
        "interface Ethernet1/1\n   description lab-compute-1"
    )


def test_bad_pipes_and_unconverted_json(tmp_path):
    session = eos.EOSSession(new_state(tmp_path))
    assert session.execute("show running-config | bogus") == (
        "% Invalid input (at token 3: 'bogus')"
    )
    assert session.execute("show running-config | include") == "% Incomplete command"
    assert session.execute("show running-config | json") == "% This is an unconverted command"
    assert session.execute("show bogus | json") == "% Invalid input (at token 1: 'bogus')"


# ---- JSON shapes --------------------------------------------------------------------------


def test_json_shapes_carry_the_keys_arista_eos_reads(tmp_path):
    state = new_state(tmp_path, cabled={1})
    configure(state, "interface Ethernet1/1", "description lab-compute-1", "mtu 9214")
    session = eos.EOSSession(state)
    version = json.loads(session.execute("show version | json"))
    assert version["modelName"] == "DCS-7060CX2-32S" and version["version"] == "4.20.15M"
    assert {"serialNumber", "memTotal", "memFree", "systemMacAddress"} <= set(version)
    assert json.loads(session.execute("show hostname | json")) == {
        "hostname": "lab-sw", "fqdn": "lab-sw",
    }  # fmt: skip
    interfaces = json.loads(session.execute("show interfaces | json"))["interfaces"]
    et1 = interfaces["Ethernet1/1"]
    assert et1["description"] == "lab-compute-1" and et1["mtu"] == 9214
    assert (et1["interfaceStatus"], et1["lineProtocolStatus"]) == ("connected", "up")
    assert et1["bandwidth"] == 100_000_000_000 and et1["forwardingModel"] == "bridged"
    assert re.fullmatch(r"([0-9a-f]{2}:){5}[0-9a-f]{2}", et1["physicalAddress"])
    assert interfaces["Ethernet2/1"]["interfaceStatus"] == "notconnect"
    lldp = json.loads(session.execute("show lldp neighbors | json"))
    assert lldp["lldpNeighbors"] == []
    status = json.loads(session.execute("show interfaces status | json"))["interfaceStatuses"]
    assert status["Ethernet1/1"]["linkStatus"] == "connected"
    assert status["Ethernet1/2"]["linkStatus"] == "inactive"
    assert status["Ethernet1/1"]["vlanInformation"]["vlanId"] == 1
    vlans = json.loads(session.execute("show vlan | json"))["vlans"]
    assert vlans["1"]["name"] == "default" and "Ethernet1/1" in vlans["1"]["interfaces"]


# ---- link state from the cabling ----------------------------------------------------------


def test_link_state_follows_the_cabling_and_shutdown(tmp_path):
    state = new_state(tmp_path, cabled={1, 21, 33})
    configure(state, "interface Ethernet21/1", "shutdown", "interface Ethernet2/1", "speed 25g")
    rows = {
        line.split()[0]: line.split()
        for line in cli(state, "show interfaces status")[0].splitlines()[1:]
    }
    assert rows["Et1/1"][1:3] == ["connected", "1"]
    assert rows["Et2/1"][1] == "notconnect"  # no cable
    assert rows["Et2/2"][1] == "notconnect"  # 4x25G: lanes 2-4 active, still no cable
    assert rows["Et1/2"][1] == "inactive"  # lane 2 of a 100G port
    assert rows["Et21/1"][1] == "disabled"
    assert rows["Et33"][1] == "connected"


# ---- privilege and enable -----------------------------------------------------------------


def test_factory_login_lands_unprivileged_and_enable_needs_no_password(tmp_path):
    session = eos.EOSSession(new_state(tmp_path))
    session.login("admin")
    assert session.prompt() == "lab-sw>"
    assert session.execute("show running-config") == "% Invalid input (privileged mode required)"
    assert session.execute("configure") == "% Invalid input (privileged mode required)"
    assert session.execute("copy running-config startup-config") == (
        "% Invalid input (privileged mode required)"
    )
    assert json.loads(session.execute("show version | json"))["modelName"] == "DCS-7060CX2-32S"
    assert session.execute("enable") == "" and session.prompt() == "lab-sw#"
    assert session.execute("show running-config").startswith("! Command: show running-config")
    session.execute("disable")
    assert session.prompt() == "lab-sw>"


def test_enable_secret_asks_for_the_password_without_echo(tmp_path):
    state = new_state(tmp_path)
    configure(state, "enable secret s3cret")
    session = eos.EOSSession(state)
    session.login("admin")
    session.execute("enable")
    assert session.prompt() == "Password: " and session.echo is False
    assert session.execute("wrong") == "% Access denied"
    assert session.prompt() == "lab-sw>" and session.echo is True
    session.execute("enable")
    assert session.execute("s3cret") == "" and session.prompt() == "lab-sw#"


def test_exec_authorization_lands_privileged_users_at_the_hash_prompt(tmp_path):
    state = new_state(tmp_path)
    configure(
        state,
        "aaa authorization exec default local",
        "username admin privilege 15 role network-admin secret pw",
        "username ops privilege 1 role network-operator secret pw2",
    )
    admin, ops = eos.EOSSession(state), eos.EOSSession(state)
    admin.login("admin")
    ops.login("ops")
    assert (admin.prompt(), ops.prompt()) == ("lab-sw#", "lab-sw>")
    config = running(state)
    assert "aaa authorization exec default local" in config
    admin = r"^username admin privilege 15 role network-admin secret sha512 \$6\$"
    assert re.search(admin, config, re.M)


def test_netmiko_users_land_at_gt_and_enable_with_a_secret(lab):
    with lab.connect() as conn:
        assert conn.find_prompt() == "lab-sw>"
        assert "privileged mode required" in conn.send_command("show running-config")
        conn.enable()  # no enable secret: straight to `#`
        assert conn.find_prompt() == "lab-sw#"
        conn.send_config_set(["enable secret s3cret"], error_pattern=ERRORS)
    with lab.connect(secret="s3cret") as conn:
        assert conn.find_prompt() == "lab-sw>"
        output = conn.enable()
        assert "s3cret" not in output  # the password is not echoed
        assert conn.find_prompt() == "lab-sw#"


def test_initial_config_is_applied_once_and_lands_admin_at_hash(tmp_path):
    day0 = (
        "username admin privilege 15 role network-admin secret pw\n"
        "aaa authorization exec default local\n"
    )
    lab = Lab(tmp_path, initial_config=day0)
    try:
        with lab.connect() as conn:
            assert conn.find_prompt() == "lab-sw#"
            conn.send_config_set(["no aaa authorization exec default local"], error_pattern=ERRORS)
            conn.save_config()
        with lab.connect("ops", "pw2") as conn:
            assert conn.find_prompt() == "lab-sw>"
    finally:
        lab.switch.stop()
    again = Lab(tmp_path, initial_config=day0)  # the state file exists: not re-applied
    try:
        with again.connect() as conn:
            assert conn.find_prompt() == "lab-sw>"
    finally:
        again.switch.stop()


def test_initial_config_the_switch_refuses_stops_the_start(tmp_path):
    secret = "username admin privilege 15 secret s3cr3t-day0\n"
    with pytest.raises(ValueError, match=r"day0\.cfg:2: the switch refused the line") as err:
        Lab(tmp_path, initial_config=secret + "vlan 4095\n")
    assert "s3cr3t" not in str(err.value)  # day-0 lines carry secrets; never echoed


# ---- configuration sessions ---------------------------------------------------------------


def test_sessions_outlive_the_connection_and_commit_from_another(lab):
    with lab.connect() as conn:
        conn.enable()
        conn.config_mode(config_command="configure session dlc1")
        conn.send_config_set(
            ["interface Ethernet1/1", "description from-first"],
            enter_config_mode=False,
            exit_config_mode=False,
            error_pattern=ERRORS,
        )
        assert conn.find_prompt() == "lab-sw(config-s-dlc1-if-Et1/1)#"
        conn.exit_config_mode()  # `end`: the session stays pending
    with lab.connect() as conn:
        conn.enable()
        sessions = conn.send_command("show configuration sessions")
        assert re.search(r"^\s+dlc1\s+pending\s+admin", sessions, re.M), sessions
        assert "from-first" not in conn.send_command("show running-config")
        conn.config_mode(config_command="configure session dlc1")
        diff = conn.send_command("show session-config diffs", expect_string=r"\)#")
        assert diff.startswith("--- system:/running-config\n+++ session:/dlc1-session-config")
        assert "+   description from-first" in diff
        conn.send_command("commit", expect_string=r"#")
        assert conn.find_prompt() == "lab-sw#"
        assert "   description from-first" in conn.send_command("show running-config")
        data = json.loads(conn.send_command("show configuration sessions | json"))
        assert data["sessions"]["dlc1"]["state"] == "completed"


def test_pending_session_limit_and_abort(tmp_path):
    state = new_state(tmp_path)
    for n in range(5):
        assert cli(state, f"configure session s{n}", "hostname x", "end") == ["", "", ""]
    before = running(state)
    session = eos.EOSSession(state)
    assert session.execute("configure session s5") == (
        "% Maximum number of pending sessions has been reached"
    )
    assert session.prompt() == "lab-sw#" and running(state) == before
    assert session.execute("configure session s0") == ""  # re-entering a pending one works
    assert session.execute("abort") == "" and session.prompt() == "lab-sw#"
    assert session.execute("configure session s5") == ""
    assert session.execute("end") == ""
    assert cli(state, "configure session s1 abort", "no configure session s2") == ["", ""]
    listed = cli(state, "show configuration sessions")[0]
    assert "s1 " not in listed and "s2 " not in listed and "s3 " in listed
    assert running(state) == before  # nothing was committed


def test_session_config_and_named_diffs(tmp_path):
    state = new_state(tmp_path)
    assert cli(state, "configure session a", "vlan 10", "end") == ["", "", ""]
    session = eos.EOSSession(state)
    assert "+vlan 10" in session.execute("show session-config named a diffs")
    assert "vlan 10" in session.execute("show session-config named a")
    assert session.execute("show session-config named nope").startswith("% Invalid input")
    assert "vlan 10" not in running(state)


# ---- the server's fault injection with an EOS switch --------------------------------------


def test_faults_reject_a_command_on_an_eos_switch(tmp_path):
    faults = tmp_path / "faults.json"
    faults.write_text(json.dumps({"reject_commands": ["^ip routing$"]}))
    switch = Switch("eos", str(tmp_path / "s.json"), {"admin": "pw"}, HOST_KEY, "lab-sw",
                    str(faults))  # fmt: skip
    port = switch.listen("127.0.0.1", 0)
    threading.Thread(target=switch.serve_forever, daemon=True).start()
    try:
        with ConnectHandler(device_type="arista_eos", host="127.0.0.1", port=port,
                            username="admin", password="pw", conn_timeout=10) as conn:  # fmt: skip
            conn.enable()
            with pytest.raises(ConfigInvalidException):
                conn.send_config_set(["ip routing"], error_pattern=ERRORS)
            conn.exit_config_mode()
            assert "no ip routing" in conn.send_command("show running-config")
    finally:
        switch.stop()


# ---- switch_config with users who land at `>` ---------------------------------------------


def _switch_config_module():
    """library/switch_config.py, importing its shared code as Ansible does."""
    import importlib.util

    import ansible.module_utils

    ansible.module_utils.__path__.append(str(ROOT / "module_utils"))
    spec = importlib.util.spec_from_file_location(
        "switch_config_module_eos", ROOT / "library" / "switch_config.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_switch_config(capsys, lab: Lab, **extra) -> dict:
    from ansible.module_utils.testing import patch_module_args

    args = {
        "platform": "arista_eos",
        "host": "127.0.0.1",
        "port": lab.port,
        "username": "admin",
        "password": "pw",
        "host_key_checking": False,
        "intended": "spanning-tree mode rstp\n!\n",
        "backup_dir": str(lab.tmp_path / "backups"),
        "backup_name": "lab-sw",
        "timeout": 10,
        **extra,
    }
    module = _switch_config_module()
    with patch_module_args(args), pytest.raises(SystemExit):
        module.main()
    return json.loads(capsys.readouterr().out)


def test_switch_config_enables_with_the_secret_for_a_gt_user(lab, capsys):
    with lab.connect() as conn:
        conn.enable()
        conn.send_config_set(["enable secret s3cret"], error_pattern=ERRORS)
    result = run_switch_config(capsys, lab, enable=True, enable_secret="s3cret")
    assert result["changed"] is True and result["saved"] is True, result
    assert "s3cret" not in json.dumps(result)
    assert "spanning-tree mode rstp" in eos_model.render(lab.switch.state.startup)


def test_switch_config_without_enable_fails_at_gt_and_changes_nothing(lab, capsys):
    before = eos_model.render(lab.switch.state.running)
    result = run_switch_config(capsys, lab)
    assert result["failed"] is True
    assert (
        "refused `show running-config`: % Invalid input (privileged mode required)"
        in (result["msg"])
    )
    assert "backup_path" not in result or result["backup_path"] is None
    assert eos_model.render(lab.switch.state.running) == before


def test_a_startup_config_saved_by_an_older_simulator_still_loads(tmp_path):
    """Lab state volumes outlive simulator upgrades: missing keys and lanes are filled."""
    old = eos.factory("lab-sw")
    old["interfaces"] = {"Ethernet1/1": {"description": "kept", "shutdown": False,
                                         "speed": None, "mtu": None,
                                         "channel_group": None, "access_vlan": None}}  # fmt: skip
    for key in ("usernames", "vlans", "aaa_authorization_exec", "enable_secret"):
        del old[key]
    (tmp_path / "state.json").write_text(json.dumps({"startup": old}))
    state = SwitchState(tmp_path / "state.json", eos.factory("lab-sw"))
    config = running(state)
    assert "interface Ethernet1/1\n   description kept\n!" in config
    assert "interface Ethernet32/4" in config and "username admin privilege 1" in config
