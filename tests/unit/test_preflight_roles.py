"""The early phase's role checks: the roles whose preflight entry point roles.yml runs are
the roles whose problems report.yml reports, named once in the preflight role's vars."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
PREFLIGHT = ROOT / "roles" / "preflight"


def test_report_reads_the_problems_of_every_role_roles_yml_checks():
    """roles.yml includes the entry points of the list report.yml reads, and each entry
    point publishes its role's problems; every role with a preflight entry point is on
    the list."""
    checked = yaml.safe_load((PREFLIGHT / "vars" / "main.yml").read_text())[
        "_preflight_checked_roles"
    ]
    (include,) = yaml.safe_load((PREFLIGHT / "tasks" / "roles.yml").read_text())
    call = include["ansible.builtin.include_role"]
    assert call["tasks_from"] == "preflight.yml"
    assert call["name"] == "{{ " + include["loop_control"]["loop_var"] + " }}"
    selected = "{{ _preflight_checked_roles | select('in', preflight_roles)"
    assert include["loop"].strip().startswith(selected)
    for role in checked:
        entry = ROOT / "roles" / role / "tasks" / "preflight.yml"
        assert f"{role}_preflight_problems" in entry.read_text(), entry
    with_entry = {p.parts[-3] for p in (ROOT / "roles").glob("*/tasks/preflight.yml")}
    assert with_entry - {"preflight"} <= set(checked)


def _early_plans() -> list[dict]:
    """The early phase's plan tasks (playbooks/preflight.yml's plan play)."""
    plays = yaml.safe_load((ROOT / "playbooks" / "preflight.yml").read_text())
    (play,) = [p for p in plays if p["name"] == "Plan every layer from the inventory"]
    return play["tasks"]


def test_every_role_with_a_plan_entry_point_is_planned_once_by_the_early_phase():
    """Each role's tasks/plan.yml that needs the inventory alone is run by the plan play,
    by name (not by a variable-name pattern), tagged with `plan` and at least one layer;
    the plan play has no tags of its own, so `always` does not pull every plan into a
    run of one layer (the fabrics' and the mount plan have their own plays)."""
    plays = yaml.safe_load((ROOT / "playbooks" / "preflight.yml").read_text())
    (play,) = [p for p in plays if p["name"] == "Plan every layer from the inventory"]
    assert "tags" not in play
    planned = [task["ansible.builtin.import_role"]["name"] for task in _early_plans()]
    with_plan = sorted(p.parts[-3] for p in (ROOT / "roles").glob("*/tasks/plan.yml"))
    elsewhere = {"isilon_mounts", "storage_fabric", "ib_fabric"}
    assert sorted(planned) == sorted(set(with_plan) - elsewhere)
    for task in _early_plans():
        assert task["ansible.builtin.import_role"]["tasks_from"] == "plan.yml"
        assert "plan" in task["tags"] and len(task["tags"]) > 1, task["name"]
        role = task["ansible.builtin.import_role"]["name"]
        readme = (ROOT / "roles" / role / "README.md").read_text()
        assert f"{role}_plan" in readme, f"roles/{role}/README.md does not document {role}_plan"


def test_a_run_of_one_layer_makes_only_the_plans_it_reads():
    """`site.yml --tags onefs` (the tier change) plans OneFS only; an untagged run plans
    every layer."""
    env = {**os.environ, "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"), "ANSIBLE_NOCOLOR": "1"}

    def listing(*args: str) -> str:
        result = subprocess.run(
            [
                str(Path(sys.executable).parent / "ansible-playbook"),
                "-i",
                "inventories/lab",
                "site.yml",
                "--list-tasks",
                *args,
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        return result.stdout.split("play #2 (localhost): Plan every layer", 1)[1].split("play #3")[
            0
        ]

    roles = [task["ansible.builtin.import_role"]["name"] for task in _early_plans()]
    everything, onefs = listing(), listing("--tags", "onefs")
    assert [r for r in roles if f"{r} : Plan" in everything] == roles
    assert [r for r in roles if f"{r} : Plan" in onefs] == ["onefs_tiering"]
