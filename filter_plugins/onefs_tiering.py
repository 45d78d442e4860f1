"""OneFS objects worked out from the inventory's short forms (the onefs_tiering role)."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

try:
    from ansible.errors import AnsibleFilterError
    from ansible.module_utils.parsing.convert_bool import boolean
except ImportError:  # unit tests without ansible on the path
    AnsibleFilterError = ValueError  # type: ignore[misc,assignment]
    boolean = None  # onefs_writes needs ansible: module_utils/onefs.py imports it


def _load_onefs() -> Any:
    """module_utils/onefs.py, where the apply modules decide what they write.

    Loaded by path: on the control host module_utils is not importable as a package.
    """
    name = "_dlcluster_onefs"
    if name not in sys.modules:
        path = Path(__file__).resolve().parents[1] / "module_utils" / "onefs.py"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def onefs_policy_pattern(policy: Mapping[str, Any]) -> dict[str, Any] | None:
    """The file_matching_pattern of a file pool policy item of onefs_tiering_policies.

    An item gives either the API's own `file_matching_pattern`, or `idle_days`: the
    papers' "not accessed for N days", which is one criterion on the access time
    (`accessed is_older_than N days`). None when it gives neither (a policy that only
    changes its actions, or one being removed).
    """
    if policy.get("file_matching_pattern") is not None:
        return dict(policy["file_matching_pattern"])
    if policy.get("idle_days") is None:
        return None
    days = policy["idle_days"]
    if isinstance(days, bool) or not str(days).strip().isdigit() or int(days) < 1:
        raise AnsibleFilterError(
            f"onefs_tiering_policies: policy {policy.get('name')!r} has idle_days {days!r}; "
            "it must be a whole number of days, 1 or more"
        )
    criterion = {
        "type": "accessed",
        "condition": "is_older_than",
        "relative_datetime_count": {"time_value": int(days), "time_unit": "days"},
    }
    return {"or_criteria": [{"and_criteria": [criterion]}]}


def _names(items: Any) -> list[str]:
    return [str(item.get("name")) for item in items or [] if isinstance(item, Mapping)]


# The criterion types whose value is a number, in either form (dellemc.powerscale's and
# the OneFS API's FilePoolPolicy model), and how each form gives the unit.
_TIME_TYPES = {"accessed", "created", "modified", "metadata_changed", "accessed_time",
               "birth_time", "changed_time", "metadata_changed_time"}  # fmt: skip
_SIZE_TYPES = {"size"}


def _number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    try:
        return float(value) >= 0
    except (TypeError, ValueError):
        return False


def criterion_problems(where: str, criterion: Mapping[str, Any]) -> list[str]:
    """A size or time criterion whose value is not a number of its unit, or that gives no
    unit: the cluster refuses a value such as '100GB' (the lab's simulator, after the
    API's schema), and a size without its unit would be read as bytes."""
    kind = criterion.get("type")
    api = "operator" in criterion
    if kind in _SIZE_TYPES:
        if api:
            if not _number(criterion.get("value")):
                return [
                    f"{where}.value is {criterion.get('value')!r}; a size is a number of `units`"
                ]
            if criterion.get("units") is None:
                return [f"{where}: a size criterion needs its units (B, KB, MB, GB, TB, PB, EB)"]
        elif not isinstance(criterion.get("size_info"), Mapping):
            return [f"{where}: a size criterion needs size_info (size_value and size_unit)"]
    if kind in _TIME_TYPES:
        if api and not _number(criterion.get("value")):
            what = "an age in seconds" if criterion.get("use_relative_time") else "a timestamp"
            return [f"{where}.value is {criterion.get('value')!r}; it must be {what} (a number)"]
        relative = isinstance(criterion.get("relative_datetime_count"), Mapping)
        if not api and not relative and not _number(criterion.get("value")):
            return [
                f"{where}: a time criterion needs relative_datetime_count (time_value and"
                " time_unit) or a timestamp as its value"
            ]
    return []


def _pattern_problems(policies: Any) -> list[str]:
    problems = []
    for index, policy in enumerate(policies or []):
        pattern = policy.get("file_matching_pattern") if isinstance(policy, Mapping) else None
        if not isinstance(pattern, Mapping):
            continue
        for group_index, group in enumerate(pattern.get("or_criteria") or []):
            if not isinstance(group, Mapping):
                continue
            for item_index, criterion in enumerate(group.get("and_criteria") or []):
                if isinstance(criterion, Mapping):
                    where = (
                        f"onefs_tiering_policies[{index}].file_matching_pattern"
                        f".or_criteria[{group_index}].and_criteria[{item_index}]"
                    )
                    problems += criterion_problems(where, criterion)
    return problems


def onefs_tiering_problems(
    tiers: Any, policies: Any, default_policy: Any, exports: Any
) -> list[str]:
    """How the tiers, policies and exports of an inventory fail to fit together.

    OneFS refuses a policy whose storage pool is neither a tier nor a node pool, a node
    pool in two tiers, two policies or tiers of one name and two exports of one path (the
    exact errors are unverified: a public copy of OneFS's isi_rest_server source maps
    EEXIST to 409 AEC_CONFLICT, and dellemc.powerscale's filepoolpolicy module checks the
    pool itself); refused one by one while the role applies them, they would leave the
    cluster half-changed. The node pools a cluster has are read from it when the role
    starts; here a name is known when the inventory declares it, as a tier or as a node
    pool of one.
    """
    problems = []
    present = [t for t in tiers or [] if isinstance(t, Mapping) and t.get("state") != "absent"]
    for kind, names in (("onefs_tiering_tiers", _names(tiers)),
                        ("onefs_tiering_policies", _names(policies))):  # fmt: skip
        for name in sorted({n for n in names if names.count(n) > 1}):
            problems.append(f"{kind}: {name!r} is named {names.count(name)} times")
    owner: dict[str, str] = {}
    for tier in present:
        for pool in tier.get("nodepools") or []:
            if pool in owner and owner[pool] != tier.get("name"):
                problems.append(
                    f"onefs_tiering_tiers: node pool {pool!r} is in tiers {owner[pool]!r} and "
                    f"{tier.get('name')!r}; a node pool can be in one tier only"
                )
            owner.setdefault(pool, str(tier.get("name")))
    known = set(_names(present)) | set(owner)
    wanted = [
        (f"onefs_tiering_policies[{index}].{key}", policy.get(key))
        for index, policy in enumerate(policies or [])
        if isinstance(policy, Mapping) and policy.get("state") != "absent"
        for key in ("storagepool", "snapshot_storagepool")
    ] + [
        (f"onefs_tiering_default_policy.{key}", (default_policy or {}).get(key))
        for key in ("storagepool", "snapshot_storagepool")
    ]
    for path, pool in wanted:
        if pool is not None and pool not in known:
            problems.append(
                f"{path} is {pool!r}, which is neither a tier nor a node pool of one "
                f"(declared: {', '.join(sorted(known)) or 'none'})"
            )
    problems += _pattern_problems(policies)
    paths = []
    for index, export in enumerate(exports or []):
        if not isinstance(export, Mapping) or export.get("state") == "absent":
            continue
        path = str(export.get("path", ""))
        normal = "/" + "/".join(part for part in path.split("/") if part)
        if (normal != "/ifs" and not normal.startswith("/ifs/")) or ".." in path.split("/"):
            problems.append(
                f"onefs_tiering_exports[{index}].path is {path!r}; an export is a directory "
                "under /ifs"
            )
        if normal in paths:
            problems.append(
                f"onefs_tiering_exports[{index}].path {path!r} is exported twice; "
                "OneFS has one export per path in a zone"
            )
        paths.append(normal)
    return problems


# ---- the plan: the inventory's desired state, normalized once ------------------------------

# The keys of each item the role writes (onefs_writes, onefs_change_set): the inventory's
# short forms of the OneFS API's objects (Dell PowerScale OneFS API Reference:
# storagepool/tiers, filepool/default-policy, filepool/policies, protocols/nfs/exports).
_TIER_KEYS = ("name", "nodepools")
_POOL_KEYS = ("storagepool", "ssd_strategy", "snapshot_storagepool", "snapshot_ssd_strategy")
_DEFAULT_POLICY_KEYS = (*_POOL_KEYS, "data_access_pattern", "enable_coalescer")
_POLICY_KEYS = ("name", "description", "apply_order", *_POOL_KEYS)
_EXPORT_KEYS = ("path", "description", "clients", "root_clients", "read_only", "map_root_user")


def _items(settings: Mapping[str, Any], key: str, required: str) -> list[Mapping[str, Any]]:
    """settings[key] as a list of mappings that each give `required`, or an error naming
    the item (onefs_writes would fail on it with a bare KeyError)."""
    items = settings.get(key)
    if items is None:
        return []
    if not isinstance(items, Sequence) or isinstance(items, (str, bytes)):
        raise AnsibleFilterError(f"onefs_tiering_{key} is {items!r}; it must be a list")
    for index, item in enumerate(items):
        if not isinstance(item, Mapping) or item.get(required) in (None, ""):
            raise AnsibleFilterError(
                f"onefs_tiering_{key}[{index}] is {item!r}; each item needs its {required}"
            )
    return list(items)


def _picked(item: Mapping[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    """The item's given keys (a null one is not given: the role's `default(omit)`)."""
    return {key: item[key] for key in keys if item.get(key) is not None}


def onefs_tier_nodepools(tiers: Any) -> list[str]:
    """The node pools the tiers kept on the cluster (every tier but `state: absent`) are
    built from, each once, in the inventory's order: what must exist on the cluster
    (checked against onefs_info's node pools before any write)."""
    pools: list[str] = []
    for tier in tiers or []:
        if isinstance(tier, Mapping) and tier.get("state") != "absent":
            pools += [str(p) for p in tier.get("nodepools") or [] if str(p) not in pools]
    return pools


def onefs_tiering_plan(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The role's desired state, from the inventory alone: the one reading of the
    onefs_tiering_* inputs that the apply (onefs_writes) and the offline change set
    (onefs_change_set) both take, published as the fact onefs_tiering_plan
    (roles/onefs_tiering/README.md).

    `settings`: access_time ({enabled, precision_days}), tiers, default_policy, policies,
    exports, as the inventory gives them. Each item keeps the keys the role writes, a
    null one dropped, with the argument specs' defaults filled in (`state: present`, a
    pool's SSD strategy `metadata`); a policy's `idle_days` becomes the criterion it
    stands for (onefs_policy_pattern: `accessed is_older_than N days`, the
    FilepoolPolicyFileMatchingPattern of the OneFS API and isilon-sdk), so the plan
    holds every policy's file_matching_pattern as written. Booleans and numbers are
    converted as the modules read them (`-e` gives strings); a value they refuse is
    kept, for the module to say why. Adds `nodepools` (onefs_tier_nodepools). A list
    that is not a list of mappings, or an item without its name (path for an export),
    is refused by name.
    """
    settings = settings or {}
    access_time = settings.get("access_time") or {}
    if not isinstance(access_time, Mapping):
        raise AnsibleFilterError(f"the access-time setting {access_time!r} is not a mapping")
    default_policy = settings.get("default_policy")
    if default_policy is None:
        default_policy = {}
    if not isinstance(default_policy, Mapping):
        raise AnsibleFilterError(
            f"onefs_tiering_default_policy is {default_policy!r}; it must be a mapping"
        )

    tiers = [
        {**_picked(tier, _TIER_KEYS), "state": tier.get("state") or "present"}
        for tier in _items(settings, "tiers", "name")
    ]

    default = _picked(default_policy, _DEFAULT_POLICY_KEYS)
    if "enable_coalescer" in default:
        default["enable_coalescer"] = _bool(default["enable_coalescer"])

    policies = []
    for policy in _items(settings, "policies", "name"):
        item = _picked(policy, _POLICY_KEYS)
        if "apply_order" in item:
            item["apply_order"] = _int(item["apply_order"])
        pattern = onefs_policy_pattern(policy)
        if pattern is not None:
            item["file_matching_pattern"] = pattern
        for pool, strategy in (("storagepool", "ssd_strategy"),
                               ("snapshot_storagepool", "snapshot_ssd_strategy")):  # fmt: skip
            if pool in item:
                item.setdefault(strategy, "metadata")
        item["state"] = policy.get("state") or "present"
        policies.append(item)

    exports = []
    for export in _items(settings, "exports", "path"):
        item = _picked(export, _EXPORT_KEYS)
        if "read_only" in item:
            item["read_only"] = _bool(item["read_only"])
        item["state"] = export.get("state") or "present"
        exports.append(item)

    return {
        "access_time": {
            "enabled": _bool(access_time.get("enabled")),
            "precision_days": _int(access_time.get("precision_days")),
        },
        "tiers": tiers,
        "nodepools": onefs_tier_nodepools(tiers),
        "default_policy": default,
        "policies": policies,
        "exports": exports,
    }


def _recorded(recorded: Any, key: str) -> dict[str, Mapping[str, Any]]:
    """A recorded list (onefs_info's answer) by name; exports by each of their `paths`
    (an NFS export of the API serves a list of paths)."""
    items = [item for item in (recorded or {}).get(key) or [] if isinstance(item, Mapping)]
    if key != "nfs_exports":
        return {str(item.get("name")): item for item in items}
    return {str(path): item for item in items for path in item.get("paths") or []}


def _entry(kind: str, name: str, action: str, **detail: Any) -> dict[str, Any]:
    return {"object": kind, "name": name, "action": action, **detail}


def onefs_change_set(
    tiers: Any,
    policies: Any,
    default_policy: Mapping[str, Any],
    exports: Any,
    recorded: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """What the onefs_tiering role would change, in the order it applies it (tiers,
    default policy, policies, exports, then one SmartPools job), against a recorded
    cluster state: the `onefs` answer of onefs_info (nodepools, tiers,
    filepool_policies, default_policy, nfs_exports). Without one, against an empty
    cluster: everything present is created. Each entry: object, name, action (create,
    modify, remove, unchanged) and, for a change, what differs."""
    changes: list[dict[str, Any]] = []
    have = _recorded(recorded, "tiers")
    for tier in tiers or []:
        name, pools = str(tier["name"]), sorted(tier.get("nodepools") or [])
        if tier.get("state") == "absent":
            if name in have:
                changes.append(_entry("tier", name, "remove"))
            continue
        if name not in have:
            changes.append(_entry("tier", name, "create", nodepools=pools))
        elif sorted(have[name].get("children") or []) != pools:
            was = sorted(have[name].get("children") or [])
            changes.append(_entry("tier", name, "modify", nodepools=pools, was=was))
        else:
            changes.append(_entry("tier", name, "unchanged"))
    wanted = {"storagepool": default_policy.get("storagepool"),
              "ssd_strategy": default_policy.get("ssd_strategy")}  # fmt: skip
    current = ((recorded or {}).get("default_policy") or {}).get("actions") or []
    was = {}
    for action in current:
        if action.get("action_type") == "apply_data_storage_policy":
            was = {k: action.get("action_param", {}).get(k) for k in wanted}
    changes.append(
        _entry(
            "default policy",
            "default",
            "unchanged" if was == wanted else "modify",
            **({} if was == wanted else {"data": wanted, "was": was or None}),
        )
    )
    have = _recorded(recorded, "filepool_policies")
    for policy in policies or []:
        name = str(policy["name"])
        if policy.get("state") == "absent":
            if name in have:
                changes.append(_entry("file pool policy", name, "remove"))
            continue
        want = {"file_matching_pattern": onefs_policy_pattern(policy),
                "storagepool": policy.get("storagepool")}  # fmt: skip
        if name not in have:
            changes.append(_entry("file pool policy", name, "create", **want))
            continue
        old = have[name]
        pools = [a.get("action_param", {}).get("storagepool") for a in old.get("actions") or []
                 if a.get("action_type") == "apply_data_storage_policy"]  # fmt: skip
        was = {"file_matching_pattern": old.get("file_matching_pattern"),
               "storagepool": pools[0] if pools else None}  # fmt: skip
        differs = {k: v for k, v in want.items() if v is not None and v != was[k]
                   and (k != "file_matching_pattern" or _pattern_differs(was[k], v))}  # fmt: skip
        if differs:
            changes.append(_entry("file pool policy", name, "modify", **differs,
                                  was={k: was[k] for k in differs}))  # fmt: skip
        else:
            changes.append(_entry("file pool policy", name, "unchanged"))
    have = _recorded(recorded, "nfs_exports")
    for export in exports or []:
        path = str(export["path"])
        absent = export.get("state") == "absent"
        if absent and path in have:
            changes.append(_entry("NFS export", path, "remove"))
        elif not absent:
            changes.append(_entry("NFS export", path, "unchanged" if path in have else "create"))
    placement = [c for c in changes if c["object"] != "NFS export" and c["action"] != "unchanged"]
    if placement:
        changes.append(_entry("job", "SmartPools", "start", because=len(placement)))
    return changes


def _given(**params: Any) -> dict[str, Any]:
    """Module parameters without those not given (the role's `default(omit)`)."""
    return {k: v for k, v in params.items() if v is not None}


def _target(storagepool: Any, ssd_strategy: Any) -> dict[str, Any] | None:
    if storagepool is None:
        return None
    return {"storagepool": storagepool, "ssd_strategy": ssd_strategy or "metadata"}


def onefs_writes(
    recorded: Mapping[str, Any],
    access_time: Mapping[str, Any],
    tiers: Any,
    default_policy: Mapping[str, Any],
    policies: Any,
    exports: Any,
) -> dict[str, Any]:
    """The onefs_tiering role's inputs as its apply modules' parameters, each kept only
    where that module would write: what the role runs after its one onefs_info read
    (`recorded`: access_time, tiers, default_policy, filepool_policies, nfs_exports).

    The modules' own decisions (module_utils/onefs.py) are made from the recorded state,
    so a converged cluster runs no apply module, a hand edit on the cluster is written
    back, and check mode and --diff still show every difference (the modules that run
    show it). An input the module would refuse is kept, so that the module says why.
    Returns {access_time: params or None, tiers: [params], default_policy: params or
    None, policies: [params], exports: [params]}.
    """
    onefs = _load_onefs()
    recorded = recorded or {}
    writes: dict[str, Any] = {}

    wanted = onefs.access_time_wanted(
        _bool(access_time["enabled"]), precision_days=_int(access_time.get("precision_days"))
    )
    settings = recorded.get("access_time") or {}
    writes["access_time"] = (
        dict(access_time) if onefs.access_time_change(settings, wanted) else None
    )

    have = recorded.get("tiers") or []
    writes["tiers"] = []
    for tier in tiers or []:
        params = _given(tier_name=tier["name"], nodepools=tier.get("nodepools"),
                        state=tier.get("state") or "present")  # fmt: skip
        current = onefs.find_tier(have, params["tier_name"])
        if onefs.tier_action(current, params.get("nodepools"), params["state"]):
            writes["tiers"].append(params)

    params = _given(
        apply_data_storage_policy=_target(default_policy.get("storagepool"),
                                          default_policy.get("ssd_strategy")),
        apply_snapshot_storage_policy=_target(default_policy.get("snapshot_storagepool"),
                                              default_policy.get("snapshot_ssd_strategy")),
        set_data_access_pattern=default_policy.get("data_access_pattern"),
        enable_coalescer=_bool(default_policy.get("enable_coalescer")),
    )  # fmt: skip
    current = ((recorded.get("default_policy") or {}).get("actions")) or []
    changed = onefs.merge_actions(current, onefs.desired_actions(params))[1]
    writes["default_policy"] = params if changed else None

    have = {str(p.get("name")): p for p in recorded.get("filepool_policies") or []}
    writes["policies"] = []
    for policy in policies or []:
        params = _given(
            policy_name=policy["name"],
            description=policy.get("description"),
            apply_order=policy.get("apply_order"),
            file_matching_pattern=onefs_policy_pattern(policy) or None,
            apply_data_storage_policy=_target(policy.get("storagepool"),
                                              policy.get("ssd_strategy")),
            apply_snapshot_storage_policy=_target(policy.get("snapshot_storagepool"),
                                                  policy.get("snapshot_ssd_strategy")),
            state=policy.get("state") or "present",
        )  # fmt: skip
        if _policy_writes(onefs, have.get(str(policy["name"])), params):
            writes["policies"].append(params)

    have = recorded.get("nfs_exports") or []
    writes["exports"] = []
    for export in exports or []:
        params = _given(
            path=export["path"],
            description=export.get("description"),
            clients=export.get("clients"),
            root_clients=export.get("root_clients"),
            read_only=_bool(export.get("read_only")),
            map_root=({"enabled": True, "user": export["map_root_user"]}
                      if export.get("map_root_user") is not None else None),
            state=export.get("state") or "present",
        )  # fmt: skip
        current = onefs.find_export(have, params["path"])
        writes_it = _presence_writes(current, params)
        if writes_it is None:
            writes_it = bool(onefs.export_change(current, onefs.export_wanted(params)))
        if writes_it:
            writes["exports"].append(params)
    return writes


def _presence_writes(current: Mapping[str, Any] | None, params: Mapping[str, Any]) -> bool | None:
    """Whether a create or a remove is due (the resource is there and `state: absent`, or
    missing and wanted); None where it is there and wanted: then its fields decide."""
    if current is None or params["state"] == "absent":
        return (current is None) != (params["state"] == "absent")
    return None


def _policy_writes(onefs: Any, current: Mapping[str, Any] | None, params: dict[str, Any]) -> bool:
    presence = _presence_writes(current, params)
    if presence is not None:
        return presence
    try:
        pattern = onefs.to_papi_pattern(params.get("file_matching_pattern"))
    except ValueError:
        return True  # the module refuses it and says why
    if params.get("apply_order") is not None:
        params = {**params, "apply_order": _int(params["apply_order"])}
    wanted = onefs.desired_actions(params)
    return bool(onefs.policy_change(current, params, pattern, wanted))


def _bool(value: Any) -> Any:
    """A boolean as the modules' `bool` options read it, by Ansible's own conversion
    (`"false"` from `-e` is False); a value it refuses is passed on for the module to
    refuse."""
    if value is None:
        return None
    try:
        return boolean(value, strict=True)
    except TypeError:
        return value


def _int(value: Any) -> Any:
    try:
        return None if value is None else int(value)
    except (TypeError, ValueError):
        return value  # the module refuses it


def _pattern_differs(recorded: Any, wanted: Mapping[str, Any]) -> bool:
    """Whether a recorded pattern (the API's form, as onefs_info reads it) differs from
    the wanted one (the collection's form): the policy module's own comparison."""
    onefs = _load_onefs()
    try:
        return onefs.pattern_differs(recorded or {}, onefs.to_papi_pattern(wanted))
    except ValueError:
        return True


def _label(change: Mapping[str, Any]) -> str:
    return f"{change['object']} {change['name']!r} ({change['action']})"


def onefs_progress(
    planned: Sequence[Mapping[str, Any]],
    remaining: Sequence[Mapping[str, Any]] | None,
    job_started: bool = False,
) -> dict[str, list[str]]:
    """After a failed run: which of the changes planned at its start (onefs_change_set
    against the state read then) were applied, and which were not (the change set
    against the state read after the failure). `remaining` None: the cluster could not
    be read again, so nothing is known to be applied. The job counts as applied only
    when it was started."""
    wanted = [c for c in planned if c["action"] != "unchanged"]
    if remaining is None:
        return {"applied": [], "not_applied": [_label(c) for c in wanted], "known": False}
    left = {(c["object"], c["name"]) for c in remaining if c["action"] != "unchanged"}
    applied, not_applied = [], []
    for change in wanted:
        if change["object"] == "job":
            done = job_started
        else:
            done = (change["object"], change["name"]) not in left
        (applied if done else not_applied).append(_label(change))
    return {"applied": applied, "not_applied": not_applied, "known": True}


class FilterModule:
    """OneFS short forms."""

    def filters(self) -> dict[str, Any]:
        return {
            "onefs_policy_pattern": onefs_policy_pattern,
            "onefs_tiering_problems": onefs_tiering_problems,
            "onefs_change_set": onefs_change_set,
            "onefs_progress": onefs_progress,
            "onefs_writes": onefs_writes,
            "onefs_tier_nodepools": onefs_tier_nodepools,
            "onefs_tiering_plan": onefs_tiering_plan,
        }
