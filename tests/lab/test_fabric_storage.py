"""The lab's pair of SN3700 storage switches after site.yml, read with netmiko's own
cumulus_linux driver: on lab-sn3700 (Cumulus Linux 4.2.1, NCLU) the storage fabric's
settings are committed (nothing pending), the cabled ports are up at their speeds and MTU,
and the bond carries both members; on lab-sn3700-2 (5.10, NVUE) the same plan is applied
and saved, nothing is pending, and the ports run at the speeds of the hosts cabled to them.

Both are also the Debian hosts Cumulus switches are: Ansible reaches them over plain SSH
(its paramiko connection, password and sudo as the lab's admin, host keys pinned), reads
the release from its own facts, runs `net` with `command`, and an admin's template of
/etc/network/interfaces applied with `ifreload -a` is what NCLU then reports; the file put
back and reloaded leaves the committed configuration as it was."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT, lab_password
from netmiko import ConnectHandler


def _connect(port: int):
    return ConnectHandler(
        device_type="cumulus_linux",
        host="127.0.0.1",
        port=port,
        username="admin",
        password=lab_password("switch"),
        ssh_strict=True,
        system_host_keys=False,
        alt_host_keys=True,
        alt_key_file=str(ROOT / "lab" / ".state" / "known_hosts"),
    )


@pytest.fixture(scope="module")
def sn3700():
    conn = _connect(22314)
    yield conn
    conn.disconnect()


@pytest.fixture(scope="module")
def sn3700_nvue():
    conn = _connect(22315)
    yield conn
    conn.disconnect()


def test_the_storage_fabric_is_committed(sn3700):
    config = sn3700.send_command("net show configuration commands")
    for line in (
        "net add bond bond1 bond slaves swp5-6",
        "net add bridge bridge vids 100",
        "net add interface swp1 alias lab-compute-1",
    ):
        assert line in config.splitlines(), line
    assert re.search(r"^net add interface \S*swp1\S* mtu 9216$", config, re.M), config
    assert sn3700.send_command("net pending").strip() == ""


def test_cabled_ports_are_up_at_their_speeds_and_mtu(sn3700):
    table = sn3700.send_command("net show interface all")
    assert re.search(r"^UP\s+swp1\s+100G\s+9216\s", table, re.M), table
    assert re.search(r"^UP\s+swp21\s+40G\s+9216\s", table, re.M), table
    assert re.search(r"^UP\s+bond1\s", table, re.M), table


def test_the_nvue_switch_runs_the_same_plan_applied_and_saved(sn3700_nvue):
    assert "Cumulus Linux 5.10.0" in sn3700_nvue.send_command("nv show system -o json")
    applied = sn3700_nvue.send_command("nv config show -o commands")
    assert "nv set interface swp1 description lab-compute-1" in applied.splitlines(), applied
    # NVUE folds ports that share a setting into one line (swp1-3,21-24)
    assert re.search(r"^nv set interface swp1\S*21\S* link mtu 9216$", applied, re.M), applied
    assert re.search(
        r"^nv set interface swp1\S* bridge domain br_default access 100$", applied, re.M
    ), applied
    assert sn3700_nvue.send_command("nv config diff").strip() == ""  # nothing pending


def test_the_nvue_switch_ports_run_at_the_speeds_of_their_hosts(sn3700_nvue):
    rows = json.loads(sn3700_nvue.send_command("nv show interface -o json"))
    assert rows["swp1"]["link"]["oper-status"] == "up"
    assert rows["swp1"]["link"]["speed"] == "100G" and rows["swp1"]["link"]["mtu"] == 9216
    assert (
        rows["swp21"]["link"]["speed"] == "40G" and rows["swp21"]["description"] == "lab-isilon-1"
    )
    assert rows["swp5"]["link"]["oper-status"] == "down"  # not cabled on this switch


# ---- the switches as Linux hosts: Ansible over plain SSH ----------------------------------


@pytest.fixture(scope="module")
def linux_hosts(tmp_path_factory, lab_groups):
    """An inventory of the two switches as Ansible reaches a Linux host, and a HOME whose
    known_hosts holds the lab's pinned keys (paramiko's connection reads it there, and
    finds no private key to try before the password)."""
    home = tmp_path_factory.mktemp("home")
    (home / ".ssh").mkdir()
    shutil.copy(ROOT / "lab" / ".state" / "known_hosts", home / ".ssh" / "known_hosts")
    password = lab_password("switch")
    hosts = {
        name: {
            "ansible_host": "127.0.0.1",
            "ansible_port": lab_groups["switches"][name]["lab_ssh_port"],
            "ansible_user": "admin",
            "ansible_password": password,
            "ansible_become_password": password,
            "ansible_connection": "paramiko",
            "ansible_python_interpreter": "/usr/bin/python3",
        }
        for name in ("lab-sn3700", "lab-sn3700-2")
    }
    (home / "ansible.cfg").write_text("[defaults]\n")
    inventory = home / "hosts.json"
    inventory.write_text(json.dumps({"all": {"hosts": hosts}}))
    return home, inventory


def ansible(linux_hosts, pattern: str, module: str, args: str = "", *options: str) -> dict:
    """One ad-hoc module run; the ansible.posix.json callback's result per host."""
    home, inventory = linux_hosts
    venv = Path(os.environ.get("VIRTUAL_ENV", ROOT / ".venv"))
    env = {
        **os.environ,
        "HOME": str(home),
        # Ansible's defaults, as a network admin's own control host has them (the
        # project's ansible.cfg adds a timing callback to stdout)
        "ANSIBLE_CONFIG": str(home / "ansible.cfg"),
        "ANSIBLE_HOST_KEY_CHECKING": "True",
        "ANSIBLE_LOAD_CALLBACK_PLUGINS": "True",
        "ANSIBLE_STDOUT_CALLBACK": "ansible.posix.json",
        "ANSIBLE_NOCOLOR": "1",
    }
    done = subprocess.run(
        [str(venv / "bin" / "ansible"), pattern, "-i", str(inventory), "-m", module, "-a", args,
         *options],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    try:
        report = json.loads(done.stdout)
    except ValueError:
        pytest.fail(f"ansible {module} {args}: {done.stdout}{done.stderr}")
    results = report["plays"][0]["tasks"][0]["hosts"]
    for name, result in results.items():
        assert not result.get("failed") and not result.get("unreachable"), (name, result)
    return results


def test_ansible_reads_each_switch_as_the_cumulus_release_it_runs(linux_hosts):
    facts = ansible(
        linux_hosts, "all", "ansible.builtin.setup", "gather_subset=!all,!min,distribution"
    )
    for name, version in (("lab-sn3700", "4.2.1"), ("lab-sn3700-2", "5.10.0")):
        got = facts[name]["ansible_facts"]
        assert got["ansible_distribution"] == "Cumulus Linux", got
        assert got["ansible_distribution_version"] == version, got
        assert got["ansible_os_family"] == "Debian", got


def test_ansible_runs_the_switch_tools_with_command(linux_hosts, sn3700):
    shown = ansible(linux_hosts, "lab-sn3700", "ansible.builtin.command",
                    "net show configuration commands")["lab-sn3700"]  # fmt: skip
    assert shown["rc"] == 0
    assert shown["stdout"].splitlines() == [
        line.rstrip()
        for line in sn3700.send_command("net show configuration commands").splitlines()
    ]
    rows = ansible(linux_hosts, "lab-sn3700-2", "ansible.builtin.command",
                   "nv show interface -o json")["lab-sn3700-2"]  # fmt: skip
    assert json.loads(rows["stdout"])["swp21"]["description"] == "lab-isilon-1"


def test_a_templated_interfaces_file_is_applied_by_ifreload_and_put_back(
    linux_hosts, sn3700, tmp_path
):
    """The Linux way to configure a Cumulus switch: template the file, `ifreload -a`."""
    interfaces = "/etc/network/interfaces"
    before = sn3700.send_command("net show configuration commands")
    read = ansible(linux_hosts, "lab-sn3700", "ansible.builtin.slurp", f"src={interfaces}")
    original = __import__("base64").b64decode(read["lab-sn3700"]["content"]).decode()
    template = tmp_path / "interfaces.j2"
    template.write_text(original + "\nauto swp9\niface swp9\n    alias {{ swp9_alias }}\n")
    written = ansible(linux_hosts, "lab-sn3700", "ansible.builtin.template",
                      f"src={template} dest={interfaces} owner=root mode=0644", "--become",
                      "-e", "swp9_alias=spare-uplink")  # fmt: skip
    assert written["lab-sn3700"]["changed"]
    assert sn3700.send_command("net show configuration commands") == before  # not applied yet
    ansible(linux_hosts, "lab-sn3700", "ansible.builtin.command", "ifreload -a", "--become")
    try:
        applied = sn3700.send_command("net show configuration commands").splitlines()
        assert "net add interface swp9 alias spare-uplink" in applied
    finally:  # the file put back and applied: the switch as site.yml left it
        source = tmp_path / "interfaces"
        source.write_text(original)
        ansible(linux_hosts, "lab-sn3700", "ansible.builtin.copy",
                f"src={source} dest={interfaces} owner=root mode=0644", "--become")  # fmt: skip
        ansible(linux_hosts, "lab-sn3700", "ansible.builtin.command", "ifreload -a", "--become")
    assert sn3700.send_command("net show configuration commands") == before
    assert sn3700.send_command("net pending").strip() == ""
    again = ansible(linux_hosts, "lab-sn3700", "ansible.builtin.copy",
                    f"src={source} dest={interfaces} owner=root mode=0644", "--become")  # fmt: skip
    assert not again["lab-sn3700"]["changed"]  # the file stays as written: nothing rewrites it
