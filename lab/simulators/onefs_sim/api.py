"""HTTP side of the simulator: PAPI routing, authentication, JSON bodies and errors.

A route is one table entry (method, path pattern, API versions) and one handler; the
handlers only translate between HTTP and model.py. `/platform/N/x` is served by the
newest version of `x` that is <= N [OneFS API Reference, "API versions in OneFS";
isi_rest_server: versioned_mapper]. Sources in brackets: see the package docstring
(__init__.py).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import json
import re
import secrets
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse

from . import jobs, listing, model, objects, releases, smartpools, statistics

Handler = Callable[["Request"], tuple[int, Any]]
SESSION_TIMEOUT_ABSOLUTE = 14400
SESSION_TIMEOUT_INACTIVE = 900


class Request:
    """What a handler sees: the state store, path parameters, query, JSON body and the
    API version the request resolved to (the newest handler version <= the URL's)."""

    def __init__(
        self, server: Simulator, params: dict[str, str], query: dict, body: Any, version: int
    ):
        self.server = server
        self.params = params
        self.query = query
        self.body = body
        self.version = version

    def arg(self, name: str, default: str | None = None) -> str | None:
        values = self.query.get(name)
        return values[0] if values else default


ROUTES: list[tuple[str, re.Pattern[str], frozenset[int], Handler]] = []


def route(method: str, pattern: str, versions: set[int]) -> Callable[[Handler], Handler]:
    compiled = re.compile("^" + re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", pattern) + "$")

    def register(handler: Handler) -> Handler:
        ROUTES.append((method, compiled, frozenset(versions), handler))
        return handler

    return register


@contextlib.contextmanager
def _state(req: Request, write: bool = False) -> Iterator[dict[str, Any]]:
    """The state under the cluster lock, with every job brought up to now first.

    Jobs advance on every request (jobs.py), so the transaction always may write; a
    handler that raises leaves the state as it was (model.Store discards it).
    """
    server = req.server
    with server.store.transaction(write=True) as state:
        jobs.advance(state, server.finish_job)
        yield state


def _listed(req: Request, items: list[dict[str, Any]], key: str, **kwargs: Any) -> dict:
    opts, offset = listing.options(req.query)
    return listing.page(items, opts, offset, key, **kwargs)


# ---- storage pools [PAPI schemas, isilon-sdk] ---------------------------------------------

TIERS = {1, 16}
NODEPOOLS = {1, 3, 9, 16, 22}


def _with_usage(req: Request) -> tuple[dict[str, Any], dict[str, dict[str, int]]]:
    """The state and the node pools' used bytes (statistics.pool_used_bytes), counted
    after the lock is released: a walk over /ifs must not hold up the other nodes."""
    with _state(req) as state:
        pass
    return state, statistics.pool_used_bytes(state, req.server.ifs_root)


@route("GET", "storagepool/tiers", TIERS)
def list_tiers(req: Request) -> tuple[int, Any]:
    state, used = _with_usage(req)
    tiers = [model.tier_view(state, t, req.version, used) for t in state["tiers"]]
    return 200, {"tiers": tiers, "total": len(tiers)}


@route("POST", "storagepool/tiers", TIERS)
def create_tier(req: Request) -> tuple[int, Any]:
    with _state(req, write=True) as state:
        return 201, {"id": model.create_tier(state, req.body, req.version)}


@route("DELETE", "storagepool/tiers", TIERS)
def delete_all_tiers(req: Request) -> tuple[int, Any]:
    """DELETE on the collection deletes ALL tiers [isilon-sdk: delete_storagepool_tiers]."""
    with _state(req, write=True) as state:
        for tier in list(state["tiers"]):
            model.delete_tier(state, tier["id"])
    return 204, None


@route("GET", "storagepool/tiers/{ref}", TIERS)
def get_tier(req: Request) -> tuple[int, Any]:
    state, used = _with_usage(req)
    tier = model.find_tier(state, req.params["ref"])
    return 200, {"tiers": [model.tier_view(state, tier, req.version, used)]}


@route("PUT", "storagepool/tiers/{ref}", TIERS)
def put_tier(req: Request) -> tuple[int, Any]:
    with _state(req, write=True) as state:
        model.update_tier(state, req.params["ref"], req.body, req.version)
    return 204, None


@route("DELETE", "storagepool/tiers/{ref}", TIERS)
def delete_tier(req: Request) -> tuple[int, Any]:
    with _state(req, write=True) as state:
        model.delete_tier(state, req.params["ref"])
    return 204, None


@route("GET", "storagepool/nodepools", NODEPOOLS)
def list_nodepools(req: Request) -> tuple[int, Any]:
    state, used = _with_usage(req)
    pools = [model.nodepool_view(p, req.version, used) for p in state["nodepools"]]
    return 200, {"nodepools": pools, "total": len(pools)}


@route("GET", "storagepool/nodepools/{ref}", NODEPOOLS)
def get_nodepool(req: Request) -> tuple[int, Any]:
    state, used = _with_usage(req)
    pool = model.find_nodepool(state, req.params["ref"])
    return 200, {"nodepools": [model.nodepool_view(pool, req.version, used)]}


@route("GET", "storagepool/storagepools", {1, 3, 9, 16})
def list_storagepools(req: Request) -> tuple[int, Any]:
    """Tiers and node pools, each with a type; toplevels hides tiered node pools."""
    toplevels = (req.arg("toplevels") or "").lower() == "true"
    state, used = _with_usage(req)
    pools = [
        {**model.tier_view(state, t, req.version, used), "type": "tier"} for t in state["tiers"]
    ]
    pools += [
        {**model.nodepool_view(p, req.version, used), "type": "nodepool"}
        for p in state["nodepools"]
        if not (toplevels and p["tier"])
    ]
    return 200, {"storagepools": pools, "total": len(pools)}


@route("GET", "storagepool/settings", {1, 5, 16, 18})
def get_sp_settings(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        settings = dict(state["storagepool_settings"])
    if req.version < 18:
        for key in ("default_transfer_limit_pct", "default_transfer_limit_state"):
            settings.pop(key, None)
    return 200, {"settings": settings}


@route("PUT", "storagepool/settings", {1, 5, 16, 18})
def put_sp_settings(req: Request) -> tuple[int, Any]:
    with _state(req, write=True) as state:
        model.update_sp_settings(state, req.body, req.version)
    return 204, None


@route("GET", "storagepool/status", {1})
def sp_status(req: Request) -> tuple[int, Any]:
    return 200, objects.storagepool_status()


@route("GET", "storagepool/unprovisioned", {1})
def sp_unprovisioned(req: Request) -> tuple[int, Any]:
    return 200, objects.storagepool_unprovisioned()


# ---- file pool policies [PAPI schemas, isilon-sdk] ----------------------------------------

POLICIES = {1, 4, 12}


@route("GET", "filepool/policies", POLICIES)
def list_policies(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        policies = sorted(state["filepool_policies"], key=lambda p: p["apply_order"])
    return 200, {"policies": policies, "total": len(policies)}


@route("POST", "filepool/policies", POLICIES)
def create_policy(req: Request) -> tuple[int, Any]:
    with _state(req, write=True) as state:
        return 201, {"id": model.create_policy(state, req.body)}


@route("GET", "filepool/policies/{ref}", POLICIES)
def get_policy(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        return 200, {"policies": [model.find_policy(state, req.params["ref"])]}


@route("PUT", "filepool/policies/{ref}", POLICIES)
def put_policy(req: Request) -> tuple[int, Any]:
    with _state(req, write=True) as state:
        model.update_policy(state, req.params["ref"], req.body)
    return 204, None


@route("DELETE", "filepool/policies/{ref}", POLICIES)
def delete_policy(req: Request) -> tuple[int, Any]:
    with _state(req, write=True) as state:
        model.delete_policy(state, req.params["ref"])
    return 204, None


@route("GET", "filepool/default-policy", {4})
def get_default_policy(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        return 200, {"default-policy": state["default_policy"]}


@route("PUT", "filepool/default-policy", {4})
def put_default_policy(req: Request) -> tuple[int, Any]:
    with _state(req, write=True) as state:
        model._only(req.body, {"actions"})
        actions = model.validate_actions(state, req.body.get("actions", []))
        state["default_policy"]["actions"] = actions
    return 204, None


@route("GET", "filepool/templates", {4})
def list_templates(req: Request) -> tuple[int, Any]:
    return 200, {"templates": objects.TEMPLATES}


@route("GET", "filepool/templates/{ref}", {4})
def get_template(req: Request) -> tuple[int, Any]:
    ref = req.params["ref"]
    found = [t for t in objects.TEMPLATES if ref in (t["name"], str(t["id"]))]
    if not found:
        raise model.not_found(f"File pool template {ref}")
    return 200, {"templates": found}


# ---- file system settings [PAPI schemas, isilon-sdk] --------------------------------------


@route("GET", "filesystem/settings/access-time", {1})
def get_access_time(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        return 200, {"settings": state["access_time"]}


@route("PUT", "filesystem/settings/access-time", {1})
def put_access_time(req: Request) -> tuple[int, Any]:
    with _state(req, write=True) as state:
        model.set_access_time(state, req.body)
    return 204, None


# ---- jobs [isilon-sdk, dellemc.powerscale] ------------------------------------------------

JOBS = {1, 3, 7, 10, 19, 21}


@route("GET", "job/jobs", JOBS)
def list_jobs(req: Request) -> tuple[int, Any]:
    """Running and paused jobs only [isilon-sdk: list_job_jobs]; `state` filters further."""
    opts, offset = listing.options(req.query)
    with _state(req) as state:
        active = [jobs.view(j) for j in state["jobs"] if j["state"] not in jobs.FINAL_STATES]
    if "state" in opts:
        active = [j for j in active if j["state"] == opts["state"]]
    return 200, listing.page(active, opts, offset, "jobs")


@route("POST", "job/jobs", JOBS)
def post_job(req: Request) -> tuple[int, Any]:
    kind = (req.body or {}).get("type") if isinstance(req.body, dict) else None
    visits = kind in ("SmartPools", "SmartPoolsTree", "FilePolicy", "SetProtectPlus")
    files = jobs.count_files(req.server.ifs_root) if visits else 0
    with _state(req, write=True) as state:
        job = model.start_job(state, req.body, files, req.server.store.timing())
    return 201, {"id": job["id"]}


@route("GET", "job/jobs/{ref}", JOBS)
def get_job(req: Request) -> tuple[int, Any]:
    # Whether finished jobs stay readable here is unverified; dellemc.powerscale's job
    # module assumes they do (its wait fails on a 404), so they stay.
    with _state(req) as state:
        return 200, {"jobs": [jobs.view(model.find_job(state, req.params["ref"]))]}


@route("PUT", "job/jobs/{ref}", JOBS)
def put_job(req: Request) -> tuple[int, Any]:
    with _state(req, write=True) as state:
        job = model.find_job(state, req.params["ref"])
        model._only(req.body, {"state", "policy", "priority"})
        if not req.body:
            raise model.bad_request("At least one field is required")
        wanted = req.body.get("state")
        if wanted not in (None, "run", "pause", "cancel"):
            raise model.bad_request(f"Unknown job state {wanted!r}", "state")
        priority = req.body.get("priority")
        if priority is not None and (
            isinstance(priority, bool) or not isinstance(priority, int) or not 1 <= priority <= 10
        ):
            raise model.bad_request("priority must be an integer from 1 to 10", "priority")
        if "policy" in req.body and req.body["policy"] not in jobs.POLICIES:
            raise model.bad_request(f"Unknown impact policy {req.body['policy']!r}", "policy")
        if job["state"] in jobs.FINAL_STATES:
            raise model.ApiError(409, "AEC_CONFLICT", f"Job {job['id']} has already finished")
        if wanted:
            jobs.control(state, job, wanted)
        if priority is not None:
            job["priority"] = priority
        if "policy" in req.body:
            job.update(policy=req.body["policy"], impact=jobs.IMPACT[req.body["policy"]])
    return 204, None


@route("GET", "job/recent", {3})
def recent_jobs(req: Request) -> tuple[int, Any]:
    """Finished jobs, newest first; limit defaults to 8, at most 100 [isilon-sdk]."""
    try:
        limit = int(req.arg("limit", "8"))
    except ValueError:
        raise model.bad_request("limit must be an integer", "limit") from None
    if not 1 <= limit <= 100:
        raise model.bad_request("limit must be from 1 to 100", "limit")
    with _state(req) as state:
        done = [jobs.view(j) for j in state["jobs"] if j["state"] in jobs.FINAL_STATES]
    done = list(reversed(done))[:limit]
    return 200, {"recent_jobs": done, "total": len(done)}


def _job_records(req: Request, key: str) -> tuple[int, Any]:
    opts, offset = listing.options(req.query)
    with _state(req) as state:
        items = list(state.get(key, []))
    for name in ("job_id", "job_type"):
        if name in opts:
            items = [i for i in items if str(i[name]) == opts[name]]
    return 200, listing.page(items, opts, offset, key.removeprefix("job_"))


@route("GET", "job/reports", {3, 7})
def job_reports(req: Request) -> tuple[int, Any]:
    return _job_records(req, "job_reports")


@route("GET", "job/events", {3})
def job_events(req: Request) -> tuple[int, Any]:
    return _job_records(req, "job_events")


@route("GET", "job/job-summary", {7, 16, 19})
def job_summary(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        return 200, objects.job_summary(state, req.version)


@route("GET", "job/types", {1})
def job_types(req: Request) -> tuple[int, Any]:
    opts, _ = listing.options(req.query)
    with _state(req) as state:
        types = list(state["job_types"].values())
    if opts.get("show_all", "").lower() != "true":
        types = [t for t in types if not t["hidden"]]
    body = listing.page(types, opts, 0, "types")
    body.pop("resume")
    return 200, body


@route("GET", "job/types/{ref}", {1})
def job_type(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        if req.params["ref"] not in state["job_types"]:
            raise model.not_found(f"Job type {req.params['ref']}")
        return 200, {"types": [state["job_types"][req.params["ref"]]]}


@route("PUT", "job/types/{ref}", {1})
def put_job_type(req: Request) -> tuple[int, Any]:
    with _state(req, write=True) as state:
        if req.params["ref"] not in state["job_types"]:
            raise model.not_found(f"Job type {req.params['ref']}")
        body = req.body
        model._only(body, {"enabled", "policy", "priority", "schedule"})
        if "enabled" in body and not isinstance(body["enabled"], bool):
            raise model.bad_request("enabled must be a boolean", "enabled")
        if "policy" in body and body["policy"] not in jobs.POLICIES:
            raise model.bad_request(f"Unknown impact policy {body['policy']!r}", "policy")
        priority = body.get("priority")
        if priority is not None and (
            isinstance(priority, bool) or not isinstance(priority, int) or not 1 <= priority <= 10
        ):
            raise model.bad_request("priority must be an integer from 1 to 10", "priority")
        if "schedule" in body and not isinstance(body["schedule"], str):
            raise model.bad_request("schedule must be a string", "schedule")
        state["job_types"][req.params["ref"]].update(body)
    return 204, None


# ---- NFS exports [PAPI schemas, isilon-sdk] -----------------------------------------------

EXPORTS = {1, 2, 4, 19, 20, 22}


def _zone(req: Request, state: dict[str, Any]) -> str:
    zone = req.arg("zone", "System")
    if zone not in {z["name"] for z in model.zones(state)}:
        raise model.not_found(f"Zone {zone}")
    return zone


@route("GET", "protocols/nfs/exports", EXPORTS)
def list_exports(req: Request) -> tuple[int, Any]:
    """Exports of one zone; `path` keeps those that explicitly name one of the paths."""
    opts, offset = listing.options(req.query)
    with _state(req) as state:
        zone = opts.get("zone", "System")
        if zone not in {z["name"] for z in model.zones(state)}:
            raise model.not_found(f"Zone {zone}")
        exports = [e for e in state["nfs_exports"] if e["zone"] == zone]
    if "path" in opts:
        wanted = set(opts["path"].split(","))
        exports = [e for e in exports if wanted & set(e["paths"])]
    body = listing.page(exports, opts, offset, "exports", max_limit=5000)
    body["digest"] = hashlib.sha1(json.dumps(exports, sort_keys=True).encode()).hexdigest()
    return 200, body


def _ignore_unresolvable(req: Request) -> bool:
    """The create and modify calls' `ignore_unresolvable_hosts` query argument."""
    return str(req.arg("ignore_unresolvable_hosts", "")).lower() in ("true", "1")


@route("POST", "protocols/nfs/exports", EXPORTS)
def create_export(req: Request) -> tuple[int, Any]:
    with _state(req, write=True) as state:
        zone = _zone(req, state)
        export_id = model.create_export(
            state, req.body, zone, req.server.ifs_root, _ignore_unresolvable(req)
        )
        return 201, {"id": export_id}


@route("GET", "protocols/nfs/exports/{ref}", EXPORTS)
def get_export(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        export = model.find_export(state, req.params["ref"], _zone(req, state))
        return 200, {"exports": [export]}


@route("PUT", "protocols/nfs/exports/{ref}", EXPORTS)
def put_export(req: Request) -> tuple[int, Any]:
    with _state(req, write=True) as state:
        zone = _zone(req, state)
        model.update_export(
            state, req.params["ref"], req.body, zone, req.server.ifs_root,
            _ignore_unresolvable(req),
        )  # fmt: skip
    return 204, None


@route("DELETE", "protocols/nfs/exports/{ref}", EXPORTS)
def delete_export(req: Request) -> tuple[int, Any]:
    with _state(req, write=True) as state:
        export = model.find_export(state, req.params["ref"], _zone(req, state))
        state["nfs_exports"].remove(export)
    return 204, None


# ---- zones, network, cluster [isilon-sdk models] ------------------------------------------


@route("GET", "zones", {1, 3})
def list_zones(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        return 200, {"zones": model.zones(state)}


@route("GET", "zones/{ref}", {1, 3})
def get_zone(req: Request) -> tuple[int, Any]:
    # dellemc.powerscale passes the zone name as the id [dellemc.powerscale: accesszone.py]
    with _state(req) as state:
        found = [
            z for z in model.zones(state) if req.params["ref"] in (z["name"], str(z["zone_id"]))
        ]
    if not found:
        raise model.not_found(f"Zone {req.params['ref']}")
    return 200, {"zones": found}


NETWORK_POOLS = {3, 16, 18, 19, 21}
SUBNETS = {3, 7, 16, 21}


@route("GET", "network/interfaces", {3, 7, 16, 18, 21})
def list_interfaces(req: Request) -> tuple[int, Any]:
    opts, offset = listing.options(req.query)
    with _state(req) as state:
        items = objects.interfaces(state, req.version)
    if "lnn" in opts:
        lnns = {int(x) for x in opts["lnn"].split(",") if x.strip().isdigit()}
        items = [i for i in items if i["lnn"] in lnns]
    body = listing.page(items, opts, offset, "interfaces", default_sort=None)
    if req.version >= 21:
        body["errors"] = []
    return 200, body


@route("GET", "network/groupnets", {3, 10})
def list_groupnets(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        return 200, _listed(req, objects.groupnets(state), "groupnets")


@route("GET", "network/groupnets/{groupnet}", {3, 10})
def get_groupnet(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        found = [g for g in objects.groupnets(state) if g["name"] == req.params["groupnet"]]
    if not found:
        raise model.not_found(f"Groupnet {req.params['groupnet']}")
    return 200, {"groupnets": found}


@route("GET", "network/groupnets/{groupnet}/subnets", SUBNETS)
def list_groupnet_subnets(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        items = objects.subnets(state, req.params["groupnet"], req.version)
    return 200, _listed(req, items, "subnets")


@route("GET", "network/groupnets/{groupnet}/subnets/{subnet}", SUBNETS)
def get_subnet(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        items = objects.subnets(state, req.params["groupnet"], req.version)
    found = [s for s in items if s["name"] == req.params["subnet"]]
    if not found:
        raise model.not_found(f"Subnet {req.params['subnet']}")
    return 200, {"subnets": found}


@route("GET", "network/subnets", {7, 16, 21})
def list_subnets(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        items = objects.subnets(state, req.arg("groupnet"), req.version)
    return 200, _listed(req, items, "subnets")


@route("GET", "network/groupnets/{groupnet}/subnets/{subnet}/pools", NETWORK_POOLS)
def list_subnet_pools(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        items = objects.pools(state, req.params["groupnet"], req.params["subnet"], req.version)
    return 200, _listed(req, items, "pools")


@route("GET", "network/groupnets/{groupnet}/subnets/{subnet}/pools/{pool}", NETWORK_POOLS)
def get_pool(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        items = objects.pools(state, req.params["groupnet"], req.params["subnet"], req.version)
    found = [p for p in items if p["name"] == req.params["pool"]]
    if not found:
        raise model.not_found(f"Pool {req.params['pool']}")
    return 200, {"pools": found}


@route("GET", "network/pools", NETWORK_POOLS)
def list_pools(req: Request) -> tuple[int, Any]:
    """All pools; filters groupnet, subnet, access_zone, alloc_method [isilon-sdk]."""
    opts, offset = listing.options(req.query)
    with _state(req) as state:
        items = objects.pools(state, None, None, req.version)
    for name in ("groupnet", "subnet", "access_zone", "alloc_method"):
        if name in opts:
            items = [p for p in items if p[name] == opts[name]]
    return 200, listing.page(items, opts, offset, "pools")


@route("GET", "cluster/config", {1, 3, 5, 7, 17})
def cluster_config(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        return 200, objects.cluster_config(state, req.server.lnn, req.version)


@route("GET", "cluster/identity", {1, 3, 5})
def cluster_identity(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        return 200, objects.cluster_identity(state)


@route("PUT", "cluster/identity", {1, 3, 5})
def put_cluster_identity(req: Request) -> tuple[int, Any]:
    with _state(req, write=True) as state:
        objects.update_identity(state, req.body)
    return 204, None


@route("GET", "cluster/version", {3})
def cluster_version(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        return 200, objects.cluster_version(state)


@route("GET", "cluster/nodes", {3, 5, 7, 10, 16})
def cluster_nodes(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        nodes = objects.cluster_nodes(state)
    return 200, {"nodes": nodes, "total": len(nodes)}


@route("GET", "cluster/nodes/{lnn}", {3, 5, 7, 10, 16})
def cluster_node(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        found = [n for n in objects.cluster_nodes(state) if str(n["lnn"]) == req.params["lnn"]]
    if not found:
        raise model.not_found(f"Node {req.params['lnn']}")
    return 200, {"nodes": found}


@route("GET", "cluster/external-ips", {2})
def cluster_external_ips(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        return 200, objects.external_ips(state)


# ---- statistics [isilon-sdk: StatisticsApi, models; statistics.py] -----------------------


def _flag(req: Request, name: str) -> bool:
    """A boolean query argument (the SDK sends True/False)."""
    return str(req.arg(name, "")).lower() in ("true", "1")


def _values(req: Request, *names: str) -> list[str]:
    """Every value of repeatable arguments, comma lists split (the SDK joins with commas)."""
    return [v for n in names for raw in req.query.get(n, []) for v in raw.split(",") if v]


@route("GET", "statistics/current", {1})
def statistics_current(req: Request) -> tuple[int, Any]:
    """Current values of `key`/`keys` (repeated or comma lists; `substr` matches parts of
    names) on the nodes `devid`/`nodes` name (statistics.select_nodes); `degraded` puts
    per-key errors in the body, `show_nodes` adds each stat's LNN [isilon-sdk:
    get_statistics_current]. No key at all is refused (OneFS's answer is unverified)."""
    names = _values(req, "key", "keys")
    if not names:
        raise model.ApiError(400, "AEC_ARG_REQUIRED", "Argument key is required", "key")
    keys = statistics.resolve_keys(names, _flag(req, "substr"))
    with _state(req) as state:
        lnns = statistics.select_nodes(
            state, req.query.get("devid", []) + req.query.get("nodes", []), req.server.lnn
        )
    stats = statistics.current(
        state, req.server.stats_dir, req.server.ifs_root, keys, lnns,
        degraded=_flag(req, "degraded"), show_nodes=_flag(req, "show_nodes"),
    )  # fmt: skip
    return 200, {"stats": stats}


@route("GET", "statistics/keys", {1})
def statistics_keys(req: Request) -> tuple[int, Any]:
    """The key catalog (StatisticsKeysExtended) with limit/resume; `count` leaves the
    metadata out, `queryable=false` lists none (every key here can be queried)."""
    opts, offset = listing.options(req.query)
    items = [statistics.key_info(name) for name in statistics.KEYS]
    if str(opts.get("queryable", "true")).lower() == "false":
        items = []
    body = listing.page(items, opts, offset, "keys", default_sort="key")
    if str(opts.get("count", "")).lower() in ("true", "1"):
        body = {"total": body["total"]}
    return 200, body


@route("GET", "statistics/keys/{key}", {1})
def statistics_key(req: Request) -> tuple[int, Any]:
    return 200, {"keys": [statistics.key_info(req.params["key"])]}


# ---- the server ---------------------------------------------------------------------------


class Simulator(ThreadingHTTPServer):
    """One node's API endpoint over the shared store."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(
        self,
        address,
        store: model.Store,
        users: dict[str, str],
        ifs_root: str,
        lnn: int,
        stats_interval: float | None = statistics.DEFAULT_INTERVAL,
    ):
        """stats_interval: seconds between this node's statistics samples (a daemon
        thread, statistics.Sampler, stopped by server_close); None or 0: no sampling."""
        super().__init__(address, PapiHandler)
        self.store = store
        self.users = users
        self.ifs_root = ifs_root
        self.lnn = lnn
        self.sessions: dict[str, dict[str, Any]] = {}
        self.sessions_lock = threading.Lock()
        self.log_lock = threading.Lock()
        self.stats_dir = self.store.path.parent / "stats"
        self.sampler = (
            statistics.Sampler(self.stats_dir, lnn, stats_interval) if stats_interval else None
        )
        if self.sampler:
            self.sampler.start()

    def server_close(self) -> None:
        if self.sampler:
            self.sampler.stop()
        super().server_close()

    def inject_fault(self, method: str, path: str) -> None:
        """Faults for tests, from faults.json beside the state (read at every request).

        {"delay_seconds": F, "fail": [{"method": "GET", "path": "regex", "status": 503,
        "count": N}]}: each matching rule answers its status N times (then is used up),
        so a test can make a burst of 503s, one 500, or a slow API.
        """
        path_file = self.store.path.parent / "faults.json"
        with self.log_lock:
            if not path_file.exists():
                return
            try:
                faults = json.loads(path_file.read_text() or "{}")
            except ValueError:
                return
            hit = None
            for rule in faults.get("fail", []):
                if (
                    rule.get("count", 1) > 0
                    and rule.get("method", method) == method
                    and re.search(rule.get("path", ""), path)
                ):
                    rule["count"] = rule.get("count", 1) - 1
                    hit = rule
                    break
            if hit:
                path_file.write_text(json.dumps(faults))
        if faults.get("delay_seconds"):
            time.sleep(float(faults["delay_seconds"]))
        if hit:
            status = int(hit.get("status", 503))
            code = {503: "AEC_SERVICE_UNAVAILABLE", 500: "AEC_EXCEPTION"}.get(
                status, "AEC_EXCEPTION"
            )
            raise model.ApiError(status, code, f"injected fault: {status}")

    def log_change(self, method: str, path: str, status: int) -> None:
        """Append every request that can change state to requests.log beside the state.

        Operators (and the lab's tests) read it to see exactly what a run sent.
        """
        if method == "GET" or path.startswith("/session/"):
            return
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        line = f"{stamp} node{self.lnn} {method} {path} {status}\n"
        with self.log_lock, open(self.store.path.parent / "requests.log", "a") as log:
            log.write(line)

    def finish_job(self, state: dict[str, Any], job: dict[str, Any]) -> str:
        """A job's work when its time is up (jobs.advance): SmartPools evaluates the
        file pool policies against /ifs; the lab's other job types have nothing to do."""
        if job["type"] == "SmartPools":
            return smartpools.run_job(state, job, self.ifs_root)
        return "Completed"


def latest_version(store: model.Store) -> int:
    with store.transaction() as state:
        return int(state["cluster"]["api_latest"])


class PapiHandler(BaseHTTPRequestHandler):
    server: Simulator
    protocol_version = "HTTP/1.1"
    server_version = "Apache"  # OneFS's API sits behind Apache httpd

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_PUT(self) -> None:
        self._dispatch("PUT")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    def do_PATCH(self) -> None:
        self._dispatch("PATCH")

    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        self.server.log_change(self.command, self.path, status)
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if data:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if data:
            self.wfile.write(data)

    def _error(self, error: model.ApiError) -> None:
        self._send(error.status, error.body())

    def _read_body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not raw:
            return {}
        try:
            return json.loads(raw)
        except ValueError:
            raise model.bad_request("Request body is not valid JSON") from None

    def _cookies(self) -> dict[str, str]:
        cookies = {}
        for part in (self.headers.get("Cookie") or "").split(";"):
            if "=" in part:
                name, value = part.strip().split("=", 1)
                cookies[name] = value
        return cookies

    def _check_password(self, user: str, password: str) -> bool:
        expected = self.server.users.get(user)
        return expected is not None and hmac.compare_digest(expected, password)

    def _authenticate(self, method: str) -> str:
        """The user of a request (basic auth or a session), or raise 401."""
        header = self.headers.get("Authorization") or ""
        if header.startswith("Basic "):
            try:
                user, _, password = base64.b64decode(header[6:]).decode().partition(":")
            except ValueError:
                raise model.ApiError(401, "AEC_UNAUTHORIZED", "Authorization required") from None
            if self._check_password(user, password):
                return user
            raise model.ApiError(401, "AEC_UNAUTHORIZED", "Authorization required")
        session_id = self._cookies().get("isisessid")
        with self.server.sessions_lock:
            session = self.server.sessions.get(session_id or "")
            now = time.time()
            if session and (
                now - session["created"] > SESSION_TIMEOUT_ABSOLUTE
                or now - session["seen"] > SESSION_TIMEOUT_INACTIVE
            ):
                self.server.sessions.pop(session_id, None)
                session = None
            if not session:
                raise model.ApiError(401, "AEC_UNAUTHORIZED", "Authorization required")
            session["seen"] = now
        if method != "GET" and (
            self.headers.get("X-CSRF-Token") != session["csrf"] or not self.headers.get("Referer")
        ):
            # patched clusters require both the CSRF header and a Referer [OneFS API
            # Reference; Dell KB 517421]
            raise model.ApiError(401, "AEC_UNAUTHORIZED", "CSRF token and Referer are required")
        return session["user"]

    def _session(self, method: str) -> None:
        if method == "POST":
            body = self._read_body()
            user, password = body.get("username", ""), body.get("password", "")
            if not self._check_password(user, password):
                raise model.ApiError(401, "AEC_UNAUTHORIZED", "Username or password is incorrect.")
            session_id, csrf = secrets.token_hex(16), secrets.token_hex(16)
            now = time.time()
            with self.server.sessions_lock:
                self.server.sessions[session_id] = {
                    "user": user, "csrf": csrf, "created": now, "seen": now,
                }  # fmt: skip
            services = body.get("services") or ["platform"]
            self.send_response(201)
            self.send_header(
                "Set-Cookie", f"isisessid={session_id}; path=/; HttpOnly; Secure; SameSite=strict"
            )
            self.send_header("Set-Cookie", f"isicsrf={csrf}; path=/; Secure")
            data = json.dumps(
                {
                    "services": services,
                    "timeout_absolute": SESSION_TIMEOUT_ABSOLUTE,
                    "timeout_inactive": SESSION_TIMEOUT_INACTIVE,
                    "username": user,
                }
            ).encode()
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        session_id = self._cookies().get("isisessid", "")
        with self.server.sessions_lock:
            session = self.server.sessions.get(session_id)
            if method == "DELETE" and session:
                del self.server.sessions[session_id]
                self._send(204, None)
                return
        if not session:
            self._send(401, {"errors": [{"message": "authorization required"}]})
            return
        self._send(
            200,
            {
                "services": ["platform"],
                "timeout_absolute": SESSION_TIMEOUT_ABSOLUTE,
                "timeout_inactive": SESSION_TIMEOUT_INACTIVE,
                "username": session["user"],
            },
        )

    def _route(self, method: str, url: Any, token: str, resource: str, latest: int) -> None:
        """Serve /platform/<token>/<resource> as OneFS's versioned_mapper does
        [isi_rest_server]: a version no release up to the cluster's registers (or one above
        its latest) is 404; otherwise the newest handler version <= N serves it; a
        non-numeric version means the newest. The 404 message has the form of the
        captured one (Isilon/isilon_sdk_python#6): "Path not found:
        /4/protocols/smb/shares." (no /platform)."""
        missing = model.ApiError(404, "AEC_NOT_FOUND", f"Path not found: /{token}/{resource}.")
        if token == "latest":
            raise missing  # /platform/latest/<x> is 404 [isi_rest_server]
        version = int(token) if token.isdigit() else latest
        if version not in releases.served_versions(latest):
            raise missing
        candidates = []
        for route_method, pattern, versions, handler in ROUTES:
            found = pattern.match(resource)
            usable = [v for v in versions if v <= version]
            if found and usable:
                candidates.append((route_method, max(usable), found, handler))
        if not candidates:
            raise missing
        mine = [c for c in candidates if c[0] == method]
        if not mine:
            raise model.ApiError(405, "AEC_METHOD_NOT_ALLOWED", f"Method {method} not allowed")
        _, served, found, handler = max(mine, key=lambda c: c[1])
        body = self._read_body() if method in ("POST", "PUT") else None
        params = {name: unquote(value) for name, value in found.groupdict().items()}
        status, payload = handler(Request(self.server, params, parse_qs(url.query), body, served))
        self._send(status, payload)

    def _dispatch(self, method: str) -> None:
        url = urlparse(self.path)
        try:
            self.server.inject_fault(method, url.path)
            if url.path.rstrip("/") == "/session/1/session":
                if method == "POST" and url.path.endswith("/"):
                    # On 9.5.0.1 a login POST with the trailing slash is 404
                    # (dell/csm#852); DELETE with it is how the SDK logs out [isilon-sdk]
                    raise model.ApiError(404, "AEC_NOT_FOUND", f"Path not found: {url.path}.")
                self._session(method)
                return
            self._authenticate(method)
            latest = latest_version(self.server.store)
            if url.path.rstrip("/") == "/platform/latest" and method == "GET":
                self._send(200, {"latest": str(latest)})
                return
            match = re.match(r"^/platform/(\w+)/(.+?)/?$", url.path)
            if not match:
                raise model.not_found(f"Path {url.path}")
            self._route(method, url, match.group(1), match.group(2), latest)
        except model.ApiError as error:
            self._error(error)
        except Exception as exc:  # a simulator bug must still answer like the API
            self._error(model.ApiError(500, "AEC_EXCEPTION", f"{type(exc).__name__}: {exc}"))


def read_users(path: str) -> dict[str, str]:
    """`user:password` lines; the lab writes the generated OneFS password here."""
    users = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if ":" in line and not line.startswith("#"):
                user, password = line.rstrip("\n").split(":", 1)
                users[user] = password
    return users


def serve(
    address: tuple[str, int],
    store: model.Store,
    users: dict[str, str],
    ifs_root: str,
    lnn: int,
    cert: str | None = None,
    key: str | None = None,
    stats_interval: float | None = statistics.DEFAULT_INTERVAL,
) -> Simulator:
    """A started-but-not-serving simulator; call serve_forever() (tests use a thread).
    Its statistics sampler runs from here on (stats_interval seconds; None: none)."""
    server = Simulator(address, store, users, ifs_root, lnn, stats_interval)
    if cert and key:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(cert, key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    return server
