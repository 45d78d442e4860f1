"""Monitoring on the lab (the monitoring role, playbooks/monitoring.yml): Prometheus and
Alertmanager on lab-head scrape node_exporter on every server, dlcluster's GPU exporter
on the GPU servers and its Slurm exporter on the head node, each on the lab's data
network only; a drained node and a stopped exporter each raise their alert within two
scrape intervals (the lab's are 5 s) and clear once repaired."""

from __future__ import annotations

import json
import shlex
import time

import pytest
from conftest import docker_host, load_lab_groups

GROUPS = load_lab_groups()
HEAD = sorted(GROUPS["head"])[0]
COMPUTE = sorted(GROUPS["compute"])
SERVERS = [HEAD, *COMPUTE]
ADDRESS = {name: GROUPS[group][name]["lab_data_address"] for group in ("head", "compute")
           for name in GROUPS[group]}  # fmt: skip
PROMETHEUS = f"http://{ADDRESS[HEAD]}:9090"
ALERTMANAGER = f"http://{ADDRESS[HEAD]}:9093"
INTERVAL = 5  # inventories/lab/group_vars/all/monitoring.yml
# two scrape intervals, and this test's own polling and docker exec latency on a busy
# 2-core machine
WITHIN = 2 * INTERVAL + 8


def _get(url: str) -> object:
    """A JSON answer of Prometheus or Alertmanager, asked from the head node (they listen
    on the lab's data network, which the control host does not reach)."""
    reply = docker_host(HEAD).check_output(
        "python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1],"
        f" timeout=10).read().decode())' {shlex.quote(url)}"
    )
    return json.loads(reply)


def _query(expr: str) -> list[dict]:
    from urllib.parse import quote

    return _get(f"{PROMETHEUS}/api/v1/query?query={quote(expr)}")["data"]["result"]


def _firing(name: str) -> list[dict]:
    alerts = _get(f"{PROMETHEUS}/api/v1/alerts")["data"]["alerts"]
    return [a for a in alerts if a["labels"]["alertname"] == name and a["state"] == "firing"]


def _wait(condition, seconds: float) -> float:
    """Seconds until `condition()` is true; fails after `seconds`."""
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        if condition():
            return time.monotonic() - start
        time.sleep(1)
    pytest.fail(f"not within {seconds} s")


def test_every_target_is_up_and_named_as_the_inventory_names_it():
    targets = _get(f"{PROMETHEUS}/api/v1/targets")["data"]["activeTargets"]
    up = {(t["labels"]["job"], t["labels"]["instance"]) for t in targets if t["health"] == "up"}
    expected = (
        {("prometheus", HEAD), ("alertmanager", HEAD), ("slurm", HEAD)}
        | {("node", server) for server in SERVERS}
        | {("gpu", server) for server in COMPUTE}
    )
    assert up == expected, [(t["scrapeUrl"], t["health"], t["lastError"]) for t in targets]


def test_the_node_gpu_and_slurm_series_are_there():
    # the series of today's targets (a package's first start, before the role's
    # configuration, scraped its defaults for a moment: localhost:9100)
    active = {
        t["labels"]["instance"]
        for t in _get(f"{PROMETHEUS}/api/v1/targets")["data"]["activeTargets"]
    }
    cpu = {r["metric"]["instance"] for r in _query("node_cpu_seconds_total")} & active
    assert cpu == set(SERVERS)
    files = {r["metric"]["instance"]: r["value"][1] for r in _query("dlcluster_gpu_device_files")}
    assert files == dict.fromkeys(COMPUTE, "4")  # the lab's stand-in GPUs (lab_gpus)
    assert {r["value"][1] for r in _query("dlcluster_gpu_expected")} == {"4"}
    gpus = {r["metric"]["node"]: r["value"][1] for r in _query("dlcluster_slurm_node_gpus")}
    assert gpus == dict.fromkeys(COMPUTE, "4")
    assert _query("dlcluster_slurm_up")[0]["value"][1] == "1"
    assert {r["metric"]["node"] for r in _query("dlcluster_slurm_node_state")} == set(COMPUTE)


@pytest.mark.parametrize("server", SERVERS)
def test_the_exporters_listen_on_the_data_network_only(server):
    listening = docker_host(server).check_output("ss -Hltn")
    for port in ("9100", "9835", "9341", "9090", "9093"):
        for line in listening.splitlines():
            local = line.split()[3]
            if local.rsplit(":", 1)[1] == port:
                assert local == f"{ADDRESS[server]}:{port}", line


def _drained(node: str) -> list[dict]:
    return [a for a in _firing("SlurmNodeDrained") if a["labels"]["node"] == node]


def _in_alertmanager(name: str) -> bool:
    return any(a["labels"].get("alertname") == name for a in _get(f"{ALERTMANAGER}/api/v2/alerts"))


def test_a_drained_node_raises_its_alert_with_the_reason_and_clears_once_resumed():
    node = COMPUTE[-1]
    head = docker_host(HEAD)
    head.check_output(f"scontrol update nodename={node} state=drain reason=lab-monitoring")
    try:
        took = _wait(lambda: _drained(node), WITHIN)
        print(f"SlurmNodeDrained fired {took:.1f} s after the drain")
        (alert,) = _drained(node)
        assert "lab-monitoring" in alert["annotations"]["description"], alert
        _wait(lambda: _in_alertmanager("SlurmNodeDrained"), WITHIN)  # sent on to Alertmanager
    finally:
        head.check_output(f"scontrol update nodename={node} state=resume")
    _wait(lambda: not _drained(node), WITHIN)


def test_a_stopped_exporter_raises_target_down_and_clears_once_started():
    server = COMPUTE[1]
    host = docker_host(server)
    host.check_output("systemctl stop prometheus-node-exporter")
    try:
        took = _wait(
            lambda: [
                a
                for a in _firing("TargetDown")
                if (a["labels"]["job"], a["labels"]["instance"]) == ("node", server)
            ],
            WITHIN,
        )
        print(f"TargetDown fired {took:.1f} s after the stop")
    finally:
        host.check_output("systemctl start prometheus-node-exporter")
    _wait(lambda: not _firing("TargetDown"), WITHIN)
