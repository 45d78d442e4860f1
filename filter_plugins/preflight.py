"""Cross-host inventory checks used by the preflight role.

Pure functions: they take plain lists and numbers (extracted from hostvars by the
role) and return human-readable problems, so a bad inventory fails before anything
is touched and the checks are unit-tested without a lab.
"""

from __future__ import annotations

import ipaddress
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
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


def shared_address_problems(
    owners: Sequence[tuple[str, str, Any]], said: Sequence[str] = ()
) -> list[str]:
    """Addresses that more than one host claims, across every interface of every server.

    `owners` are (host, where, address) triples: each host's cluster_data_address and
    each address of its nics_interfaces (an address with a prefix counts without it). A
    host may carry its data address on one of its interfaces; two hosts on one address,
    or one host on two interfaces with one address, answer for each other: every fstab,
    MPI host file and /etc/hosts entry that names the address then reaches either. An
    address that two hosts of `said` have as their data address is data_address_problems'.
    """
    seen: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for host, where, address in owners:
        try:
            parsed = ipaddress.ip_interface(str(address)).ip
        except ValueError:
            continue  # the role's own check names a malformed address
        seen[str(parsed)].append((host, where))
    problems = []
    for address, claims in seen.items():
        hosts = set(host for host, _ in claims)
        interfaces = [where for _, where in claims if where != "cluster_data_address"]
        if len(hosts) == 1 and len(interfaces) < 2:
            continue
        data = {host for host, where in claims if host in said and where == "cluster_data_address"}
        if len(data) > 1:
            continue  # data_address_problems names these hosts
        listed = ", ".join(f"{host} ({where})" for host, where in claims)
        problems.append(f"address {address} is set more than once: {listed}")
    return problems


def management_address_problems(hosts: Sequence[str], endpoints: Sequence[Any]) -> list[str]:
    """Hosts Ansible would reach at one address and port: a run would configure one
    machine as two (a copied ansible_host, a lab port given twice)."""
    seen: dict[str, list[str]] = defaultdict(list)
    for host, endpoint in zip(hosts, endpoints, strict=True):
        seen[str(endpoint)].append(host)
    return [
        f"{', '.join(owners)} are all reached at {endpoint} (ansible_host and ansible_port)"
        for endpoint, owners in seen.items()
        if len(owners) > 1
    ]


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


# The groups of hosts dlcluster logs into and configures: each of their hosts belongs to
# `servers`, the site's declaration of its servers (cluster_host reads those alone).
SERVER_GROUPS = ("head", "compute", "monitoring")


def server_group_problems(groups: Mapping[str, Sequence[str]]) -> list[str]:
    """Hosts of the head, compute or monitoring group missing from the group `servers`.

    The roles that configure a server read it first through their dependency
    cluster_host, which reads the hosts of `servers` only (never the control host, the
    switches or the Isilon nodes): a server left out would be configured without that
    read, so every package would look missing and every GPU absent."""
    servers = set(groups.get("servers", []))
    problems = []
    for group in SERVER_GROUPS:
        missing = [host for host in groups.get(group, []) if host not in servers]
        if missing:
            problems.append(
                f"inventory group 'servers' lacks {', '.join(missing)} of group {group!r}: "
                "it lists every server dlcluster configures (e.g. children: head, compute)"
            )
    return problems


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


# Each shared secret and the inventory group whose hosts use it.
SECRET_GROUPS = {
    "cluster_onefs_password": "isilon",
    "cluster_switch_password": "switches",
    "cluster_registry_password": "compute",
}


def _shared_address_problems(
    groups: Mapping[str, Sequence[str]], hostvars: Mapping[str, Any], said: Sequence[str]
) -> list[str]:
    """Every server's and Isilon node's addresses (data address, interfaces) against
    each other's."""
    servers = list(dict.fromkeys([*groups.get("compute", []), *groups.get("head", [])]))
    owners: list[tuple[str, str, Any]] = []
    for host in dict.fromkeys([*servers, *groups.get("isilon", [])]):
        host_vars = hostvars[host]
        if host_vars.get("cluster_data_address") not in (None, ""):
            owners.append((host, "cluster_data_address", host_vars["cluster_data_address"]))
        if host in servers:
            for index, nic in enumerate(host_vars.get("nics_interfaces") or []):
                if isinstance(nic, Mapping) and nic.get("address"):
                    where = f"nics_interfaces[{index}] {nic.get('name', '')}".strip()
                    owners.append((host, where, nic["address"]))
    return shared_address_problems(owners, said)


def _management_problems(
    groups: Mapping[str, Sequence[str]], hostvars: Mapping[str, Any]
) -> list[str]:
    hosts = [h for h in hostvars if hostvars[h].get("ansible_connection") != "local"]
    endpoints = [
        f"{hostvars[h].get('ansible_host') or h}:{hostvars[h].get('ansible_port') or 22}"
        for h in hosts
    ]
    return management_address_problems(hosts, endpoints)


def cluster_inventory_problems(
    groups: Mapping[str, Sequence[str]],
    hostvars: Mapping[str, Any],
    required_groups: Sequence[str],
    mtu: Any,
    mtu_min: int,
    mtu_max: int,
    check_secrets: bool = True,
) -> list[str]:
    """The checks of the cluster-wide settings (the `cluster` role's) across every host.

    Required groups have hosts, servers and Isilon nodes have distinct, valid data
    addresses, the data MTU is in range, and each shared secret is set as the group that
    uses it sees it (read from the group's first host: a vault file in the site's
    group_vars is not visible to localhost). No address is set for two hosts, on any
    interface of any server, and no two hosts are reached at one address and port. Each
    role checks its own variables.
    """
    # hostvars[host] works out all of a host's variables each time it is asked: once here
    every = dict.fromkeys(h for name, members in groups.items() for h in members)
    hostvars = {host: hostvars[host] for host in every}
    # GPU servers and Isilon nodes need a data address; a head node's is checked when set
    hosts = list(groups.get("compute", [])) + list(groups.get("isilon", []))
    hosts += [
        host for host in groups.get("head", [])
        if host not in hosts and hostvars[host].get("cluster_data_address") not in (None, "")
    ]  # fmt: skip
    problems = missing_group_problems(dict(groups), required_groups)
    problems += server_group_problems(groups)
    problems += data_address_problems(
        hosts, [hostvars[host].get("cluster_data_address") for host in hosts]
    )
    problems += _shared_address_problems(groups, hostvars, said=hosts)
    problems += _management_problems(groups, hostvars)
    problems += mtu_problems(mtu, mtu_min, mtu_max)
    if check_secrets:
        secrets = {
            name: (group, hostvars[groups[group][0]].get(name, "") if groups.get(group) else "")
            for name, group in SECRET_GROUPS.items()
        }
        problems += secret_problems(secrets, dict(groups))
    return problems


def image_tag_problems(hosts: Sequence[str], images: Sequence[Any], name: str) -> list[str]:
    """Images without a pinned tag: a moving `latest` (or none) changes under the cluster."""
    problems = []
    for host, image in zip(hosts, images, strict=True):
        last = str(image).rsplit("/", 1)[-1]
        tag = last.rsplit(":", 1)[1] if ":" in last else ""
        if not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}", tag) or tag == "latest":
            problems.append(
                f"{host}: {name} {image!r} needs a pinned tag, "
                "e.g. nvcr.io/nvidia/tensorflow:19.03-py3"
            )
    return problems


def container_port_problems(
    hosts: Sequence[str], ports: Sequence[Any], sshd_ports: Sequence[Any], modes: Sequence[Any]
) -> list[str]:
    """An NGC container's sshd on the host network cannot take the port the server's own
    sshd holds (22, or the ansible_port Ansible reaches it on): it would fail to bind
    after the image was built and the other servers' containers had started."""
    problems = []
    for host, port, sshd, mode in zip(hosts, ports, sshd_ports, modes, strict=True):
        if str(mode) != "host":
            continue
        taken = {22, int(sshd)} if str(sshd).isdigit() else {22}
        if str(port).isdigit() and int(port) in taken:
            problems.append(
                f"{host}: ngc_container_ssh_port {port} is the port of the server's own sshd "
                f"(ngc_container_network_mode host shares it); use another, e.g. 2222"
            )
    return problems


def _batch_problem(value: Any) -> str | None:
    """Why one `serial` batch size is not one Ansible takes: a count >= 1 or 1%..100%."""
    text = str(value).strip()
    if isinstance(value, bool):
        return "is a boolean"
    match = re.fullmatch(r"(\d+)(%?)", text)
    if not match:
        return "is neither a count nor a percentage"
    number = int(match.group(1))
    if match.group(2) and not 1 <= number <= 100:
        return "is a percentage outside 1%-100%"
    if not match.group(2) and number < 1:
        return "is a count below 1"
    return None


def rolling_problems(serial: Any = None, max_fail_percentage: Any = None) -> list[str]:
    """The rolling-batch extra vars compute.yml and containers.yml hand to `serial` and
    `max_fail_percentage`: play keywords, so a bad value would otherwise end in a
    traceback after the earlier layers had run. `serial` may be a list of batch sizes."""
    problems = []
    if serial is not None:
        batches = serial if isinstance(serial, list) else [serial]
        for batch in batches or [serial]:
            why = _batch_problem(batch)
            if why:
                problems.append(
                    f"rolling_serial {batch!r} {why}: give a count of servers (e.g. 2) or a "
                    "percentage (e.g. 25%), or a list of them"
                )
    if max_fail_percentage is not None:
        text = str(max_fail_percentage).strip()
        if isinstance(max_fail_percentage, bool) or not (text.isdigit() and 0 <= int(text) <= 100):
            problems.append(
                f"rolling_max_fail_percentage {max_fail_percentage!r} is not a whole number "
                "from 0 to 100"
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
            "cluster_inventory_problems": cluster_inventory_problems,
            "image_tag_problems": image_tag_problems,
            "rolling_problems": rolling_problems,
            "container_port_problems": container_port_problems,
        }
