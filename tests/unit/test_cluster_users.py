"""The cluster_users role's preflight check, its plan and its directory backend's decisions
(filter_plugins/cluster_users.py)."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
from pathlib import Path

from playbook import local_host, run_playbook

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location(
    "cluster_users", ROOT / "filter_plugins" / "cluster_users.py"
)
cu = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(cu)

HASH = "$6$abcdefgh$" + "x" * 86
GROUPS = [{"name": "dlusers", "gid": 5000}, {"name": "gpu", "gid": 5001}]
USERS = [
    {"name": "alice", "uid": 5001, "group": "dlusers", "groups": ["gpu"], "password_hash": HASH},
    {"name": "bob", "uid": 5002, "group": "dlusers", "password_hash": "!"},
]


def test_a_good_list_has_no_problem():
    assert cu.cluster_users_problems(USERS, GROUPS, 1000) == []
    assert cu.cluster_users_problems([], [], 1000) == []
    yescrypt = {**USERS[1], "password_hash": "$y$j9T$abc$def"}
    assert cu.cluster_users_problems([yescrypt], GROUPS, 1000) == []


def test_a_plain_password_is_refused_naming_the_user():
    plain = {**USERS[1], "password_hash": "Secret123"}
    (problem,) = cu.cluster_users_problems([plain], GROUPS, 1000)
    assert "user bob has a password_hash that is not a crypt(3) hash" in problem
    assert "Secret123" not in problem


def test_ids_below_the_os_range_or_twice_and_names_twice_are_refused():
    users = [
        {**USERS[0], "uid": 999},
        {**USERS[1], "uid": 5002},
        {**USERS[1], "name": "carol", "uid": 5002},
        {**USERS[1]},
    ]
    problems = cu.cluster_users_problems(users, [*GROUPS, {"name": "gpu", "gid": 5000}], 1000)
    assert (
        "cluster_users: user alice has uid 999, below 1000 (the operating system's own range)"
        in problems
    )
    assert "cluster_users: uid 5002 is given to more than one user" in problems
    assert "cluster_users: user bob is listed twice" in problems
    assert "cluster_users: group gpu is listed twice" in problems
    assert "cluster_users: gid 5000 is given to more than one group" in problems


def test_a_group_outside_the_list_and_a_bad_name_are_refused():
    users = [{**USERS[0], "groups": ["docker"]}, {**USERS[1], "name": "Bob Smith"}]
    problems = cu.cluster_users_problems(users, GROUPS, 1000)
    assert any("user alice names group 'docker', which is not in cluster_users_groups" in p
               for p in problems)  # fmt: skip
    assert any("user name 'Bob Smith' is not a valid name" in p for p in problems)
    assert cu.cluster_users_problems([{**USERS[1], "uid": "x"}], GROUPS, 1000) == [
        "cluster_users: user bob has uid 'x', not a number"
    ]


def test_servers_given_other_lists_are_named():
    same = [USERS, GROUPS]
    per_host = {"head": same, "gpu-1": same, "gpu-2": [USERS[:1], GROUPS]}
    assert cu.cluster_users_differ(per_host) == [
        "cluster_users: gpu-2 has other cluster_users_accounts or cluster_users_groups than head;"
        " every server must get the same (set them for the head and compute groups alike)"
    ]
    assert cu.cluster_users_differ({}) == []
    assert cu.cluster_users_of({"cluster_users_accounts": USERS}, [], GROUPS) == [USERS, GROUPS]


# --- the directory backend -------------------------------------------------------------

LDAP = {
    "uri": "ldaps://head",
    "base_dn": "dc=lab,dc=example",
    "bind_dn": "cn=sssd,dc=lab,dc=example",
    "bind_password": "secret",
    "server": True,
    "server_host": "head",
    "inventory_hosts": ["head", "gpu-1"],
    "admin_password": "admin-secret",
    "tls_certificate": "-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----",
    "tls_private_key": "-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----",
}
SETTINGS = {
    "base_dn": "dc=lab,dc=example",
    "users_ou": "ou=people",
    "groups_ou": "ou=groups",
    "home_root": "/home/",
    "default_shell": "/bin/bash",
    "bind_dn": "cn=sssd,dc=lab,dc=example",
    "bind_password_value": "{SSHA}bind",
}


def test_good_directory_settings_have_no_problem():
    assert cu.cluster_users_ldap_problems(LDAP) == []
    # a site's own directory, read anonymously: no certificate or password of dlcluster's
    site = {
        "uri": "ldaps://ldap1.example.org:636,ldaps://ldap2.example.org",
        "base_dn": "ou=hpc,o=example",
    }
    assert cu.cluster_users_ldap_problems(site) == []


def test_a_uri_without_scheme_or_in_clear_and_a_bad_base_dn_are_refused():
    problems = cu.cluster_users_ldap_problems({**LDAP, "uri": "head.example.org", "base_dn": "lab"})
    assert any("'head.example.org' is not a directory URI" in p for p in problems), problems
    assert any("cluster_users_ldap_base_dn 'lab' is not a DN" in p for p in problems), problems
    (clear,) = cu.cluster_users_ldap_problems({**LDAP, "uri": "ldap://head"})
    assert "is ldap://" in clear and "use ldaps://" in clear
    (empty,) = cu.cluster_users_ldap_problems({**LDAP, "uri": ""})
    assert "cluster_users_ldap_uri is empty" in empty


def test_a_bind_dn_needs_its_password_and_the_own_directory_its_secrets():
    (bind,) = cu.cluster_users_ldap_problems({**LDAP, "bind_password": ""})
    assert "come together" in bind
    (secrets,) = cu.cluster_users_ldap_problems(
        {**LDAP, "admin_password": "", "tls_private_key": ""}
    )
    assert "cluster_users_ldap_admin_password, cluster_users_ldap_tls_private_key" in secrets
    # the offline plan reviews a site before its vault and certificate exist
    assert cu.cluster_users_ldap_problems({**LDAP, "admin_password": "", "plan": True}) == []
    problems = cu.cluster_users_ldap_problems(
        {**LDAP, "server_host": "elsewhere", "base_dn": "ou=x,dc=y"}
    )
    assert any("'elsewhere' is not a host of the inventory" in p for p in problems), problems
    assert any("domain's components" in p for p in problems), problems


def test_ssha_is_openldaps_salted_sha1_with_a_salt_fixed_by_the_seed():
    value = cu.cluster_users_ssha("secret", "cn=admin,dc=lab lab")
    raw = base64.b64decode(value.removeprefix("{SSHA}"))
    digest, salt = raw[:20], raw[20:]
    assert value.startswith("{SSHA}") and len(salt) == 8
    assert hashlib.sha1(b"secret" + salt).digest() == digest  # what slapd checks a bind with
    assert cu.cluster_users_ssha("secret", "cn=admin,dc=lab lab") == value  # a re-run compares
    assert cu.cluster_users_ssha("secret", "cn=admin,dc=other other") != value


def test_the_entries_are_rfc2307_with_the_inventorys_ids_and_hash():
    wanted = cu.cluster_users_ldap_entries(USERS, GROUPS, SETTINGS)
    dns = [e["dn"] for e in wanted["present"]]
    assert dns == [
        "ou=people,dc=lab,dc=example",
        "ou=groups,dc=lab,dc=example",
        "cn=dlusers,ou=groups,dc=lab,dc=example",
        "cn=gpu,ou=groups,dc=lab,dc=example",
        "uid=alice,ou=people,dc=lab,dc=example",
        "uid=bob,ou=people,dc=lab,dc=example",
        "cn=sssd,dc=lab,dc=example",
    ]  # parents first
    by_dn = {e["dn"]: e for e in wanted["present"]}
    alice = by_dn["uid=alice,ou=people,dc=lab,dc=example"]
    assert alice["objectClass"] == ["inetOrgPerson", "posixAccount", "shadowAccount"]
    assert alice["attributes"]["uidNumber"] == ["5001"]
    assert alice["attributes"]["gidNumber"] == ["5000"]
    assert alice["attributes"]["homeDirectory"] == ["/home/alice"]
    assert alice["attributes"]["userPassword"] == ["{CRYPT}" + HASH]
    # a group lists its other members, as /etc/group does; primary members are by gidNumber
    assert by_dn["cn=gpu,ou=groups,dc=lab,dc=example"]["attributes"]["memberUid"] == ["alice"]
    assert by_dn["cn=dlusers,ou=groups,dc=lab,dc=example"]["attributes"]["memberUid"] == []
    gone = cu.cluster_users_ldap_entries([{**USERS[1], "state": "absent"}], GROUPS, SETTINGS)
    assert gone["absent"] == ["uid=bob,ou=people,dc=lab,dc=example"]
    assert "uid=bob,ou=people,dc=lab,dc=example" not in [e["dn"] for e in gone["present"]]


def _as_read(wanted):
    """What ldap_search returns for a directory that holds `wanted`: a value a string where
    the attribute has one, a list where several, no key where none."""
    read = []
    for entry in wanted["present"]:
        found = {"dn": entry["dn"]}
        for attribute, values in entry["attributes"].items():
            if values:
                found[attribute] = values[0] if len(values) == 1 else list(values)
        read.append(found)
    return read


def test_a_converged_directory_gets_no_write():
    wanted = cu.cluster_users_ldap_entries(USERS, GROUPS, SETTINGS)
    assert cu.cluster_users_ldap_writes(wanted, _as_read(wanted)) == []
    # DNs and attribute names compare as LDAP does, without case; a set's order is free
    read = _as_read(wanted)
    read[0] = {**read[0], "dn": read[0]["dn"].upper()}
    two = cu.cluster_users_ldap_entries(
        [{**USERS[0]}, {**USERS[1], "groups": ["gpu"]}], GROUPS, SETTINGS
    )
    read_two = _as_read(two)
    for entry in read_two:
        if entry["dn"].startswith("cn=gpu"):
            entry["memberUid"] = ["bob", "alice"]
            entry["GIDNUMBER"] = entry.pop("gidNumber")
    assert cu.cluster_users_ldap_writes(wanted, read) == []
    assert cu.cluster_users_ldap_writes(two, read_two) == []


def test_only_what_is_missing_or_differs_is_written():
    wanted = cu.cluster_users_ldap_entries(USERS, GROUPS, SETTINGS)
    read = [e for e in _as_read(wanted) if not e["dn"].startswith("uid=bob")]
    for entry in read:
        if entry["dn"].startswith("uid=alice"):
            entry["loginShell"] = "/bin/sh"  # a hand edit in the directory
        if entry["dn"].startswith("cn=dlusers"):
            entry["memberUid"] = "mallory"  # someone added by hand to the group
    writes = cu.cluster_users_ldap_writes(wanted, read)
    assert writes == [
        {"action": "modify", "dn": "cn=dlusers,ou=groups,dc=lab,dc=example",
         "attributes": {"memberUid": []}},
        {"action": "modify", "dn": "uid=alice,ou=people,dc=lab,dc=example",
         "attributes": {"loginShell": ["/bin/bash"]}},
        {
            "action": "add",
            "dn": "uid=bob,ou=people,dc=lab,dc=example",
            "objectClass": ["inetOrgPerson", "posixAccount", "shadowAccount"],
            "attributes": {
                k: v for k, v in wanted["present"][5]["attributes"].items() if v
            },
        },
    ]  # fmt: skip
    # a user listed as absent is deleted while the directory holds it, then nothing
    gone = cu.cluster_users_ldap_entries(
        [USERS[0], {**USERS[1], "state": "absent"}], GROUPS, SETTINGS
    )
    assert {"action": "delete", "dn": "uid=bob,ou=people,dc=lab,dc=example"} in (
        cu.cluster_users_ldap_writes(gone, _as_read(wanted))
    )
    assert cu.cluster_users_ldap_writes(gone, _as_read(gone)) == []


CONFIG = [
    {"dn": "cn=config", "olcTLSCertificateFile": "/etc/ldap/tls/slapd.crt",
     "olcTLSCertificateKeyFile": "/etc/ldap/tls/slapd.key"},
    {"dn": "olcDatabase={1}mdb,cn=config", "olcSuffix": "dc=lab,dc=example",
     "olcRootPW": "{SSHA}x"},
]  # fmt: skip
SLAPD = {
    "suffix": "dc=lab,dc=example",
    "global": {"olcTLSCertificateFile": "/etc/ldap/tls/slapd.crt",
               "olcTLSCertificateKeyFile": "/etc/ldap/tls/slapd.key"},
    "database": {"olcRootPW": "{SSHA}x"},
}  # fmt: skip


def test_slapds_settings_are_written_only_where_they_differ():
    assert cu.cluster_users_slapd_writes(CONFIG, SLAPD) == []
    fresh = [{"dn": "cn=config"},
             {"dn": "olcDatabase={1}mdb,cn=config", "olcSuffix": "dc=lab,dc=example",
              "olcRootPW": "{SSHA}random"}]  # fmt: skip
    assert cu.cluster_users_slapd_writes(fresh, SLAPD) == [
        {"dn": "cn=config", "attributes": SLAPD["global"]},
        {"dn": "olcDatabase={1}mdb,cn=config", "attributes": {"olcRootPW": "{SSHA}x"}},
    ]


def test_a_directory_made_for_another_base_dn_is_not_rewritten():
    other = [CONFIG[0], {**CONFIG[1], "olcSuffix": "dc=nodomain"}]
    try:
        cu.cluster_users_slapd_writes(other, SLAPD)
    except ValueError as error:
        assert "slapd serves dc=nodomain, not dc=lab,dc=example" in str(error)
    else:
        raise AssertionError("a directory for another suffix was taken")


def test_the_homes_as_host_state_reads_them():
    users = [*USERS, {**USERS[0], "name": "eve", "state": "absent"}]
    assert cu.cluster_users_home_dirs(users, "/home/", "0700") == [
        {"path": "/home/alice", "state": "directory", "owner": "alice", "group": "dlusers",
         "mode": "0700"},
        {"path": "/home/bob", "state": "directory", "owner": "bob", "group": "dlusers",
         "mode": "0700"},
    ]  # fmt: skip


# --- the plan (tasks/plan.yml, published as cluster_users_plan) ---------------------------

# The role's inputs as vars/main.yml's _cluster_users_inputs gives them (a server's own
# cluster_users_* variables, the role's defaults for the rest)...
INPUTS = {
    "cluster_users_accounts": USERS,
    "cluster_users_groups": GROUPS,
    "cluster_users_home_root": "/home/",
    "cluster_users_default_shell": "/bin/bash",
    "cluster_users_home_mode": "0700",
    "cluster_users_min_id": 1000,
    "cluster_users_backend": "ldap",
    "cluster_users_ldap_uri": "ldaps://head",
    "cluster_users_ldap_base_dn": "dc=lab,dc=example",
    "cluster_users_ldap_users_ou": "ou=people",
    "cluster_users_ldap_groups_ou": "ou=groups",
    "cluster_users_ldap_server": True,
    "cluster_users_ldap_server_host": "head",
    "cluster_users_ldap_listen_addresses": ["0.0.0.0", "fd00::1"],
    "cluster_users_ldap_bind_dn": "cn=sssd,dc=lab,dc=example",
    "cluster_users_ldap_ca_certificate": "-----BEGIN CERTIFICATE-----\nx\n",
}
# ... and the secrets a server's variables hold beside them, which no plan may carry
SECRETS = {
    "cluster_users_ldap_admin_password": "admin-secret",
    "cluster_users_ldap_bind_password": "bind-secret",
    "cluster_users_ldap_tls_private_key": "-----BEGIN PRIVATE KEY-----\nk\n",
}


def _leaks(text: str) -> list[str]:
    """The secrets, hashes and hash schemes found in `text`."""
    needles = [HASH, "$6$", "{CRYPT}", "{SSHA}", "password_hash", "PRIVATE KEY"]
    needles += [
        SECRETS["cluster_users_ldap_admin_password"],
        SECRETS["cluster_users_ldap_bind_password"],
    ]
    return [needle for needle in needles if needle in text]


def test_the_plan_holds_no_password_and_no_hash():
    plan = cu.cluster_users_plan({**INPUTS, **SECRETS})
    assert _leaks(json.dumps(plan)) == []
    # where the directory keeps a password, the plan says where it comes from
    users = {e["dn"]: e for e in plan["directory"]["entries"]["present"]}
    alice = users["uid=alice,ou=people,dc=lab,dc=example"]["attributes"]
    assert alice["userPassword"] == [cu.PASSWORD_PLACEHOLDER]
    assert all("password_hash" not in user for user in plan["users"])
    # the secrets beside the inputs change nothing: the plan is not made from them
    assert plan == cu.cluster_users_plan(INPUTS)


def test_the_plan_fills_in_the_users_groups_and_homes():
    plan = cu.cluster_users_plan({**INPUTS, "cluster_users_backend": "local"})
    assert plan["backend"] == "local" and plan["directory"] is None and plan["sssd"] is None
    assert plan["groups"] == [
        {"name": "dlusers", "gid": 5000, "state": "present"},
        {"name": "gpu", "gid": 5001, "state": "present"},
    ]
    assert plan["users"][1] == {
        "name": "bob", "uid": 5002, "group": "dlusers", "gid": 5000, "groups": [],
        "comment": None, "shell": "/bin/bash", "home": "/home/bob", "state": "present",
    }  # fmt: skip
    # the homes as host_state compares them, of the users not listed absent
    gone = {
        **INPUTS,
        "cluster_users_accounts": [*USERS, {**USERS[1], "name": "eve", "state": "absent"}],
    }
    assert cu.cluster_users_plan(gone)["homes"] == cu.cluster_users_home_dirs(
        USERS, "/home/", "0700"
    )
    # -e gives every value as a string
    texts = {**INPUTS, "cluster_users_min_id": "1000", "cluster_users_ldap_server": "true"}
    texts["cluster_users_accounts"] = [{**u, "uid": str(u["uid"])} for u in USERS]
    assert cu.cluster_users_plan(texts) == cu.cluster_users_plan(INPUTS)


def test_the_plan_lays_out_the_directory_and_sssd():
    plan = cu.cluster_users_plan(INPUTS)
    directory = plan["directory"]
    assert (directory["server_host"], directory["domain"], directory["admin_dn"]) == (
        "head",
        "lab.example",
        "cn=admin,dc=lab,dc=example",
    )
    assert (directory["users_dn"], directory["groups_dn"]) == (
        "ou=people,dc=lab,dc=example",
        "ou=groups,dc=lab,dc=example",
    )
    assert directory["services"] == "ldaps://0.0.0.0/ ldaps://[fd00::1]/ ldapi:///"
    assert plan["sssd"] == {
        "uri": "ldaps://head", "search_base": "dc=lab,dc=example",
        "user_search_base": "ou=people,dc=lab,dc=example",
        "group_search_base": "ou=groups,dc=lab,dc=example",
        "bind_dn": "cn=sssd,dc=lab,dc=example",
        "tls_cacert": "/etc/sssd/dlcluster-ldap-ca.crt", "min_id": 1000,
    }  # fmt: skip
    # a site's directory: no directory host, no entries, searched from its base DN, the
    # system's CAs without a CA of its own
    site = cu.cluster_users_plan(
        {**INPUTS, "cluster_users_ldap_server": False, "cluster_users_ldap_ca_certificate": ""}
    )
    assert site["directory"]["server_host"] == ""
    assert site["directory"]["entries"] == {"present": [], "absent": []}
    assert (site["sssd"]["user_search_base"], site["sssd"]["group_search_base"]) == ("", "")
    assert site["sssd"]["tls_cacert"] == "/etc/ssl/certs/ca-certificates.crt"


def test_the_plans_entries_with_their_passwords_are_the_directorys():
    """What the apply writes: the plan's entries, the vault's values filled in."""
    planned = cu.cluster_users_plan(INPUTS)["directory"]["entries"]
    assert cu.cluster_users_ldap_passwords(planned, USERS, "{SSHA}bind") == (
        cu.cluster_users_ldap_entries(USERS, GROUPS, SETTINGS)
    )
    gone = [USERS[0], {**USERS[1], "state": "absent"}]
    planned = cu.cluster_users_plan({**INPUTS, "cluster_users_accounts": gone})["directory"]
    assert cu.cluster_users_ldap_passwords(planned["entries"], gone, "{SSHA}bind") == (
        cu.cluster_users_ldap_entries(gone, GROUPS, SETTINGS)
    )


def test_every_server_is_planned_from_its_own_variables():
    """The early phase's plans (hostvars hold no role default: `inputs` stand in for them)
    are the ones each server would make alone from its own variables."""
    hostvars = {
        "head": {"cluster_users_ldap_uri": "ldaps://head", **SECRETS},
        "gpu-1": {"cluster_users_ldap_uri": "ldaps://replica"},
    }
    defaults = {**INPUTS, "cluster_users_ldap_uri": ""}
    plans = cu.cluster_users_plans(["head", "gpu-1"], hostvars, defaults)
    assert plans == {
        "head": cu.cluster_users_plan({**defaults, "cluster_users_ldap_uri": "ldaps://head"}),
        "gpu-1": cu.cluster_users_plan({**defaults, "cluster_users_ldap_uri": "ldaps://replica"}),
    }
    assert plans["gpu-1"]["sssd"]["uri"] == "ldaps://replica"


def test_the_plan_made_on_the_control_host_is_the_one_the_role_reads(tmp_path, monkeypatch):
    """Planned from the control host (the early phase), published on every server, read
    there by the role (render.yml) rather than its inputs (a URI given afterwards), each
    server's the one it would make alone; nothing secret in it, in what it renders or in
    the -v output that shows the published fact."""
    common = {
        "cluster_users_groups": GROUPS, "cluster_users_accounts": USERS,
        "cluster_users_backend": "ldap", "cluster_users_ldap_server": True,
        "cluster_users_ldap_uri": "ldaps://head-1",
        "cluster_users_ldap_base_dn": "dc=lab,dc=example",
        "cluster_users_ldap_bind_dn": "cn=sssd,dc=lab,dc=example", **SECRETS,
    }  # fmt: skip
    inventory = tmp_path / "inventory.json"
    inventory.write_text(
        json.dumps(
            {
                "all": {
                    "children": {
                        "head": {"hosts": {"head-1": local_host()}},
                        "compute": {
                            "hosts": {"gpu-1": local_host()},
                            # a replica near the GPU servers: each server's own variables
                            "vars": {"cluster_users_ldap_uri": "ldaps://replica"},
                        },
                    },
                    "vars": common,
                },
                "_meta": {"hostvars": {}},
            }
        )
    )
    monkeypatch.setenv("ANSIBLE_VERBOSITY", "1")
    result = run_playbook(
        inventory,
        ROOT / "tests" / "unit" / "playbooks" / "cluster_users_plan.yml",
        {"out": str(tmp_path)},
    )
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
    assert "cluster_users_plan" in result.stdout  # -v shows the published fact...
    assert _leaks(result.stdout) == []  # ...and with it no secret
    hosts = ("head-1", "gpu-1")
    seen = {h: json.loads((tmp_path / f"{h}.json").read_text()) for h in hosts}
    for host in hosts:
        assert seen[host]["read"] == seen[host]["published"] == seen[host]["alone"], host
    plan = seen["head-1"]["read"]
    assert plan["directory"]["server_host"] == "head-1"
    assert (plan["sssd"]["uri"], seen["gpu-1"]["read"]["sssd"]["uri"]) == (
        "ldaps://head-1",
        "ldaps://replica",
    )
    rendered = {
        path.relative_to(tmp_path).as_posix(): path.read_text()
        for path in tmp_path.glob("*-*/**/*") if path.is_file()
    }  # fmt: skip
    assert sorted(rendered) == [
        "gpu-1/etc/sssd/sssd.conf", "head-1/directory.ldif", "head-1/etc/default/slapd",
        "head-1/etc/sssd/sssd.conf",
    ]  # fmt: skip
    # written from the plan, not from the URI given after it was made
    assert "ldap_uri = ldaps://head-1\n" in rendered["head-1/etc/sssd/sssd.conf"]
    assert "ldap_uri = ldaps://replica\n" in rendered["gpu-1/etc/sssd/sssd.conf"]
    assert "uid=alice,ou=people,dc=lab,dc=example" in rendered["head-1/directory.ldif"]
    # (the LDIF's header names the hash schemes: the values themselves must not be there)
    secret = [HASH, *SECRETS.values(), "not-planned"]
    assert [(n, s) for n, text in rendered.items() for s in secret if s in text] == []
    assert _leaks(json.dumps(seen)) == []
