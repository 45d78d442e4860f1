"""The switch simulators (lab/simulators/switch_sim), driven by netmiko as a real client."""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
from pathlib import Path

import pytest
from netmiko import ConnectHandler
from netmiko.exceptions import ConfigInvalidException

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "lab" / "simulators"))
from sim_lab import SimLab  # noqa: E402
from switch_sim.server import Switch, load_host_key, read_cabling  # noqa: E402

ERRORS = r"(?m)^% ?(Error|Invalid|Incomplete|Ambiguous)"


@pytest.fixture
def os10(tmp_path):
    lab = SimLab(tmp_path, "os10")
    yield lab
    lab.switch.stop()


@pytest.fixture
def eos(tmp_path):
    lab = SimLab(tmp_path, "eos")
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
    assert config.startswith("! Version 10.5.1.3\n! Last configuration change at ")
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
    assert "interface breakout 1/1/31 map 100g-1x" in config  # unsaved: factory map


def test_os10_transaction_commit_and_discard(os10):
    with os10.connect() as conn:
        conn.send_command("start transaction", expect_string=r"#")
        conn.send_config_set(["interface breakout 1/1/22 map 40g-1x"], error_pattern=ERRORS)
        assert "interface breakout 1/1/22 map 100g-1x" in conn.send_command(
            "show running-configuration"
        )
        diff = conn.send_command("show diff candidate-configuration running-configuration")
        assert "+interface breakout 1/1/22 map 40g-1x" in diff
        conn.send_command("commit", expect_string=r"#")
        assert "interface breakout 1/1/22 map 40g-1x" in conn.send_command(
            "show running-configuration"
        )
        conn.send_command("start transaction", expect_string=r"#")
        conn.send_config_set(["interface breakout 1/1/23 map 40g-1x"], error_pattern=ERRORS)
        conn.send_command("discard", expect_string=r"#")
        assert "interface breakout 1/1/23 map 100g-1x" in conn.send_command(
            "show running-configuration"
        )


def test_os10_interface_status_lists_sub_ports(os10):
    with os10.connect() as conn:
        conn.send_config_set(["interface breakout 1/1/21 map 40g-1x"], error_pattern=ERRORS)
        status = conn.send_command("show interface status")
    assert "Eth 1/1/21:1" in status and "Eth 1/1/21 " not in status


def test_os10_clients_abbreviations_commit_in_config_mode_and_xml(os10):
    """What dellemc.os10 (its load_config and os10_facts) and netmiko send, over SSH."""
    with os10.connect() as conn:
        # dellemc.os10 load_config: configure terminal, the lines, `commit`, end
        output = conn.send_config_set(
            ["interface breakout 1/1/21 map 40g-1x", "commit"], error_pattern=ERRORS
        )
        assert "% Error" not in output
        assert conn.send_command("sh run | grep 1/1/21") == (
            "interface breakout 1/1/21 map 40g-1x\ninterface ethernet1/1/21:1"
        )
        saved = conn.send_command("copy running-config startup-config")
        assert "% Error" not in saved
        assert "1/1/21 map 40g-1x" in conn.send_command("show startup-configuration")
        xml = conn.send_command("show version | display-xml")
    assert "<sw-platform>S5232F-ON</sw-platform>" in xml


def test_os10_link_state_follows_the_cabling_file(tmp_path):
    cabling = tmp_path / "cabling.json"
    cabling.write_text(json.dumps({"ports": [1, 21]}))
    switch = Switch(
        "os10", str(tmp_path / "state.json"), {"admin": "pw"},
        load_host_key(str(tmp_path / "host_key")), "lab-sw", None, str(cabling),
    )  # fmt: skip
    assert switch.state.cabled_ports == frozenset({1, 21})
    port = switch.listen("127.0.0.1", 0)
    threading.Thread(target=switch.serve_forever, daemon=True).start()
    try:
        with ConnectHandler(device_type="dell_os10", host="127.0.0.1", port=port,
                            username="admin", password="pw", conn_timeout=10) as conn:  # fmt: skip
            status = conn.send_command("show interface status")
    finally:
        switch.stop()
    rows = {line[:16].strip(): line[32:].split()[0] for line in status.splitlines()[3:-1]}
    assert rows["Eth 1/1/1"] == "up" and rows["Eth 1/1/21"] == "up"
    assert rows["Eth 1/1/2"] == "down" and rows["Eth 1/1/33"] == "down"


def test_cabling_file_must_list_port_numbers(tmp_path):
    bad = tmp_path / "cabling.json"
    bad.write_text(json.dumps({"ports": ["1/1/1"]}))
    with pytest.raises(ValueError, match="positive port numbers"):
        read_cabling(str(bad))
    assert read_cabling(None) == frozenset()


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
    assert "1/1/25 map 40g-1x" in config and "1/1/26 map 40g-1x" in config
    assert "1/1/27 map 100g-1x" in config


def test_faults_slow_only_the_matching_commands(eos):
    eos.faults.write_text(json.dumps({"slow_commands": ["^show version$"], "slow_seconds": 0.5}))
    with eos.connect() as conn:
        started = time.monotonic()
        conn.send_command("show running-config")
        assert time.monotonic() - started < 0.5
        started = time.monotonic()
        conn.send_command("show version")
        assert time.monotonic() - started >= 0.5


def test_a_stopped_switch_no_longer_answers_on_its_port(tmp_path):
    """stop() ends the accept loop: nothing keeps answering SSH on the old port under a
    file descriptor number the process has since given to another socket."""
    switch = Switch(
        "os10", str(tmp_path / "state.json"), {"admin": "pw"},
        load_host_key(str(tmp_path / "host_key")), "lab-sw",
    )  # fmt: skip
    port = switch.listen("127.0.0.1", 0)
    thread = threading.Thread(target=switch.serve_forever, daemon=True)
    thread.start()
    with socket.create_connection(("127.0.0.1", port), timeout=5) as probe:
        assert probe.recv(64).startswith(b"SSH-2.0-")  # served while running
    switch.stop()
    thread.join(5)
    assert not thread.is_alive()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
