"""The lab's pair of SN3700 storage switches after site.yml, read with netmiko's own
cumulus_linux driver: on lab-sn3700 (Cumulus Linux 4.2.1, NCLU) the storage fabric's
settings are committed (nothing pending), the cabled ports are up at their speeds and MTU,
and the bond carries both members; on lab-sn3700-2 (5.10, NVUE) the same plan is applied
and saved, nothing is pending, and the ports run at the speeds of the hosts cabled to them."""

from __future__ import annotations

import json
import re

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
