"""Apptainer: which release files a host needs, whether it can fetch them, its configuration.

Pure functions, so the decisions (which packages are missing, whether an unreachable
source skips the install or a wrong version fails it, how apptainer.conf changes, where
an image's SIF file goes) are unit-tested without a host.
"""

from __future__ import annotations

import re
from typing import Any

# The architectures upstream builds release packages for: Debian .debs are amd64 only
# and the GitHub release RPMs x86_64 only (apptainer-admindocs installation.rst,
# "Install from GitHub release RPMs", "Install Debian packages").
_RELEASE_ARCHES = {"x86_64", "amd64"}
# `apptainer --version` prints e.g. "apptainer version 1.4.5" (the lmod role reads it too).
_VERSION = re.compile(r"[0-9]+(?:\.[0-9]+)+(?:[-~][0-9A-Za-z.]+)?")
# An apptainer.conf line that sets a key, as Apptainer's own parser reads it
# (pkg/util/apptainerconf/parser.go, parserReg): letters, spaces, `_` and `-`, then `=`.
# Every such line of a key counts: a list key collects them all (each also split on
# commas), a single-valued key takes the first, so a second line would be ignored.
_CONF_LINE = re.compile(r"^\s*([a-zA-Z _-]+?)[ \t]*=")
# An image reference with a tag or digest: [registry[:port]/]path[:tag|@sha256:digest].
_IMAGE = re.compile(
    r"^[a-z0-9.-]+(?::[0-9]+)?(?:/[a-z0-9._-]+)*"
    r"(?::[A-Za-z0-9_][A-Za-z0-9._-]*|@sha256:[0-9a-f]{64})$"
)
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def package_upstream_version(version: str) -> str:
    """The upstream part of a package version (no epoch, no Debian/RPM revision).

    The package listing gives the packaging's version (`1.4.5-1.el9` from rpm); the pin
    (apptainer_version) is upstream's.
    """
    without_epoch = re.sub(r"^[0-9]+:", "", str(version).strip())
    return re.sub(r"-[^-]*$", "", without_epoch)


def apptainer_package_files(version: str, family: str, suid: bool) -> list[str]:
    """The release file names, in install order: `apptainer` first, then `apptainer-suid`.

    Names as upstream publishes them on each release (installation.rst): Debian
    `apptainer_<ver>_amd64.deb`, `apptainer-suid_<ver>_amd64.deb`; Red Hat
    `apptainer-<ver>-1.x86_64.rpm`, `apptainer-suid-<ver>-1.x86_64.rpm`. The suid package
    goes on top of the non-suid one, never alone.
    """
    packages = ["apptainer", "apptainer-suid"] if suid else ["apptainer"]
    if family == "Debian":
        return [f"{package}_{version}_amd64.deb" for package in packages]
    if family == "RedHat":
        return [f"{package}-{version}-1.x86_64.rpm" for package in packages]
    raise ValueError(f"no Apptainer release packages for the {family} family")


def apptainer_package_url(file: str, template: str, version: str) -> str:
    """One file's URL: `{version}` and `{file}` replaced; a template without `{file}` is a
    directory the file name is appended to (a mirror's plain directory URL)."""
    url = template.replace("{version}", version)
    if "{file}" in url:
        return url.replace("{file}", file)
    return url.rstrip("/") + "/" + file


def apptainer_missing(
    packages: list[str], installed: dict[str, list[dict[str, str]]], version: str | None
) -> list[str]:
    """The packages not installed at the pinned upstream version (any version: `None`).

    `installed` is cluster_host_packages (name -> list of {version}); a package at
    another version is missing too, so a changed pin upgrades (or downgrades) it.
    """
    missing = []
    for package in packages:
        versions = [package_upstream_version(v["version"]) for v in installed.get(package, [])]
        if not versions or (version is not None and version not in versions):
            missing.append(package)
    return missing


def _unreachable_line(host: str, url: str, why: str) -> str:
    return (
        f"Apptainer not installed on {host}: {url} unreachable ({why}); set "
        "apptainer_source=mirror with apptainer_mirror_url, or apptainer_source=none"
    )


def apptainer_install_decision(
    host: str,
    source: str,
    urls: list[str],
    missing: list[str],
    probe: dict[str, Any] | None,
    arch: str,
) -> dict[str, Any]:
    """Whether to install now, skip (with the one line that says why) or fail.

    `probe` is the registered result of one HEAD request to the first missing file (uri
    module, failed_when false). An answer below 400 (redirects followed) means the file
    is there. No answer (status -1: no route, no name, timeout) or a server error means
    the source cannot be reached from this host: skip, the way the lab must. A 4xx answer
    means the source was reached and the file is not there, a wrong apptainer_version or
    mirror path: fail, since skipping would hide a mistake the site can fix.
    """
    decision = {"install": False, "skip": "", "fail": ""}
    if source == "none" or not missing:
        return decision
    if source == "repository":
        return {**decision, "install": True}
    if arch not in _RELEASE_ARCHES:
        return {
            **decision,
            "skip": f"Apptainer not installed on {host}: release packages are built for "
            f"x86_64 only, this host is {arch}; set apptainer_source=repository or none",
        }
    url = urls[0] if urls else ""
    status = int((probe or {}).get("status", -1))
    if 200 <= status < 400:
        return {**decision, "install": True}
    if status == -1 or status >= 500:
        message = str((probe or {}).get("msg") or "no answer")
        why = message.split("Request failed: ", 1)[-1] if status == -1 else f"HTTP {status}"
        return {**decision, "skip": _unreachable_line(host, url, why)}
    return {
        **decision,
        "fail": f"Apptainer cannot be installed on {host}: {url} answered HTTP {status}; "
        "check apptainer_version and apptainer_mirror_url",
    }


def apptainer_version_found(result: dict[str, Any]) -> str:
    """The version `apptainer --version` printed, or "" where the command is absent."""
    match = _VERSION.search((result or {}).get("stdout") or "")
    if (result or {}).get("rc", 1) != 0 or not match:
        return ""
    return match.group(0)


def _conf_value(value: Any) -> str:
    """apptainer.conf's spelling: yes/no for booleans, the text otherwise."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _conf_lines(key: str, value: Any) -> list[str]:
    """A list value is one `key = entry` line per entry (how the shipped file spells
    `bind path`: one line for /etc/localtime, one for /etc/hosts)."""
    values = value if isinstance(value, list) else [value]
    return [f"{key} = {_conf_value(entry)}" for entry in values]


def apptainer_conf(current: str, settings: dict[str, Any], marker: str) -> str:
    """apptainer.conf with the keys in `settings` set and every other line kept.

    Each managed key's active lines are replaced, in place of the first of them, by the
    wanted lines; a key the file does not set yet is appended after `marker` at the end.
    Comments, the keys not managed and their order stay as the package shipped them, so
    a package upgrade's diff stays readable. Applying it twice gives the same text.
    """
    wanted = {str(key).strip(): value for key, value in (settings or {}).items()}
    out: list[str] = []
    placed: set[str] = set()
    for line in (current or "").splitlines():
        match = _CONF_LINE.match(line)
        key = match.group(1).strip() if match else None
        if key in wanted:
            if key not in placed:
                out.extend(_conf_lines(key, wanted[key]))
                placed.add(key)
            continue
        out.append(line)
    rest = [key for key in wanted if key not in placed]
    if rest:
        if marker not in out:
            if out and out[-1].strip():
                out.append("")
            out.append(marker)
        for key in rest:
            out.extend(_conf_lines(key, wanted[key]))
    return "\n".join(out) + "\n"


def apptainer_images(images: list[dict[str, Any]], image_dir: str) -> list[dict[str, str]]:
    """The images to build, each with its SIF path; refuses what would build the wrong file.

    The default path carries the tag (`<dir>/<name>_<tag>.sif`), so a changed tag builds
    a new file next to the old one instead of being taken for already built.
    """
    planned = []
    for entry in images or []:
        name, image = str(entry.get("name", "")), str(entry.get("image", ""))
        if not _NAME.match(name):
            raise ValueError(f"apptainer_images: name {name!r} must be a plain file name")
        if not _IMAGE.match(image):
            raise ValueError(
                f"apptainer_images: {name}: image {image!r} must be registry/path:tag "
                "or registry/path@sha256:<digest> (e.g. nvcr.io/nvidia/tensorflow:19.03-py3)"
            )
        tag = image.rsplit("@sha256:", 1)[1][:12] if "@" in image else image.rsplit(":", 1)[1]
        dest = str(entry.get("dest") or f"{image_dir.rstrip('/')}/{name}_{tag}.sif")
        if not dest.startswith("/") or not dest.endswith(".sif"):
            raise ValueError(
                f"apptainer_images: {name}: dest {dest!r} must be an absolute .sif path"
            )
        planned.append({"name": name, "image": image, "dest": dest})
    dests = [item["dest"] for item in planned]
    if len(set(dests)) != len(dests):
        raise ValueError(f"apptainer_images: two images share one dest: {sorted(dests)}")
    return planned


class FilterModule:
    """The apptainer role's planning filters."""

    def filters(self) -> dict[str, Any]:
        return {
            "apptainer_package_files": apptainer_package_files,
            "apptainer_package_url": apptainer_package_url,
            "apptainer_missing": apptainer_missing,
            "apptainer_install_decision": apptainer_install_decision,
            "apptainer_version_found": apptainer_version_found,
            "apptainer_conf": apptainer_conf,
            "apptainer_images": apptainer_images,
        }
