"""Turn the validate role's raw measurements into result records for its report.

Every record: {check, host, target, value, unit, threshold, status, reason}; status is
pass, fail, skipped (with the reason) or info. Pure functions, unit-tested.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
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


def validate_ping_result(
    result: Mapping[str, Any], host: str, hostvars: Mapping[str, Any], mtu: int
) -> dict[str, Any]:
    peer = result["item"]
    address = hostvars[peer]["cluster_data_address"]
    ok = result.get("rc") == 0
    return _record(
        "mtu",
        host,
        f"{peer} ({address})",
        value=mtu if ok else 0,
        unit="bytes unfragmented",
        threshold=mtu,
        status="pass" if ok else "fail",
        reason="" if ok else (result.get("stdout", "") + result.get("stderr", "")).strip()[-200:],
    )


def validate_gpu_results(
    lines: Sequence[str], host: str, rc: int | None, expected: int, found: int
) -> list[dict[str, Any]]:
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


def validate_iperf_result(
    result: Mapping[str, Any], host: str, minimum_gbps: float, target: str | None = None
) -> dict[str, Any]:
    target = target or str(result.get("item", "?"))
    try:
        data = json.loads(result.get("stdout") or "{}")
        bits = data["end"]["sum_received"]["bits_per_second"]
    except (ValueError, KeyError, TypeError):
        reason = (result.get("stderr") or result.get("stdout") or "no output").strip()[-200:]
        return _record("iperf3", host, target, status="fail", reason=f"iperf3 failed: {reason}")
    gbps = round(bits / 1e9, 2)
    return _record(
        "iperf3",
        host,
        target,
        value=gbps,
        unit="Gbit/s",
        threshold=minimum_gbps,
        status="pass" if gbps >= minimum_gbps else "fail",
    )


def validate_fio_result(
    result: Mapping[str, Any], host: str, minimum_mbps: float, directory: str, local: bool
) -> dict[str, Any]:
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
        threshold=minimum_mbps,
        status="pass" if mbps >= minimum_mbps else "fail",
        reason=note,
    )


def validate_reader_results(
    result: Mapping[str, Any], host: str, minimum_mbps: float
) -> list[dict[str, Any]]:
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
                threshold=minimum_mbps,
                status="pass" if mount["mbps"] >= minimum_mbps else "fail",
                reason=f"{mount['bytes']} bytes in {mount['files']} files via {data['method']}",
                mount=mount["mount"],
                address=mount["address"],
            )
        )
    return records


def validate_sizing_result(sizing: Mapping[str, Any], host: str) -> dict[str, Any]:
    nodes = ", ".join(
        f"{model}: {n['exact']} ({n['minimum']} nodes)" for model, n in sizing["nodes"].items()
    )
    return _record(
        "sizing",
        host,
        sizing["description"],
        value=sizing["required_mbps"],
        unit="MB/s needed",
        status="info",
        reason=f"{sizing['gpus']} GPUs x {sizing['mbps_per_gpu']} MB/s; {nodes}",
    )


def validate_storage_outages(records: Sequence[Mapping[str, Any]]) -> list[str]:
    """One sentence per Isilon address that failed to serve a reader, naming every host
    and mount point planned on it and how to plan around it (a slow read is not an
    outage: it has a value and fails on its threshold instead)."""
    outages: dict[str, list[str]] = {}
    for record in records:
        if record.get("check") != "reader" or record.get("status") != "fail":
            continue
        if record.get("value") is not None or not record.get("address"):
            continue
        outages.setdefault(record["address"], []).append(f"{record['host']} ({record['mount']})")
    return [
        f"Isilon address {address} did not serve the export to {', '.join(sorted(mounts))}; "
        "to plan around it until it is repaired, re-run playbooks/storage.yml --tags mounts "
        f"with isilon_mounts_unavailable_addresses including {address}"
        for address, mounts in sorted(outages.items())
    ]


def validate_summary(record: Mapping[str, Any]) -> dict[str, Any]:
    value = f"{record['value']} {record['unit']}".strip() if record.get("value") is not None else ""
    limit = f" (threshold {record['threshold']})" if record.get("threshold") is not None else ""
    reason = f": {record['reason']}" if record.get("reason") else ""
    summary = f"{record['check']} {record['host']} -> {record['target']} {value}{limit}{reason}"
    return {**record, "summary": summary}


class FilterModule:
    """Result records of the validate role."""

    def filters(self) -> dict[str, Any]:
        return {
            "validate_ping_result": validate_ping_result,
            "validate_gpu_results": validate_gpu_results,
            "validate_iperf_result": validate_iperf_result,
            "validate_fio_result": validate_fio_result,
            "validate_reader_results": validate_reader_results,
            "validate_sizing_result": validate_sizing_result,
            "validate_summary": validate_summary,
            "validate_storage_outages": validate_storage_outages,
        }
