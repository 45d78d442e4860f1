"""Cluster-wide facts derived from the inventory and other hosts (filter_plugins/cluster.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_PATH = Path(__file__).resolve().parents[2] / "filter_plugins" / "cluster.py"
_SPEC = importlib.util.spec_from_file_location("cluster_filters", _PATH)
cluster = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(cluster)


def _info(*ids):
    return {"images": [{"Id": image_id} for image_id in ids]}


def test_hosts_with_the_build_do_not_lack_it():
    assert (
        cluster.hosts_lacking_image(["a", "b"], [_info("sha:1"), _info("sha:0", "sha:1")], "sha:1")
        == []
    )


def test_hosts_with_another_image_or_none_lack_the_build():
    lacking = cluster.hosts_lacking_image(
        ["a", "b", "c", "d"], [_info("sha:0"), _info(), None, {"failed": True}], "sha:1"
    )
    assert lacking == ["a", "b", "c", "d"]


def test_nothing_built_means_no_host_is_said_to_lack_it():
    assert cluster.hosts_lacking_image(["a"], [_info()], "") == []


def test_frontend_addresses_prefer_the_listed_ones():
    hostvars = {
        "i1": {
            "onefs_frontend_addresses": ["10.0.0.1", "10.0.1.1"],
            "cluster_data_address": "10.0.0.1",
        },
        "i2": {"cluster_data_address": "10.0.0.2"},
        "i3": {},
    }
    assert cluster.isilon_frontend_addresses(["i1", "i2", "i3"], hostvars) == [
        "10.0.0.1",
        "10.0.1.1",
        "10.0.0.2",
    ]
