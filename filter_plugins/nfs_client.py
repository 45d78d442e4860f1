"""The Linux NFS client's mount options, checked before anything mounts: shared by the
roles whose servers mount NFS (isilon_mounts: the Isilon data and default mounts;
nfs_share: the head node's share on the GPU servers)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

# nfs(5): options whose value the Linux NFS client reads as a whole number, with the
# bounds it enforces or rounds to (rsize/wsize: 1024..1048576; nconnect: 1..16).
NFS_NUMBERS: dict[str, tuple[int, int | None]] = {
    "rsize": (1024, 1048576),
    "wsize": (1024, 1048576),
    "timeo": (1, None),
    "retrans": (0, None),
    "acregmin": (0, None),
    "acregmax": (0, None),
    "acdirmin": (0, None),
    "acdirmax": (0, None),
    "actimeo": (0, None),
    "retry": (0, None),
    "port": (0, 65535),
    "mountport": (0, 65535),
    "namlen": (1, None),
    "nconnect": (1, 16),
    "minorversion": (0, 2),
}
NFS_CHOICES: dict[str, tuple[str, ...]] = {
    "proto": ("tcp", "udp", "rdma", "tcp6", "udp6", "rdma6"),
    "mountproto": ("tcp", "udp", "tcp6", "udp6"),
    "vers": ("3", "4", "4.0", "4.1", "4.2"),
    "nfsvers": ("3", "4", "4.0", "4.1", "4.2"),
    "lookupcache": ("all", "none", "pos", "positive"),
    "local_lock": ("all", "flock", "posix", "none"),
}


def nfs_option_problems(options: Iterable[Any], name: str) -> list[str]:
    """Options of one list the Linux NFS client would refuse at mount time: a number
    option that is not a whole number in range, a choice it does not know, an empty
    value. Options it does not list are left to the kernel (nfs(5) grows)."""
    if isinstance(options, str):
        options = options.split(",")
    problems = []
    for index, option in enumerate(options or []):
        text = str(option).strip()
        key, has_value, value = text.partition("=")
        where = f"{name}[{index}]"
        if not text or " " in text or "," in text:
            problems.append(f"{where} is {text!r}: one option per item, without spaces")
        elif has_value and not value:
            problems.append(f"{where} is {text!r}: {key} needs a value")
        elif key in NFS_NUMBERS:
            low, high = NFS_NUMBERS[key]
            bounds = f"{low}..{'' if high is None else high}"
            if not has_value or not value.isdigit():
                problems.append(f"{where} is {text!r}: {key} takes a whole number ({bounds})")
            elif int(value) < low or (high is not None and int(value) > high):
                problems.append(f"{where} is {text!r}: {key} must be {bounds}")
        elif key in NFS_CHOICES and value not in NFS_CHOICES[key]:
            problems.append(f"{where} is {text!r}: {key} is one of {', '.join(NFS_CHOICES[key])}")
    return problems


class FilterModule:
    """NFS client options."""

    def filters(self) -> dict[str, Any]:
        return {"nfs_option_problems": nfs_option_problems}
