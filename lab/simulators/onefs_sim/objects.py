"""Read-mostly cluster objects: cluster config/identity/version/nodes, network, status.

Each view is built from the state's cluster section (which the cluster config seeded)
and shaped for the API version the request resolved to, with every field the SDK of
that release requires (the model files of isi_sdk_9_1_0 and isilon_sdk.v9_10_0: PyPI
isi-sdk-9-1-0 0.2.12 and isilon-sdk 0.7.0). Optional fields are left out rather than sent
as null: the SDKs' enum setters refuse None. Sources in brackets: see the package
docstring (__init__.py).
"""

from __future__ import annotations

import hashlib
import ipaddress
from typing import Any

from . import model

EXT_IFACE = "40gige-1"  # the papers' F800 front-end ports are 40GbE
NIC_NAME = "mlxen0"


def _guid(seed: str) -> str:
    """A stable hex GUID for a device (the cluster's GUID is in the config)."""
    return hashlib.sha1(seed.encode()).hexdigest()[:36]


def onefs_version(cluster: dict[str, Any]) -> dict[str, Any]:
    """onefs_version / cluster/version fields (the sample in the RETURN doc of
    dellemc.powerscale's info module shows build B_<x>_<y>_0_<n>(RELEASE), type "Isilon
    OneFS", version "Isilon OneFS v<r>")."""
    release = cluster["release"]
    return {
        "build": f"B_{release.replace('.', '_')}_001(RELEASE)",
        "copyright": "Copyright (c) 2001-2024 Dell Inc. or its subsidiaries. All Rights Reserved.",
        "reldate": 1700000000,
        "release": release,
        "revision": "649926064822288389",
        "type": "Isilon OneFS",
        "version": f"Isilon OneFS v{release}",
    }


def cluster_config(state: dict[str, Any], lnn: int, version: int) -> dict[str, Any]:
    """GET cluster/config [isilon-sdk models; v17 adds four required fields]."""
    cluster = state["cluster"]
    config = {
        "description": "",
        "devices": [
            {"devid": n["lnn"], "guid": _guid(f"{cluster['guid']}:{n['lnn']}"),
             "is_up": True, "lnn": n["lnn"]}
            for n in cluster["nodes"]
        ],
        "encoding": "utf-8",
        "guid": cluster["guid"],
        "has_quorum": True,
        "is_compliance": False,
        "is_virtual": False,
        "is_vonefs": False,
        "join_mode": "Manual",
        "local_devid": lnn,
        "local_lnn": lnn,
        "local_serial": f"SX410-{lnn:04d}-SIM",
        "name": cluster["name"],
        "onefs_version": onefs_version(cluster),
        "timezone": {"abbreviation": "GMT", "custom": "", "name": "Greenwich Mean Time",
                     "path": "GMT"},
    }  # fmt: skip
    if version >= 17:
        config.update(availability_zone="", is_powerscale_ve=False, node_id=str(lnn), region="")
    return config


def cluster_identity(state: dict[str, Any]) -> dict[str, Any]:
    """GET cluster/identity [isilon-sdk models]."""
    return {"name": state["cluster"]["name"], **state["cluster"]["identity"]}


def update_identity(state: dict[str, Any], body: dict[str, Any]) -> None:
    """PUT cluster/identity: name, description, logon, mttdl_level_msg."""
    model._only(body, {"name", "description", "logon", "mttdl_level_msg"})
    identity = state["cluster"]["identity"]
    if "mttdl_level_msg" in body and body["mttdl_level_msg"] not in ("warn", "none"):
        raise model.bad_request("mttdl_level_msg must be warn or none", "mttdl_level_msg")
    if "description" in body and (
        not isinstance(body["description"], str) or len(body["description"]) > 255
    ):
        raise model.bad_request("description must be at most 255 characters", "description")
    if "logon" in body:
        logon = body["logon"]
        model._only(logon, {"motd", "motd_header"}, "logon")
        if not all(isinstance(v, str) for v in logon.values()):
            raise model.bad_request("logon fields must be strings", "logon")
        identity["logon"].update(logon)
    if "name" in body:
        state["cluster"]["name"] = model._name(body["name"], "name", limit=40)
    identity.update({k: body[k] for k in ("description", "mttdl_level_msg") if k in body})


def cluster_version(state: dict[str, Any]) -> dict[str, Any]:
    """GET cluster/version: every node's release [isilon-sdk models]."""
    base = onefs_version(state["cluster"])
    nodes = [
        {"id": n["lnn"], "lnn": n["lnn"], "status": 0,
         **{k: base[k] for k in ("build", "release", "revision", "type", "version")}}
        for n in state["cluster"]["nodes"]
    ]  # fmt: skip
    return {"errors": [], "nodes": nodes, "total": len(nodes)}


def cluster_nodes(state: dict[str, Any]) -> list[dict[str, Any]]:
    """GET cluster/nodes items: internal_ip_address is the one required field (v16)."""
    return [
        {"id": n["lnn"], "lnn": n["lnn"], "internal_ip_address": f"128.221.252.{n['lnn']}"}
        for n in state["cluster"]["nodes"]
    ]


def external_ips(state: dict[str, Any]) -> list[str]:
    """GET cluster/external-ips: the front-end addresses (the SDK reads a list of str)."""
    return [a for n in state["cluster"]["nodes"] for a in n["addresses"]]


# ---- network --------------------------------------------------------------------------


def groupnets(state: dict[str, Any]) -> list[dict[str, Any]]:
    """GET network/groupnets [isilon-sdk models]; dns_options must be a list."""
    net = state["cluster"]["network"]
    return [
        {
            "id": net["groupnet"], "name": net["groupnet"], "description": "Initial groupnet",
            "dns_servers": net.get("dns_servers", []), "dns_search": [], "dns_options": [],
            "dns_cache_enabled": True, "allow_wildcard_subdomains": True,
            "server_side_dns_search": True,
            "subnets": [s["name"] for s in net["subnets"]],
        }
    ]  # fmt: skip


def subnets(state: dict[str, Any], groupnet: str | None, version: int) -> list[dict[str, Any]]:
    """Subnets of a groupnet (all of them for None); v21 requires linklayer."""
    net = state["cluster"]["network"]
    if groupnet not in (None, net["groupnet"]):
        raise model.not_found(f"Groupnet {groupnet}")
    out = []
    for subnet in net["subnets"]:
        item = {
            "id": f"{net['groupnet']}.{subnet['name']}", "name": subnet["name"],
            "groupnet": net["groupnet"], "addr_family": "ipv4",
            "base_addr": subnet["base_addr"], "prefixlen": subnet["prefixlen"],
            "description": "", "dsr_addrs": [], "gateway_priority": 10,
            "mtu": subnet.get("mtu", 1500), "vlan_enabled": False,
            "sc_service_addrs": [], "sc_service_name": "",
            "pools": [p["name"] for p in subnet["pools"]],
        }  # fmt: skip
        if subnet.get("gateway"):
            item["gateway"] = subnet["gateway"]
        if version >= 21:
            item.update(linklayer="ethernet", firewall_policy="default_subnets_policy")
        out.append(item)
    return out


def _in_ranges(address: str, ranges: list[dict[str, str]]) -> bool:
    ip = ipaddress.ip_address(address)
    return any(
        ipaddress.ip_address(r["low"]) <= ip <= ipaddress.ip_address(r["high"]) for r in ranges
    )


def pools(
    state: dict[str, Any], groupnet: str | None, subnet: str | None, version: int
) -> list[dict[str, Any]]:
    """IP pools, complete as GET-one requires [isilon-sdk models; 9.1 has
    sc_auto_unsuspend_delay, 9.10 firewall_policy/ipv6_perform_dad/linklayer/nfs_rroce_only).
    A pool's interfaces are the nodes' front-end ports whose addresses fall in its ranges.
    """
    net = state["cluster"]["network"]
    if groupnet not in (None, net["groupnet"]):
        raise model.not_found(f"Groupnet {groupnet}")
    chosen = [s for s in net["subnets"] if subnet in (None, s["name"])]
    if subnet is not None and not chosen:
        raise model.not_found(f"Subnet {subnet}")
    out = []
    for sub in chosen:
        for pool in sub["pools"]:
            ifaces = [
                {"iface": EXT_IFACE, "lnn": n["lnn"]}
                for n in state["cluster"]["nodes"]
                if any(_in_ranges(a, pool["ranges"]) for a in n["addresses"])
            ]
            item = {
                "id": f"{net['groupnet']}.{sub['name']}.{pool['name']}", "name": pool["name"],
                "groupnet": net["groupnet"], "subnet": sub["name"],
                "access_zone": pool.get("access_zone", "System"), "addr_family": "ipv4",
                "aggregation_mode": "lacp", "alloc_method": pool.get("alloc_method", "static"),
                "description": "", "ifaces": ifaces, "ranges": pool["ranges"],
                "rebalance_policy": "auto", "rules": [], "sc_connect_policy": "round_robin",
                "sc_dns_zone": pool.get("sc_dns_zone", ""), "sc_dns_zone_aliases": [],
                "sc_failover_policy": "round_robin", "sc_subnet": sub["name"],
                "sc_suspended_nodes": [], "sc_ttl": 0, "static_routes": [],
            }  # fmt: skip
            if version >= 21:
                item.update(firewall_policy="default_pools_policy", ipv6_perform_dad=False,
                            linklayer="ethernet", nfs_rroce_only=False)  # fmt: skip
            else:
                item["sc_auto_unsuspend_delay"] = 0
            out.append(item)
    return out


def interfaces(state: dict[str, Any], version: int) -> list[dict[str, Any]]:
    """GET network/interfaces: one front-end port per node (v21 adds flags, linklayer,
    vlans and the owners' access_zone/prefixlen)."""
    net = state["cluster"]["network"]
    items = []
    for node in state["cluster"]["nodes"]:
        owners = []
        for sub in net["subnets"]:
            for pool in sub["pools"]:
                mine = [a for a in node["addresses"] if _in_ranges(a, pool["ranges"])]
                if mine:
                    owner = {"groupnet": net["groupnet"], "subnet": sub["name"],
                             "pool": pool["name"], "ip_addrs": mine}  # fmt: skip
                    if version >= 21:
                        owner.update(
                            access_zone=pool.get("access_zone", "System"),
                            prefixlen=sub["prefixlen"], type="static",
                            id=f"{net['groupnet']}.{sub['name']}.{pool['name']}",
                        )  # fmt: skip
                    owners.append(owner)
        item = {
            "id": f"{node['lnn']}:{EXT_IFACE}", "lnn": node["lnn"], "name": EXT_IFACE,
            "nic_name": NIC_NAME, "ip_addrs": node["addresses"], "owners": owners,
            "status": "up" if node["addresses"] else "no_carrier", "type": "40gige",
        }  # fmt: skip
        if version >= 21:
            item.update(flags=[], linklayer="ethernet", vlans=[], mtu=9000, speed=40000)
        items.append(item)
    return items


# ---- storage pool status, templates, job summary ------------------------------------------


def storagepool_status() -> dict[str, Any]:
    """GET storagepool/status: a healthy cluster has no unhealthy or unprovisioned items."""
    return {"unhealthy": [], "unprovisioned": []}


def storagepool_unprovisioned() -> dict[str, Any]:
    """GET storagepool/unprovisioned: every node and drive is provisioned."""
    return {"unprovisioned": {"drives": [], "lnns": []}}


# The templates `isi filepool templates list` offers. Their names and contents are not
# in any public capture found (unverified); they are shaped as policies (id, name,
# description, file_matching_pattern, actions) as the FilepoolTemplate model requires.
TEMPLATES = [
    {
        "id": 1,
        "name": "archive_files_older_than_2_months",
        "description": "Move files not modified for 2 months to a lower-performance tier",
        "state": "OK",
        "file_matching_pattern": {"or_criteria": [{"and_criteria": [
            {"type": "changed_time", "operator": ">", "use_relative_time": True,
             "value": 60 * 86400}]}]},
        "actions": [{"action_type": "set_data_access_pattern", "action_param": "streaming"}],
    },
    {
        "id": 2,
        "name": "archive_snapshots_to_lower_performance_tier",
        "description": "Keep snapshot data on a lower-performance tier",
        "state": "OK",
        "file_matching_pattern": {"or_criteria": [{"and_criteria": [
            {"type": "path", "operator": "==", "value": "/ifs", "case_sensitive": True}]}]},
        "actions": [{"action_type": "set_requested_protection", "action_param": "default"}],
    },
]  # fmt: skip


def job_summary(state: dict[str, Any], version: int) -> dict[str, Any]:
    """GET job/job-summary [isilon-sdk models; v19 adds pp_enabled and
    smartthrottling_enabled]."""
    summary = {
        "cluster_is_degraded": False, "connected": True, "coordinator": 1,
        "coordinator_lnn": 1, "disconnected_nodes": [], "down_or_read_only_nodes": False,
        "job_d_enabled": True, "next_jid": state["next_job_id"], "run_degraded": False,
        "stats_ready": True,
    }  # fmt: skip
    if version >= 19:
        summary.update(pp_enabled=False, smartthrottling_enabled=False, non_responding_nodes=[])
    return {"summary": summary}
