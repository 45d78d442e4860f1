"""Turn the validate role's raw measurements into result records for its report.

Every record: {check, host, target, value, unit, threshold, status, reason}; status is
pass, fail, skipped (with the reason) or info. Pure functions, unit-tested.
"""

from __future__ import annotations

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


def validate_benchmark_result(
    launch: Mapping[str, Any],
    host: str,
    run: int,
    runs: int,
    minimum: float,
    reference: Mapping[str, Any] | None,
    flushes: Mapping[str, Any],
) -> dict[str, Any]:
    """One run of the papers' training launch (ngc_container_launch_result), next to the
    paper's figure. `flushes`: {'servers': {host: {'rc', 'stderr'}} or None when
    turned off, 'isilon': {'rc', 'stderr', 'stdout'} or None when turned off,
    'required': bool}. A run whose caches could not be flushed fails when flushes are
    required: it would measure caches, not the storage the paper measured."""
    servers = launch.get("servers") or []
    target = f"run {run} of {runs}: {launch.get('ranks', '?')} ranks on {len(servers)} server(s)"
    notes: list[str] = []
    if launch.get("stand_in"):
        notes.append(str(launch["stand_in"]))
    if reference and reference.get("images_per_sec"):
        notes.append(
            f"paper: {float(reference['images_per_sec']):,.0f} images/s"
            + (f" ({reference['source']})" if reference.get("source") else "")
        )
    problems: list[str] = []
    server_flushes = flushes.get("servers")
    if server_flushes is None:
        notes.append("server caches not flushed (validate_benchmark_flush_servers is false)")
    else:
        failed = {h: f or {} for h, f in server_flushes.items() if (f or {}).get("rc") != 0}
        if failed:
            why = "; ".join(
                f"{h}: {(f.get('stderr') or 'rc ' + str(f.get('rc'))).strip()[-120:]}"
                for h, f in sorted(failed.items())
            )
            problems.append(f"server caches not flushed ({why})")
        else:
            notes.append("server caches flushed (drop_caches)")
    isilon = flushes.get("isilon")
    if isilon is None:
        notes.append("Isilon caches not flushed (validate_benchmark_flush_isilon is false)")
    elif isilon.get("rc") != 0:
        why = (isilon.get("stderr") or isilon.get("stdout") or f"rc {isilon.get('rc')}").strip()
        problems.append(f"Isilon caches not flushed ({why[-160:]})")
    else:
        notes.append("Isilon caches flushed (isi_for_array isi_flush)")
    if not launch.get("ran"):
        return _record(
            "benchmark", host, target, status="skipped", reason="not launched in check mode"
        )
    rate = launch.get("images_per_sec")
    if int(launch.get("rc", -1)) != 0:
        stopped = " (stopped by the launch timeout)" if int(launch.get("rc", -1)) == 124 else ""
        tail = " / ".join(str(launch.get("output_tail") or "").splitlines()[-3:])
        return _record(
            "benchmark",
            host,
            target,
            status="fail",
            reason=f"the launch exited {launch.get('rc')}{stopped}: {tail}"[-400:],
        )
    if rate is None:
        return _record(
            "benchmark",
            host,
            target,
            status="fail",
            reason="the launch printed no 'total images/sec' line",
        )
    failed_flush = bool(problems) and bool(flushes.get("required", True))
    status = "pass" if rate >= float(minimum) and not failed_flush else "fail"
    if problems and not failed_flush:
        notes += [p + ", not required" for p in problems]
    elif problems:
        notes = problems + notes
    return _record(
        "benchmark",
        host,
        target,
        value=float(rate),
        unit="images/s",
        threshold=minimum,
        status=status,
        reason="; ".join(notes),
    )


def validate_benchmark_series(
    answers: Sequence[Mapping[str, Any]], host: str, url: str, missing: str = ""
) -> list[dict[str, Any]]:
    """One record per series of validate_benchmark_series (the registered loop of
    Prometheus' /api/v1/query_range answers): `series` maps each instance to its
    [[unix time, value], ...] over the runs' window, for the report's figure; a series
    Prometheus could not give is skipped with the reason (no URL: none at all, `missing`
    saying why)."""
    if not url:
        why = missing or "no monitoring host"
        return [
            _record("benchmark_series", host, "servers during the benchmark", status="skipped",
                    reason=f"no Prometheus to ask: {why}")
        ]  # fmt: skip
    records = []
    for answer in answers:
        item = answer.get("item") or {}
        body = answer.get("json") or {}
        result = (body.get("data") or {}).get("result") if body.get("status") == "success" else None
        fields = {"unit": item.get("unit", ""), "name": item.get("name", "")}
        if result is None:
            why = body.get("error") or answer.get("msg") or f"HTTP {answer.get('status')}"
            records.append(
                _record("benchmark_series", host, item.get("title", ""), status="skipped",
                        reason=f"Prometheus did not answer {item.get('expr')!r}: {why}", **fields)
            )  # fmt: skip
            continue
        series = {
            str(s.get("metric", {}).get("instance", "")): [
                [int(float(t)), round(float(v), 3)] for t, v in s.get("values") or []
            ]
            for s in result
        }
        reason = f"{len(series)} series over the runs" if series else "no series in the window"
        records.append(
            _record("benchmark_series", host, item.get("title", ""), reason=reason,
                    series=series, **fields)
        )  # fmt: skip
    return records


def validate_inter_switch_hosts(switches: Sequence[str], hostvars: Mapping[str, Any]) -> list[str]:
    """The switches of the inventory that name inter-switch ports (switches_inter_switch_ports)."""
    return [h for h in switches if hostvars[h].get("switches_inter_switch_ports") or []]


def validate_inter_switch_counters(
    before: Sequence[Mapping[str, Any]],
    after: Sequence[Mapping[str, Any]],
    hostvars: Mapping[str, Any],
    maximum: float,
) -> list[dict[str, Any]]:
    """One record per inter-switch port: the packets that crossed it between the reads
    before and after the benchmark's runs (the registered loops of switch_command's
    counters, one item per switch), in and out together. A maximum of 0 records without
    judging; a switch that could not be read, or counters that went back (cleared during
    the runs), fail: the paper's check was asked for and not made."""
    read_before = {str(r.get("item")): r for r in before}
    records = []
    for answer in after:
        switch = str(answer.get("item"))
        first = read_before.get(switch) or {}
        ports = hostvars[switch].get("switches_inter_switch_ports") or []
        for port in ports:
            earlier = (first.get("counters") or {}).get(port)
            later = (answer.get("counters") or {}).get(port)
            if earlier is None or later is None:
                # failed_when: false leaves `failed` false: a failed read is known by its msg
                why = first.get("msg") or answer.get("msg") or "no counters read"
                records.append(
                    _record("inter_switch", switch, port, status="fail",
                            reason=f"counters not read: {why}")
                )  # fmt: skip
                continue
            moved = {
                way: later[f"{way}_packets"] - earlier[f"{way}_packets"] for way in ("in", "out")
            }
            if min(moved.values()) < 0:
                records.append(
                    _record("inter_switch", switch, port, status="fail",
                            reason="the counters went back during the runs (cleared?): "
                            f"before {earlier}, after {later}")
                )  # fmt: skip
                continue
            total = moved["in"] + moved["out"]
            judged = maximum > 0
            records.append(
                _record(
                    "inter_switch", switch, port, value=total, unit="packets during the runs",
                    threshold=maximum if judged else None,
                    status=("fail" if total > maximum else "pass") if judged else "info",
                    reason=f"in {moved['in']}, out {moved['out']} (counters before: "
                    f"{earlier['in_packets']} in, {earlier['out_packets']} out)",
                )
            )  # fmt: skip
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


def validate_apptainer_result(host_vars: Mapping[str, Any], host: str) -> dict[str, Any]:
    """Apptainer on a server, from the facts the apptainer role published: its version, or
    why it is absent (skipped: the site chose not to install it or could not reach the
    source, which the role said in its run too)."""
    target = "apptainer --version"
    if "apptainer_installed" not in host_vars:
        why = (
            "the apptainer role has not run here: no head node (no scheduler layer), or no"
            " site.yml run within the fact cache's lifetime"
        )
        return _record("apptainer", host, target, status="skipped", reason=why)
    if host_vars["apptainer_installed"]:
        found = host_vars.get("apptainer_version_found")
        return _record("apptainer", host, target, value=found, status="pass")
    why = host_vars.get("apptainer_absent_reason") or "not installed"
    return _record("apptainer", host, target, status="skipped", reason=why)


class FilterModule:
    """Result records of the validate role."""

    def filters(self) -> dict[str, Any]:
        return {
            "validate_benchmark_result": validate_benchmark_result,
            "validate_benchmark_series": validate_benchmark_series,
            "validate_inter_switch_hosts": validate_inter_switch_hosts,
            "validate_inter_switch_counters": validate_inter_switch_counters,
            "validate_sizing_result": validate_sizing_result,
            "validate_summary": validate_summary,
            "validate_storage_outages": validate_storage_outages,
            "validate_apptainer_result": validate_apptainer_result,
        }
