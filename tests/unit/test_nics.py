"""Data-NIC planning (filter_plugins/nics.py): defaults, validation, management safety."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from playbook import ROOT, local_host, run_playbook

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


# ---- IPoIB --------------------------------------------------------------------------------

_RUNTIME_PATH = Path(__file__).resolve().parents[2] / "library" / "nic_runtime.py"
_RUNTIME_SPEC = importlib.util.spec_from_file_location("nic_runtime", _RUNTIME_PATH)
nic_runtime = importlib.util.module_from_spec(_RUNTIME_SPEC)
_RUNTIME_SPEC.loader.exec_module(nic_runtime)

IB0 = {"name": "ibp12s0", "address": "10.70.1.11/24", "type": "ipoib"}


def test_an_ipoib_interface_gets_its_modes_largest_mtu_never_the_data_networks():
    datagram, connected, ethernet = nics.nics_with_defaults(
        [IB0, {**IB0, "name": "ibp18s0", "ipoib_mode": "connected"}, DGX1_1[0]], 9000
    )
    assert (datagram["ipoib_mode"], datagram["mtu"]) == ("datagram", 4092)
    assert (connected["ipoib_mode"], connected["mtu"]) == ("connected", 65520)
    assert ethernet["type"] == "ethernet" and "ipoib_mode" not in ethernet


def test_an_entry_without_a_type_stays_ethernet_at_the_default_mtu():
    (entry,) = nics.nics_with_defaults([{"name": "e0", "address": "10.0.0.1/24"}], 9000)
    assert (entry["type"], entry["mtu"]) == ("ethernet", 9000)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({**IB0, "mtu": 4093}, "ibp12s0: mtu 4093 is outside 576-4092 \\(IPoIB datagram mode\\)"),
        (
            {**IB0, "ipoib_mode": "connected", "mtu": 65521},
            "mtu 65521 is outside 576-65520 \\(IPoIB connected mode\\)",
        ),
        ({**IB0, "ipoib_mode": "reliable"}, "ipoib_mode 'reliable' is not one of datagram"),
        ({"name": "e0", "address": "10.0.0.1/24", "ipoib_mode": "datagram"}, "needs type: ipoib"),
        ({"name": "e0", "address": "10.0.0.1/24", "type": "infiniband"}, "type 'infiniband'"),
    ],
)
def test_bad_ipoib_entries_fail_naming_the_interface_and_value(entry, message):
    with pytest.raises(Exception, match=message):
        nics.nics_with_defaults([entry], 9000)


def test_preflight_refuses_an_ipoib_mtu_above_its_mode():
    problems = nics.nics_inventory_problems(["dgx-a100-1"], [[{**IB0, "mtu": 9000}]], 9000)
    assert problems == [
        "dgx-a100-1: nics_interfaces: ibp12s0: mtu 9000 is outside 576-4092 (IPoIB datagram mode)"
    ]


def test_the_runtime_view_of_an_ipoib_interface_carries_its_type_and_mode():
    runtime = nics.nics_runtime(nics.nics_with_defaults([IB0, DGX1_1[0]], 9000))
    assert runtime[0] == {
        "name": "ibp12s0",
        "address": "10.70.1.11/24",
        "mtu": 4092,
        "check": [],
        "type": "ipoib",
        "ipoib_mode": "datagram",
    }
    assert "type" not in runtime[1]


def test_netplan_puts_ipoib_under_ethernets_with_its_infiniband_mode():
    wanted = nics.nics_with_defaults([{**IB0, "ipoib_mode": "connected"}, DGX1_1[0]], 9000)
    ethernets = nics.nics_netplan(wanted)["network"]["ethernets"]
    assert ethernets["ibp12s0"] == {
        "addresses": ["10.70.1.11/24"],
        "mtu": 65520,
        "infiniband-mode": "connected",
    }
    assert "infiniband-mode" not in ethernets["enp5s0"]


IB_NOW = {"mtu": 2044, "addresses": [], "gateway": None, "up": True, "mode": "datagram"}


def test_runtime_sets_the_ipoib_mode_before_the_mtu_the_kernel_resets():
    wanted = [{**IB0, "mtu": 65520, "ipoib_mode": "connected"}]
    commands = nic_runtime.plan({"ibp12s0": IB_NOW}, wanted, purge=True)
    assert commands[:2] == [
        ["ip", "link", "set", "dev", "ibp12s0", "type", "ipoib", "mode", "connected"],
        ["ip", "link", "set", "dev", "ibp12s0", "mtu", "65520"],
    ]


def test_runtime_mode_change_reapplies_an_unchanged_mtu():
    now = {**IB_NOW, "mtu": 4092, "mode": "connected"}
    wanted = [{**IB0, "mtu": 4092, "ipoib_mode": "datagram"}]
    commands = nic_runtime.plan({"ibp12s0": now}, wanted, purge=True)
    assert ["ip", "link", "set", "dev", "ibp12s0", "mtu", "4092"] in commands


def test_runtime_leaves_an_ipoib_interface_in_its_mode_alone():
    now = {**IB_NOW, "mtu": 4092, "addresses": ["10.70.1.11/24"]}
    wanted = [{**IB0, "mtu": 4092, "ipoib_mode": "datagram"}]
    assert nic_runtime.plan({"ibp12s0": now}, wanted, purge=True) == []


def test_runtime_plans_nothing_for_an_absent_ipoib_interface():
    assert nic_runtime.plan({}, [{**IB0, "mtu": 4092, "ipoib_mode": "datagram"}], purge=True) == []


def test_rollback_restores_the_ipoib_mode_first():
    saved = {"ibp12s0": {**IB_NOW, "mtu": 4092}}
    now = {**IB_NOW, "mtu": 65520, "mode": "connected"}
    assert nic_runtime.restore_commands(saved, {"ibp12s0": now})[:2] == [
        ["ip", "link", "set", "dev", "ibp12s0", "type", "ipoib", "mode", "datagram"],
        ["ip", "link", "set", "dev", "ibp12s0", "mtu", "4092"],
    ]


def test_ifupdown_keeps_an_absent_ipoib_stanza_but_records_it_nowhere_as_up():
    actions = nic_runtime.ifupdown_plan(
        ["eth1", "ibp12s0"],
        "/etc/network/interfaces.d",
        "source /etc/network/interfaces.d/*\n",
        "eth1=eth1\n",
        [
            "/etc/network/interfaces.d/60-dlcluster-eth1",
            "/etc/network/interfaces.d/60-dlcluster-ibp12s0",
        ],
        absent=["ibp12s0"],
    )
    assert actions == []


def test_the_ipoib_mode_is_read_from_sysfs(tmp_path):
    (tmp_path / "ibp12s0").mkdir()
    (tmp_path / "ibp12s0" / "mode").write_text("datagram\n")
    assert nic_runtime.ipoib_mode("ibp12s0", str(tmp_path)) == "datagram"
    assert nic_runtime.ipoib_mode("eth1", str(tmp_path)) is None


def test_the_roce_report_is_the_ports_read_or_why_there_are_none():
    ports = [{"device": "mlx5_0", "port": 1, "link_layer": "Ethernet"}]
    assert nics.nics_roce_report({"_nics_runtime": {"roce": ports}}) == ports
    assert nics.nics_roce_report({"_nics_runtime": {"roce": []}}) == (
        "no RDMA device: RoCE not available here"
    )


class _HostVars(dict):
    """hostvars as a filter sees it: a mapping of host -> its variables."""


def _hostvars(**hosts):
    return _HostVars({name: dict(host_vars) for name, host_vars in hosts.items()})


def test_plans_fill_each_servers_defaults_and_share_one_hosts_block():
    """nics_plans: each server's interfaces with its own default MTU (its nics_default_mtu,
    else its cluster_data_mtu, else the given one) and the /etc/hosts block of its
    nics_hosts_groups, in group order, each host once, hosts without an address left out."""
    hostvars = _hostvars(
        **{
            "head-1": {
                "cluster_data_address": "10.0.0.1",
                "nics_interfaces": [{"name": "eth1", "address": "10.0.0.1/24"}],
            },
            "gpu-1": {
                "cluster_data_address": "10.0.0.11",
                "cluster_data_mtu": 9000,
                "nics_interfaces": [{"name": "eth1", "address": "10.0.0.11/24"}],
            },
            "gpu-2": {
                "cluster_data_address": "10.0.0.12",
                "nics_default_mtu": 4000,
                "nics_hosts_groups": ["head"],
                "nics_interfaces": [{"name": "eth1", "address": "10.0.0.12/24"}],
            },
            "isilon-1": {"cluster_data_address": "10.0.0.100"},
            "switch-1": {},
        }
    )
    groups = {
        "head": ["head-1"],
        "compute": ["gpu-1", "gpu-2"],
        "isilon": ["isilon-1", "switch-1"],
        "all": list(hostvars),
    }
    plans = nics.nics_plans(
        ["head-1", "gpu-1", "gpu-2"], hostvars, groups, 1500, ["compute", "isilon", "compute"]
    )
    assert [plans[h]["interfaces"][0]["mtu"] for h in ("head-1", "gpu-1", "gpu-2")] == [
        1500,
        9000,
        4000,
    ]
    assert plans["gpu-1"]["interfaces"] == nics.nics_with_defaults(
        [{"name": "eth1", "address": "10.0.0.11/24"}], 9000
    )
    cluster_block = "10.0.0.11 gpu-1\n10.0.0.12 gpu-2\n10.0.0.100 isilon-1\n"
    assert plans["head-1"]["hosts_block"] == plans["gpu-1"]["hosts_block"] == cluster_block
    assert plans["gpu-2"]["hosts_block"] == "10.0.0.1 head-1\n"
    # a group the inventory lacks adds nothing; a server without interfaces plans none
    assert nics.nics_hosts_block(["nothere"], groups, hostvars) == ""
    assert nics.nics_plans(["switch-1"], hostvars, groups, 1500, [])["switch-1"] == {
        "interfaces": [],
        "hosts_block": "",
    }


def test_a_bad_interface_fails_the_plan_naming_it():
    with pytest.raises(Exception, match="eth9"):
        nics.nics_plans(
            ["gpu-1"],
            _hostvars(**{"gpu-1": {"nics_interfaces": [{"name": "eth9", "address": "nope"}]}}),
            {"compute": ["gpu-1"]},
            1500,
            [],
        )


@pytest.mark.parametrize("early", [True, False])
def test_servers_render_the_plan_the_early_phase_publishes(tmp_path, early):
    """Planned once on the control host (the early phase) or by each server itself (the
    role alone): the same files, with each server's own default MTU and hosts groups."""
    inventory = tmp_path / "inventory.json"
    data = {
        "head-1": local_host(
            cluster_data_address="10.0.0.1",
            nics_interfaces=[{"name": "eth1", "address": "10.0.0.1/24"}],
        ),
        "gpu-1": local_host(
            cluster_data_address="10.0.0.11",
            nics_interfaces=[{"name": "eth1", "address": "10.0.0.11/24"}],
        ),
        "gpu-2": local_host(
            cluster_data_address="10.0.0.12",
            nics_hosts_groups=["head"],
            nics_interfaces=[{"name": "eth1", "address": "10.0.0.12/24", "gateway": "10.0.0.254"}],
        ),
    }
    inventory.write_text(
        json.dumps(
            {
                "all": {
                    "children": {
                        "head": {"hosts": {"head-1": data["head-1"]}},
                        "compute": {
                            "hosts": {"gpu-1": data["gpu-1"], "gpu-2": data["gpu-2"]},
                            "vars": {"cluster_data_mtu": 9000},
                        },
                    }
                }
            }
        )
    )
    out = tmp_path / "out"
    result = run_playbook(
        inventory,
        ROOT / "tests" / "unit" / "playbooks" / "nics_plan.yml",
        {"early": early, "out": str(out)},
    )
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
    stanza = "etc/network/interfaces.d/60-dlcluster-eth1"
    assert "mtu 1500" in (out / "head-1" / stanza).read_text()
    assert "mtu 9000" in (out / "gpu-1" / stanza).read_text()
    assert "gateway 10.0.0.254" in (out / "gpu-2" / stanza).read_text()
    hosts = {h: (out / h / "etc" / "hosts").read_text() for h in ("head-1", "gpu-1", "gpu-2")}
    assert hosts["head-1"] == hosts["gpu-1"]
    assert "10.0.0.11 gpu-1\n10.0.0.12 gpu-2\n# END" in hosts["gpu-1"]
    assert "10.0.0.1 head-1\n# END" in hosts["gpu-2"]
