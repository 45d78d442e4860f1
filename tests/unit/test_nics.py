"""Data-NIC planning (filter_plugins/nics.py): defaults, validation, management safety."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[2] / "filter_plugins" / "nics.py"
_SPEC = importlib.util.spec_from_file_location("nics", _PATH)
nics = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(nics)

# The DGX-1 paper's first server: four 100 GbE ports, a gateway on one of them only.
DGX1_1 = [
    {"name": "enp5s0", "address": "10.55.5.231/24", "mtu": 9000},
    {"name": "enp12s0", "address": "10.55.12.232/24", "mtu": 9000},
    {"name": "enp132s0", "address": "10.55.66.231/24", "gateway": "10.55.66.1", "mtu": 9000},
    {"name": "enp139s0", "address": "10.55.139.234/24", "mtu": 9000},
]


def test_dss8440_ports_get_the_default_mtu_and_the_papers_netmask():
    wanted = nics.nics_with_defaults(
        [
            {"name": "enp31s0f0", "address": "172.16.1.1/24"},
            {"name": "enp31s0f1", "address": "172.16.1.2/24"},
        ],
        1500,
    )
    assert [(n["name"], n["ip"], n["netmask"], n["mtu"]) for n in wanted] == [
        ("enp31s0f0", "172.16.1.1", "255.255.255.0", 1500),
        ("enp31s0f1", "172.16.1.2", "255.255.255.0", 1500),
    ]
    assert all(n["check"] == [] and "gateway" not in n for n in wanted)


def test_dgx1_gateway_port_is_checked_through_its_gateway():
    wanted = {n["name"]: n for n in nics.nics_with_defaults(DGX1_1, 1500)}
    assert wanted["enp132s0"]["check"] == ["10.55.66.1"]
    assert wanted["enp5s0"]["mtu"] == 9000


def test_runtime_view_carries_only_what_the_kernel_and_the_checks_take():
    runtime = nics.nics_runtime(nics.nics_with_defaults(DGX1_1, 1500))
    assert runtime[2] == {
        "name": "enp132s0",
        "address": "10.55.66.231/24",
        "mtu": 9000,
        "gateway": "10.55.66.1",
        "check": ["10.55.66.1"],
    }
    assert set(runtime[0]) == {"name", "address", "mtu", "check"}


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"name": "e0", "address": "172.16.1.1"}, "needs a prefix"),
        ({"name": "e0", "address": "172.16.1.300/24"}, "is not IPv4/prefix"),
        ({"name": "e0", "address": "172.16.1.1/24", "mtu": 10000}, "mtu 10000 is outside"),
        (
            {"name": "e0", "address": "172.16.1.1/24", "gateway": "10.0.0.1"},
            "outside 172.16.1.0/24",
        ),
        ({"address": "172.16.1.1/24"}, "has no name"),
    ],
)
def test_bad_entries_fail_naming_the_interface_and_value(entry, message):
    with pytest.raises(Exception, match=message):
        nics.nics_with_defaults([entry], 9000)


def test_an_interface_listed_twice_fails():
    with pytest.raises(Exception, match="e0 is listed twice"):
        nics.nics_with_defaults([{"name": "e0", "address": "10.0.0.1/24"}] * 2, 9000)


def test_netplan_document_puts_the_gateway_and_dns_on_their_own_port_only():
    wanted = nics.nics_with_defaults(
        [*DGX1_1[:2], {**DGX1_1[2], "dns": ["8.8.8.8"]}, DGX1_1[3]], 1500
    )
    plan = nics.nics_netplan(wanted)
    assert plan["network"]["version"] == 2
    ethernets = plan["network"]["ethernets"]
    assert list(ethernets) == ["enp5s0", "enp12s0", "enp132s0", "enp139s0"]
    assert ethernets["enp132s0"] == {
        "addresses": ["10.55.66.231/24"],
        "mtu": 9000,
        "routes": [{"to": "default", "via": "10.55.66.1"}],
        "nameservers": {"addresses": ["8.8.8.8"]},
    }
    assert ethernets["enp5s0"] == {"addresses": ["10.55.5.231/24"], "mtu": 9000}


def test_netplan_document_leaves_the_interfaces_it_was_given_unchanged():
    wanted = nics.nics_with_defaults([{**DGX1_1[2], "dns": ["8.8.8.8"]}], 1500)
    before = [dict(nic) for nic in wanted]
    nics.nics_netplan(wanted)
    nics.nics_netplan(wanted)
    assert wanted == before


def test_no_interfaces_is_an_empty_netplan_document():
    assert nics.nics_netplan([]) == {"network": {"version": 2, "ethernets": {}}}
