"""The lab's SN3700 (Cumulus Linux 4.2.1, NCLU) after site.yml, read with netmiko's own
cumulus_linux driver: the storage fabric's settings are committed (nothing pending),
the cabled ports are up at their speeds and MTU, and the bond carries both members."""

from __future__ import annotations

import re

import pytest
from conftest import ROOT, lab_password
from netmiko import ConnectHandler


@pytest.fixture(scope="module")
def sn3700():
    conn = ConnectHandler(
        device_type="cumulus_linux",
        host="127.0.0.1",
        port=22314,
        username="admin",
        password=lab_password("switch"),
        ssh_strict=True,
        system_host_keys=False,
        alt_host_keys=True,
        alt_key_file=str(ROOT / "lab" / ".state" / "known_hosts"),
    )
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
