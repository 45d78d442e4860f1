"""site.yml inside the execution environment, the way AWX / Automation Platform run a job.

`make ee` builds the image (execution-environment.yml, cached by Docker: a second build
takes seconds). The job then runs as AWX runs it: ansible-runner with process isolation
starts the image with a private data directory at /runner, the project copied into
/runner/project and the inventory into /runner/inventory (where AWX writes the inventory
it imported from the project). The lab's keys, passwords and known_hosts come in through
a mount at run time, as AWX credentials would. tests/lab/test_ansible_runner.py is the
same run without the container.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import ansible_runner
import pytest
import yaml
from conftest import ROOT, assert_runner_noop

EE_IMAGE = os.environ.get("DLCLUSTER_EE_IMAGE", "dlcluster-ee:latest")
# Where the lab's state is mounted in the job container (AWX: credentials, injected).
STATE_IN_EE = "/runner/lab-state"
# What an AWX project checkout does not carry: VCS data, local tools, caches, secrets.
NOT_IN_PROJECT = shutil.ignore_patterns(
    ".git", ".venv", ".cache", ".state", ".secrets", "__pycache__", ".*_cache"
)


@pytest.fixture(scope="module")
def ee_image() -> str:
    """The execution environment, built by `make ee` exactly as a user builds it."""
    build = subprocess.run(
        ["make", "--no-print-directory", "ee", f"EE_IMAGE={EE_IMAGE}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert build.returncode == 0, (build.stdout + build.stderr)[-4000:]
    return EE_IMAGE


def test_build_context_holds_no_lab_secret(ee_image):
    context = ROOT / ".cache" / "ee-context"
    secrets = [p.read_text().strip() for p in (ROOT / "lab" / ".state" / "secrets").iterdir()]
    private_key = (ROOT / "lab" / ".state" / "ssh" / "id_ed25519").read_text()
    secrets = [s for s in secrets if len(s) >= 8] + [private_key.splitlines()[1]]
    assert secrets, "the lab's secrets were not found: is the lab up?"
    for path in context.rglob("*"):
        if path.is_file():
            text = path.read_text(errors="replace")
            assert not any(secret in text for secret in secrets), path


def test_image_carries_the_collections_of_requirements_yml(ee_image):
    listing = subprocess.run(
        [
            "docker",
            "run",
            "--rm",
            ee_image,
            "ansible-galaxy",
            "collection",
            "list",
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    installed: dict[str, str] = {}
    for collections in json.loads(listing.stdout).values():
        for name, info in collections.items():
            installed.setdefault(name, info["version"])
    wanted = yaml.safe_load((ROOT / "requirements.yml").read_text())["collections"]
    assert {c["name"]: installed.get(c["name"]) for c in wanted} == {
        c["name"]: c["version"] for c in wanted
    }


def test_site_converges_inside_the_execution_environment(ee_image, tmp_path: Path):
    private_data_dir = tmp_path / "job"
    shutil.copytree(ROOT, private_data_dir / "project", ignore=NOT_IN_PROJECT, symlinks=True)
    shutil.copytree(ROOT / "inventories" / "lab", private_data_dir / "inventory")
    result = ansible_runner.run(
        private_data_dir=str(private_data_dir),
        playbook="site.yml",
        envvars={
            # AWX runs the project's ansible.cfg; the lab finds its state where it is mounted
            "ANSIBLE_CONFIG": "/runner/project/ansible.cfg",
            "DLCLUSTER_LAB_STATE": STATE_IN_EE,
        },
        process_isolation=True,
        process_isolation_executable="docker",
        container_image=ee_image,
        container_volume_mounts=[f"{ROOT / 'lab' / '.state'}:{STATE_IN_EE}"],
        # the lab's devices listen on 127.0.0.1 of this machine
        container_options=["--network=host"],
        quiet=True,
    )
    assert_runner_noop(result, result.stdout.read())
    # Proof that the play ran in the container, from the project copy at /runner/project,
    # and not from this checkout with this machine's Ansible.
    task_paths = {
        event["event_data"]["task_path"].rsplit(":", 1)[0]
        for event in result.events
        if event.get("event") == "runner_on_ok" and event["event_data"].get("task_path")
    }
    assert task_paths
    assert all(path.startswith("/runner/project/") for path in task_paths), sorted(task_paths)[:5]
    command = json.loads((Path(result.config.artifact_dir) / "command").read_text())
    assert command["command"][:2] == ["docker", "run"] and ee_image in command["command"]
