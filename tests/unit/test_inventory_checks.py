"""Cross-host inventory checks (filter_plugins/inventory_checks.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_PATH = Path(__file__).resolve().parents[2] / "filter_plugins" / "inventory_checks.py"
_SPEC = importlib.util.spec_from_file_location("inventory_checks", _PATH)
checks = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(checks)


def test_distinct_addresses_raise_no_problem():
    assert checks.data_address_problems(["a", "b"], ["10.0.0.1", "10.0.0.2"]) == []


def test_shared_address_names_both_hosts():
    problems = checks.data_address_problems(
        ["dss8440-1", "isilon-1", "isilon-2"], ["172.16.1.11", "172.16.1.11", "172.16.1.12"]
    )
    assert problems == [
        "cluster_data_address 172.16.1.11 is used by more than one host: dss8440-1, isilon-1"
    ]


def test_missing_and_malformed_addresses_are_named():
    problems = checks.data_address_problems(["a", "b", "c"], [None, "", "172.16.1.300"])
    assert problems == [
        "a: cluster_data_address is not set",
        "b: cluster_data_address is not set",
        "c: cluster_data_address '172.16.1.300' is not an IP address",
    ]


def test_mtu_within_range_passes():
    assert checks.mtu_problems(9000, 1280, 9216) == []
    assert checks.mtu_problems("1500", 1280, 9216) == []


def test_mtu_out_of_range_names_value_and_range():
    assert checks.mtu_problems(10000, 1280, 9216) == ["cluster_data_mtu 10000 is outside 1280-9216"]


def test_mtu_that_is_not_a_whole_number_is_refused():
    assert checks.mtu_problems("9000.5", 1280, 9216) == [
        "cluster_data_mtu '9000.5' is not a whole number"
    ]
    assert checks.mtu_problems(None, 1280, 9216) == ["cluster_data_mtu None is not a whole number"]
    assert checks.mtu_problems(True, 1280, 9216) == ["cluster_data_mtu True is not a whole number"]


def test_empty_required_group_is_named():
    groups = {"compute": ["dgx1-1"], "isilon": []}
    assert checks.missing_group_problems(groups, ["compute", "isilon", "switches"]) == [
        "inventory group 'isilon' has no hosts",
        "inventory group 'switches' has no hosts",
    ]
