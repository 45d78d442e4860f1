"""The cluster's users on the lab (cluster_users, directory backend): they live in the
head node's directory (OpenLDAP over ldaps://), every server resolves them through sssd
with the same IDs and has no local account for them, the home is on the head node's
share, the password is the vault's hash and the directory checks it."""

from __future__ import annotations

import base64
import shlex

import pytest
from conftest import ROOT, docker_host, lab_password, load_lab_groups

GROUPS = load_lab_groups()
HEAD = sorted(GROUPS["head"])[0]
HEAD_ADDRESS = GROUPS["head"][HEAD]["lab_data_address"]
SERVERS = sorted(GROUPS["head"]) + sorted(GROUPS["compute"])
SECRETS = ROOT / "lab" / ".state" / "secrets"
BASE = "dc=lab,dc=dlcluster"
ALICE = f"uid=alice,ou=people,{BASE}"
# the lab CA, as the role gives it to sssd; ldap-utils (libldap) read it from LDAPTLS_CACERT
TLS = "LDAPTLS_CACERT=/etc/sssd/dlcluster-ldap-ca.crt"


def _ldap(command: str, *args: str) -> object:
    return docker_host(HEAD).run(f"{TLS} {command} {shlex.join(args)}")


@pytest.mark.parametrize("server", SERVERS)
def test_every_server_resolves_the_user_from_the_directory_and_has_no_local_account(server):
    host = docker_host(server)
    expected = ["alice", "*", "5001", "5000", "Lab data scientist", "/home/alice", "/bin/bash"]
    # sssd answers (getent -s sss asks it alone); /etc/passwd and /etc/group do not
    assert host.check_output("getent -s sss passwd alice").split(":") == expected
    assert host.check_output("getent passwd alice").split(":")[2:] == expected[2:]
    assert host.check_output("getent -s sss group dlusers").startswith("dlusers:*:5000:")
    assert host.run("grep -c '^alice:' /etc/passwd /etc/shadow").stdout.count(":0") == 2
    assert host.run("grep -q '^dlusers:' /etc/group").rc == 1
    assert host.service("sssd").is_running and host.service("sssd").is_enabled
    assert host.file("/etc/sssd/sssd.conf").mode == 0o600


def test_the_home_is_private_and_on_the_head_nodes_share():
    head = docker_host(HEAD)
    home = head.file("/home/alice")
    assert home.is_directory and (home.user, home.group, home.mode) == ("alice", "dlusers", 0o700)
    assert head.file("/home/alice/.bashrc").exists  # the skeleton, as useradd -m gives it
    # /home on the head node is the share's home export, bound there
    assert head.file("/srv/nfs/home/alice").is_directory


def test_the_gpu_servers_see_the_home_through_the_share_with_the_same_ids():
    node = docker_host(sorted(GROUPS["compute"])[0])
    listing = node.check_output(f"nfs-ls nfs://{HEAD_ADDRESS}/srv/nfs/home")
    (line,) = [entry for entry in listing.splitlines() if entry.split()[-1:] == ["alice"]]
    mode, _links, uid, gid = line.split()[:4]
    assert (mode, uid, gid) == ("drwx------", "5001", "5000"), line


def test_slapd_listens_on_every_ipv4_address_on_636_and_nothing_on_389():
    """The named listener (cluster_users_ldap_listen_addresses' default): every IPv4 address,
    where the servers' sssd and the tests reach it, not an IPv6-only socket."""
    listening = docker_host(HEAD).check_output("ss -Hltn")
    local = {line.split()[3] for line in listening.splitlines()}
    assert "0.0.0.0:636" in local, listening
    assert not any(address.endswith(":389") for address in local), listening


def test_the_directory_holds_the_vaults_hash_and_checks_the_password_over_ldaps_only():
    expected = (SECRETS / "lab-user.sha512").read_text().strip()
    password = (SECRETS / "lab-user").read_text().strip()
    assert expected.startswith("$6$") and password.isalnum()
    admin = lab_password("ldap-admin")
    entry = _ldap(
        f"ldapsearch -LLL -o ldif-wrap=no -H ldaps://{HEAD_ADDRESS} -x", "-D", f"cn=admin,{BASE}",
        "-w", admin, "-b", ALICE, "userPassword", "uidNumber", "gidNumber",
    )  # fmt: skip
    assert entry.rc == 0, entry.stderr
    # userPassword:: is base64 (LDIF's rule for a value that starts with "{")
    assert "uidNumber: 5001" in entry.stdout and "gidNumber: 5000" in entry.stdout
    (value,) = [
        line.split(":: ")[1]
        for line in entry.stdout.splitlines()
        if line.startswith("userPassword::")
    ]
    assert base64.b64decode(value).decode() == "{CRYPT}" + expected
    # a bind as alice with her password: what sssd's auth_provider=ldap does for PAM
    whoami = _ldap(f"ldapwhoami -H ldaps://{HEAD_ADDRESS} -x", "-D", ALICE, "-w", password)
    assert whoami.rc == 0 and whoami.stdout.strip() == f"dn:{ALICE}", whoami.stderr
    assert (
        _ldap(f"ldapwhoami -H ldaps://{HEAD_ADDRESS} -x", "-D", ALICE, "-w", "not-" + password).rc
        == 49
    )
    # no plain LDAP: passwords never cross the network in clear
    plain = _ldap(f"ldapwhoami -H ldap://{HEAD_ADDRESS} -x", "-D", ALICE, "-w", password)
    assert plain.rc != 0 and "Can't contact LDAP server" in plain.stderr, plain.stderr


def test_sssds_bind_account_reads_the_users_but_not_their_password_hashes():
    search = _ldap(
        f"ldapsearch -LLL -H ldaps://{HEAD_ADDRESS} -x", "-D", f"cn=sssd,{BASE}",
        "-w", lab_password("ldap-sssd"), "-b", f"ou=people,{BASE}", "(uid=alice)",
        "uid", "userPassword",
    )  # fmt: skip
    assert search.rc == 0, search.stderr
    assert "uid: alice" in search.stdout and "userPassword" not in search.stdout
