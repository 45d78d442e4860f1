"""The switch simulators (lab/simulators/switch_sim), driven by netmiko as a real client."""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

import pytest
from netmiko import ConnectHandler
from netmiko.exceptions import ConfigInvalidException
from ntc_templates.parse import parse_output

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "lab" / "simulators"))
from switch_sim.server import Switch, load_host_key  # noqa: E402

ERRORS = r"(?m)^% ?(Error|Invalid|Incomplete|Ambiguous)"
DEVICE_TYPES = {"os10": "dell_os10", "eos": "arista_eos"}


class Lab:
    """A simulator on an ephemeral port with its files in a temporary directory."""

    def __init__(self, tmp_path: Path, platform: str):
        self.tmp_path, self.platform = tmp_path, platform
        self.faults = tmp_path / "faults.json"
        self.start()

    def start(self) -> None:
        self.switch = Switch(
            self.platform,
            str(self.tmp_path / "state.json"),
            {"admin": "pw"},
            load_host_key(str(self.tmp_path / "host_key")),
            "lab-sw",
            str(self.faults),
        )
        self.port = self.switch.listen("127.0.0.1", 0)
        threading.Thread(target=self.switch.serve_forever, daemon=True).start()

    def restart(self) -> None:
        self.switch.stop()
        self.start()

    def connect(self):
        return ConnectHandler(
            device_type=DEVICE_TYPES[self.platform],
            host="127.0.0.1",
            port=self.port,
            username="admin",
            password="pw",
            conn_timeout=10,
            read_timeout_override=10,
        )


@pytest.fixture
def os10(tmp_path):
    lab = Lab(tmp_path, "os10")
    yield lab
    lab.switch.stop()


@pytest.fixture
def eos(tmp_path):
    lab = Lab(tmp_path, "eos")
    yield lab
    lab.switch.stop()


def test_os10_breakout_creates_sub_ports_in_the_papers_format(os10):
    with os10.connect() as conn:
        assert conn.find_prompt() == "lab-sw#"
        conn.send_config_set(
            [
                "interface breakout 1/1/21 map 40g-1x",
                "interface ethernet1/1/21:1",
                "no shutdown",
                "switchport access vlan 1",
            ],
            error_pattern=ERRORS,
        )
        config = conn.send_command("show running-configuration")
    assert config.startswith("! Version 10.4.3E\n! Last configuration change at ")
    assert "interface breakout 1/1/21 map 40g-1x" in config
    assert "interface ethernet1/1/21:1\n no shutdown\n switchport access vlan 1\n!" in config
    assert "interface ethernet1/1/21\n" not in config
    assert config.index("interface breakout") < config.index("interface ethernet1/1/1\n")


def test_os10_changing_a_map_needs_an_unsplit_first(os10):
    with os10.connect() as conn:
        conn.send_config_set(["interface breakout 1/1/24 map 40g-1x"], error_pattern=ERRORS)
        with pytest.raises(ConfigInvalidException, match="matched error: % Error"):
            conn.send_config_set(["interface breakout 1/1/24 map 10g-4x"], error_pattern=ERRORS)
        refused = conn.send_config_set(["interface breakout 1/1/24 map 10g-4x"])
        assert "% Error: Port 1/1/24 is already in breakout mode 40g-1x" in refused
        conn.send_config_set(
            ["no interface breakout 1/1/24", "interface breakout 1/1/24 map 10g-4x"],
            error_pattern=ERRORS,
        )
        config = conn.send_command("show running-configuration")
    assert all(f"interface ethernet1/1/24:{n}\n" in config for n in range(1, 5))


def test_os10_unknown_command_and_terminal_width_are_errors(os10):
    with os10.connect() as conn:
        assert conn.send_command("terminal width 511") == "% Error: Unrecognized command."
        with pytest.raises(ConfigInvalidException):
            conn.send_config_set(["interface breakout 1/1/21 map 30g-1x"], error_pattern=ERRORS)


def test_os10_saved_config_survives_a_restart_and_unsaved_does_not(os10):
    with os10.connect() as conn:
        conn.send_config_set(["interface breakout 1/1/30 map 40g-1x"], error_pattern=ERRORS)
        conn.save_config()
        conn.send_config_set(["interface breakout 1/1/31 map 40g-1x"], error_pattern=ERRORS)
    os10.restart()
    with os10.connect() as conn:
        config = conn.send_command("show running-configuration")
    assert "interface breakout 1/1/30 map 40g-1x" in config
    assert "interface breakout 1/1/31" not in config


def test_os10_transaction_commit_and_discard(os10):
    with os10.connect() as conn:
        conn.send_command("start transaction", expect_string=r"#")
        conn.send_config_set(["interface breakout 1/1/22 map 40g-1x"], error_pattern=ERRORS)
        assert "interface breakout 1/1/22" not in conn.send_command("show running-configuration")
        diff = conn.send_command("show diff candidate-configuration running-configuration")
        assert "+interface breakout 1/1/22 map 40g-1x" in diff
        conn.send_command("commit", expect_string=r"#")
        assert "interface breakout 1/1/22 map 40g-1x" in conn.send_command(
            "show running-configuration"
        )
        conn.send_command("start transaction", expect_string=r"#")
        conn.send_config_set(["interface breakout 1/1/23 map 40g-1x"], error_pattern=ERRORS)
        conn.send_command("discard", expect_string=r"#")
        assert "interface breakout 1/1/23" not in conn.send_command("show running-configuration")


def test_eos_session_diff_commit_and_abort(eos):
    with eos.connect() as conn:
        assert conn.find_prompt() == "lab-sw#"
        conn.config_mode(config_command="configure session dlcluster-1")
        assert conn.find_prompt() == "lab-sw(config-s-dlclus)#"
        conn.send_config_set(
            ["interface Ethernet31/1", "channel-group 10 mode active", "exit", "ip routing"],
            enter_config_mode=False,
            exit_config_mode=False,
            error_pattern=ERRORS,
        )
        diff = conn.send_command("show session-config diffs")
        assert diff.startswith(
            "--- system:/running-config\n+++ session:/dlcluster-1-session-config"
        )
        assert "+   channel-group 10 mode active" in diff
        assert "channel-group" not in conn.send_command("show running-config")
        conn.send_command("commit", expect_string=r"#")
        config = conn.send_command("show running-config")
        assert "interface Ethernet31/1\n   channel-group 10 mode active" in config
        assert "interface Port-Channel10" in config
        conn.config_mode(config_command="configure session dlcluster-2")
        conn.send_config_set(
            ["spanning-tree mode rstp"], enter_config_mode=False, exit_config_mode=False
        )
        conn.send_command("abort", expect_string=r"#")
        assert "spanning-tree mode mstp" in conn.send_command("show running-config")


def test_eos_running_config_format_and_invalid_input(eos):
    with eos.connect() as conn:
        config = conn.send_command("show running-config")
        with pytest.raises(ConfigInvalidException):
            conn.send_config_set(["bogus command"], error_pattern=ERRORS)
        assert conn.save_config().strip().startswith("copy running-config startup-config")
    lines = config.splitlines()
    assert lines[0] == "! Command: show running-config"
    assert lines[1] == "! device: lab-sw (DCS-7060CX2-32S, EOS-4.20.15M)"
    assert lines[-1] == "end"


def test_eos_show_outputs_parse_with_ntc_templates(eos):
    with eos.connect() as conn:
        version = conn.send_command("show version")
        status = conn.send_command("show interfaces status")
    parsed = parse_output(platform="arista_eos", command="show version", data=version)
    assert parsed[0]["model"] == "DCS-7060CX2-32S-F"
    assert parsed[0]["image"] == "4.20.15M"
    ports = parse_output(platform="arista_eos", command="show interfaces status", data=status)
    assert {p["port"] for p in ports} >= {"Et1/1", "Et32/1", "Et33"}
    assert all(p["status"] == "connected" for p in ports)


def test_os10_interface_status_lists_sub_ports(os10):
    with os10.connect() as conn:
        conn.send_config_set(["interface breakout 1/1/21 map 40g-1x"], error_pattern=ERRORS)
        status = conn.send_command("show interface status")
    assert "Eth 1/1/21:1" in status and "Eth 1/1/21 " not in status


def test_faults_drop_the_session_after_n_config_commands(os10):
    os10.faults.write_text(json.dumps({"drop_after_config_commands": 2}))
    conn = os10.connect()
    with pytest.raises(Exception):  # noqa: B017 - netmiko raises a read error or timeout
        conn.send_config_set(
            [f"interface breakout 1/1/{n} map 40g-1x" for n in (25, 26, 27)], error_pattern=ERRORS
        )
    os10.faults.write_text("{}")
    with os10.connect() as again:
        config = again.send_command("show running-configuration")
    assert "1/1/25 map" in config and "1/1/26 map" in config and "1/1/27 map" not in config


def test_faults_reject_a_command_and_delay_replies(eos):
    eos.faults.write_text(json.dumps({"reject_commands": ["^ip routing$"], "delay_seconds": 0.3}))
    with eos.connect() as conn:
        with pytest.raises(ConfigInvalidException):
            conn.send_config_set(["ip routing"], error_pattern=ERRORS)
        started = time.monotonic()
        conn.send_command("show version")
        assert time.monotonic() - started >= 0.3


def test_faults_slow_only_the_matching_commands(eos):
    eos.faults.write_text(json.dumps({"slow_commands": ["^show version$"], "slow_seconds": 0.5}))
    with eos.connect() as conn:
        started = time.monotonic()
        conn.send_command("show running-config")
        assert time.monotonic() - started < 0.5
        started = time.monotonic()
        conn.send_command("show version")
        assert time.monotonic() - started >= 0.5
