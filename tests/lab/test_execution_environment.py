"""site.yml inside the execution environment, the way AWX / Automation Platform run a job.

`make ee` builds the image (execution-environment.yml, cached by Docker: a second build
takes seconds). The lab suite's shared no-op run (conftest.site_run) is such a job:
ansible-runner with process isolation starts the image with a private data directory at
/runner, the project copied into /runner/project and the inventory into /runner/inventory
(where AWX writes the inventory it imported from the project). The lab's keys, passwords
and known_hosts come in through a mount at run time, as AWX credentials would.
tests/lab/test_noop.py checks that it changes nothing.
"""

from __future__ import annotations

import json
import subprocess

import yaml
from conftest import ROOT, SiteRun, load_lab_groups


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


def test_the_shared_run_ran_inside_the_execution_environment(ee_image, site_run: SiteRun):
    # Proof that the play ran in the container, from the project copy at /runner/project,
    # and not from this checkout with this machine's Ansible.
    task_paths = {
        event["event_data"]["task_path"].rsplit(":", 1)[0]
        for event in site_run.result.events
        if event.get("event") == "runner_on_ok" and event["event_data"].get("task_path")
    }
    assert task_paths
    assert all(path.startswith("/runner/project/") for path in task_paths), sorted(task_paths)[:5]
    assert site_run.command[:2] == ["docker", "run"] and ee_image in site_run.command
    # the job found the converge's facts in its fact cache, as AWX's fact cache gives them
    cached = {
        path.name.split("_", 1)[-1] for path in (site_run.artifact_dir / "fact_cache").iterdir()
    }
    assert set(load_lab_groups()["compute"]) <= cached, sorted(cached)
