"""The Isilon mount plan (filter_plugins/isilon_mounts.py) on the papers' sites and edge cases."""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[2] / "filter_plugins" / "isilon_mounts.py"
_SPEC = importlib.util.spec_from_file_location("mount_plan", _PATH)
mount_plan = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(mount_plan)
_CLIENT = importlib.util.spec_from_file_location("nfs_client", _PATH.parent / "nfs_client.py")
nfs_client = importlib.util.module_from_spec(_CLIENT)
_CLIENT.loader.exec_module(nfs_client)
plan_for = mount_plan.isilon_mount_plan
options = mount_plan.isilon_mount_options

# The DSS 8440 paper: one server, four F800 nodes on 172.16.1.0/24.
DSS8440_HOSTS = ["dss8440-1"]
DSS8440_ADDRESSES = [f"172.16.1.{n}" for n in range(11, 15)]
# The DGX-1 paper: nine DGX-1, eight F800 nodes with one address on each of two subnets.
DGX1_HOSTS = [f"dgx1-{n}" for n in range(1, 10)]
DGX1_ADDRESSES = [f"10.55.66.{n}" for n in range(211, 219)] + [
    f"10.55.5.{n}" for n in range(211, 219)
]


def _assigned(plan):
    return Counter(entry["address"] for entries in plan["hosts"].values() for entry in entries)


def test_dss8440_single_host_gets_two_mounts_on_each_of_four_addresses():
    plan = plan_for(DSS8440_HOSTS, DSS8440_ADDRESSES, 8)
    assert plan["ok"], plan["problems"]
    assert plan["per_address"] == {a: 2 for a in DSS8440_ADDRESSES}
    mounts = plan["hosts"]["dss8440-1"]
    assert [m["path"] for m in mounts] == [f"/mnt/isilon{n}" for n in range(1, 9)]
    assert [m["address"] for m in mounts] == DSS8440_ADDRESSES * 2
    assert mounts[0]["src"] == "172.16.1.11:/ifs"


def test_dss8440_with_four_mounts_fails_the_two_per_address_rule():
    plan = plan_for(DSS8440_HOSTS, DSS8440_ADDRESSES, 4)
    assert not plan["ok"]
    assert plan["hosts"] == {}
    assert "set isilon_mounts_per_host to at least 8" in plan["problems"][0]


def test_dgx1_nine_hosts_sixteen_addresses_gives_nine_mounts_per_address():
    plan = plan_for(DGX1_HOSTS, DGX1_ADDRESSES, 16)
    assert plan["ok"], plan["problems"]
    assert plan["per_address"] == {a: 9 for a in DGX1_ADDRESSES}
    assert _assigned(plan) == Counter(plan["per_address"])
    for host, mounts in plan["hosts"].items():
        assert sorted(m["address"] for m in mounts) == sorted(DGX1_ADDRESSES), host
        assert plan["per_host"][host] == {a: 1 for a in DGX1_ADDRESSES}


def test_dgx1_hosts_start_at_different_addresses():
    plan = plan_for(DGX1_HOSTS, DGX1_ADDRESSES, 16)
    firsts = [plan["hosts"][h][0]["address"] for h in DGX1_HOSTS]
    assert len(set(firsts)) == len(DGX1_HOSTS)


def test_dgx1_both_subnets_carry_half_the_mounts():
    plan = plan_for(DGX1_HOSTS, DGX1_ADDRESSES, 16)
    per_subnet = Counter(a.rsplit(".", 1)[0] for a in _assigned(plan).elements())
    assert per_subnet == {"10.55.66": 72, "10.55.5": 72}


def test_uneven_three_hosts_four_addresses_three_mounts_each():
    addresses = ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"]
    plan = plan_for(["a", "b", "c"], addresses, 3, min_per_address=2)
    assert plan["ok"], plan["problems"]
    counts = plan["per_address"].values()
    assert sum(counts) == 9
    assert max(counts) - min(counts) <= 1
    assert min(counts) >= 2
    for mounts in plan["hosts"].values():
        assert len({m["address"] for m in mounts}) == 3  # distinct while m <= n
    firsts = [plan["hosts"][h][0]["address"] for h in ("a", "b", "c")]
    assert len(set(firsts)) == 3


@pytest.mark.parametrize("hosts", [1, 2, 3, 5, 7, 9, 12])
@pytest.mark.parametrize("n_addresses", [1, 2, 4, 6, 16])
@pytest.mark.parametrize("per_host", [1, 2, 3, 4, 8, 16, 17])
def test_totals_stay_within_one_of_each_other(hosts, n_addresses, per_host):
    addresses = [f"10.1.0.{n}" for n in range(1, n_addresses + 1)]
    plan = plan_for([f"h{n}" for n in range(hosts)], addresses, per_host, min_per_address=0)
    assert plan["ok"]
    counts = list(plan["per_address"].values())
    assert sum(counts) == hosts * per_host
    assert max(counts) - min(counts) <= 1
    for mounts in plan["hosts"].values():
        per_address = Counter(m["address"] for m in mounts)
        assert max(per_address.values()) - min(per_address.values()) <= 1
        if per_host >= n_addresses:
            assert len(per_address) == n_addresses


def test_no_addresses_is_a_problem_naming_the_variable():
    plan = plan_for(["a"], [], 4)
    assert not plan["ok"]
    assert any("isilon_mounts_addresses is empty" in p for p in plan["problems"])


@pytest.mark.parametrize("bad", [0, -1, "4", None, True])
def test_mounts_per_host_must_be_a_positive_integer(bad):
    plan = plan_for(["a"], ["10.0.0.1"], bad)
    assert not plan["ok"]
    assert any("isilon_mounts_per_host" in p for p in plan["problems"])


def test_no_hosts_and_duplicate_addresses_are_reported_together():
    plan = plan_for([], ["10.0.0.1", "10.0.0.1"], 2)
    assert len(plan["problems"]) == 2
    assert "10.0.0.1" in plan["problems"][1]


def test_ipv6_addresses_are_bracketed_in_the_source():
    plan = plan_for(["a"], ["fd00::21", "fd00::22"], 4)
    assert plan["hosts"]["a"][0]["src"] == "[fd00::21]:/ifs"


def test_custom_prefix_and_export():
    plan = plan_for(["a"], ["i1", "i2"], 4, mount_prefix="/data/nfs", export="/ifs/data")
    assert plan["hosts"]["a"][3] == {
        "index": 4,
        "path": "/data/nfs4",
        "address": "i2",
        "src": "i2:/ifs/data",
    }


def test_options_keep_the_papers_order():
    papers = ["rsize=524288", "wsize=524288", "nolock", "soft", "timeo=50", "retrans=1"]
    assert options([*papers, "proto=tcp"]) == (
        "rsize=524288,wsize=524288,nolock,soft,timeo=50,retrans=1,proto=tcp"
    )


def test_a_later_option_overrides_in_place():
    assert options(["rsize=524288", "nolock", "rsize=1048576", "nconnect=8"]) == (
        "rsize=1048576,nolock,nconnect=8"
    )


def test_empty_options_are_defaults_and_commas_inside_an_item_are_refused():
    assert options([]) == "defaults"
    with pytest.raises(Exception, match="one NFS option per list item"):
        options(["rsize=1,wsize=1"])


# An address taken out of service: only its mounts move, the rest keep their address.


@pytest.mark.parametrize("hosts", [1, 2, 3, 9])
@pytest.mark.parametrize("down", [["10.1.0.3"], ["10.1.0.1", "10.1.0.4"]])
def test_unavailable_address_moves_only_its_own_mounts(hosts, down):
    names = [f"h{n}" for n in range(hosts)]
    addresses = [f"10.1.0.{n}" for n in range(1, 5)]
    before = plan_for(names, addresses, 8, min_per_address=0)
    after = plan_for(names, addresses, 8, min_per_address=0, unavailable=down)
    assert after["ok"], after["problems"]
    moved = 0
    for host in names:
        for old, new in zip(before["hosts"][host], after["hosts"][host], strict=True):
            assert new["path"] == old["path"]
            assert new["address"] not in down
            if old["address"] in down:
                moved += 1
            else:
                assert new == old  # a healthy mount is not touched
    assert moved == sum(after["moved"].values()) == sum(_assigned(before)[a] for a in down)
    assert set(after["per_address"]) == set(addresses) - set(down)
    counts = list(after["per_address"].values())
    assert sum(counts) == hosts * 8
    assert max(counts) - min(counts) <= 1


def test_dss8440_one_node_down_spreads_its_two_mounts_over_two_other_nodes():
    plan = plan_for(DSS8440_HOSTS, DSS8440_ADDRESSES, 8, unavailable=["172.16.1.13"])
    assert plan["ok"]
    assert plan["moved"] == {"172.16.1.13": 2}
    assert sorted(plan["per_address"].values()) == [2, 3, 3]


def test_dropping_the_unavailable_list_restores_the_original_plan():
    plan = plan_for(DGX1_HOSTS, DGX1_ADDRESSES, 16)
    assert plan_for(DGX1_HOSTS, DGX1_ADDRESSES, 16, unavailable=[]) == {**plan, "moved": {}}


def test_unknown_or_all_unavailable_addresses_are_problems():
    unknown = plan_for(DSS8440_HOSTS, DSS8440_ADDRESSES, 8, unavailable=["172.16.1.99"])
    assert not unknown["ok"] and not unknown["hosts"]
    assert "isilon_mounts_unavailable_addresses names 172.16.1.99" in unknown["problems"][0]
    every = plan_for(DSS8440_HOSTS, DSS8440_ADDRESSES, 8, unavailable=DSS8440_ADDRESSES)
    assert every["problems"][0] == (
        "every Isilon address is listed in isilon_mounts_unavailable_addresses"
    )


def test_too_few_mounts_for_the_healthy_addresses_is_still_a_problem():
    plan = plan_for(DSS8440_HOSTS, DSS8440_ADDRESSES, 5, unavailable=["172.16.1.11"])
    assert plan["problems"] == [
        "1 host(s) x 5 data mount(s) = 5 mounts cannot give each of the 3 Isilon addresses "
        "2 mounts; set isilon_mounts_per_host to at least 6"
    ]


# isilon_mounts_pending: which mounts the mount module would change.
pending = mount_plan.isilon_mounts_pending
DATA_OPTS = "rw,nolock,rsize=524288,wsize=524288"
WANTED = [
    {"path": "/mnt/isilon", "src": "172.16.1.11:/ifs/data", "opts": "rw,hard"},
    {"path": "/mnt/isilon1", "src": "172.16.1.12:/ifs/data", "opts": DATA_OPTS},
    {"path": "/mnt/isilon2", "src": "172.16.1.13:/ifs/data", "opts": DATA_OPTS},
]
FSTAB = (
    "# /etc/fstab: static file system information.\n"
    "UUID=0a1b / ext4 errors=remount-ro 0 1\n"
    "172.16.1.11:/ifs/data /mnt/isilon nfs rw,hard 0 0\n"
    "172.16.1.12:/ifs/data /mnt/isilon1 nfs rw,nolock,rsize=524288,wsize=524288 0 0\n"
    "172.16.1.13:/ifs/data /mnt/isilon2 nfs rw,nolock,rsize=524288,wsize=524288 0 0 # data\n"
)
MOUNTS = (
    "".join(f"{m['src']} {m['path']} nfs {m['opts']},vers=3 0 0\n" for m in WANTED)
    + "proc /proc proc rw 0 0\n"
)


def _paths(mounts):
    return [m["path"] for m in mounts]


def test_nothing_pending_when_fstab_matches():
    assert pending(WANTED, FSTAB) == []
    assert pending(WANTED, FSTAB, MOUNTS) == []


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("172.16.1.12:/ifs/data /mnt/isilon1", "172.16.1.14:/ifs/data /mnt/isilon1"),  # address
        ("/mnt/isilon1 nfs rw,nolock,rsize=524288", "/mnt/isilon1 nfs rw,rsize=524288"),  # opts
        ("/mnt/isilon1 nfs", "/mnt/isilon1 nfs4"),  # type
        ("wsize=524288 0 0\n172.16.1.13", "wsize=524288\n172.16.1.13"),  # dump and pass left out
    ],
)
def test_a_differing_line_is_pending(old, new):
    assert old in FSTAB
    assert _paths(pending(WANTED, FSTAB.replace(old, new, 1))) == ["/mnt/isilon1"]


def test_missing_and_duplicated_lines_are_pending():
    missing = FSTAB.replace("172.16.1.11:/ifs/data /mnt/isilon nfs rw,hard 0 0\n", "")
    assert _paths(pending(WANTED, missing)) == ["/mnt/isilon"]
    duplicated = FSTAB + "172.16.1.99:/ifs/data /mnt/isilon2 nfs rw 0 0\n"
    assert _paths(pending(WANTED, duplicated)) == ["/mnt/isilon2"]
    assert _paths(pending(WANTED, "")) == _paths(WANTED)


def test_commented_out_lines_do_not_count():
    commented = FSTAB.replace(
        "172.16.1.11:/ifs/data /mnt/isilon ", "#172.16.1.11:/ifs/data /mnt/isilon "
    )
    assert _paths(pending(WANTED, commented)) == ["/mnt/isilon"]


def test_mounted_state_also_wants_the_path_mounted():
    unmounted = "".join(line + "\n" for line in MOUNTS.splitlines() if "/mnt/isilon2 " not in line)
    assert _paths(pending(WANTED, FSTAB, unmounted)) == ["/mnt/isilon2"]
    assert pending(WANTED, FSTAB, None) == []


def test_spaces_compare_in_fstab_escapes():
    wanted = [{"path": "/mnt/isilon data", "src": "172.16.1.11:/ifs/a&b", "opts": "rw"}]
    fstab = "172.16.1.11:/ifs/a\\046b /mnt/isilon\\040data nfs rw 0 0\n"
    assert pending(wanted, fstab) == []
    assert pending(wanted, fstab, "172.16.1.11:/ifs/a&b /mnt/isilon\\040data nfs rw 0 0\n") == []


def test_owned_mounts_are_read_back_from_the_data_mount_list():
    text = (
        "# managed by dlcluster: isilon_mounts\n"
        "# Data mounts of this host, in order\n"
        "# default mount: /mnt/isilon\n"
        "/mnt/isilon1\n/mnt/isilon2\n\n"
    )
    assert mount_plan.isilon_mounts_owned(text) == ["/mnt/isilon", "/mnt/isilon1", "/mnt/isilon2"]
    # the list as the role writes it now: each mount's address and export after it
    with_sources = text.replace("/mnt/isilon1\n", "/mnt/isilon1  # 172.16.1.11:/ifs\n")
    assert mount_plan.isilon_mounts_owned(with_sources) == [
        "/mnt/isilon",
        "/mnt/isilon1",
        "/mnt/isilon2",
    ]


def test_no_list_means_nothing_owned_yet():
    assert mount_plan.isilon_mounts_owned(None) == []
    assert mount_plan.isilon_mounts_owned("") == []


def test_the_papers_nfs_options_pass_the_linux_client_rules():
    papers = ["rsize=524288", "wsize=524288", "nolock", "soft", "timeo=50", "retrans=1",
              "proto=tcp", "vers=3", "nconnect=8", "defaults"]  # fmt: skip
    assert nfs_client.nfs_option_problems(papers, "o") == []


def test_nfs_options_the_client_would_refuse_are_named():
    assert nfs_client.nfs_option_problems(["rsize=512", "timeo=", "vers=5", "a b"], "o") == [
        "o[0] is 'rsize=512': rsize must be 1024..1048576",
        "o[1] is 'timeo=': timeo needs a value",
        "o[2] is 'vers=5': vers is one of 3, 4, 4.0, 4.1, 4.2",
        "o[3] is 'a b': one option per item, without spaces",
    ]
    assert nfs_client.nfs_option_problems("rsize=1k,nolock", "o") == [
        "o[0] is 'rsize=1k': rsize takes a whole number (1024..1048576)"
    ]


def test_the_default_mount_may_not_be_or_hold_a_data_mount():
    assert mount_plan.mount_path_problems("/mnt/isilon", "/mnt/isilon", 4) == []
    assert mount_plan.mount_path_problems("/mnt/isilon3", "/mnt/isilon", 4) != []
    assert mount_plan.mount_path_problems("/mnt/isilon5", "/mnt/isilon", 4) == []
    assert mount_plan.mount_path_problems("/mnt/isilon1/logs", "/mnt/isilon", 2) != []
    assert mount_plan.mount_path_problems("/mnt", "/mnt/data", 2) != []  # holds /mnt/data1
