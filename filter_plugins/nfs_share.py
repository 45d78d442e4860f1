"""The head node's NFS share: RAID layout, XFS stripe geometry, exports and client mounts.

Pure functions, so the plan (which arrays md builds, what the PERC is asked for, the XFS
`su`/`sw` that follow from them, what is exported to whom and how the GPU servers mount
it) is unit-tested without disks, and checked in preflight before any host is touched.

RAID 50 as seed 004 builds it (§2.1: 12 NL-SAS drives, RAID 50, XFS): a stripe (RAID 0)
over RAID 5 spans. mdadm has no `raid50` level (mdadm(8) `--level`), so the md plan is one
RAID 5 (or 6) array per span and a RAID 0 array over them; the PERC builds the level
itself through the iDRAC's Redfish API (dellemc.openmanage.redfish_storage_volume).
"""

from __future__ import annotations

import re
from typing import Any

# Parity disks per span for each level the plan supports.
_PARITY = {5: 1, 6: 2, 50: 1, 60: 2}
_NESTED = {50: 5, 60: 6}
_METHODS = ("md", "perc", "none")
# An XFS label has at most 12 characters (xfs_admin(8) -L).
_LABEL_MAX = 12
# `xfs_db -r -c "sb 0" -c "print blocksize unit width"` prints `name = value` lines.
_XFS_DB_LINE = re.compile(r"^\s*(blocksize|unit|width)\s*=\s*([0-9]+)\s*$", re.M)
_EXPORT_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")


def _power_of_two(value: int) -> bool:
    return value > 0 and value & (value - 1) == 0


def _twice(values: list[Any]) -> list[str]:
    """The values a list holds more than once, sorted."""
    return sorted({str(v) for v in values if values.count(v) > 1})


def _int(value: Any, default: int = 0) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def nfs_share_raid_plan(raid: dict[str, Any]) -> dict[str, Any]:
    """The arrays to build and the XFS geometry they give, with every problem found.

    raid: method (md | perc | none), level (5, 6, 50, 60), spans, chunk_kib (md's chunk,
    the PERC's stripe element), devices (md: the member disks), drives (perc: the disks'
    FQDDs), disks (none: how many disks the existing volume has, 0 if unknown), name.
    The stripe unit is one disk's chunk; the stripe width counts the data disks of every
    span (mkfs.xfs(8): "sw ... usually ... the number of data disks"). md's RAID 0 chunk is
    one span's full stripe, so each RAID 0 chunk fills a whole RAID 5 stripe and a
    full-width XFS write touches every span without a read-modify-write.
    """
    method = str(raid.get("method", "md"))
    level = _int(raid.get("level", 50))
    spans = _int(raid.get("spans", 2 if level in _NESTED else 1))
    chunk_kib = _int(raid.get("chunk_kib", 512))
    name = str(raid.get("name", "nfs_share"))
    devices = [str(d) for d in raid.get("devices") or []]
    drives = [str(d) for d in raid.get("drives") or []]
    problems: list[str] = []

    if method not in _METHODS:
        problems.append(
            f"nfs_share_raid.method must be one of {', '.join(_METHODS)}, not {method!r}"
        )
    if level not in _PARITY:
        problems.append(f"nfs_share_raid.level must be 5, 6, 50 or 60, not {raid.get('level')!r}")
    if level in _NESTED and spans < 2:
        problems.append(f"RAID {level} needs at least 2 spans (nfs_share_raid.spans is {spans})")
    if level in (5, 6) and spans != 1:
        problems.append(f"RAID {level} has one span, not {spans}: use level {level * 10} to span")
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,32}", name):
        problems.append(
            f"nfs_share_raid.name must be letters, digits, '_' or '-' (at most 32), not {name!r}"
        )

    if method == "md":
        disks = len(devices)
        duplicates = _twice(devices)
        if duplicates:
            problems.append("nfs_share_raid.devices lists a disk twice: " + ", ".join(duplicates))
        relative = [d for d in devices if not d.startswith("/dev/")]
        if relative:
            problems.append(
                "nfs_share_raid.devices must be paths under /dev: " + ", ".join(relative)
            )
        if not _power_of_two(chunk_kib) or chunk_kib < 4:
            problems.append(
                f"md's chunk must be a power of two of at least 4 KiB, not {chunk_kib} KiB"
            )
    elif method == "perc":
        disks = len(drives)
        duplicates = _twice(drives)
        if duplicates:
            problems.append("nfs_share_raid.drives lists a drive twice: " + ", ".join(duplicates))
        if not raid.get("controller_id"):
            problems.append(
                "nfs_share_raid.controller_id (the PERC's FQDD, e.g. RAID.Slot.1-1) is required"
            )
        # redfish_storage_volume: "Stripe size value must be in multiples of 64 * 1024".
        if chunk_kib <= 0 or chunk_kib % 64:
            problems.append(
                f"the PERC's stripe element must be a multiple of 64 KiB, not {chunk_kib} KiB"
            )
    else:
        disks = _int(raid.get("disks", 0))

    parity = _PARITY.get(level, 1)
    per_span = disks // spans if spans > 0 else 0
    if method != "none" or disks:
        if spans > 0 and disks % spans:
            problems.append(f"{disks} disks do not split into {spans} equal spans")
        elif per_span < parity + 2:
            problems.append(
                f"RAID {level} needs at least {parity + 2} disks per span; "
                f"{disks} disks in {spans} span(s) give {per_span}"
            )
    data_disks = max(per_span - parity, 0) * max(spans, 0)

    arrays: list[dict[str, Any]] = []
    if method == "md" and not problems:
        span_level = _NESTED.get(level, level)
        span_names = [f"{name}_{span_level}_{i + 1}" if spans > 1 else name for i in range(spans)]
        for i, span_name in enumerate(span_names):
            arrays.append(
                {
                    "name": span_name,
                    "level": span_level,
                    "chunk_kib": chunk_kib,
                    "devices": devices[i * per_span : (i + 1) * per_span],
                }
            )
        if spans > 1:
            arrays.append(
                {
                    "name": name,
                    "level": 0,
                    "chunk_kib": chunk_kib * (per_span - parity),
                    "devices": [f"/dev/md/{n}" for n in span_names],
                }
            )

    aligned = bool(data_disks) and chunk_kib > 0
    return {
        "method": method,
        "level": level,
        "spans": spans,
        "disks": disks,
        "members": devices if method == "md" else drives,
        "data_disks": data_disks,
        "chunk_kib": chunk_kib,
        "arrays": arrays,
        "device": f"/dev/md/{name}" if method == "md" else "",
        "su_kib": chunk_kib if aligned else 0,
        "sw": data_disks if aligned else 0,
        "problems": problems,
    }


def nfs_share_mkfs_options(plan: dict[str, Any], label: str) -> str:
    """mkfs.xfs options: the stripe geometry of the plan (when known) and the label."""
    options = []
    if plan.get("su_kib") and plan.get("sw"):
        options.append(f"-d su={plan['su_kib']}k,sw={plan['sw']}")
    options.append(f"-L {label}")
    return " ".join(options)


def nfs_share_xfs_geometry(xfs_db_output: str) -> dict[str, int]:
    """Stripe unit and width in bytes from xfs_db's `print blocksize unit width`.

    The superblock keeps sunit/swidth in filesystem blocks (xfs_db's `unit`/`width`).
    """
    values = {key: int(value) for key, value in _XFS_DB_LINE.findall(xfs_db_output or "")}
    if "blocksize" not in values:
        raise ValueError(f"xfs_db printed no block size: {xfs_db_output!r}")
    block = values["blocksize"]
    return {
        "blocksize": block,
        "su_bytes": values.get("unit", 0) * block,
        "width_bytes": values.get("width", 0) * block,
    }


def nfs_share_geometry_problem(geometry: dict[str, int], plan: dict[str, Any], where: str) -> str:
    """Why the filesystem's stripe geometry is not the plan's ('' when it is)."""
    want_su = _int(plan.get("su_kib")) * 1024
    want_width = want_su * _int(plan.get("sw"))
    if not want_su:
        return ""
    if geometry["su_bytes"] == want_su and geometry["width_bytes"] == want_width:
        return ""
    return (
        f"{where}: XFS stripe unit {geometry['su_bytes'] // 1024} KiB x "
        f"{geometry['width_bytes'] // max(geometry['su_bytes'], 1)} does not match the RAID plan's "
        f"{want_su // 1024} KiB x {plan.get('sw')}"
    )


def nfs_share_exports(
    exports: list[dict[str, Any]], root: str, clients: list[str]
) -> list[dict[str, Any]]:
    """The exports with every default filled in: path under root, clients, options."""
    planned = []
    for index, export in enumerate(exports or []):
        name = str(export.get("name", ""))
        planned.append(
            {
                "name": name,
                "id": _int(export.get("id"), index + 1),
                "path": str(export.get("path") or f"{root.rstrip('/')}/{name}"),
                "mount_point": str(export.get("mount_point", "")),
                "clients": [str(c) for c in export.get("clients") or clients],
                "read_only": bool(export.get("read_only", False)),
                "root_squash": bool(export.get("root_squash", False)),
                "mode": str(export.get("mode", "0755")),
            }
        )
    return planned


def nfs_share_plan(settings: dict[str, Any]) -> dict[str, Any]:
    """The share's plan, from its settings alone (the server's view of the nfs_share_*
    inputs, as nfs_share_problems checks them: raid, exports with their defaults filled
    in by nfs_share_exports, root, storage, server, device, label, address): what the
    server builds and exports and what the clients mount it from. Published as the fact
    nfs_share_plan on the share's server (roles/nfs_share/README.md)."""
    raid = nfs_share_raid_plan(settings.get("raid") or {})
    device = str(settings.get("device") or raid.get("device") or "")
    storage = str(settings.get("storage", ""))
    label = str(settings.get("label", ""))
    return {
        "storage": storage,
        "server": str(settings.get("server", "")),
        "raid": raid,
        "device": device,
        "mkfs_options": nfs_share_mkfs_options(raid, label),
        "label": label,
        "root": str(settings.get("root", "")),
        "exports": list(settings.get("exports") or []),
        "address": str(settings.get("address", "")),
    }


def nfs_share_export_problems(planned: list[dict[str, Any]]) -> list[str]:
    """Problems with the exports a server would refuse or that would hide each other."""
    problems = []
    if not planned:
        problems.append("nfs_share_exports is empty: the share would export nothing")
    for key, what in (
        ("name", "name"),
        ("path", "path"),
        ("mount_point", "mount point"),
        ("id", "id"),
    ):
        twice = _twice([e[key] for e in planned])
        if twice:
            problems.append(f"nfs_share_exports has the same {what} twice: {', '.join(twice)}")
    for export in planned:
        label = export["name"] or "(unnamed)"
        if not _EXPORT_NAME.match(export["name"]):
            problems.append(
                f"nfs_share_exports: {label!r} is not a lower-case name ([a-z][a-z0-9_-]*)"
            )
        for key in ("path", "mount_point"):
            if (
                not export[key].startswith("/")
                or "//" in export[key]
                or "/../" in export[key] + "/"
            ):
                problems.append(
                    f"nfs_share_exports {label}: {key} must be an absolute path, "
                    f"not {export[key]!r}"
                )
        if not export["clients"]:
            problems.append(f"nfs_share_exports {label}: no clients (nfs_share_clients is empty)")
        if not 1 <= export["id"] <= 65535:
            problems.append(f"nfs_share_exports {label}: id must be 1-65535, not {export['id']}")
    paths = sorted(e["path"] for e in planned)
    for outer in paths:
        for inner in paths:
            if inner != outer and inner.startswith(outer.rstrip("/") + "/"):
                problems.append(
                    f"nfs_share_exports: {inner} lies inside {outer} (export them apart)"
                )
    return problems


def nfs_share_kernel_exports(planned: list[dict[str, Any]], options: list[str]) -> list[str]:
    """/etc/exports lines (exports(5)): the path, then each client with its options."""
    lines = []
    for export in planned:
        opts = ["ro" if export["read_only"] else "rw", *options]
        opts.append("root_squash" if export["root_squash"] else "no_root_squash")
        clients = " ".join(f"{client}({','.join(opts)})" for client in export["clients"])
        lines.append(f"{export['path']} {clients}")
    return lines


def nfs_share_address(hvars: dict[str, Any]) -> str:
    """The address clients mount the share from: the server's IPoIB address when it has
    one (an `ib*` interface in nics_interfaces, as seed 004 serves NFS over IPoIB), else
    its data address, else the address Ansible reaches it on."""
    for interface in hvars.get("nics_interfaces") or []:
        if str(interface.get("name", "")).startswith("ib") and interface.get("address"):
            return str(interface["address"]).split("/")[0]
    for key in ("cluster_data_address", "ansible_host"):
        if hvars.get(key):
            return str(hvars[key])
    return str(hvars.get("inventory_hostname", ""))


def nfs_share_client_mounts(
    planned: list[dict[str, Any]], address: str, options: list[str]
) -> list[dict[str, str]]:
    """The clients' fstab entries: every export at its mount point, from the server's address."""
    return [
        {
            "name": export["name"],
            "src": f"{address}:{export['path']}",
            "path": export["mount_point"],
            "opts": ",".join((["ro"] if export["read_only"] else []) + list(options)),
            "address": address,
            "export": export["path"],
        }
        for export in planned
    ]


def nfs_share_md_names(scan: str) -> list[str]:
    """The array names `mdadm --detail --scan` lists: `ARRAY /dev/md/<name> ...` and the
    superblock's `name=<host>:<name>`."""
    names = set()
    for line in (scan or "").splitlines():
        words = line.split()
        if not words or words[0] != "ARRAY":
            continue
        if len(words) > 1 and words[1].startswith("/dev/md/"):
            names.add(words[1][len("/dev/md/") :])
        for word in words[2:]:
            if word.startswith("name="):
                names.add(word[len("name=") :].split(":")[-1])
    return sorted(names)


def nfs_share_mount_targets(mounts: str) -> list[str]:
    """The mount points in /proc/self/mounts (fstab(5) octal escapes undone)."""
    targets = []
    for line in (mounts or "").splitlines():
        fields = line.split()
        if len(fields) > 1:
            targets.append(re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[1]))
    return targets


def nfs_share_problems(settings: dict[str, Any]) -> list[str]:
    """Every problem with the share's settings, for preflight: the RAID plan, the exports,
    and the choices that go with them (storage mode, server kind, device, address)."""
    raid = settings.get("raid") or {}
    plan = nfs_share_raid_plan(raid)
    problems = list(plan["problems"])
    problems += nfs_share_export_problems(settings.get("exports") or [])
    storage, server = settings.get("storage"), settings.get("server")
    if storage not in ("build", "plan"):
        problems.append(f"nfs_share_storage must be build or plan, not {storage!r}")
    if server not in ("kernel", "ganesha"):
        problems.append(f"nfs_share_server must be kernel or ganesha, not {server!r}")
    if storage == "build" and plan["method"] in ("perc", "none") and not settings.get("device"):
        problems.append(
            f"nfs_share_device is required with nfs_share_raid.method {plan['method']}: "
            "the volume as the OS sees it (a /dev/disk/by-id/ path)"
        )
    if storage == "build" and plan["method"] == "md" and not raid.get("devices"):
        problems.append("nfs_share_raid.devices is empty: md has no disks to build the volume from")
    if plan["method"] == "perc" and storage == "build":
        idrac = raid.get("idrac") or {}
        if not idrac.get("address"):
            problems.append(
                "nfs_share_raid.idrac.address (the iDRAC the PERC is reached through) is required"
            )
        if not idrac.get("username") or not idrac.get("password"):
            problems.append("nfs_share_raid.idrac needs a username and a password (from the vault)")
    if not settings.get("address"):
        problems.append("the share's server has no address for the clients (nfs_share_address)")
    root = str(settings.get("root", ""))
    if not root.startswith("/") or root == "/":
        problems.append(f"nfs_share_root must be an absolute directory other than /, not {root!r}")
    label = str(settings.get("label", ""))
    if not 0 < len(label) <= _LABEL_MAX:
        problems.append(f"nfs_share_label must have 1-{_LABEL_MAX} characters (XFS), not {label!r}")
    return problems


class FilterModule:
    """The nfs_share role's planning filters."""

    def filters(self) -> dict[str, Any]:
        return {
            "nfs_share_raid_plan": nfs_share_raid_plan,
            "nfs_share_mkfs_options": nfs_share_mkfs_options,
            "nfs_share_xfs_geometry": nfs_share_xfs_geometry,
            "nfs_share_geometry_problem": nfs_share_geometry_problem,
            "nfs_share_exports": nfs_share_exports,
            "nfs_share_plan": nfs_share_plan,
            "nfs_share_export_problems": nfs_share_export_problems,
            "nfs_share_kernel_exports": nfs_share_kernel_exports,
            "nfs_share_address": nfs_share_address,
            "nfs_share_client_mounts": nfs_share_client_mounts,
            "nfs_share_problems": nfs_share_problems,
            "nfs_share_md_names": nfs_share_md_names,
            "nfs_share_mount_targets": nfs_share_mount_targets,
        }
