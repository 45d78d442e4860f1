"""Data-NIC planning for the nics role: defaults, validation and the netplan document.

Pure functions over the inventory and the host's facts, unit-tested without a host.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence
from typing import Any

try:
    from ansible.errors import AnsibleFilterError
except ImportError:  # pragma: no cover - usable without Ansible too
    AnsibleFilterError = ValueError  # type: ignore[misc,assignment]


# Interface types: `ethernet` (the default) and `ipoib` (IP over InfiniBand).
TYPES = ("ethernet", "ipoib")
ETHERNET_MTU = (576, 9216)
# IPoIB: datagram mode carries IP in one InfiniBand packet, so its MTU is the IB MTU less
# the 4-byte IPoIB header (4092 on a 4096 fabric such as HDR); connected mode (RC) goes
# up to 65520. An IPoIB entry without an MTU gets its mode's largest; the data network's
# Ethernet MTU (nics_default_mtu, cluster_data_mtu) is never applied to it.
IPOIB_MODES = ("datagram", "connected")
IPOIB_MAX_MTU = {"datagram": 4092, "connected": 65520}


def _mtu(name: str, nic: Mapping[str, Any], default_mtu: int) -> tuple[int, tuple[int, int]]:
    """The interface's MTU (given or its type's default) and the range allowed."""
    if nic.get("type", "ethernet") == "ipoib":
        mode = nic.get("ipoib_mode") or "datagram"
        limits = (576, IPOIB_MAX_MTU[mode])
        return int(nic.get("mtu") or IPOIB_MAX_MTU[mode]), limits
    return int(nic.get("mtu") or default_mtu), ETHERNET_MTU


def _type_problem(name: str, nic: Mapping[str, Any]) -> str | None:
    kind = nic.get("type", "ethernet")
    if kind not in TYPES:
        return f"nics_interfaces: {name}: type {kind!r} is not one of {', '.join(TYPES)}"
    mode = nic.get("ipoib_mode")
    if mode is not None and kind != "ipoib":
        return f"nics_interfaces: {name}: ipoib_mode {mode!r} needs type: ipoib"
    if mode is not None and mode not in IPOIB_MODES:
        return (
            f"nics_interfaces: {name}: ipoib_mode {mode!r} is not one of {', '.join(IPOIB_MODES)}"
        )
    return None


def nics_with_defaults(interfaces: Sequence[Mapping[str, Any]], default_mtu: int) -> list[dict]:
    """Each interface with its MTU filled in, its address normalised, netmask and checks.

    Raises with the interface and the bad value, so a typo fails before anything is
    touched. `check` defaults to the gateway: the address that must answer after a change.
    Every entry gets its `type` (`ethernet` unless given); an IPoIB one its `ipoib_mode`
    (`datagram` unless given) and, without an MTU, its mode's largest (4092 or 65520).
    """
    result = []
    names = set()
    for nic in interfaces:
        name = nic.get("name")
        if not name:
            raise AnsibleFilterError(f"nics_interfaces: an entry has no name: {dict(nic)}")
        if name in names:
            raise AnsibleFilterError(f"nics_interfaces: {name} is listed twice")
        names.add(name)
        try:
            iface = ipaddress.IPv4Interface(str(nic.get("address", "")))
        except ValueError as exc:
            raise AnsibleFilterError(
                f"nics_interfaces: {name}: address {nic.get('address')!r} is not "
                f"IPv4/prefix ({exc})"
            ) from exc
        if "/" not in str(nic["address"]):
            raise AnsibleFilterError(
                f"nics_interfaces: {name}: address {nic['address']} needs a prefix, e.g. /24"
            )
        problem = _type_problem(name, nic)
        if problem:
            raise AnsibleFilterError(problem)
        entry = dict(nic)
        entry["type"] = nic.get("type", "ethernet")
        if entry["type"] == "ipoib":
            entry["ipoib_mode"] = nic.get("ipoib_mode") or "datagram"
        entry["address"] = f"{iface.ip}/{iface.network.prefixlen}"
        entry["ip"] = str(iface.ip)
        entry["netmask"] = str(iface.netmask)
        entry["mtu"], (low, high) = _mtu(name, entry, default_mtu)
        if not low <= entry["mtu"] <= high:
            what = f" (IPoIB {entry['ipoib_mode']} mode)" if entry["type"] == "ipoib" else ""
            raise AnsibleFilterError(
                f"nics_interfaces: {name}: mtu {entry['mtu']} is outside {low}-{high}{what}"
            )
        gateway = nic.get("gateway")
        if gateway:
            if ipaddress.IPv4Address(str(gateway)) not in iface.network:
                raise AnsibleFilterError(
                    f"nics_interfaces: {name}: gateway {gateway} is outside {iface.network}"
                )
            entry["gateway"] = str(gateway)
        else:
            entry.pop("gateway", None)
        entry["check"] = list(nic.get("check") or ([gateway] if gateway else []))
        result.append(entry)
    return result


def nics_inventory_problems(
    hosts: Sequence[str], interfaces: Sequence[Any], default_mtu: Any
) -> list[str]:
    """Every host's nics_interfaces checked by the role's own rules, for preflight."""
    problems = []
    for host, nics in zip(hosts, interfaces, strict=True):
        if not nics:
            continue
        try:
            nics_with_defaults(nics, int(default_mtu))
        except (AnsibleFilterError, ValueError, TypeError) as exc:
            problems.append(f"{host}: {exc}")
    return problems


def nics_runtime(interfaces: Sequence[Mapping[str, Any]]) -> list[dict]:
    """The fields nic_runtime takes (kernel state and reachability checks), nothing else.

    An IPoIB interface also carries its type and mode: the module sets the mode, and
    leaves the interface alone where the host does not have it (yet).
    """
    keys = ("name", "address", "mtu", "gateway", "check")
    ipoib = ("type", "ipoib_mode")
    return [
        {k: nic[k] for k in keys + (ipoib if nic.get("type") == "ipoib" else ()) if k in nic}
        for nic in interfaces
    ]


def nics_netplan(interfaces: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The netplan document of the data interfaces (as `nics_with_defaults` returns them).

    A gateway becomes a default route on its own port only (the DGX-1 paper sets it on one
    of four), DNS servers become that port's nameservers; everything else is address and
    MTU. netplan's own default renderer is kept (networkd on Ubuntu server and Debian).
    An IPoIB interface goes under `ethernets:` too (netplan has no section of its own for
    it), matched by name, with its `infiniband-mode`.
    """
    ethernets: dict[str, dict[str, Any]] = {}
    for nic in interfaces:
        entry: dict[str, Any] = {"addresses": [nic["address"]], "mtu": int(nic["mtu"])}
        if nic.get("type") == "ipoib":
            entry["infiniband-mode"] = nic.get("ipoib_mode") or "datagram"
        if nic.get("gateway"):
            entry["routes"] = [{"to": "default", "via": nic["gateway"]}]
        if nic.get("dns"):
            entry["nameservers"] = {"addresses": list(nic["dns"])}
        ethernets[nic["name"]] = entry
    return {"network": {"version": 2, "ethernets": ethernets}}


def nics_hosts_block(hosts_groups: Sequence[str], groups: Mapping[str, Any], hostvars: Any) -> str:
    """The /etc/hosts lines of the cluster hosts' data addresses: each host of the groups
    named (in group order, each once) that has a `cluster_data_address`, one per line."""
    lines = []
    seen = set()
    for group in hosts_groups:
        for host in groups.get(group) or []:
            if host in seen:
                continue
            seen.add(host)
            address = hostvars[host].get("cluster_data_address") if host in hostvars else None
            if address not in (None, ""):
                lines.append(f"{address} {host}\n")
    return "".join(lines)


def nics_plan(interfaces: Sequence[Mapping[str, Any]], default_mtu: Any, hosts_block: str) -> dict:
    """One server's plan: its data interfaces with the role's defaults filled in, and the
    /etc/hosts block it gets."""
    return {
        "interfaces": nics_with_defaults(interfaces or [], int(default_mtu)),
        "hosts_block": hosts_block,
    }


def nics_plans(
    hosts: Sequence[str],
    hostvars: Any,
    groups: Mapping[str, Any],
    default_mtu: Any,
    hosts_groups: Sequence[str],
) -> dict[str, dict]:
    """Every server's plan at once, from each server's own inventory variables.

    Where a server sets none, the role's defaults as they resolve on it: `nics_hosts_groups`
    (`hosts_groups`) and `nics_default_mtu`, which is the server's `cluster_data_mtu`, else
    `default_mtu`. The /etc/hosts block walks every host's variables, so it is made once
    per distinct `nics_hosts_groups`, not once per server."""
    blocks: dict[tuple, str] = {}
    plans = {}
    for host in hosts:
        host_vars = hostvars[host]
        wanted_groups = tuple(host_vars.get("nics_hosts_groups", hosts_groups) or ())
        if wanted_groups not in blocks:
            blocks[wanted_groups] = nics_hosts_block(wanted_groups, groups, hostvars)
        plans[host] = nics_plan(
            host_vars.get("nics_interfaces") or [],
            host_vars.get("nics_default_mtu", host_vars.get("cluster_data_mtu", default_mtu)),
            blocks[wanted_groups],
        )
    return plans


def nics_roce_report(host_vars: Mapping[str, Any]) -> Any:
    """One server's RoCE ports as nic_runtime read them (roce=true), or why there is none."""
    ports = ((host_vars.get("_nics_runtime", {})) or {}).get("roce")
    return ports or "no RDMA device: RoCE not available here"


class FilterModule:
    """Data-NIC planning."""

    def filters(self) -> dict[str, Any]:
        return {
            "nics_roce_report": nics_roce_report,
            "nics_with_defaults": nics_with_defaults,
            "nics_runtime": nics_runtime,
            "nics_inventory_problems": nics_inventory_problems,
            "nics_netplan": nics_netplan,
            "nics_hosts_block": nics_hosts_block,
            "nics_plan": nics_plan,
            "nics_plans": nics_plans,
        }
