"""The slurm role's proof (tasks/verify.yml, filter_plugins/slurm_verify.py): the nodes as
slurmctld sees them and a one-GPU test job on each, as proof records."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location(
    "slurm_verify", ROOT / "filter_plugins" / "slurm_verify.py"
)
slurm = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(slurm)


SINFO = "\n".join(
    [
        "node01|hipri*|idle|gpu:4|none",
        "node01|sxm2|idle|gpu:4|none",
        "node02|hipri*|mixed|gpu:4(S:0-1)|none",
        "node03|hipri*|drained|gpu:4|dlcluster-health: 3 of 4 GPU device files",
        "node04|hipri*|idle|gpu:2|none",
    ]
)


def _job(*lines: str, rc: int = 0) -> dict:
    return {"rc": rc, "stdout_lines": list(lines), "stderr": "" if rc == 0 else "srun: error: x"}


def test_slurm_nodes_pass_when_they_take_jobs_with_all_their_gpus():
    expected = {"node01": 4, "node02": 4, "node03": 4, "node04": 4, "node05": 4}
    job = _job("node01 0", "node02 0", "node04 0")
    records = slurm.slurm_verify_records({"rc": 0, "stdout": SINFO}, job, expected, "head")
    by_host = {r["host"]: r for r in records if r["host"] != "head"}
    assert by_host["node01"]["status"] == "pass"
    assert by_host["node01"]["target"] == "partitions hipri*, sxm2"
    assert by_host["node02"]["status"] == "pass" and by_host["node02"]["value"] == 4
    assert by_host["node03"]["status"] == "fail"
    # the reason it is drained for, as its health check (or an admin) gave it
    assert (
        by_host["node03"]["reason"] == "state drained (dlcluster-health: 3 of 4 GPU device files)"
    )
    assert by_host["node04"]["reason"] == "2 GPUs as gres, the node has 4"
    assert by_host["node05"]["reason"] == "not known to slurmctld"
    test_job = next(r for r in records if r["host"] == "head")
    assert test_job["status"] == "pass" and test_job["value"] == 3 and test_job["threshold"] == 3


def test_a_slurm_test_job_without_a_gpu_on_a_node_fails():
    job = _job("node01 0", "node02 -", "node04 0")
    records = slurm.slurm_verify_records({"rc": 0, "stdout": SINFO}, job, {}, "head")
    test_job = records[-1]
    assert test_job["status"] == "fail" and "node02" in test_job["reason"]


def test_slurm_is_skipped_without_a_head_node_and_fails_when_slurmctld_does_not_answer():
    skipped = slurm.slurm_verify_records({"skipped": True}, {"skipped": True}, {}, "")
    assert [r["status"] for r in skipped] == ["skipped"]
    down = slurm.slurm_verify_records(
        {"rc": 1, "stderr": "slurm_load_partitions: Unable to contact slurm controller"},
        {"skipped": True},
        {},
        "head",
    )
    assert down[0]["status"] == "fail" and "Unable to contact" in down[0]["reason"]


def test_the_slurm_test_job_goes_to_the_nodes_that_take_jobs():
    assert slurm.slurm_ready_nodes(SINFO) == ["node01", "node02", "node04"]
    assert slurm.slurm_ready_nodes("node09|hipri*|idle*|gpu:4\n") == []


def test_validate_runs_the_proof_and_adds_apptainer_from_its_published_facts():
    thin = yaml.safe_load((ROOT / "roles/validate/tasks/slurm.yml").read_text())
    assert thin[0]["ansible.builtin.include_role"] == {
        "name": "slurm",
        "tasks_from": "verify.yml",
        "rolespec_validate": False,
    }
    record = thin[1]["ansible.builtin.set_fact"]["validate_results"]
    assert "slurm_verify_results" in record and "validate_apptainer_result" in record
    verify = yaml.safe_load((ROOT / "roles/slurm/tasks/verify.yml").read_text())
    assert {task["delegate_to"] for task in verify[:2]} == {"{{ slurm_controller_host }}"}
