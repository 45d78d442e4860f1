"""The isilon_mounts role's proof (tasks/verify.yml): the papers' fio job and the
storage-only reader, as proof records the validate role's report reads
(roles/validate/README.md, "Proof records"). Pure functions, unit-tested.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
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


def _plain(number: float) -> float | int:
    """A threshold as the inventory wrote it: 50, not the 50.0 the role's `| float` gave."""
    number = float(number)
    return int(number) if number.is_integer() else number


def isilon_mounts_fio_record(
    result: Mapping[str, Any], host: str, minimum_mbps: float, directory: str, local: bool
) -> dict[str, Any]:
    """The fio job's total read rate (every job's bw_bytes) against the threshold, saying
    where it read, or a failure with what fio said."""
    note = (
        f"read {directory}, a local directory: this host has no kernel NFS client"
        if local
        else f"read {directory} through the Isilon mount"
    )
    stdout = result.get("stdout") or "{}"
    try:
        # fio prints notes ("note: both iodepth >= 1 and ...") before its JSON
        data = json.loads(stdout[stdout.find("{") :])
        total = sum(job["read"]["bw_bytes"] for job in data["jobs"])
    except (ValueError, KeyError, TypeError):
        reason = (result.get("stderr") or "no output").strip()[-200:]
        return _record("fio", host, directory, status="fail", reason=f"fio failed: {reason}")
    mbps = round(total / 1e6, 1)
    return _record(
        "fio",
        host,
        directory,
        value=mbps,
        unit="MB/s",
        threshold=_plain(minimum_mbps),
        status="pass" if mbps >= minimum_mbps else "fail",
        reason=note,
    )


def isilon_mounts_reader_records(
    result: Mapping[str, Any], host: str, minimum_mbps: float
) -> list[dict[str, Any]]:
    """One record per data mount from files/storage_reader.py's result (MB/s against the
    threshold, or the mount's error as a failure naming its address)."""
    # the script's progress lines share stdout with its result (ssh allocates a tty):
    # the result is the last line
    lines = [line for line in (result.get("stdout") or "").splitlines() if line.strip()]
    try:
        data = json.loads(lines[-1] if lines else "{}")
        mounts = data["mounts"]
    except (ValueError, KeyError, TypeError):
        reason = (result.get("stdout") or result.get("msg") or "no output").strip()[-200:]
        return [_record("reader", host, "data mounts", status="fail", reason=reason)]
    records = []
    for mount in mounts:
        if mount.get("error"):
            records.append(
                _record(
                    "reader",
                    host,
                    f"{mount['mount']} ({mount['address']})",
                    status="fail",
                    reason=mount["error"],
                    mount=mount["mount"],
                    address=mount["address"],
                )
            )
            continue
        records.append(
            _record(
                "reader",
                host,
                f"{mount['mount']} ({mount['address']})",
                value=mount["mbps"],
                unit="MB/s",
                threshold=_plain(minimum_mbps),
                status="pass" if mount["mbps"] >= minimum_mbps else "fail",
                reason=f"{mount['bytes']} bytes in {mount['files']} files via {data['method']}",
                mount=mount["mount"],
                address=mount["address"],
            )
        )
    return records


class FilterModule:
    """The isilon_mounts role's proof."""

    def filters(self) -> dict[str, Any]:
        return {
            "isilon_mounts_fio_record": isilon_mounts_fio_record,
            "isilon_mounts_reader_records": isilon_mounts_reader_records,
        }
