"""The simulated cluster's state: one JSON document, shared by every node and the isi CLI.

Four lab containers serve one cluster, as four OneFS nodes do, so the state lives on
the shared /ifs volume and every reader or writer holds an exclusive flock while it
loads, changes and atomically replaces it. The HTTP layer (api.py) and the CLI (isi.py)
only call the functions here; nothing here knows about HTTP.
"""

from __future__ import annotations

import contextlib
import copy
import fcntl
import json
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# Spec section 3/4: the action types and parameters the simulator accepts.
ACTION_TYPES = {
    "apply_data_storage_policy",
    "apply_snapshot_storage_policy",
    "set_requested_protection",
    "set_data_access_pattern",
    "enable_coalescer",
    "enable_packing",
    "set_cloudpool_policy",
}
SSD_STRATEGIES = {"metadata", "metadata-write", "data", "avoid"}
ACCESS_PATTERNS = {"random", "concurrency", "streaming"}
CRITERION_TYPES = {
    "name",
    "path",
    "link_count",
    "accessed_time",
    "birth_time",
    "changed_time",
    "metadata_changed_time",
    "size",
    "file_type",
    "custom_attribute",
}
OPERATORS = {"==", "!=", ">", ">=", "<", "<=", "!"}
SIZE_UNITS = {"B", "KB", "MB", "GB", "TB", "PB", "EB"}
JOB_FINAL_STATES = {
    "succeeded",
    "failed",
    "cancelled_user",
    "cancelled_system",
    "failed_not_retried",
}


class ApiError(Exception):
    """An error the API reports as {"errors": [{"code", "message", "field"}]}."""

    def __init__(self, status: int, code: str, message: str, field: str | None = None):
        super().__init__(message)
        self.status, self.code, self.message, self.field = status, code, message, field

    def body(self) -> dict[str, Any]:
        error = {"code": self.code, "message": self.message}
        if self.field:
            error["field"] = self.field
        return {"errors": [error]}


def not_found(what: str) -> ApiError:
    return ApiError(404, "AEC_NOT_FOUND", f"{what} not found")


def bad_request(message: str, field: str | None = None) -> ApiError:
    return ApiError(400, "AEC_BAD_REQUEST", message, field)


def initial_state(cluster: dict[str, Any]) -> dict[str, Any]:
    """A freshly installed cluster as the config describes it: pools, no tiers, one export."""
    nodepools = []
    for pool in cluster["nodepools"]:
        lnns = [n["lnn"] for n in cluster["nodes"] if n["nodepool"] == pool["name"]]
        nodepools.append({**pool, "lnns": lnns, "tier": None})
    return {
        "cluster": {
            "name": cluster["name"],
            "guid": cluster["guid"],
            "release": cluster["onefs_release"],
            "api_latest": cluster["api_latest"],
            "nodes": cluster["nodes"],
            "groupnet": cluster.get("groupnet", "groupnet0"),
            "subnet": cluster.get("subnet", "subnet0"),
            "pool": cluster.get("pool", "pool0"),
        },
        "nodepools": nodepools,
        "tiers": [],
        # Tiers share the disk pool id space with node pools (ids above the pools').
        "next_diskpool_id": max(p["id"] for p in cluster["nodepools"]) + 1,
        "filepool_policies": [],
        "default_policy": {
            "actions": [
                {
                    "action_type": "apply_data_storage_policy",
                    "action_param": {"ssd_strategy": "metadata", "storagepool": "anywhere"},
                },
                {
                    "action_type": "apply_snapshot_storage_policy",
                    "action_param": {"ssd_strategy": "metadata", "storagepool": "anywhere"},
                },
                {"action_type": "set_requested_protection", "action_param": "default"},
                {"action_type": "set_data_access_pattern", "action_param": "concurrency"},
                {"action_type": "enable_coalescer", "action_param": True},
            ]
        },
        "access_time": {"enabled": False, "precision": 0},
        "storagepool_settings": {
            "automatically_manage_io_optimization": "files_at_default",
            "automatically_manage_protection": "files_at_default",
            "global_namespace_acceleration_enabled": False,
            "global_namespace_acceleration_state": "inactive",
            "protect_directories_one_level_higher": True,
            "spillover_enabled": True,
            "spillover_target": {"id": 0, "name": "anywhere", "type": "anywhere"},
            "ssd_l3_cache_default_enabled": True,
            "ssd_qab_mirrors": "one",
            "ssd_system_btree_mirrors": "one",
            "ssd_system_delta_mirrors": "one",
            "virtual_hot_spare_deny_writes": False,
            "virtual_hot_spare_hide_spare": False,
            "virtual_hot_spare_limit_drives": 2,
            "virtual_hot_spare_limit_percent": 0,
        },
        "jobs": [],
        "next_job_id": 1,
        "job_types": {
            "SmartPools": {
                "id": "SmartPools",
                "description": "Enforce SmartPools file pool policies.",
                "enabled": True,
                "policy": "LOW",
                "priority": 6,
                # Spec section 12: the exact default schedule string is unverified.
                "schedule": "every day at 22:00",
                "allow_multiple_instances": False,
                "exclusion_set": "restripe",
                "hidden": False,
            }
        },
        "nfs_exports": [
            {
                "id": 1,
                "paths": ["/ifs"],
                "zone": "System",
                "description": "Default export",
                "clients": [],
                "root_clients": [],
                "read_only_clients": [],
                "read_write_clients": [],
                "read_only": False,
                "all_dirs": False,
                "security_flavors": ["unix"],
                "map_root": {"enabled": True, "user": {"id": "USER:nobody"}},
                "map_non_root": {"enabled": False, "user": {"id": "USER:nobody"}},
                "map_all": {"enabled": False, "user": {"id": "USER:nobody"}},
                "map_failure": {"enabled": False, "user": {"id": "USER:nobody"}},
                "snapshot": "-",
            }
        ],
        "next_export_id": 2,
        "placement": {},
    }


class Store:
    """The state file with its lock; `transaction()` yields the state to read or change."""

    def __init__(self, path: str | os.PathLike, cluster_config: str | os.PathLike):
        self.path = Path(path)
        self.lock_path = self.path.with_suffix(self.path.suffix + ".lock")
        self.cluster_config = Path(cluster_config)

    @contextlib.contextmanager
    def transaction(self, write: bool = False) -> Iterator[dict[str, Any]]:
        """Hold the cluster-wide lock; with write=True the state is saved afterwards."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.lock_path, "a+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                state = self._load()
                before = copy.deepcopy(state) if write else None
                yield state
                if write and state != before:
                    self._save(state)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _load(self) -> dict[str, Any]:
        if self.path.exists():
            return json.loads(self.path.read_text())
        state = initial_state(json.loads(self.cluster_config.read_text()))
        self._save(state)
        return state

    def _save(self, state: dict[str, Any]) -> None:
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".state-")
        with os.fdopen(fd, "w") as handle:
            json.dump(state, handle, indent=1, sort_keys=True)
        os.replace(tmp, self.path)


# ---- node pools and tiers -------------------------------------------------------------


def find_tier(state: dict[str, Any], ref: str | int) -> dict[str, Any]:
    """A tier by id or by name (spec section 12: whether names work is unverified)."""
    for tier in state["tiers"]:
        if str(tier["id"]) == str(ref) or tier["name"] == str(ref):
            return tier
    raise not_found(f"Tier {ref}")


def find_nodepool(state: dict[str, Any], ref: str | int) -> dict[str, Any]:
    for pool in state["nodepools"]:
        if str(pool["id"]) == str(ref) or pool["name"] == str(ref):
            return pool
    raise not_found(f"Node pool {ref}")


def _set_tier_children(state: dict[str, Any], tier: dict[str, Any], children: list) -> None:
    pools = [find_nodepool(state, child) for child in children]
    for pool in state["nodepools"]:
        if pool["tier"] == tier["name"] and pool not in pools:
            pool["tier"] = None
    for pool in pools:
        if pool["tier"] not in (None, tier["name"]):
            raise ApiError(
                409,
                "AEC_CONFLICT",
                f"Node pool {pool['name']} already belongs to tier {pool['tier']}",
            )
        pool["tier"] = tier["name"]
    tier["children"] = [pool["name"] for pool in pools]


def create_tier(state: dict[str, Any], body: dict[str, Any]) -> int:
    _only(body, {"name", "children", "transfer_limit_pct", "transfer_limit_state"})
    name = _name(body.get("name"), "name")
    if any(t["name"] == name for t in state["tiers"]) or any(
        p["name"] == name for p in state["nodepools"]
    ):
        raise ApiError(409, "AEC_CONFLICT", f"Storage pool name {name} is already in use")
    tier = {"id": state["next_diskpool_id"], "name": name, "children": []}
    _set_tier_children(state, tier, list(body.get("children") or []))
    state["next_diskpool_id"] += 1
    state["tiers"].append(tier)
    return tier["id"]


def update_tier(state: dict[str, Any], ref: str, body: dict[str, Any]) -> None:
    _only(body, {"name", "children", "transfer_limit_pct", "transfer_limit_state"})
    tier = find_tier(state, ref)
    if "name" in body and body["name"] != tier["name"]:
        new = _name(body["name"], "name")
        if any(t["name"] == new for t in state["tiers"]):
            raise ApiError(409, "AEC_CONFLICT", f"Storage pool name {new} is already in use")
        for pool in state["nodepools"]:
            if pool["tier"] == tier["name"]:
                pool["tier"] = new
        tier["name"] = new
    if "children" in body:
        _set_tier_children(state, tier, list(body["children"] or []))


def delete_tier(state: dict[str, Any], ref: str) -> None:
    tier = find_tier(state, ref)
    for pool in state["nodepools"]:
        if pool["tier"] == tier["name"]:
            pool["tier"] = None
    state["tiers"].remove(tier)


def tier_view(state: dict[str, Any], tier: dict[str, Any]) -> dict[str, Any]:
    lnns = sorted(
        lnn for pool in state["nodepools"] if pool["tier"] == tier["name"] for lnn in pool["lnns"]
    )
    return {
        "id": tier["id"],
        "name": tier["name"],
        "children": tier["children"],
        "lnns": lnns,
        "usage": _usage(),
    }


def nodepool_view(pool: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": pool["id"],
        "name": pool["name"],
        "lnns": pool["lnns"],
        "node_type_ids": pool["node_type_ids"],
        "protection_policy": pool["protection_policy"],
        "tier": pool["tier"],
        "manual": False,
        "l3": not pool["has_ssd"],
        "l3_status": "l3" if not pool["has_ssd"] else "storage",
        "can_enable_l3": pool["has_ssd"],
        "can_disable_l3": not pool["has_ssd"],
        "health_flags": [],
        "usage": _usage(),
    }


def _usage() -> dict[str, Any]:
    """Usage counters with every field Dell's SDK model requires.

    Spec section 2: the *_bytes and pct_* fields are strings, balanced is a bool. The
    lab's capacity is nominal; nothing reads these numbers for decisions.
    """
    total_hdd, total_ssd = 4 * 10**13, 2 * 10**12
    used_hdd, used_ssd = 4 * 10**10, 2 * 10**9
    fields = {
        "hdd": (total_hdd, used_hdd),
        "ssd": (total_ssd, used_ssd),
    }
    usage: dict[str, Any] = {"balanced": True}
    for kind, (total, used) in fields.items():
        usage[f"total_{kind}_bytes"] = str(total)
        usage[f"used_{kind}_bytes"] = str(used)
        usage[f"avail_{kind}_bytes"] = str(total - used)
        usage[f"free_{kind}_bytes"] = str(total - used)
        usage[f"usable_{kind}_bytes"] = str(total)
        usage[f"pct_used_{kind}"] = f"{100 * used / total:.1f}"
    total, used = total_hdd + total_ssd, used_hdd + used_ssd
    usage.update(
        {
            "total_bytes": str(total),
            "used_bytes": str(used),
            "avail_bytes": str(total - used),
            "free_bytes": str(total - used),
            "usable_bytes": str(total),
            "pct_used": f"{100 * used / total:.1f}",
        }
    )
    return usage


# ---- file pool policies --------------------------------------------------------------


def validate_actions(actions: Any, field: str = "actions") -> list[dict[str, Any]]:
    if not isinstance(actions, list):
        raise bad_request("actions must be a list", field)
    for action in actions:
        kind = action.get("action_type") if isinstance(action, dict) else None
        if kind not in ACTION_TYPES:
            raise bad_request(f"Unknown action_type {kind!r}", field)
        param = action.get("action_param")
        if kind in ("apply_data_storage_policy", "apply_snapshot_storage_policy"):
            if not isinstance(param, dict) or not param.get("storagepool"):
                raise bad_request(f"{kind} needs action_param.storagepool", field)
            if param.get("ssd_strategy", "metadata") not in SSD_STRATEGIES:
                raise bad_request(f"Unknown ssd_strategy {param.get('ssd_strategy')!r}", field)
        if kind == "set_data_access_pattern" and param not in ACCESS_PATTERNS:
            raise bad_request(f"Unknown data access pattern {param!r}", field)
        if kind in ("enable_coalescer", "enable_packing") and not isinstance(param, bool):
            raise bad_request(f"{kind} takes a boolean", field)
    return actions


def validate_pattern(pattern: Any) -> dict[str, Any]:
    field = "file_matching_pattern"
    if not isinstance(pattern, dict) or not isinstance(pattern.get("or_criteria"), list):
        raise bad_request("file_matching_pattern needs or_criteria", field)
    for group in pattern["or_criteria"]:
        if not isinstance(group, dict) or not isinstance(group.get("and_criteria"), list):
            raise bad_request("each or_criteria item needs and_criteria", field)
        for criterion in group["and_criteria"]:
            kind = criterion.get("type")
            if kind not in CRITERION_TYPES:
                raise bad_request(f"Unknown criterion type {kind!r}", field)
            if criterion.get("operator") not in OPERATORS:
                raise bad_request(f"Unknown operator {criterion.get('operator')!r}", field)
            if kind == "size" and criterion.get("units", "B") not in SIZE_UNITS:
                raise bad_request(f"Unknown size unit {criterion.get('units')!r}", field)
            if kind in (
                "accessed_time",
                "birth_time",
                "changed_time",
                "metadata_changed_time",
                "size",
            ):
                value = criterion.get("value")
                try:
                    number = float(value)
                except (TypeError, ValueError):
                    raise bad_request(
                        f"{kind} needs a numeric value, got {value!r}", field
                    ) from None
                if number < 0:
                    raise bad_request(f"{kind} value must not be negative", field)
                # numeric types come back as JSON numbers (spec section 3)
                criterion["value"] = int(number) if number == int(number) else number
    return pattern


POLICY_FIELDS = {"name", "description", "apply_order", "file_matching_pattern", "actions"}


def find_policy(state: dict[str, Any], ref: str) -> dict[str, Any]:
    # The schema names the path parameter by policy name; dellemc.powerscale uses the id.
    for policy in state["filepool_policies"]:
        if policy["name"] == ref or str(policy["id"]) == ref:
            return policy
    raise not_found(f"File pool policy {ref}")


def create_policy(state: dict[str, Any], body: dict[str, Any]) -> str:
    _only(body, POLICY_FIELDS)
    name = _name(body.get("name"), "name", limit=768)
    if any(p["name"] == name for p in state["filepool_policies"]):
        raise ApiError(409, "AEC_CONFLICT", f"File pool policy {name} already exists")
    if "file_matching_pattern" not in body:
        raise ApiError(
            400,
            "AEC_ARG_REQUIRED",
            "Field file_matching_pattern is required",
            "file_matching_pattern",
        )
    policy = {
        # Spec section 12: the v12 wire type of the id is unverified; the SDK models an
        # int id, creation answers with the name.
        "id": max([p["id"] for p in state["filepool_policies"]] + [0]) + 1,
        "name": name,
        "description": str(body.get("description", "")),
        "apply_order": len(state["filepool_policies"]) + 1,
        "birth_cluster_id": state["cluster"]["guid"],
        "state": "OK",
        "state_details": "",
        "file_matching_pattern": validate_pattern(body["file_matching_pattern"]),
        "actions": validate_actions(body.get("actions", [])),
    }
    state["filepool_policies"].append(policy)
    if "apply_order" in body:
        _reorder(state, policy, body["apply_order"])
    return name


def update_policy(state: dict[str, Any], ref: str, body: dict[str, Any]) -> None:
    _only(body, POLICY_FIELDS)
    if not body:
        raise bad_request("At least one field is required")
    policy = find_policy(state, ref)
    if "name" in body and body["name"] != policy["name"]:
        new = _name(body["name"], "name", limit=768)
        if any(p["name"] == new for p in state["filepool_policies"]):
            raise ApiError(409, "AEC_CONFLICT", f"File pool policy {new} already exists")
        policy["name"] = new
    if "description" in body:
        policy["description"] = str(body["description"])
    if "file_matching_pattern" in body:
        policy["file_matching_pattern"] = validate_pattern(body["file_matching_pattern"])
    if "actions" in body:
        policy["actions"] = validate_actions(body["actions"])
    if "apply_order" in body:
        _reorder(state, policy, body["apply_order"])


def delete_policy(state: dict[str, Any], ref: str) -> None:
    policy = find_policy(state, ref)
    state["filepool_policies"].remove(policy)
    for index, other in enumerate(
        sorted(state["filepool_policies"], key=lambda p: p["apply_order"])
    ):
        other["apply_order"] = index + 1


def _reorder(state: dict[str, Any], policy: dict[str, Any], order: Any) -> None:
    if isinstance(order, bool) or not isinstance(order, int) or order < 1:
        raise bad_request("apply_order must be an integer >= 1", "apply_order")
    others = sorted(
        (p for p in state["filepool_policies"] if p is not policy), key=lambda p: p["apply_order"]
    )
    others.insert(min(order, len(others) + 1) - 1, policy)
    for index, item in enumerate(others):
        item["apply_order"] = index + 1


# ---- settings, exports, jobs ----------------------------------------------------------


def set_access_time(state: dict[str, Any], body: dict[str, Any]) -> None:
    _only(body, {"enabled", "precision"})
    if "enabled" in body and not isinstance(body["enabled"], bool):
        raise bad_request("enabled must be a boolean", "enabled")
    if "precision" in body:
        precision = body["precision"]
        if (
            isinstance(precision, bool)
            or not isinstance(precision, int)
            or not (0 <= precision <= 1576800000)
        ):
            raise bad_request("precision must be an integer from 0 to 1576800000", "precision")
    state["access_time"].update(body)


EXPORT_FIELDS = {
    "paths", "clients", "root_clients", "read_only_clients", "read_write_clients",
    "read_only", "all_dirs", "description", "security_flavors", "snapshot", "zone",
    "map_root", "map_non_root", "map_all", "map_failure",
}  # fmt: skip


def create_export(state: dict[str, Any], body: dict[str, Any], zone: str) -> int:
    _only(body, EXPORT_FIELDS)
    paths = body.get("paths")
    if not isinstance(paths, list) or not paths:
        raise ApiError(400, "AEC_ARG_REQUIRED", "Field paths is required", "paths")
    for path in paths:
        if not str(path).startswith("/ifs"):
            raise bad_request(f"Export path {path} is not under /ifs", "paths")
    export = copy.deepcopy(state["nfs_exports"][0]) if state["nfs_exports"] else {}
    export.update({"description": "", "clients": [], "root_clients": [], "read_only": False})
    export.update(body)
    export["id"] = state["next_export_id"]
    export["zone"] = body.get("zone", zone)
    state["next_export_id"] += 1
    state["nfs_exports"].append(export)
    return export["id"]


def find_export(state: dict[str, Any], ref: str) -> dict[str, Any]:
    for export in state["nfs_exports"]:
        if str(export["id"]) == str(ref):
            return export
    raise not_found(f"Export {ref}")


def update_export(state: dict[str, Any], ref: str, body: dict[str, Any]) -> None:
    _only(body, EXPORT_FIELDS)
    find_export(state, ref).update(body)


def start_job(state: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    _only(body, {"type", "paths", "policy", "priority", "allow_dup", "smartpoolstree_params"})
    kind = body.get("type")
    if not kind:
        raise ApiError(400, "AEC_ARG_REQUIRED", "Field type is required", "type")
    if kind not in state["job_types"]:
        raise bad_request(f"Unknown job type {kind}", "type")
    active = [j for j in state["jobs"] if j["type"] == kind and j["state"] not in JOB_FINAL_STATES]
    if active and not body.get("allow_dup"):
        raise ApiError(
            409, "AEC_CONFLICT", f"A {kind} job is already running (id {active[0]['id']})"
        )
    job_type = state["job_types"][kind]
    now = int(time.time())
    job = {
        "id": state["next_job_id"],
        "type": kind,
        "state": "running",
        "control_state": "running",
        "impact": "Low",
        "policy": body.get("policy", job_type["policy"]),
        "priority": body.get("priority", job_type["priority"]),
        "current_phase": 1,
        "total_phases": 2,
        "progress": "Started",
        "create_time": now,
        "start_time": now,
        "end_time": None,
        "running_time": 0,
        "retries_remaining": 3,
        "participants": [n["lnn"] for n in state["cluster"]["nodes"]],
        "paths": body.get("paths", []),
        "waiting_on": None,
        "waiting_reason": None,
        "description": job_type["description"],
        "human_desc": job_type["description"],
    }
    state["next_job_id"] += 1
    state["jobs"].append(job)
    return job


def find_job(state: dict[str, Any], ref: str) -> dict[str, Any]:
    for job in state["jobs"]:
        if str(job["id"]) == str(ref):
            return job
    raise not_found(f"Job {ref}")


# ---- helpers --------------------------------------------------------------------------


def _only(body: dict[str, Any], allowed: set[str]) -> None:
    if not isinstance(body, dict):
        raise bad_request("The request body must be a JSON object")
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise bad_request(f"Field: {unknown[0]} is not allowed", unknown[0])


def _name(value: Any, field: str, limit: int = 255) -> str:
    if not isinstance(value, str) or not value:
        raise ApiError(400, "AEC_ARG_REQUIRED", f"Field {field} is required", field)
    if len(value) > limit:
        raise ApiError(400, "AEC_NAMETOOLONG", f"{field} is longer than {limit}", field)
    if "/" in value:
        raise ApiError(400, "AEC_NAMEILLEGAL", f"{field} may not contain '/'", field)
    return value
