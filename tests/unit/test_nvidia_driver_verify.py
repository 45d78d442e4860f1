"""The nvidia_driver role's proof (tasks/verify.yml, filter_plugins/nvidia_driver_verify.py):
every GPU as nvidia-smi reports it, as proof records."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location(
    "nvidia_driver_verify", ROOT / "filter_plugins" / "nvidia_driver_verify.py"
)
gpus = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(gpus)


def test_no_gpu_is_skipped_with_the_reason_never_passed():
    records = gpus.nvidia_driver_gpu_records([], "lab-compute-1", None, 0, 0)
    assert records[0]["status"] == "skipped"
    assert "no NVIDIA GPU" in records[0]["reason"]


def test_gpu_problems_are_spelled_out():
    lines = ["0, Tesla V100-SXM2-32GB, 535.216.01, Disabled, 2, 3, 16"]
    records = gpus.nvidia_driver_gpu_records(lines, "dgx1-1", 0, 8, 8)
    assert records[0]["status"] == "fail"
    assert records[0]["reason"] == "persistence mode off; 2 uncorrected ECC errors"
    assert records[1]["reason"] == "1 GPUs seen, 8 expected"


def test_healthy_gpus_pass_with_their_driver_and_link_and_the_count_matches():
    lines = [f"{i}, NVIDIA A100-SXM4-40GB, 535.216.01, Enabled, 0, 4, 16" for i in range(8)]
    records = gpus.nvidia_driver_gpu_records(lines, "dgxa100-1", 0, 8, 8)
    assert [r["status"] for r in records] == ["pass"] * 8
    assert records[0]["value"] == "driver 535.216.01, PCIe gen4 x16"
    assert records[0]["target"] == "GPU 0 NVIDIA A100-SXM4-40GB"


def test_nvidia_smi_that_failed_fails_the_record():
    (record,) = gpus.nvidia_driver_gpu_records([], "dgx1-1", 9, 0, 8)
    assert (record["target"], record["status"]) == ("nvidia-smi", "fail")


def test_validate_runs_the_proof_and_the_install_keeps_its_own_check():
    thin = yaml.safe_load((ROOT / "roles/validate/tasks/gpus.yml").read_text())
    assert thin[0]["ansible.builtin.include_role"] == {
        "name": "nvidia_driver",
        "tasks_from": "verify.yml",
        "rolespec_validate": False,
    }
    assert "nvidia_driver_verify_results" in thin[1]["ansible.builtin.set_fact"]["validate_results"]
    install = yaml.safe_load((ROOT / "roles/nvidia_driver/tasks/install.yml").read_text())
    assert {"ansible.builtin.import_tasks": "smi-check.yml"}.items() <= install[-1].items()
