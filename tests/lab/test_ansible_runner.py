"""site.yml through ansible-runner, the way AWX / Automation Platform run a project."""

from __future__ import annotations

import os

import ansible_runner
from conftest import ROOT, assert_runner_noop


def test_site_converges_through_ansible_runner_with_nothing_to_change(tmp_path):
    result = ansible_runner.run(
        private_data_dir=str(tmp_path),
        project_dir=str(ROOT),
        playbook="site.yml",
        inventory=str(ROOT / "inventories" / "lab"),
        envvars={
            # AWX projects use the project's ansible.cfg; the lab finds its state here
            "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"),
            "DLCLUSTER_LAB_STATE": str(ROOT / "lab" / ".state"),
            "PATH": os.environ["PATH"],
        },
        quiet=True,
    )
    assert_runner_noop(result, result.stdout.read())
