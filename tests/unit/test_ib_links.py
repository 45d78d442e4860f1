"""The ib_fabric role's link check over a real SSH session to the QM8700 simulator.

roles/ib_fabric/tasks/links.yml, as site.yml runs it after the fabric's configuration,
against the MLNX-OS simulator (lab/simulators/switch_sim) in this process on an ephemeral
port, cabled like the lab's QM8700 (one HCA cable per server on 1-3) and running the
subnet manager as the lab's converge leaves it. The check reads `show interfaces ib
status` with the switch_command module, waits for links to come up, and names each one
that does not; it changes nothing. The lab reads its own QM8700 container after the
converge (tests/lab/test_fabric_ib.py).
"""

from __future__ import annotations

import json
import socket
import sys
import time
from pathlib import Path

import pytest
from playbook import ROOT, local_host, run_playbook
from sim_lab import SimLab

PLAYBOOK = ROOT / "tests" / "unit" / "playbooks" / "ib_links.yml"
PASSWORD = "lab-switch-pw"
# inventories/lab: lab-qm8700's links
LAB_LINKS = [
    {"port": "1/1", "host": "lab-compute-1", "hca": "mlx5_0"},
    {"port": "1/2", "host": "lab-compute-2", "hca": "mlx5_0"},
    {"port": "1/3", "host": "lab-compute-3", "hca": "mlx5_0"},
]


class Fabric:
    """The simulated QM8700 and a one-switch inventory that reaches it."""

    def __init__(self, tmp_path: Path):
        self.lab = SimLab(tmp_path, "mlnxos", password=PASSWORD, hostname="lab-qm8700",
                          cabled=[1, 2, 3])  # fmt: skip
        with self.lab.connect() as conn:  # the subnet manager, as the converge sets it
            conn.enable()
            conn.send_config_set(["ib sm"])
        self.inventory = tmp_path / "inventory.yml"
        switch = local_host(**{
            "switches_platform": "mellanox_mlnxos",
            "switches_host": "127.0.0.1",
            "switches_port": self.lab.port,
            "switches_host_key_checking": False,
            "cluster_switch_username": "admin",
            "cluster_switch_password": PASSWORD,
            "ib_fabric_links": LAB_LINKS,
        })  # fmt: skip
        self.inventory.write_text(
            json.dumps({"all": {"children": {"ib_fabric": {"hosts": {"lab-qm8700": switch}}}}})
        )

    def check(self, **extra_vars) -> tuple[int, str, float]:
        """Run the link check; its exit code, its output on one line, its seconds."""
        started = time.monotonic()
        result = run_playbook(self.inventory, PLAYBOOK, extra_vars)
        output = " ".join((result.stdout + result.stderr).split())
        return result.returncode, output, time.monotonic() - started

    def running(self) -> list[str]:
        """The running configuration without its `##` header (it carries the time)."""
        with self.lab.connect() as conn:
            conn.enable()
            text = conn.send_command("show running-config")
        return [line for line in text.splitlines() if not line.startswith("##")]


@pytest.fixture
def fabric(tmp_path):
    fabric = Fabric(tmp_path)
    yield fabric
    fabric.lab.stop()


def test_link_check_passes_on_the_cabled_links(fabric):
    before = fabric.running()
    rc, output, _ = fabric.check()
    assert rc == 0, output
    assert "failed=0" in output and "lab-qm8700 : ok=" in output, output
    assert fabric.running() == before  # a read: nothing configured


def test_link_check_names_a_link_without_a_cable(fabric):
    """The lab cables ports 1-3 only, so a link planned on 1/4 stays Polling; the check
    reads again until its retries are spent, then fails naming that link alone."""
    links = [LAB_LINKS[0], {"port": "1/4", "host": "lab-compute-1", "hca": "mlx5_1"}]
    rc, output, _ = fabric.check(
        ib_fabric_links=links, ib_fabric_link_retries=1, ib_fabric_link_delay=1
    )
    assert rc != 0, output
    assert (
        "lab-qm8700: IB1/4 (lab-compute-1 mlx5_1) is Polling, not LinkUp: check the cable" in output
    ), output
    assert "IB1/1 (lab-compute-1" not in output  # the cabled link passes
    assert "FAILED - RETRYING" in output  # it waited for the link before failing


def test_a_switch_that_cannot_be_read_fails_at_once_saying_so(fabric):
    """A session that fails ends the wait: no retries spent on a switch that is down
    (here: nothing listens on the port the inventory names)."""
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    rc, output, seconds = fabric.check(
        switches_port=port, ib_fabric_link_retries=6, ib_fabric_link_delay=10
    )
    assert rc != 0, output
    assert "cannot read the InfiniBand ports:" in output, output
    assert "FAILED - RETRYING" not in output, output
    assert seconds < 50, seconds  # six retries of 10 s would be 60 s


def test_a_session_waits_for_the_login_prompt_not_for_two_quiet_seconds(fabric):
    """netmiko's MLNX-OS driver reads the login with its generic timing read, at least 2.2
    s of sleeps on every session (every run reads the QM8700 twice); switch_config's
    session ends that read at the prompt, and the session works as netmiko's does."""
    from netmiko.mellanox.mellanox_mlnxos_ssh import MellanoxMlnxosSSH

    sys.path.insert(0, str(ROOT / "module_utils"))
    import switch_config

    params = {
        "platform": "mellanox_mlnxos", "host": "127.0.0.1", "port": fabric.lab.port,
        "username": "admin", "password": PASSWORD, "enable": True, "enable_secret": None,
        "host_key_checking": False, "known_hosts": None, "timeout": 10,
    }  # fmt: skip
    started = time.monotonic()
    conn = switch_config.connect(params)
    opened = time.monotonic() - started
    try:
        assert isinstance(conn, MellanoxMlnxosSSH)
        assert conn.base_prompt == "lab-qm8700 [standalone: master] "
        assert conn.check_enable_mode()
        assert "IB1/1" in conn.send_command("show interfaces ib status")
    finally:
        conn.disconnect()
    assert opened < 2.0, opened
    # the other platforms keep netmiko's own drivers
    other = switch_config.PLATFORMS["dell_os10"]
    assert switch_config.session_class(other).__name__ == "DellOS10SSH"
