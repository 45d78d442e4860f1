"""The onefs_tiering role's short forms (filter_plugins/onefs.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[2] / "filter_plugins" / "onefs.py"
_SPEC = importlib.util.spec_from_file_location("onefs_filters", _PATH)
onefs = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(onefs)


def test_idle_days_become_one_access_time_criterion():
    assert onefs.onefs_policy_pattern({"name": "cold", "idle_days": 30}) == {
        "or_criteria": [
            {
                "and_criteria": [
                    {
                        "type": "accessed",
                        "condition": "is_older_than",
                        "relative_datetime_count": {"time_value": 30, "time_unit": "days"},
                    }
                ]
            }
        ]
    }


def test_idle_days_given_as_a_string_from_the_command_line_are_converted():
    pattern = onefs.onefs_policy_pattern({"name": "cold", "idle_days": "7"})
    assert (
        pattern["or_criteria"][0]["and_criteria"][0]["relative_datetime_count"]["time_value"] == 7
    )


def test_an_explicit_pattern_wins_and_is_passed_as_given():
    explicit = {"or_criteria": [{"and_criteria": [{"type": "size", "operator": ">", "value": 1}]}]}
    assert (
        onefs.onefs_policy_pattern({"idle_days": 30, "file_matching_pattern": explicit}) == explicit
    )


def test_neither_gives_no_pattern():
    assert onefs.onefs_policy_pattern({"name": "x", "state": "absent"}) is None


@pytest.mark.parametrize("days", [0, -3, "thirty", True, 1.5])
def test_idle_days_that_are_not_whole_positive_days_are_refused_by_name(days):
    with pytest.raises(Exception, match=r"policy 'cold' has idle_days"):
        onefs.onefs_policy_pattern({"name": "cold", "idle_days": days})
