"""The slurm role's proof (tasks/verify.yml): the nodes as slurmctld sees them and a
one-GPU test job on each, as proof records the validate role's report reads
(roles/validate/README.md, "Proof records"). Pure functions, unit-tested.
"""

from __future__ import annotations

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


# sinfo %T states in which a node takes jobs; a trailing * means not responding.
_SLURM_HEALTHY = {"idle", "allocated", "mixed", "completing"}


def _slurm_gpus(gres: str) -> int:
    """GPUs in sinfo's %G (`gpu:4`, `gpu:v100:4(S:0-1)`, `(null)`)."""
    total = 0
    for item in gres.split(","):
        fields = item.split("(")[0].split(":")
        if fields[0] == "gpu" and fields[-1].isdigit():
            total += int(fields[-1])
    return total


def slurm_ready_nodes(sinfo: str) -> list[str]:
    """The nodes that take jobs, sorted, from `sinfo --Node --noheader
    --format=%N|%P|%T|%G|%E` (one line per node and partition; the reason a node is
    drained last): where the test job runs, and how many nodes must run it."""
    ready = set()
    for line in sinfo.splitlines():
        parts = line.split("|", 4)
        if len(parts) >= 4 and parts[2] in _SLURM_HEALTHY:
            ready.add(parts[0])
    return sorted(ready)


def slurm_verify_records(
    sinfo_result: Mapping[str, Any],
    job: Mapping[str, Any],
    expected: Mapping[str, int],
    controller: str,
) -> list[dict[str, Any]]:
    """The Slurm section: one record per node (state, partitions, GPUs as gres against
    the GPUs the node has) and one for the test job (which nodes ran it with a GPU).

    sinfo_result: the registered `sinfo --Node --noheader --format=%N|%P|%T|%G|%E` on the
    controller (%E: why a node is drained or down, `none` otherwise; skipped: no head
    node); job: the test job's registered result (stdout lines "<node> <CUDA devices>");
    expected: GPUs per node name as the nodes reported them.
    """
    if not controller or sinfo_result.get("skipped"):
        return [_record("slurm", controller or "-", "Slurm", status="skipped",
                        reason="no head node (group head) in the inventory: no Slurm")]  # fmt: skip
    if sinfo_result.get("rc") != 0:
        why = (sinfo_result.get("stderr") or sinfo_result.get("msg") or "").strip()[-200:]
        return [
            _record("slurm", controller, "slurmctld", status="fail", reason=f"sinfo failed: {why}")
        ]
    sinfo = sinfo_result.get("stdout", "")
    nodes: dict[str, dict[str, Any]] = {}
    for line in sinfo.splitlines():
        parts = line.split("|", 4)
        if len(parts) < 4:
            continue
        name, partition, state, gres = parts[:4]
        reason = parts[4].strip() if len(parts) > 4 and parts[4].strip() != "none" else ""
        node = nodes.setdefault(
            name,
            {"partitions": [], "state": state, "gpus": _slurm_gpus(gres), "reason": reason},
        )
        node["partitions"].append(partition)
    records = []
    for name, node in sorted(nodes.items()):
        problems = []
        healthy = node["state"] in _SLURM_HEALTHY
        if not healthy:
            why = f" ({node['reason']})" if node["reason"] else ""
            problems.append(f"state {node['state']}{why}")
        want = expected.get(name)
        if want is not None and node["gpus"] != want:
            problems.append(f"{node['gpus']} GPUs as gres, the node has {want}")
        records.append(
            _record(
                "slurm",
                name,
                "partitions " + ", ".join(node["partitions"]),
                value=node["gpus"],
                unit=f"GPUs (gres), {node['state']}",
                threshold=want,
                status="fail" if problems else "pass",
                reason="; ".join(problems),
            )
        )
    for name in sorted(set(expected) - set(nodes)):
        records.append(
            _record("slurm", name, "Slurm node", status="fail", reason="not known to slurmctld")
        )
    healthy_nodes = slurm_ready_nodes(sinfo)
    if job.get("skipped"):
        records.append(
            _record(
                "slurm", controller, "test job", status="skipped", reason="no node can take a job"
            )
        )
        return records
    ran = {
        line.split()[0]
        for line in job.get("stdout_lines", [])
        if len(line.split()) == 2 and line.split()[1] != "-"
    }
    missing = [n for n in healthy_nodes if n not in ran]
    failed = job.get("rc") != 0 or missing
    reason = ""
    if failed:
        reason = (f"no GPU job step on {', '.join(missing)}; " if missing else "") + (
            (job.get("stderr") or job.get("msg") or "").strip()[-200:]
        )
    records.append(
        _record(
            "slurm",
            controller,
            "test job: srun with one GPU on every node",
            value=len(ran),
            unit="nodes ran it with a GPU",
            threshold=len(healthy_nodes),
            status="fail" if failed else "pass",
            reason=reason.strip("; "),
        )
    )
    return records


class FilterModule:
    """The slurm role's proof."""

    def filters(self) -> dict[str, Any]:
        return {
            "slurm_ready_nodes": slurm_ready_nodes,
            "slurm_verify_records": slurm_verify_records,
        }
