"""The lab's NFS server (nfs-ganesha on each Isilon container) as the statistics see it.

Each lab Isilon node serves /ifs with its own nfs-ganesha, so the NFS numbers of the
node's statistics are that server's own counters, read over D-Bus with systemd's busctl
(`--json=short`) from ganesha's `org.ganesha.nfsd.exportstats` interface on
/org/ganesha/nfsd/ExportMgr [nfs-ganesha 4.3 as Debian 12 ships it; the signatures below
as `busctl introspect` lists them there]:

- `GetFULLV3Stats` -> `bs(tt)a(stttddd)s`: per NFSv3 procedure its name (upper case), total,
  errors, duplicates and latencies; the lab's ganesha.conf sets `Enable_FULLV3_Stats`
  (NFS_CORE_PARAM), without which the call answers false, "v3_full stats disabled";
- `GetNFSIO` -> `bs(tt)a(qs(tttttt)(tttttt))`: per export and protocol, the read and the
  write counters (requested bytes, transferred bytes, operations, errors, latency,
  queue wait).
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

BUSCTL = [
    "busctl", "--json=short", "--timeout=2", "call", "org.ganesha.nfsd",
    "/org/ganesha/nfsd/ExportMgr", "org.ganesha.nfsd.exportstats",
]  # fmt: skip


def _call(method: str) -> list[Any] | None:
    """The reply's values, or None where busctl or ganesha fails or says false."""
    try:
        done = subprocess.run(
            [*BUSCTL, method], capture_output=True, text=True, timeout=5, check=False
        )
        data = json.loads(done.stdout)["data"] if done.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired, ValueError, KeyError, TypeError):
        return None
    return data if isinstance(data, list) and data and data[0] is True else None


def parse_full_v3(data: list[Any]) -> dict[str, int]:
    """Operation name (lower case) -> count, from GetFULLV3Stats' reply values; ganesha
    lists `None` while no operation has been counted."""
    return {
        str(entry[0]).lower(): int(entry[1])
        for entry in data[3]
        if isinstance(entry, list) and len(entry) >= 2 and entry[0] != "None"
    }


def parse_nfs_io(data: list[Any]) -> tuple[int, int]:
    """(bytes read, bytes written) over every export's NFSv3 counters, from GetNFSIO's
    reply values (the transferred bytes of its read and write counters)."""
    read = written = 0
    for _export, protocol, reads, writes in data[3]:
        if protocol == "NFSv3":
            read += int(reads[1])
            written += int(writes[1])
    return read, written


def read_counters() -> dict[str, Any] | None:
    """This node's cumulative NFSv3 counters, or None when the NFS server cannot be asked.

    {"ops": {"read": int, "write": int, "getattr": int, ...}, "bytes_read": int,
    "bytes_written": int}: "ops" maps NFSv3 operation names (RFC 1813 procedure names,
    lower case) to the count since the server started; bytes_read is what clients read
    from the server, bytes_written what they wrote to it.
    """
    full, io = _call("GetFULLV3Stats"), _call("GetNFSIO")
    if full is None or io is None:
        return None
    try:
        ops = parse_full_v3(full)
        bytes_read, bytes_written = parse_nfs_io(io)
    except (IndexError, TypeError, ValueError):
        return None
    return {"ops": ops, "bytes_read": bytes_read, "bytes_written": bytes_written}
