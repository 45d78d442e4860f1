"""The isilon_mounts role's proof (tasks/verify.yml, filter_plugins/isilon_mounts_verify.py):
the papers' fio job and the storage-only reader as proof records."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location(
    "isilon_mounts_verify", ROOT / "filter_plugins" / "isilon_mounts_verify.py"
)
storage = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(storage)

FIO = {"jobs": [{"read": {"bw_bytes": 83_000_000}}, {"read": {"bw_bytes": 83_000_000}}]}


def test_fio_sums_the_jobs_and_says_when_it_read_locally():
    result = storage.isilon_mounts_fio_record(
        {"stdout": json.dumps(FIO)}, "gpu-1", 100, "/var/tmp/f", True
    )
    assert result["value"] == 166.0 and result["status"] == "pass"
    assert "local directory" in result["reason"]


def test_reader_reports_each_mount_and_errors_as_failures():
    out = {
        "method": "libnfs",
        "mounts": [
            {
                "mount": "/mnt/isilon1",
                "address": "10.0.0.1",
                "files": 16,
                "bytes": 67108864,
                "seconds": 0.5,
                "mbps": 134.2,
            },
            {"mount": "/mnt/isilon2", "address": "10.0.0.2", "error": "nfs-ls failed"},
        ],
    }
    records = storage.isilon_mounts_reader_records({"stdout": json.dumps(out)}, "gpu-1", 100)
    assert [r["status"] for r in records] == ["pass", "fail"]
    assert records[0]["target"] == "/mnt/isilon1 (10.0.0.1)"


def test_fio_that_printed_no_json_fails_with_what_it_said():
    record = storage.isilon_mounts_fio_record(
        {"stdout": "", "stderr": "fio: pid=0, err=2/file:filesetup.c"}, "gpu-1", 50, "/mnt/x", False
    )
    assert record["status"] == "fail" and "filesetup.c" in record["reason"]
    note = storage.isilon_mounts_fio_record(
        {"stdout": json.dumps(FIO)}, "gpu-1", 500, "/mnt/x", False
    )
    assert (note["status"], note["threshold"]) == ("fail", 500)
    assert note["reason"] == "read /mnt/x through the Isilon mount"


def test_validate_runs_the_proof_and_reports_its_records():
    thin = yaml.safe_load((ROOT / "roles/validate/tasks/storage.yml").read_text())
    assert thin[0]["ansible.builtin.include_role"] == {
        "name": "isilon_mounts",
        "tasks_from": "verify.yml",
        "rolespec_validate": False,  # the early phase checked its variables
    }
    assert "isilon_mounts_verify_results" in thin[1]["ansible.builtin.set_fact"]["validate_results"]
    verify = yaml.safe_load((ROOT / "roles/isilon_mounts/tasks/verify.yml").read_text())
    # alone (no early phase), the proof plans the mounts itself, from its own role
    assert verify[0]["ansible.builtin.include_tasks"] == "plan.yml"
    job = (ROOT / "roles/isilon_mounts/templates/fio1.job.j2").read_text()
    assert "numjobs={{ isilon_mounts_verify_fio_numjobs }}" in job
    assert "validate_" not in job
