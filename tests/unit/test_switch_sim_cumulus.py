"""The Cumulus Linux model (lab/simulators/switch_sim/cumulus*.py): in-process, then over
SSH with netmiko's own `cumulus_linux` driver.

Facts from the Cumulus Linux user guides and seed 002 (Cumulus Linux 4.2.1 on
SN3700); the sources are named in the model's docstrings (cumulus.py) and comments.
"""

from __future__ import annotations

import io
import json
import re
import sys
import threading
from pathlib import Path

import pytest
from netmiko import ConnectHandler
from netmiko.exceptions import ConfigInvalidException

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "lab" / "simulators"))
from sim_lab import SimLab  # noqa: E402
from switch_sim import cumulus  # noqa: E402
from switch_sim.cumulus_ifupdown import INTERFACES, parse_interfaces  # noqa: E402
from switch_sim.cumulus_model import render_interfaces  # noqa: E402
from switch_sim.cumulus_nvue import FILES_WARNING  # noqa: E402
from switch_sim.server import Switch, load_host_key  # noqa: E402
from switch_sim.state import SessionEnd, SwitchState  # noqa: E402

ANSI = re.compile(r"\x1b\[\d+m")


def make_state(tmp_path: Path, monkeypatch, release: str = "4.2.1", cabled=()) -> SwitchState:
    monkeypatch.setenv("CUMULUS_SIM_RELEASE", release)
    state = SwitchState(tmp_path / "state.json", cumulus.factory("cumulus"))
    state.cabled_ports = frozenset(cabled)
    return state


def shell(state: SwitchState, user: str = "cumulus", password: str = "pw"):
    session = cumulus.CumulusSession(state)
    session.login(user, password)
    return session


def run(session, *lines: str) -> list[str]:
    return [session.execute(line) for line in lines]


@pytest.fixture
def nclu(tmp_path, monkeypatch):
    return shell(make_state(tmp_path, monkeypatch, cabled=(1, 3)))


@pytest.fixture
def nvue(tmp_path, monkeypatch):
    return shell(make_state(tmp_path, monkeypatch, release="5.10.0", cabled=(1,)))


# ---- release and shell ---------------------------------------------------------------------


def test_release_comes_from_the_environment_and_stays_with_the_state(tmp_path, monkeypatch):
    monkeypatch.delenv("CUMULUS_SIM_RELEASE", raising=False)
    assert cumulus.factory("sw")["release"] == "4.2.1"
    state = make_state(tmp_path, monkeypatch, release="5.10.0")
    state.save()
    monkeypatch.setenv("CUMULUS_SIM_RELEASE", "4.2.1")
    again = SwitchState(tmp_path / "state.json", cumulus.factory("cumulus"))
    assert again.running["release"] == "5.10.0"
    assert shell(again).execute("net show version") == "-bash: net: command not found"
    monkeypatch.setenv("CUMULUS_SIM_RELEASE", "3.7.12")
    with pytest.raises(ValueError, match=r"4\.x or 5\.x"):
        cumulus.factory("sw")


def test_login_lands_in_the_mgmt_vrf_and_sudo_asks_the_login_password(nclu):
    assert nclu.prompt() == "cumulus@cumulus:mgmt:~$ "
    assert nclu.execute("sudo -s") == ""
    assert nclu.prompt() == "[sudo] password for cumulus: " and nclu.echo is False
    assert nclu.execute("wrong") == "Sorry, try again."
    assert nclu.execute("pw") == ""
    assert nclu.echo is True and nclu.prompt().endswith(":mgmt:~# ")
    assert nclu.execute("whoami") == "root" and nclu.in_config
    assert nclu.execute("exit") == "" and nclu.prompt() == "cumulus@cumulus:mgmt:~$ "
    with pytest.raises(SessionEnd):
        nclu.execute("exit")


def test_three_wrong_sudo_passwords_leave_the_user_shell(nclu):
    run(nclu, "sudo -s", "a", "b")
    assert nclu.execute("c") == "Sorry, try again.\nsudo: 3 incorrect password attempts"
    assert nclu.prompt().endswith("$ ")


def test_shell_commands_clients_send(nclu):
    assert nclu.execute("uname -a").startswith("Linux cumulus 4.19.0-cl-1-amd64 #1 SMP Cumulus")
    assert nclu.execute("cat /etc/lsb-release") == (
        'DISTRIB_ID="Cumulus Linux"\nDISTRIB_RELEASE=4.2.1\n'
        'DISTRIB_DESCRIPTION="Cumulus Linux 4.2.1"'
    )
    assert nclu.execute("hostname") == "cumulus"
    assert nclu.execute("nv show interface") == "-bash: nv: command not found"
    assert nclu.execute("configure terminal") == "-bash: configure: command not found"
    assert nclu.execute("cat /etc/nothing") == "cat: /etc/nothing: No such file or directory"


# ---- NCLU --------------------------------------------------------------------------------


def test_nclu_stages_until_commit_and_commit_persists(nclu, tmp_path, monkeypatch):
    assert nclu.execute("net add interface swp1 mtu 9216") == ""
    assert "iface swp1" not in nclu.execute("cat /etc/network/interfaces")
    pending = ANSI.sub("", nclu.execute("net pending"))
    assert "--- /etc/network/interfaces" in pending
    assert "+++ /run/nclu/ifupdown2/interfaces.tmp" in pending
    assert "+auto swp1\n+iface swp1\n+    mtu 9216" in pending
    assert 'net add/del commands since the last "net commit"' in pending
    assert re.search(
        r"(?m)^cumulus +\d{4}-\d\d-\d\d [\d:.]+ +net add interface swp1 mtu 9216$", pending
    )
    assert "+auto swp1" in ANSI.sub("", nclu.execute("net commit"))
    assert nclu.execute("net pending") == ""
    assert "auto swp1\niface swp1\n    mtu 9216\n" in nclu.execute("cat /etc/network/interfaces")
    restarted = SwitchState(tmp_path / "state.json", cumulus.factory("cumulus"))
    assert restarted.running["interfaces"]["swp1"]["mtu"] == 9216


def test_nclu_abort_discards_what_was_staged(nclu):
    run(nclu, "net add interface swp2 alias storage", "net abort")
    assert nclu.execute("net pending") == ""
    assert nclu.execute("net show configuration commands") == ""


def test_nclu_ranges_name_each_port(nclu):
    run(nclu, "net add int swp7-9,12 mtu 9216", "net commit")
    text = nclu.execute("cat /etc/network/interfaces")
    assert [n for n in range(1, 33) if f"iface swp{n}\n" in text] == [7, 8, 9, 12]
    assert "net add interface swp7-9,12 mtu 9216" in nclu.execute("net show configuration commands")


@pytest.mark.parametrize(
    "line",
    [
        "net add interface swp1 mtu 9217",  # <552-9216> [4.2 NCLU guide]
        "net add interface swp1 mtu 551",
        "net add interface swp1 bridge access 4095",
        "net add interface swp1 link speed 400000",
        "net add interface swp1 link fec fast",
        "net add vlan 0",
        "net add interface swp1 breakout 3x",
        "net add frobnicate",
    ],
)
def test_nclu_values_outside_the_grammar_are_command_not_found(nclu, line):
    output = nclu.execute(line)
    assert output.startswith("ERROR: Command not found")
    assert nclu.execute("net pending") == ""


def test_nclu_suggestions_list_the_matching_syntax(nclu):
    output = nclu.execute("net add int swp1 mtu 9300")
    assert output == (
        "ERROR: Command not found\n\nDid you mean one of the following?\n\n"
        "    net add interface <interface> mtu <552-9216>"
    )


@pytest.mark.parametrize(
    ("line", "error"),
    [
        (
            "net add interface swp99 mtu 9000",
            "ERROR: swp99 is not a physical interface on this switch.",
        ),
        (
            "net add interface swp5s0 mtu 9000",
            "ERROR: swp5s0 is not a physical interface on this switch.",
        ),
        (
            "net add bond bond0 bond slaves swp40",
            "ERROR: swp40 is not a physical interface on this switch.",
        ),
        (
            "net add bond bond0 bond slaves vlan10",
            "ERROR: vlan10 is not a physical interface on this switch.",
        ),
    ],
)
def test_nclu_refuses_interfaces_the_switch_does_not_have(nclu, line, error):
    assert nclu.execute(line) == error
    assert nclu.execute("net pending") == ""


def test_nclu_breakout_makes_sub_ports_with_their_own_speeds(nclu):
    assert nclu.execute("net add interface swp3 breakout 4x25G") == ""
    assert nclu.execute("net add interface swp3s0 link speed 50000").startswith(
        "ERROR: speed 50000"
    )
    run(nclu, "net add interface swp3s0-3 link speed 25000", "net commit")
    assert "\n3=4x25G\n" in nclu.execute("cat /etc/cumulus/ports.conf")
    assert "\n1=200G\n" in nclu.execute("cat /etc/cumulus/ports.conf")
    rows = {
        line.split()[1]: line.split()
        for line in nclu.execute("net show interface all").splitlines()[2:]
    }
    assert "swp3" not in rows and rows["swp3s0"][:3] == ["UP", "swp3s0", "25G"]
    assert rows["swp3s3"][:3] == ["UP", "swp3s3", "25G"]  # the cabling names front-panel ports
    assert nclu.execute("net add interface swp3 mtu 9000").startswith("ERROR: swp3 is not")
    run(nclu, "net add interface swp2 breakout disabled", "net commit")
    assert "\n2=disabled\n" in nclu.execute("cat /etc/cumulus/ports.conf")


def test_nclu_speeds_follow_the_port(nclu):
    assert nclu.execute("net add interface swp1 link speed 200000") == ""
    run(nclu, "net add interface swp4 breakout 2x")
    assert nclu.execute("net add interface swp4s1 link speed 200000").startswith("ERROR: speed")
    assert nclu.execute("net add interface swp4s1 link speed 100000") == ""


def test_nclu_bridge_bond_and_svi_render_as_ifupdown2(nclu):
    run(
        nclu,
        "net add bond bond0 bond slaves swp5-6",
        "net add bond bond0 bond mode balance-xor",
        "net add bridge bridge ports swp1,bond0",
        "net add bridge bridge vids 100,200",
        "net add bridge bridge pvid 1",
        "net add vlan 100 ip address 10.10.0.1/24",
        "net add interface swp2 bridge access 100",
        "net add interface swp1 alias DGX A100 storage",
        "net commit",
    )
    text = nclu.execute("cat /etc/network/interfaces")
    assert "auto bond0\niface bond0\n    bond-slaves swp5 swp6\n    bond-mode balance-xor\n" in text
    assert (
        "auto bridge\niface bridge\n    bridge-ports bond0 swp1 swp2\n    bridge-pvid 1\n"
        "    bridge-vids 100 200\n    bridge-vlan-aware yes\n"
    ) in text
    assert "auto vlan100\niface vlan100\n    address 10.10.0.1/24\n    vlan-id 100\n" in text
    assert "iface swp2\n    bridge-access 100\n" in text
    assert "iface swp1\n    alias DGX A100 storage\n" in text
    commands = nclu.execute("net show configuration commands").splitlines()
    assert "net add bond bond0 bond slaves swp5-6" in commands
    assert "net add bridge bridge ports bond0,swp1-2" in commands
    assert "net add vlan 100 ip address 10.10.0.1/24" in commands
    rows = {
        line.split()[1]: line for line in nclu.execute("net show interface all").splitlines()[2:]
    }
    assert "BondMember" in rows["swp5"] and "Master: bond0(DN)" in rows["swp5"]
    assert re.match(r"UP +swp1 +200G +9216 +Trunk/L2", rows["swp1"])
    assert rows["swp9"].split()[:5] == ["ADMDN", "swp9", "N/A", "9238", "NotConfigured"]


def test_nclu_show_interface_json_and_single(nclu):
    run(nclu, "net add interface swp1 mtu 9000", "net commit")
    run(nclu, "net add interface swp2 bridge access 30", "net add vlan 30 ip address 10.3.0.1/24")
    nclu.execute("net commit")
    data = json.loads(nclu.execute("net show interface all json"))
    assert data["swp1"]["linkstate"] == "UP" and data["swp1"]["iface_obj"]["mtu"] == 9000
    assert data["swp2"]["linkstate"] == "DN" and data["swp2"]["iface_obj"]["vlan"] == [{"vlan": 30}]
    assert data["vlan30"]["iface_obj"]["ip_address"]["allentries"] == ["10.3.0.1/24"]
    assert data["eth0"]["mode"] == "Mgmt" and data["swp9"]["speed"] == "N/A"
    system = nclu.execute("net show system").splitlines()
    assert system[2] == "Build: Cumulus Linux 4.2.1" and system[3].startswith("Uptime: ")
    single = nclu.execute("net show interface swp9").splitlines()
    assert single[2].split()[:2] == ["ADMDN", "swp9"]
    single = nclu.execute("net show interface swp1").splitlines()
    assert single[0].split() == ["Name", "MAC", "Speed", "MTU", "Mode"]
    assert single[2].split()[:2] == ["UP", "swp1"] and single[2].split()[3:5] == ["200G", "9000"]


def test_nclu_user_without_edit_rights_is_refused(tmp_path, monkeypatch):
    state = make_state(tmp_path, monkeypatch)
    operator = shell(state, "operator", "pw")
    refusal = "ERROR: User operator does not have permission to make networking changes."
    assert operator.execute("net add interface swp1 mtu 9000") == refusal
    assert operator.execute("net commit") == refusal
    run(operator, "sudo net add interface swp1 mtu 9000", "pw")  # sudo: as root
    assert "mtu 9000" in ANSI.sub("", operator.execute("net pending"))
    assert operator.execute("adduser operator netedit").startswith("adduser: Only root")
    assert operator.execute("sudo adduser operator netedit").endswith("Done.")
    assert "+    mtu 9000" in ANSI.sub("", operator.execute("net commit"))
    restarted = SwitchState(tmp_path / "state.json", cumulus.factory("cumulus"))
    assert restarted.running["netedit"] == ["operator"]


def test_refused_lines_do_not_count_for_the_dropped_session_fault(nclu):
    assert nclu.counts_as_config("net add interface swp1 mtu 9000", "")
    assert not nclu.counts_as_config("net add interface swp1 mtu 9900", "ERROR: Command not found")
    assert not nclu.counts_as_config("net pending", "")
    assert nclu.REJECTED == "ERROR: Command not found"


# ---- NVUE --------------------------------------------------------------------------------


def test_nvue_set_goes_to_a_pending_revision_that_apply_makes_running(nvue):
    assert nvue.execute("net show interface") == "-bash: net: command not found"
    run(nvue, "nv set interface swp1-2 link mtu 9216", "nv set system hostname leaf01")
    assert nvue.state.running["interfaces"] == {}
    diff = nvue.execute("nv config diff")
    assert diff.startswith("- set:\n    interface:\n") and "          mtu: 9216" in diff
    assert nvue.execute("nv config diff -o commands").splitlines() == [
        "nv set interface swp1-2 link mtu 9216",
        "nv set interface swp1-2 type swp",
        "nv set system hostname leaf01",
    ]
    assert nvue.execute("nv config apply -y") == "applied [rev_id: 1]"
    assert nvue.prompt() == "cumulus@leaf01:mgmt:~$ "
    assert nvue.execute("nv config diff") == ""
    assert "nv set interface swp1-2 link mtu 9216" in nvue.execute("nv config show -o commands")
    assert "auto swp2\niface swp2\n    mtu 9216" in nvue.execute("cat /etc/network/interfaces")
    run(nvue, "nv unset interface swp2 link mtu")
    assert nvue.execute("nv config diff -o commands") == "nv unset interface swp2 link mtu"


@pytest.mark.parametrize(
    "line",
    [
        "nv set interface swp1 link mtu 9300",
        "nv set interface swp1 link mtu 500",
        "nv set interface swp1 link speed 300G",
        "nv set interface swp1 link state sideways",
        "nv set interface swp1 bridge domain br_default access 4095",
        "nv set bridge domain br_default vlan 5000",
        "nv set interface bond1 bond mode fast",
    ],
)
def test_nvue_refuses_out_of_range_values_at_once(nvue, line):
    assert nvue.execute(line).startswith("Error: Invalid parameter")
    assert nvue.execute("nv config diff") == ""


def test_nvue_invalid_revision_is_not_applied(nvue):
    run(
        nvue,
        "nv set interface swp1 link mtu 9000",
        "nv set interface swp99 link mtu 9000",
        "nv set interface swp5s0 link mtu 9000",
    )
    assert nvue.execute("nv config apply -y") == (
        "Invalid config [rev_id: 1]\n"
        "  Config invalid at interface.swp5s0: swp5s0 is not a physical interface on this switch\n"
        "  Config invalid at interface.swp99: swp99 is not a physical interface on this switch"
    )
    assert nvue.state.running["interfaces"] == {}
    run(nvue, "nv unset interface swp99", "nv unset interface swp5s0")
    assert nvue.execute("nv config apply -y") == "applied [rev_id: 1]"


def test_nvue_breakout_asks_before_reloading_switchd(nvue):
    run(nvue, "nv set interface swp2 link breakout 4x", "nv set interface swp2s0-3 link speed 25G")
    assert nvue.execute("nv config apply") == "switchd need to reload on this config change"
    assert nvue.prompt() == "Are you sure? [y/N] "
    assert nvue.execute("n").startswith("Declined")
    assert nvue.state.running["breakouts"] == {}
    run(nvue, "nv config apply", "y")
    # 5.4+ form [5.10 port attributes]
    assert "\n2=4x\n" in nvue.execute("cat /etc/cumulus/ports.conf")
    assert "\n1=1x\n" in nvue.execute("cat /etc/cumulus/ports.conf")
    run(nvue, "nv set interface swp2s0 link speed 100G")
    assert "speed 100000 is not supported on swp2s0" in nvue.execute("nv config apply -y")


def test_nvue_bridge_and_bond_in_the_tree(nvue):
    run(
        nvue,
        "nv set interface bond1 bond member swp3-4",
        "nv set interface bond1 bond mode static",
        "nv set interface bond1,swp1 bridge domain br_default",
        "nv set interface swp1 bridge domain br_default access 10",
        "nv set bridge domain br_default vlan 10,20",
        "nv set bridge domain br_default untagged 1",
        "nv set interface vlan10 ip address 10.1.10.2/24",
        "nv config apply -y",
    )
    commands = nvue.execute("nv config show -o commands").splitlines()
    assert "nv set interface bond1 bond member swp3" in commands
    assert "nv set interface bond1 bond mode static" in commands
    assert "nv set interface swp1 bridge domain br_default access 10" in commands
    assert "nv set interface vlan10 ip address 10.1.10.2/24" in commands
    text = nvue.execute("cat /etc/network/interfaces")
    assert "    bond-slaves swp3 swp4\n    bond-mode balance-xor\n" in text
    assert "    bridge-ports bond1 swp1\n" in text


def test_nvue_show_interface_views(nvue):
    run(
        nvue,
        "nv set interface swp1 link mtu 9000",
        "nv config apply -y",
        "nv set interface swp1 link mtu 1500",
    )
    data = json.loads(nvue.execute("nv show interface -o json"))
    assert data["swp1"]["link"]["oper-status"] == "up" and data["swp1"]["link"]["mtu"] == 9000
    assert data["swp2"]["link"]["admin-status"] == "down"
    link = nvue.execute("nv show interface swp1 link").splitlines()
    assert link[0].split() == ["operational", "applied", "pending"]
    assert link[5].split() == ["mtu", "9000", "9000", "1500"]
    assert "Cumulus Linux 5.10.0" in nvue.execute("nv show system")


# ---- over SSH with netmiko's cumulus_linux driver ------------------------------------------


@pytest.fixture
def lab(tmp_path, monkeypatch):
    monkeypatch.setenv("CUMULUS_SIM_RELEASE", "4.2.1")
    switch = SimLab(
        tmp_path, "cumulus", "cumulus", "CumulusLinux!", "cumulus", secret="CumulusLinux!"
    )
    yield switch
    switch.switch.stop()


def test_netmiko_nclu_config_set_commit_and_restart(lab):
    with lab.connect() as conn:
        assert conn.find_prompt() == "cumulus@cumulus:mgmt:~$"
        assert "Linux cumulus" in conn.send_command("uname -a")
        conn.send_config_set(
            ["net add interface swp1-2 mtu 9216", "net add interface swp1 link speed 100000"],
            error_pattern="ERROR",
        )
        assert conn.find_prompt().endswith("$")  # back out of the root shell
        committed = conn.save_config(cmd="net commit")
        assert "+    link-speed 100000" in committed  # netmiko strips the colour codes
        conn.send_config_set(["net add interface swp3 mtu 9000"], error_pattern="ERROR")
    lab.restart()
    with lab.connect() as conn:
        commands = conn.send_command("net show configuration commands")
        pending = conn.send_command("net pending")
    assert "net add interface swp1-2 mtu 9216" in commands
    assert "swp3" not in commands and pending == ""


def test_netmiko_detects_a_refused_line(lab):
    with lab.connect() as conn, pytest.raises(ConfigInvalidException, match="ERROR"):
        conn.send_config_set(["net add interface swp1 mtu 9300"], error_pattern="ERROR")


def test_netmiko_nvue_apply_and_save(lab, monkeypatch):
    lab.switch.stop()
    monkeypatch.setenv("CUMULUS_SIM_RELEASE", "5.4.0")  # before auto-save (5.9) [NVUE reference]
    (lab.tmp_path / "state.json").unlink(missing_ok=True)
    lab.start()
    with lab.connect() as conn:
        conn.send_config_set(["nv set interface swp1 link mtu 9216"], error_pattern="Error")
        assert conn.save_config(cmd="nv config apply -y").splitlines()[-2] == "applied [rev_id: 1]"
    lab.restart()
    with lab.connect() as conn:  # applied, never saved: gone on 5.4
        assert "swp1" not in conn.send_command("nv config show -o commands")
        conn.send_config_set(["nv set interface swp1 link mtu 9216"], error_pattern="Error")
        conn.send_command("nv config apply -y")
        assert conn.send_command("nv config save") == "saved [rev_id: applied]"
        conn.send_config_set(["nv set interface swp2 link mtu 9000"], error_pattern="Error")
    lab.restart()
    interfaces = lab.switch.state.running["interfaces"]
    assert interfaces["swp1"]["mtu"] == 9216 and "swp2" not in interfaces


def test_netmiko_session_dropped_after_n_config_lines(lab):
    lab.faults.write_text(json.dumps({"drop_after_config_commands": 2}))
    conn = lab.connect(read_timeout=1)  # the dropped channel answers nothing more
    with pytest.raises(Exception):  # noqa: B017 - netmiko raises a read error or a timeout
        conn.send_config_set([f"net add interface swp{n} mtu 9000" for n in (5, 6, 7)])
    lab.faults.write_text(json.dumps({"reject_commands": ["swp9"]}))
    with lab.connect() as again:
        pending = again.send_command("net pending")
        rejected = again.send_command("net add interface swp9 mtu 9000")
    assert "net add interface swp5 mtu 9000" in pending
    assert "net add interface swp6 mtu 9000" in pending and "swp7" not in pending
    assert rejected == "ERROR: Command not found"


def test_nvue_apply_persists_by_itself_from_5_9(tmp_path, monkeypatch):
    state = make_state(tmp_path, monkeypatch, release="5.10.0")
    session = shell(state)
    run(session, "nv set interface swp1 link mtu 9000", "nv config apply -y")
    restarted = SwitchState(tmp_path / "state.json", cumulus.factory("cumulus"))
    assert restarted.running["interfaces"]["swp1"]["mtu"] == 9000


def test_bond_speed_adds_up_its_up_members(tmp_path, monkeypatch):
    session = shell(make_state(tmp_path, monkeypatch, release="5.10.0", cabled=(1, 2, 3)))
    run(
        session,
        "nv set interface bond1 bond member swp1-3",
        "nv set interface swp3 link state down",
        "nv set interface swp2 link speed 100G",
        "nv config apply -y",
    )
    data = json.loads(session.execute("nv show interface -o json"))
    assert data["bond1"]["link"]["speed"] == "300G"  # 200G + 100G; swp3 is down
    assert "iface swp3\n    link-down yes\n" in session.execute("cat /etc/network/interfaces")
    assert data["swp3"]["link"]["admin-status"] == "down"
    assert data["eth0"]["link"]["oper-status"] == "up"


def test_first_boot_lines_give_a_lab_account_nclu_rights(tmp_path, monkeypatch):
    """`--initial-config` lines run at the root console: the lab's account joins netedit
    and netmiko's save_config(cmd="net commit") works for it without sudo."""
    monkeypatch.setenv("CUMULUS_SIM_RELEASE", "4.2.1")
    day0 = tmp_path / "day0.txt"
    day0.write_text("adduser admin netedit\nnet add hostname cumulus-sw1\nnet commit\n")
    switch = Switch(
        "cumulus", str(tmp_path / "state.json"), {"admin": "pw"},
        load_host_key(str(tmp_path / "host_key")), "cumulus", None, None, str(day0),
    )  # fmt: skip
    port = switch.listen("127.0.0.1", 0)
    threading.Thread(target=switch.serve_forever, daemon=True).start()
    try:
        with ConnectHandler(
            device_type="cumulus_linux", host="127.0.0.1", port=port, username="admin",
            password="pw", secret="pw", conn_timeout=10, read_timeout_override=10,
        ) as conn:  # fmt: skip
            assert conn.find_prompt() == "admin@cumulus-sw1:mgmt:~$"
            conn.send_config_set(["net add interface swp4 mtu 9216"], error_pattern="ERROR")
            committed = conn.save_config(cmd="net commit")
    finally:
        switch.stop()
    assert "+    mtu 9216" in committed and "permission" not in committed


def test_a_refused_first_boot_line_stops_the_switch_from_starting(tmp_path, monkeypatch):
    """A day-0 line the switch refuses fails the start, naming the line, not its text
    (day-0 lines carry secrets); nothing is saved."""
    monkeypatch.setenv("CUMULUS_SIM_RELEASE", "4.2.1")
    day0 = tmp_path / "day0.txt"
    day0.write_text("# accounts\nadduser admin netedit\nnet add interface swp99 mtu 9216\n")
    with pytest.raises(ValueError, match=r"day0.txt:3: the switch refused the line"):
        Switch(
            "cumulus", str(tmp_path / "state.json"), {"admin": "pw"},
            load_host_key(str(tmp_path / "host_key")), "cumulus", None, None, str(day0),
        )  # fmt: skip
    saved = tmp_path / "state.json"
    assert not saved.exists() or "swp99" not in saved.read_text()


def test_sudo_runs_one_command_as_root_and_caches_the_password(nclu):
    assert run(nclu, "sudo whoami", "pw") == ["", "root"]
    assert nclu.prompt() == "cumulus@cumulus:mgmt:~$ "
    assert nclu.execute("sudo whoami") == "root"  # no second password prompt
    assert nclu.execute("sudo exit") == "sudo: exit: command not found"
    assert nclu.execute("sudo frob") == "sudo: frob: command not found"
    assert nclu.prompt() == "cumulus@cumulus:mgmt:~$ "


def test_refused_tells_errors_of_every_layer(nclu):
    assert nclu.refused(nclu.execute("configure terminal"))
    assert nclu.refused(nclu.execute("net add interface swp1 mtu 1"))
    assert nclu.refused(nclu.execute("net add interface swp77 mtu 9000"))
    assert not nclu.refused(nclu.execute("net add interface swp1 mtu 9000"))


# ---- /etc/network/interfaces as a file: tee, ifreload, and the tools writing it again -------

RELEASES = ["4.2.1", "5.10.0"]
# the same configuration in each release's tool: bond, bridge, SVI, a split port, link settings
CONFIGURED = {
    "4.2.1": [
        "net add bond bond0 bond slaves swp5-6",
        "net add bond bond0 bond mode balance-xor",
        "net add bridge bridge ports swp1,bond0",
        "net add bridge bridge vids 100,200",
        "net add bridge bridge pvid 1",
        "net add vlan 100 ip address 10.10.0.1/24",
        "net add interface swp2 bridge access 100",
        "net add interface swp8 bridge trunk vlans 100-102",
        "net add interface swp1 alias DGX A100 storage",
        "net add interface swp3 breakout 4x25G",
        "net add interface swp3s1 link speed 25000",
        "net add interface swp7 link down",
        "net add interface swp7 link fec rs",
        "net add interface swp7 link autoneg off",
        "net add interface swp8 mtu 9000",
        "net commit",
    ],
    "5.10.0": [
        "nv set interface bond1 bond member swp3-4",
        "nv set interface bond1 bond mode static",
        "nv set interface bond1,swp1 bridge domain br_default",
        "nv set interface swp1 bridge domain br_default access 10",
        "nv set interface swp8 bridge domain br_default vlan 10-12",
        "nv set bridge domain br_default vlan 10,20",
        "nv set bridge domain br_default untagged 1",
        "nv set interface vlan10 ip address 10.1.10.2/24",
        "nv set interface swp1 description 'DGX A100 storage'",
        "nv set interface swp2 link breakout 4x",
        "nv set interface swp2s1 link speed 25G",
        "nv set interface swp6 link fec auto",
        "nv set interface swp7 link state down",
        "nv set interface swp8 link mtu 9000",
        "nv config apply -y",
    ],
}
# a stanza an admin adds by hand, with a comment no tool writes
BY_HAND = "# added by hand\nauto swp9\niface swp9\n    mtu 9000\n    alias by hand\n"


def write(session, text: str, password: str = "pw") -> str:
    """`sudo -S tee /etc/network/interfaces` as an exec request runs it: the password on the
    first input line, then the file."""
    data = io.BytesIO(f"{password}\n{text}".encode())
    return session.execute_input(f"sudo -S tee {INTERFACES}", data)


def configured(tmp_path, monkeypatch, release: str, cabled=()):
    session = shell(make_state(tmp_path, monkeypatch, release=release, cabled=cabled))
    outputs = run(session, *CONFIGURED[release])
    assert not any(session.refused(o) for o in outputs), outputs
    return session


@pytest.mark.parametrize("release", RELEASES)
def test_render_then_parse_is_the_identity(tmp_path, monkeypatch, release):
    factory = make_state(tmp_path / "factory", monkeypatch, release=release).running
    assert parse_interfaces(render_interfaces(factory), factory) == factory
    config = configured(tmp_path, monkeypatch, release).state.running
    assert config["interfaces"] and config["vlans"] and config["breakouts"]
    assert parse_interfaces(render_interfaces(config), config) == config


@pytest.mark.parametrize("release", RELEASES)
def test_a_written_file_is_a_local_edit_until_ifreload_applies_it(tmp_path, monkeypatch, release):
    session = configured(tmp_path, monkeypatch, release)
    state = session.state
    before = json.dumps(state.running, sort_keys=True)
    text = render_interfaces(state.running) + BY_HAND
    assert write(session, text) == text  # tee copies its input to its output
    assert session.execute(f"cat {INTERFACES}") == text
    assert json.dumps(state.running, sort_keys=True) == before
    assert session.execute("sudo ifreload -s -a") == ""  # the check changes nothing
    assert json.dumps(state.running, sort_keys=True) == before
    assert session.execute("sudo ifreload -a") == ""
    assert state.running["interfaces"]["swp9"]["mtu"] == 9000
    assert state.running["interfaces"]["swp9"]["alias"] == "by hand"
    assert session.execute(f"cat {INTERFACES}") == text  # the file as written
    restarted = SwitchState(tmp_path / "state.json", cumulus.factory("cumulus"))
    assert restarted.running["interfaces"]["swp9"]["mtu"] == 9000  # on disk: startup
    assert shell(restarted).execute(f"cat {INTERFACES}") == text


def test_nclu_sees_an_applied_edit_and_commit_writes_the_file_again(tmp_path, monkeypatch):
    session = configured(tmp_path, monkeypatch, "4.2.1", cabled=(9,))
    write(session, render_interfaces(session.state.running) + BY_HAND)
    session.execute("sudo ifreload -a")
    assert (
        "net add interface swp9 alias by hand"
        in session.execute("net show configuration commands").splitlines()
    )
    assert json.loads(session.execute("net show interface swp9 json"))["iface_obj"]["mtu"] == 9000
    run(session, "net add interface swp9 mtu 1500", "net commit")  # NCLU edits what it read
    text = session.execute(f"cat {INTERFACES}")
    assert text == render_interfaces(session.state.running)
    assert "# added by hand" not in text and "iface swp9\n    alias by hand\n    mtu 1500" in text
    write(session, "# never applied\n")  # an edit never applied: the next commit replaces it
    run(session, "net add interface swp10 mtu 9000", "net commit")
    assert session.execute(f"cat {INTERFACES}") == render_interfaces(session.state.running)


def test_nv_apply_asks_before_overwriting_a_local_edit(tmp_path, monkeypatch):
    session = configured(tmp_path, monkeypatch, "5.10.0", cabled=(9,))
    write(session, render_interfaces(session.state.running) + BY_HAND)
    session.execute("sudo ifreload -a")
    shown = json.loads(session.execute("nv show interface -o json"))["swp9"]
    assert shown["link"]["mtu"] == 9000 and shown["description"] == "by hand"
    commands = session.execute("nv config show -o commands").splitlines()
    assert "nv set interface swp9 description 'by hand'" in commands
    session.execute("nv set interface swp10 link mtu 9000")
    assert session.execute("nv config apply") == FILES_WARNING
    assert session.prompt() == "Are you sure? [y/N] "
    assert session.execute("n") == "Declined apply after warnings"
    assert "# added by hand" in session.execute(f"cat {INTERFACES}")
    assert session.execute("nv config apply --assume-no").startswith(FILES_WARNING)
    assert session.execute("nv config apply -y") == "applied [rev_id: 2]"
    text = session.execute(f"cat {INTERFACES}")
    assert text == render_interfaces(session.state.running) and "# added by hand" not in text
    assert "iface swp9\n    alias by hand\n    mtu 9000" in text  # NVUE's revision had it
    session.execute("nv set interface swp11 link mtu 9000")
    assert session.execute("nv config apply") == "applied [rev_id: 3]"  # nothing to warn of


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (
            "auto swp1\niface swp1\n    bridge-stp on\n",
            f"error: {INTERFACES}: line3: iface swp1: unsupported keyword (bridge-stp)",
        ),
        (
            "auto br0\niface br0\n    bridge-ports swp1\n",
            f"error: {INTERFACES}: line2: iface br0: this interface is not modelled by this"
            " simulator",
        ),
        (
            "auto swp1\niface swp1\n    mtu 9300\n",
            'warning: swp1: mtu: value of out range "9300": valid attribute range: 552-9216',
        ),
        (
            "auto swp1\niface swp1\n    link-autoneg maybe\n",
            'warning: swp1: link-autoneg: invalid value "maybe": valid attribute values:'
            " ['on', 'off', 'yes', 'no']",
        ),
        ("mtu 9000\n", f"error: {INTERFACES}: line1: error processing line 'mtu 9000'"),
        ("auto swp99\niface swp99\n", "error: swp99 is not a physical interface on this switch"),
        (
            "auto swp1\niface swp1 inet dhcp\n",
            f"error: {INTERFACES}: line2: iface swp1: address method 'dhcp' is not modelled by"
            " this simulator",
        ),
        (
            "auto lo\niface lo inet loopback\n    address 10.1.1.1/32\n",
            f"error: {INTERFACES}: line2: iface lo: a change to this stanza is not modelled by"
            " this simulator",
        ),
    ],
)
@pytest.mark.parametrize("release", RELEASES)
def test_a_file_the_model_cannot_hold_changes_nothing(tmp_path, monkeypatch, release, text, error):
    session = configured(tmp_path, monkeypatch, release)
    state = session.state
    running, startup = (json.dumps(c, sort_keys=True) for c in (state.running, state.startup))
    write(session, text)
    for line in ("sudo ifreload -s -a", "sudo ifreload -a"):
        output = session.execute(line)
        assert output == error and session.exec_status(line, output) == 1
    assert json.dumps(state.running, sort_keys=True) == running
    assert json.dumps(state.startup, sort_keys=True) == startup
    assert session.execute(f"cat {INTERFACES}") == text


@pytest.mark.parametrize("release", RELEASES)
def test_the_file_and_ifreload_are_roots(tmp_path, monkeypatch, release):
    session = shell(make_state(tmp_path, monkeypatch, release=release))
    rendered = session.execute(f"cat {INTERFACES}")
    line = f"tee {INTERFACES}"
    output = session.execute_input(line, io.BytesIO(BY_HAND.encode()))
    assert output == f"tee: {INTERFACES}: Permission denied"
    assert session.exec_status(line, output) == 1
    output = session.execute("ifreload -a")
    assert output == "must be root to run this command"  # [ifupdown2 __main__.py]
    assert session.exec_status("ifreload -a", output) == 1
    assert session.execute(f"cat {INTERFACES}") == rendered
    assert write(session, BY_HAND, password="wrong").startswith("Sorry, try again.")
    output = session.execute("sudo ifreload")  # sudo cached nothing: asks
    assert output == "" and session.prompt() == "[sudo] password for cumulus: "
    assert session.execute("pw").endswith("ifreload: error: one of the arguments -a/--all"
                                          " -c/--currently-up --allow is required")  # fmt: skip


def test_exec_writes_the_file_with_sudo_tee_and_ifreload_applies_it(lab):
    """`ssh cumulus@sw "sudo -S tee /etc/network/interfaces" < file` then `sudo -S ifreload
    -a`, through paramiko's client; the file and the applied configuration survive a
    restart."""
    password = f"{lab.password}\n".encode()
    refused = (1, "", f"tee: {INTERFACES}: Permission denied\n")
    assert lab.exec(f"tee {INTERFACES}", BY_HAND.encode()) == refused
    status, _out, err = lab.exec(f"sudo tee {INTERFACES}", BY_HAND.encode())
    assert status == 1 and err.startswith("sudo: a terminal is required")
    assert lab.exec(f"sudo -S tee {INTERFACES}", b"wrong\n")[0] == 1
    assert "swp9" not in lab.exec(f"cat {INTERFACES}")[1]
    assert lab.exec(f"sudo -S tee {INTERFACES}", password + BY_HAND.encode()) == (0, BY_HAND, "")
    assert lab.exec(f"cat {INTERFACES}") == (0, BY_HAND, "")
    assert "swp9" not in lab.exec("net show configuration commands")[1]
    assert lab.exec("ifreload -a") == (1, "", "must be root to run this command\n")
    assert lab.exec("sudo -S ifreload -s -a", password) == (0, "", "")
    assert lab.exec("sudo -S ifreload -a", password) == (0, "", "")
    assert "net add interface swp9 mtu 9000" in lab.exec("net show configuration commands")[1]
    lab.restart()
    assert lab.exec(f"cat {INTERFACES}") == (0, BY_HAND, "")
    assert "net add interface swp9 mtu 9000" in lab.exec("net show configuration commands")[1]
