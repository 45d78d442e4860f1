"""library/nic_runtime.py: the iproute2 commands it plans and the rollback it restores."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

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


LINKS = {
    "lo": {"ifname": "lo", "addr_info": [{"family": "inet", "local": "127.0.0.1"}]},
    "eno3": {"ifname": "eno3", "addr_info": [{"family": "inet", "local": "10.0.0.21"}]},
    "enp5s0": {"ifname": "enp5s0", "addr_info": [{"family": "inet", "local": "10.55.5.231"}]},
}
ROUTES = [{"dst": "default", "gateway": "10.0.0.1", "dev": "eno3"}]


def test_ssh_server_address_comes_from_the_first_environment_that_has_it():
    # sudo dropped SSH_CONNECTION from the module's own environment; the login shell has it
    environs = [{"PATH": "/usr/bin"}, {"SSH_CONNECTION": "10.0.0.5 51000 10.0.0.21 22"}]
    assert nic_runtime.ssh_server_address(environs) == "10.0.0.21"
    assert nic_runtime.ssh_server_address([{}, {"SSH_CONNECTION": "garbage"}]) == ""


def test_management_interface_holds_the_ssh_server_address_else_the_default_route():
    assert nic_runtime.management_interface(LINKS, ROUTES, "10.55.5.231") == "enp5s0"
    assert nic_runtime.management_interface(LINKS, ROUTES, "") == "eno3"
    assert nic_runtime.management_interface(LINKS, [], "") == ""


def test_changing_the_management_interface_is_a_problem():
    wanted = [{"name": "eno3", "address": "10.0.0.21/24"}]
    assert nic_runtime.management_problems(wanted, "eno3", ROUTES) == [
        "eno3 carries the management connection"
    ]


def test_a_data_gateway_replacing_the_management_default_route_is_a_problem():
    wanted = [{"name": "enp132s0", "address": "10.55.66.231/24", "gateway": "10.55.66.1"}]
    problems = nic_runtime.management_problems(wanted, "eno3", ROUTES)
    assert len(problems) == 1
    assert "gateway 10.55.66.1 would replace the default route via 10.0.0.1" in problems[0]


def test_data_ports_alone_and_local_connections_are_safe():
    wanted = [{"name": "enp31s0f0", "address": "172.16.1.1/24"}]
    assert nic_runtime.management_problems(wanted, "eno3", ROUTES) == []
    assert nic_runtime.management_problems([{"name": "eno3", "address": "x"}], "", ROUTES) == []


@pytest.mark.parametrize(
    ("os_release", "expected"),
    [
        ('ID=ubuntu\nID_LIKE=debian\nVERSION_ID="22.04"\n', ("Debian", "netplan")),
        ('ID=debian\nVERSION_ID="12"\n', ("Debian", "ifupdown")),
        ('ID="rocky"\nID_LIKE="rhel centos fedora"\n', ("RedHat", "networkmanager")),
        ('ID="rhel"\n', ("RedHat", "networkmanager")),
    ],
)
def test_auto_renderer_follows_os_release(os_release, expected):
    assert nic_runtime.os_release(os_release) == expected


def test_ifupdown_bookkeeping_records_state_removes_stale_stanzas_and_sources_the_dir():
    actions = nic_runtime.ifupdown_plan(
        ["eth1"],
        "/etc/network/interfaces.d",
        "auto lo\niface lo inet loopback\n",
        "lo=lo\n",
        [
            "/etc/network/interfaces.d/60-dlcluster-eth1",
            "/etc/network/interfaces.d/60-dlcluster-eth2",
        ],
    )
    assert [text for text, _ in actions] == [
        "add 'source /etc/network/interfaces.d/*' to /etc/network/interfaces",
        "record eth1 as up in /run/network/ifstate",
        "remove /etc/network/interfaces.d/60-dlcluster-eth2",
    ]


def test_ifupdown_bookkeeping_of_a_configured_host_is_empty():
    assert (
        nic_runtime.ifupdown_plan(
            ["eth1"],
            "/etc/network/interfaces.d",
            "source-directory /etc/network/interfaces.d\n",
            "lo=lo\neth1=eth1\n",
            ["/etc/network/interfaces.d/60-dlcluster-eth1"],
        )
        == []
    )


def test_roce_ports_are_read_from_sysfs(tmp_path):
    port = tmp_path / "mlx5_0" / "ports" / "1"
    port.mkdir(parents=True)
    (port / "link_layer").write_text("Ethernet\n")
    (tmp_path / "mlx5_0" / "device" / "net" / "enp5s0").mkdir(parents=True)
    assert nic_runtime.roce_ports(str(tmp_path)) == [
        {"device": "mlx5_0", "port": "1", "link_layer": "Ethernet", "netdevs": ["enp5s0"]}
    ]
    assert nic_runtime.roce_ports(str(tmp_path / "none")) == []
