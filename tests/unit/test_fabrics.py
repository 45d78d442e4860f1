"""The fabrics' plans (filter_plugins/fabrics.py): links become the switches role's inputs,
bad links and subnet managers are refused with a reason, the IB link check reads the
QM8700's port table as the lab's simulator prints it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "filter_plugins"))
sys.path.insert(0, str(ROOT / "lab" / "simulators"))

import fabrics  # noqa: E402
from switch_sim import mlnxos, mlnxos_model  # noqa: E402
from switch_sim.state import SwitchState  # noqa: E402

GROUPS = {"compute": ["gpu-1", "gpu-2"], "isilon": ["isi-1"], "head": ["head"]}
SPEEDS = {"compute": 200000, "isilon": 40000}


def test_storage_links_become_ports_breakouts_bonds_and_bridge():
    links = [
        {"port": "swp1", "host": "gpu-1"},
        {"port": "swp9s0", "host": "isi-1", "speed": 25000},
        {"port": "swp5", "host": "head", "speed": 100000, "bond": "bond1"},
        {"port": "swp6", "host": "head", "speed": 100000, "bond": "bond1"},
    ]
    assert fabrics.storage_fabric_problems(links, GROUPS, SPEEDS) == []
    plan = fabrics.storage_fabric_plan(links, GROUPS, SPEEDS, 100, 9216)
    assert plan["breakouts"] == [{"ports": "swp9", "mode": "4x25G"}]
    first = plan["interfaces"][0]
    assert first == {
        "name": "swp1",
        "speed": 200000,
        "mtu": 9216,
        "alias": "gpu-1",
        "access_vlan": 100,
    }
    assert "access_vlan" not in plan["interfaces"][2]  # a bond member carries the VLAN tagged
    assert plan["bonds"] == [{"name": "bond1", "slaves": ["swp5", "swp6"]}]
    assert plan["bridge_ports"] == ["swp1", "swp9s0", "bond1"]
    assert plan["bridge_vids"] == [100]


@pytest.mark.parametrize(
    ("links", "expected"),
    [
        ([{"port": "eth1", "host": "gpu-1"}], "is not swpN/swpNsM"),
        ([{"port": "swp1", "host": "gpu-1"}, {"port": "swp1", "host": "gpu-2"}], "listed twice"),
        ([{"port": "swp1", "host": "nobody"}], "not in the inventory"),
        ([{"port": "swp1", "host": "head"}], "no speed for 'head'"),
        ([{"port": "swp2s0", "host": "gpu-1"}], "a sub-port runs"),
        (
            [{"port": "swp2s0", "host": "isi-1", "speed": 25000},
             {"port": "swp2s1", "host": "isi-1", "speed": 10000}],
            "its sub-ports need one speed",
        ),
        (
            [{"port": "swp2", "host": "gpu-1"},
             {"port": "swp2s1", "host": "isi-1", "speed": 25000}],
            "linked whole and split",
        ),
        (
            [{"port": "swp5", "host": "gpu-1", "bond": "bond1"},
             {"port": "swp6", "host": "gpu-2", "bond": "bond1"}],
            "bonds ports of several hosts",
        ),
    ],
)  # fmt: skip
def test_storage_links_refused_with_a_reason(links, expected):
    problems = fabrics.storage_fabric_problems(links, GROUPS, SPEEDS, "sn-1")
    assert any(expected in p for p in problems), problems
    assert all(p.startswith("sn-1: ") for p in problems)


def _hostvars(**switch):
    hosts = {h: {} for members in GROUPS.values() for h in members}
    return {
        **hosts,
        "sn-1": {"switches_platform": "cumulus_linux", "switches_model": "SN3700", **switch},
    }


def test_storage_preflight_runs_the_switch_checks_on_the_plan():
    defaults = {"storage_fabric_links": [], "storage_fabric_speeds": SPEEDS,
                "storage_fabric_vlan": 100, "storage_fabric_mtu": 9216}  # fmt: skip
    good = _hostvars(storage_fabric_links=[{"port": "swp1", "host": "gpu-1"}])
    assert fabrics.storage_fabric_input_problems(["sn-1"], good, GROUPS, defaults) == []
    # swp33 does not exist on an SN3700: the switches role's own check says so
    bad = _hostvars(storage_fabric_links=[{"port": "swp33", "host": "gpu-1"}])
    assert any(
        "swp33" in p for p in fabrics.storage_fabric_input_problems(["sn-1"], bad, GROUPS, defaults)
    )
    # an MTU the platform refuses
    mtu = {**defaults, "storage_fabric_mtu": 9300}
    assert fabrics.storage_fabric_input_problems(["sn-1"], good, GROUPS, mtu)
    both = _hostvars(storage_fabric_links=[], switches_cumulus_interfaces=[{"name": "swp1"}])
    assert "drop one" in fabrics.storage_fabric_input_problems(["sn-1"], both, GROUPS, defaults)[0]


@pytest.mark.parametrize(
    ("fabric", "given", "expected"),
    [
        ("storage", {"switches_cumulus_bonds": []}, ["sn-1: switches_cumulus_bonds is set"]),
        # a `-e switches_mlnxos_subnet_manager=false` would turn the planned SM off
        (
            "ib",
            {"switches_mlnxos_subnet_manager": "false"},
            ["sn-1: switches_mlnxos_subnet_manager"],
        ),
        ("ib", {"switches_cumulus_bonds": []}, []),  # not this fabric's platform
        ("storage", {"switches_model": "SN3700", "storage_fabric_links": []}, []),
    ],
)
def test_a_planned_switches_input_also_given_is_refused(fabric, given, expected):
    problems = fabrics.fabric_override_problems(given, "sn-1", fabric)
    assert [p[: len(e)] for p, e in zip(problems, expected, strict=True)] == expected
    assert all(p.endswith("; drop one") for p in problems)


def test_ib_links_become_speeds_splits_and_the_subnet_manager():
    links = [{"port": "1/1", "host": "gpu-1", "hca": "mlx5_0"},
             {"port": "1/40/1", "host": "gpu-2", "hca": "mlx5_0"}]  # fmt: skip
    managers = [{"host": "qm-1", "priority": 15}]
    plan = fabrics.ib_fabric_plan(links, ["1/39"], managers, "qm-1")
    assert plan["breakouts"] == [{"ports": "1/39", "mode": "qsfp-split-2"},
                                 {"ports": "1/40", "mode": "qsfp-split-2"}]  # fmt: skip
    assert {"name": "1/1", "speed": "hdr"} in plan["interfaces"]
    shut = [i["name"] for i in plan["interfaces"] if i.get("shutdown")]
    assert shut == ["1/39/1", "1/39/2", "1/40/2"]
    assert plan["subnet_manager"] is True
    assert fabrics.ib_fabric_plan(links, [], managers, "qm-2")["subnet_manager"] is False


def test_ib_links_and_managers_refused_with_a_reason():
    hosts = ["gpu-1", "qm-1"]
    problems = fabrics.ib_fabric_problems(
        [{"port": "1/1", "host": "gpu-1"}, {"port": "1/1/1", "host": "nobody", "speed": "hdr200"}],
        [], hosts, "qm-1",
    )  # fmt: skip
    text = "; ".join(problems)
    assert "not in the inventory" in text and "speed 'hdr200'" in text
    assert "linked whole and split" in text
    assert "needs a subnet manager" in fabrics.ib_fabric_manager_problems([], ["qm-1"], [])[0]
    assert fabrics.ib_fabric_manager_problems([], [], []) == []  # no IB fabric: nothing needed
    two = [{"host": "qm-1", "priority": 15}, {"host": "gpu-1", "priority": 15}]
    assert "share priority 15" in fabrics.ib_fabric_manager_problems(two, ["qm-1"], ["gpu-1"])[0]
    assert "neither" in fabrics.ib_fabric_manager_problems([{"host": "x"}], ["qm-1"], [])[0]
    assert (
        "not 0-15"
        in fabrics.ib_fabric_manager_problems([{"host": "qm-1", "priority": 16}], ["qm-1"], [])[0]
    )


def _status(tmp_path, cabled, sm=True, shut=()):
    """`show interfaces ib status` as the lab's QM8700 model prints it."""
    state = SwitchState(tmp_path / "qm-1.json", mlnxos_model.factory("qm-1"))
    state.cabled_ports = frozenset(cabled)
    session = mlnxos.MLNXOSSession(state)
    session.config["sm"] = sm
    for name in shut:
        session.config["ports"][name]["shutdown"] = True
    return session._status()


LINKS = [
    {"port": "1/1", "host": "gpu-1", "hca": "mlx5_0"},
    {"port": "1/2", "host": "gpu-2", "hca": "mlx5_0"},
]


def test_link_check_passes_only_when_every_link_is_up_and_active(tmp_path):
    assert fabrics.ib_fabric_link_problems(_status(tmp_path, [1, 2]), LINKS) == []
    uncabled = fabrics.ib_fabric_link_problems(_status(tmp_path, [1]), LINKS, "qm-1")
    assert uncabled == [
        "qm-1: IB1/2 (gpu-2 mlx5_0) is Polling, not LinkUp: check the cable and the HCA's"
        " port type (IB, not Ethernet)"
    ]
    no_sm = fabrics.ib_fabric_link_problems(_status(tmp_path, [1, 2], sm=False), LINKS)
    assert len(no_sm) == 2 and all("no subnet manager" in p for p in no_sm)
    shut = fabrics.ib_fabric_link_problems(_status(tmp_path, [1, 2], shut=["1/1"]), LINKS)
    assert "Disabled" in shut[0]
    slower = fabrics.ib_fabric_link_problems(
        _status(tmp_path, [1, 2]), [{**LINKS[0], "speed": "edr"}]
    )
    assert "not at edr" in slower[0]
    assert "missing" in fabrics.ib_fabric_link_problems("", LINKS)[0]
