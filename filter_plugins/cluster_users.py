"""The cluster_users role's inventory check (users and groups every server gets alike),
its plan (cluster_users_plan: the users, groups, homes, the directory's layout and sssd's
settings a server gets, holding no password and no hash), and its directory backend's
decisions: the entries the directory must hold, what a read of it says must be written,
the directory's settings that are refused before any change.

Pure functions, unit-tested (tests/unit/test_cluster_users.py).
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ansible.module_utils.parsing.convert_bool import boolean

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


# --- the directory backend (OpenLDAP, RFC 2307 entries as Debian's slapd schemas define
# them: nis.schema's posixAccount/shadowAccount/posixGroup, inetorgperson.schema) ---------

# A URI sssd and python-ldap take: scheme, host (name, IPv4 or [IPv6]), optional port.
_LDAP_URI = re.compile(
    r"^(?P<scheme>[a-z]+)://(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?/?$"
)
_DN_PART = re.compile(r"^(?P<attr>[A-Za-z][A-Za-z0-9-]*)=(?P<value>[^,=+]+)$")


def _true(value: Any) -> bool:
    return boolean(value, strict=False)


def _dn_parts(dn: str) -> list[tuple[str, str]] | None:
    parts = []
    for part in str(dn or "").split(","):
        match = _DN_PART.match(part.strip())
        if not match:
            return None
        parts.append((match["attr"].lower(), match["value"].strip()))
    return parts or None


def cluster_users_ldap_problems(settings: Mapping[str, Any]) -> list[str]:
    """The directory settings (cluster_users_ldap_*, given without the prefix) a server
    could not use: refused in preflight, before any change. The certificates' format is
    the role contract's (pem_certificate, pem_private_key); `plan` (the offline plan)
    lets dlcluster's directory go without its secrets and certificate."""
    problems: list[str] = []
    uris = [u.strip() for u in str(settings.get("uri") or "").split(",") if u.strip()]
    if not uris:
        problems.append(
            "cluster_users: cluster_users_backend is ldap but cluster_users_ldap_uri is empty"
            " (ldaps://<directory host>)"
        )
    for uri in uris:
        match = _LDAP_URI.match(uri)
        if not match:
            problems.append(
                f"cluster_users: cluster_users_ldap_uri {uri!r} is not a directory URI"
                " (ldaps://host or ldaps://host:port: a scheme, then the host)"
            )
        elif match["scheme"] != "ldaps":
            problems.append(
                f"cluster_users: cluster_users_ldap_uri {uri!r} is {match['scheme']}://; the"
                " directory checks the users' passwords, which must not cross the network in"
                " clear: use ldaps://"
            )
    base = str(settings.get("base_dn") or "")
    parts = _dn_parts(base)
    if not parts:
        problems.append(
            f"cluster_users: cluster_users_ldap_base_dn {base!r} is not a DN (dc=example,dc=org)"
        )
    if bool(settings.get("bind_dn")) != bool(settings.get("bind_password")):
        problems.append(
            "cluster_users: cluster_users_ldap_bind_dn and cluster_users_ldap_bind_password"
            " come together (both for a directory that needs a bind, neither for one read"
            " anonymously)"
        )
    if settings.get("bind_dn") and not _dn_parts(str(settings["bind_dn"])):
        problems.append(
            f"cluster_users: cluster_users_ldap_bind_dn {settings['bind_dn']!r} is not a DN"
        )
    if _true(settings.get("server")):
        host = settings.get("server_host")
        if not host or host not in (settings.get("inventory_hosts") or []):
            problems.append(
                f"cluster_users: cluster_users_ldap_server_host {host!r} is not a host of the"
                " inventory (the head node that runs the directory)"
            )
        if parts and any(attr != "dc" for attr, _ in parts):
            problems.append(
                f"cluster_users: dlcluster's directory is made with the domain's components"
                f" as its base DN (dc=example,dc=org), not {base!r}"
            )
        # The offline plan reviews a site before its certificates and vault exist.
        missing = [
            name
            for name in ("admin_password", "tls_certificate", "tls_private_key")
            if not settings.get(name)
        ]
        if missing and not _true(settings.get("plan")):
            problems.append(
                "cluster_users: dlcluster's directory needs "
                + ", ".join(f"cluster_users_ldap_{name}" for name in missing)
                + " (its administrator's password from the vault; its certificate and key:"
                " it serves ldaps:// only)"
            )
    return problems


def cluster_users_ssha(password: str, salt_seed: str) -> str:
    """An OpenLDAP {SSHA} value of `password` (slappasswd's default scheme: SHA-1 of the
    password and an 8-byte salt, then the salt, base64), its salt derived from
    `salt_seed` (the entry's DN and the cluster's name): the same password gives the same
    value on every run, so a re-run compares instead of rewriting, and two entries or
    two sites never share a salt."""
    salt = hashlib.sha256(str(salt_seed).encode()).digest()[:8]
    digest = hashlib.sha1(str(password).encode() + salt).digest()
    return "{SSHA}" + base64.b64encode(digest + salt).decode()


def _present(items: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [i for i in items if (i.get("state") or "present") != "absent"]


def cluster_users_ldap_entries(
    users: Sequence[Mapping[str, Any]] | None,
    groups: Sequence[Mapping[str, Any]] | None,
    settings: Mapping[str, Any],
) -> dict[str, Any]:
    """The directory as the inventory wants it: `present`, the entries in the order they
    are added (the two organizational units, the groups, the users, then the read-only
    bind account), each `{dn, objectClass, attributes}` with every value a list of
    strings; `absent`, the DNs of the users and groups listed with state absent (users
    first). `settings`: base_dn, users_ou, groups_ou, home_root, default_shell,
    bind_dn and bind_password_value (the bind account's {SSHA}, when dlcluster makes it).
    The same as the plan's entries (cluster_users_plan) with their passwords filled in
    (cluster_users_ldap_passwords)."""
    return _ldap_entries(
        users,
        groups,
        settings,
        lambda user: "{CRYPT}" + str(user["password_hash"]),
        settings.get("bind_password_value"),
    )


def _ldap_entries(
    users: Sequence[Mapping[str, Any]] | None,
    groups: Sequence[Mapping[str, Any]] | None,
    settings: Mapping[str, Any],
    user_password: Any,
    bind_password: Any,
) -> dict[str, Any]:
    """cluster_users_ldap_entries, each user's userPassword `user_password(user)` and the
    bind account's `bind_password` (no bind account without one)."""
    users, groups = list(users or []), list(groups or [])
    base = str(settings["base_dn"])
    people = f"{settings['users_ou']},{base}"
    teams = f"{settings['groups_ou']},{base}"
    gids = {str(g.get("name")): str(int(g.get("gid"))) for g in groups}
    present: list[dict[str, Any]] = [
        {
            "dn": dn,
            "objectClass": ["organizationalUnit"],
            "attributes": {"ou": [_dn_parts(dn)[0][1]]},
        }
        for dn in (people, teams)
    ]
    for group in _present(groups):
        name = str(group["name"])
        members = sorted(
            str(u["name"]) for u in _present(users) if name in list(u.get("groups") or [])
        )
        present.append(
            {
                "dn": f"cn={name},{teams}",
                "objectClass": ["posixGroup"],
                "attributes": {"cn": [name], "gidNumber": [gids[name]], "memberUid": members},
            }
        )
    for user in _present(users):
        name = str(user["name"])
        attributes = {
            "uid": [name],
            "cn": [str(user.get("comment") or name)],
            "sn": [name],
            "uidNumber": [str(int(user["uid"]))],
            "gidNumber": [gids[str(user["group"])]],
            "homeDirectory": [f"{str(settings['home_root']).rstrip('/')}/{name}"],
            "loginShell": [str(user.get("shell") or settings["default_shell"])],
            # slapd checks a bind's password against a {CRYPT} value with crypt(3), which
            # takes the hashes /etc/shadow takes (sha512-crypt, yescrypt)
            "userPassword": [user_password(user)],
            "gecos": [str(user.get("comment") or name)],
        }
        present.append(
            {
                "dn": f"uid={name},{people}",
                "objectClass": ["inetOrgPerson", "posixAccount", "shadowAccount"],
                "attributes": attributes,
            }
        )
    if settings.get("bind_dn") and bind_password:
        bind_dn = str(settings["bind_dn"])
        present.append(
            {
                "dn": bind_dn,
                "objectClass": ["organizationalRole", "simpleSecurityObject"],
                "attributes": {
                    "cn": [_dn_parts(bind_dn)[0][1]],
                    "userPassword": [str(bind_password)],
                },
            }
        )
    absent = [f"uid={u['name']},{people}" for u in users if u.get("state") == "absent"] + [
        f"cn={g['name']},{teams}" for g in groups if g.get("state") == "absent"
    ]
    return {"present": present, "absent": absent}


def _values(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    return [str(value)]


def _same(attribute: str, wanted: list[str], have: list[str]) -> bool:
    # memberUid is a set; every other attribute dlcluster writes holds one value
    if attribute == "memberUid":
        return sorted(wanted) == sorted(have)
    return wanted == have


def cluster_users_ldap_writes(
    wanted: Mapping[str, Any], read: Sequence[Mapping[str, Any]] | None
) -> list[dict[str, Any]]:
    """What to write so that the directory holds `wanted` (cluster_users_ldap_entries),
    given what a read of it found (community.general.ldap_search's results: one dict per
    entry, `dn` and its attributes, a value a string or a list of them). Each write:
    `{action: add, dn, objectClass, attributes}` for an entry the directory lacks (no
    empty attribute), `{action: modify, dn, attributes}` with only the attributes that
    differ (an empty list removes an attribute's values), `{action: delete, dn}` for an
    entry listed as absent that the directory still holds. Nothing for an entry as
    wanted, so a converged directory gets no write."""
    have = {str(e.get("dn", "")).lower(): e for e in read or []}
    writes: list[dict[str, Any]] = []
    for entry in wanted.get("present") or []:
        found = have.get(entry["dn"].lower())
        if found is None:
            writes.append(
                {
                    "action": "add",
                    "dn": entry["dn"],
                    "objectClass": list(entry["objectClass"]),
                    "attributes": {k: v for k, v in entry["attributes"].items() if v},
                }
            )
            continue
        found_lower = {str(k).lower(): v for k, v in found.items()}
        changed = {
            attribute: values
            for attribute, values in entry["attributes"].items()
            if not _same(attribute, list(values), _values(found_lower.get(attribute.lower())))
        }
        if changed:
            writes.append({"action": "modify", "dn": entry["dn"], "attributes": changed})
    writes.extend(
        {"action": "delete", "dn": dn} for dn in wanted.get("absent") or [] if dn.lower() in have
    )
    return writes


def cluster_users_slapd_writes(
    read: Sequence[Mapping[str, Any]] | None, wanted: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """slapd's own settings (cn=config) that differ from `wanted`: `{global: {attribute:
    value}, database: {attribute: value}}` (cn=config's TLS files, the directory
    database's administrator password), given a read of cn=config (ldap_search results).
    Each write is `{dn, attributes}` with only the differing attributes; the directory's
    database is the one whose olcSuffix is `wanted.suffix`. Raises when slapd serves
    another suffix: a directory made for another base DN is not rewritten by a run."""
    read = list(read or [])
    suffix = str(wanted["suffix"]).lower()
    top = next((e for e in read if str(e.get("dn", "")).lower() == "cn=config"), None)
    database = next(
        (e for e in read if suffix in [v.lower() for v in _values(e.get("olcSuffix"))]), None
    )
    if top is None or database is None:
        suffixes = sorted({v for e in read for v in _values(e.get("olcSuffix"))})
        raise ValueError(
            f"slapd serves {', '.join(suffixes) or 'no database'}, not {wanted['suffix']}:"
            " a directory made for another base DN is not converted by a run (back it up,"
            " then `dpkg-reconfigure slapd` with the new domain)"
        )
    writes = []
    for entry, settings in (
        (top, wanted.get("global") or {}),
        (database, wanted.get("database") or {}),
    ):
        changed = {k: v for k, v in settings.items() if _values(entry.get(k)) != _values(v)}
        if changed:
            writes.append({"dn": entry["dn"], "attributes": changed})
    return writes


def cluster_users_home_dirs(
    users: Sequence[Mapping[str, Any]] | None, home_root: str, mode: str
) -> list[dict[str, str]]:
    """The homes of the users not listed as absent, as host_state reads them: a
    directory under `home_root`, owned by its user and primary group, with `mode`."""
    return [
        {
            "path": f"{str(home_root).rstrip('/')}/{u['name']}",
            "state": "directory",
            "owner": str(u["name"]),
            "group": str(u["group"]),
            "mode": str(mode),
        }
        for u in _present(list(users or []))
    ]


# --- the plan (roles/cluster_users/tasks/plan.yml, README "The plan") ----------------------

# What a planned entry holds where the directory keeps a password value. The plan is
# published as a fact, which -v prints and a fact cache keeps, so it holds no password and
# no hash of one: the apply fills them in (cluster_users_ldap_passwords), under no_log.
PASSWORD_PLACEHOLDER = "(from the vault)"
# Where sssd finds the CA of the directory's certificate: the role's copy of
# cluster_users_ldap_ca_certificate, else Debian's bundle of the system's CAs
# (ca-certificates). sssd-ldap(5): ldap_tls_cacert.
_SSSD_OWN_CA = "/etc/sssd/dlcluster-ldap-ca.crt"
_SSSD_SYSTEM_CAS = "/etc/ssl/certs/ca-certificates.crt"


def _ldap_domain(base_dn: str) -> str:
    """The domain Debian's slapd asks for (debconf slapd/domain), from a base DN of domain
    components: dc=lab,dc=example,dc=org is lab.example.org."""
    return ".".join(re.sub(r"^dc=", "", part.strip()) for part in str(base_dn).split(","))


def _slapd_services(addresses: Sequence[Any]) -> str:
    """slapd's listeners (SLAPD_SERVICES of Debian's /etc/default/slapd; slapd(8) -h):
    ldaps:// on each address, named (an IPv6 one in brackets), and the local ldapi://."""
    urls = [f"ldaps://{'[' + str(a) + ']' if ':' in str(a) else a}/" for a in addresses or []]
    return " ".join([*urls, "ldapi:///"])


def cluster_users_plan(inputs: Mapping[str, Any]) -> dict[str, Any]:
    """One server's plan, from the role's inputs as that server sees them (`inputs`: the
    cluster_users_* variables by name, roles/cluster_users/vars/main.yml
    _cluster_users_inputs): what it gets, holding no password and no hash.

    `backend`; `groups` ({name, gid, state}) and `users` ({name, uid, group, gid, groups,
    comment, shell, home, state}) with their defaults filled in, in the inventory's order;
    `homes`, the homes of the users not listed absent as host_state reads them, and
    `home_mode`. With the directory backend, `directory` (uri, base_dn, users_dn, groups_dn,
    server, server_host: the host that runs dlcluster's directory or "", domain, admin_dn,
    listen_addresses, services, bind_dn, and `entries` as cluster_users_ldap_entries gives
    them, every password value PASSWORD_PLACEHOLDER; no entries for a site's directory)
    and `sssd` (the values of sssd.conf's domain: uri, search_base, user_search_base,
    group_search_base, bind_dn, tls_cacert, min_id); both None with the local backend."""

    def given(name: str, default: Any = None) -> Any:
        value = inputs.get("cluster_users_" + name)
        return default if value is None else value

    raw_users = list(given("accounts", []))
    raw_groups = list(given("groups", []))
    home_root = str(given("home_root", ""))
    home_mode = str(given("home_mode", ""))
    default_shell = str(given("default_shell", ""))
    groups = [
        {"name": str(g["name"]), "gid": int(g["gid"]), "state": str(g.get("state") or "present")}
        for g in raw_groups
    ]
    gids = {g["name"]: g["gid"] for g in groups}
    users = [
        {
            "name": str(u["name"]),
            "uid": int(u["uid"]),
            "group": str(u["group"]),
            # None for a group outside cluster_users_groups (preflight refuses one)
            "gid": gids.get(str(u["group"])),
            "groups": [str(g) for g in u.get("groups") or []],
            "comment": None if u.get("comment") is None else str(u["comment"]),
            "shell": str(u.get("shell") or default_shell),
            "home": f"{home_root.rstrip('/')}/{u['name']}",
            "state": str(u.get("state") or "present"),
        }
        for u in raw_users
    ]
    backend = str(given("backend", "local"))
    plan: dict[str, Any] = {
        "backend": backend,
        "groups": groups,
        "users": users,
        "homes": cluster_users_home_dirs(raw_users, home_root, home_mode),
        "home_mode": home_mode,
        "directory": None,
        "sssd": None,
    }
    if backend != "ldap":
        return plan
    base = str(given("ldap_base_dn", ""))
    users_dn = f"{given('ldap_users_ou', '')},{base}"
    groups_dn = f"{given('ldap_groups_ou', '')},{base}"
    server = _true(given("ldap_server", False))
    bind_dn = str(given("ldap_bind_dn", ""))
    uri = str(given("ldap_uri", ""))
    # dlcluster's directory: its entries in the order they are added (RFC 2307's
    # posixAccount and posixGroup, as Debian's slapd's nis schema defines them; the
    # OpenLDAP Administrator's Guide, https://www.openldap.org/doc/admin25/, for the DIT)
    entries = (
        _ldap_entries(
            raw_users,
            raw_groups,
            {
                "base_dn": base,
                "users_ou": given("ldap_users_ou", ""),
                "groups_ou": given("ldap_groups_ou", ""),
                "home_root": home_root,
                "default_shell": default_shell,
                "bind_dn": bind_dn,
            },
            lambda _user: PASSWORD_PLACEHOLDER,
            PASSWORD_PLACEHOLDER,
        )
        if server
        else {"present": [], "absent": []}
    )
    addresses = [str(a) for a in given("ldap_listen_addresses", [])]
    plan["directory"] = {
        "uri": uri,
        "base_dn": base,
        "users_dn": users_dn,
        "groups_dn": groups_dn,
        "server": server,
        "server_host": str(given("ldap_server_host", "")) if server else "",
        "domain": _ldap_domain(base),
        # Debian's slapd makes cn=admin,<base DN> as the database's rootdn (README.Debian)
        "admin_dn": f"cn=admin,{base}",
        "listen_addresses": addresses,
        "services": _slapd_services(addresses),
        "bind_dn": bind_dn,
        "entries": entries,
    }
    # sssd-ldap(5): with dlcluster's directory the users and groups are searched in their
    # own subtrees; a site's directory is searched from its base DN
    plan["sssd"] = {
        "uri": uri,
        "search_base": base,
        "user_search_base": users_dn if server else "",
        "group_search_base": groups_dn if server else "",
        "bind_dn": bind_dn,
        "tls_cacert": _SSSD_OWN_CA if given("ldap_ca_certificate", "") else _SSSD_SYSTEM_CAS,
        "min_id": int(given("min_id", 1000)),
    }
    return plan


def cluster_users_plans(
    hosts: Sequence[str], hostvars: Mapping[str, Any], inputs: Mapping[str, Any]
) -> dict[str, dict[str, Any]]:
    """Every server's plan at once (tasks/plan.yml, on the control host): each from the
    server's own cluster_users_* variables (hostvars), else, where it sets none, from
    `inputs`, the role's defaults as the calling host sees them (hostvars hold no role
    default). The same as each server would make alone (vars/main.yml)."""
    plans = {}
    for host in hosts:
        own = hostvars[host]
        plans[host] = cluster_users_plan(
            {name: own.get(name, value) for name, value in inputs.items()}
        )
    return plans


def cluster_users_ldap_passwords(
    entries: Mapping[str, Any], users: Sequence[Mapping[str, Any]] | None, bind_password_value: str
) -> dict[str, Any]:
    """The plan's directory entries (cluster_users_plan's directory.entries) with their
    password values filled in, as slapd must hold them: a user's `{CRYPT}` and the
    password_hash of cluster_users_accounts, the bind account's `bind_password_value` (its
    {SSHA}). Run at apply time only, under no_log; the same as cluster_users_ldap_entries."""
    hashes = {str(u.get("name")): u.get("password_hash") for u in users or []}
    present = []
    for entry in entries.get("present") or []:
        attributes = dict(entry["attributes"])
        if "userPassword" in attributes:
            if "posixAccount" in entry["objectClass"]:
                value = "{CRYPT}" + str(hashes[str(attributes["uid"][0])])
            else:
                value = str(bind_password_value)
            attributes["userPassword"] = [value]
        present.append(
            {"dn": entry["dn"], "objectClass": list(entry["objectClass"]), "attributes": attributes}
        )
    return {"present": present, "absent": list(entries.get("absent") or [])}


class FilterModule:
    """Checks of the cluster's users; their plan; the directory backend's decisions."""

    def filters(self) -> dict[str, Any]:
        return {
            "cluster_users_problems": cluster_users_problems,
            "cluster_users_differ": cluster_users_differ,
            "cluster_users_of": cluster_users_of,
            "cluster_users_ldap_problems": cluster_users_ldap_problems,
            "cluster_users_ssha": cluster_users_ssha,
            "cluster_users_ldap_entries": cluster_users_ldap_entries,
            "cluster_users_ldap_writes": cluster_users_ldap_writes,
            "cluster_users_slapd_writes": cluster_users_slapd_writes,
            "cluster_users_home_dirs": cluster_users_home_dirs,
            "cluster_users_plan": cluster_users_plan,
            "cluster_users_plans": cluster_users_plans,
            "cluster_users_ldap_passwords": cluster_users_ldap_passwords,
        }
