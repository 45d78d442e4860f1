"""No secret value in a -vvv run of site.yml, nor in any file that run writes."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import ROOT, SiteRun, docker_host, lab_password

STATE = ROOT / "lab" / ".state"


def _written_files(site_run: SiteRun) -> list[Path]:
    """Reports, switch backups, the fact cache and the run's own artifacts (every event
    with its arguments and results): what a run leaves on the control host."""
    places = [STATE / "reports", STATE / "backups", ROOT / ".cache" / "facts"]
    places.append(site_run.artifact_dir)
    return [p for place in places if place.exists() for p in place.rglob("*") if p.is_file()]


def test_a_verbose_run_and_its_files_never_show_a_secret(site_run: SiteRun):
    secrets = {name: lab_password(name) for name in ("onefs", "switch", "registry")}
    # the cluster's munge key, which the slurm role makes on the head node
    secrets["munge"] = docker_host("lab-head").check_output("cat /etc/munge/munge.key")
    assert all(len(value) >= 16 for value in secrets.values())
    # the shared run of conftest.site_run, at -vvv: every task's arguments are printed,
    # the OneFS and switch ones too
    assert "-vvv" in site_run.command
    output = re.sub(r"\x1b\[[0-9;]*m", "", site_run.output)  # ansible-runner keeps colour
    assert "lab-s5232" in output and "filepool" in output
    assert re.search(r'module_args"?:', output)  # the results as YAML, or as runner's JSON
    assert "Write the cluster's munge key" in output  # its tasks ran, never showing it
    for name, value in secrets.items():
        assert value not in output, f"the {name} password appears in the -vvv output"
    files = _written_files(site_run)
    assert any(p.suffix == ".cfg" for p in files)  # switch backups exist to be checked
    assert any(p.parent.name == "job_events" for p in files)  # and the run's events
    for path in files:
        text = path.read_text(errors="replace")
        for name, value in secrets.items():
            assert value not in text, f"the {name} password appears in {path}"
