"""The statistics of the simulated cluster, from what the lab really holds and does.

OneFS answers `GET /platform/1/statistics/current` and `isi statistics` from counters
each node keeps; the simulator does the same with the lab's own counters: each serving
node samples its CPU (/proc/stat) and its NFS server's counters (ganesha.read_counters)
every few seconds (`Sampler`) into `<state dir>/stats/node<LNN>.json`, and any node
answers for every node by reading all the sample files, as any OneFS node answers
cluster-wide. Capacity is the real /ifs volume's (os.statvfs); node pool usage counts the
real files under /ifs by their recorded SmartPools placement.

Sample file (written atomically, the last two samples, oldest first):

    {"lnn": 1, "interval": 5.0, "samples": [
        {"time": 1700000000.0, "cpu": {"user": J, "system": J, "idle": J},
         "nfs": {"ops": {"read": N, ...}, "bytes_read": N, "bytes_written": N} or null},
        {...}]}

cpu is cumulative jiffies from /proc/stat's first line (user+nice, system+irq+softirq,
idle+iowait); nfs is ganesha.read_counters() (null when the NFS server cannot be asked).
Rates are the difference of the two samples over their time difference. A node whose
file is missing or whose last sample is older than 3 of its intervals is down (the lab's
LNN 5-8 have no container).

Sources: the key names, types and units: Dell's key dump in github
Isilon/isilon_stat_browser (web_app/js/keys.js, OneFS 8.0 era) and the keys Dell's
github Isilon/isilon_data_insights_connector reads (example_isi_data_insights_d.cfg);
the key fields, the StatisticsCurrentStat fields and the query arguments: isilon-sdk
0.7.0 (isilon_sdk/v9_5_0/models/statistics_key.py, statistics_current_stat.py,
api/statistics_api.py). Whether every key is still offered, and with the same
metadata, on OneFS 9.x is unverified. Verified from the key dump: node.cpu.sys.avg
(int32, permil, base node.cpu.usage, policies 5 s/4200 s and 120 s/1209600 s, cache 7),
the protostats type stats_proto_opstat_list (node.protostats.http.total: aggregation
custom, policies 5 s/1200 s and 120 s/1209600 s); the other keys' metadata follow these
patterns (unverified). The dump writes aggregation types "average"/"maximum"; the SDK's
enum (last, min, max, avg, sum, custom) is used here. Also unverified: the full field
list of a protostats entry (Dell's connector indexes op_count and time_avg, dashboards
read op_rate, in_rate, out_rate), the class_name of each operation, the per-key error
codes, and the whole-request error without `degraded`.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat as statmod
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from . import ganesha, model, smartpools

DEFAULT_INTERVAL = 5.0
STALE_INTERVALS = 3

# Per-key error numbers, FreeBSD's (OneFS's) errno values: which ones OneFS reports for
# a down node or an unavailable statistic is unverified.
EAGAIN, ECONNREFUSED, EHOSTDOWN = 35, 61, 64

# The NFSv3 operations `isi statistics pstat` lists (seed 000 Appendix C): RFC 1813's
# procedures with FSSTAT as "statfs", plus OneFS's "noop".
NFS3_OPS = (
    "access", "commit", "create", "fsinfo", "getattr", "link", "lookup", "mkdir", "mknod",
    "noop", "null", "pathconf", "read", "readdir", "readdirplus", "readlink", "remove",
    "rename", "rmdir", "setattr", "statfs", "symlink", "write",
)  # fmt: skip
OP_ALIASES = {"fsstat": "statfs"}
# The operation classes of `isi statistics protocol` per NFSv3 operation (unverified).
OP_CLASSES = {
    "read": "read", "write": "write",
    "create": "create", "link": "create", "mkdir": "create", "mknod": "create",
    "symlink": "create", "remove": "delete", "rmdir": "delete",
    "access": "namespace_read", "fsinfo": "namespace_read", "getattr": "namespace_read",
    "lookup": "namespace_read", "pathconf": "namespace_read", "readdir": "namespace_read",
    "readdirplus": "namespace_read", "readlink": "namespace_read", "statfs": "namespace_read",
    "rename": "namespace_write", "setattr": "namespace_write", "commit": "file_state",
}  # fmt: skip

_FAST = [
    {"interval": 5, "persistent": False, "retention": 4200},
    {"interval": 120, "persistent": True, "retention": 1209600},
]
_PROTO = [
    {"interval": 5, "persistent": False, "retention": 1200},
    {"interval": 120, "persistent": True, "retention": 1209600},
]
_CAPACITY = [
    {"interval": 300, "persistent": False, "retention": 87000},
    {"interval": 86400, "persistent": True, "retention": 31536000},
]


def _key(
    key: str,
    scope: str,
    kind: str,
    units: str,
    aggregation: str,
    description: str,
    base_name: str | None = None,
    real_name: str | None = None,
    policies: list[dict[str, Any]] | None = None,
    policy_cache_time: int | None = 7,
) -> dict[str, Any]:
    """One key as the SDK model StatisticsKey has it [isilon-sdk]."""
    return {
        "aggregation_type": aggregation,
        "base_name": base_name,
        "default_cache_time": 0,
        "description": description,
        "key": key,
        "policies": policies,
        "policy_cache_time": policy_cache_time if policies else None,
        "real_name": real_name,
        "scope": scope,
        "type": kind,
        "units": units,
    }


_NFS_LAB = "lab: from the nodes' nfs-ganesha counters; time fields are 0 (not measured)"
KEYS: dict[str, dict[str, Any]] = {
    k["key"]: k
    for k in (
        _key("ifs.bytes.total", "cluster", "int64", "bytes", "last",
             "Total cluster bytes (lab: the /ifs volume's size, os.statvfs)",
             policies=_CAPACITY),
        _key("ifs.bytes.used", "cluster", "int64", "bytes", "last",
             "Used cluster bytes (lab: the /ifs volume's, os.statvfs)", policies=_CAPACITY),
        _key("ifs.bytes.avail", "cluster", "int64", "bytes", "last",
             "Available cluster bytes (lab: the /ifs volume's, os.statvfs f_bavail)",
             policies=_CAPACITY),
        _key("ifs.bytes.free", "cluster", "int64", "bytes", "last",
             "Free cluster bytes (lab: the /ifs volume's, os.statvfs f_bfree)",
             policies=_CAPACITY),
        _key("ifs.percent.used", "cluster", "double", "percent", "last",
             "Percent of cluster bytes used (lab: the /ifs volume's)", policies=_CAPACITY),
        _key("ifs.percent.avail", "cluster", "double", "percent", "last",
             "Percent of cluster bytes available (lab: the /ifs volume's)",
             policies=_CAPACITY),
        _key("cluster.protostats.nfs", "cluster", "stats_proto_opstat_list", "none", "custom",
             f"Per operation performance statistics for NFS3 ({_NFS_LAB}, summed)",
             base_name="cluster.protostats", policies=_PROTO, policy_cache_time=5),
        _key("cluster.protostats.nfs3", "cluster", "stats_proto_opstat_list", "none",
             "custom", "Alias of cluster.protostats.nfs", base_name="cluster.protostats",
             real_name="cluster.protostats.nfs", policies=_PROTO, policy_cache_time=5),
        _key("cluster.protostats.nfs.total", "cluster", "stats_proto_opstat_list", "none",
             "custom", f"Per protocol performance statistics for NFS3 ({_NFS_LAB}, summed)",
             base_name="cluster.protostats.nfs", policies=_PROTO, policy_cache_time=5),
        _key("cluster.node.count.all", "cluster", "int32", "none", "last",
             "Number of nodes in the cluster (lab: the cluster config's nodes)"),
        _key("cluster.node.count.down", "cluster", "int32", "none", "last",
             "Number of nodes down (lab: nodes without a statistics sample in the last "
             f"{STALE_INTERVALS} sampling intervals: those without a container, stopped ones)"),
        _key("node.cpu.user.avg", "node", "int32", "permil", "avg",
             "Node average of user CPU usage in tenths of a percent (lab: the container "
             "host's CPU (/proc/stat, user+nice), not the node's own)",
             base_name="node.cpu.usage", policies=_FAST),
        _key("node.cpu.sys.avg", "node", "int32", "permil", "avg",
             "Node average of system CPU usage in tenths of a percent (lab: the container "
             "host's CPU (/proc/stat, system+irq+softirq), not the node's own)",
             base_name="node.cpu.usage", policies=_FAST),
        _key("node.cpu.idle.avg", "node", "int32", "permil", "avg",
             "Node average of idle CPU in tenths of a percent (lab: the container host's "
             "CPU (/proc/stat, idle+iowait), not the node's own)",
             base_name="node.cpu.usage", policies=_FAST),
        _key("node.ifs.bytes.in.rate", "node", "double", "bytes per second", "avg",
             "Bytes per second written to the file system through the node (lab: what NFS "
             "clients wrote to the node's nfs-ganesha)", policies=_FAST),
        _key("node.ifs.bytes.out.rate", "node", "double", "bytes per second", "avg",
             "Bytes per second read from the file system through the node (lab: what NFS "
             "clients read from the node's nfs-ganesha)", policies=_FAST),
        _key("node.protostats.nfs.total", "node", "stats_proto_opstat_list", "none",
             "custom", f"Per protocol performance statistics for NFS3 of the node ({_NFS_LAB}; "
             "this node-scoped key name is unverified)",
             base_name="node.protostats.nfs", policies=_PROTO, policy_cache_time=5),
        _key("node.health", "node", "int32", "none", "last",
             "Node health: 0 healthy, 1 attention, 2 down (lab: 2 without a recent "
             "statistics sample, 1 when the node's NFS server cannot be asked)"),
    )
}  # fmt: skip


def resolve_keys(names: list[str], substr: bool = False) -> list[str]:
    """The keys a query names (with substr, every key containing a name); 404 for a name
    that is no key."""
    found: list[str] = []
    for name in names:
        matches = [k for k in KEYS if name in k] if substr else [name] if name in KEYS else []
        if not matches:
            raise model.not_found(f"Statistics key {name}")
        found += [k for k in matches if k not in found]
    return found


def key_info(name: str) -> dict[str, Any]:
    """One key's metadata (SDK model StatisticsKey); 404 for an unknown key."""
    if name not in KEYS:
        raise model.not_found(f"Statistics key {name}")
    return dict(KEYS[name])


# ---- sampling (each serving node) ---------------------------------------------------


def read_cpu(path: str = "/proc/stat") -> dict[str, int] | None:
    """Cumulative CPU jiffies from the first line of /proc/stat, or None without one."""
    try:
        with open(path, encoding="ascii") as handle:
            fields = handle.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu":
        return None
    try:
        values = [int(v) for v in fields[1:8]]
    except ValueError:
        return None
    user, nice, system, idle, iowait, irq, softirq = (values + [0] * 7)[:7]
    return {"user": user + nice, "system": system + irq + softirq, "idle": idle + iowait}


def take_sample(now: float | None = None) -> dict[str, Any]:
    """This node's counters now: {"time", "cpu", "nfs"} (nfs None if it cannot be asked)."""
    try:
        nfs = ganesha.read_counters()
    except Exception:  # the NFS server's side must not stop the sampler
        nfs = None
    return {"time": time.time() if now is None else now, "cpu": read_cpu(), "nfs": nfs}


def sample_path(stats_dir: str | os.PathLike, lnn: int) -> Path:
    return Path(stats_dir) / f"node{lnn}.json"


def _read_file(stats_dir: str | os.PathLike, lnn: int) -> dict[str, Any] | None:
    try:
        data = json.loads(sample_path(stats_dir, lnn).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("samples"), list):
        return None
    if not isinstance(data.get("interval"), int | float) or data["interval"] <= 0:
        data["interval"] = DEFAULT_INTERVAL
    data["samples"] = [
        s for s in data["samples"] if isinstance(s, dict) and isinstance(s.get("time"), int | float)
    ]
    return data


def write_sample(
    stats_dir: str | os.PathLike,
    lnn: int,
    sample: dict[str, Any],
    interval: float = DEFAULT_INTERVAL,
) -> None:
    """Keep the node's last two samples: the previous one (if recent) and this one."""
    directory = Path(stats_dir)
    directory.mkdir(parents=True, exist_ok=True)
    old = _read_file(directory, lnn)
    samples = [sample]
    if old and old["samples"]:
        previous = old["samples"][-1]
        age = sample["time"] - float(previous.get("time", 0))
        if 0 < age <= STALE_INTERVALS * interval:
            samples.insert(0, previous)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".node{lnn}-")
    with os.fdopen(fd, "w") as handle:
        json.dump({"lnn": lnn, "interval": interval, "samples": samples}, handle)
    os.replace(tmp, sample_path(directory, lnn))


class Sampler(threading.Thread):
    """Samples this node every `interval` seconds (the first two samples 1 s apart, so
    rates are there soon after a start) until stop()."""

    def __init__(self, stats_dir: str | os.PathLike, lnn: int, interval: float = DEFAULT_INTERVAL):
        super().__init__(name=f"onefs-sim-stats-{lnn}", daemon=True)
        self.stats_dir, self.lnn, self.interval = Path(stats_dir), lnn, float(interval)
        self.stopped = threading.Event()

    def run(self) -> None:
        wait = min(self.interval, 1.0)
        while not self.stopped.is_set():
            with contextlib.suppress(OSError):
                write_sample(self.stats_dir, self.lnn, take_sample(), self.interval)
            self.stopped.wait(wait)
            wait = self.interval

    def stop(self) -> None:
        self.stopped.set()


# ---- reading the samples (any node, the isi command) --------------------------------


def _nfs_rates(old: dict[str, Any], new: dict[str, Any], seconds: float) -> dict[str, Any]:
    """{"ops": {op: {"count", "rate"}}, "in_rate", "out_rate"} between two counter sets;
    a counter that went back (the NFS server restarted) counts from 0."""

    def ops(counters: dict[str, Any]) -> dict[str, int]:
        named: dict[str, int] = {}
        for name, count in (counters.get("ops") or {}).items():
            name = OP_ALIASES.get(str(name).lower(), str(name).lower())
            named[name] = named.get(name, 0) + int(count)
        return named

    before, after = ops(old), ops(new)
    names = list(NFS3_OPS) + sorted(set(after) - set(NFS3_OPS))
    result: dict[str, Any] = {"ops": {}}
    for name in names:
        count = after.get(name, 0) - before.get(name, 0)
        count = after.get(name, 0) if count < 0 else count
        result["ops"][name] = {"count": count, "rate": count / seconds}
    for field, counter in (("in_rate", "bytes_written"), ("out_rate", "bytes_read")):
        delta = int(new.get(counter) or 0) - int(old.get(counter) or 0)
        result[field] = (int(new.get(counter) or 0) if delta < 0 else delta) / seconds
    return result


def node_status(stats_dir: str | os.PathLike, lnn: int, now: float | None = None) -> dict[str, Any]:
    """What the node's sample file says now.

    {"lnn", "up", "time" (its last sample, or None), "error" and "error_code" (why
    there are no rates, or None), "cpu": {"user", "system", "idle"} in permil or None,
    "nfs": _nfs_rates or None, "nfs_error", "nfs_error_code"}.
    """
    now = time.time() if now is None else now
    status: dict[str, Any] = {
        "lnn": lnn, "up": False, "time": None, "error": None, "error_code": None,
        "cpu": None, "nfs": None, "nfs_error": None, "nfs_error_code": None,
    }  # fmt: skip
    data = _read_file(stats_dir, lnn)
    samples = (data or {}).get("samples", [])
    interval = float((data or {}).get("interval") or DEFAULT_INTERVAL)
    if not samples or now - float(samples[-1].get("time", 0)) > STALE_INTERVALS * interval:
        window = STALE_INTERVALS * interval
        status["error"] = f"Node {lnn} is down: no statistics sample in the last {window:g} s"
        status["error_code"] = EHOSTDOWN
        status["nfs_error"], status["nfs_error_code"] = status["error"], EHOSTDOWN
        return status
    status.update(up=True, time=float(samples[-1]["time"]))
    if len(samples) < 2 or float(samples[-1]["time"]) <= float(samples[0].get("time", 0)):
        status["error"] = f"Node {lnn} has a single statistics sample yet (rates need two)"
        status["error_code"] = EAGAIN
        status["nfs_error"], status["nfs_error_code"] = status["error"], EAGAIN
        return status
    old, new = samples[0], samples[-1]
    seconds = float(new["time"]) - float(old["time"])
    try:
        if old.get("cpu") and new.get("cpu"):
            modes = ("user", "system", "idle")
            delta = {m: max(0, int(new["cpu"][m]) - int(old["cpu"][m])) for m in modes}
            total = sum(delta.values())
            if total:
                status["cpu"] = {m: round(1000 * delta[m] / total) for m in modes}
        if old.get("nfs") and new.get("nfs"):
            status["nfs"] = _nfs_rates(old["nfs"], new["nfs"], seconds)
    except (AttributeError, KeyError, TypeError, ValueError):
        status["cpu"] = status["nfs"] = None  # a sample of another shape: no rates
    if status["cpu"] is None:
        status["error"] = f"Node {lnn} has no CPU counters"
        status["error_code"] = EAGAIN
    if status["nfs"] is None:
        status["nfs_error"] = f"Node {lnn}: the NFS server cannot be asked for its counters"
        status["nfs_error_code"] = ECONNREFUSED
    return status


def cluster_status(
    state: dict[str, Any], stats_dir: str | os.PathLike, now: float | None = None
) -> dict[int, dict[str, Any]]:
    """node_status of every node of the cluster, by LNN."""
    now = time.time() if now is None else now
    lnns = sorted(n["lnn"] for n in state["cluster"]["nodes"])
    return {lnn: node_status(stats_dir, lnn, now) for lnn in lnns}


def sum_nfs(rates: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The sum of nodes' _nfs_rates (None for none)."""
    if not rates:
        return None
    total: dict[str, Any] = {"ops": {}, "in_rate": 0.0, "out_rate": 0.0}
    for rate in rates:
        for name, op in rate["ops"].items():
            into = total["ops"].setdefault(name, {"count": 0, "rate": 0.0})
            into["count"] += op["count"]
            into["rate"] += op["rate"]
        total["in_rate"] += rate["in_rate"]
        total["out_rate"] += rate["out_rate"]
    return total


def protostats(nfs: dict[str, Any]) -> list[dict[str, Any]]:
    """Per-operation entries of a stats_proto_opstat_list value (fields unverified)."""
    return [
        {
            "class_name": OP_CLASSES.get(name, "other"),
            "in_rate": nfs["in_rate"] if name == "write" else 0.0,
            "op_count": op["count"],
            "op_name": name,
            "op_rate": op["rate"],
            "out_rate": nfs["out_rate"] if name == "read" else 0.0,
            "time_avg": 0.0,
        }
        for name, op in nfs["ops"].items()
    ]


def protostats_total(nfs: dict[str, Any]) -> dict[str, Any]:
    """The one entry of a *.protostats.nfs.total value: all operations together."""
    return {
        "in_rate": nfs["in_rate"],
        "op_count": sum(op["count"] for op in nfs["ops"].values()),
        "op_rate": sum(op["rate"] for op in nfs["ops"].values()),
        "out_rate": nfs["out_rate"],
        "time_avg": 0.0,
    }


def capacity(ifs_root: str) -> dict[str, Any]:
    """ifs.bytes.* and ifs.percent.* of the volume under ifs_root (os.statvfs)."""
    info = os.statvfs(ifs_root)
    total = info.f_blocks * info.f_frsize
    free = info.f_bfree * info.f_frsize
    avail = info.f_bavail * info.f_frsize
    return {
        "ifs.bytes.total": total,
        "ifs.bytes.used": total - free,
        "ifs.bytes.avail": avail,
        "ifs.bytes.free": free,
        "ifs.percent.used": 100.0 * (total - free) / total if total else 0.0,
        "ifs.percent.avail": 100.0 * avail / total if total else 0.0,
    }


def select_nodes(state: dict[str, Any], values: list[str], local_lnn: int) -> list[int]:
    """The LNNs that `devid` / `nodes` arguments name: integers, comma lists, "all" (every
    node of the cluster), 0 (the answering node); none given: the answering node. The
    simulator's devids are the LNNs. A node not in the cluster is refused with 400
    (OneFS's answer is unverified)."""
    cluster = sorted(n["lnn"] for n in state["cluster"]["nodes"])
    chosen: set[int] = set()
    for value in (v.strip() for raw in values for v in raw.split(",") if v.strip()):
        if value.lower() == "all":
            chosen.update(cluster)
        elif value.isdigit() and (int(value) in cluster or int(value) == 0):
            chosen.add(int(value) or local_lnn)
        else:
            raise model.bad_request(f"Invalid node {value!r}: not a node of the cluster", "devid")
    return sorted(chosen) if chosen else [local_lnn]


def _node_value(key: str, status: dict[str, Any]) -> tuple[Any, str | None, int | None]:
    """(value, error, error_code) of a node-scoped key."""
    if key == "node.health":
        return (0 if status["nfs"] else 1) if status["up"] else 2, None, None
    if key.startswith("node.cpu."):
        mode = {"user": "user", "sys": "system", "idle": "idle"}[key.split(".")[2]]
        if status["cpu"] is None:
            return None, status["error"], status["error_code"]
        return status["cpu"][mode], None, None
    if status["nfs"] is None:
        return None, status["nfs_error"], status["nfs_error_code"]
    if key == "node.ifs.bytes.in.rate":
        return status["nfs"]["in_rate"], None, None
    if key == "node.ifs.bytes.out.rate":
        return status["nfs"]["out_rate"], None, None
    return [protostats_total(status["nfs"])], None, None  # node.protostats.nfs.total


def _cluster_value(
    key: str, nodes: dict[int, dict[str, Any]], ifs_root: str
) -> tuple[Any, str | None, int | None]:
    """(value, error, error_code) of a cluster-scoped key."""
    if key.startswith("ifs."):
        try:
            return capacity(ifs_root)[key], None, None
        except OSError as error:
            return None, f"{ifs_root}: {error.strerror}", error.errno
    if key == "cluster.node.count.all":
        return len(nodes), None, None
    if key == "cluster.node.count.down":
        return sum(1 for s in nodes.values() if not s["up"]), None, None
    nfs = sum_nfs([s["nfs"] for s in nodes.values() if s["nfs"]])
    if nfs is None:
        return None, "No node's NFS server can be asked for its counters", ECONNREFUSED
    if key == "cluster.protostats.nfs.total":
        return [protostats_total(nfs)], None, None
    return protostats(nfs), None, None  # cluster.protostats.nfs and its alias nfs3


def current(
    state: dict[str, Any],
    stats_dir: str | os.PathLike,
    ifs_root: str,
    keys: list[str],
    lnns: list[int],
    degraded: bool = False,
    show_nodes: bool = False,
    now: float | None = None,
) -> list[dict[str, Any]]:
    """The `stats` of a statistics/current answer (SDK model StatisticsCurrentStat):
    each cluster key once with devid 0, each node key once per node of `lnns`.

    A stat that cannot be had carries error and error_code and a null value; without
    `degraded` such a stat fails the whole request instead (500 AEC_EXCEPTION naming
    it: the status and code OneFS answers are unverified). *.total protostats values
    are a list of one entry, as their type stats_proto_opstat_list says.
    """
    now = time.time() if now is None else now
    nodes = cluster_status(state, stats_dir, now)
    stats = []
    for key in keys:
        targets = [0] if KEYS[key]["scope"] == "cluster" else lnns
        for lnn in targets:
            if lnn == 0:
                value, error, code = _cluster_value(key, nodes, ifs_root)
                times = [s["time"] for s in nodes.values() if s["time"]]
                when = max(times) if key.startswith("cluster.protostats") and times else now
            else:
                status = nodes.get(lnn) or node_status(stats_dir, lnn, now)
                value, error, code = _node_value(key, status)
                when = status["time"] or now
            if error and not degraded:
                raise model.ApiError(
                    500, "AEC_EXCEPTION", f"Statistic {key} (devid {lnn}) is unavailable: {error}"
                )
            stat = {"devid": lnn, "error": error, "error_code": code, "key": key,
                    "time": int(when), "value": value}  # fmt: skip
            if show_nodes:
                stat["node"] = lnn
            stats.append(stat)
    return stats


# ---- node pool usage ----------------------------------------------------------------


def pool_used_bytes(state: dict[str, Any], ifs_root: str) -> dict[str, dict[str, int]]:
    """{node pool: {"hdd": bytes, "ssd": bytes}} of the regular files under ifs_root
    (.ifsvar left out, as SmartPools leaves it), each in the node pool its recorded
    SmartPools placement names, or where smartpools.describe() says an unplaced file
    lives (the `anywhere` pool). A file's data counts on SSD when its placement's
    ssd_strategy is `data` and its pool has SSDs, else on HDD (metadata is not counted).
    """
    pools = {p["name"]: p for p in state["nodepools"]}
    used = {name: {"hdd": 0, "ssd": 0} for name in pools}
    _tier, default = smartpools.resolve_target(state, "anywhere")
    placement = state.get("placement") or {}
    for directory, dirs, names in os.walk(ifs_root):
        dirs[:] = [d for d in dirs if d != ".ifsvar"]
        for name in names:
            path = os.path.join(directory, name)
            try:
                info = os.lstat(path)
            except FileNotFoundError:
                continue
            if not statmod.S_ISREG(info.st_mode):
                continue
            placed = placement.get("/ifs/" + os.path.relpath(path, ifs_root))
            pool = placed["nodepool"] if placed else default["name"]
            if pool not in used:
                continue
            on_ssd = bool(placed and placed.get("ssd_strategy") == "data")
            used[pool]["ssd" if on_ssd and pools[pool]["has_ssd"] else "hdd"] += info.st_size
    return used
