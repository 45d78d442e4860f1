"""A re-run of site.yml on the converged lab changes nothing, and costs its budget.

The shared run (conftest.site_run: ansible-runner in the execution environment, as AWX
runs a job) is the Molecule scenario's idempotence check, so it runs first. Its task
executions per host are counted as the bench counts them and must equal the budget kept
in tests/budget.yml: counting tasks is deterministic, so a change that adds a task to the
no-op path, or takes one away, changes that file in the same commit, where a reviewer
sees it (docs/testing.md).
"""

from __future__ import annotations

import pytest
import yaml
from conftest import ROOT, SiteRun, assert_runner_noop, load_lab_groups, task_executions

BUDGET = ROOT / "tests" / "budget.yml"


@pytest.mark.idempotence
def test_a_rerun_of_site_yml_changes_nothing_on_any_host(site_run: SiteRun):
    assert_runner_noop(site_run.result, site_run.output)


def test_the_noop_costs_its_budget_of_task_executions_per_host(site_run: SiteRun):
    budget = yaml.safe_load(BUDGET.read_text())["noop_task_executions"]
    counted = task_executions(site_run.result.events)
    over = {host: f"{counted.get(host, 0)} (budget {limit})" for host, limit in budget.items()
            if counted.get(host, 0) > limit}  # fmt: skip
    under = {host: f"{counted.get(host, 0)} (budget {limit})" for host, limit in budget.items()
             if counted.get(host, 0) < limit}  # fmt: skip
    assert over == {}, f"the no-op grew past tests/budget.yml: {over}"
    assert under == {}, f"the no-op shrank: lower tests/budget.yml to the counts: {under}"
    assert set(counted) <= set(budget), f"hosts without a budget: {set(counted) - set(budget)}"
    assert set(budget) <= set(load_lab_groups()["all"]) | {"localhost"}, "a budget without a host"
