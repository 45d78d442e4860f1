"""The lab's QM8700 (MLNX-OS) after site.yml, read with netmiko's own mellanox_mlnxos
driver as a network engineer's scripts would: the split, the port settings and the
subnet manager are in the running and the saved configuration, and the servers' ports
are up and Active (a port is Active only once a subnet manager runs on the fabric)."""

from __future__ import annotations

import re

import pytest
from conftest import ROOT, lab_password, run_playbook
from netmiko import ConnectHandler


@pytest.fixture(scope="module")
def qm8700():
    conn = ConnectHandler(
        device_type="mellanox_mlnxos",
        host="127.0.0.1",
        port=22313,
        username="admin",
        password=lab_password("switch"),
        ssh_strict=True,
        system_host_keys=False,
        alt_host_keys=True,
        alt_key_file=str(ROOT / "lab" / ".state" / "known_hosts"),
    )
    conn.enable()
    yield conn
    conn.disconnect()


def test_running_and_saved_configuration_carry_the_fabric(qm8700):
    running = qm8700.send_command("show running-config")
    for line in (
        "interface ib 1/40 module-type qsfp-split-2 force",
        "interface ib 1/1 speed hdr",
        "interface ib 1/40/2 shutdown",
        "ib sm",
    ):
        assert f"   {line}" in running.splitlines(), line
    assert "Unsaved changes: no" in qm8700.send_command("show configuration files")
    assert qm8700.send_command("show ib sm").strip() == "enable"


def test_the_servers_ports_are_active_and_the_split_halves_exist(qm8700):
    status = qm8700.send_command("show interfaces ib status")
    for port in ("1/1", "1/2", "1/3"):  # cabled, and the switch runs the subnet manager
        assert re.search(rf"^IB{port}\s.*\sActive\s+LinkUp$", status, re.M), status
    assert re.search(r"^IB1/40/1\s", status, re.M) and re.search(r"^IB1/40/2\s", status, re.M)
    assert not re.search(r"^IB1/40\s", status, re.M)  # split: the port itself is gone


def test_link_check_names_a_link_without_a_cable():
    """The ib_fabric role's link check over SSH: the lab cables ports 1-3 only, so a link
    planned on 1/4 is Polling and the check fails naming it (nothing is pushed: the run
    reads the switch, the configuration tasks are not in this play)."""
    links = (
        '{"ib_fabric_links": [{"port": "1/1", "host": "lab-compute-1", "hca": "mlx5_0"},'
        ' {"port": "1/4", "host": "lab-compute-1", "hca": "mlx5_1"}],'
        ' "ib_fabric_link_retries": 2, "ib_fabric_link_delay": 1}'
    )
    result = run_playbook("tests/lab/playbooks/ib_links.yml", "-e", links)
    output = " ".join((result.stdout + result.stderr).split())
    assert result.returncode != 0, output
    assert (
        "lab-qm8700: IB1/4 (lab-compute-1 mlx5_1) is Polling, not LinkUp: check the cable" in output
    ), output
    assert "IB1/1 (lab-compute-1" not in output  # the cabled link passes


def test_link_check_passes_on_the_cabled_links():
    result = run_playbook("tests/lab/playbooks/ib_links.yml")
    assert result.returncode == 0, result.stdout[-3000:]
    assert "failed=0" in result.stdout and "ok=" in result.stdout
