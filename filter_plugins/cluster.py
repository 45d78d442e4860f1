"""Facts about the cluster derived from the inventory, in one place for every role."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def isilon_frontend_addresses(hosts: Sequence[str], hostvars: Mapping[str, Any]) -> list[str]:
    """Every Isilon front-end address, node by node, in inventory order.

    A node lists its addresses in `onefs_frontend_addresses` when it has several (the
    DGX-1 paper's nodes have one per 40 GbE subnet); otherwise its `cluster_data_address`
    is its only one. Mount plans and checks use this list, so it is derived once, here.
    """
    addresses: list[str] = []
    for host in hosts:
        hvars = hostvars[host]
        listed = hvars.get("onefs_frontend_addresses")
        if listed:
            addresses.extend(str(address) for address in listed)
        elif hvars.get("cluster_data_address"):
            addresses.append(str(hvars["cluster_data_address"]))
    return addresses


def hosts_lacking_image(
    hosts: Sequence[str], image_infos: Sequence[Any], image_id: str
) -> list[str]:
    """The hosts whose image under the wanted name is not the build `image_id`.

    `image_infos` holds each host's community.docker.docker_image_info result, in the
    order of `hosts`; a host with no result (it failed, or did not run) lacks the image.
    An empty `image_id` (nothing built) means no host can be said to lack it.
    """
    if not image_id:
        return []
    lacking = []
    for host, info in zip(hosts, image_infos, strict=True):
        images = (info or {}).get("images") or [] if isinstance(info, Mapping) else []
        if image_id not in [image.get("Id") for image in images]:
            lacking.append(str(host))
    return lacking


def ngc_container_built_id(host_vars: Mapping[str, Any]) -> str:
    """The ID of the image the build host holds for this run: the build's, where the
    run built it (the registered `_ngc_container_build`), else the image it already had
    under that name (`_ngc_container_local`, docker_image_info); "" where neither."""
    build = host_vars.get("_ngc_container_build", {})
    built = ((build or {}).get("image") or {}).get("Id") if isinstance(build, Mapping) else None
    if built:
        return str(built)
    local = host_vars.get("_ngc_container_local", {})
    images = (local or {}).get("images") or [] if isinstance(local, Mapping) else []
    return str(images[0].get("Id") or "") if images else ""


def installed_packages(listing: str) -> dict[str, list[dict[str, str]]]:
    """Installed packages from the package database's own listing, by name.

    `listing` is what the cluster role's package query prints, one package a line:
    `<dpkg status>|<name>|<version>` from dpkg-query (only status `ii`, installed, counts;
    `rc` is a removed package whose configuration files remain), or `<name>|<version>`
    from rpm. The shape is package_facts' (name -> list of {version}), which roles test
    names against; reading the database directly takes a fraction of a second where
    package_facts loads the whole apt cache (the largest cost of a no-op run).
    """
    packages: dict[str, list[dict[str, str]]] = {}
    for line in (listing or "").splitlines():
        fields = line.split("|")
        if len(fields) == 3:
            status, name, version = fields
            if status.strip() != "ii":
                continue
        elif len(fields) == 2:
            name, version = fields
        else:
            continue
        if name:
            packages.setdefault(name, []).append({"version": version})
    return packages


class FilterModule:
    """Cluster-wide facts from the inventory."""

    def filters(self) -> dict[str, Any]:
        return {
            "isilon_frontend_addresses": isilon_frontend_addresses,
            "hosts_lacking_image": hosts_lacking_image,
            "ngc_container_built_id": ngc_container_built_id,
            "installed_packages": installed_packages,
        }
