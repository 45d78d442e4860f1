"""Facts about the cluster derived from the inventory, in one place for every role."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def isilon_frontend_addresses(hosts: Sequence[str], hostvars: Mapping[str, Any]) -> list[str]:
    """Every Isilon front-end address, node by node, in inventory order.

    A node lists its addresses in `onefs_frontend_addresses` when it has several (the
    DGX-1 paper's nodes have one per 40 GbE subnet); otherwise its `cluster_data_address`
    is its only one. Mount plans and checks use this list, so it is derived once, here.
    """
    addresses: list[str] = []
    for host in hosts:
        hvars = hostvars[host]
        listed = hvars.get("onefs_frontend_addresses")
        if listed:
            addresses.extend(str(address) for address in listed)
        elif hvars.get("cluster_data_address"):
            addresses.append(str(hvars["cluster_data_address"]))
    return addresses


class FilterModule:
    """Cluster-wide facts from the inventory."""

    def filters(self) -> dict[str, Any]:
        return {"isilon_frontend_addresses": isilon_frontend_addresses}
