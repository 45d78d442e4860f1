"""The `isi` command of the simulated cluster: what the papers' tiering procedure types.

    isi get -D <path>                 where a file lives (disk pool policy, data target)
    isi job jobs start SmartPools     start the SmartPools job (returns at once, as on
                                      OneFS; --wait polls until it has finished)
    isi job jobs list | view <id>     running and paused jobs, one job
    isi job jobs pause|resume|cancel <id>
    isi status                        cluster, node pools and tiers, running jobs
    isi storagepool tiers list        tiers and their node pools
    isi filepool policies list        file pool policies in apply order
    isi filepool default-policy view  the default policy's actions
    isi statistics system [--nodes all|1,2] [--format top]
                                      CPU and protocol throughput: the All row, and a
                                      row per node with --nodes
    isi statistics pstat [--format top]
                                      NFSv3 operations per second, CPU, throughput,
                                      cluster-wide

It works on the shared state file directly (same lock as the API servers); the
statistics come from the nodes' sample files beside it (statistics.py), as the API's
statistics/current does. `--format top` prints once (OneFS's refreshes the screen).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Iterator
from typing import Any

from . import jobs, model, smartpools, statistics


@contextlib.contextmanager
def _state(store: model.Store, ifs_root: str) -> Iterator[dict[str, Any]]:
    """The shared state with jobs brought up to now, as every API node sees it."""

    def finish(state: dict[str, Any], job: dict[str, Any]) -> str:
        if job["type"] == "SmartPools":
            return smartpools.run_job(state, job, ifs_root)
        return "Completed"

    with store.transaction(write=True) as state:
        jobs.advance(state, finish)
        yield state


def wait_for(store: model.Store, ifs_root: str, job_id: int, poll: float = 0.2) -> str:
    """Poll until the job reaches a final state; its state."""
    while True:
        with _state(store, ifs_root) as state:
            job = model.find_job(state, str(job_id))
            if job["state"] in jobs.FINAL_STATES:
                return job["state"]
        time.sleep(poll)


def _ifs_path(path: str, ifs_root: str) -> tuple[str, str]:
    """(cluster path /ifs/..., local path) of a path given as on the cluster."""
    if not path.startswith("/ifs"):
        path = "/ifs/" + path.lstrip("/")
    return path, os.path.join(ifs_root, os.path.relpath(path, "/ifs"))


def get_d(state: dict[str, Any], path: str, ifs_root: str) -> str:
    cluster_path, local = _ifs_path(path, ifs_root)
    if not os.path.exists(local):
        raise SystemExit(f"isi: {cluster_path}: No such file or directory")
    where = smartpools.describe(state, cluster_path)
    inode = ", ".join(f"{lnn},{drive},{block}:512" for lnn, drive, block in where["inode"])
    policy = f"{where['tier'] or where['policy']}({where['tier_id']})"
    pool = f"{where['nodepool']}:{where['nodepool_id']}({where['nodepool_id']})"
    info = os.stat(local)
    return "\n".join(
        [
            "POLICY   W   LEVEL PERFORMANCE COAL  ENCODING      FILE              IADDRS",
            f"default      4x/2 concurrency on    UTF-8         {os.path.basename(cluster_path)}"
            f"  <1,0,0:0>",
            "*************************************************",
            f"* IFS inode: [ {inode} ]",
            "*************************************************",
            "*",
            "* Inode Version:      8",
            "* Dir Version:        2",
            "* Inode Revision:     1",
            "* Inode Mirror Count: 3",
            f"* Physical Blocks:    {max(1, info.st_size // 8192)}",
            f"* LIN:                1:0000:{abs(hash(cluster_path)) % 0xFFFF:04x}",
            f"* Logical Size:       {info.st_size}",
            f"* Last Modified:      {int(info.st_mtime)}",
            f"* Last Accessed:      {int(info.st_atime)}",
            f"* Disk pools:         policy {policy} -> data target {pool}, metadata target {pool}",
            f"* SSD Strategy:       {where.get('ssd_strategy', 'metadata')}",
            "* Manually Manage:    Access      no",
            "*************************************************",
        ]
    )


def _find_job(state: dict[str, Any], ref: str) -> dict[str, Any] | None:
    """The job `ref` names, or None after saying on stderr, as isi does, why not."""
    try:
        return model.find_job(state, ref)
    except model.ApiError as error:
        print(f"isi: {error.message}", file=sys.stderr)
        return None


def job_line(job: dict[str, Any]) -> str:
    phase = f"{job['current_phase']}/{job['total_phases']}"
    return (
        f"{job['id']:<4}{job['type']:<20}{job['state']:<12}{job['impact']:<8}"
        f"{job['priority']:<6}{phase}"
    )


# ---- isi statistics: the numbers of statistics.py, laid out as seed 000 Appendix C shows


def _bytes_rate(value: float | None) -> str:
    """Bytes per second with one decimal and a K/M/G/T suffix (1024-based: unverified)."""
    if value is None:
        return "-"
    for suffix in ("", "K", "M", "G"):
        if abs(value) < 1024:
            return f"{value:.1f}{suffix}"
        value /= 1024
    return f"{value:.1f}T"


def _up(statuses: list[dict[str, Any]]) -> tuple[list[dict[str, int]], dict[str, Any] | None]:
    """(CPU permil of the nodes with a fresh sample, their NFS rates summed or None)."""
    cpus = [s["cpu"] for s in statuses if s["up"] and s["cpu"]]
    return cpus, statistics.sum_nfs([s["nfs"] for s in statuses if s["up"] and s["nfs"]])


def _system_row(label: str, statuses: list[dict[str, Any]]) -> list[str]:
    if not any(s["up"] for s in statuses):
        return [label] + ["-"] * 11
    cpus, nfs = _up(statuses)
    cpu = f"{sum(1000 - c['idle'] for c in cpus) / len(cpus) / 10:.1f}%" if cpus else "-"
    none = "0.0"  # SMB, FTP, HTTP, HDFS: the lab serves none of them
    if nfs is None:
        return [label, cpu, none, none, none, "-", none, "-", "-", "-", "-", "-"]
    written, read = nfs["in_rate"], nfs["out_rate"]
    # DiskIn/DiskOut: a stand-in equal to NetIn/NetOut (the lab has no disk counters of
    # the cluster's); NetIn/NetOut are what NFS clients wrote and read.
    return [label, cpu, none, none, none, _bytes_rate(written + read), none,
            _bytes_rate(written + read), _bytes_rate(written), _bytes_rate(read),
            _bytes_rate(written), _bytes_rate(read)]  # fmt: skip


def statistics_system(
    state: dict[str, Any], stats_dir: Any, nodes: str | None, now: float | None = None
) -> str:
    """`isi statistics system`: the All row (every node), then one row per node that
    --nodes names (all, or LNNs); a node without a fresh sample prints `-` cells."""
    status = statistics.cluster_status(state, stats_dir, now)
    rows = [
        ["Node", "CPU", "SMB", "FTP", "HTTP", "NFS", "HDFS", "Total", "NetIn", "NetOut",
         "DiskIn", "DiskOut"],
        _system_row("All", list(status.values())),
    ]  # fmt: skip
    if nodes:
        wanted = []
        for value in nodes.split(","):
            if value.strip().lower() == "all":
                wanted += list(status)
            elif value.strip().isdigit() and int(value) in status:
                wanted.append(int(value))
            else:
                raise ValueError(f"--nodes: {value.strip()!r} is not a node of the cluster")
        rows += [_system_row(str(lnn), [status[lnn]]) for lnn in sorted(set(wanted))]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join(" ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)) for row in rows)


def _side_by_side(blocks: list[list[str]], width: int = 30) -> list[str]:
    lines = []
    for cells in zip(*blocks, strict=True):
        lines.append("".join(c.ljust(width) for c in cells[:-1]) + cells[-1])
    return [line.rstrip() for line in lines]


def _onefs_rate(value: float | None) -> str:
    if value is None:
        return "-"
    for unit, scale in (("kB/s", 1024), ("MB/s", 1024**2)):
        if value < 1024 * scale:
            return f"{value / scale:.2f} {unit}"
    return f"{value / 1024**3:.2f} GB/s"


def statistics_pstat(state: dict[str, Any], stats_dir: Any, now: float | None = None) -> str:
    """`isi statistics pstat`, cluster-wide: NFSv3 operations per second (three per row),
    CPU (the mean of the nodes with a fresh sample), OneFS and network throughput (what
    NFS clients wrote = in, read = out) and disk I/O."""
    cpus, nfs = _up(list(statistics.cluster_status(state, stats_dir, now).values()))

    def per_s(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f}/s"

    ops = nfs["ops"] if nfs else {}
    cells = [
        f"{name:<12}{per_s(ops[name]['rate'] if nfs else None):>12}" for name in statistics.NFS3_OPS
    ]
    lines = ["_____NFS3 Operations Per Second_____"]
    lines += ["  ".join(cells[i : i + 3]) for i in range(0, len(cells), 3)]
    total = sum(op["rate"] for op in ops.values()) if nfs else None
    lines += [f"{'Total':<12}{per_s(total):>12}", ""]
    cpu = {
        mode: f"{sum(c[mode] for c in cpus) / len(cpus) / 10:.1f}%" if cpus else "-"
        for mode in ("user", "system", "idle")
    }
    written = nfs["in_rate"] if nfs else None
    read = nfs["out_rate"] if nfs else None
    both = None if nfs is None else written + read
    lines += _side_by_side(
        [
            ["_____CPU Utilization_____"] + [f"{m:<12}{cpu[m]:>12}" for m in cpu],
            ["_____OneFS Stats_____"]
            + [f"{label:<8}{_onefs_rate(v):>16}"
               for label, v in (("In", written), ("Out", read), ("Total", both))],
        ]
    )  # fmt: skip
    lines.append("")

    def mb(value: float | None) -> str:
        return "-" if value is None else f"{value / 1024**2:.2f}"

    # Disk I/O: a stand-in, the NFS read and write operations per second (the lab has no
    # disk counters of the cluster's)
    iops = None if nfs is None else ops["read"]["rate"] + ops["write"]["rate"]
    lines += _side_by_side(
        [
            ["_____Network Input_____", f"{'MB/s':<12}{mb(written):>12}"],
            ["_____Network Output_____", f"{'MB/s':<12}{mb(read):>12}"],
            ["_____Disk I/O_____",
             f"{'Disk':<8}{'-' if iops is None else f'{iops:.2f} iops':>16}"],
        ]
    )  # fmt: skip
    return "\n".join(lines)


def main(argv: list[str], store: model.Store, ifs_root: str) -> int:
    parser = argparse.ArgumentParser(prog="isi")
    parser.add_argument("words", nargs="+")
    parser.add_argument("-D", dest="details", action="store_true")
    parser.add_argument("--policy")
    parser.add_argument("--priority", type=int)
    parser.add_argument("--wait", action="store_true", help="wait for a started job to finish")
    parser.add_argument("--nodes", help="isi statistics system: all, or a comma list of LNNs")
    parser.add_argument("--format", help="isi statistics: top (printed once)")
    args = parser.parse_intermixed_args(argv)
    words = args.words

    if words[0] == "get" and len(words) == 2:
        with _state(store, ifs_root) as state:
            print(get_d(state, words[1], ifs_root))
        return 0
    if words[:3] == ["job", "jobs", "start"] and len(words) == 4:
        body: dict[str, Any] = {"type": words[3]}
        if args.policy:
            body["policy"] = args.policy
        if args.priority:
            body["priority"] = args.priority
        files = jobs.count_files(ifs_root)
        try:
            with _state(store, ifs_root) as state:
                job = model.start_job(state, body, files, store.timing())
        except model.ApiError as error:
            print(f"isi: {error.message}", file=sys.stderr)
            return 1
        print(f"Started job [{job['id']}]")
        if args.wait:
            final = wait_for(store, ifs_root, job["id"])
            print(f"Job [{job['id']}] {final}")
            return 0 if final == "succeeded" else 1
        return 0
    control = {"pause": "pause", "resume": "run", "cancel": "cancel"}
    if words[:2] == ["job", "jobs"] and len(words) == 4 and words[2] in control:
        with _state(store, ifs_root) as state:
            job = _find_job(state, words[3])
            if job is None:
                return 1
            if job["state"] in jobs.FINAL_STATES:
                print(f"isi: Job {job['id']} has already finished", file=sys.stderr)
                return 1
            jobs.control(state, job, control[words[2]])
        return 0
    if words[:3] == ["job", "jobs", "list"]:
        with _state(store, ifs_root) as state:
            active = [j for j in state["jobs"] if j["state"] not in jobs.FINAL_STATES]
        print("ID  Type                State       Impact  Pri   Phase")
        print("-" * 58)
        for job in active:
            print(job_line(job))
        print("-" * 58)
        print(f"Total: {len(active)}")
        return 0
    if words[:3] == ["job", "jobs", "view"] and len(words) == 4:
        with _state(store, ifs_root) as state:
            job = _find_job(state, words[3])
        if job is None:
            return 1
        for key in ("id", "type", "state", "impact", "policy", "priority", "progress"):
            print(f"{key.replace('_', ' ').title():>12}: {job.get(key, '-')}")
        return 0
    if words == ["status"]:
        with _state(store, ifs_root) as state:
            cluster = state["cluster"]
            print(f"Cluster Name: {cluster['name']}")
            print("Cluster Health:     [  OK ]")
            print(f"OneFS Version:      {cluster['release']}")
            print("\nNode Pool Name                 Health  Nodes  Tier")
            for pool in state["nodepools"]:
                lnns = f"{min(pool['lnns'])}-{max(pool['lnns'])}" if pool["lnns"] else "-"
                print(f"{pool['name']:<31}[ OK ]  {lnns:<6} {pool['tier'] or '-'}")
            running = [j for j in state["jobs"] if j["state"] not in jobs.FINAL_STATES]
            print("\nCritical Events: None")
            print("\nCluster Job Status:")
            if running:
                for job in running:
                    print(job_line(job))
            else:
                print("No running jobs.")
            recent = [j for j in state["jobs"] if j["state"] in jobs.FINAL_STATES][-5:]
            print("\nRecent job results:")
            for job in recent:
                print(f"{job['id']:<4}{job['type']:<20}{job['state']}")
        return 0
    if words[:3] == ["storagepool", "tiers", "list"]:
        with store.transaction() as state:
            print("Name        Node Pools")
            for tier in state["tiers"]:
                print(f"{tier['name']:<12}{', '.join(tier['children']) or '-'}")
            print(f"Total: {len(state['tiers'])}")
        return 0
    if words[:3] == ["filepool", "policies", "list"]:
        with store.transaction() as state:
            print("Name                        Description")
            for policy in sorted(state["filepool_policies"], key=lambda p: p["apply_order"]):
                print(f"{policy['name']:<28}{policy['description']}")
            print(f"Total: {len(state['filepool_policies'])}")
        return 0
    if words[:3] == ["filepool", "default-policy", "view"]:
        with store.transaction() as state:
            for action in state["default_policy"]["actions"]:
                print(f"{action['action_type']:>32}: {action['action_param']}")
        return 0
    if words in (["statistics", "system"], ["statistics", "pstat"]):
        with store.transaction() as state:
            pass
        stats_dir = store.path.parent / "stats"
        try:
            if words[1] == "system":
                print(statistics_system(state, stats_dir, args.nodes))
            else:
                print(statistics_pstat(state, stats_dir))
        except ValueError as error:
            print(f"isi: {error}", file=sys.stderr)
            return 2
        return 0
    print(f"isi: unknown command: {' '.join(words)}", file=sys.stderr)
    return 2
