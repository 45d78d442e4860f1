"""The cluster_users role's preflight check (filter_plugins/cluster_users.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

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
