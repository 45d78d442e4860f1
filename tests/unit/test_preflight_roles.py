"""The early phase's role checks: the roles whose preflight entry point roles.yml runs are
the roles whose problems report.yml reports, named once in the preflight role's vars."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
PREFLIGHT = ROOT / "roles" / "preflight"


def test_report_reads_the_problems_of_every_role_roles_yml_checks():
    checked = yaml.safe_load((PREFLIGHT / "vars" / "main.yml").read_text())[
        "_preflight_checked_roles"
    ]
    imported = [
        task["ansible.builtin.import_role"]["name"]
        for task in yaml.safe_load((PREFLIGHT / "tasks" / "roles.yml").read_text())
        if task["ansible.builtin.import_role"].get("tasks_from") == "preflight.yml"
    ]
    assert imported == checked
    for role in checked:
        entry = ROOT / "roles" / role / "tasks" / "preflight.yml"
        assert f"{role}_preflight_problems" in entry.read_text(), entry
