"""The nvidia_driver role's proof (tasks/verify.yml): every GPU as nvidia-smi reports it,
as proof records the validate role's report reads (roles/validate/README.md, "Proof
records"). Pure functions, unit-tested without a GPU.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _record(check: str, host: str, target: str, **fields: Any) -> dict[str, Any]:
    return {
        "check": check,
        "host": host,
        "target": target,
        "value": None,
        "unit": "",
        "threshold": None,
        "status": "info",
        "reason": "",
        **fields,
    }


def nvidia_driver_gpu_records(
    lines: Sequence[str], host: str, rc: int | None, expected: int, found: int
) -> list[dict[str, Any]]:
    """One record per GPU from `nvidia-smi --query-gpu=index,name,driver_version,
    persistence_mode,ecc.errors.uncorrected.volatile.total,pcie.link.gen.current,
    pcie.link.width.current --format=csv,noheader` (persistence off and uncorrected ECC
    errors fail), and one for the count when `expected` is set and differs; a host
    without a GPU (`found` 0) is skipped with the reason, never passed."""
    if found == 0:
        return [
            _record(
                "gpus",
                host,
                "GPUs",
                status="skipped",
                reason="no NVIDIA GPU (PCI vendor 0x10de) on this host",
            )
        ]
    if rc != 0:
        return [_record("gpus", host, "nvidia-smi", status="fail",
                        reason="nvidia-smi failed: is the driver loaded?")]  # fmt: skip
    records = []
    for line in lines:
        index, name, driver, persistence, ecc, gen, width = [f.strip() for f in line.split(",")]
        problems = []
        if persistence != "Enabled":
            problems.append("persistence mode off")
        if ecc not in ("0", "[N/A]", "N/A"):
            problems.append(f"{ecc} uncorrected ECC errors")
        records.append(
            _record(
                "gpus",
                host,
                f"GPU {index} {name}",
                value=f"driver {driver}, PCIe gen{gen} x{width}",
                status="fail" if problems else "pass",
                reason="; ".join(problems),
            )
        )
    if expected and len(lines) != expected:
        records.append(
            _record(
                "gpus",
                host,
                "GPU count",
                value=len(lines),
                threshold=expected,
                status="fail",
                reason=f"{len(lines)} GPUs seen, {expected} expected",
            )
        )
    return records


class FilterModule:
    """The nvidia_driver role's proof."""

    def filters(self) -> dict[str, Any]:
        return {"nvidia_driver_gpu_records": nvidia_driver_gpu_records}
