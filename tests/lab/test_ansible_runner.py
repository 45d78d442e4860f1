"""site.yml through ansible-runner, the way AWX / Automation Platform run a project."""

from __future__ import annotations

from conftest import SiteRun, assert_runner_noop


def test_site_converges_through_ansible_runner_with_nothing_to_change(site_run: SiteRun):
    # the shared run of conftest.site_run: ansible-runner from this checkout, no container
    assert site_run.command[0].endswith("ansible-playbook")
    assert_runner_noop(site_run.result, site_run.output)
