"""NVIDIA driver helpers (filter_plugins/nvidia.py): repository URLs and nvidia-smi checks."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[2] / "filter_plugins" / "nvidia.py"
_SPEC = importlib.util.spec_from_file_location("nvidia", _PATH)
nvidia = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(nvidia)

CUDA = "https://developer.download.nvidia.com/compute/cuda/repos/{distro}/{arch}/"
# A DGX-1 has eight V100s: nvidia-smi --query-gpu=driver_version,persistence_mode
DGX1_SMI = ["535.216.01, Enabled"] * 8


@pytest.mark.parametrize(
    ("facts", "path"),
    [
        (
            {"distribution": "Ubuntu", "distribution_version": "22.04", "architecture": "x86_64"},
            "ubuntu2204/x86_64/",
        ),
        (
            {
                "distribution": "RedHat",
                "os_family": "RedHat",
                "distribution_major_version": "9",
                "architecture": "x86_64",
            },
            "rhel9/x86_64/",
        ),
        (
            {
                "distribution": "Debian",
                "distribution_major_version": "12",
                "architecture": "x86_64",
            },
            "debian12/x86_64/",
        ),
        (
            {"distribution": "Ubuntu", "distribution_version": "22.04", "architecture": "aarch64"},
            "ubuntu2204/sbsa/",
        ),
    ],
)
def test_cuda_repository_url_follows_nvidias_names(facts, path):
    assert nvidia.nvidia_repo_url(CUDA, facts).endswith("/repos/" + path)


def test_mirror_url_gets_a_trailing_slash():
    url = nvidia.nvidia_repo_url(
        "http://mirror.local/cuda/{distro}/{arch}",
        {"distribution": "Ubuntu", "distribution_version": "20.04", "architecture": "x86_64"},
    )
    assert url == "http://mirror.local/cuda/ubuntu2004/x86_64/"


def test_matching_dgx1_output_has_no_problem():
    assert nvidia.nvidia_smi_problems(DGX1_SMI, "535", 8) == []


def test_wrong_branch_count_and_persistence_are_all_spelled_out():
    lines = ["550.54.15, Enabled", "550.54.15, Disabled"]
    assert nvidia.nvidia_smi_problems(lines, "535", 8) == [
        "driver 550.54.15 is not branch 535 (nvidia_driver_branch)",
        "2 GPU(s) seen, 8 expected (nvidia_driver_expected_gpus)",
        "persistence mode is off on GPU 1",
    ]


def test_persistence_is_not_required_when_switched_off():
    assert nvidia.nvidia_smi_problems(["535.1.2, Disabled"], "535", 0, False) == []


def test_no_gpu_listed_is_a_problem():
    assert nvidia.nvidia_smi_problems([], "535") == ["nvidia-smi lists no GPU"]


def test_hosts_without_gpus_are_those_scanned_with_none_found():
    read = {"cluster_host_read": {"rc": 0}}  # the cluster_host role's read, this run
    hostvars = {
        "a": {**read, "ansible_facts": {"nvidia_gpu_pci_addresses": []}},
        "b": {**read, "ansible_facts": {"nvidia_gpu_pci_addresses": ["0000:3b:00.0"]}},
        "c": {**read, "ansible_facts": {}},
        "d": {},
        # no GPU in the fact cache from an earlier run, but not read in this one
        "e": {"ansible_facts": {"nvidia_gpu_pci_addresses": []}},
    }
    assert nvidia.hosts_without_gpus(["a", "b", "c", "d", "e"], hostvars) == ["a"]
