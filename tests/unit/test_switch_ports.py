"""Switch port helpers (filter_plugins/switch_ports.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[2] / "filter_plugins" / "switch_ports.py"
_SPEC = importlib.util.spec_from_file_location("switch_ports", _PATH)
ports = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(ports)


def test_the_papers_range_expands_to_twelve_ports():
    assert ports.os10_ports("1/1/21-32") == [f"1/1/{n}" for n in range(21, 33)]


def test_lists_and_commas_are_accepted():
    assert ports.os10_ports(["1/1/1,1/1/3", "1/1/5-6"]) == ["1/1/1", "1/1/3", "1/1/5", "1/1/6"]


@pytest.mark.parametrize("bad", ["1/1/32-21", "ethernet1/1/1", "1/1"])
def test_bad_ranges_are_refused(bad):
    with pytest.raises(Exception, match=r"range|not an OS10 port"):
        ports.os10_ports(bad)


def test_breakout_plan_gives_sub_ports_per_mode():
    plan = ports.os10_breakout_plan(
        [{"ports": "1/1/24", "mode": "10g-4x"}, {"ports": "1/1/21", "mode": "40g-1x"}]
    )
    assert plan == [
        {"port": "1/1/21", "mode": "40g-1x", "subports": ["ethernet1/1/21:1"]},
        {
            "port": "1/1/24",
            "mode": "10g-4x",
            "subports": [f"ethernet1/1/24:{n}" for n in range(1, 5)],
        },
    ]


def test_breakout_problems_name_mode_port_and_overlap():
    problems = ports.os10_breakout_problems(
        [
            {"ports": "1/1/21-22", "mode": "40g-2x"},
            {"ports": "1/1/33", "mode": "10g-4x"},
            {"ports": "1/1/22", "mode": "40g-1x"},
        ]
    )
    assert "switch_os10_breakouts[0]: mode '40g-2x' is not one of" in problems[0]
    assert any("port 1/1/33 cannot break out" in p for p in problems)
    assert any("port 1/1/22 is also in entry 0" in p for p in problems)


def test_owned_patterns_cover_breakout_and_sub_ports_only():
    import re

    patterns = [re.compile(p) for p in ports.os10_owned_breakout_patterns(["1/1/24"])]
    owned = ["interface breakout 1/1/24 map 40g-1x", "interface ethernet1/1/24:3"]
    not_owned = [
        "interface breakout 1/1/2 map 10g-4x",
        "interface ethernet1/1/24",
        "interface vlan1",
    ]
    assert all(any(p.search(line) for p in patterns) for line in owned)
    assert not any(p.search(line) for p in patterns for line in not_owned)


def test_eos_interfaces_sort_numerically():
    names = ["Ethernet32/1", "Ethernet2/1", "Ethernet10/1", "Ethernet31/1"]
    assert ports.sort_eos_interfaces(names) == [
        "Ethernet2/1",
        "Ethernet10/1",
        "Ethernet31/1",
        "Ethernet32/1",
    ]
