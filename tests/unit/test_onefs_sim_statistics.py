"""The OneFS simulator's statistics: statistics/current and /keys, `isi statistics`, and
node pool usage from the files under /ifs (lab/simulators/onefs_sim/statistics.py).

Samples are written as the nodes' samplers write them (statistics.write_sample, or the
file itself), so every value below follows from known counters.
"""

from __future__ import annotations

import io
import json
import os
import sys
import threading
import time
from contextlib import redirect_stdout
from pathlib import Path

import pytest
import requests
from throwaway_tls import self_signed

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "lab" / "simulators"))
from onefs_sim import api, ganesha, isi, model, statistics  # noqa: E402

CLUSTER = ROOT / "lab" / "simulators" / "onefs_sim" / "lab-cluster.json"
USER, PASSWORD = "admin", "lab-secret"
MIB = 1024**2
F800, H500 = "f800_48tb-ssd_256gb", "h500_60tb_3.2tb-ssd_128gb"
# StatisticsKey's fields [isilon-sdk 0.7.0: models/statistics_key.py]
KEY_FIELDS = {
    "aggregation_type", "base_name", "default_cache_time", "description", "key", "policies",
    "policy_cache_time", "real_name", "scope", "type", "units",
}  # fmt: skip


class Node:
    """One simulator node (LNN `lnn`, no sampler of its own) over a temporary /ifs."""

    def __init__(self, tmp_path: Path, lnn: int = 1, cert: tuple[str, str] | None = None):
        self.ifs = tmp_path / "ifs"
        self.ifs.mkdir(exist_ok=True)
        self.store = model.Store(self.ifs / ".ifsvar" / "state.json", CLUSTER)
        self.stats = self.ifs / ".ifsvar" / "stats"
        self.server = api.serve(
            ("127.0.0.1", 0), self.store, {USER: PASSWORD}, str(self.ifs), lnn,
            *(cert or ()), stats_interval=None,
        )  # fmt: skip
        self.url = f"{'https' if cert else 'http'}://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        self.http = requests.Session()
        self.http.auth = (USER, PASSWORD)

    def get(self, path: str, **params) -> requests.Response:
        return self.http.get(f"{self.url}/platform/{path}", params=params, timeout=10)

    def stats_of(self, **params) -> list[dict]:
        answer = self.get("1/statistics/current", **params)
        assert answer.status_code == 200, answer.text
        return answer.json()["stats"]

    def isi(self, *words: str) -> list[str]:
        out = io.StringIO()
        with redirect_stdout(out):
            assert isi.main(list(words), self.store, str(self.ifs)) == 0
        return out.getvalue().splitlines()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def node(tmp_path):
    server = Node(tmp_path)
    yield server
    server.stop()


def sample(t: float, cpu: tuple[int, int, int], nfs: dict | None = None) -> dict:
    user, system, idle = cpu
    return {"time": t, "cpu": {"user": user, "system": system, "idle": idle}, "nfs": nfs}


def counters(bytes_read: int = 0, bytes_written: int = 0, **ops: int) -> dict:
    return {"ops": ops, "bytes_read": bytes_read, "bytes_written": bytes_written}


def write(stats: Path, lnn: int, *samples: dict, interval: float = 5.0) -> None:
    stats.mkdir(parents=True, exist_ok=True)
    body = {"lnn": lnn, "interval": interval, "samples": list(samples)}
    (stats / f"node{lnn}.json").write_text(json.dumps(body))


def two_busy_nodes(stats: Path, now: float) -> None:
    """Node 1: CPU 30% user, 10% system; NFS 100 reads/s, 20 writes/s, 4 getattr/s,
    1 fsstat/s, 1 MiB/s written, 2 MiB/s read. Node 2: CPU 10%/10%; 10 reads/s, 0.5 MiB/s
    read. Nodes 3-8: no samples (no container)."""
    write(
        stats, 1,
        sample(now - 6, (1000, 500, 8500), counters(0, 0, read=100, write=50, getattr=10)),
        sample(now - 1, (1300, 600, 9100),
               counters(10 * MIB, 5 * MIB, read=600, write=150, getattr=30, fsstat=5)),
    )  # fmt: skip
    write(
        stats, 2,
        sample(now - 6, (0, 0, 0), counters(MIB, 0, read=10)),
        sample(now - 1, (100, 100, 800), counters(MIB + 5 * MIB // 2, 0, read=60)),
    )  # fmt: skip


def by_key(stats: list[dict]) -> dict[tuple[str, int], dict]:
    return {(s["key"], s["devid"]): s for s in stats}


def test_the_key_catalog_is_served_with_the_sdk_models_fields(node):
    listed = node.get("1/statistics/keys").json()
    assert listed["total"] == len(statistics.KEYS) and listed["resume"] is None
    names = [k["key"] for k in listed["keys"]]
    assert names == sorted(statistics.KEYS)
    assert all(set(k) == KEY_FIELDS for k in listed["keys"])
    assert {k["scope"] for k in listed["keys"]} == {"cluster", "node"}
    assert {"ifs.bytes.total", "cluster.protostats.nfs", "node.cpu.user.avg"} <= set(names)
    assert all("lab: " in k["description"] or k["real_name"] for k in listed["keys"])
    page = node.get("1/statistics/keys", limit=5).json()
    paged = [k["key"] for k in page["keys"]]
    while page["resume"]:  # each page keeps the first request's limit
        page = node.get("1/statistics/keys", resume=page["resume"]).json()
        assert len(page["keys"]) <= 5
        paged += [k["key"] for k in page["keys"]]
    assert paged == names
    assert node.get("1/statistics/keys", count="true").json() == {"total": len(names)}

    idle = node.get("1/statistics/keys/node.cpu.idle.avg").json()["keys"]
    assert [(k["units"], k["type"], k["scope"]) for k in idle] == [("permil", "int32", "node")]
    alias = node.get("1/statistics/keys/cluster.protostats.nfs3").json()["keys"][0]
    assert alias["real_name"] == "cluster.protostats.nfs"
    missing = node.get("1/statistics/keys/no.such.key")
    assert missing.status_code == 404
    assert missing.json() == {
        "errors": [{"code": "AEC_NOT_FOUND", "message": "Statistics key no.such.key not found"}]
    }


def test_an_unknown_key_is_404_and_no_key_400(node):
    answer = node.get("1/statistics/current", keys="ifs.bytes.total,no.such.key")
    assert answer.status_code == 404
    assert answer.json()["errors"][0] == {
        "code": "AEC_NOT_FOUND", "message": "Statistics key no.such.key not found"
    }  # fmt: skip
    assert node.get("1/statistics/current").status_code == 400


def test_capacity_is_the_ifs_volumes_statvfs(node, monkeypatch):
    real = os.statvfs(node.ifs)
    (total,) = node.stats_of(key="ifs.bytes.total")
    assert (total["devid"], total["value"]) == (0, real.f_blocks * real.f_frsize)
    assert total["error"] is None and isinstance(total["time"], int)

    asked = []
    fixed = os.statvfs_result((4096, 4096, 1000, 400, 300, 0, 0, 0, 0, 255))

    def statvfs(path):
        asked.append(path)
        return fixed

    monkeypatch.setattr(statistics.os, "statvfs", statvfs)
    keys = "ifs.bytes.total,ifs.bytes.used,ifs.bytes.avail,ifs.bytes.free"
    values = {s["key"]: s["value"] for s in node.stats_of(keys=keys, devid="3")}
    assert values == {"ifs.bytes.total": 4096000, "ifs.bytes.used": 2457600,
                      "ifs.bytes.avail": 1228800, "ifs.bytes.free": 1638400}  # fmt: skip
    percent = node.stats_of(key=["ifs.percent.used", "ifs.percent.avail"])
    assert [s["value"] for s in percent] == [60.0, 30.0]
    assert set(asked) == {str(node.ifs)}


def test_node_cpu_is_permil_of_the_jiffies_between_two_samples(node):
    now = time.time()
    two_busy_nodes(node.stats, now)
    status = statistics.node_status(node.stats, 1, now)
    assert status["cpu"] == {"user": 300, "system": 100, "idle": 600}
    keys = "node.cpu.user.avg,node.cpu.sys.avg,node.cpu.idle.avg"
    got = by_key(node.stats_of(keys=keys, devid="1,2"))
    assert [got[(f"node.cpu.{m}.avg", 1)]["value"] for m in ("user", "sys", "idle")] == [
        300, 100, 600,
    ]  # fmt: skip
    assert [got[(f"node.cpu.{m}.avg", 2)]["value"] for m in ("user", "sys", "idle")] == [
        100, 100, 800,
    ]  # fmt: skip
    assert got[("node.cpu.idle.avg", 1)]["time"] == int(now - 1)


def test_nfs_rates_are_counter_differences_over_time_and_sum_over_nodes(node):
    now = time.time()
    two_busy_nodes(node.stats, now)
    got = by_key(
        node.stats_of(
            keys="node.ifs.bytes.in.rate,node.ifs.bytes.out.rate,node.protostats.nfs.total",
            nodes="1,2",
        )
    )
    assert got[("node.ifs.bytes.in.rate", 1)]["value"] == MIB
    assert got[("node.ifs.bytes.out.rate", 1)]["value"] == 2 * MIB
    assert got[("node.ifs.bytes.out.rate", 2)]["value"] == MIB / 2
    (total,) = got[("node.protostats.nfs.total", 1)]["value"]
    assert (total["op_count"], total["op_rate"]) == (625, 125.0)

    cluster = by_key(node.stats_of(keys="cluster.protostats.nfs,cluster.protostats.nfs.total"))
    entries = {e["op_name"]: e for e in cluster[("cluster.protostats.nfs", 0)]["value"]}
    assert list(entries) == list(statistics.NFS3_OPS)
    assert (entries["read"]["op_rate"], entries["read"]["op_count"]) == (110.0, 550)
    assert entries["read"]["out_rate"] == 2.5 * MIB and entries["write"]["in_rate"] == MIB
    assert entries["statfs"]["op_rate"] == 1.0  # ganesha's fsstat is OneFS's statfs
    assert entries["getattr"]["class_name"] == "namespace_read"
    assert {"op_count", "op_name", "op_rate", "time_avg"} <= set(entries["read"])
    (summed,) = cluster[("cluster.protostats.nfs.total", 0)]["value"]
    assert (summed["op_rate"], summed["in_rate"], summed["out_rate"]) == (
        135.0, MIB, 2.5 * MIB,
    )  # fmt: skip
    alias = node.stats_of(key="cluster.protostats.nfs3")[0]
    assert alias["key"] == "cluster.protostats.nfs3" and len(alias["value"]) == 23


def test_the_sampler_records_cpu_and_the_nfs_servers_counters(tmp_path, monkeypatch):
    reads = iter(range(0, 10**6, 50))
    monkeypatch.setattr(ganesha, "read_counters", lambda: counters(0, 0, read=next(reads), write=7))
    sampler = statistics.Sampler(tmp_path / "stats", 4, interval=0.05)
    sampler.start()
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        path = tmp_path / "stats" / "node4.json"
        data = json.loads(path.read_text()) if path.exists() else {}
        if len(data.get("samples", [])) == 2:
            break
        time.sleep(0.02)
    sampler.stop()
    sampler.join(2)
    assert data["lnn"] == 4 and data["interval"] == 0.05
    old, new = data["samples"]
    assert set(new["cpu"]) == {"user", "system", "idle"} and new["time"] > old["time"]
    assert new["nfs"]["ops"]["read"] - old["nfs"]["ops"]["read"] >= 50
    status = statistics.node_status(tmp_path / "stats", 4, new["time"])
    assert status["up"] and status["nfs"]["ops"]["read"]["rate"] > 0

    monkeypatch.setattr(ganesha, "read_counters", lambda: None)
    statistics.write_sample(tmp_path / "stats", 4, statistics.take_sample(new["time"] + 1), 5)
    status = statistics.node_status(tmp_path / "stats", 4, new["time"] + 1)
    assert status["up"] and status["nfs"] is None
    assert status["nfs_error_code"] == statistics.ECONNREFUSED


def test_a_missing_or_stale_node_answers_errors_degraded_and_fails_the_request_otherwise(node):
    now = time.time()
    two_busy_nodes(node.stats, now)
    write(node.stats, 2, sample(now - 100, (0, 0, 0)), sample(now - 95, (1, 1, 1)))
    write(node.stats, 3, sample(now - 2, (0, 0, 0)), sample(now - 1, (1, 1, 1)))  # no NFS
    (node.stats / "node5.json").write_text('{"samples": [{"time": "soon"}]')  # unreadable
    keys = "node.cpu.idle.avg,node.ifs.bytes.in.rate,node.health,cluster.node.count.down"
    stats = node.stats_of(keys=keys, devid="all", degraded="true", show_nodes="true")
    got = by_key(stats)
    assert len(stats) == 3 * 8 + 1
    assert [got[("node.health", n)]["value"] for n in range(1, 9)] == [0, 2, 1, 2, 2, 2, 2, 2]
    down = got[("node.cpu.idle.avg", 2)]
    assert down["value"] is None and down["error_code"] == statistics.EHOSTDOWN
    assert down["error"].startswith("Node 2 is down") and down["node"] == 2
    assert got[("node.cpu.idle.avg", 8)]["error_code"] == statistics.EHOSTDOWN
    no_nfs = got[("node.ifs.bytes.in.rate", 3)]
    assert no_nfs["value"] is None and no_nfs["error_code"] == statistics.ECONNREFUSED
    assert got[("node.cpu.idle.avg", 3)]["value"] == 333
    assert got[("cluster.node.count.down", 0)]["value"] == 6  # 3 is up, without NFS
    assert node.stats_of(key="cluster.node.count.all")[0]["value"] == 8

    failed = node.get("1/statistics/current", keys="node.cpu.idle.avg", devid="all")
    assert failed.status_code == 500
    error = failed.json()["errors"][0]
    assert error["code"] == "AEC_EXCEPTION" and "node.cpu.idle.avg (devid 2)" in error["message"]
    assert node.get("1/statistics/current", key="node.cpu.idle.avg", devid="1").ok


def test_devid_nodes_and_show_nodes_pick_and_name_the_nodes(tmp_path):
    server = Node(tmp_path, lnn=2)  # the answering node is LNN 2
    try:
        two_busy_nodes(server.stats, time.time())
        devids = {
            "": [2], "0": [2], "1": [1], "1,2": [1, 2], "all": list(range(1, 9)),
        }  # fmt: skip
        for devid, expected in devids.items():
            params = {"devid": devid} if devid else {}
            stats = server.stats_of(key="node.health", degraded="true", **params)
            assert [s["devid"] for s in stats] == expected, devid
            assert all("node" not in s for s in stats)
        assert [s["devid"] for s in server.stats_of(key="node.health", nodes="2,1")] == [1, 2]
        repeated = server.stats_of(key="node.health", devid=["1", "2"], show_nodes="true")
        assert [(s["devid"], s["node"]) for s in repeated] == [(1, 1), (2, 2)]
        cluster = server.stats_of(key="ifs.bytes.total", devid="all", show_nodes="True")
        assert [(s["devid"], s["node"]) for s in cluster] == [(0, 0)]
        substr = server.stats_of(keys="node.cpu.", substr="true", devid="1")
        assert [s["key"] for s in substr] == [
            "node.cpu.user.avg", "node.cpu.sys.avg", "node.cpu.idle.avg",
        ]  # fmt: skip
        bad = server.get("1/statistics/current", key="node.health", devid="9")
        assert bad.status_code == 400 and bad.json()["errors"][0]["field"] == "devid"
    finally:
        server.stop()


def test_node_pool_and_tier_usage_follow_the_recorded_placement(node):
    (node.ifs / "data").mkdir()
    (node.ifs / "data" / "old.bin").write_bytes(b"x" * 1000)
    (node.ifs / "data" / "hot.bin").write_bytes(b"x" * 3000)
    (node.ifs / "new.bin").write_bytes(b"x" * 500)  # never placed: the `anywhere` pool
    (node.ifs / ".ifsvar").mkdir(exist_ok=True)
    (node.ifs / ".ifsvar" / "ignored.bin").write_bytes(b"x" * 7000)
    assert node.http.post(
        f"{node.url}/platform/1/storagepool/tiers", json={"name": "cold-tier", "children": [H500]}
    ).ok
    with node.store.transaction(write=True) as state:
        state["placement"]["/ifs/data/old.bin"] = {"nodepool": H500, "ssd_strategy": "metadata"}
        state["placement"]["/ifs/data/hot.bin"] = {"nodepool": F800, "ssd_strategy": "data"}
        state["placement"]["/ifs/gone.bin"] = {"nodepool": H500, "ssd_strategy": "metadata"}

    pools = {p["name"]: p["usage"] for p in node.get("3/storagepool/nodepools").json()["nodepools"]}
    assert (pools[H500]["used_bytes"], pools[H500]["used_hdd_bytes"]) == ("1000", "1000")
    f800 = pools[F800]
    assert (f800["used_bytes"], f800["used_ssd_bytes"], f800["used_hdd_bytes"]) == (
        "3500", "3000", "500",
    )  # fmt: skip
    assert f800["total_bytes"] == str(4 * 10**13 + 2 * 10**12)  # nominal
    assert f800["avail_bytes"] == str(4 * 10**13 + 2 * 10**12 - 3500)
    assert all(isinstance(v, str) for k, v in f800.items() if k != "balanced")
    assert f800["balanced"] is True
    tier = node.get("16/storagepool/tiers/cold-tier").json()["tiers"][0]["usage"]
    assert (tier["used_bytes"], tier["total_bytes"]) == ("1000", str(4 * 10**13 + 2 * 10**12))
    listed = node.get("3/storagepool/storagepools").json()["storagepools"]
    assert {(p["name"], p["usage"]["used_bytes"]) for p in listed} == {
        ("cold-tier", "1000"), (F800, "3500"), (H500, "1000"),
    }  # fmt: skip


def test_isi_statistics_system_prints_the_all_row_and_each_node(node):
    two_busy_nodes(node.stats, time.time())
    assert node.isi("statistics", "system") == [
        "Node   CPU SMB FTP HTTP  NFS HDFS Total NetIn NetOut DiskIn DiskOut",
        " All 30.0% 0.0 0.0  0.0 3.5M  0.0  3.5M  1.0M   2.5M   1.0M    2.5M",
    ]
    assert node.isi("statistics", "system", "--nodes", "all", "--format", "top") == [
        "Node   CPU SMB FTP HTTP    NFS HDFS  Total NetIn NetOut DiskIn DiskOut",
        " All 30.0% 0.0 0.0  0.0   3.5M  0.0   3.5M  1.0M   2.5M   1.0M    2.5M",
        "   1 40.0% 0.0 0.0  0.0   3.0M  0.0   3.0M  1.0M   2.0M   1.0M    2.0M",
        "   2 20.0% 0.0 0.0  0.0 512.0K  0.0 512.0K   0.0 512.0K    0.0  512.0K",
        *[f"   {n}     -   -   -    -      -    -      -     -      -      -       -"
          for n in range(3, 9)],
    ]  # fmt: skip
    assert node.isi("statistics", "system", "--nodes", "2")[2].startswith("   2 20.0%")


def test_isi_statistics_pstat_prints_operations_cpu_and_throughput(node):
    two_busy_nodes(node.stats, time.time())
    assert node.isi("statistics", "pstat", "--format", "top") == [
        "_____NFS3 Operations Per Second_____",
        "access            0.00/s  commit            0.00/s  create            0.00/s",
        "fsinfo            0.00/s  getattr           4.00/s  link              0.00/s",
        "lookup            0.00/s  mkdir             0.00/s  mknod             0.00/s",
        "noop              0.00/s  null              0.00/s  pathconf          0.00/s",
        "read            110.00/s  readdir           0.00/s  readdirplus       0.00/s",
        "readlink          0.00/s  remove            0.00/s  rename            0.00/s",
        "rmdir             0.00/s  setattr           0.00/s  statfs            1.00/s",
        "symlink           0.00/s  write            20.00/s",
        "Total           135.00/s",
        "",
        "_____CPU Utilization_____     _____OneFS Stats_____",
        "user               20.0%      In             1.00 MB/s",
        "system             10.0%      Out            2.50 MB/s",
        "idle               70.0%      Total          3.50 MB/s",
        "",
        "_____Network Input_____       _____Network Output_____      _____Disk I/O_____",
        "MB/s                1.00      MB/s                2.50      Disk         130.00 iops",
    ]


def test_isi_statistics_without_samples_prints_dashes(node):
    assert node.isi("statistics", "system")[1].split() == ["All"] + ["-"] * 11
    pstat = node.isi("statistics", "pstat")
    assert pstat[1].split() == ["access", "-", "commit", "-", "create", "-"]
    assert pstat[-1].split() == ["MB/s", "-", "MB/s", "-", "Disk", "-"]


def test_the_sdk_reads_the_statistics(tmp_path):
    sdk = pytest.importorskip("isilon_sdk.v9_10_0")
    cert = tuple(str(path) for path in self_signed(tmp_path))
    server = Node(tmp_path, cert=cert)
    try:
        two_busy_nodes(server.stats, time.time())
        config = sdk.Configuration()
        config.host = server.url
        config.username, config.password = USER, PASSWORD
        config.verify_ssl, config.ssl_ca_cert = True, cert[0]
        stats_api = sdk.StatisticsApi(sdk.ApiClient(config))
        current = stats_api.get_statistics_current(
            keys=["ifs.bytes.total", "node.health", "node.cpu.idle.avg", "cluster.protostats.nfs"],
            devid=["all"], degraded=True, show_nodes=True,
        ).stats  # fmt: skip
        health = {s.node: s.value for s in current if s.key == "node.health"}
        assert health == {1: "0", 2: "0", **{n: "2" for n in range(3, 9)}}  # value is a str
        assert [s.devid for s in current if s.key == "ifs.bytes.total"] == [0]
        assert any(s.error_code == statistics.EHOSTDOWN for s in current)
        keys = stats_api.get_statistics_keys(limit=15)
        assert keys.total == len(statistics.KEYS) and len(keys.keys) == 15 and keys.resume
        more = stats_api.get_statistics_keys(resume=keys.resume)
        assert len(more.keys) == len(statistics.KEYS) - 15 and more.resume is None
        idle = stats_api.get_statistics_key("node.cpu.idle.avg").keys[0]
        assert (idle.units, idle.aggregation_type) == ("permil", "avg")
        assert [p.interval for p in idle.policies] == [5, 120]
    finally:
        server.stop()
