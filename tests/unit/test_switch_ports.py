"""Switch port helpers and input checks (filter_plugins/switches.py)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[2] / "filter_plugins" / "switches.py"
_SPEC = importlib.util.spec_from_file_location("switch_ports", _PATH)
ports = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(ports)

OS10 = {"switches_platform": "dell_os10", "switches_model": "S5232F-ON"}
EOS = {"switches_platform": "arista_eos", "switches_model": "7060CX2-32S"}


def test_the_papers_range_expands_to_twelve_ports():
    assert ports.switch_ports("1/1/21-32") == [f"1/1/{n}" for n in range(21, 33)]


def test_lists_commas_and_plain_numbers_are_accepted():
    assert ports.switch_ports(["1/1/1,1/1/3", "1/1/5-6"]) == ["1/1/1", "1/1/3", "1/1/5", "1/1/6"]
    assert ports.switch_ports("31-32") == ["31", "32"]


@pytest.mark.parametrize("bad", ["1/1/32-21", "ethernet1/1/1", "1/1/"])
def test_bad_ranges_are_refused(bad):
    with pytest.raises(Exception, match=r"range|not a port"):
        ports.switch_ports(bad)


def test_s5232_interfaces_follow_its_breakouts():
    names = ports.model_interfaces("S5232F-ON", {"1/1/24": "10g-4x", "1/1/21": "40g-1x"})
    assert "ethernet1/1/24" not in names and "ethernet1/1/21" not in names
    assert [f"ethernet1/1/24:{n}" for n in range(1, 5)] == [n for n in names if "1/1/24:" in n]
    assert "ethernet1/1/21:1" in names and "ethernet1/1/33" in names
    assert len(names) == 32 + 2 - 2 + 4 + 1


def test_the_native_map_keeps_the_ports_own_name():
    # 100g-1x on a QSFP28 port keeps ethernet1/1/N (an S4112F-ON 10.5.0.2 capture in
    # grantcurell/projects), 40g-1x makes :1 (pastebin.com/13V2tpBX)
    names = ports.model_interfaces("S5232F-ON", {"1/1/5": "100g-1x", "1/1/6": "40g-1x"})
    assert "ethernet1/1/5" in names and "ethernet1/1/5:1" not in names
    assert "ethernet1/1/6:1" in names and "ethernet1/1/6" not in names
    plan = ports.breakout_plan([{"ports": "1/1/5", "mode": "100g-1x"}], "S5232F-ON")
    assert plan == [{"port": "1/1/5", "mode": "100g-1x", "subports": ["ethernet1/1/5"]}]
    interfaces = ports.os10_interface_plan([{"ports": "1/1/5", "mode": "100g-1x"}], "S5232F-ON")
    assert [i["name"] for i in interfaces] == ["ethernet1/1/5"]


def test_7060_interfaces_are_four_lanes_per_qsfp_port_and_two_sfp_ports():
    names = ports.model_interfaces("7060CX2-32S")
    assert names[:4] == ["Ethernet1/1", "Ethernet1/2", "Ethernet1/3", "Ethernet1/4"]
    assert names[-2:] == ["Ethernet33", "Ethernet34"]
    assert len(names) == 32 * 4 + 2


def test_breakout_plan_gives_sub_ports_per_mode_in_port_order():
    plan = ports.breakout_plan(
        [{"ports": "1/1/24", "mode": "10g-4x"}, {"ports": "1/1/21", "mode": "40g-1x"}],
        "S5232F-ON",
    )
    assert plan == [
        {"port": "1/1/21", "mode": "40g-1x", "subports": ["ethernet1/1/21:1"]},
        {
            "port": "1/1/24",
            "mode": "10g-4x",
            "subports": [f"ethernet1/1/24:{n}" for n in range(1, 5)],
        },
    ]


def test_breakout_ports_come_from_the_model_not_a_fixed_range():
    problems = ports.breakout_problems([{"ports": "31", "mode": "10g-4x"}], "7060CX2-32S")
    assert problems == [
        "switches_os10_breakouts[0]: port 31 cannot break out on the 7060CX2-32S "
        "(ports that can: none)"
    ]


def test_breakout_problems_name_mode_port_and_overlap():
    problems = ports.breakout_problems(
        [
            {"ports": "1/1/21-22", "mode": "40g-2x"},
            {"ports": "1/1/33", "mode": "10g-4x"},
            {"ports": "1/1/22", "mode": "40g-1x"},
        ],
        "S5232F-ON",
    )
    assert problems[0].startswith(
        "switches_os10_breakouts[0]: mode '40g-2x' is not a breakout of QSFP28 port 1/1/21 "
        "on the S5232F-ON (one of: 100g-1x, 40g-1x, 50g-2x, 25g-4x, 10g-4x)"
    )
    assert (
        "switches_os10_breakouts[1]: port 1/1/33 cannot break out on the S5232F-ON "
        "(ports that can: 1/1/1-32)" in problems
    )
    assert "switches_os10_breakouts[2]: port 1/1/22 is also in entry 0" in problems
    with pytest.raises(Exception, match="cannot break out"):
        ports.breakout_plan([{"ports": "1/1/33", "mode": "10g-4x"}], "S5232F-ON")


def test_owned_patterns_cover_breakout_and_sub_ports_only():
    patterns = [re.compile(p) for p in ports.os10_owned_breakout_patterns(["1/1/24"])]
    owned = ["interface breakout 1/1/24 map 40g-1x", "interface ethernet1/1/24:3"]
    not_owned = [
        "interface breakout 1/1/2 map 10g-4x",
        "interface ethernet1/1/24",
        "interface vlan1",
    ]
    assert all(any(p.search(line) for p in patterns) for line in owned)
    assert not any(p.search(line) for p in patterns for line in not_owned)


def test_os10_interface_plan_carries_descriptions_vlan_and_mtu():
    plan = ports.os10_interface_plan(
        [{"ports": "1/1/21-22", "mode": "40g-1x"}],
        "S5232F-ON",
        {"ethernet1/1/22:1": "isilon-2"},
        access_vlan=1,
        port_mtu=9216,
    )
    assert plan == [
        {"name": "ethernet1/1/21:1", "description": None, "access_vlan": 1, "mtu": 9216},
        {"name": "ethernet1/1/22:1", "description": "isilon-2", "access_vlan": 1, "mtu": 9216},
    ]


def test_eos_interfaces_sort_numerically():
    names = ["Ethernet32/1", "Ethernet2/1", "Ethernet10/1", "Ethernet31/1"]
    assert ports.sort_eos_interfaces(names) == [
        "Ethernet2/1",
        "Ethernet10/1",
        "Ethernet31/1",
        "Ethernet32/1",
    ]


def test_eos_interface_plan_merges_settings_and_channel_members_with_speed_syntax():
    plan = ports.eos_interface_plan(
        [{"name": "Ethernet31/1", "speed": "100G"}, {"name": "Ethernet2/1", "mtu": 9000}],
        [{"id": 10, "members": ["Ethernet31/1", "Ethernet32/1"]}],
        "forced",
        port_mtu=9214,
    )
    assert [p["name"] for p in plan] == ["Ethernet2/1", "Ethernet31/1", "Ethernet32/1"]
    assert plan[0]["mtu"] == 9000 and plan[1]["mtu"] == 9214
    assert plan[1]["speed"] == "forced 100gfull"
    assert plan[2] == {
        "name": "Ethernet32/1",
        "description": None,
        "mtu": 9214,
        "speed": None,
        "channel_group": {"id": 10, "mode": "active"},
    }
    plain = ports.eos_interface_plan([{"name": "Ethernet1/1", "speed": "10g"}], [], "plain")
    assert plain[0]["speed"] == "10g"
    with pytest.raises(Exception, match="speed syntax 'fast' is not one of: forced, plain"):
        ports.eos_interface_plan([], [], "fast")


def test_switch_platform_gives_the_template_and_mtu_range_of_the_table():
    assert ports.switch_platform("dell_os10") == {
        "template": "dell_os10.cfg.j2",
        "device_type": "dell_os10",
        "mtu_min": 1312,
        "mtu_max": 9216,
        "variables": "switches_os10_",
    }
    with pytest.raises(Exception, match="supported: dell_os10, arista_eos"):
        ports.switch_platform("cumulus")


# ---- input checks ------------------------------------------------------------------------


def _problems(**hostvars):
    return ports.switch_input_problems(["sw-1"], {"sw-1": hostvars}, 9000)


def test_good_inputs_pass():
    assert _problems(**OS10, switches_os10_breakouts=[{"ports": "1/1/21-32", "mode": "40g-1x"}],
                     switches_os10_port_descriptions={"ethernet1/1/21:1": "isilon-1"},
                     switches_port_mtu=9216) == []  # fmt: skip
    assert _problems(**EOS, switches_eos_port_channels=[
        {"id": 10, "members": ["Ethernet31/1", "Ethernet32/1"]}]) == []  # fmt: skip


def test_unknown_platform_and_model_and_mismatch_are_named():
    assert _problems(switches_platform="junos", switches_model="S5232F-ON") == [
        "sw-1: switches_platform 'junos' is not one of: "
        "dell_os10, arista_eos, mellanox_mlnxos, cumulus_linux"
    ]
    assert _problems(switches_platform="arista_eos", switches_model="S5232F-ON") == [
        "sw-1: switches_model S5232F-ON runs dell_os10, not switches_platform arista_eos "
        "(models of arista_eos: 7060CX2-32S)"
    ]


def test_description_of_a_port_that_is_broken_out_is_refused():
    problems = _problems(
        **OS10,
        switches_os10_breakouts=[{"ports": "1/1/21", "mode": "40g-1x"}],
        switches_os10_port_descriptions={"ethernet1/1/21": "isilon-1"},
    )
    assert len(problems) == 1
    assert problems[0].startswith(
        "sw-1: switches_os10_port_descriptions: 'ethernet1/1/21' is not an interface of the "
        "S5232F-ON with its breakouts (interfaces: ethernet1/1/N (N 1-32 unless broken out)"
    )


def test_port_channel_members_must_exist_once():
    problems = _problems(**EOS, switches_eos_port_channels=[
        {"id": 10, "members": ["Ethernet31/1", "Ethernet40/1"]},
        {"id": 11, "members": ["Ethernet31/1"]}])  # fmt: skip
    assert problems[0].startswith(
        "sw-1: switches_eos_port_channels[0].members: 'Ethernet40/1' is not an interface of "
        "the 7060CX2-32S (interfaces: EthernetN/L (N 1-32, L 1-4), EthernetN (N 33-34))"
    )
    assert problems[1] == (
        "sw-1: switches_eos_port_channels[1].members: Ethernet31/1 is already in Port-Channel10"
    )


@pytest.mark.parametrize(
    ("platform", "variables", "message"),
    [
        (OS10, {"switches_port_mtu": 1500}, "sw-1: switches_port_mtu 1500 is below "
         "cluster_data_mtu 9000; frames that size would be dropped (allowed: 9000-9216)"),
        (OS10, {"switches_port_mtu": 9300}, "sw-1: switches_port_mtu 9300 is outside the "
         "dell_os10 range 1312-9216"),
        (EOS, {"switches_eos_interfaces": [{"name": "Ethernet1/1", "mtu": 9216}]},
         "sw-1: switches_eos_interfaces[0].mtu 9216 is outside the arista_eos range 68-9214"),
        (EOS, {"switches_port_mtu": "jumbo"}, "sw-1: switches_port_mtu 'jumbo' is not a whole "
         "number (arista_eos: 68-9214)"),
    ],
)  # fmt: skip
def test_port_mtus_are_checked_against_the_platform_and_the_data_mtu(platform, variables, message):
    assert message in _problems(**platform, **variables)


def test_other_platforms_knobs_are_not_checked():
    # group_vars may give every switch both platforms' knobs; each reads only its own
    eos_knob = {"switches_eos_port_channels": [{"id": 1, "members": ["Ethernet99"]}]}
    assert _problems(**OS10, **eos_knob) == []


def test_cumulus_breakout_sub_ports_count_from_zero_and_bond_members_are_checked():
    """SN3700 on Cumulus: swp31 broken out to 4x25G makes swp31s0-swp31s3 (Cumulus Linux 4.2
    user guide, "Switch Port Attributes"); a bond member that is not a port of the model is
    named."""
    host = {
        "switches_platform": "cumulus_linux",
        "switches_model": "SN3700",
        "switches_cumulus_breakouts": [{"ports": "swp31", "mode": "4x25G"}],
        "switches_cumulus_interfaces": [{"name": "swp31s3"}, {"name": "swp31"}],
        "switches_cumulus_bonds": [{"name": "bond1", "slaves": ["swp5", "swp33"]}],
    }
    problems = ports.switch_host_problems("sn-1", host)
    assert len(problems) == 2, problems
    assert problems[0].startswith("sn-1: switches_cumulus_interfaces[1].name: 'swp31' is not")
    assert problems[1].startswith("sn-1: switches_cumulus_bonds[0].slaves: 'swp33' is not")
    # the SN3700 has no native map: the message lists the maps that make sub-ports
    assert problems[1].endswith(
        "(interfaces: swpN (N 1-32 unless broken out), swpNsM once N is broken out"
        " (2x100G, 4x50G, 4x25G, 4x10G))"
    )
