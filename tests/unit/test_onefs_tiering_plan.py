"""The onefs_tiering role's plan (tasks/plan.yml): made once on the control host from the
Isilon hosts' variables, published on each of them, and read there by the role's
consumers (render.yml here; main.yml reads the same fact), which do not work it out
again. The filter that makes it is tested in test_onefs_filters.py."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import yaml
from playbook import local_host, run_playbook

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location(
    "onefs_filters", ROOT / "filter_plugins" / "onefs_tiering.py"
)
onefs = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(onefs)

TIERS = [
    {"name": "fast", "nodepools": ["f800_pool"]},
    {"name": "slow", "nodepools": ["h500_pool"], "state": "present"},
    {"name": "retired", "state": "absent"},
]
POLICY = {"name": "Idle to slow", "idle_days": "14", "storagepool": "slow"}
DEFAULT = {"storagepool": "fast", "ssd_strategy": "data", "snapshot_storagepool": "fast",
           "snapshot_ssd_strategy": "data"}  # fmt: skip


def test_the_control_host_plans_what_the_isilon_hosts_read(tmp_path):
    """The plan is made on the control host from the isilon group's variables (not the
    control host's own, nor the role's defaults), `-e` strings converted, published on
    every Isilon host; render.yml's change set is that plan's, not one worked out from
    the play's own view of the variables."""
    inventory = tmp_path / "inventory.json"
    isilon_vars = {
        "onefs_tiering_tiers": TIERS,
        "onefs_tiering_policies": [POLICY],
        "onefs_tiering_default_policy": DEFAULT,
        "onefs_tiering_exports": [{"path": "/ifs/data", "read_only": "yes"}],
        "onefs_tiering_access_time_precision_days": 2,
    }
    control_vars = {"onefs_tiering_tiers": [], "onefs_tiering_policies": []}
    inventory.write_text(json.dumps({"all": {"children": {
        "isilon": {"hosts": {"isilon-1": local_host(), "isilon-2": local_host()},
                   "vars": isilon_vars},
        "control": {"hosts": {"localhost": local_host(**control_vars)}},
    }}}))  # fmt: skip
    result = run_playbook(
        inventory,
        ROOT / "tests" / "unit" / "playbooks" / "onefs_tiering_plan.yml",
        {"out": str(tmp_path), "onefs_tiering_access_time_enabled": "false"},
    )
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
    plans = {h: json.loads((tmp_path / f"{h}.json").read_text()) for h in ("isilon-1", "isilon-2")}
    plan = plans["isilon-1"]
    assert plans["isilon-2"] == plan
    assert plan == onefs.onefs_tiering_plan({
        "access_time": {"enabled": False, "precision_days": 2}, "tiers": TIERS,
        "default_policy": DEFAULT, "policies": [POLICY],
        "exports": [{"path": "/ifs/data", "read_only": "yes"}],
    })  # fmt: skip
    assert plan["access_time"] == {"enabled": False, "precision_days": 2}
    assert plan["nodepools"] == ["f800_pool", "h500_pool"]
    assert plan["exports"] == [{"path": "/ifs/data", "read_only": True, "state": "present"}]
    change_set = yaml.safe_load((tmp_path / "change-set.yml").read_text())
    assert change_set == {
        "access_time": plan["access_time"],
        "changes": onefs.onefs_change_set(
            plan["tiers"], plan["policies"], plan["default_policy"], plan["exports"]
        ),
    }
    assert [(c["object"], c["name"]) for c in change_set["changes"]][:2] == [
        ("tier", "fast"), ("tier", "slow")]  # fmt: skip
