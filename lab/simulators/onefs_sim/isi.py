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

It works on the shared state file directly (same lock as the API servers).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Iterator
from typing import Any

from . import jobs, model, smartpools


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


def main(argv: list[str], store: model.Store, ifs_root: str) -> int:
    parser = argparse.ArgumentParser(prog="isi")
    parser.add_argument("words", nargs="+")
    parser.add_argument("-D", dest="details", action="store_true")
    parser.add_argument("--policy")
    parser.add_argument("--priority", type=int)
    parser.add_argument("--wait", action="store_true", help="wait for a started job to finish")
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
    print(f"isi: unknown command: {' '.join(words)}", file=sys.stderr)
    return 2
