"""The onefs_tiering role's short forms (filter_plugins/onefs_tiering.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import yaml

_PATH = Path(__file__).resolve().parents[2] / "filter_plugins" / "onefs_tiering.py"
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


TIERS = [
    {"name": "hot-tier", "nodepools": ["f800"]},
    {"name": "cold-tier", "nodepools": ["h500"]},
]
POLICY = {"name": "Idle", "idle_days": 30, "storagepool": "cold-tier"}
DEFAULT = {"storagepool": "hot-tier", "snapshot_storagepool": "hot-tier"}
EXPORTS = [{"path": "/ifs"}, {"path": "/ifs/data"}]


def test_a_consistent_tiering_inventory_has_no_problem():
    assert onefs.onefs_tiering_problems(TIERS, [POLICY], DEFAULT, EXPORTS) == []
    # a node pool of a declared tier is a storage pool too
    policy = {**POLICY, "storagepool": "h500"}
    assert onefs.onefs_tiering_problems(TIERS, [policy], DEFAULT, EXPORTS) == []


def test_a_policy_on_an_undeclared_pool_is_named_by_path():
    policies = [POLICY, {**POLICY, "name": "Other", "storagepool": "archive"}]
    assert onefs.onefs_tiering_problems(TIERS, policies, DEFAULT, EXPORTS) == [
        "onefs_tiering_policies[1].storagepool is 'archive', which is neither a tier nor a "
        "node pool of one (declared: cold-tier, f800, h500, hot-tier)"
    ]


def test_duplicates_and_a_node_pool_in_two_tiers_are_refused():
    tiers = [*TIERS, {"name": "warm-tier", "nodepools": ["h500"]}]
    problems = onefs.onefs_tiering_problems(tiers, [POLICY, POLICY], DEFAULT, EXPORTS)
    assert "onefs_tiering_policies: 'Idle' is named 2 times" in problems
    assert (
        "onefs_tiering_tiers: node pool 'h500' is in tiers 'cold-tier' and 'warm-tier'; a node "
        "pool can be in one tier only" in problems
    )


def test_exports_outside_ifs_or_twice_are_refused():
    exports = [
        {"path": "/data"},
        {"path": "/ifs/data"},
        {"path": "/ifs/data/"},
        {"path": "/ifs/../etc"},
    ]
    assert onefs.onefs_tiering_problems(TIERS, [POLICY], DEFAULT, exports) == [
        "onefs_tiering_exports[0].path is '/data'; an export is a directory under /ifs",
        "onefs_tiering_exports[2].path '/ifs/data/' is exported twice; OneFS has one export "
        "per path in a zone",
        "onefs_tiering_exports[3].path is '/ifs/../etc'; an export is a directory under /ifs",
    ]


def test_a_removed_policy_or_export_is_not_checked():
    gone = {**POLICY, "storagepool": "archive", "state": "absent"}
    assert (
        onefs.onefs_tiering_problems(TIERS, [gone], DEFAULT, [{"path": "/x", "state": "absent"}])
        == []
    )


# ---- the offline plan's change set ------------------------------------------------------

PLAN_TIERS = [
    {"name": "hot-tier", "nodepools": ["f800_48tb-ssd_256gb"]},
    {"name": "cold-tier", "nodepools": ["h500_60tb_3.2tb-ssd_128gb"]},
    {"name": "old-tier", "state": "absent"},
]
PLAN_POLICIES = [{"name": "Idle data to cold tier", "idle_days": 30, "storagepool": "cold-tier"}]
PLAN_DEFAULT = {"storagepool": "hot-tier", "ssd_strategy": "data"}
PLAN_EXPORTS = [{"path": "/ifs"}, {"path": "/ifs/old", "state": "absent"}]


def _recorded(idle_days: int) -> dict:
    """A cluster as onefs_info reads it: the tiers, the policy at `idle_days` (its
    pattern in the API's form: accessed_time older than so many seconds), an export, and
    a tier the inventory removes."""
    criterion = {"type": "accessed_time", "operator": ">", "use_relative_time": True,
                 "value": idle_days * 86400}  # fmt: skip
    pattern = {"or_criteria": [{"and_criteria": [criterion]}]}
    return {
        "tiers": [
            {"name": "hot-tier", "children": ["f800_48tb-ssd_256gb"]},
            {"name": "cold-tier", "children": ["h500_60tb_3.2tb-ssd_128gb"]},
            {"name": "old-tier", "children": []},
        ],
        "default_policy": {
            "actions": [
                {"action_type": "apply_data_storage_policy", "action_param": dict(PLAN_DEFAULT)}
            ]
        },
        "filepool_policies": [
            {
                "name": "Idle data to cold tier",
                "file_matching_pattern": pattern,
                "actions": [
                    {
                        "action_type": "apply_data_storage_policy",
                        "action_param": {"storagepool": "cold-tier"},
                    }
                ],
            }
        ],
        "nfs_exports": [{"id": 1, "paths": ["/ifs"]}, {"id": 2, "paths": ["/ifs/old"]}],
    }


def test_change_set_against_an_empty_cluster_creates_everything_in_apply_order():
    changes = onefs.onefs_change_set(PLAN_TIERS, PLAN_POLICIES, PLAN_DEFAULT, PLAN_EXPORTS)
    assert [(c["object"], c["name"], c["action"]) for c in changes] == [
        ("tier", "hot-tier", "create"),
        ("tier", "cold-tier", "create"),
        ("default policy", "default", "modify"),
        ("file pool policy", "Idle data to cold tier", "create"),
        ("NFS export", "/ifs", "create"),
        ("job", "SmartPools", "start"),
    ]


def test_change_set_against_the_recorded_cluster_names_only_what_differs():
    changes = onefs.onefs_change_set(
        PLAN_TIERS, PLAN_POLICIES, PLAN_DEFAULT, PLAN_EXPORTS, _recorded(45)
    )
    by_key = {(c["object"], c["name"]): c for c in changes}
    assert by_key[("tier", "hot-tier")]["action"] == "unchanged"
    assert by_key[("tier", "old-tier")]["action"] == "remove"
    assert by_key[("default policy", "default")]["action"] == "unchanged"
    policy = by_key[("file pool policy", "Idle data to cold tier")]
    assert policy["action"] == "modify"
    assert list(policy) == ["object", "name", "action", "file_matching_pattern", "was"]
    was = policy["was"]["file_matching_pattern"]["or_criteria"][0]["and_criteria"][0]
    assert was["value"] == 45 * 86400
    assert by_key[("NFS export", "/ifs/old")]["action"] == "remove"
    assert by_key[("job", "SmartPools")] == {
        "object": "job",
        "name": "SmartPools",
        "action": "start",
        "because": 2,
    }


def test_change_set_of_a_converged_cluster_starts_no_job():
    exports = [{"path": "/ifs"}]
    changes = onefs.onefs_change_set(
        PLAN_TIERS[:2], PLAN_POLICIES, PLAN_DEFAULT, exports, _recorded(30)
    )
    assert {c["action"] for c in changes} == {"unchanged"}


def test_progress_after_a_failure_names_what_was_applied_and_what_was_not():
    """Planned against the cluster before the run; the default policy got written, the
    policy write failed: the cluster read again still differs in the policy only."""
    before = _recorded(45)
    before["default_policy"] = {"actions": []}
    planned = onefs.onefs_change_set(PLAN_TIERS[:2], PLAN_POLICIES, PLAN_DEFAULT, [], before)
    after = _recorded(45)
    remaining = onefs.onefs_change_set(PLAN_TIERS[:2], PLAN_POLICIES, PLAN_DEFAULT, [], after)
    assert onefs.onefs_progress(planned, remaining) == {
        "applied": ["default policy 'default' (modify)"],
        "not_applied": [
            "file pool policy 'Idle data to cold tier' (modify)",
            "job 'SmartPools' (start)",
        ],
        "known": True,
    }


def test_progress_when_the_cluster_cannot_be_read_again_claims_nothing_applied():
    planned = onefs.onefs_change_set(PLAN_TIERS[:1], [], PLAN_DEFAULT, [])
    progress = onefs.onefs_progress(planned, None)
    assert progress["applied"] == [] and progress["known"] is False
    assert progress["not_applied"][0] == "tier 'hot-tier' (create)"


@pytest.mark.parametrize(
    ("criterion", "problem"),
    [
        ({"type": "size", "condition": "greater_than", "value": 100},
         "c: a size criterion needs size_info (size_value and size_unit)"),
        ({"type": "size", "operator": ">", "value": "100GB", "units": "GB"},
         "c.value is '100GB'; a size is a number of `units`"),
        ({"type": "size", "operator": ">", "value": 100},
         "c: a size criterion needs its units (B, KB, MB, GB, TB, PB, EB)"),
        ({"type": "accessed_time", "operator": ">", "value": "30 days", "use_relative_time": True},
         "c.value is '30 days'; it must be an age in seconds (a number)"),
        ({"type": "accessed", "condition": "is_older_than", "value": "a month"},
         "c: a time criterion needs relative_datetime_count (time_value and time_unit) or a"
         " timestamp as its value"),
    ],
)  # fmt: skip
def test_a_size_or_time_criterion_without_its_unit_is_named(criterion, problem):
    assert onefs.criterion_problems("c", criterion) == [problem]


@pytest.mark.parametrize(
    "criterion",
    [
        {"type": "size", "condition": "greater_than",
         "size_info": {"size_value": 1, "size_unit": "GB"}},
        {"type": "size", "operator": ">", "value": 1073741824, "units": "B"},
        {"type": "accessed", "condition": "is_older_than",
         "relative_datetime_count": {"time_value": 30, "time_unit": "days"}},
        {"type": "accessed_time", "operator": ">", "value": 2592000, "use_relative_time": True},
        {"type": "file_path", "condition": "matches", "value": "/ifs/scratch"},
    ],
)  # fmt: skip
def test_criteria_with_their_units_pass(criterion):
    assert onefs.criterion_problems("c", criterion) == []


def test_the_policies_criteria_are_checked_with_the_rest():
    policies = [
        {
            "name": "big",
            "storagepool": "t",
            "file_matching_pattern": {
                "or_criteria": [{"and_criteria": [{"type": "size", "operator": ">", "value": 5}]}]
            },
        }
    ]
    problems = onefs.onefs_tiering_problems([{"name": "t", "nodepools": ["p"]}], policies, {}, [])
    assert problems == [
        "onefs_tiering_policies[0].file_matching_pattern.or_criteria[0].and_criteria[0]: a size"
        " criterion needs its units (B, KB, MB, GB, TB, PB, EB)"
    ]  # fmt: skip


# ---- what the role writes after its one read ----------------------------------------------

ACCESS_TIME = {"enabled": True, "precision_days": 1}


def _cluster() -> dict:
    """_recorded(30) with what the apply modules also compare: the access-time setting,
    the actions' SSD strategies and the export's fields, as the API holds them."""
    cluster = _recorded(30)
    cluster["access_time"] = {"enabled": True, "precision": 86400}
    for action in cluster["filepool_policies"][0]["actions"]:
        action["action_param"]["ssd_strategy"] = "metadata"
    cluster["nfs_exports"] = [
        {"id": 1, "paths": ["/ifs"], "read_only": False,
         "map_root": {"enabled": True, "user": {"id": "USER:nobody"}}},
    ]  # fmt: skip
    return cluster


EXPORT = {"path": "/ifs", "read_only": False, "map_root_user": "nobody"}


def _writes(cluster: dict, **change: object) -> dict:
    inputs = {"access_time": ACCESS_TIME, "tiers": PLAN_TIERS[:2], "default_policy": PLAN_DEFAULT,
              "policies": PLAN_POLICIES, "exports": [EXPORT], **change}  # fmt: skip
    return onefs.onefs_writes(cluster, **inputs)


def test_a_converged_cluster_needs_no_write():
    assert _writes(_cluster()) == {
        "access_time": None, "tiers": [], "default_policy": None, "policies": [], "exports": [],
    }  # fmt: skip


def test_only_what_differs_is_written_with_the_modules_parameters():
    cluster = _cluster()
    cluster["filepool_policies"][0]["actions"][0]["action_param"]["ssd_strategy"] = "data"
    cluster["nfs_exports"][0]["read_only"] = True
    cluster["tiers"][1]["children"] = []
    writes = _writes(cluster, policies=[{**PLAN_POLICIES[0], "idle_days": 30}])
    assert writes["policies"] == [{
        "policy_name": "Idle data to cold tier",
        "file_matching_pattern": onefs.onefs_policy_pattern({"idle_days": 30}),
        "apply_data_storage_policy": {"storagepool": "cold-tier", "ssd_strategy": "metadata"},
        "state": "present",
    }]  # fmt: skip
    assert writes["exports"] == [{"path": "/ifs", "read_only": False,
                                  "map_root": {"enabled": True, "user": "nobody"},
                                  "state": "present"}]  # fmt: skip
    assert writes["tiers"] == [{"tier_name": "cold-tier", "state": "present",
                                "nodepools": ["h500_60tb_3.2tb-ssd_128gb"]}]  # fmt: skip
    assert writes["access_time"] is None and writes["default_policy"] is None


def test_strings_from_the_command_line_are_compared_as_the_modules_read_them():
    """`-e` gives "false" and "no": the modules' bool options read them as False."""
    cluster = _cluster()
    assert _writes(cluster, exports=[{**EXPORT, "read_only": "no"}])["exports"] == []
    off = _writes(cluster, access_time={"enabled": "false", "precision_days": "1"})
    assert off["access_time"] == {"enabled": "false", "precision_days": "1"}


def test_objects_to_create_or_remove_are_written_and_a_bad_input_reaches_its_module():
    cluster = _cluster()
    writes = _writes(
        cluster,
        tiers=[*PLAN_TIERS[:2], {"name": "old-tier", "state": "absent"},
               {"name": "gone-tier", "state": "absent"}],
        policies=[{"name": "New", "idle_days": 7, "storagepool": "hot-tier"},
                  {"name": "Idle data to cold tier", "state": "absent"}],
        exports=[EXPORT, {"path": "/ifs/new"}, {"path": "/ifs/none", "state": "absent"}],
        access_time={"enabled": "maybe", "precision_days": 1},
    )  # fmt: skip
    assert [t["tier_name"] for t in writes["tiers"]] == ["old-tier"]
    assert [(p["policy_name"], p["state"]) for p in writes["policies"]] == [
        ("New", "present"), ("Idle data to cold tier", "absent")]  # fmt: skip
    assert [e["path"] for e in writes["exports"]] == ["/ifs/new"]
    assert writes["access_time"] == {"enabled": "maybe", "precision_days": 1}


# ---- the plan: the one desired state main.yml and render.yml read ------------------------

_DEFAULTS = yaml.safe_load((_PATH.parents[1] / "roles/onefs_tiering/defaults/main.yml").read_text())


def _settings(**change: object) -> dict:
    return {"access_time": ACCESS_TIME, "tiers": PLAN_TIERS, "default_policy": PLAN_DEFAULT,
            "policies": PLAN_POLICIES, "exports": PLAN_EXPORTS, **change}  # fmt: skip


def test_the_plan_holds_the_inventory_normalized():
    plan = onefs.onefs_tiering_plan(
        _settings(
            access_time={"enabled": "no", "precision_days": "3"},
            default_policy={**PLAN_DEFAULT, "enable_coalescer": "true",
                            "data_access_pattern": None},
            policies=[{**PLAN_POLICIES[0], "apply_order": "2", "description": None},
                      {"name": "Old", "idle_days": 7, "state": "absent"}],
        )
    )  # fmt: skip
    assert plan == {
        "access_time": {"enabled": False, "precision_days": 3},
        "tiers": [
            {"name": "hot-tier", "nodepools": ["f800_48tb-ssd_256gb"], "state": "present"},
            {"name": "cold-tier", "nodepools": ["h500_60tb_3.2tb-ssd_128gb"], "state": "present"},
            {"name": "old-tier", "state": "absent"},
        ],
        "nodepools": ["f800_48tb-ssd_256gb", "h500_60tb_3.2tb-ssd_128gb"],
        "default_policy": {"storagepool": "hot-tier", "ssd_strategy": "data",
                           "enable_coalescer": True},
        "policies": [
            {"name": "Idle data to cold tier", "apply_order": 2, "storagepool": "cold-tier",
             "ssd_strategy": "metadata", "state": "present",
             "file_matching_pattern": onefs.onefs_policy_pattern({"idle_days": 30})},
            {"name": "Old", "file_matching_pattern": onefs.onefs_policy_pattern({"idle_days": 7}),
             "state": "absent"},
        ],
        "exports": [{"path": "/ifs", "state": "present"},
                    {"path": "/ifs/old", "state": "absent"}],
    }  # fmt: skip


def _explicit_pattern_policy() -> dict:
    criterion = {"type": "size", "operator": ">", "value": 5, "units": "GB"}
    return {"name": "Big", "apply_order": 2, "storagepool": "cold-tier",
            "snapshot_storagepool": "cold-tier", "snapshot_ssd_strategy": "avoid",
            "file_matching_pattern": {"or_criteria": [{"and_criteria": [criterion]}]}}  # fmt: skip


_INVENTORIES = {
    "the role's defaults": {
        "tiers": _DEFAULTS["onefs_tiering_tiers"],
        "default_policy": _DEFAULTS["onefs_tiering_default_policy"],
        "policies": _DEFAULTS["onefs_tiering_policies"],
        "exports": _DEFAULTS["onefs_tiering_exports"],
    },
    "removals and strings from -e": {
        "tiers": [*PLAN_TIERS, {"name": "bare"}],
        "policies": [{**PLAN_POLICIES[0], "idle_days": "14"}, _explicit_pattern_policy(),
                     {"name": "Gone", "state": "absent"}],
        "default_policy": {**PLAN_DEFAULT, "enable_coalescer": "false"},
        "exports": [{**EXPORT, "read_only": "no"}, {"path": "/ifs/old", "state": "absent"},
                    {"path": "/ifs/new", "clients": ["10.0.0.0/24"], "description": None}],
    },
}  # fmt: skip


@pytest.mark.parametrize("inventory", sorted(_INVENTORIES))
@pytest.mark.parametrize("cluster", ["empty", "recorded", "converged", "edited"])
def test_the_plan_is_written_and_rendered_as_the_inventory_it_comes_from(inventory, cluster):
    """main.yml's onefs_writes and render.yml's onefs_change_set, given the plan, decide
    what they decided from the inventory's own short forms, on any cluster."""
    recorded = {"empty": {}, "recorded": _recorded(30), "converged": _cluster(),
                "edited": _recorded(14)}[cluster]  # fmt: skip
    inputs = {**_settings(), **_INVENTORIES[inventory]}
    plan = onefs.onefs_tiering_plan(inputs)
    assert onefs.onefs_change_set(
        plan["tiers"], plan["policies"], plan["default_policy"], plan["exports"], recorded
    ) == onefs.onefs_change_set(
        inputs["tiers"], inputs["policies"], inputs["default_policy"], inputs["exports"], recorded
    )
    assert onefs.onefs_writes(
        recorded, plan["access_time"], plan["tiers"], plan["default_policy"], plan["policies"],
        plan["exports"],
    ) == onefs.onefs_writes(
        recorded, ACCESS_TIME, inputs["tiers"], inputs["default_policy"], inputs["policies"],
        inputs["exports"],
    )  # fmt: skip


def test_the_tiers_node_pools_are_those_of_every_tier_kept_once_each():
    tiers = [{"name": "a", "nodepools": ["p1", "p2"]}, {"name": "b", "nodepools": ["p2"],
             "state": "present"}, {"name": "c", "nodepools": ["p3"], "state": "absent"},
             {"name": "d"}, "not a tier"]  # fmt: skip
    assert onefs.onefs_tier_nodepools(tiers) == ["p1", "p2"]
    assert onefs.onefs_tier_nodepools(None) == []


@pytest.mark.parametrize(
    ("change", "refused"),
    [
        ({"tiers": [PLAN_TIERS[0], {"nodepools": ["x"]}]}, r"onefs_tiering_tiers\[1\] is .*name"),
        ({"policies": "Idle"}, r"onefs_tiering_policies is 'Idle'; it must be a list"),
        ({"exports": [{"path": ""}]}, r"onefs_tiering_exports\[0\] is .*path"),
        ({"default_policy": ["hot-tier"]}, r"onefs_tiering_default_policy is \['hot-tier'\]"),
        ({"policies": [{**PLAN_POLICIES[0], "idle_days": 0}]}, r"policy 'Idle data to cold tier'"),
    ],
)
def test_a_plan_that_cannot_be_made_is_refused_by_name(change, refused):
    with pytest.raises(Exception, match=refused):
        onefs.onefs_tiering_plan(_settings(**change))
