"""The simulated cluster's state: one JSON document, shared by every node and the isi CLI.

Four lab containers serve one cluster, as four OneFS nodes do, so the state lives on
the shared /ifs volume and every reader or writer holds an exclusive flock while it
loads, changes and atomically replaces it. The HTTP layer (api.py) and the CLI (isi.py)
only call the functions here; nothing here knows about HTTP. Sources in brackets: see the
package docstring (__init__.py).
"""

from __future__ import annotations

import contextlib
import copy
import fcntl
import ipaddress
import json
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from . import jobs, releases

# The action types and parameters the simulator accepts [PAPI schemas, isilon-sdk].
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
# Requested protection values [isilon-sdk: the action_param doc of FilepoolPolicyAction].
PROTECTION = {
    "default", "+1", "+1n", "+2:1", "+2d:1n", "+2", "+2n", "+3:1", "+3d:1n", "+3d:1n1d",
    "+3", "+3n", "+4", "+4n", "+4:1", "+4d:1n", "+4:2", "+4d:2n",
    *(f"{n}x" for n in range(2, 9)),
}  # fmt: skip


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


def network_config(cluster: dict[str, Any]) -> dict[str, Any]:
    """The front-end network of the config; older configs name only groupnet/subnet/pool."""
    if "network" in cluster:
        return cluster["network"]
    addresses = sorted(a for n in cluster["nodes"] for a in n["addresses"])
    ranges = [{"low": addresses[0], "high": addresses[-1]}] if addresses else []
    pool = {"name": cluster.get("pool", "pool0"), "access_zone": "System",
            "alloc_method": "static", "sc_dns_zone": "", "ranges": ranges}  # fmt: skip
    base = addresses[0].rsplit(".", 1)[0] + ".0" if addresses else "10.0.0.0"
    return {
        "groupnet": cluster.get("groupnet", "groupnet0"),
        "dns_servers": [],
        "subnets": [{"name": cluster.get("subnet", "subnet0"), "base_addr": base,
                     "prefixlen": 24, "mtu": 1500, "pools": [pool]}],
    }  # fmt: skip


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
            "api_latest": releases.api_latest(cluster["onefs_release"]),
            "nodes": cluster["nodes"],
            "network": network_config(cluster),
            "identity": {
                "description": "",
                "logon": {"motd": "", "motd_header": ""},
                "mttdl_level_msg": "none",
            },
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
            # GET {id, name, type}; type is the only required field [isilon-sdk models]
            "spillover_target": {"type": "anywhere"},
            "ssd_l3_cache_default_enabled": True,
            "ssd_qab_mirrors": "one",
            "ssd_system_btree_mirrors": "one",
            "ssd_system_delta_mirrors": "one",
            "virtual_hot_spare_deny_writes": False,
            "virtual_hot_spare_hide_spare": False,
            "virtual_hot_spare_limit_drives": 2,
            "virtual_hot_spare_limit_percent": 0,
            # v18 [isilon-sdk models]; shown from API 18 on
            "default_transfer_limit_state": "disabled",
        },
        "jobs": [],
        "next_job_id": 1,
        "job_types": jobs.initial_types(),
        "job_events": [],
        "job_reports": [],
        "nfs_exports": [
            {**EXPORT_DEFAULTS, "id": 1, "paths": ["/ifs"], "description": "Default export"}
        ],
        "next_export_id": 2,
        "placement": {},
    }


def upgrade(state: dict[str, Any], config: dict[str, Any]) -> None:
    """Fill in what a state file written by an older simulator lacks (objects added
    since), so a lab keeps its tiers, policies and exports across an upgrade."""
    cluster = state["cluster"]
    cluster.setdefault("network", network_config(config))
    cluster.setdefault(
        "identity",
        {"description": "", "logon": {"motd": "", "motd_header": ""}, "mttdl_level_msg": "none"},
    )
    for name, job_type in jobs.initial_types().items():
        state["job_types"].setdefault(name, job_type)
    for key in ("job_events", "job_reports"):
        state.setdefault(key, [])
    state["nfs_exports"] = [{**copy.deepcopy(EXPORT_DEFAULTS), **e} for e in state["nfs_exports"]]
    state["storagepool_settings"].setdefault("default_transfer_limit_state", "disabled")
    for job in state["jobs"]:
        if job["state"] == "running" and "_since" not in job:
            # older simulators finished jobs at once: one left running finishes now
            job.update(_since=job.get("start_time", 0), _ran=0.0, _duration=0.0, _files=0)


class Store:
    """The state file with its lock; `transaction()` yields the state to read or change.

    The cluster config names the release: a state made under another release is
    upgraded in place on load (its objects stay, its API version follows the config).
    """

    def __init__(self, path: str | os.PathLike, cluster_config: str | os.PathLike):
        self.path = Path(path)
        self.lock_path = self.path.with_suffix(self.path.suffix + ".lock")
        self.cluster_config = Path(cluster_config)
        self.config = json.loads(self.cluster_config.read_text())
        releases.check_supported(self.config["onefs_release"])

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

    def timing(self) -> dict[str, float]:
        """How long jobs take on this lab cluster (jobs.timing)."""
        return jobs.timing(self.config)

    def _load(self) -> dict[str, Any]:
        if self.path.exists():
            state = json.loads(self.path.read_text())
        else:
            state = initial_state(self.config)
            self._save(state)
        release = self.config["onefs_release"]
        state["cluster"]["release"] = release
        state["cluster"]["api_latest"] = releases.api_latest(release)
        upgrade(state, self.config)
        return state

    def _save(self, state: dict[str, Any]) -> None:
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".state-")
        with os.fdopen(fd, "w") as handle:
            json.dump(state, handle, indent=1, sort_keys=True)
        os.replace(tmp, self.path)


# ---- node pools and tiers -------------------------------------------------------------


def find_tier(state: dict[str, Any], ref: str | int) -> dict[str, Any]:
    """A tier by id or by name (whether OneFS takes a name is unverified; the terraform
    provider's import uses one)."""
    for tier in state["tiers"]:
        if str(tier["id"]) == str(ref) or tier["name"] == str(ref):
            return tier
    raise not_found(f"Tier {ref}")


def find_nodepool(state: dict[str, Any], ref: str | int) -> dict[str, Any]:
    for pool in state["nodepools"]:
        if str(pool["id"]) == str(ref) or pool["name"] == str(ref):
            return pool
    raise not_found(f"Node pool {ref}")


def _set_tier_children(state: dict[str, Any], tier: dict[str, Any], children: Any) -> None:
    """Point node pools at the tier; a node pool can be in one tier only (its one `tier`
    field [PAPI schemas, isilon-sdk]).

    Raises before changing anything, so a refused write leaves the state as it was.
    The cluster's error for a node pool already in another tier is unverified; the
    simulator answers 409 AEC_CONFLICT (the code OneFS maps EEXIST to [isi_rest_server]).
    """
    if not isinstance(children, list) or not all(isinstance(c, (str, int)) for c in children):
        raise bad_request("children must be a list of node pool names or ids", "children")
    pools = [find_nodepool(state, child) for child in children]
    for pool in pools:
        if pool["tier"] not in (None, tier["name"]):
            raise ApiError(
                409,
                "AEC_CONFLICT",
                f"Node pool {pool['name']} already belongs to tier {pool['tier']}",
                "children",
            )
    for pool in state["nodepools"]:
        if pool["tier"] == tier["name"] and pool not in pools:
            pool["tier"] = None
    for pool in pools:
        pool["tier"] = tier["name"]
    tier["children"] = [pool["name"] for pool in pools]


def tier_fields(version: int) -> set[str]:
    """Writable tier fields: v16 adds the transfer limit [isilon-sdk models]."""
    fields = {"name", "children"}
    return fields | {"transfer_limit_pct", "transfer_limit_state"} if version >= 16 else fields


def _transfer_limit(body: dict[str, Any], tier: dict[str, Any]) -> None:
    """transfer_limit_pct 0..100 or transfer_limit_state disabled|default, not both
    [isilon-sdk models; mutual exclusion from the terraform provider's
    docs/resources/storagepool_tier.md]."""
    if "transfer_limit_pct" in body and "transfer_limit_state" in body:
        raise bad_request(
            "transfer_limit_pct and transfer_limit_state are mutually exclusive",
            "transfer_limit_pct",
        )
    if "transfer_limit_pct" in body:
        pct = body["transfer_limit_pct"]
        if isinstance(pct, bool) or not isinstance(pct, int) or not 0 <= pct <= 100:
            raise bad_request(
                f"transfer_limit_pct must be an integer from 0 to 100, got {pct!r}",
                "transfer_limit_pct",
            )
        tier.pop("transfer_limit_state", None)
        tier["transfer_limit_pct"] = pct
    if "transfer_limit_state" in body:
        state = body["transfer_limit_state"]
        if state not in ("disabled", "default"):
            raise bad_request(
                f"transfer_limit_state must be disabled or default, got {state!r}",
                "transfer_limit_state",
            )
        tier.pop("transfer_limit_pct", None)
        tier["transfer_limit_state"] = state


def create_tier(state: dict[str, Any], body: dict[str, Any], version: int = 16) -> int:
    _only(body, tier_fields(version))
    name = _name(body.get("name"), "name")
    if any(t["name"] == name for t in state["tiers"]) or any(
        p["name"] == name for p in state["nodepools"]
    ):
        raise ApiError(409, "AEC_CONFLICT", f"Storage pool name {name} is already in use", "name")
    tier = {"id": state["next_diskpool_id"], "name": name, "children": []}
    _transfer_limit(body, tier)
    _set_tier_children(state, tier, body.get("children") or [])
    state["next_diskpool_id"] += 1
    state["tiers"].append(tier)
    return tier["id"]


def update_tier(state: dict[str, Any], ref: str, body: dict[str, Any], version: int = 16) -> None:
    _only(body, tier_fields(version))
    tier = find_tier(state, ref)
    _transfer_limit(body, tier)
    if "children" in body:
        _set_tier_children(state, tier, body["children"] or [])
    if "name" in body and body["name"] != tier["name"]:
        new = _name(body["name"], "name")
        if any(t["name"] == new for t in state["tiers"]) or any(
            p["name"] == new for p in state["nodepools"]
        ):
            raise ApiError(409, "AEC_CONFLICT", f"Storage pool name {new} is already in use")
        for pool in state["nodepools"]:
            if pool["tier"] == tier["name"]:
                pool["tier"] = new
        tier["name"] = new


def delete_tier(state: dict[str, Any], ref: str) -> None:
    tier = find_tier(state, ref)
    for pool in state["nodepools"]:
        if pool["tier"] == tier["name"]:
            pool["tier"] = None
    state["tiers"].remove(tier)


def tier_view(
    state: dict[str, Any],
    tier: dict[str, Any],
    version: int = 16,
    used: dict[str, dict[str, int]] | None = None,
) -> dict[str, Any]:
    """A tier as GET shows it at `version` [isilon-sdk models: v16 requires
    node_type_ids and shows the transfer limit; transfer_limit_state is left out rather
    than null, since the SDK's enum setter refuses None]. Its usage is the sum of its
    node pools' (`used`: statistics.pool_used_bytes; None counts nothing used)."""
    members = [p for p in state["nodepools"] if p["tier"] == tier["name"]]
    view = {
        "id": tier["id"],
        "name": tier["name"],
        "children": tier["children"],
        "lnns": sorted(lnn for pool in members for lnn in pool["lnns"]),
        "usage": _usage([(used or {}).get(pool["name"], {}) for pool in members]),
    }
    if version >= 16:
        view["node_type_ids"] = sorted({t for pool in members for t in pool["node_type_ids"]})
        if "transfer_limit_pct" in tier:
            view["transfer_limit_pct"] = tier["transfer_limit_pct"]
            view["transfer_limit_state"] = "enabled"
        else:
            view["transfer_limit_state"] = tier.get("transfer_limit_state", "default")
    return view


def nodepool_view(
    pool: dict[str, Any], version: int = 16, used: dict[str, dict[str, int]] | None = None
) -> dict[str, Any]:
    """A node pool as GET shows it at `version`; `used` as tier_view takes it."""
    view = {
        "id": pool["id"],
        "name": pool["name"],
        "lnns": pool["lnns"],
        "node_type_ids": pool["node_type_ids"],
        "protection_policy": pool["protection_policy"],
        "manual": False,
        "l3": not pool["has_ssd"],
        "l3_status": "l3" if not pool["has_ssd"] else "storage",
        "can_enable_l3": pool["has_ssd"],
        "can_disable_l3": not pool["has_ssd"],
        "health_flags": [],
        # the tier's name, or null [isilon-sdk] (a plain str field, so null is safe)
        "tier": pool["tier"],
        "usage": _usage([(used or {}).get(pool["name"], {})]),
    }
    if version >= 16:
        view["transfer_limit_state"] = "default"
    return view


def _usage(pools: list[dict[str, int]]) -> dict[str, Any]:
    """Usage counters with every field Dell's SDK model requires, summed over node pools
    (one for a node pool, a tier's members for a tier): each {"hdd": bytes, "ssd":
    bytes} used (statistics.pool_used_bytes: the real files under /ifs by placement).

    The *_bytes and pct_* fields are strings, balanced is a bool [isilon-sdk models].
    Each node pool's capacity is nominal (40 TB HDD, 2 TB SSD: a lab stand-in, not the
    lab volume's size); a tier without node pools has none.
    """
    total_hdd, total_ssd = 4 * 10**13 * len(pools), 2 * 10**12 * len(pools)
    used_hdd = sum(int(p.get("hdd", 0)) for p in pools)
    used_ssd = sum(int(p.get("ssd", 0)) for p in pools)
    fields = {
        "hdd": (total_hdd, used_hdd),
        "ssd": (total_ssd, used_ssd),
    }
    usage: dict[str, Any] = {"balanced": True}
    for kind, (total, used) in fields.items():
        usage[f"total_{kind}_bytes"] = str(total)
        usage[f"used_{kind}_bytes"] = str(used)
        usage[f"avail_{kind}_bytes"] = str(max(0, total - used))
        usage[f"free_{kind}_bytes"] = str(max(0, total - used))
        usage[f"usable_{kind}_bytes"] = str(total)
        usage[f"pct_used_{kind}"] = f"{100 * used / total if total else 0:.1f}"
    total, used = total_hdd + total_ssd, used_hdd + used_ssd
    usage.update(
        {
            "total_bytes": str(total),
            "used_bytes": str(used),
            "avail_bytes": str(max(0, total - used)),
            "free_bytes": str(max(0, total - used)),
            "usable_bytes": str(total),
            "pct_used": f"{100 * used / total if total else 0:.1f}",
        }
    )
    return usage


# ---- file pool policies --------------------------------------------------------------


def _storage_target(state: dict[str, Any], param: Any, kind: str, field: str) -> None:
    """A storage action names a tier or node pool that exists, or `anywhere`.

    The cluster's message for a missing pool is unverified; the simulator refuses with
    400 AEC_BAD_REQUEST naming the pool.
    """
    if not isinstance(param, dict) or not isinstance(param.get("storagepool"), str):
        raise bad_request(f"{kind} needs action_param.storagepool", field)
    _only(param, {"storagepool", "ssd_strategy"}, field)
    pool = param["storagepool"]
    names = {t["name"] for t in state["tiers"]} | {p["name"] for p in state["nodepools"]}
    if pool != "anywhere" and pool not in names:
        raise bad_request(f"Storage pool {pool} not found (action {kind})", field)
    if param.get("ssd_strategy", "metadata") not in SSD_STRATEGIES:
        raise bad_request(f"Unknown ssd_strategy {param.get('ssd_strategy')!r}", field)


def validate_actions(
    state: dict[str, Any], actions: Any, field: str = "actions"
) -> list[dict[str, Any]]:
    """Action types and parameters as the PAPI schemas and isilon-sdk list them; null clears
    an action."""
    if not isinstance(actions, list):
        raise bad_request("actions must be a list", field)
    seen = set()
    for action in actions:
        kind = action.get("action_type") if isinstance(action, dict) else None
        if kind not in ACTION_TYPES:
            raise bad_request(f"Unknown action_type {kind!r}", field)
        _only(action, {"action_type", "action_param"}, field)
        if kind in seen:
            raise bad_request(f"Action {kind} is given twice", field)
        seen.add(kind)
        param = action.get("action_param")
        if param is None:
            continue
        if kind in ("apply_data_storage_policy", "apply_snapshot_storage_policy"):
            _storage_target(state, param, kind, field)
        if kind == "set_requested_protection" and param not in PROTECTION:
            raise bad_request(f"Unknown requested protection {param!r}", field)
        if kind == "set_data_access_pattern" and param not in ACCESS_PATTERNS:
            raise bad_request(f"Unknown data access pattern {param!r}", field)
        if kind in ("enable_coalescer", "enable_packing") and not isinstance(param, bool):
            raise bad_request(f"{kind} takes a boolean", field)
    return actions


def validate_pattern(pattern: Any) -> dict[str, Any]:
    field = "file_matching_pattern"
    # or_criteria and each and_criteria are required (isilon-sdk's models refuse them
    # missing); an empty group would match nothing, so it is refused.
    if not isinstance(pattern, dict) or not isinstance(pattern.get("or_criteria"), list):
        raise bad_request("file_matching_pattern needs or_criteria", field)
    if not pattern["or_criteria"]:
        raise bad_request("or_criteria must have at least one item", field)
    for group in pattern["or_criteria"]:
        if not isinstance(group, dict) or not isinstance(group.get("and_criteria"), list):
            raise bad_request("each or_criteria item needs and_criteria", field)
        if not group["and_criteria"]:
            raise bad_request("and_criteria must have at least one item", field)
        for criterion in group["and_criteria"]:
            if not isinstance(criterion, dict):
                raise bad_request("each and_criteria item must be an object", field)
            kind = criterion.get("type")
            if kind not in CRITERION_TYPES:
                raise bad_request(f"Unknown criterion type {kind!r}", field)
            if kind == "custom_attribute" and criterion.get("attribute_exists") is not None:
                continue  # "exists" carries no operator [dellemc.powerscale]
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
                # numeric types come back as JSON numbers [PAPI schemas]
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
        # The v12 wire type of the id is unverified; the SDK models an
        # int id, creation answers with the name.
        "id": max([p["id"] for p in state["filepool_policies"]] + [0]) + 1,
        "name": name,
        "description": _description(body.get("description", "")),
        "apply_order": len(state["filepool_policies"]) + 1,
        "birth_cluster_id": state["cluster"]["guid"],
        "state": "OK",
        "state_details": "",
        "file_matching_pattern": validate_pattern(body["file_matching_pattern"]),
        "actions": validate_actions(state, body.get("actions", [])),
    }
    # A policy that does nothing is refused (unverified: no public capture of the
    # cluster's answer; `isi filepool policies create` documents no such policy).
    if not any(a.get("action_param") is not None for a in policy["actions"]):
        raise ApiError(400, "AEC_ARG_REQUIRED", "A file pool policy needs an action", "actions")
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
        policy["description"] = _description(body["description"])
    if "file_matching_pattern" in body:
        policy["file_matching_pattern"] = validate_pattern(body["file_matching_pattern"])
    if "actions" in body:
        policy["actions"] = validate_actions(state, body["actions"])
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


NOBODY = {"id": "USER:nobody", "name": "nobody", "type": "user"}
# Every field an export shows, with OneFS's defaults as the SDK models document them
# [isilon-sdk models]. The numbers are the documented defaults where the model
# states one (transfer sizes 9.10: read 1048576, write 1048576 max); the rest are
# unverified lab defaults chosen inside the model's ranges.
EXPORT_DEFAULTS: dict[str, Any] = {
    "zone": "System", "description": "", "paths": [],
    "clients": [], "root_clients": [], "read_only_clients": [], "read_write_clients": [],
    "unresolved_clients": [], "conflicting_paths": [],
    "read_only": False, "all_dirs": False, "security_flavors": ["unix"], "snapshot": "-",
    "map_root": {"enabled": True, "user": NOBODY, "primary_group": {}, "secondary_groups": []},
    "map_non_root": {"enabled": False, "user": NOBODY, "primary_group": {},
                     "secondary_groups": []},
    "map_all": {"enabled": False, "user": NOBODY, "primary_group": {}, "secondary_groups": []},
    "map_failure": {"enabled": False, "user": NOBODY, "primary_group": {},
                    "secondary_groups": []},
    "map_full": True, "map_lookup_uid": False, "map_retry": True,
    "block_size": 8192, "can_set_time": True, "case_insensitive": False,
    "case_preserving": True, "chown_restricted": False, "commit_asynchronous": False,
    "directory_transfer_size": 131072, "encoding": "DEFAULT", "link_max": 32767,
    "max_file_size": 9223372036854775807, "name_max_size": 255, "no_truncate": False,
    "read_transfer_max_size": 1048576, "read_transfer_multiple": 512,
    "read_transfer_size": 131072, "readdirplus": True, "readdirplus_prefetch": 10,
    "return_32bit_file_ids": False, "setattr_asynchronous": False, "symlinks": True,
    "time_delta": 1e-09, "write_datasync_action": "DATASYNC", "write_datasync_reply": "DATASYNC",
    "write_filesync_action": "FILESYNC", "write_filesync_reply": "FILESYNC",
    "write_transfer_max_size": 1048576, "write_transfer_multiple": 512,
    "write_transfer_size": 524288, "write_unstable_action": "UNSTABLE",
    "write_unstable_reply": "UNSTABLE",
}  # fmt: skip
EXPORT_FIELDS = set(EXPORT_DEFAULTS) - {"unresolved_clients", "conflicting_paths"}
_EXPORT_LISTS = {"clients", "root_clients", "read_only_clients", "read_write_clients"}
_EXPORT_BOOLS = {k for k, v in EXPORT_DEFAULTS.items() if isinstance(v, bool)}
_EXPORT_INTS = {
    k for k, v in EXPORT_DEFAULTS.items() if isinstance(v, int) and not isinstance(v, bool)
}
SECURITY_FLAVORS = {"unix", "krb5", "krb5i", "krb5p"}


def _validate_export_fields(body: dict[str, Any]) -> None:
    """Types and enums of the export fields [isilon-sdk models]."""
    for key, value in body.items():
        if key in _EXPORT_BOOLS and not isinstance(value, bool):
            raise bad_request(f"Field {key} must be a boolean, got {value!r}", key)
        if key in _EXPORT_INTS and (isinstance(value, bool) or not isinstance(value, int)):
            raise bad_request(f"Field {key} must be an integer, got {value!r}", key)
        if key in _EXPORT_LISTS and (
            not isinstance(value, list) or not all(isinstance(v, str) for v in value)
        ):
            raise bad_request(f"Field {key} must be a list of strings", key)
        if key == "security_flavors" and (
            not isinstance(value, list) or not value or not set(value) <= SECURITY_FLAVORS
        ):
            raise bad_request(f"security_flavors must be from {sorted(SECURITY_FLAVORS)}", key)
        persona = isinstance(EXPORT_DEFAULTS.get(key), dict)
        if persona and (
            not isinstance(value, dict) or not isinstance(value.get("enabled", True), bool)
        ):
            raise bad_request(f"Field {key} must be a persona mapping object", key)
        if key == "description" and (not isinstance(value, str) or len(value) > 8192):
            raise bad_request("description must be a string of at most 8192 characters", key)


_HOST_NAME = re.compile(
    r"(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*"
)


def _resolvable(client: str) -> bool:
    """A client the cluster can match: an address, a network in CIDR form, or a host
    name. The lab has no name service of the cluster's: a well-formed name counts as
    resolved (a name the real cluster's DNS lacks is refused there: unverified here)."""
    try:
        if "/" in client:
            ipaddress.ip_network(client, strict=False)
        else:
            ipaddress.ip_address(client)
        return True
    except ValueError:
        return "/" not in client and bool(_HOST_NAME.fullmatch(client))


def _export_clients(body: dict[str, Any], ignore_unresolvable: bool) -> list[str]:
    """The clients of the body that cannot be resolved. The create and modify calls take
    `ignore_unresolvable_hosts` [isilon-sdk NfsApi.create_nfs_export,
    update_nfs_export] because the cluster refuses such clients by default; with it, they
    are kept apart in `unresolved_clients`. The error text is unverified."""
    bad = [
        client
        for key in sorted(_EXPORT_LISTS & set(body))
        for client in body[key]
        if not _resolvable(client)
    ]
    if bad and not ignore_unresolvable:
        raise bad_request(f"Unresolvable client(s): {', '.join(bad)}", "clients")
    return bad


def _persona(mapping: dict[str, Any]) -> dict[str, Any]:
    """A map_* object as the cluster shows it: the user resolved to id, name and type."""
    out = {"enabled": True, "primary_group": {}, "secondary_groups": [], **mapping}
    user = dict(out.get("user") or NOBODY)
    ident = user.get("id") or "USER:" + str(user.get("name", "nobody"))
    user = {"id": ident, "name": user.get("name") or ident.split(":", 1)[-1], "type": "user"}
    out["user"] = user
    return out


def _export_paths(
    state: dict[str, Any], paths: Any, zone: str, ifs_root: str | None, skip: int | None
) -> list[str]:
    """Paths that exist under /ifs and no other export of the zone already names.

    The create query's ignore_bad_paths / ignore_conflicts flags [isilon-sdk] exist
    because the cluster refuses both by default. Codes: a missing path is
    AEC_BAD_REQUEST, a duplicate is AEC_CONFLICT (EEXIST [isi_rest_server]); the
    messages are unverified.
    """
    if not isinstance(paths, list) or not paths or not all(isinstance(p, str) for p in paths):
        raise ApiError(400, "AEC_ARG_REQUIRED", "Field paths is required", "paths")
    for path in paths:
        if path != "/ifs" and not path.startswith("/ifs/"):
            raise bad_request(f"Export path {path} is not under /ifs", "paths")
        local = os.path.join(ifs_root, os.path.relpath(path, "/ifs")) if ifs_root else None
        if local is not None and not os.path.isdir(local):
            raise bad_request(f"Export path {path} does not exist", "paths")
        for other in state["nfs_exports"]:
            if other["id"] != skip and other["zone"] == zone and path in other["paths"]:
                raise ApiError(
                    409,
                    "AEC_CONFLICT",
                    f"Export {other['id']} in zone {zone} already exports {path}",
                    "paths",
                )
    return paths


def create_export(
    state: dict[str, Any],
    body: dict[str, Any],
    zone: str,
    ifs_root: str | None = None,
    ignore_unresolvable: bool = False,
) -> int:
    _only(body, EXPORT_FIELDS)
    zone = body.get("zone", zone)
    if zone not in {z["name"] for z in zones(state)}:
        raise not_found(f"Zone {zone}")
    _validate_export_fields(body)
    unresolved = _export_clients(body, ignore_unresolvable)
    paths = _export_paths(state, body.get("paths"), zone, ifs_root, None)
    export = copy.deepcopy(EXPORT_DEFAULTS)
    export.update(copy.deepcopy(body))
    export["unresolved_clients"] = unresolved
    for key in ("map_root", "map_non_root", "map_all", "map_failure"):
        export[key] = _persona(export[key])
    export.update(id=state["next_export_id"], zone=zone, paths=paths)
    state["next_export_id"] += 1
    state["nfs_exports"].append(export)
    return export["id"]


def find_export(state: dict[str, Any], ref: str, zone: str | None = None) -> dict[str, Any]:
    for export in state["nfs_exports"]:
        if str(export["id"]) == str(ref) and zone in (None, export["zone"]):
            return export
    raise not_found(f"Export {ref}")


def update_export(
    state: dict[str, Any],
    ref: str,
    body: dict[str, Any],
    zone: str | None = None,
    ifs_root: str | None = None,
    ignore_unresolvable: bool = False,
) -> None:
    _only(body, EXPORT_FIELDS - {"zone"})
    export = find_export(state, ref, zone)
    _validate_export_fields(body)
    if _EXPORT_LISTS & set(body):
        kept = {key: value for key, value in export.items() if key in _EXPORT_LISTS}
        export["unresolved_clients"] = _export_clients({**kept, **body}, ignore_unresolvable)
    if "paths" in body:
        _export_paths(state, body["paths"], export["zone"], ifs_root, export["id"])
    change = copy.deepcopy(body)
    for key in ("map_root", "map_non_root", "map_all", "map_failure"):
        if key in change:
            change[key] = _persona(change[key])
    export.update(change)


def zones(state: dict[str, Any]) -> list[dict[str, Any]]:
    """Access zones: the System zone every cluster has [isilon-sdk, dellemc.powerscale]."""
    return [
        {
            "id": "System", "zone_id": 1, "name": "System", "path": "/ifs",
            "groupnet": state["cluster"]["network"]["groupnet"], "system": True,
            "auth_providers": ["lsa-local-provider:System", "lsa-file-provider:System"],
            "alternate_system_provider": "lsa-file-provider:System",
            "system_provider": "lsa-file-provider:System",
            "cache_entry_expiry": 14400, "negative_cache_entry_expiry": 60,
            "create_path": False, "force_overlap": False, "home_directory_umask": 63,
            "ifs_restricted": [], "map_untrusted": "", "netbios_name": "",
            "skeleton_directory": "/usr/share/skel", "user_mapping_rules": [],
        }
    ]  # fmt: skip


def start_job(
    state: dict[str, Any],
    body: dict[str, Any],
    files: int = 0,
    clock: dict[str, float] | None = None,
) -> dict[str, Any]:
    """Validate a job start [isilon-sdk: JobJobCreateParams] and hand it to the job engine.

    A second job of a type that does not allow multiple instances, while one is running
    or paused, is refused unless allow_dup asks for it to be queued. The cluster's exact
    answer is unverified (isilon-sdk only says allow_dup decides whether to queue it); the
    simulator answers 409 AEC_CONFLICT, the code OneFS maps EEXIST to [isi_rest_server],
    naming the job.
    """
    _only(
        body,
        {"type", "paths", "policy", "priority", "allow_dup", "smartpoolstree_params",
         "filepolicy_params", "treedelete_params"},
    )  # fmt: skip
    kind = body.get("type")
    if not kind:
        raise ApiError(400, "AEC_ARG_REQUIRED", "Field type is required", "type")
    if kind not in state["job_types"]:
        raise bad_request(f"Unknown job type {kind}", "type")
    priority = body.get("priority")
    if priority is not None and (
        isinstance(priority, bool) or not isinstance(priority, int) or not 1 <= priority <= 10
    ):
        raise bad_request(f"priority must be an integer from 1 to 10, got {priority!r}", "priority")
    if "policy" in body and body["policy"] not in jobs.POLICIES:
        raise bad_request(
            f"Unknown impact policy {body['policy']!r}; known: {', '.join(sorted(jobs.POLICIES))}",
            "policy",
        )
    if "allow_dup" in body and not isinstance(body["allow_dup"], bool):
        raise bad_request("allow_dup must be a boolean", "allow_dup")
    paths = body.get("paths")
    if paths is not None and (
        not isinstance(paths, list)
        or not all(isinstance(p, str) and (p == "/ifs" or p.startswith("/ifs/")) for p in paths)
    ):
        raise bad_request("paths must be a list of paths under /ifs", "paths")
    if not state["job_types"][kind]["enabled"]:
        raise ApiError(409, "AEC_CONFLICT", f"Job type {kind} is disabled")
    active = [j for j in state["jobs"] if j["type"] == kind and j["state"] not in jobs.FINAL_STATES]
    if (
        active
        and not body.get("allow_dup")
        and not state["job_types"][kind]["allow_multiple_instances"]
    ):
        raise ApiError(
            409,
            "AEC_CONFLICT",
            f"A {kind} job is already {active[0]['state']} (id {active[0]['id']})",
        )
    return jobs.create(state, body, files, clock or dict(jobs.DEFAULT_TIMING))


def find_job(state: dict[str, Any], ref: str) -> dict[str, Any]:
    for job in state["jobs"]:
        if str(job["id"]) == str(ref):
            return job
    raise not_found(f"Job {ref}")


SETTINGS_ENUMS = {
    "automatically_manage_io_optimization": {"all", "files_at_default", "none"},
    "automatically_manage_protection": {"all", "files_at_default", "none"},
    "ssd_qab_mirrors": {"one", "all"},
    "ssd_system_btree_mirrors": {"one", "all"},
    "ssd_system_delta_mirrors": {"one", "all"},
}
SETTINGS_BOOLS = {
    "global_namespace_acceleration_enabled", "protect_directories_one_level_higher",
    "spillover_enabled", "ssd_l3_cache_default_enabled", "virtual_hot_spare_deny_writes",
    "virtual_hot_spare_hide_spare",
}  # fmt: skip
SETTINGS_RANGES = {"virtual_hot_spare_limit_drives": (0, 4),
                   "virtual_hot_spare_limit_percent": (0, 20)}  # fmt: skip


def update_sp_settings(state: dict[str, Any], body: dict[str, Any], version: int) -> None:
    """PUT storagepool/settings with the types, enums and ranges of isilon-sdk's models."""
    allowed = set(SETTINGS_ENUMS) | SETTINGS_BOOLS | set(SETTINGS_RANGES) | {"spillover_target"}
    if version >= 18:
        allowed |= {"default_transfer_limit_pct", "default_transfer_limit_state"}
    _only(body, allowed)
    settings = state["storagepool_settings"]
    change = dict(body)
    for key, value in body.items():
        if key in SETTINGS_BOOLS and not isinstance(value, bool):
            raise bad_request(f"Field {key} must be a boolean, got {value!r}", key)
        if key in SETTINGS_ENUMS and value not in SETTINGS_ENUMS[key]:
            raise bad_request(f"Field {key} must be one of {sorted(SETTINGS_ENUMS[key])}", key)
        if key in SETTINGS_RANGES:
            low, high = SETTINGS_RANGES[key]
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise bad_request(f"Field {key} must be an integer from {low} to {high}", key)
        if key == "default_transfer_limit_pct" and (
            isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100
        ):
            raise bad_request(f"Field {key} must be an integer from 0 to 100", key)
        if key == "default_transfer_limit_state" and value != "disabled":
            raise bad_request(f"Field {key} must be disabled", key)
        if key == "spillover_target":
            change[key] = _spillover(state, value)
    settings.update(change)


def _spillover(state: dict[str, Any], value: Any) -> dict[str, Any]:
    """PUT {name_or_id, type: storagepool|anywhere} -> GET {id, name, type: tier|nodepool|
    anywhere} [isilon-sdk models]."""
    if not isinstance(value, dict) or value.get("type") not in ("storagepool", "anywhere"):
        raise bad_request("spillover_target needs type storagepool or anywhere", "spillover_target")
    if value["type"] == "anywhere":
        return {"type": "anywhere"}
    ref = value.get("name_or_id")
    for tier in state["tiers"]:
        if str(tier["id"]) == str(ref) or tier["name"] == ref:
            return {"id": tier["id"], "name": tier["name"], "type": "tier"}
    for pool in state["nodepools"]:
        if str(pool["id"]) == str(ref) or pool["name"] == ref:
            return {"id": pool["id"], "name": pool["name"], "type": "nodepool"}
    raise bad_request(f"Storage pool {ref} not found", "spillover_target")


# ---- helpers --------------------------------------------------------------------------


def _only(body: Any, allowed: set[str], field: str | None = None) -> None:
    if not isinstance(body, dict):
        raise bad_request("The request body must be a JSON object", field)
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise bad_request(f"Field: {unknown[0]} is not allowed", field or unknown[0])


def _description(value: Any) -> str:
    """A policy description: a string of at most 255 characters [isilon-sdk models]."""
    if not isinstance(value, str) or len(value) > 255:
        raise bad_request("description must be a string of at most 255 characters", "description")
    return value


def _name(value: Any, field: str, limit: int = 255) -> str:
    if not isinstance(value, str) or not value:
        raise ApiError(400, "AEC_ARG_REQUIRED", f"Field {field} is required", field)
    if len(value) > limit:
        raise ApiError(400, "AEC_NAMETOOLONG", f"{field} is longer than {limit}", field)
    if "/" in value:
        raise ApiError(400, "AEC_NAMEILLEGAL", f"{field} may not contain '/'", field)
    return value
