"""Cross-host inventory checks used by the preflight role.

Pure functions: they take plain lists and numbers (extracted from hostvars by the
role) and return human-readable problems, so a bad inventory fails before anything
is touched and the checks are unit-tested without a lab.
"""

from __future__ import annotations

import ipaddress
from collections import defaultdict
from collections.abc import Sequence
from typing import Any


def data_address_problems(hosts: Sequence[str], addresses: Sequence[Any]) -> list[str]:
    """Name every host whose data address is missing, malformed or shared with another host.

    Two hosts answering on one data address break NFS balancing and MPI silently,
    so duplicates are reported with both host names.
    """
    problems: list[str] = []
    seen: dict[str, list[str]] = defaultdict(list)
    for host, address in zip(hosts, addresses, strict=True):
        if address in (None, ""):
            problems.append(f"{host}: cluster_data_address is not set")
            continue
        try:
            parsed = ipaddress.ip_address(str(address))
        except ValueError:
            problems.append(f"{host}: cluster_data_address {address!r} is not an IP address")
            continue
        seen[str(parsed)].append(host)
    for address, owners in seen.items():
        if len(owners) > 1:
            problems.append(
                f"cluster_data_address {address} is used by more than one host: "
                + ", ".join(owners)
            )
    return problems


def mtu_problems(mtu: Any, minimum: int, maximum: int, name: str = "cluster_data_mtu") -> list[str]:
    """Check an MTU is a whole number within what hosts and switch ports accept."""
    try:
        value = int(mtu)
    except (TypeError, ValueError):
        return [f"{name} {mtu!r} is not a whole number"]
    if isinstance(mtu, bool) or str(mtu).strip() != str(value):
        return [f"{name} {mtu!r} is not a whole number"]
    if not minimum <= value <= maximum:
        return [f"{name} {value} is outside {minimum}-{maximum}"]
    return []


def missing_group_problems(groups: dict[str, Sequence[str]], required: Sequence[str]) -> list[str]:
    """Name each required inventory group that is absent or has no hosts."""
    return [
        f"inventory group {group!r} has no hosts" for group in required if not groups.get(group)
    ]


def driver_branch_problems(hosts: Sequence[str], branches: Sequence[Any]) -> list[str]:
    """Hosts whose nvidia_driver_branch is not a driver major version such as "535"."""
    problems = []
    for host, branch in zip(hosts, branches, strict=True):
        if branch is None or branch == "":
            continue
        if isinstance(branch, bool) or not str(branch).isdigit() or len(str(branch)) != 3:
            problems.append(
                f"{host}: nvidia_driver_branch {branch!r} is not a driver branch number "
                "such as '535' (the major version)"
            )
    return problems


def secret_problems(secrets: dict[str, Any], groups: dict[str, Sequence[str]]) -> list[str]:
    """Credentials a group needs that are empty: a missing vault entry or unset variable.

    `secrets` maps the variable name to (group that needs it, value); the check only
    applies where the group has hosts. Values are never echoed.
    """
    problems = []
    for name, (group, value) in secrets.items():
        if groups.get(group) and (value is None or str(value).strip() == ""):
            problems.append(
                f"{name} is empty: put it in the site's Ansible Vault file or its environment "
                f"variable (the {group} group needs it)"
            )
    return problems


def switch_mtu_problems(
    host_mtu: Any, switches: Sequence[str], port_mtus: Sequence[Any]
) -> list[str]:
    """Switch ports whose MTU is below the hosts' data MTU: jumbo frames would be dropped."""
    problems = []
    try:
        wanted = int(host_mtu)
    except (TypeError, ValueError):
        return []
    for switch, port_mtu in zip(switches, port_mtus, strict=True):
        if port_mtu in (None, "", 0, "0"):
            continue
        if int(port_mtu) < wanted:
            problems.append(
                f"{switch}: switch port MTU {port_mtu} is below the hosts' cluster_data_mtu "
                f"{wanted}; frames that size would be dropped"
            )
    return problems


class FilterModule:
    """Inventory checks for the preflight role."""

    def filters(self) -> dict[str, Any]:
        return {
            "data_address_problems": data_address_problems,
            "mtu_problems": mtu_problems,
            "missing_group_problems": missing_group_problems,
            "driver_branch_problems": driver_branch_problems,
            "secret_problems": secret_problems,
            "switch_mtu_problems": switch_mtu_problems,
        }
