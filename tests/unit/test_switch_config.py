"""The switch_config module and its hier_config drivers, against a scripted switch session."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "module_utils"))
import ansible.module_utils  # noqa: E402
import switch_config as remediation_lib  # noqa: E402
from ansible.module_utils.testing import patch_module_args  # noqa: E402

# The module imports its shared code as ansible.module_utils.switch_config.
ansible.module_utils.__path__.append(str(ROOT / "module_utils"))
_SPEC = importlib.util.spec_from_file_location(
    "switch_config_module", ROOT / "library" / "switch_config.py"
)
module = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(module)

OS10_RUNNING = """! Version 10.4.3E
! Last configuration change at Nov  22 16:00:00 2026
!
ip vrf default
!
interface breakout 1/1/21 map 40g-1x
interface breakout 1/1/24 map 40g-1x
!
interface vlan1
 no shutdown
!
interface ethernet1/1/1
 no shutdown
 switchport access vlan 1
!
interface ethernet1/1/21:1
 no shutdown
 switchport access vlan 1
!
interface ethernet1/1/24:1
 no shutdown
 switchport access vlan 1
"""
OS10_INTENDED = """ip vrf default
!
interface breakout 1/1/21 map 40g-1x
interface breakout 1/1/24 map 10g-4x
!
interface vlan1
 no shutdown
!
""" + "".join(
    f"interface ethernet1/1/{p}\n no shutdown\n switchport access vlan 1\n!\n"
    for p in ["21:1", "24:1", "24:2", "24:3", "24:4"]
)
OWNED = [r"^interface breakout 1/1/2[14] ", r"^interface ethernet1/1/2[14]:\d+$"]


def test_unchanged_config_needs_no_command():
    assert remediation_lib.remediation("dell_os10", OS10_RUNNING, OS10_RUNNING, OWNED) == []


def test_breakout_change_unsplits_first_then_configures_the_new_sub_ports():
    commands = remediation_lib.remediation("dell_os10", OS10_RUNNING, OS10_INTENDED, OWNED)
    assert commands[:2] == ["no interface breakout 1/1/24", "interface breakout 1/1/24 map 10g-4x"]
    assert commands[2:6] == [
        "interface ethernet1/1/24:2",
        "no shutdown",
        "switchport access vlan 1",
        "exit",
    ]
    assert "interface ethernet1/1/1" not in commands  # not owned, never touched


def test_dropped_breakout_of_an_owned_port_is_removed():
    intended = OS10_RUNNING.replace("interface breakout 1/1/24 map 40g-1x\n", "")
    intended = intended.replace(
        "interface ethernet1/1/24:1\n no shutdown\n switchport access vlan 1\n", ""
    )
    commands = remediation_lib.remediation("dell_os10", OS10_RUNNING, intended, OWNED)
    # the sub-port goes with the un-split; OS10 cannot delete a physical port itself
    assert commands == ["no interface breakout 1/1/24"]


def test_eos_adds_the_papers_port_channel_members():
    running = "! Command: show running-config\n!\nspanning-tree mode mstp\n!\nend\n"
    intended = (
        "spanning-tree mode mstp\n!\ninterface Port-Channel10\n!\n"
        "interface Ethernet31/1\n   channel-group 10 mode active\n!\nip routing\n"
    )
    assert remediation_lib.remediation("arista_eos", running, intended) == [
        "interface Port-Channel10",
        "interface Ethernet31/1",
        "channel-group 10 mode active",
        "exit",
        "ip routing",
    ]


class FakeSession:
    """A scripted netmiko session: a running config that config commands change."""

    def __init__(self, running, platform="dell_os10", reject=None, drop_after=None):
        self.running = running
        self.platform = platform
        self.reject = reject
        self.drop_after = drop_after
        self.sent: list[str] = []
        self.exec_commands: list[str] = []
        self.saved = False

    def send_command(self, command, **kwargs):
        self.exec_commands.append(command)
        if command.startswith("show running"):
            return self.running
        if command == "show session-config diffs":
            return "--- system:/running-config\n+++ session:/x-session-config\n"
        return ""

    def config_mode(self, config_command=None):
        self.exec_commands.append(config_command or "configure terminal")

    def exit_config_mode(self):
        pass

    def send_config_set(self, commands, **kwargs):
        for command in commands:
            if self.drop_after is not None and len(self.sent) >= self.drop_after:
                raise OSError("Socket is closed")
            if self.reject and command == self.reject:
                raise module.ConfigInvalidException("% Error: Unrecognized command.")
            self.sent.append(command)
        # the fake applies the whole intended config once every command went through
        if self.sent and self.sent[-1] == self.final_command:
            self.running = self.after
        return ""

    def save_config(self):
        self.saved = True
        return "Copy completed successfully."

    def disconnect(self):
        pass


def _run(monkeypatch, session, tmp_path, check_mode=False, **extra):
    args = {
        "platform": session.platform,
        "host": "127.0.0.1",
        "port": 22311,
        "username": "admin",
        "password": "s3cret-pw",
        "intended": OS10_INTENDED,
        "owned_patterns": OWNED,
        "backup_dir": str(tmp_path / "backups"),
        "backup_name": "lab-s5232",
        "_ansible_check_mode": check_mode,
        "_ansible_diff": True,
        **extra,
    }
    monkeypatch.setattr(module, "ConnectHandler", lambda **kw: session)
    with patch_module_args(args), pytest.raises(SystemExit):
        module.main()


@pytest.fixture
def session():
    fake = FakeSession(OS10_RUNNING)
    fake.final_command = "exit"
    fake.after = OS10_INTENDED
    return fake


def _result(capsys):
    return json.loads(capsys.readouterr().out)


def test_check_mode_returns_the_remediation_and_sends_nothing(
    monkeypatch, tmp_path, capsys, session
):
    _run(monkeypatch, session, tmp_path, check_mode=True)
    result = _result(capsys)
    assert result["changed"] is True
    assert result["commands"][0] == "no interface breakout 1/1/24"
    assert session.sent == [] and not session.saved
    assert not (tmp_path / "backups").exists()
    assert "interface breakout 1/1/24 map 40g-1x" in result["diff"]["before"]


def test_change_is_backed_up_pushed_in_a_transaction_verified_and_saved(
    monkeypatch, tmp_path, capsys, session
):
    _run(monkeypatch, session, tmp_path)
    result = _result(capsys)
    assert result["changed"] is True and result["saved"] is True
    assert session.exec_commands[1] == "start transaction"
    assert "commit" in session.exec_commands
    backup = Path(result["backup_path"])
    assert backup.read_text() == OS10_RUNNING
    assert "s3cret-pw" not in json.dumps(result)


def test_second_run_sends_nothing(monkeypatch, tmp_path, capsys):
    fake = FakeSession(OS10_INTENDED)
    _run(monkeypatch, fake, tmp_path)
    result = _result(capsys)
    assert result["changed"] is False and result["commands"] == []
    assert fake.sent == []


def test_rejected_command_fails_naming_it_and_discards(monkeypatch, tmp_path, capsys, session):
    session.reject = "interface breakout 1/1/24 map 10g-4x"
    _run(monkeypatch, session, tmp_path)
    result = _result(capsys)
    assert result["failed"] is True
    assert "rejected 'interface breakout 1/1/24 map 10g-4x'" in result["msg"]
    assert "discard" in session.exec_commands
    assert result["commands_sent"] == []  # discarded: nothing took effect
    assert Path(result["backup_path"]).exists()
    assert not session.saved


def test_dropped_session_reports_what_was_sent_and_the_backup(
    monkeypatch, tmp_path, capsys, session
):
    session.drop_after = 3
    _run(monkeypatch, session, tmp_path, transaction="never")
    result = _result(capsys)
    assert result["failed"] is True
    assert "the session failed at 'no shutdown': Socket is closed" in result["msg"]
    assert result["commands_sent"] == [
        "no interface breakout 1/1/24",
        "interface breakout 1/1/24 map 10g-4x",
        "interface ethernet1/1/24:2",
    ]
    assert Path(result["backup_path"]).read_text() == OS10_RUNNING


def test_eos_change_goes_through_a_committed_session(monkeypatch, tmp_path, capsys):
    running = "! Command: show running-config\n!\nspanning-tree mode mstp\n!\nend\n"
    intended = "spanning-tree mode mstp\n!\nip routing\n"
    fake = FakeSession(running, platform="arista_eos")
    fake.final_command = "ip routing"
    fake.after = intended
    _run(monkeypatch, fake, tmp_path, intended=intended, owned_patterns=[])
    result = _result(capsys)
    assert result["changed"] is True
    assert fake.exec_commands[1].startswith("configure session dlcluster-")
    diffs = fake.exec_commands.index("show session-config diffs")
    assert fake.exec_commands[diffs + 1] == "commit"
    assert result["session_diff"].startswith("--- system:/running-config")
