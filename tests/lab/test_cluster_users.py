"""The cluster's users on the lab (cluster_users): the same account on every server, the
home on the head node's share, the password the vault's hash says."""

from __future__ import annotations

import pytest
from conftest import ROOT, docker_host, load_lab_groups

GROUPS = load_lab_groups()
HEAD = sorted(GROUPS["head"])[0]
HEAD_ADDRESS = GROUPS["head"][HEAD]["lab_data_address"]
SERVERS = sorted(GROUPS["head"]) + sorted(GROUPS["compute"])
SECRETS = ROOT / "lab" / ".state" / "secrets"


@pytest.mark.parametrize("server", SERVERS)
def test_the_user_and_group_are_the_same_on_every_server(server):
    host = docker_host(server)
    assert host.check_output("getent passwd alice").split(":") == [
        "alice", "x", "5001", "5000", "Lab data scientist", "/home/alice", "/bin/bash"
    ]  # fmt: skip
    assert host.check_output("getent group dlusers").startswith("dlusers:x:5000:")


def test_the_home_is_private_and_on_the_head_nodes_share():
    head = docker_host(HEAD)
    home = head.file("/home/alice")
    assert home.is_directory and (home.user, home.group, home.mode) == ("alice", "dlusers", 0o700)
    # /home on the head node is the share's home export, bound there
    assert head.file("/srv/nfs/home/alice").is_directory


def test_the_gpu_servers_see_the_home_through_the_share_with_the_same_ids():
    node = docker_host(sorted(GROUPS["compute"])[0])
    listing = node.check_output(f"nfs-ls nfs://{HEAD_ADDRESS}/srv/nfs/home")
    (line,) = [entry for entry in listing.splitlines() if entry.split()[-1:] == ["alice"]]
    mode, _links, uid, gid = line.split()[:4]
    assert (mode, uid, gid) == ("drwx------", "5001", "5000"), line


def test_every_server_has_the_vaults_hash_and_it_matches_the_password():
    expected = (SECRETS / "lab-user.sha512").read_text().strip()
    password = (SECRETS / "lab-user").read_text().strip()
    assert expected.startswith("$6$") and password.isalnum()
    for server in SERVERS:
        assert docker_host(server).check_output("getent shadow alice").split(":")[1] == expected
    # crypt(3) of the password with the stored salt gives the stored hash (pam_unix's check)
    check = docker_host(HEAD).run(
        "printf %s " + password + " | python3 -W ignore -c 'import crypt, spwd, sys;"
        ' h = spwd.getspnam("alice").sp_pwdp; sys.exit(crypt.crypt(sys.stdin.read(), h) != h)\''
    )
    assert check.rc == 0, check.stderr
