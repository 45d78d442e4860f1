"""RDMA planning for the rdma role: NCCL/UCX device strings and input checks.

Pure functions over the inventory, unit-tested without a host or an HCA.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

# ConnectX RDMA device names the kernel gives: mlx5_<n> (ConnectX-4 and later), mlx4_<n>
# (ConnectX-3). Anything else is a typo or another vendor's device, which mstconfig
# (Mellanox/NVIDIA firmware tools) cannot configure.
DEVICE_NAME = re.compile(r"^mlx[45]_\d+$")
PORT_TYPES = ("eth", "ib")
# A ConnectX card has at most two ports (LINK_TYPE_P1, LINK_TYPE_P2).
MAX_PORT = 2
# InfiniBand SM priority is a 4-bit field: 0 (lowest) to 15 (highest).
SM_PRIORITY = (0, 15)


def _device_ports(hcas: Sequence[Mapping[str, Any]]) -> list[str]:
    """`name:port` of each HCA, in the order given (port 1 where none is given)."""
    return [f"{hca['name']}:{int(hca.get('port') or 1)}" for hca in hcas or []]


def rdma_nccl_ib_hca(hcas: Sequence[Mapping[str, Any]]) -> str:
    """NCCL_IB_HCA naming exactly these HCA ports: `=mlx5_0:1,mlx5_1:1`.

    The leading `=` makes NCCL match names exactly; without it `mlx5_1` would also
    select mlx5_10 and mlx5_11 (prefix match), which on a DGX A100 are storage ports.
    No HCA gives "" (NCCL's own choice).
    """
    ports = _device_ports(hcas)
    return "=" + ",".join(ports) if ports else ""


def rdma_ucx_net_devices(hcas: Sequence[Mapping[str, Any]]) -> str:
    """UCX_NET_DEVICES for the same HCA ports: `mlx5_0:1,mlx5_1:1` ("" for none)."""
    return ",".join(_device_ports(hcas))


def rdma_hca_env(hcas: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """NCCL_IB_HCA and UCX_NET_DEVICES naming exactly these HCA ports, as one mapping for
    an MPI launch's `-x` list; {} without HCAs, so NCCL and UCX keep their own choice
    rather than being handed an empty device list."""
    if not hcas:
        return {}
    return {"NCCL_IB_HCA": rdma_nccl_ib_hca(hcas), "UCX_NET_DEVICES": rdma_ucx_net_devices(hcas)}


def _int(value: Any) -> int | None:
    """An int as Ansible would convert it (a bool is not one); None when it is not."""
    if isinstance(value, bool):
        return None
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return None


def _port_problems(where: str, entry: Any, name_key: str) -> list[str]:
    """Name and port of one entry (`device`/`port` or `name`/`port`)."""
    if not isinstance(entry, Mapping):
        return [f"{where}: {entry!r} is not a dict"]
    problems = []
    name = entry.get(name_key)
    if not isinstance(name, str) or not DEVICE_NAME.match(name):
        problems.append(
            f"{where}.{name_key}: {name!r} is not a ConnectX RDMA device name "
            "(mlx5_<n> or mlx4_<n>)"
        )
    port = _int(entry.get("port", 1))
    if port is None or not 1 <= port <= MAX_PORT:
        problems.append(
            f"{where}.port: {entry.get('port')!r} is not a port number (1 to {MAX_PORT})"
        )
    return problems


def rdma_problems(
    port_types: Sequence[Any] | None,
    compute_hcas: Sequence[Any] | None,
    sm_priority: Any = 0,
) -> list[str]:
    """Every problem of one host's rdma_* settings, each naming the variable and value."""
    problems: list[str] = []
    wanted: dict[tuple[str, int], str] = {}
    for index, entry in enumerate(port_types or []):
        where = f"rdma_port_types[{index}]"
        found = _port_problems(where, entry, "device")
        if isinstance(entry, Mapping) and entry.get("type") not in PORT_TYPES:
            found.append(
                f"{where}.type: {entry.get('type')!r} is not one of {', '.join(PORT_TYPES)}"
            )
        problems += found
        if found:
            continue
        key = (entry["device"], int(entry.get("port", 1)))
        if key in wanted and wanted[key] != entry["type"]:
            problems.append(
                f"{where}: {key[0]} port {key[1]} is listed as {wanted[key]} and as {entry['type']}"
            )
        wanted.setdefault(key, entry["type"])
    seen: set[tuple[str, int]] = set()
    for index, entry in enumerate(compute_hcas or []):
        where = f"rdma_compute_hcas[{index}]"
        found = _port_problems(where, entry, "name")
        if isinstance(entry, Mapping) and "gpu" in entry:
            gpu = _int(entry["gpu"])
            if gpu is None or gpu < 0:
                found.append(f"{where}.gpu: {entry['gpu']!r} is not a GPU index (0 or more)")
        problems += found
        if found:
            continue
        key = (entry["name"], int(entry.get("port", 1)))
        if key in seen:
            problems.append(f"{where}: {key[0]} port {key[1]} is listed twice")
        seen.add(key)
        if wanted.get(key) == "eth":
            problems.append(
                f"{where}: {key[0]} port {key[1]} carries NCCL's InfiniBand traffic, but "
                f"rdma_port_types sets it to eth (NCCL warns on mixed IB and RoCE devices)"
            )
    priority = _int(sm_priority)
    if priority is None or not SM_PRIORITY[0] <= priority <= SM_PRIORITY[1]:
        problems.append(
            f"rdma_subnet_manager_priority: {sm_priority!r} is outside "
            f"{SM_PRIORITY[0]}-{SM_PRIORITY[1]} (the InfiniBand SM priority)"
        )
    return problems


def rdma_inventory_problems(
    hosts: Sequence[str],
    port_types: Sequence[Any],
    compute_hcas: Sequence[Any],
    cluster_compute_hcas: Sequence[Any],
    sm_priorities: Sequence[Any],
) -> list[str]:
    """Each host's rdma_* settings by the role's rules, for preflight (host: problem).

    A host's compute HCAs are its rdma_compute_hcas where set, else (None or "", what
    `map(attribute=..., default='')` gives for an unset one) the cluster-wide
    cluster_ib_compute_hcas, as the role's default reads them.
    """
    problems = []
    for host, types, hcas, cluster_hcas, priority in zip(
        hosts, port_types, compute_hcas, cluster_compute_hcas, sm_priorities, strict=True
    ):
        chosen = cluster_hcas if hcas is None or hcas == "" else hcas
        problems += [f"{host}: {problem}" for problem in rdma_problems(types, chosen, priority)]
    return problems


def rdma_report_notes(host_vars: Mapping[str, Any], reboot_note: str, reboot: Any = False
                      ) -> list[str]:  # fmt: skip
    """What the role says about one server after its run (its registered device read and
    the facts rdma_devices published): the port types it left alone and why, the compute
    HCAs the server lacks, and a reboot the new port types wait for where the role may not
    make it. A server the role did not read this run says nothing."""
    if "_rdma_host" not in host_vars:
        return []
    facts = host_vars.get("ansible_facts") or {}
    notes = [
        f"skipped: {result.get('reason', '')}"
        for result in facts.get("rdma_port_type_results") or []
        if result.get("status") == "skipped"
    ]
    notes += [
        f"compute HCA {name} is not on this host"
        for name in (host_vars["_rdma_host"] or {}).get("missing") or []
    ]
    may_reboot = host_vars.get("rdma_reboot", reboot)
    if facts.get("rdma_reboot_required") and not _bool(may_reboot):
        notes.append(reboot_note)
    return notes


def _bool(value: Any) -> bool:
    return str(value).strip().lower() in ("1", "true", "yes", "on")


class FilterModule:
    """RDMA planning."""

    def filters(self) -> dict[str, Any]:
        return {
            "rdma_hca_env": rdma_hca_env,
            "rdma_nccl_ib_hca": rdma_nccl_ib_hca,
            "rdma_ucx_net_devices": rdma_ucx_net_devices,
            "rdma_problems": rdma_problems,
            "rdma_inventory_problems": rdma_inventory_problems,
            "rdma_report_notes": rdma_report_notes,
        }
