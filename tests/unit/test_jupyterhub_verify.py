"""The jupyterhub role's proof (tasks/verify.yml, filter_plugins/jupyterhub_verify.py): the
browser's steps and the session's Slurm job as proof records, and their screenshots in
the validate role's report."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location(
    "jupyterhub_verify", ROOT / "filter_plugins" / "jupyterhub_verify.py"
)
portal = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(portal)


PORTAL_JOB = (
    "JobId=41 JobName=spawner-jupyterhub UserId=alice(5001) GroupId=dlusers(5000) "
    "JobState=CANCELLED Reason=None Dependency=(null) TimeLimit=08:00:00 Partition=sxm2 "
    "NodeList=lab-compute-2 BatchHost=lab-compute-2 NumNodes=1 NumCPUs=16 NumTasks=1 "
    "CPUs/Task=16 TRES=cpu=16,mem=96G,node=1,billing=16 MinMemoryNode=96G "
    "TresPerNode=gres:gpu:2"
)
PORTAL_EXPECTED = {
    "gpus": 2,
    "cpus_per_gpu": 8,
    "memory_per_gpu_gb": 48,
    "time_limit": "8:00:00",
    "nodes": ["lab-compute-1", "lab-compute-2"],
}
PORTAL_CHECK = {
    "ok": True,
    "steps": [
        {"name": "login", "ok": True, "seconds": 1.2, "screenshot": "01-login.png", "detail": ""},
        {"name": "stop", "ok": True, "seconds": 3.0, "screenshot": "08-stopped.png", "detail": ""},
    ],
    "server": {"hostname": "lab-compute-2", "slurm_job_id": "41"},
    "error": None,
}


def test_a_portal_session_passes_when_its_job_matches_the_form():
    records = portal.jupyterhub_portal_records(
        {"rc": 0, "stdout": json.dumps(PORTAL_CHECK)},
        {"rc": 0, "stdout": PORTAL_JOB},
        PORTAL_EXPECTED,
        "alice",
        "portal",
    )
    assert [r["target"] for r in records] == ["login", "stop", "Slurm job 41"]
    assert all(r["status"] == "pass" for r in records), records
    assert records[0]["screenshot"] == "portal/01-login.png"
    assert records[2]["host"] == "lab-compute-2"


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"TresPerNode": "gres:gpu:1"}, "gres/gpu 1, asked 2"),
        ({"TresPerNode": "gres/gpu:tesla:3"}, "gres/gpu 3, asked 2"),
        ({"TresPerNode": "", "TRES": "cpu=16,mem=96G,node=1"}, "gres/gpu none, asked 2"),
        ({"NumCPUs": "1"}, "CPUs 1, asked 16"),
        ({"TRES": "cpu=16,mem=4G,node=1"}, "memory 4G, asked 96G"),
        ({"TimeLimit": "01:00:00"}, "time limit 01:00:00, asked 08:00:00"),
        ({"NumNodes": "2"}, "nodes 2, asked 1"),
        ({"NodeList": "lab-head"}, "ran on lab-head, not a GPU server"),
        ({"JobState": "RUNNING"}, "still RUNNING after Stop My Server"),
    ],
)
def test_a_portal_job_unlike_the_form_fails_and_says_how(change, problem):
    fields = {**portal._slurm_fields(PORTAL_JOB), **change}
    assert portal.jupyterhub_portal_job_problems(fields, PORTAL_EXPECTED) == [problem]


def test_slurm_time_limits_read_as_scontrol_prints_them():
    assert portal._slurm_time("8:00:00") == "08:00:00"
    assert portal._slurm_time("90") == "90:00:00"
    assert portal._slurm_time("1-2:30") == "1-02:30:00"


def test_a_portal_check_that_failed_or_was_skipped_says_why():
    skipped = portal.jupyterhub_portal_records(
        {"skipped": True, "skip_reason": "no browser on the control host: /usr/bin/chromium"},
        {},
        PORTAL_EXPECTED,
        "alice",
        "portal",
    )
    assert [(r["status"], r["reason"]) for r in skipped] == [
        ("skipped", "no browser on the control host: /usr/bin/chromium")
    ]
    broken = portal.jupyterhub_portal_records(
        {"rc": 1, "stdout": "", "stderr": "Traceback: ModuleNotFoundError: selenium"},
        {},
        PORTAL_EXPECTED,
        "alice",
        "portal",
    )
    assert broken[0]["status"] == "fail" and "selenium" in broken[0]["reason"]
    failed_step = {
        **PORTAL_CHECK,
        "ok": False,
        "steps": [
            {"name": "login", "ok": False, "seconds": 9, "screenshot": None, "detail": "403"}
        ],
        "server": {},
        "error": "login: still on /hub/login",
    }
    records = portal.jupyterhub_portal_records(
        {"rc": 0, "stdout": json.dumps(failed_step)}, {}, PORTAL_EXPECTED, "alice", "portal"
    )
    assert [(r["target"], r["status"]) for r in records] == [
        ("login", "fail"),
        ("browser", "fail"),
        ("Slurm job", "fail"),
    ]
    assert records[0]["screenshot"] is None


def test_the_report_links_a_screenshot_under_it_relative_to_itself(tmp_path):
    shots = tmp_path / "portal"
    shots.mkdir()
    (shots / "01-login.png").write_bytes(b"\x89PNG")
    records = portal.jupyterhub_portal_records(
        {"rc": 0, "stdout": json.dumps(PORTAL_CHECK)},
        {"rc": 0, "stdout": PORTAL_JOB},
        PORTAL_EXPECTED,
        "alice",
        str(shots),
    )
    assert records[0]["screenshot"] == f"{shots}/01-login.png"
    source = tmp_path / "results.json"
    source.write_text(json.dumps({"cluster": "lab", "results": records}))
    script = ROOT / "roles/validate/files/validate_report.py"
    subprocess.run([sys.executable, str(script), str(source), str(tmp_path)], check=True)
    report = (tmp_path / "report.md").read_text()
    assert "(portal/01-login.png)" in report and str(tmp_path) not in report


def test_validate_runs_the_proof_with_its_screenshots_next_to_the_report():
    thin = yaml.safe_load((ROOT / "roles/validate/tasks/portal.yml").read_text())
    assert thin[0]["ansible.builtin.include_role"] == {
        "name": "jupyterhub",
        "tasks_from": "verify.yml",
        "rolespec_validate": False,
    }
    assert thin[0]["vars"] == {
        "jupyterhub_verify_screenshot_dir": "{{ validate_report_dir }}/portal"
    }
    assert "jupyterhub_verify_results" in thin[1]["ansible.builtin.set_fact"]["validate_results"]
    verify = (ROOT / "roles/jupyterhub/tasks/verify.yml").read_text()
    assert "files/portal_check.py" in verify and "validate_" not in verify
