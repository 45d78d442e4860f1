"""The lab's simulated S5232 (OS10) and 7060 (EOS) configured by playbooks/network.yml."""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import ROOT, lab_password, run_playbook
from netmiko import ConnectHandler

SWITCHES = {"lab-s5232": ("dell_os10", 22311), "lab-7060": ("arista_eos", 22312)}
SHOW = {"dell_os10": "show running-configuration", "arista_eos": "show running-config"}
SPLIT_24 = {
    "switches_os10_breakouts": [
        {"ports": "1/1/21-23", "mode": "40g-1x"},
        {"ports": "1/1/24", "mode": "10g-4x"},
        {"ports": "1/1/25-32", "mode": "40g-1x"},
    ]
}

EOS_ROUTES_AND_RSTP = {
    "switches_eos_static_routes": [
        {"prefix": "0.0.0.0/0", "next_hop": "10.201.0.1"},
        {"prefix": "10.99.0.0/16", "next_hop": "10.201.0.254"},
    ],
    "switches_eos_spanning_tree_mode": "rstp",
}


def connect(name: str) -> Any:
    """A netmiko session to a lab switch as its admin, its host key pinned."""
    device_type, port = SWITCHES[name]
    return ConnectHandler(
        device_type=device_type,
        host="127.0.0.1",
        port=port,
        username="admin",
        password=lab_password("switch"),
        ssh_strict=True,
        system_host_keys=False,
        alt_host_keys=True,
        alt_key_file=str(ROOT / "lab" / ".state" / "known_hosts"),
    )


def running(name: str) -> str:
    with connect(name) as conn:
        return conn.send_command(SHOW[SWITCHES[name][0]])


def _faults(name: str, faults: dict) -> None:
    """Write the simulator's fault file (read at each new session), through stdin so no
    shell reinterprets the JSON's backslashes."""
    subprocess.run(
        ["docker", "exec", "-i", name, "sh", "-c", "cat > /var/lib/switch-sim/faults.json"],
        input=json.dumps(faults),
        text=True,
        check=True,
    )


@contextlib.contextmanager
def fault(name: str, faults: dict) -> Iterator[None]:
    """The simulator's fault switched on for what runs inside, and off again whatever happens."""
    _faults(name, faults)
    try:
        yield
    finally:
        _faults(name, {})


def _summary(result) -> str:
    return " ".join(result.stdout.split())


def recap(result, host: str) -> dict[str, int]:
    """The PLAY RECAP counters of one host: {'ok': 3, 'changed': 0, 'failed': 0, ...}."""
    match = re.search(rf"^{re.escape(host)}\s+:\s+(.*)$", result.stdout, re.MULTILINE)
    assert match, f"no recap line for {host}: {result.stdout[-2000:]}"
    return {key: int(value) for key, value in re.findall(r"(\w+)=(\d+)", match.group(1))}


def test_s5232_carries_the_papers_breakouts_and_ports():
    config = running("lab-s5232")
    for port in range(21, 33):
        assert f"interface breakout 1/1/{port} map 40g-1x" in config
        assert (
            f"interface ethernet1/1/{port}:1\n no shutdown\n switchport access vlan 1\n!" in config
        )
        assert f"interface ethernet1/1/{port}\n" not in config  # split ports are gone
    for port in range(1, 21):
        # ports the inventory does not name keep their factory map and name
        assert f"interface breakout 1/1/{port} map 100g-1x" in config
        assert f"interface ethernet1/1/{port}\n no shutdown\n switchport access vlan 1" in config
    assert "interface vlan1\n no shutdown" in config


def test_s5232_link_state_follows_the_labs_cabling():
    with connect("lab-s5232") as conn:
        status = conn.send_command("show interface status")
    rows = {line[:16].strip(): line[32:].split()[0] for line in status.splitlines()[3:-1]}
    # inventories/lab/hosts.yml: lab_switch_cabling [1, 2, 3, 21, 22, 23, 24]
    up = {name for name, state in rows.items() if state == "up"}
    assert up == {"Eth 1/1/1", "Eth 1/1/2", "Eth 1/1/3"} | {f"Eth 1/1/{n}:1" for n in range(21, 25)}


def test_7060_carries_the_papers_settings():
    config = running("lab-7060")
    for line in (
        "transceiver qsfp default-mode 4x10G",
        "spanning-tree mode mstp",
        "interface Port-Channel10",
        "interface Ethernet31/1\n   speed forced 100gfull\n   channel-group 10 mode active",
        "interface Ethernet32/1\n   speed forced 100gfull\n   channel-group 10 mode active",
        "interface Ethernet21/1\n   description lab-isilon-1\n   speed forced 40gfull",
        "ip routing",
    ):
        assert line in config


def test_a_second_run_sends_nothing():
    result = run_playbook("playbooks/network.yml")
    assert result.returncode == 0, result.stdout[-2000:]
    for switch in SWITCHES:
        counts = recap(result, switch)
        assert counts["changed"] == 0 and counts["failed"] == 0, counts


def test_check_diff_shows_a_breakout_change_and_touches_nothing():
    before = running("lab-s5232")
    result = run_playbook(
        "playbooks/network.yml",
        "--limit",
        "lab-s5232",
        "--check",
        "--diff",
        "-e",
        json.dumps(SPLIT_24),
    )
    assert result.returncode == 0, result.stdout[-2000:]
    assert "-interface breakout 1/1/24 map 40g-1x" in result.stdout
    assert "+interface breakout 1/1/24 map 10g-4x" in result.stdout
    assert "+interface ethernet1/1/24:4" in result.stdout
    assert running("lab-s5232").split("\n", 2)[2] == before.split("\n", 2)[2]


def test_breakout_change_is_applied_saved_and_reverted():
    result = run_playbook(
        "playbooks/network.yml", "--limit", "lab-s5232", "-e", json.dumps(SPLIT_24)
    )
    try:
        assert result.returncode == 0, result.stdout[-2000:]
        config = running("lab-s5232")
        assert "interface breakout 1/1/24 map 10g-4x" in config
        assert all(f"interface ethernet1/1/24:{n}\n no shutdown" in config for n in range(1, 5))
    finally:
        restored = run_playbook("playbooks/network.yml", "--limit", "lab-s5232")
        assert restored.returncode == 0, restored.stdout[-2000:]
    assert "interface breakout 1/1/24 map 40g-1x" in running("lab-s5232")


@pytest.mark.parametrize("switch", ["lab-s5232", "lab-7060"])
def test_a_dropped_session_fails_with_what_was_sent_and_the_next_run_converges(switch):
    change = SPLIT_24 if switch == "lab-s5232" else EOS_ROUTES_AND_RSTP
    with fault(switch, {"drop_after_config_commands": 2}):
        failed = run_playbook(
            "playbooks/network.yml",
            "--limit",
            switch,
            "-e",
            json.dumps(change),
            "-e",
            "switches_os10_transaction=never",
        )
    assert failed.returncode != 0
    out = failed.stdout
    assert f"{switch}: the session failed at" in " ".join(out.split())
    assert "commands_sent:" in out
    assert f"backup_path: {ROOT}/lab/.state/backups/switches/{switch}-" in out
    converged = run_playbook("playbooks/network.yml", "--limit", switch)
    assert converged.returncode == 0, converged.stdout[-2000:]
    again = run_playbook("playbooks/network.yml", "--limit", switch)
    counts = recap(again, switch)
    assert counts["changed"] == 0 and counts["failed"] == 0, counts


# A change on each switch, and one of its commands the switch answers slowly.
SLOW_CHANGES = {
    "lab-s5232": (SPLIT_24, "interface ethernet1/1/24:3"),
    "lab-7060": ({"switches_eos_spanning_tree_mode": "rstp"}, "spanning-tree mode rstp"),
}  # fmt: skip


@pytest.mark.parametrize("switch", sorted(SLOW_CHANGES))
def test_replies_slower_than_the_timeout_commit_nothing_and_the_next_run_converges(switch):
    change, slow = SLOW_CHANGES[switch]
    before = running(switch)
    try:
        with fault(switch, {"slow_commands": [f"^{re.escape(slow)}$"], "slow_seconds": 12}):
            failed = run_playbook(
                "playbooks/network.yml",
                "--limit",
                switch,
                "-e",
                json.dumps({**change, "switches_timeout": 4}),
            )
        assert failed.returncode != 0, failed.stdout[-2000:]
        out = _summary(failed)
        assert f"{switch}: the session failed at '{slow}'" in out
        assert f"backup_path: {ROOT}/lab/.state/backups/switches/{switch}-" in failed.stdout
        time.sleep(13)  # let the simulator finish the slow reply of the abandoned session
        # nothing half-done reached the running configuration
        assert running(switch).split("\n", 2)[2] == before.split("\n", 2)[2]
        converged = run_playbook(
            "playbooks/network.yml", "--limit", switch, "-e", json.dumps(change)
        )
        assert converged.returncode == 0, converged.stdout[-2000:]
        assert recap(converged, switch)["changed"] > 0
    finally:
        restored = run_playbook("playbooks/network.yml", "--limit", switch)
        assert restored.returncode == 0, restored.stdout[-2000:]


def test_saved_configuration_survives_a_switch_restart():
    subprocess.run(["docker", "restart", "lab-s5232"], check=True, capture_output=True)

    for _ in range(30):
        try:
            config = running("lab-s5232")
            break
        except Exception:
            time.sleep(1)
    assert "interface breakout 1/1/21 map 40g-1x" in config
