"""site.yml through ansible-runner, the way AWX / Automation Platform run a project."""

from __future__ import annotations

import os

import ansible_runner
from conftest import ROOT


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
    assert result.status == "successful", result.stdout.read()[-3000:]
    assert result.rc == 0
    stats = result.stats
    assert sum(stats["changed"].values()) == 0, stats["changed"]
    assert not stats["failures"] and not stats["dark"]
    assert set(stats["ok"]) >= {
        "lab-compute-1",
        "lab-compute-2",
        "lab-isilon-1",
        "lab-s5232",
        "lab-7060",
    }
