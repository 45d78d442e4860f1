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


def test_installed_packages_from_dpkg_keep_only_installed_ones():
    listing = "ii |bash|5.2.15-2+b2\nrc |docker-ce|5:24.0\nii |nfs-common|1:2.6.2-4\n\n"
    assert cluster.installed_packages(listing) == {
        "bash": [{"version": "5.2.15-2+b2"}],
        "nfs-common": [{"version": "1:2.6.2-4"}],
    }


def test_installed_packages_from_rpm_and_several_versions():
    listing = "kernel|5.14.0-362.el9\nkernel|5.14.0-427.el9\nbash|5.1.8-6.el9\n"
    packages = cluster.installed_packages(listing)
    assert [v["version"] for v in packages["kernel"]] == ["5.14.0-362.el9", "5.14.0-427.el9"]
    assert "bash" in packages


def test_no_listing_means_no_packages():
    assert cluster.installed_packages("") == {}


def test_the_build_id_is_the_new_builds_else_the_image_the_build_host_has():
    built = {"_ngc_container_build": {"image": {"Id": "sha:new"}},
             "_ngc_container_local": _info("sha:old")}  # fmt: skip
    assert cluster.ngc_container_built_id(built) == "sha:new"
    assert cluster.ngc_container_built_id({"_ngc_container_local": _info("sha:old")}) == "sha:old"
    skipped = {"_ngc_container_build": {"skipped": True}, "_ngc_container_local": _info()}
    assert cluster.ngc_container_built_id(skipped) == ""
