"""The lab's simulated S5232 (OS10) and 7060 (EOS) as playbooks/network.yml left them.

The converge configured them and the shared no-op run (conftest.site_run) found nothing
to change on them. What a push does over a session (a change and its check-mode diff, a
revert, a dropped session, replies slower than the timeout) is proved against the same
simulators in process: tests/unit/test_switch_sessions.py. Here: the converged switches,
the lab's cabling, and a restart of the container keeping the saved configuration.
"""

from __future__ import annotations

import subprocess
import time
from typing import Any

import paramiko
import requests
from conftest import ROOT, lab_password
from netmiko import ConnectHandler

SWITCHES = {"lab-s5232": ("dell_os10", 22311), "lab-7060": ("arista_eos", 22312)}
SHOW = {"dell_os10": "show running-configuration", "arista_eos": "show running-config"}


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


def test_saved_configuration_survives_a_switch_restart():
    subprocess.run(["docker", "restart", "lab-s5232"], check=True, capture_output=True)

    for _ in range(30):
        try:
            config = running("lab-s5232")
            break
        except Exception:
            time.sleep(1)
    assert "interface breakout 1/1/21 map 40g-1x" in config


def test_the_7060_login_lands_privileged_as_its_day0_lines_authorize():
    """The lab's EOS container serves the simulator that tests/unit/test_eos_clients.py
    drives with arista.eos: its day-0 lines authorize exec, so a login lands at `#`."""
    with connect("lab-7060") as conn:
        assert conn.find_prompt() == "lab-7060#"


def test_every_lab_switch_answers_an_ssh_exec_request(lab_groups):
    """`ssh admin@<switch> "<command>"` (an exec request, as Ansible's raw, monitoring
    scripts and backup tools read a switch) on the five lab switches: the command's output
    and exit status 0, through the published port and the pinned host key. Each
    platform's exec semantics are proved in process: tests/unit/test_switch_sim_exec.py."""
    commands = {
        "os10": ("show version", "OS10 Enterprise"),
        "eos": ("show version", "DCS-7060CX2-32S"),
        "mlnxos": ('cli "enable" "show version"', "MLNX-OS"),
        "cumulus": ("hostname", None),
    }
    for name, hvars in sorted(lab_groups["switches"].items()):
        command, expected = commands[hvars["lab_switch_platform"]]
        client = paramiko.SSHClient()
        client.load_host_keys(str(ROOT / "lab" / ".state" / "known_hosts"))
        client.connect(
            "127.0.0.1", port=hvars["lab_ssh_port"], username="admin",
            password=lab_password("switch"), look_for_keys=False, allow_agent=False,
        )  # fmt: skip
        try:
            _stdin, stdout, _stderr = client.exec_command(command, timeout=20)
            output = stdout.read().decode()
            assert stdout.channel.recv_exit_status() == 0, (name, output)
        finally:
            client.close()
        assert (expected or name) in output, (name, output)


def test_the_switches_answer_their_http_apis(lab_groups):
    """The switches' HTTP APIs through the ports the lab publishes: Arista eAPI on the 7060
    (HTTPS, its certificate signed by the lab CA), MLNX-OS's JSON API on the QM8700 (plain
    HTTP, as Omnia reaches it) and NVUE's REST API on the 5.x SN3700 (HTTPS), each on the
    same switch as its SSH CLI. What each API does is proved in process
    (tests/unit/test_switch_sim_eapi.py, test_switch_sim_mlnxos_json.py,
    test_switch_sim_nvue_api.py)."""
    password = lab_password("switch")
    eos_port = lab_groups["switches"]["lab-7060"]["lab_api_port"]
    reply = requests.post(
        f"https://127.0.0.1:{eos_port}/command-api",
        json={"jsonrpc": "2.0", "method": "runCmds", "id": "lab",
              "params": {"version": 1, "cmds": ["show hostname"], "format": "json"}},
        auth=("admin", password), verify=str(ROOT / "lab" / ".state" / "pki" / "ca.crt"),
        timeout=30,
    )  # fmt: skip
    assert reply.status_code == 200, reply.text
    assert reply.json()["result"][0]["hostname"] == "lab-7060"
    qm_port = lab_groups["switches"]["lab-qm8700"]["lab_api_port"]
    session = requests.Session()
    base = f"http://127.0.0.1:{qm_port}/admin/launch"
    login = session.post(
        f"{base}?script=rh&template=json-request&action=json-login",
        json={"username": "admin", "password": password}, timeout=30,
    )  # fmt: skip
    assert login.json()["status"] == "OK", login.text
    shown = session.post(f"{base}?script=json", json={"cmd": "show version"}, timeout=30).json()
    assert shown["status"] == "OK" and shown["data"]["Product name"] == "MLNX-OS", shown
    nvue_port = lab_groups["switches"]["lab-sn3700-2"]["lab_api_port"]
    system = requests.get(
        f"https://127.0.0.1:{nvue_port}/nvue_v1/system", auth=("admin", password),
        verify=str(ROOT / "lab" / ".state" / "pki" / "ca.crt"), timeout=30,
    )  # fmt: skip
    assert system.status_code == 200, system.text
    assert system.json()["build"] == "Cumulus Linux 5.10.0", system.text
    assert system.json()["hostname"] == "lab-sn3700-2", system.text
