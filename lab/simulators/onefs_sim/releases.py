"""OneFS releases the lab cluster can be: their API version and what that version serves.

The cluster config names a release ("onefs_release": "9.10.0.0"); everything that
depends on it is looked up here, so a release is one table entry. Facts: the API version
of each release (8.0 to 9.3: the PowerScale OneFS API Reference, "API versions in OneFS";
9.5 to 9.12: the newest /platform/N that isilon-sdk 0.7.0 calls in each release; 9.4's
15 lies between) and OneFS's versioned_mapper (a public copy of OneFS's isi_rest_server
source, uri_mapper.cpp: a version is served only if some handler is registered at it,
and never above the cluster's latest).
"""

from __future__ import annotations

# OneFS release (major.minor) -> its /platform/latest.
API_OF_RELEASE = {
    "8.0": 3, "8.0.1": 4, "8.1": 5, "8.1.1": 6, "8.2": 7, "8.2.1": 8, "8.2.2": 9,
    "9.0": 10, "9.1": 11, "9.2": 12, "9.3": 14, "9.4": 15, "9.5": 16, "9.6": 17,
    "9.7": 18, "9.8": 19, "9.9": 20, "9.10": 21, "9.11": 22, "9.12": 23,
}  # fmt: skip

# The releases whose objects the simulator shapes field by field (each checked with the
# generated SDK of that release: isi_sdk_9_1_0 and isilon_sdk.v9_10_0).
SUPPORTED = ("9.1", "9.10")

# Versions 1 and 2 are the OneFS 7.x APIs; every release's latest is a registered
# version. 13 belongs to no release, so /platform/13 is 404 everywhere (versioned_mapper:
# a version no handler is registered at is not served).
ALL_VERSIONS = frozenset({1, 2, *API_OF_RELEASE.values()})


def release_key(release: str) -> str:
    """'9.10.0.0' -> '9.10' (the table's key); raises ValueError for unknown releases."""
    parts = release.split(".")
    for length in (3, 2):
        key = ".".join(parts[:length])
        if key in API_OF_RELEASE and (length == 2 or parts[2] != "0"):
            return key
    raise ValueError(f"unknown OneFS release {release!r}; known: {', '.join(API_OF_RELEASE)}")


def api_latest(release: str) -> int:
    """The /platform/latest of a release."""
    return API_OF_RELEASE[release_key(release)]


def served_versions(latest: int) -> frozenset[int]:
    """The /platform/N a cluster at `latest` answers (others are 404)."""
    return frozenset(v for v in ALL_VERSIONS if v <= latest)


def check_supported(release: str) -> str:
    """The release key, if the simulator models that release's objects."""
    key = release_key(release)
    if key not in SUPPORTED:
        raise ValueError(
            f"OneFS release {release} is not modelled; the lab supports {', '.join(SUPPORTED)}"
        )
    return key
