"""arista.eos, the collection most Arista users automate with, against the EOS simulator.

tests/unit/playbooks/eos_clients.yml runs eos_command, eos_facts, eos_config (lines +
parents and src, check mode with diff, save_when), and the interfaces, l2_interfaces,
lag_interfaces and vlans resource modules (gathered and merged) over
ansible.netcommon.network_cli, becoming privileged with `enable` as an EOS user must
when the login lands at `>`. The test checks what the modules return and what the
switch's running configuration became, then puts the switch back as it found it.

The switch is the lab's 7060 as the lab runs it, in a local process on 127.0.0.1 (`python
-m switch_sim --platform eos`, the program of the lab's switch container): the lab's day-0
lines first (`lab_switch_initial_config`: logins land at `#`), then the lab inventory's
configuration pushed by the switches role's module, as the lab's converge does, so its
Port-Channel10 is there. A factory simulator (logins land at `>`) checks the login alone.
tests/lab/test_switches.py logs into the lab's own switch container the same way.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import paramiko
import pytest
import yaml
from netmiko import ConnectHandler
from test_switch_config import LAB_EOS, render
from test_switch_sessions import push

ROOT = Path(__file__).resolve().parents[2]
PLAYBOOK = ROOT / "tests" / "unit" / "playbooks" / "eos_clients.yml"
HOST = "lab-7060"
# What the playbook touches, and how to take it back (none of it is in the lab's config)
RESTORE = [
    "no interface Port-Channel20",
    "no interface Ethernet10/1",
    "no interface Ethernet11/1",
    "no interface Ethernet12/1",
    "no interface Ethernet13/1",
    "no vlan 301-302",
]


@dataclass
class Target:
    host: str
    port: int
    username: str
    password: str
    known_hosts: Path


def _day0(username: str, password: str) -> str:
    """The lab's `lab_switch_initial_config` for the 7060, with its credentials filled in."""
    hosts = yaml.safe_load((ROOT / "inventories" / "lab" / "hosts.yml").read_text())
    switches = hosts["all"]["children"]["switches"]["hosts"]
    text = switches["lab-7060"]["lab_switch_initial_config"]
    return text.replace("{{ cluster_switch_username }}", username).replace(
        "{{ cluster_switch_password }}", password
    )


def _local_simulator(workdir: Path, day0: bool) -> tuple[subprocess.Popen, Target]:
    """Start `python -m switch_sim --platform eos` on 127.0.0.1 with its files in workdir."""
    password = secrets.token_urlsafe(12)
    users = workdir / "users"
    users.write_text(f"admin:{password}\n")
    users.chmod(0o600)
    key_path = workdir / "host_key"
    extra = []
    if day0:
        initial = workdir / "initial.cfg"
        initial.write_text(_day0("admin", password))
        extra = ["--initial-config", str(initial)]
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "switch_sim",
            "--platform",
            "eos",
            "--listen",
            "127.0.0.1:0",
            "--hostname",
            HOST,
            "--host-key",
            str(key_path),
            "--state",
            str(workdir / "state.json"),
            "--users-file",
            str(users),
            *extra,
        ],
        cwd=ROOT / "lab" / "simulators",
        stdout=subprocess.PIPE,
        text=True,
    )
    line = process.stdout.readline()
    match = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
    assert match, f"the simulator did not start: {line!r}"
    port = int(match.group(1))
    key = paramiko.RSAKey.from_private_key_file(str(key_path))
    known_hosts = workdir / "known_hosts"
    known_hosts.write_text(f"[127.0.0.1]:{port} {key.get_name()} {key.get_base64()}\n")
    return process, Target("127.0.0.1", port, "admin", password, known_hosts)


def _started(workdir: Path, day0: bool) -> Iterator[Target]:
    process, found = _local_simulator(workdir, day0)
    try:
        yield found
    finally:
        process.terminate()
        process.wait(10)


@pytest.fixture(scope="module")
def target(tmp_path_factory) -> Iterator[Target]:
    """The lab's 7060: its day-0 lines, then the lab's configuration from the role."""
    workdir = tmp_path_factory.mktemp("eos-sim")
    for found in _started(workdir, day0=True):
        converged = push(
            "arista_eos", found.port, found.password, render("arista_eos", **LAB_EOS), [],
            backup_dir=str(workdir / "backups"),
        )  # fmt: skip
        assert converged["changed"] is True and converged["saved"] is True, converged
        yield found


@pytest.fixture(scope="module")
def factory(tmp_path_factory) -> Iterator[Target]:
    """A 7060 as it leaves the factory (no day-0 lines)."""
    yield from _started(tmp_path_factory.mktemp("eos-factory"), day0=False)


def connect(target: Target, enable: bool = True):
    conn = ConnectHandler(
        device_type="arista_eos",
        host=target.host,
        port=target.port,
        username=target.username,
        password=target.password,
        ssh_strict=True,
        system_host_keys=False,
        alt_host_keys=True,
        alt_key_file=str(target.known_hosts),
        conn_timeout=15,
    )
    if enable:
        conn.enable()  # a no-op for a user that lands at `#`
    return conn


def run_playbook(target: Target, workdir: Path) -> dict:
    """Run the playbook through a one-host inventory that reaches the target with
    network_cli; the host key is checked against the target's known_hosts, placed where
    the paramiko connection reads it (~/.ssh/known_hosts of a private HOME)."""
    home = workdir / "home"
    (home / ".ssh").mkdir(parents=True)
    shutil.copy(target.known_hosts, home / ".ssh" / "known_hosts")
    inventory = workdir / "inventory.yml"
    host_vars = {
        "ansible_host": target.host,
        "ansible_port": target.port,
        "ansible_user": target.username,
        "ansible_password": target.password,
        "ansible_connection": "ansible.netcommon.network_cli",
        "ansible_network_os": "arista.eos.eos",
        "ansible_become": True,
        "ansible_become_method": "enable",
        "ansible_python_interpreter": sys.executable,
    }
    inventory.write_text(yaml.safe_dump({"all": {"hosts": {HOST: host_vars}}}))
    inventory.chmod(0o600)
    results = workdir / "results.json"
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("ANSIBLE_FORCE_COLOR", "PY_COLORS")},
        "HOME": str(home),
        "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"),
        "ANSIBLE_NOCOLOR": "1",
        "ANSIBLE_STRATEGY": "linear",  # network_cli runs in Ansible's own persistent process
        "ANSIBLE_HOST_KEY_CHECKING": "True",
    }
    venv = Path(os.environ.get("VIRTUAL_ENV", ROOT / ".venv"))
    argv = [str(venv / "bin" / "ansible-playbook"), "-i", str(inventory), str(PLAYBOOK),
            "-e", f"eos_clients_results={results}"]  # fmt: skip
    done = subprocess.run(
        argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False
    )
    assert done.returncode == 0, (done.stdout + done.stderr)[-6000:]
    assert re.search(rf"{HOST}\s*: ok=\d+\s+changed=\d+\s+unreachable=0\s+failed=0", done.stdout)
    return json.loads(results.read_text())


@pytest.fixture(scope="module")
def played(target, tmp_path_factory) -> Iterator[tuple[dict, str, str]]:
    """The playbook's results and the running configuration before and after it; the
    switch is restored afterwards, whatever happened."""
    with connect(target) as conn:
        before = conn.send_command("show running-config")
        startup = conn.send_command("show startup-config")
    try:
        results = run_playbook(target, tmp_path_factory.mktemp("eos-clients"))
        with connect(target) as conn:
            after = conn.send_command("show running-config")
            results["startup_after"] = conn.send_command("show startup-config")
        yield results, before, after
    finally:
        with connect(target) as conn:
            conn.send_config_set(RESTORE, error_pattern=r"(?m)^% ")
            restored = conn.send_command("show running-config")
            if conn.send_command("show startup-config") != startup and startup == before:
                conn.save_config()
            assert restored == before, "the switch was not restored"
            assert conn.send_command("show startup-config") == startup


def test_login_lands_where_the_switch_authorizes_it(target, factory):
    """The lab's switch authorizes exec (day-0 lines): `#`; a factory 7060: `>`
    [eos.arista.com, "Common AAA Requirements"]."""
    with connect(target, enable=False) as conn:
        assert conn.find_prompt() == f"{HOST}#"
    with connect(factory, enable=False) as conn:
        assert conn.find_prompt() == f"{HOST}>"


def _block(config: str, header: str) -> list[str]:
    """The sub-commands of one top-level block of a running config."""
    lines = config.splitlines()
    start = lines.index(header)
    block = []
    for line in lines[start + 1 :]:
        if not line.startswith("   "):
            break
        block.append(line.strip())
    return block


def test_eos_command_returns_the_devices_output(played):
    results, _, _ = played
    version, running, status, version_json = results["command"]["stdout"]
    assert "Arista DCS-7060CX2-32S" in version
    assert running.startswith("! Command: show running-config")
    assert re.search(r"^Et1/1\s", status, re.M)
    assert version_json["modelName"] == "DCS-7060CX2-32S"
    assert results["command"]["changed"] is False


def test_eos_facts_gathers_every_legacy_subset(played):
    facts = played[0]["facts"]["ansible_facts"]
    assert facts["ansible_net_system"] == "eos"
    assert facts["ansible_net_model"] == "DCS-7060CX2-32S"
    assert facts["ansible_net_version"] == "4.20.15M"
    assert facts["ansible_net_hostname"] == HOST
    assert facts["ansible_net_image"] == "flash:/EOS-4.20.15M.swi"
    assert facts["ansible_net_serialnum"]
    assert facts["ansible_net_memtotal_mb"] > 0
    assert "flash:" in facts["ansible_net_filesystems"]
    assert facts["ansible_net_config"].startswith("! Command: show running-config")
    et = facts["ansible_net_interfaces"]["Ethernet1/1"]
    assert et["operstatus"] in ("connected", "notconnect") and et["bandwidth"] > 0
    assert facts["ansible_net_neighbors"] == {}


def test_eos_config_check_mode_diffs_without_changing(played):
    results, _, after = played
    check = results["config_check"]
    assert check["changed"] is True
    assert check["commands"] == ["interface Ethernet10/1", "description dlc-check"]
    assert "+   description dlc-check" in check["diff"]["prepared"]
    assert "dlc-check" not in after
    src_check = results["config_src_check"]
    assert src_check["changed"] is True and "dlc-src" in src_check["diff"]["prepared"]


def test_eos_config_lines_src_and_save_when_modified(played):
    results, _, after = played
    assert results["config_lines"]["changed"] is True
    assert results["config_again"]["changed"] is False
    assert results["config_src"]["changed"] is True
    assert _block(after, "interface Ethernet10/1") == ["description dlc-lines"]
    # save_when: modified saved the first change; the later src change is not saved
    saved = results["startup_after"]
    assert _block(saved, "interface Ethernet10/1") == ["description dlc-lines"]
    assert _block(saved, "interface Ethernet12/1") == []


def test_interfaces_gathered_and_merged(played):
    results, _, after = played
    gathered = {i["name"]: i for i in results["interfaces_gathered"]["gathered"]}
    assert gathered["Ethernet1/1"]["enabled"] is True
    assert "Ethernet34" in gathered
    assert results["interfaces_merged"]["changed"] is True
    assert _block(after, "interface Ethernet11/1")[:3] == [
        "description dlc-merged", "shutdown", "mtu 9000",
    ]  # fmt: skip


def test_vlans_gathered_and_merged(played):
    results, _, after = played
    assert results["vlans_merged"]["changed"] is True
    assert results["vlans_merged"]["commands"][0] == "vlan 301"
    assert _block(after, "vlan 301") == ["name dlc-a"]
    assert _block(after, "vlan 302") == ["state suspend"]
    gathered_before = results["vlans_gathered"]["gathered"]
    assert all(v["vlan_id"] not in (301, 302) for v in gathered_before)


def test_l2_interfaces_gathered_and_merged(played):
    results, _, after = played
    assert results["l2_merged"]["changed"] is True
    assert _block(after, "interface Ethernet11/1")[3:] == [
        "switchport trunk native vlan 301",
        "switchport trunk allowed vlan 301-302",
        "switchport mode trunk",
    ]
    assert _block(after, "interface Ethernet12/1") == [
        "description dlc-src", "switchport access vlan 301",
    ]  # fmt: skip
    after_l2 = {i["name"]: i for i in results["l2_merged"]["after"]}
    assert after_l2["Ethernet12/1"]["access"] == {"vlan": 301}
    assert after_l2["Ethernet11/1"]["trunk"]["native_vlan"] == 301


def test_lag_interfaces_gathered_and_merged(played):
    results, before, after = played
    gathered = {i["name"]: i for i in results["lag_gathered"]["gathered"]}
    lab_lag = re.findall(r"^interface (Ethernet\S+)\n(?:   .*\n)*?   channel-group 10 mode active",
                         before, re.M)  # fmt: skip
    # the lab's own LAG (Port-Channel10, Ethernet31/1 and 32/1) is seen as it is
    assert sorted(lab_lag) == ["Ethernet31/1", "Ethernet32/1"], before
    assert {m["member"] for m in gathered["Port-Channel10"]["members"]} == set(lab_lag)
    assert results["lag_merged"]["changed"] is True
    assert results["lag_again"]["changed"] is False
    assert _block(after, "interface Ethernet13/1") == ["channel-group 20 mode active"]
    assert "interface Port-Channel20" in after
