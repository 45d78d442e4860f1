"""Plan the Isilon data mounts of every GPU server: which mount goes to which address.

Pure functions, so the plan is unit-tested without a lab and computed once per run.

The papers measured about 2.5 GB/s through one NFS mount, half a 40 GbE link, so every
Isilon front-end address needs at least two mounts across the cluster, and no address
should carry more than one mount above any other. The plan lays the hosts' mounts out
in one round-robin sequence over the addresses (host 0 takes positions 0..m-1, host 1
m..2m-1, ...): that keeps the per-address totals within one of each other and gives a
host distinct addresses as long as it has no more mounts than there are addresses. When
several hosts would start on the same address (m a multiple of the address count), each
host's list is rotated so /mnt/isilon1 — the mount a one-process-per-host job reads
through — lands on a different address on each host.

An address taken out of service (a node down for repair) is listed as unavailable: the
plan is laid out over every address as usual, then only the mounts that landed on an
unavailable address move, each to the healthy address with the fewest mounts (one the
host does not use yet first). Every other mount keeps its address, so re-planning around
a dead node leaves the healthy mounts untouched, and dropping the address from the list
again restores the original plan.
"""

from __future__ import annotations

import ipaddress
import math
from collections.abc import Iterable, Sequence
from typing import Any

try:
    from ansible.errors import AnsibleFilterError
except ImportError:  # pragma: no cover - the filter is usable without Ansible too
    AnsibleFilterError = ValueError  # type: ignore[misc,assignment]


def _problems(
    hosts: Sequence[str],
    addresses: Sequence[str],
    mounts_per_host: Any,
    min_per_address: int,
    unavailable: Sequence[str] = (),
) -> list[str]:
    """Everything wrong with the inputs or the plan they allow, as readable sentences."""
    problems: list[str] = []
    unknown = [a for a in unavailable if a not in addresses]
    if unknown:
        problems.append(
            f"isilon_mounts_unavailable_addresses names {', '.join(unknown)}, "
            f"not among the Isilon addresses ({', '.join(addresses)})"
        )
    healthy = [a for a in addresses if a not in unavailable]
    if addresses and not healthy:
        problems.append("every Isilon address is listed in isilon_mounts_unavailable_addresses")
    if not hosts:
        problems.append("no compute hosts to mount on (the client group is empty)")
    if not addresses:
        problems.append(
            "no Isilon front-end addresses (isilon_mounts_addresses is empty: give the "
            "isilon hosts onefs_frontend_addresses or cluster_data_address)"
        )
    duplicates = sorted({a for a in addresses if list(addresses).count(a) > 1})
    if duplicates:
        problems.append(f"Isilon addresses listed twice: {', '.join(duplicates)}")
    for address in addresses:
        if not address or any(c.isspace() for c in address) or "/" in address:
            problems.append(f"not an address or host name: {address!r}")
    if isinstance(mounts_per_host, bool) or not isinstance(mounts_per_host, int):
        problems.append(f"isilon_mounts_per_host must be an integer, got {mounts_per_host!r}")
    elif mounts_per_host < 1:
        problems.append(f"isilon_mounts_per_host must be at least 1, got {mounts_per_host}")
    elif hosts and healthy and not duplicates:
        total = len(hosts) * mounts_per_host
        if total < min_per_address * len(healthy):
            needed = math.ceil(min_per_address * len(healthy) / len(hosts))
            problems.append(
                f"{len(hosts)} host(s) x {mounts_per_host} data mount(s) = {total} mounts "
                f"cannot give each of the {len(healthy)} Isilon addresses "
                f"{min_per_address} mounts; set isilon_mounts_per_host to at least {needed}"
            )
    return problems


def _address_key(address: str) -> str:
    """Addresses as fstab/NFS wants them: IPv6 in brackets, everything else unchanged."""
    try:
        if ipaddress.ip_address(address).version == 6:
            return f"[{address}]"
    except ValueError:
        pass
    return address


def isilon_mount_plan(
    hosts: Iterable[str],
    addresses: Iterable[str],
    mounts_per_host: int,
    min_per_address: int = 2,
    mount_prefix: str = "/mnt/isilon",
    export: str = "/ifs",
    unavailable: Iterable[str] | None = None,
) -> dict[str, Any]:
    """Assign every host's data mounts <prefix>1..m to Isilon addresses.

    Returns {"hosts": {host: [{index, path, address, src}]}, "per_address": {address:
    count}, "per_host": {host: {address: count}}, "moved": {address: count}, "ok": bool,
    "problems": [str]}. A plan with problems has no host entries: nothing should be
    mounted from a plan that breaks the rules, and preflight turns the problems into the
    failure message. `unavailable` addresses get no mounts (see the module's docstring);
    `moved` counts, per unavailable address, the mounts that moved off it.
    """
    hosts = [str(h) for h in hosts]
    addresses = [str(a) for a in addresses]
    down = [str(a) for a in (unavailable or [])]
    problems = _problems(hosts, addresses, mounts_per_host, int(min_per_address), down)
    plan: dict[str, Any] = {
        "hosts": {},
        "per_address": {a: 0 for a in addresses if a not in down},
        "per_host": {},
        "moved": {a: 0 for a in down},
        "ok": not problems,
        "problems": problems,
    }
    if problems:
        return plan

    n, m = len(addresses), mounts_per_host
    starts_seen: dict[int, int] = {}
    windows: dict[str, list[str]] = {}
    for i, host in enumerate(hosts):
        start = (i * m) % n
        window = [addresses[(start + k) % n] for k in range(m)]
        # Hosts that share a start address (m a multiple of n, or wrap-around) are
        # rotated by how many hosts started there before them; the multiset of a host's
        # addresses, and so every total, stays the same.
        rotation = starts_seen.get(start, 0) % m
        starts_seen[start] = starts_seen.get(start, 0) + 1
        windows[host] = window[rotation:] + window[:rotation]
        counts: dict[str, int] = {}
        for address in windows[host]:
            if address not in down:
                counts[address] = counts.get(address, 0) + 1
                plan["per_address"][address] += 1
        plan["per_host"][host] = counts
    # Only then move the mounts of unavailable addresses, knowing every healthy one's load.
    for host, window in windows.items():
        counts = plan["per_host"][host]
        entries = []
        for index, address in enumerate(window, start=1):
            if address in down:
                plan["moved"][address] += 1
                address = _replacement(addresses, down, counts, plan["per_address"])
                counts[address] = counts.get(address, 0) + 1
                plan["per_address"][address] += 1
            entries.append(
                {
                    "index": index,
                    "path": f"{mount_prefix}{index}",
                    "address": address,
                    "src": f"{_address_key(address)}:{export}",
                }
            )
        plan["hosts"][host] = entries
    return plan


def _replacement(
    addresses: Sequence[str],
    down: Sequence[str],
    host_counts: dict[str, int],
    per_address: dict[str, int],
) -> str:
    """The healthy address a mount moves to: one the host uses least, then the least
    loaded across the cluster, then the first in the list (a stable, repeatable choice)."""
    healthy = [a for a in addresses if a not in down]
    return min(
        healthy,
        key=lambda a: (host_counts.get(a, 0), per_address[a], addresses.index(a)),
    )


def isilon_mount_options(options: Iterable[Any]) -> str:
    """Join NFS options into fstab's comma form; a later key=value overrides an earlier one.

    That is what lets an inventory append `rsize=1048576` to the papers' defaults without
    restating them, and keeps the fstab line free of contradicting duplicates.
    """
    if isinstance(options, str):
        options = options.split(",")
    merged: dict[str, str] = {}
    for option in options:
        text = str(option).strip()
        if not text:
            continue
        if "," in text:
            raise AnsibleFilterError(f"one NFS option per list item, got {text!r}")
        key = text.split("=", 1)[0]
        merged[key] = text  # an override keeps the first one's place: stable fstab lines
    if not merged:
        return "defaults"
    return ",".join(merged.values())


def mount_path_problems(
    default_path: str, prefix: str, mounts_per_host: Any, owned: Iterable[str] = ()
) -> list[str]:
    """The default mount and the data mounts <prefix>1..N must not be one path or lie
    inside one another: fstab would mount one over the other."""
    try:
        count = int(mounts_per_host)
    except (TypeError, ValueError):
        return []  # the plan names a bad count itself
    data = [f"{prefix}{index}" for index in range(1, count + 1)]
    default = str(default_path).rstrip("/") or "/"
    problems = []
    for path in data:
        if default == path or path.startswith(default + "/") or default.startswith(path + "/"):
            problems.append(
                f"isilon_mounts_default_path {default_path!r} collides with the data mount "
                f"{path} (isilon_mounts_prefix {prefix!r}): give them distinct paths"
            )
            break
    return problems


def _fstab_field(value: str) -> str:
    """A field as fstab stores it: space, ampersand and backslash in octal escapes."""
    return value.replace("\\", "\\134").replace(" ", "\\040").replace("&", "\\046")


def isilon_mounts_pending(
    wanted: Iterable[dict[str, Any]], fstab: str, mounted: str | None = None
) -> list[dict[str, Any]]:
    """The wanted mounts that ansible.posix.mount would change, in their order.

    `wanted` holds {path, src, opts} NFS mounts; `fstab` is /etc/fstab's text. A mount
    is pending unless every fstab line for its path reads exactly `src path nfs opts 0 0`
    (the line the mount module writes); given `mounted` (the text of /proc/mounts, for
    state=mounted) it is also pending while its path is not mounted. Reading both files
    once and calling the module only for these keeps a no-op run to one read per host
    instead of one module call per mount.
    """
    lines: dict[str, list[list[str]]] = {}
    for line in fstab.splitlines():
        fields = line.split("#", 1)[0].split()
        if len(fields) >= 2:
            lines.setdefault(fields[1], []).append(fields)
    active = None
    if mounted is not None:
        rows = (row.split() for row in mounted.splitlines())
        active = {fields[1] for fields in rows if len(fields) >= 2}
    pending = []
    for mount in wanted:
        path = _fstab_field(str(mount["path"]))
        src, opts = _fstab_field(str(mount["src"])), _fstab_field(str(mount["opts"]))
        line = [src, path, "nfs", opts, "0", "0"]
        found = lines.get(path, [])
        differs = not found or any(fields != line for fields in found)
        if differs or (active is not None and path not in active):
            pending.append(mount)
    return pending


# The data mount list records the default mount on this comment line, so that the list
# is also the record of every mount the role wrote (templates/data_mounts.j2).
OWNED_DEFAULT_PREFIX = "# default mount: "


def isilon_mounts_owned(data_mounts: str | None) -> list[str]:
    """The mount points a previous run wrote, read from the data mount list it left.

    The list holds the data mounts, one per line (a `# <address>:<export>` comment may
    follow the path), and names the default mount on a `# default mount: <path>` line;
    other comments and blank lines carry nothing. No
    list (a host the role never ran on) means the role owns nothing there yet, so
    removing mounts that left the plan never touches an fstab line it did not write.
    """
    owned: list[str] = []
    for line in (data_mounts or "").splitlines():
        if line.startswith(OWNED_DEFAULT_PREFIX):
            owned.insert(0, line[len(OWNED_DEFAULT_PREFIX) :].strip())
        elif line.split("#", 1)[0].strip():
            owned.append(line.split("#", 1)[0].strip())
    return owned


class FilterModule:
    """Isilon mount planning."""

    def filters(self) -> dict[str, Any]:
        return {
            "isilon_mount_plan": isilon_mount_plan,
            "isilon_mount_options": isilon_mount_options,
            "isilon_mounts_pending": isilon_mounts_pending,
            "isilon_mounts_owned": isilon_mounts_owned,
            "mount_path_problems": mount_path_problems,
        }
