"""The nics role's proof (tasks/verify.yml): the data network's full-MTU echo and its
throughput (iperf3, iperf 2), as proof records the validate role's report reads
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


def nics_ping_record(
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


def nics_iperf_record(
    result: Mapping[str, Any], host: str, minimum_gbps: float, target: str | None = None
) -> dict[str, Any]:
    target = target or str(result.get("item", "?"))
    try:
        data = json.loads(result.get("stdout") or "{}")
        bits = data["end"]["sum_received"]["bits_per_second"]
    except (ValueError, KeyError, TypeError):
        bits = None
    return _throughput_record("iperf3", "iperf3", result, host, target, bits, minimum_gbps)


def _throughput_record(
    check: str,
    tool: str,
    result: Mapping[str, Any],
    host: str,
    target: str,
    bits: float | None,
    minimum_gbps: float,
) -> dict[str, Any]:
    """A Gbit/s record against the threshold, or a failure with what the tool said."""
    if bits is None:
        reason = (result.get("stderr") or result.get("stdout") or "no output").strip()[-200:]
        return _record(check, host, target, status="fail", reason=f"{tool} failed: {reason}")
    gbps = round(bits / 1e9, 2)
    return _record(
        check,
        host,
        target,
        value=gbps,
        unit="Gbit/s",
        threshold=_plain(minimum_gbps),
        status="pass" if gbps >= minimum_gbps else "fail",
    )


def nics_iperf2_record(
    result: Mapping[str, Any], host: str, minimum_gbps: float, target: str | None = None
) -> dict[str, Any]:
    """iperf 2 with `-y C` (CSV): one line per stream,
    `time,src,sport,dst,dport,id,interval,bytes,bits_per_second`, and a line with id -1
    summing them when there are several (some versions print none: then the streams are
    added). iperf 2 exits 0 even when it cannot connect, so no line means it failed."""
    target = target or str(result.get("item", "?"))
    streams, total = [], None
    for line in (result.get("stdout") or "").splitlines():
        fields = line.strip().split(",")
        if len(fields) < 9:
            continue
        try:
            bits = float(fields[8])
        except ValueError:
            continue
        if fields[5].strip() == "-1":
            total = bits
        else:
            streams.append(bits)
    if total is None and streams:
        total = sum(streams)
    if result.get("rc", 0) != 0:
        total = None
    return _throughput_record("iperf2", "iperf 2", result, host, target, total, minimum_gbps)


class FilterModule:
    """The nics role's proof."""

    def filters(self) -> dict[str, Any]:
        return {
            "nics_ping_record": nics_ping_record,
            "nics_iperf_record": nics_iperf_record,
            "nics_iperf2_record": nics_iperf2_record,
        }
