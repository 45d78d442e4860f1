"""The lab's QM8700 (MLNX-OS) after site.yml, read with netmiko's own mellanox_mlnxos
driver as a network engineer's scripts would: the split, the port settings and the
subnet manager are in the running and the saved configuration, and the servers' ports
are up and Active (a port is Active only once a subnet manager runs on the fabric). The
ib_fabric role's link check itself runs against the QM8700 simulator in the unit suite
(tests/unit/test_ib_links.py)."""

from __future__ import annotations

import re

import pytest
from conftest import ROOT, lab_password
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
