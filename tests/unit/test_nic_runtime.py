"""library/nic_runtime.py: the iproute2 commands it plans and the rollback it restores."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_PATH = Path(__file__).resolve().parents[2] / "library" / "nic_runtime.py"
_SPEC = importlib.util.spec_from_file_location("nic_runtime", _PATH)
nic_runtime = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(nic_runtime)

FRESH = {"eth1": {"mtu": 1500, "addresses": ["10.201.1.193/24"], "gateway": None, "up": True}}
WANTED = [{"name": "eth1", "address": "10.201.1.11/24", "mtu": 9000}]


def test_fresh_nic_gets_mtu_then_loses_the_stray_address_then_gets_its_own():
    commands = nic_runtime.plan(FRESH, WANTED, purge=True)
    assert commands == [
        ["ip", "link", "set", "dev", "eth1", "mtu", "9000"],
        ["ip", "addr", "del", "10.201.1.193/24", "dev", "eth1"],
        ["ip", "addr", "replace", "10.201.1.11/24", "dev", "eth1"],
    ]


def test_wanted_secondary_is_readded_after_its_primary_goes():
    # deleting the primary of a subnet takes its secondaries with it
    both = {"eth1": {**FRESH["eth1"], "addresses": ["10.201.1.193/24", "10.201.1.11/24"]}}
    assert nic_runtime.plan(both, WANTED, purge=True)[-2:] == [
        ["ip", "addr", "del", "10.201.1.193/24", "dev", "eth1"],
        ["ip", "addr", "replace", "10.201.1.11/24", "dev", "eth1"],
    ]


def test_wanted_primary_stays_while_strays_go():
    both = {"eth1": {**FRESH["eth1"], "mtu": 9000, "addresses": ["10.201.1.11/24", "10.9.9.9/24"]}}
    assert nic_runtime.plan(both, WANTED, purge=True) == [
        ["ip", "addr", "del", "10.9.9.9/24", "dev", "eth1"]
    ]


def test_configured_nic_needs_nothing():
    done = {"eth1": {"mtu": 9000, "addresses": ["10.201.1.11/24"], "gateway": None, "up": True}}
    assert nic_runtime.plan(done, WANTED, purge=True) == []


def test_without_purge_other_addresses_stay():
    commands = nic_runtime.plan(FRESH, WANTED, purge=False)
    assert ["ip", "addr", "del", "10.201.1.193/24", "dev", "eth1"] not in commands


def test_down_link_is_brought_up_and_gateway_set():
    down = {"enp132s0": {"mtu": 9000, "addresses": [], "gateway": None, "up": False}}
    wanted = [{"name": "enp132s0", "address": "10.55.66.231/24", "gateway": "10.55.66.1"}]
    assert nic_runtime.plan(down, wanted, purge=True) == [
        ["ip", "link", "set", "dev", "enp132s0", "up"],
        ["ip", "addr", "replace", "10.55.66.231/24", "dev", "enp132s0"],
        ["ip", "route", "replace", "default", "via", "10.55.66.1", "dev", "enp132s0"],
    ]


def test_rollback_restores_mtu_and_addresses():
    now = {"eth1": {"mtu": 9000, "addresses": ["10.201.1.11/24"], "gateway": None, "up": True}}
    assert nic_runtime.restore_commands(FRESH, now) == [
        ["ip", "link", "set", "dev", "eth1", "mtu", "1500"],
        ["ip", "addr", "del", "10.201.1.11/24", "dev", "eth1"],
        ["ip", "addr", "replace", "10.201.1.193/24", "dev", "eth1"],
    ]
