"""Cross-host inventory checks (filter_plugins/preflight.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_PATH = Path(__file__).resolve().parents[2] / "filter_plugins" / "preflight.py"
_SPEC = importlib.util.spec_from_file_location("inventory_checks", _PATH)
checks = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(checks)


def test_distinct_addresses_raise_no_problem():
    assert checks.data_address_problems(["a", "b"], ["10.0.0.1", "10.0.0.2"]) == []


def test_shared_address_names_both_hosts():
    problems = checks.data_address_problems(
        ["dss8440-1", "isilon-1", "isilon-2"], ["172.16.1.11", "172.16.1.11", "172.16.1.12"]
    )
    assert problems == [
        "cluster_data_address 172.16.1.11 is used by more than one host: dss8440-1, isilon-1"
    ]


def test_missing_and_malformed_addresses_are_named():
    problems = checks.data_address_problems(["a", "b", "c"], [None, "", "172.16.1.300"])
    assert problems == [
        "a: cluster_data_address is not set",
        "b: cluster_data_address is not set",
        "c: cluster_data_address '172.16.1.300' is not an IP address",
    ]


def test_mtu_within_range_passes():
    assert checks.mtu_problems(9000, 1280, 9216) == []
    assert checks.mtu_problems("1500", 1280, 9216) == []


def test_mtu_out_of_range_names_value_and_range():
    assert checks.mtu_problems(10000, 1280, 9216) == ["cluster_data_mtu 10000 is outside 1280-9216"]


def test_mtu_that_is_not_a_whole_number_is_refused():
    assert checks.mtu_problems("9000.5", 1280, 9216) == [
        "cluster_data_mtu '9000.5' is not a whole number"
    ]
    assert checks.mtu_problems(None, 1280, 9216) == ["cluster_data_mtu None is not a whole number"]
    assert checks.mtu_problems(True, 1280, 9216) == ["cluster_data_mtu True is not a whole number"]


def test_empty_required_group_is_named():
    groups = {"compute": ["dgx1-1"], "isilon": []}
    assert checks.missing_group_problems(groups, ["compute", "isilon", "switches"]) == [
        "inventory group 'isilon' has no hosts",
        "inventory group 'switches' has no hosts",
    ]


def _cluster(groups, hostvars, **kwargs):
    """The cluster-wide checks, on groups whose servers are declared in `servers`
    (test_servers_missing_from_the_group_servers_are_named checks that declaration)."""
    groups = {"servers": [*groups.get("head", []), *groups.get("compute", [])], **groups}
    args = {"required_groups": ["compute", "isilon"], "mtu": 9000, "mtu_min": 1280, "mtu_max": 9216}
    args.update(kwargs)
    return checks.cluster_inventory_problems(groups, hostvars, **args)


_GOOD_HOSTVARS = {
    "c1": {"cluster_data_address": "10.0.0.1", "cluster_registry_password": "r"},
    "i1": {"cluster_data_address": "10.0.0.2", "cluster_onefs_password": "o"},
    "s1": {"cluster_switch_password": "s"},
}
_GROUPS = {"compute": ["c1"], "isilon": ["i1"], "switches": ["s1"]}


def test_cluster_settings_that_agree_raise_no_problem():
    assert _cluster(_GROUPS, _GOOD_HOSTVARS) == []


def test_servers_missing_from_the_group_servers_are_named():
    """cluster_host reads the hosts of `servers` alone: a head, GPU or monitoring host
    outside it would be configured without its read."""
    groups = {
        "compute": ["c1", "c2"], "head": ["h1"], "monitoring": ["m1"], "servers": ["c1"],
        "isilon": ["i1"],
    }  # fmt: skip
    assert checks.server_group_problems(groups) == [
        "inventory group 'servers' lacks h1 of group 'head': it lists every server "
        "dlcluster configures (e.g. children: head, compute)",
        "inventory group 'servers' lacks c2 of group 'compute': it lists every server "
        "dlcluster configures (e.g. children: head, compute)",
        "inventory group 'servers' lacks m1 of group 'monitoring': it lists every server "
        "dlcluster configures (e.g. children: head, compute)",
    ]
    groups["servers"] = ["c1", "c2", "h1", "m1"]
    assert checks.server_group_problems(groups) == []
    assert checks.server_group_problems({"compute": ["c1"]})[0].startswith(
        "inventory group 'servers' lacks c1 of group 'compute'"
    )


def test_cluster_checks_report_every_problem_at_once():
    hostvars = {
        "c1": {"cluster_data_address": "10.0.0.1", "cluster_registry_password": ""},
        "i1": {"cluster_data_address": "10.0.0.1", "cluster_onefs_password": "o"},
        "s1": {"cluster_switch_password": "s"},
    }
    problems = _cluster(_GROUPS, hostvars, mtu=10000)
    assert "cluster_data_address 10.0.0.1 is used by more than one host: c1, i1" in problems
    assert "cluster_data_mtu 10000 is outside 1280-9216" in problems
    assert any(p.startswith("cluster_registry_password is empty") for p in problems)
    assert len(problems) == 3


def test_secret_of_a_group_without_hosts_is_not_required():
    groups = {"compute": ["c1"], "isilon": ["i1"]}
    hostvars = {k: v for k, v in _GOOD_HOSTVARS.items() if k != "s1"}
    assert _cluster(groups, hostvars) == []


def test_secrets_are_not_checked_when_asked_not_to():
    hostvars = {
        "c1": {"cluster_data_address": "10.0.0.1"},
        "i1": {"cluster_data_address": "10.0.0.2"},
        "s1": {},
    }
    assert _cluster(_GROUPS, hostvars, check_secrets=False) == []
    assert len(_cluster(_GROUPS, hostvars)) == 3


def test_pinned_image_tags_pass():
    assert (
        checks.image_tag_problems(
            ["a", "b"],
            ["nvcr.io/nvidia/tensorflow:19.03-py3", "registry:5000/nvidia/mxnet:20.06-py3"],
            "ngc_container_base_image",
        )
        == []
    )


def test_missing_or_moving_image_tags_are_named():
    problems = checks.image_tag_problems(
        ["a", "b", "c"],
        ["nvcr.io/nvidia/tensorflow", "nvcr.io/nvidia/tensorflow:latest", "registry:5000/tf"],
        "ngc_container_base_image",
    )
    assert len(problems) == 3
    assert problems[0].startswith(
        "a: ngc_container_base_image 'nvcr.io/nvidia/tensorflow' needs a pinned tag"
    )
    # a registry port is not a tag
    assert problems[2].startswith("c: ngc_container_base_image 'registry:5000/tf'")


def test_rolling_batches_accept_counts_percentages_and_lists():
    for serial in (1, "2", "25%", "100%", [1, "50%"]):
        assert checks.rolling_problems(serial, None) == [], serial
    assert checks.rolling_problems(None, None) == []
    assert checks.rolling_problems(None, "0") == []
    assert checks.rolling_problems(None, 100) == []


def test_rolling_batches_name_the_bad_value_and_what_is_allowed():
    assert checks.rolling_problems("abc", None) == [
        "rolling_serial 'abc' is neither a count nor a percentage: give a count of servers "
        "(e.g. 2) or a percentage (e.g. 25%), or a list of them"
    ]
    assert "is a count below 1" in checks.rolling_problems("0", None)[0]
    assert "outside 1%-100%" in checks.rolling_problems("150%", None)[0]
    assert "'x'" in checks.rolling_problems([2, "x"], None)[0]
    assert checks.rolling_problems(None, "half") == [
        "rolling_max_fail_percentage 'half' is not a whole number from 0 to 100"
    ]
    assert checks.rolling_problems(None, 101) != []
    assert checks.rolling_problems(None, True) != []


def test_a_container_sshd_on_the_host_network_may_not_take_the_hosts_sshd_port():
    assert checks.container_port_problems(["a", "b"], [2222, 2222], [22, 2200], ["host"] * 2) == []
    assert checks.container_port_problems(["a"], [22], [22], ["host"]) == [
        "a: ngc_container_ssh_port 22 is the port of the server's own sshd "
        "(ngc_container_network_mode host shares it); use another, e.g. 2222"
    ]
    assert checks.container_port_problems(["a"], ["2200"], ["2200"], ["host"]) != []
    assert checks.container_port_problems(["a"], [22], [22], ["bridge"]) == []


def test_an_address_set_for_two_servers_on_any_interface_is_named():
    owners = [
        ("gpu-1", "cluster_data_address", "172.16.1.1"),
        ("gpu-1", "nics_interfaces[0] enp1", "172.16.1.1/24"),  # its own data address: fine
        ("gpu-2", "nics_interfaces[1] enp2", "172.16.1.1/24"),
        ("head-1", "cluster_data_address", "172.16.1.9"),
    ]
    assert checks.shared_address_problems(owners) == [
        "address 172.16.1.1 is set more than once: gpu-1 (cluster_data_address), "
        "gpu-1 (nics_interfaces[0] enp1), gpu-2 (nics_interfaces[1] enp2)"
    ]


def test_one_server_with_one_address_on_two_interfaces_is_named():
    owners = [
        ("gpu-1", "nics_interfaces[0] a", "10.0.0.1/24"),
        ("gpu-1", "nics_interfaces[1] b", "10.0.0.1/16"),
    ]
    assert checks.shared_address_problems(owners) == [
        "address 10.0.0.1 is set more than once: gpu-1 (nics_interfaces[0] a),"
        " gpu-1 (nics_interfaces[1] b)"
    ]


def test_the_head_node_on_a_gpu_servers_data_address_is_named_once():
    groups = {"compute": ["c1"], "isilon": ["i1"], "head": ["h1"]}
    hostvars = {
        "c1": {
            "cluster_data_address": "10.0.0.1",
            "nics_interfaces": [{"name": "e", "address": "10.0.0.1/24"}],
        },
        "i1": {"cluster_data_address": "10.0.0.2"},
        "h1": {"cluster_data_address": "10.0.0.1"},
    }
    assert _cluster(groups, hostvars, check_secrets=False) == [
        "cluster_data_address 10.0.0.1 is used by more than one host: c1, h1"
    ]
    hostvars["h1"] = {"nics_interfaces": [{"name": "ib0", "address": "10.0.0.1/24"}]}
    assert _cluster(groups, hostvars, check_secrets=False) == [
        "address 10.0.0.1 is set more than once: c1 (cluster_data_address), "
        "c1 (nics_interfaces[0] e), h1 (nics_interfaces[0] ib0)"
    ]


def test_two_hosts_reached_at_one_address_and_port_are_named():
    groups = {"compute": ["c1", "c2"], "isilon": ["i1"], "head": ["h1"]}
    hostvars = {
        "c1": {
            "cluster_data_address": "10.0.0.1",
            "ansible_host": "127.0.0.1",
            "ansible_port": 2201,
        },
        "c2": {
            "cluster_data_address": "10.0.0.2",
            "ansible_host": "127.0.0.1",
            "ansible_port": 2201,
        },
        "i1": {
            "cluster_data_address": "10.0.0.3",
            "ansible_host": "127.0.0.1",
            "ansible_port": 2202,
        },
        "h1": {"ansible_host": "127.0.0.1", "ansible_port": 2203},
    }
    assert _cluster(groups, hostvars, check_secrets=False) == [
        "c1, c2 are all reached at 127.0.0.1:2201 (ansible_host and ansible_port)"
    ]
