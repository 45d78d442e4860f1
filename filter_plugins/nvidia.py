"""NVIDIA driver helpers for the nvidia_driver role: repository URLs and nvidia-smi checks.

Pure functions so the parsing and the messages are unit-tested without a GPU.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def nvidia_repo_url(template: str, facts: Mapping[str, Any]) -> str:
    """Fill {distro} and {arch} of a CUDA repository URL from the host's facts.

    NVIDIA names its repositories ubuntu2204, debian12, rhel9 ... and uses sbsa for
    64-bit Arm servers (DGX GH200, Grace) instead of aarch64.
    """
    distribution = str(facts.get("distribution", "")).lower()
    if facts.get("os_family") == "RedHat":
        distro = f"rhel{facts.get('distribution_major_version', '')}"
    elif distribution == "debian":
        distro = f"debian{facts.get('distribution_major_version', '')}"
    else:
        distro = distribution + str(facts.get("distribution_version", "")).replace(".", "")
    arch = "sbsa" if facts.get("architecture") == "aarch64" else str(facts.get("architecture", ""))
    url = template.replace("{distro}", distro).replace("{arch}", arch)
    return url if url.endswith("/") else url + "/"


def nvidia_smi_problems(
    lines: Sequence[str], branch: str, expected_gpus: int = 0, persistence: bool = True
) -> list[str]:
    """What is wrong with `nvidia-smi --query-gpu=driver_version,persistence_mode` output.

    Each problem says what was seen and what was wanted, so the failure needs no digging.
    """
    rows = [[field.strip() for field in line.split(",")] for line in lines if line.strip()]
    problems = []
    if not rows:
        return ["nvidia-smi lists no GPU"]
    versions = sorted({row[0] for row in rows})
    wrong = [v for v in versions if v.split(".")[0] != str(branch)]
    if wrong:
        problems.append(f"driver {', '.join(wrong)} is not branch {branch} (nvidia_driver_branch)")
    if expected_gpus and len(rows) != int(expected_gpus):
        problems.append(
            f"{len(rows)} GPU(s) seen, {expected_gpus} expected (nvidia_driver_expected_gpus)"
        )
    if persistence:
        off = [str(i) for i, row in enumerate(rows) if len(row) < 2 or row[1] != "Enabled"]
        if off:
            problems.append(f"persistence mode is off on GPU {', '.join(off)}")
    return problems


def hosts_without_gpus(hosts: Sequence[str], hostvars: Mapping[str, Any]) -> list[str]:
    """The hosts on which no NVIDIA GPU was found (fact `nvidia_gpu_pci_addresses` empty).

    The fact comes from the `cluster_host` module, which the cluster_host role runs on every
    server; a host it has not scanned in this run (no `cluster_host_read`: outside --limit,
    unreachable) is not listed, whatever the fact cache remembers of an earlier run.
    """
    found = [
        str(host)
        for host in hosts
        if hostvars[host].get("cluster_host_read") is not None
        and isinstance(
            (hostvars[host].get("ansible_facts") or {}).get("nvidia_gpu_pci_addresses"), list
        )
    ]
    return [
        host for host in found if not hostvars[host]["ansible_facts"]["nvidia_gpu_pci_addresses"]
    ]


class FilterModule:
    """NVIDIA driver helpers."""

    def filters(self) -> dict[str, Any]:
        return {
            "nvidia_repo_url": nvidia_repo_url,
            "nvidia_smi_problems": nvidia_smi_problems,
            "hosts_without_gpus": hosts_without_gpus,
        }
