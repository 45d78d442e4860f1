"""What every lab device holds, read from the devices themselves, to compare before and
after a run that must change nothing (check mode).

Servers: addresses and links, fstab, /etc/hosts, NFS mounts, dlcluster's config
directory, installed packages and containers. Isilon nodes: the simulator's log of
state-changing API requests. Switches: running and startup configuration.
"""

from __future__ import annotations

from typing import Any

from conftest import ROOT, docker_host, lab_password, load_lab_groups
from netmiko import ConnectHandler
from test_switches import SWITCHES, connect

SERVER_READS = {
    "addresses": "ip -o addr show",
    "links": "ip -o link show",
    "fstab": "cat /etc/fstab",
    "hosts": "cat /etc/hosts",
    "nfs mounts": "grep -w nfs4\\? /proc/mounts || true",
    "dlcluster config": "ls -la --time-style=+%s /etc/dlcluster 2>&1 || true",
    "packages": "dpkg-query --show --showformat='${Package} ${Version}\\n'",
    "containers": (
        "command -v docker >/dev/null && docker ps -a --format '{{.Names}} {{.Image}}' || echo none"
    ),
}
STARTUP = {"dell_os10": "show startup-configuration", "arista_eos": "show startup-config"}
RUNNING = {"dell_os10": "show running-configuration", "arista_eos": "show running-config"}
ONEFS_LOG = "/ifs/.ifsvar/onefs_sim/requests.log"


def snapshot() -> dict[str, Any]:
    """Every device's state, keyed by device and what was read."""
    groups = load_lab_groups()
    state: dict[str, Any] = {}
    for name in sorted(groups["compute"]):
        host = docker_host(name)
        for what, command in SERVER_READS.items():
            state[f"{name} {what}"] = host.check_output(command)
    for name in sorted(groups["isilon"]):
        state[f"{name} API writes"] = docker_host(name).run(f"cat {ONEFS_LOG} 2>/dev/null").stdout
    for name, (platform, _port) in sorted(SWITCHES.items()):
        with connect(name) as conn:
            state[f"{name} running"] = conn.send_command(RUNNING[platform])
            state[f"{name} startup"] = conn.send_command(STARTUP[platform])
    with ConnectHandler(
        device_type="mellanox_mlnxos", host="127.0.0.1", port=22313, username="admin",
        password=lab_password("switch"), ssh_strict=True, system_host_keys=False,
        alt_host_keys=True, alt_key_file=str(ROOT / "lab" / ".state" / "known_hosts"),
    ) as conn:  # fmt: skip
        conn.enable()
        # MLNX-OS shows no saved text; its file list says whether running differs from it
        running = conn.send_command("show running-config").splitlines()
        # the banner's `## Generated at <time>` changes at every read
        state["lab-qm8700 running"] = [line for line in running if "Generated at" not in line]
        state["lab-qm8700 saved"] = conn.send_command("show configuration files")
    with ConnectHandler(
        device_type="cumulus_linux", host="127.0.0.1", port=22314, username="admin",
        password=lab_password("switch"), ssh_strict=True, system_host_keys=False,
        alt_host_keys=True, alt_key_file=str(ROOT / "lab" / ".state" / "known_hosts"),
    ) as conn:  # fmt: skip
        # NCLU: what is committed (and so saved), and what is staged
        state["lab-sn3700 committed"] = conn.send_command("net show configuration commands")
        state["lab-sn3700 pending"] = conn.send_command("net pending")
    with ConnectHandler(
        device_type="cumulus_linux", host="127.0.0.1", port=22315, username="admin",
        password=lab_password("switch"), ssh_strict=True, system_host_keys=False,
        alt_host_keys=True, alt_key_file=str(ROOT / "lab" / ".state" / "known_hosts"),
    ) as conn:  # fmt: skip
        # NVUE: what is applied, and what is staged
        state["lab-sn3700-2 applied"] = conn.send_command("nv config show -o commands")
        state["lab-sn3700-2 pending"] = conn.send_command("nv config diff")
    return state


def differences(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The reads that differ, named, for an assertion message."""
    return [key for key in before if before[key] != after.get(key)]
