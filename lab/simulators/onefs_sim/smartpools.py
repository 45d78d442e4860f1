"""The SmartPools job: file pool policies evaluated against the real files under /ifs.

Each file is matched against the policies in apply_order (the first match wins, as on
OneFS), else the default policy; its data storage target is resolved to a tier and a
node pool and recorded, so `isi get -D` shows where the file lives. Pure functions over
the state and os.stat results, plus `run_job`, which walks the tree.
"""

from __future__ import annotations

import fnmatch
import os
import stat as statmod
import time
import zlib
from typing import Any

UNIT = {
    "B": 1,
    "KB": 1 << 10,
    "MB": 1 << 20,
    "GB": 1 << 30,
    "TB": 1 << 40,
    "PB": 1 << 50,
    "EB": 1 << 60,
}
TIME_FIELDS = {
    "accessed_time": "atime",
    "birth_time": "btime",
    "changed_time": "mtime",
    "metadata_changed_time": "ctime",
}


def file_facts(path: str, root: str, access_time: dict[str, Any]) -> dict[str, Any]:
    """What the criteria look at, from os.stat.

    With access-time tracking on, atime is the file's atime at the configured precision.
    With it off OneFS does not update atime on reads, so the last write stands in for
    the last access (a simplification: the simulator cannot see reads it did not track).
    """
    info = os.stat(path, follow_symlinks=False)
    atime = info.st_atime if access_time.get("enabled") else info.st_mtime
    precision = int(access_time.get("precision") or 0)
    if access_time.get("enabled") and precision > 0:
        atime -= atime % precision
    mode = info.st_mode
    return {
        # the simulator's root is the cluster's /ifs wherever it is mounted
        "path": "/ifs/" + os.path.relpath(path, root),
        "name": os.path.basename(path),
        "size": info.st_size,
        "link_count": info.st_nlink,
        "atime": atime,
        "mtime": info.st_mtime,
        "ctime": info.st_ctime,
        "btime": min(info.st_mtime, info.st_ctime),
        "file_type": "directory"
        if statmod.S_ISDIR(mode)
        else "file"
        if statmod.S_ISREG(mode)
        else "other",
    }


def _compare(left: float | str, operator: str, right: float | str) -> bool:
    return {
        "==": left == right,
        "!=": left != right,
        ">": left > right,
        ">=": left >= right,
        "<": left < right,
        "<=": left <= right,
    }.get(operator, False)


def criterion_matches(criterion: dict[str, Any], facts: dict[str, Any], now: float) -> bool:
    kind, operator, value = criterion["type"], criterion["operator"], criterion.get("value")
    if kind in TIME_FIELDS:
        stamp = facts[TIME_FIELDS[kind]]
        if criterion.get("use_relative_time"):
            # relative: value is an age in seconds and `>` means older than
            return _compare(now - stamp, operator, float(value))
        return _compare(float(value), operator, stamp)
    if kind == "size":
        return _compare(facts["size"], operator, float(value) * UNIT[criterion.get("units", "B")])
    if kind == "link_count":
        return _compare(facts["link_count"], operator, int(value))
    if kind == "file_type":
        return _compare(facts["file_type"], operator, value)
    if kind in ("name", "path"):
        subject = facts[kind]
        pattern = str(value)
        if not criterion.get("case_sensitive", True):
            subject, pattern = subject.lower(), pattern.lower()
        if kind == "path":
            # The meaning of begins_with is unverified (sources disagree); a path criterion
            # matches the directory and everything under it.
            hit = subject == pattern or subject.startswith(pattern.rstrip("/") + "/")
        else:
            hit = fnmatch.fnmatchcase(subject, pattern)
        return hit if operator == "==" else not hit if operator in ("!=", "!") else False
    return False  # custom_attribute: the lab's files carry none


def policy_matches(policy: dict[str, Any], facts: dict[str, Any], now: float) -> bool:
    return any(
        group["and_criteria"]
        and all(criterion_matches(c, facts, now) for c in group["and_criteria"])
        for group in policy["file_matching_pattern"]["or_criteria"]
    )


def resolve_target(state: dict[str, Any], storagepool: str) -> tuple[dict | None, dict]:
    """(tier or None, node pool) a storage target names; `anywhere` is the first pool."""
    for tier in state["tiers"]:
        if tier["name"] == storagepool and tier["children"]:
            pool = next(p for p in state["nodepools"] if p["name"] == tier["children"][0])
            return tier, pool
    for pool in state["nodepools"]:
        if pool["name"] == storagepool:
            tier = next((t for t in state["tiers"] if t["name"] == pool["tier"]), None)
            return tier, pool
    ssd = [p for p in state["nodepools"] if p["has_ssd"]] or state["nodepools"]
    return None, ssd[0]


def placement_for(state: dict[str, Any], facts: dict[str, Any], now: float) -> dict[str, Any]:
    policies = sorted(state["filepool_policies"], key=lambda p: p["apply_order"])
    chosen = next((p for p in policies if policy_matches(p, facts, now)), None)
    actions = (chosen or state["default_policy"])["actions"]
    target = next(
        (a["action_param"] for a in actions if a["action_type"] == "apply_data_storage_policy"),
        {"storagepool": "anywhere", "ssd_strategy": "metadata"},
    )
    tier, pool = resolve_target(state, target["storagepool"])
    # A deterministic stand-in for the inode's block addresses on the pool's nodes.
    seed = zlib.crc32(facts["path"].encode())
    lnns = pool["lnns"]
    inode = [
        (lnns[(seed + i) % len(lnns)], i % 3, 1000000 + (seed >> (i * 3)) % 900000)
        for i in range(3)
    ]
    return {
        "policy": chosen["name"] if chosen else "Default Policy",
        "storagepool": target["storagepool"],
        "ssd_strategy": target.get("ssd_strategy", "metadata"),
        "tier": tier["name"] if tier else None,
        "tier_id": tier["id"] if tier else 0,
        "nodepool": pool["name"],
        "nodepool_id": pool["id"],
        "inode": inode,
    }


def run_job(state: dict[str, Any], job: dict[str, Any], ifs_root: str) -> str:
    """Evaluate every file under ifs_root and record its placement.

    Called by the job engine (jobs.advance) when the job's time is up; returns the
    job's final progress line.
    """
    now = time.time()
    placement: dict[str, Any] = {}
    files = 0
    for directory, dirs, names in os.walk(ifs_root):
        dirs[:] = sorted(d for d in dirs if d != ".ifsvar")
        for name in sorted(names):
            path = os.path.join(directory, name)
            try:
                facts = file_facts(path, ifs_root, state["access_time"])
            except FileNotFoundError:
                continue  # removed while the job ran
            placement[facts["path"]] = placement_for(state, facts, now)
            files += 1
    state["placement"] = placement
    return f"Processed {files} files"


def describe(state: dict[str, Any], path: str) -> dict[str, Any]:
    """Where a file lives: its recorded placement, or where the default policy puts it."""
    recorded = state["placement"].get(path)
    if recorded:
        return recorded
    _tier, pool = resolve_target(state, "anywhere")
    return {
        "policy": "anywhere",
        "tier": None,
        "tier_id": 0,
        "nodepool": pool["name"],
        "nodepool_id": pool["id"],
        "inode": [(pool["lnns"][i % len(pool["lnns"])], i % 3, 1000000 + i) for i in range(3)],
    }
