"""The jupyterhub role's proof (tasks/verify.yml): the browser's steps through the portal
and the session's Slurm job against what the form promised, as proof records the
validate role's report reads (roles/validate/README.md, "Proof records"). Pure
functions, unit-tested.
"""

from __future__ import annotations

import json
import re
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


# Slurm's states of a job that no longer runs (scontrol show job's JobState).
_SLURM_ENDED = {
    "CANCELLED",
    "COMPLETED",
    "FAILED",
    "TIMEOUT",
    "NODE_FAIL",
    "PREEMPTED",
    "OUT_OF_MEMORY",
}


def _slurm_fields(line: str) -> dict[str, str]:
    """`scontrol show job --oneliner` as a dict (the first value of a repeated key)."""
    fields: dict[str, str] = {}
    for token in line.split():
        key, sep, value = token.partition("=")
        if sep:
            fields.setdefault(key, value)
    return fields


def _slurm_time(limit: str) -> str:
    """A Slurm time limit ([days-]hours[:minutes[:seconds]]) as scontrol prints it."""
    days, _, clock = limit.rpartition("-")
    parts = [int(p) for p in clock.split(":")] + [0, 0]
    hours, minutes, seconds = parts[:3]
    text = f"{hours:02d}:{minutes:02d}:{seconds:02d}"
    return f"{int(days)}-{text}" if days else text


def jupyterhub_portal_job_problems(
    job: Mapping[str, str], expected: Mapping[str, Any]
) -> list[str]:
    """What differs between a portal session's Slurm job and what its form asked for:
    expected = {gpus, cpus, memory_gb, time_limit, nodes (the GPU servers' Slurm names)}."""
    tres = dict(item.partition("=")[::2] for item in job.get("TRES", "").split(",") if "=" in item)
    gpus = int(expected["gpus"])
    # The GPUs the job holds: TresPerNode (gres:gpu:N, or gres/gpu:N on later Slurm); the
    # TRES list names them only where accounting tracks gres/gpu.
    per_node = re.search(r"gres[:/]gpu(?::[^:,]+)?:(\d+)", job.get("TresPerNode", ""))
    held = per_node.group(1) if per_node else tres.get("gres/gpu", "none")
    want = {
        "gres/gpu": (held, str(gpus)),
        "CPUs": (job.get("NumCPUs", "?"), str(int(expected["cpus_per_gpu"]) * gpus)),
        "memory": (tres.get("mem", "?"), f"{int(expected['memory_per_gpu_gb']) * gpus}G"),
        "nodes": (job.get("NumNodes", "?"), "1"),
        "time limit": (job.get("TimeLimit", "?"), _slurm_time(str(expected["time_limit"]))),
    }
    problems = [
        f"{name} {got}, asked {asked}" for name, (got, asked) in want.items() if got != asked
    ]
    node = job.get("NodeList", "")
    if node not in expected.get("nodes", []):
        problems.append(f"ran on {node or 'no node'}, not a GPU server")
    if job.get("JobState") not in _SLURM_ENDED:
        problems.append(f"still {job.get('JobState', '?')} after Stop My Server")
    return problems


def jupyterhub_portal_records(
    check: Mapping[str, Any],
    job: Mapping[str, Any],
    expected: Mapping[str, Any],
    user: str,
    screenshot_dir: str,
) -> list[dict[str, Any]]:
    """The portal section: one record per browser step (with its screenshot), then the
    session's Slurm job as scontrol saw it after the server was stopped.

    check: the registered run of files/portal_check.py (or a skipped result with a
    reason); job: the registered `scontrol show job --oneliner <id>`; expected: see
    jupyterhub_portal_job_problems; screenshot_dir: the screenshots' folder in the report.
    """
    if check.get("skipped"):
        reason = check.get("skip_reason") or check.get("reason") or "not run"
        return [_record("portal", user or "-", "portal", status="skipped", reason=reason)]
    try:
        report = json.loads(check.get("stdout") or "")
    except ValueError:
        why = (check.get("stderr") or check.get("msg") or "no output").strip()[-300:]
        return [
            _record(
                "portal", user, "browser", status="fail", reason=f"the check did not run: {why}"
            )
        ]
    records = []
    for step in report.get("steps", []):
        shot = step.get("screenshot")
        records.append(
            _record(
                "portal",
                user,
                step["name"],
                value=step.get("seconds"),
                unit="s",
                status="pass" if step.get("ok") else "fail",
                reason=str(step.get("detail") or ""),
                screenshot=f"{screenshot_dir}/{shot}" if shot else None,
            )
        )
    if report.get("error"):
        records.append(_record("portal", user, "browser", status="fail", reason=report["error"]))
    job_id = (report.get("server") or {}).get("slurm_job_id")
    if not job_id:
        records.append(
            _record(
                "portal", user, "Slurm job", status="fail", reason="the session named no Slurm job"
            )
        )
        return records
    fields = _slurm_fields(job.get("stdout", "")) if job.get("rc") == 0 else {}
    if not fields:
        why = (job.get("stderr") or job.get("msg") or "").strip()[-200:]
        problems = [f"scontrol does not know job {job_id}: {why}"]
    else:
        problems = jupyterhub_portal_job_problems(fields, expected)
    records.append(
        _record(
            "portal",
            fields.get("NodeList") or user,
            f"Slurm job {job_id}",
            value=fields.get("TRES"),
            unit=f"{fields.get('JobState', '?')}, limit {fields.get('TimeLimit', '?')}",
            status="fail" if problems else "pass",
            reason="; ".join(problems),
        )
    )
    return records


class FilterModule:
    """The jupyterhub role's proof."""

    def filters(self) -> dict[str, Any]:
        return {
            "jupyterhub_portal_records": jupyterhub_portal_records,
            "jupyterhub_portal_job_problems": jupyterhub_portal_job_problems,
        }
