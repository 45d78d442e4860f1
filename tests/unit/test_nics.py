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


def test_runtime_view_carries_only_what_the_kernel_takes():
    runtime = nics.nics_runtime(nics.nics_with_defaults(DGX1_1, 1500))
    assert runtime[2] == {
        "name": "enp132s0",
        "address": "10.55.66.231/24",
        "mtu": 9000,
        "gateway": "10.55.66.1",
    }
    assert set(runtime[0]) == {"name", "address", "mtu"}


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


FACTS = {
    "env": {"SSH_CONNECTION": "10.0.0.5 51000 10.0.0.21 22"},
    "interfaces": ["lo", "eno3", "enp31s0f0"],
    "eno3": {"ipv4": {"address": "10.0.0.21"}},
    "enp31s0f0": {"ipv4": {"address": "172.16.1.1"}},
    "default_ipv4": {"interface": "eno3", "gateway": "10.0.0.1"},
}


def test_management_interface_is_the_one_holding_the_ssh_server_address():
    assert nics.nics_management_interface(FACTS) == "eno3"
    assert nics.nics_management_interface(FACTS, "local") == ""
    without_env = {**FACTS, "env": {}}
    assert nics.nics_management_interface(without_env) == "eno3"


def test_changing_the_management_interface_is_a_problem():
    wanted = nics.nics_with_defaults([{"name": "eno3", "address": "10.0.0.21/24"}], 1500)
    problems = nics.nics_management_problems(wanted, "eno3", FACTS["default_ipv4"])
    assert problems == ["eno3 carries the management connection"]


def test_a_data_gateway_replacing_the_management_default_route_is_a_problem():
    wanted = nics.nics_with_defaults(DGX1_1, 1500)
    problems = nics.nics_management_problems(wanted, "eno3", FACTS["default_ipv4"])
    assert len(problems) == 1
    assert "gateway 10.55.66.1 would replace the default route via 10.0.0.1" in problems[0]


def test_data_ports_alone_are_safe():
    wanted = nics.nics_with_defaults([{"name": "enp31s0f0", "address": "172.16.1.1/24"}], 9000)
    assert nics.nics_management_problems(wanted, "eno3", FACTS["default_ipv4"]) == []
