"""Slurm helpers: a node's hardware as slurmd reports it, the cluster's munge key, the
controller's view of its nodes, and the plan of what the inventory decides (roles/slurm)."""

from __future__ import annotations

import base64
import binascii
import json
import re
import secrets
import string
from collections.abc import Mapping, Sequence
from typing import Any

# mungekey's smallest key is 256 bits [man mungekey.8, `-b bits 256-8192`]: a text key
# shorter than 32 characters is refused before it reaches a node.
MUNGE_KEY_MIN_CHARS = 32
_PRINTABLE = set(string.ascii_letters + string.digits + string.punctuation)
# States in which a node runs jobs (sinfo %T; a trailing * means not responding, which
# is one of the states reported) [doc sinfo.1, NODE STATE CODES].
_HEALTHY = {"idle", "allocated", "mixed", "completing"}


def slurm_node_hardware(slurmd_c: str, settings: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The node line `slurmd -C` prints (NodeName=... CPUs=... RealMemory=...), as a dict,
    with `settings` (slurm_node_settings: what the inventory says instead) over it.

    slurmd reads the hardware the way slurmctld will judge it (sockets, cores, threads,
    memory in MB), so a node line built from it never drains the node for a mismatch.
    Numbers become ints; `UpTime` (second line) is not part of a node's definition.

    The result holds plain values only: it becomes the cached fact slurm_node, and
    ansible-core (2.19 and later) stores each inventory value's origin beside it in the
    fact cache and decodes those records at every read of the host's variables, once
    per task and host; a merge in Jinja (`combine`) would keep them.
    """
    line = next((ln for ln in slurmd_c.splitlines() if ln.startswith("NodeName=")), None)
    if line is None:
        raise ValueError(f"no NodeName= line in slurmd -C output: {slurmd_c[:200]!r}")
    hardware: dict[str, Any] = {}
    for field in line.split():
        key, _, value = field.partition("=")
        hardware[key] = int(value) if value.isdigit() else value
    # a JSON round trip: the same keys and values, without the inventory's tags
    return json.loads(json.dumps({**hardware, **dict(settings or {})}))


def slurm_munge_key(current_b64: str | None, configured: str | None = None) -> str:
    """The cluster's munge key (text): the configured one (from the vault) when set; else
    the head node's current key when it is a text key of sufficient length (kept, so a
    re-run changes nothing); else a new random one.

    A package's own key (Debian's postinst runs `mungekey -c` on every host, so each host
    gets a different binary one) is replaced: every node must share one key.
    """
    if configured:
        if len(configured) < MUNGE_KEY_MIN_CHARS:
            raise ValueError(f"slurm_munge_key must have at least {MUNGE_KEY_MIN_CHARS} characters")
        return configured
    try:
        current = base64.b64decode(current_b64 or "", validate=True)
        text = current.decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        text = ""
    if len(text) >= MUNGE_KEY_MIN_CHARS and set(text) <= _PRINTABLE:
        return text
    # 96 random bytes as URL-safe text: 768 bits, inside mungekey's 256..8192 range
    return secrets.token_urlsafe(96)


def _gpu_device_files(count: int) -> list[str]:
    """/dev/nvidia0..N-1: the device files NVIDIA's driver makes, one per GPU."""
    return [f"/dev/nvidia{index}" for index in range(count)]


def slurm_declared_node(host_vars: Mapping[str, Any]) -> dict[str, Any]:
    """A node as its inventory declares it, for the offline plan (no slurmd to ask): the
    node line from slurm_node_settings, named after the inventory host, and the GPUs
    from a numeric slurm_gpus (`auto` cannot be known before the node reports: none)."""
    host = host_vars["inventory_hostname"]
    hardware = {"NodeName": host, **dict(host_vars.get("slurm_node_settings") or {})}
    gpus = host_vars.get("slurm_gpus", "auto")
    count = int(gpus) if str(gpus).isdigit() else 0
    return {"hardware": hardware, "gpu_files": _gpu_device_files(count)}


def slurm_gres_files(
    device_files: Sequence[str], pci_addresses: Sequence[str], gpus: Any = "auto"
) -> list[str]:
    """The GPU device files gres.conf names for a node. With gpus `auto`: those the driver
    created; where the GPUs are on the bus but the driver has not created its nodes yet
    (first run), /dev/nvidia0..N-1, which it creates one per GPU (slurmd waits for them).
    With a count (slurm_gpus): that many, /dev/nvidia0 on."""
    if str(gpus) != "auto":
        return _gpu_device_files(int(gpus))
    if device_files:
        return list(device_files)
    return _gpu_device_files(len(pci_addresses))


def _conf_value(value: Any) -> str:
    if isinstance(value, bool):
        return "YES" if value else "NO"
    return str(value)


def slurm_conf_line(settings: Mapping[str, Any]) -> str:
    """`Key=value Key=value` in the given order (booleans as YES/NO, Slurm's own words);
    None leaves a key out."""
    return " ".join(
        f"{key}={_conf_value(value)}" for key, value in settings.items() if value is not None
    )


def slurm_node_problems(sinfo: str) -> list[str]:
    """Nodes that cannot run jobs, from `sinfo -N -h -o '%N|%T|%E'`: one line per node
    and partition (deduplicated), state and reason ("none" when there is none)."""
    problems: dict[str, str] = {}
    for line in sinfo.splitlines():
        parts = line.split("|", 2)
        if len(parts) < 2 or not parts[0]:
            continue
        node, state = parts[0], parts[1]
        reason = parts[2] if len(parts) > 2 else ""
        if state.rstrip("*~#!%$@^-") in _HEALTHY and not state.endswith("*"):
            continue
        why = f" ({reason})" if reason and reason != "none" else ""
        problems[node] = f"{node}: {state}{why}"
    return list(problems.values())


def slurm_drained_by(sinfo: str, leader: str) -> list[str]:
    """Nodes drained (or draining) with a reason that starts with leader, from the same
    `sinfo -N -h -o '%N|%T|%E'` lines, leaving out those not responding (state ending in
    `*`): the nodes a health check drained that can run it again now."""
    nodes: list[str] = []
    for line in sinfo.splitlines():
        parts = line.split("|", 2)
        if len(parts) < 3 or not parts[0] or parts[0] in nodes:
            continue
        node, state, reason = parts
        if state.startswith("drain") and not state.endswith("*") and reason.startswith(leader):
            nodes.append(node)
    return nodes


def slurm_def_mem_per_cpu(hardware: Sequence[Mapping[str, Any]]) -> int | None:
    """DefMemPerCPU: memory per core of the node with the least of it (MB).

    Without it a job that names no memory is given the whole node's memory
    (DefMemPerNode is unlimited by default), so with CR_Core_Memory a one-core job
    blocks every other job on that node.
    """
    shares = [
        int(node["RealMemory"]) // int(node["CPUs"])
        for node in hardware
        if int(node.get("CPUs", 0) or 0) > 0 and int(node.get("RealMemory", 0) or 0) > 0
    ]
    return min(shares) if shares else None


def slurm_partition_nodes(partition: Mapping[str, Any], nodes: Sequence[str]) -> str:
    """A partition's Nodes= value: its own list when given, else every node (ALL)."""
    own = partition.get("nodes")
    if own:
        return ",".join(own) if isinstance(own, list) else str(own)
    return "ALL" if nodes else ""


def _hostlist(expression: str) -> list[str]:
    """The names of a Slurm host list (`node[01-03,7],gpu1`; several bracket groups in one
    name multiply out), as slurm.conf(5) writes them; a malformed one raises ValueError."""
    names: list[str] = []
    for part in re.split(r",(?![^\[]*\])", expression):
        if not part:
            raise ValueError(f"an empty name in {expression!r}")
        expanded = [""]
        for literal, ranges in re.findall(r"([^\[\]]*)(?:\[([^\]]*)\])?", part):
            if "[" in literal or "]" in literal:
                raise ValueError(f"unbalanced brackets in {part!r}")
            numbers = [""]
            if ranges:
                numbers = []
                for item in ranges.split(","):
                    low, _, high = item.partition("-")
                    if not low.isdigit() or (high and not high.isdigit()):
                        raise ValueError(f"{item!r} in {part!r} is not a number or a range")
                    width = len(low)
                    numbers += [str(n).zfill(width) for n in range(int(low), int(high or low) + 1)]
            expanded = [head + literal + number for head in expanded for number in numbers]
        if part.count("[") != part.count("]"):
            raise ValueError(f"unbalanced brackets in {part!r}")
        names += expanded
    return names


def slurm_partition_problems(
    partitions: Sequence[Mapping[str, Any]] | None, nodes: Sequence[str]
) -> list[str]:
    """What slurmctld would refuse or read otherwise than meant in slurm_partitions: a name
    given twice, more than one default partition (only one can take the jobs that name
    none), and a node a partition names that is not one of `nodes`, the GPU servers that
    slurm.conf declares (named after their inventory hosts). `ALL` names every node."""
    problems: list[str] = []
    names = [str(p.get("name", "")) for p in partitions or []]
    for name in sorted({n for n in names if names.count(n) > 1}):
        problems.append(f"slurm_partitions: partition {name} is listed twice")
    defaults = [str(p.get("name")) for p in partitions or [] if _true(p.get("default"))]
    if len(defaults) > 1:
        problems.append(
            f"slurm_partitions: {len(defaults)} partitions are the default ({', '.join(defaults)});"
            " at most one takes the jobs that name no partition"
        )
    for partition in partitions or []:
        given = partition.get("nodes")
        if not given or given == "ALL":
            continue
        try:
            named = [n for item in (given if isinstance(given, list) else [given])
                     for n in _hostlist(str(item))]  # fmt: skip
        except ValueError as err:
            problems.append(f"slurm_partitions: partition {partition.get('name')}: {err}")
            continue
        unknown = [n for n in named if n not in nodes]
        if unknown:
            problems.append(
                f"slurm_partitions: partition {partition.get('name')} names"
                f" {', '.join(unknown)}, not a GPU server of this inventory"
                f" (the compute group: {', '.join(nodes) or 'none'})"
            )
    return problems


def slurm_accounting_problems(
    accounts: Sequence[Mapping[str, Any]] | None, qos: Sequence[Mapping[str, Any]] | None
) -> list[str]:
    """What the accounting database would hold otherwise than meant: an account or a QOS
    listed twice (the second would silently change the first), and an account allowed a
    QOS that is neither Slurm's own `normal` nor one of slurm_qos (sacctmgr refuses it,
    after the accounts before it were added)."""
    problems: list[str] = []
    for variable, items in (("slurm_accounts", accounts), ("slurm_qos", qos)):
        names = [str(item.get("name", "")) for item in items or []]
        for name in sorted({n for n in names if names.count(n) > 1}):
            problems.append(f"{variable}: {name} is listed twice")
    known = {"normal"} | {str(item.get("name", "")) for item in qos or []}
    for account in accounts or []:
        unknown = [str(q) for q in account.get("qos") or [] if str(q) not in known]
        if unknown:
            problems.append(
                f"slurm_accounts: account {account.get('name')} names QOS {', '.join(unknown)},"
                f" not normal nor one of slurm_qos ({', '.join(sorted(known))})"
            )
    return problems


# slurm.conf's keys whose value only the hosts know at run time, each with where it comes
# from: DefMemPerCPU from the nodes' hardware (slurmd -C), the controller's address from
# its host name where the inventory names none (slurm_controller_address's default).
_AT_RUN_TIME = object()


def slurm_plan(settings: Mapping[str, Any], nodes: Sequence[str]) -> dict[str, Any]:
    """What the inventory decides for the controller, from its settings (the slurm_*
    variables as the controller sees them, without their prefix) and the GPU servers it
    describes (`nodes`, the compute group), pure, for the fact slurm_plan (README).

    `config`: slurm.conf's options in the file's order (slurm.conf(5), Slurm 22.05), the
    role's own, then the accounting lines (with `accounting`), then `config` (slurm_config,
    replacing a value in place; a None leaves the option out, so it is dropped here);
    `config_at_run_time` names the options only the hosts know (DefMemPerCPU: the nodes'
    hardware; SlurmctldHost and AccountingStorageHost where `controller_address` is None:
    the controller's host name), held in `config` as None in their place.
    `partitions`: slurm_partitions with their defaults filled in (`nodes` joined, `ALL`
    where none is given)."""
    address = settings.get("controller_address")
    at_address = _AT_RUN_TIME if address is None else address
    health = _true(settings.get("health_check", True))
    accounting = _true(settings.get("accounting", True))
    config: dict[str, Any] = {
        "ClusterName": settings["cluster_name"],
        "SlurmctldHost": at_address,
        "SlurmctldPort": int(settings.get("controller_port", 6817)),
        "SlurmUser": "slurm",
        "AuthType": "auth/munge",
        "SlurmctldParameters": "enable_configless",
        "StateSaveLocation": "/var/lib/slurm/slurmctld",
        "SlurmdSpoolDir": "/var/lib/slurm/slurmd",
        "SlurmctldPidFile": "/run/slurmctld.pid",
        "SlurmdPidFile": "/run/slurmd.pid",
        "SlurmctldLogFile": "/var/log/slurm/slurmctld.log",
        "SlurmdLogFile": "/var/log/slurm/slurmd.log",
        "SchedulerType": "sched/backfill",
        "SelectType": "select/cons_tres",
        "SelectTypeParameters": "CR_Core_Memory",
        "DefMemPerCPU": _AT_RUN_TIME,
        "GresTypes": "gpu",
        "ProctrackType": "proctrack/cgroup",
        "TaskPlugin": "task/affinity,task/cgroup",
        "MpiDefault": settings.get("mpi_default", "none"),
        "ReturnToService": 2,
        "SlurmdParameters": "config_overrides" if _true(settings.get("config_overrides")) else None,
        "HealthCheckProgram": settings.get("health_check_program") if health else None,
        "HealthCheckInterval": int(settings.get("health_check_interval", 300)) if health else None,
        "HealthCheckNodeState": "ANY" if health else None,
    }
    if accounting:
        # slurmdbd on the controller, the GPUs among the tracked resources, and the
        # multifactor priority plugin's weights (PriorityWeight<Factor>)
        weights = settings.get("priority_weights") or {}
        config.update(
            {
                "AccountingStorageType": "accounting_storage/slurmdbd",
                "AccountingStorageHost": at_address,
                "AccountingStorageTRES": "gres/gpu",
                "JobAcctGatherType": "jobacct_gather/linux",
                "PriorityType": "priority/multifactor",
                "PriorityDecayHalfLife": settings.get("priority_decay_half_life", "7-0"),
                **{f"PriorityWeight{factor}": int(weight) for factor, weight in weights.items()},
            }
        )
    config.update(settings.get("config") or {})
    partitions = [
        {
            "name": partition["name"],
            "nodes": _partition_nodes(partition.get("nodes")),
            "default": partition.get("default", False),
            "max_time": partition.get("max_time", "INFINITE"),
            "state": partition.get("state", "UP"),
            "options": dict(partition.get("options") or {}),
        }
        for partition in settings.get("partitions") or []
    ]
    return {
        "cluster_name": settings["cluster_name"],
        "controller_host": settings.get("controller_host"),
        "controller_address": address,
        "controller_port": int(settings.get("controller_port", 6817)),
        "nodes": list(nodes),
        "partitions": partitions,
        "accounting": accounting,
        "config": {
            key: None if value is _AT_RUN_TIME else value
            for key, value in config.items()
            if value is not None
        },
        "config_at_run_time": [key for key, value in config.items() if value is _AT_RUN_TIME],
        "cgroup": dict(settings.get("cgroup_config") or {}),
    }


def _partition_nodes(given: Any) -> str:
    """A partition's Nodes= as the inventory gives it: its list joined, or ALL (every node)."""
    if not given:
        return "ALL"
    return ",".join(given) if isinstance(given, list) else str(given)


def _true(value: Any) -> bool:
    return str(value).strip().lower() in ("1", "true", "yes", "on")


class FilterModule:
    """Slurm filters for roles/slurm."""

    def filters(self) -> dict[str, Any]:
        return {
            "slurm_node_hardware": slurm_node_hardware,
            "slurm_munge_key": slurm_munge_key,
            "slurm_gres_files": slurm_gres_files,
            "slurm_declared_node": slurm_declared_node,
            "slurm_conf_line": slurm_conf_line,
            "slurm_node_problems": slurm_node_problems,
            "slurm_drained_by": slurm_drained_by,
            "slurm_partition_nodes": slurm_partition_nodes,
            "slurm_partition_problems": slurm_partition_problems,
            "slurm_accounting_problems": slurm_accounting_problems,
            "slurm_def_mem_per_cpu": slurm_def_mem_per_cpu,
            "slurm_plan": slurm_plan,
        }
