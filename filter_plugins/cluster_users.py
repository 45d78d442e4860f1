"""The cluster_users role's inventory check: users and groups every server gets alike.

Pure functions, unit-tested (tests/unit/test_cluster_users.py).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

# useradd(8)'s default NAME_REGEX on Debian, at most 32 characters (utmp's limit).
_NAME = re.compile(r"^[a-z_][a-z0-9_-]*\$?$")
# crypt(3) hashes useradd/chpasswd -e take: yescrypt ($y$), SHA-512 ($6$), SHA-256 ($5$),
# bcrypt ($2b$/$2y$); "!" or "*" lock the password. Anything else is not a hash: most
# likely a plain password that would be written to /etc/shadow as is and never match.
_HASH = re.compile(r"^(\$(y|6|5|2[aby])\$[./A-Za-z0-9$,=]+|[!*].*)$")


def _duplicates(values: Sequence[Any]) -> list[Any]:
    return sorted((v for v, n in Counter(values).items() if n > 1), key=str)


def cluster_users_problems(
    users: Sequence[Mapping[str, Any]] | None,
    groups: Sequence[Mapping[str, Any]] | None,
    min_id: int = 1000,
) -> list[str]:
    """Everything in cluster_users_accounts / cluster_users_groups a server would refuse or get
    wrong: names, IDs below the OS's range or used twice, unknown groups, password
    values that are not crypt hashes."""
    users, groups = list(users or []), list(groups or [])
    problems: list[str] = []
    group_names = [str(g.get("name", "")) for g in groups]
    for kind, items, id_key in (("user", users, "uid"), ("group", groups, "gid")):
        names = [str(item.get("name", "")) for item in items]
        for name in names:
            if not _NAME.match(name) or len(name) > 32:
                problems.append(
                    f"cluster_users: {kind} name {name!r} is not a valid name"
                    " (lower case letter or _, then letters, digits, _ or -; at most 32)"
                )
        for name in _duplicates(names):
            problems.append(f"cluster_users: {kind} {name} is listed twice")
        ids = []
        for item in items:
            try:
                ident = int(item.get(id_key))
            except (TypeError, ValueError):
                problems.append(
                    f"cluster_users: {kind} {item.get('name')} has {id_key} {item.get(id_key)!r},"
                    " not a number"
                )
                continue
            ids.append(ident)
            if ident < min_id:
                problems.append(
                    f"cluster_users: {kind} {item.get('name')} has {id_key} {ident}, below"
                    f" {min_id} (the operating system's own range)"
                )
        for ident in _duplicates(ids):
            problems.append(f"cluster_users: {id_key} {ident} is given to more than one {kind}")
    for user in users:
        name = user.get("name")
        for group in [user.get("group"), *list(user.get("groups") or [])]:
            if group not in group_names:
                problems.append(
                    f"cluster_users: user {name} names group {group!r}, which is not in"
                    " cluster_users_groups (its GID would differ between servers)"
                )
        password = user.get("password_hash")
        if not isinstance(password, str) or not _HASH.match(password):
            problems.append(
                f"cluster_users: user {name} has a password_hash that is not a crypt(3) hash"
                " (make one with `mkpasswd -m sha-512`; `!` locks the password)"
            )
    return problems


def cluster_users_of(
    host_vars: Mapping[str, Any], default_users: Any, default_groups: Any
) -> list[Any]:
    """[users, groups] a server gets: its inventory's, else the role's defaults."""
    return [
        host_vars.get("cluster_users_accounts", default_users),
        host_vars.get("cluster_users_groups", default_groups),
    ]


def cluster_users_differ(per_host: Mapping[str, Any]) -> list[str]:
    """Servers whose users or groups differ from the first server's: UIDs and GIDs must be
    the same everywhere, so the lists must be too. `per_host`: {host: [users, groups]}."""
    hosts = list(per_host)
    if not hosts:
        return []
    first = hosts[0]
    return [
        f"cluster_users: {host} has other cluster_users_accounts or cluster_users_groups"
        f" than {first}; every server must get the same"
        " (set them for the head and compute groups alike)"
        for host in hosts[1:]
        if per_host[host] != per_host[first]
    ]


class FilterModule:
    """Checks of the cluster's users."""

    def filters(self) -> dict[str, Any]:
        return {
            "cluster_users_problems": cluster_users_problems,
            "cluster_users_differ": cluster_users_differ,
            "cluster_users_of": cluster_users_of,
        }
