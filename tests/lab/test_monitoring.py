"""Monitoring on the lab (the monitoring role, playbooks/monitoring.yml): Prometheus and
Alertmanager on lab-head scrape node_exporter on every server, dlcluster's GPU exporter
on the GPU servers, its Slurm exporter on the head node and its OneFS exporter (the lab's
Isilon through its API), each on the lab's data network only; a drained node and a
stopped exporter each raise their alert within two scrape intervals (the lab's are 5 s)
and clear once repaired; every alert rule passes promtool's rule tests as installed; the
console pages (the GPU dashboard, the Isilon page) render in Chromium."""

from __future__ import annotations

import base64
import contextlib
import json
import shlex
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ROOT, docker_host, load_lab_groups

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


def _targets() -> list[dict]:
    return _get(f"{PROMETHEUS}/api/v1/targets")["data"]["activeTargets"]


def test_every_target_is_up_and_named_as_the_inventory_names_it():
    # a target Prometheus has not scraped yet (just restarted) is "unknown", not down
    _wait(lambda: all(t["health"] != "unknown" for t in _targets()), WITHIN)
    targets = _targets()
    up = {(t["labels"]["job"], t["labels"]["instance"]) for t in targets if t["health"] == "up"}
    expected = (
        {("prometheus", HEAD), ("alertmanager", HEAD), ("slurm", HEAD), ("onefs", HEAD)}
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
    # the lab's stand-in nvidia-smi: four GPUs a server, each saying it is one
    uuids = {(r["metric"]["instance"], r["metric"]["uuid"])
             for r in _query("dlcluster_gpu_memory_total_bytes")}  # fmt: skip
    assert uuids == {(s, f"GPU-LAB-STANDIN-{s}-{i}") for s in COMPUTE for i in range(4)}
    gpus = {r["metric"]["node"]: r["value"][1] for r in _query("dlcluster_slurm_node_gpus")}
    assert gpus == dict.fromkeys(COMPUTE, "4")
    assert _query("dlcluster_slurm_up")[0]["value"][1] == "1"
    assert {r["metric"]["node"] for r in _query("dlcluster_slurm_node_state")} == set(COMPUTE)


@pytest.mark.parametrize("server", SERVERS)
def test_the_exporters_listen_on_the_data_network_only(server):
    listening = docker_host(server).check_output("ss -Hltn")
    for port in ("9100", "9835", "9341", "9342", "9090", "9093"):
        for line in listening.splitlines():
            local = line.split()[3]
            if local.rsplit(":", 1)[1] == port:
                assert local == f"{ADDRESS[server]}:{port}", line


def test_a_jobs_gpus_are_busy_and_counted_allocated_while_it_runs():
    """A two-GPU job on a server: Slurm's exporter counts two GPUs allocated there, and the
    stand-in readings show those two busy (as busy as the host's CPUs), the others idle."""
    node = COMPUTE[0]
    head = docker_host(HEAD)
    job = head.check_output(
        f"sbatch --parsable -w {node} --gres=gpu:2 -p hipri -t 5 --wrap 'sleep 120'"
    ).split(";")[0]
    try:
        _wait(lambda: _query(f"dlcluster_slurm_node_gpus_allocated{{node='{node}'}} == 2"), WITHIN)

        def busy() -> list[float] | None:
            expr = f"dlcluster_gpu_utilization_ratio{{instance='{node}'}}"
            use = sorted(float(r["value"][1]) for r in _query(expr))
            return use if len(use) == 4 and use[:2] == [0.0, 0.0] and use[2] > 0 else None

        _wait(busy, WITHIN)  # the job's two busy, the other two idle
    finally:
        head.check_output(f"scancel {job}")
    _wait(lambda: _query(f"dlcluster_slurm_node_gpus_allocated{{node='{node}'}} == 0"), WITHIN)


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


ISILON = sorted(GROUPS["isilon"])
LNNS = {str(GROUPS["isilon"][name]["onefs_lnn"]) for name in ISILON}


def test_the_isilon_series_are_there_and_true_to_the_cluster():
    assert _query("dlcluster_onefs_up")[0]["value"][1] == "1"
    # /ifs's capacity as the nodes' shared volume has it (statvfs), within what
    # changed between the scrape and this read
    total = float(_query('dlcluster_onefs_ifs_bytes{kind="total"}')[0]["value"][1])
    blocks, size = docker_host(ISILON[0]).check_output("stat -f -c '%b %S' /ifs").split()
    assert total == int(blocks) * int(size)
    # every node pool and tier, with OneFS' own percentage
    pools = {
        (r["metric"]["pool"], r["metric"]["type"])
        for r in _query("dlcluster_onefs_pool_used_ratio")
    }
    assert {("hot-tier", "tier"), ("cold-tier", "tier"), ("f800_48tb-ssd_256gb", "nodepool"),
            ("h500_60tb_3.2tb-ssd_128gb", "nodepool")} <= pools  # fmt: skip
    # CPU per node, from each lab Isilon node's own sample: the four that run
    cpu = {r["metric"]["node"] for r in _query('dlcluster_onefs_node_cpu_ratio{mode="idle"}')}
    assert cpu == LNNS
    assert {r["metric"]["node"] for r in _query("dlcluster_onefs_node_bytes_per_second")} == LNNS


def test_isi_statistics_answers_the_papers_commands_from_the_same_numbers():
    node = docker_host(ISILON[0])
    system = node.check_output("isi statistics system --nodes all --format top").splitlines()
    assert system[0].split() == ["Node", "CPU", "SMB", "FTP", "HTTP", "NFS", "HDFS", "Total",
                                 "NetIn", "NetOut", "DiskIn", "DiskOut"]  # fmt: skip
    rows = {line.split()[0] for line in system[1:]}
    assert {"All"} | LNNS <= rows, system
    pstat = node.check_output("isi statistics pstat --format top")
    for section in ("NFS3 Operations Per Second", "CPU Utilization", "OneFS Stats"):
        assert section in pstat, pstat
    assert "readdirplus" in pstat and "Total" in pstat


def test_every_alert_rule_passes_promtools_rule_tests_as_installed():
    """tests/lab/data/alerts_test.yml against the monitoring host's rules file, with its
    promtool: each alert fires on its condition, with its labels and annotations, and
    not before."""
    tests = (Path(__file__).parent / "data" / "alerts_test.yml").read_bytes()
    encoded = base64.b64encode(tests).decode()
    out = docker_host(HEAD).check_output(
        f"echo {encoded} | base64 -d > /tmp/dlcluster-alerts-test.yml"
        " && promtool test rules /tmp/dlcluster-alerts-test.yml 2>&1"
        " ; rc=$?; rm -f /tmp/dlcluster-alerts-test.yml; exit $rc"
    )
    assert "SUCCESS" in out, out


@contextlib.contextmanager
def _tunnel() -> Iterator[str]:
    """Prometheus as an admin's browser reaches it from outside the cluster's network: an
    SSH tunnel through the head node (the lab's key and pinned host keys); its URL."""
    state = ROOT / "lab" / ".state"
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    ssh = subprocess.Popen(
        ["ssh", "-N", "-p", str(GROUPS["head"][HEAD]["ansible_port"]),
         "-i", str(state / "ssh" / "id_ed25519"),
         "-o", f"UserKnownHostsFile={state / 'known_hosts'}", "-o", "StrictHostKeyChecking=yes",
         "-o", "IdentitiesOnly=yes", "-o", "ExitOnForwardFailure=yes",
         "-L", f"127.0.0.1:{port}:{ADDRESS[HEAD]}:9090", "root@127.0.0.1"],
    )  # fmt: skip
    try:
        for _ in range(50):
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            time.sleep(0.2)
        yield f"http://127.0.0.1:{port}"
    finally:
        ssh.terminate()
        ssh.wait(10)


@pytest.fixture(scope="module")
def browser():
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"  # Debian's (lab/bin/ensure-browser)
    for argument in ("--headless=new", "--no-sandbox", "--window-size=1600,2200"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    yield driver
    driver.quit()


def _graphs(driver) -> dict[str, str]:
    """Each console graph's element id -> "drawn" (Rickshaw drew its lines) or the
    console library's error text, once every graph has finished loading."""

    def done():
        states = driver.execute_script(
            "return Array.from(document.querySelectorAll('.dl-graph-area')).map(g => {"
            " const error = g.parentElement.querySelector('.prom_graph_error');"
            " const lines = g.parentElement.querySelectorAll('svg path.path');"
            " return [g.id, error ? error.textContent : (lines.length ? 'drawn' : '')]; })"
        )
        return dict(states) if states and all(state for _, state in states) else None

    took = _wait(done, 30)
    assert took < 30
    return done()


SHOTS = ROOT / "lab" / ".state" / "screenshots"


def test_the_gpu_dashboard_and_the_isilon_page_render_in_chromium(browser):
    """The papers' GPU dashboard and the Isilon page, as Prometheus serves them: every
    server and node in their tables, every graph drawn from its series (the GPUs' from
    the lab's stand-in nvidia-smi), a screenshot of each."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    with _tunnel() as url:
        browser.get(f"{url}/consoles/gpu-dashboard.html")
        rows = browser.find_elements("css selector", "tr.dl-server")
        assert sorted(r.get_attribute("data-instance") for r in rows) == sorted(SERVERS)
        graphs = _graphs(browser)
        browser.save_screenshot(str(SHOTS / "gpu-dashboard.png"))
        assert set(graphs) == {"gpu-use", "gpu-memory", "cpu", "memory", "network-in",
                               "network-out"}  # fmt: skip
        assert set(graphs.values()) == {"drawn"}, graphs
        browser.get(f"{url}/consoles/isilon.html")
        nodes = {
            r.get_attribute("data-node"): r.find_elements("tag name", "td")[1].text
            for r in browser.find_elements("css selector", "tr.dl-node")
        }
        assert {n: h for n, h in nodes.items() if n in LNNS} == dict.fromkeys(LNNS, "healthy")
        pools = {
            r.get_attribute("data-pool")
            for r in browser.find_elements("css selector", "tr.dl-pool")
        }
        assert {"hot-tier", "cold-tier", "f800_48tb-ssd_256gb"} <= pools
        graphs = _graphs(browser)
        browser.save_screenshot(str(SHOTS / "isilon.png"))
        assert set(graphs.values()) == {"drawn"}, graphs
    for name in ("gpu-dashboard.png", "isilon.png"):
        assert (SHOTS / name).stat().st_size > 20_000
