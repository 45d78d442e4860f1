"""The monitoring role's decisions (filter_plugins/monitoring.py) and dlcluster's exporter
(roles/monitoring/files/dlcluster-exporter): what it reads from nvidia-smi and Slurm, and
what it serves, with the Prometheus client Debian 12 ships."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import os
import stat
import time
from pathlib import Path

import yaml
from playbook import local_host, run_playbook
from prometheus_client import CollectorRegistry, generate_latest

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str, path: Path):
    loader = importlib.machinery.SourceFileLoader(name, str(path))
    spec = importlib.util.spec_from_loader(name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


mon = _load("monitoring_filters", ROOT / "filter_plugins" / "monitoring.py")
exporter = _load(
    "dlcluster_exporter", ROOT / "roles" / "monitoring" / "files" / "dlcluster-exporter"
)

SMI = (
    "0, GPU-aaaa, 42, 1024, 16384, 61, 250.52, 0\n"
    "1, GPU-bbbb, [N/A], 0, 16384, 35, [Not Supported], 2\n"
)
# scontrol show node -o, as Slurm 22.05 prints it (fields trimmed to those read)
SCONTROL = (
    "NodeName=gpu-1 Arch=x86_64 CPUAlloc=8 CPUTot=40 Gres=gpu:4 GresUsed=gpu:2(IDX:0-1)"
    " State=MIXED ThreadsPerCore=1 RealMemory=384000\n"
    "NodeName=gpu-2 Arch=x86_64 CPUAlloc=0 CPUTot=40 Gres=gpu:v100:4(S:0-1)"
    " GresUsed=gpu:v100:0(IDX:N/A) State=IDLE+DRAIN ThreadsPerCore=1"
    " Reason=dlcluster-health: 3 of 4 GPU device files [root@2026-11-27T10:00:00]\n"
    "NodeName=gpu-3 Arch=x86_64 Gres=gpu:4 GresUsed=gpu:0(IDX:N/A) State=DOWN*"
    " Reason=Not responding [slurm@2026-11-27T10:05:00]\n"
)
SQUEUE = "RUNNING|hipri\nRUNNING|hipri\nPENDING|sxm2\n"


def test_nvidia_smi_lines_become_gpus_and_unreported_fields_none():
    gpus = exporter.parse_nvidia_smi(SMI + "garbage\n")
    assert [g["uuid"] for g in gpus] == ["GPU-aaaa", "GPU-bbbb"]
    assert gpus[0]["utilization.gpu"] == 42.0 and gpus[0]["power.draw"] == 250.52
    assert gpus[1]["utilization.gpu"] is None and gpus[1]["power.draw"] is None
    assert gpus[1]["ecc.errors.uncorrected.volatile.total"] == 2.0


def test_scontrol_nodes_give_state_reason_and_gpus():
    nodes = {n["node"]: n for n in exporter.parse_scontrol_nodes(SCONTROL)}
    assert nodes["gpu-1"] == {"node": "gpu-1", "state": "mixed", "gpus": 4, "gpus_allocated": 2,
                              "reason": ""}  # fmt: skip
    assert nodes["gpu-2"]["state"] == "idle+drain"
    assert nodes["gpu-2"]["reason"] == "dlcluster-health: 3 of 4 GPU device files"
    assert (nodes["gpu-2"]["gpus"], nodes["gpu-2"]["gpus_allocated"]) == (4, 0)
    assert nodes["gpu-3"]["state"] == "down"  # the not-responding flag dropped
    assert exporter.parse_squeue(SQUEUE) == {("running", "hipri"): 2, ("pending", "sxm2"): 1}


def _serve(collector) -> str:
    registry = CollectorRegistry()
    registry.register(collector)
    return generate_latest(registry).decode()


def _fake(tmp_path: Path, name: str, output: str, rc: int = 0) -> None:
    script = tmp_path / name
    script.write_text(f"#!/bin/sh\ncat <<'EOF'\n{output}EOF\nexit {rc}\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)


KERNEL_LOG = (
    "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.183.01\n"
    "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has fallen off the bus.\n"
    "NVRM: Xid (PCI:0000:3B:00): 79, pid=0, GPU has fallen off the bus.\n"
    "NVRM: Xid (PCI:0000:86:00): 48, pid=77, An uncorrectable double bit error (DBE) has been"
    " detected on GPU in the framebuffer at partition 0, subpartition 0.\n"
)


def test_xid_lines_are_counted_by_gpu_and_code():
    assert exporter.parse_xid(KERNEL_LOG) == {("0000:3b:00", "79"): 2, ("0000:86:00", "48"): 1}
    assert exporter.parse_xid("NVRM: GPU at PCI:0000:3b:00: GPU-aaaa\n") == {}


def test_data_mounts_are_read_from_the_hosts_list_and_proc_mounts():
    listed = (
        "# managed by dlcluster: isilon_mounts\n# default mount: /mnt/isilon\n"
        "/mnt/isilon1  # 10.0.0.21:/ifs\n/mnt/isilon2  # 10.0.0.22:/ifs\n"
        "/mnt/my data  # 10.0.0.23:/ifs\n"
    )
    mounts = (
        "/dev/sda1 / ext4 rw 0 0\n10.0.0.21:/ifs /mnt/isilon1 nfs rw,vers=3 0 0\n"
        "10.0.0.23:/ifs /mnt/my\\040data nfs rw 0 0\n"
    )
    assert exporter.data_mounts_state(listed, mounts) == {
        "/mnt/isilon1": True, "/mnt/isilon2": False, "/mnt/my data": True}  # fmt: skip


def test_the_gpu_exporter_serves_device_files_and_nvidia_smis_readings(tmp_path, monkeypatch):
    for index in range(3):
        (tmp_path / f"nvidia{index}").touch()
    _fake(tmp_path, "nvidia-smi", SMI)
    _fake(tmp_path, "journalctl", KERNEL_LOG)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    text = _serve(exporter.GpuCollector(4, str(tmp_path / "nvidia[0-9]*"), "nvidia-smi"))
    assert "dlcluster_gpu_device_files 3.0" in text
    assert "dlcluster_gpu_expected 4.0" in text
    assert "dlcluster_gpu_nvidia_smi_up 1.0" in text
    assert 'dlcluster_gpu_utilization_ratio{gpu="0",uuid="GPU-aaaa"} 0.42' in text
    assert 'dlcluster_gpu_memory_used_bytes{gpu="0",uuid="GPU-aaaa"} 1.073741824e+09' in text
    assert 'dlcluster_gpu_power_watts{gpu="0",uuid="GPU-aaaa"} 250.52' in text
    assert 'dlcluster_gpu_ecc_uncorrected_errors{gpu="1",uuid="GPU-bbbb"} 2.0' in text
    assert 'dlcluster_gpu_utilization_ratio{gpu="1"' not in text  # [N/A]: not reported
    assert "dlcluster_gpu_kernel_log_up 1.0" in text
    assert "dlcluster_gpu_xid_errors_total 3.0" in text
    assert 'dlcluster_gpu_xid_messages_total{pci="0000:3b:00",xid="79"} 2.0' in text
    assert "dlcluster_data_mount_present" not in text  # not asked to watch them


def test_the_gpu_exporter_says_which_data_mounts_are_missing(tmp_path, monkeypatch):
    listed = tmp_path / "data_mounts"
    listed.write_text("/proc  # the kernel's, always mounted\n/mnt/no-such-mount  # x:/ifs\n")
    monkeypatch.setenv("PATH", str(tmp_path))  # neither nvidia-smi nor journalctl
    text = _serve(
        exporter.GpuCollector(0, str(tmp_path / "nvidia[0-9]*"), "nvidia-smi", str(listed))
    )
    assert 'dlcluster_data_mount_present{mountpoint="/proc"} 1.0' in text
    assert 'dlcluster_data_mount_present{mountpoint="/mnt/no-such-mount"} 0.0' in text
    assert "dlcluster_gpu_kernel_log_up 0.0" in text
    assert "dlcluster_gpu_xid_errors_total 0.0" in text  # always there: the alert's increase()


def test_without_the_driver_the_gpu_exporter_still_counts_device_files(tmp_path):
    text = _serve(exporter.GpuCollector(4, str(tmp_path / "nvidia[0-9]*"), "no-such-nvidia-smi"))
    assert "dlcluster_gpu_device_files 0.0" in text
    assert "dlcluster_gpu_nvidia_smi_up 0.0" in text
    assert "dlcluster_gpu_utilization_ratio" not in text  # nothing but what was read


def test_the_slurm_exporter_serves_nodes_jobs_and_gpus(tmp_path, monkeypatch):
    _fake(tmp_path, "scontrol", SCONTROL)
    _fake(tmp_path, "squeue", SQUEUE)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    text = _serve(exporter.SlurmCollector())
    assert "dlcluster_slurm_up 1.0" in text
    assert 'dlcluster_slurm_node_state{node="gpu-2",state="idle+drain"} 1.0' in text
    assert (
        'dlcluster_slurm_node_reason_info{node="gpu-2",'
        'reason="dlcluster-health: 3 of 4 GPU device files"} 1.0'
    ) in text
    assert 'dlcluster_slurm_node_gpus_allocated{node="gpu-1"} 2.0' in text
    assert 'dlcluster_slurm_jobs{partition="hipri",state="running"} 2.0' in text


def test_slurm_not_answering_is_said_not_hidden(tmp_path, monkeypatch):
    _fake(tmp_path, "scontrol", "", rc=1)
    _fake(tmp_path, "squeue", "", rc=1)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    text = _serve(exporter.SlurmCollector())
    assert "dlcluster_slurm_up 0.0" in text and "dlcluster_slurm_node_state{" not in text


SETTINGS = {
    "monitoring_hosts": ["head"],
    "slurm_host": "head",
    "inventory_hosts": ["head", "gpu-1", "gpu-2"],
    "scrape_interval": 15,
    "retention_days": 30,
    "receivers": [{"name": "ops", "webhook_url": "https://chat.example.org/hook"}],
    "smtp_smarthost": "",
    "smtp_from": "",
    "listen_addresses": {"head": "10.0.0.1", "gpu-1": "10.0.0.11", "gpu-2": "10.0.0.12"},
}


def test_good_settings_have_no_problem():
    assert mon.monitoring_problems(SETTINGS) == []
    # no monitoring host: the layer is skipped, only the Slurm host is still a host
    assert (
        mon.monitoring_problems({**SETTINGS, "monitoring_hosts": [], "listen_addresses": {}}) == []
    )


def test_an_unknown_host_a_long_interval_and_a_receiver_without_address_are_refused():
    problems = mon.monitoring_problems(
        {
            **SETTINGS,
            "slurm_host": "nohost",
            "scrape_interval": 3 * 86400,
            "retention_days": 2,
            "receivers": [{"name": "ops"}, {"name": "mail", "email": "ops@example.org"}],
            "listen_addresses": {**SETTINGS["listen_addresses"], "gpu-2": ""},
        }
    )
    assert problems == [
        "monitoring: monitoring_slurm_host 'nohost' is not a host of the inventory (the Slurm"
        " controller's host, whose exporter Prometheus scrapes)",
        "monitoring: gpu-2 has no address to listen on (''): set monitoring_listen_address or"
        " cluster_data_address",
        "monitoring: monitoring_scrape_interval 259200 s is longer than the retention (2 days):"
        " nothing would be kept between two scrapes",
        "monitoring: alert receiver 'ops' has no address (email or webhook_url): its alerts"
        " would go nowhere",
        "monitoring: alert receiver 'mail' sends email, but monitoring_smtp_smarthost or"
        " monitoring_smtp_from is empty",
    ]


def test_a_watched_isilon_needs_an_account_to_read_with():
    good = {**SETTINGS, "onefs_addresses": ["10.0.0.21"], "onefs_user": "monitor",
            "onefs_password_set": True}  # fmt: skip
    assert mon.monitoring_problems(good) == []
    assert mon.monitoring_problems({**good, "onefs_password_set": False}) == [
        "monitoring: the Isilon cluster is watched (monitoring_onefs_addresses) but"
        " monitoring_onefs_user or monitoring_onefs_password is empty"
    ]
    assert mon.monitoring_problems({**good, "onefs_addresses": [], "onefs_user": ""}) == []


def test_targets_name_each_host_as_the_inventory_does():
    hostvars = {
        "head": {"cluster_data_address": "10.0.0.1"},
        "gpu-1": {"cluster_data_address": "10.0.0.11"},
        "gpu-2": {"cluster_data_address": "10.0.0.12", "monitoring_listen_address": "fd00::12"},
    }
    targets = mon.monitoring_targets(
        ["head", "gpu-1", "gpu-2"], hostvars, ["gpu-1", "gpu-2"], "head",
        {"node": 9100, "gpu": 9835, "slurm": "9341"},
    )  # fmt: skip
    assert targets["node"] == [
        {"instance": "head", "address": "10.0.0.1:9100"},
        {"instance": "gpu-1", "address": "10.0.0.11:9100"},
        {"instance": "gpu-2", "address": "[fd00::12]:9100"},
    ]
    assert [t["instance"] for t in targets["gpu"]] == ["gpu-1", "gpu-2"]
    assert targets["slurm"] == [{"instance": "head", "address": "10.0.0.1:9341"}]


# The role's defaults of what the plan reads from each host (defaults/main.yml).
PLAN_DEFAULTS = {
    "monitoring_server_groups": ["head", "compute"],
    "monitoring_slurm_host": "head-1",
    "monitoring_prometheus_port": 9090,
    "monitoring_alertmanager_port": 9093,
    "monitoring_node_exporter_port": 9100,
    "monitoring_gpu_exporter_port": 9835,
    "monitoring_slurm_exporter_port": 9341,
    "monitoring_onefs_exporter_port": 9342,
    "monitoring_onefs_addresses": [],
    "monitoring_onefs_api_port": 8080,
}
PLAN_GROUPS = {
    "all": ["head-1", "gpu-1", "gpu-2", "isi-1"],
    "head": ["head-1"],
    "compute": ["gpu-1", "gpu-2"],
    "monitoring": ["head-1"],
    "isilon": ["isi-1"],
}


def _plan(hostvars, **settings):
    return mon.monitoring_plan(
        {"server": "head-1", "monitoring_group": "monitoring", "groups": PLAN_GROUPS,
         "gpu_hosts": PLAN_GROUPS["compute"], "defaults": PLAN_DEFAULTS, **settings},
        hostvars,
    )  # fmt: skip


def _targets(plan):
    return {
        job["job_name"]: [(t["instance"], t["address"]) for t in job["targets"]]
        for job in plan["scrape_jobs"]
    }


def test_the_plan_is_the_monitoring_hosts_view_of_the_cluster():
    """Each watched host scraped where its own exporters listen (its address, its ports,
    else the role's defaults); the monitoring host's own settings decide what is watched,
    the Slurm host and the Isilon cluster; no secret in it."""
    hostvars = {
        "head-1": {"cluster_data_address": "10.0.0.1", "monitoring_prometheus_port": "9091",
                   "monitoring_onefs_addresses": ["10.0.0.21", "fd00::22"],
                   "monitoring_onefs_user": "monitor-ro", "monitoring_onefs_password": "s3cret"},
        "gpu-1": {"cluster_data_address": "10.0.0.11"},
        "gpu-2": {"cluster_data_address": "10.0.0.12", "monitoring_listen_address": "fd00::12",
                  "monitoring_node_exporter_port": 9200},
        "isi-1": {"cluster_data_address": "10.0.0.21"},
    }  # fmt: skip
    plan = _plan(hostvars)
    assert (plan["server"], plan["watched"], plan["slurm_host"]) == (
        "head-1", ["head-1", "gpu-1", "gpu-2"], "head-1")  # fmt: skip
    assert _targets(plan) == {
        "prometheus": [("head-1", "10.0.0.1:9091")],
        "alertmanager": [("head-1", "10.0.0.1:9093")],
        "node": [("head-1", "10.0.0.1:9100"), ("gpu-1", "10.0.0.11:9100"),
                 ("gpu-2", "[fd00::12]:9200")],
        "gpu": [("gpu-1", "10.0.0.11:9835"), ("gpu-2", "[fd00::12]:9835")],
        "slurm": [("head-1", "10.0.0.1:9341")],
        "onefs": [("head-1", "10.0.0.1:9342")],
    }  # fmt: skip
    assert plan["listen"] == {"prometheus": "10.0.0.1:9091", "alertmanager": "10.0.0.1:9093",
                              "onefs": "10.0.0.1:9342"}  # fmt: skip
    assert plan["url"] == "http://10.0.0.1:9091"
    assert plan["onefs_urls"] == ["https://10.0.0.21:8080", "https://[fd00::22]:8080"]
    assert "s3cret" not in json.dumps(plan) and "monitor-ro" not in json.dumps(plan)
    # the monitoring host's groups: the GPU servers only, then itself; no Isilon, no job
    plan = _plan({**hostvars, "head-1": {"cluster_data_address": "10.0.0.1",
                                         "monitoring_server_groups": ["compute"]}})  # fmt: skip
    assert plan["watched"] == ["gpu-1", "gpu-2", "head-1"]
    assert list(_targets(plan)) == ["prometheus", "alertmanager", "node", "gpu", "slurm"]
    assert (plan["listen"]["onefs"], plan["onefs_urls"]) == ("", [])


def test_without_a_monitoring_host_nothing_is_planned():
    plan = _plan({}, server="")
    assert (plan["server"], plan["watched"], plan["scrape_jobs"], plan["url"]) == ("", [], [], "")
    assert mon.monitoring_watched(PLAN_GROUPS, ["head", "nogroup", "compute"], "monitoring") == [
        "head-1", "gpu-1", "gpu-2"]  # fmt: skip


def test_the_plan_made_on_the_control_host_is_what_the_monitoring_host_writes(tmp_path):
    """Planned from the control host (the early phase, playbooks/preflight.yml), published
    on the monitoring host, whose offline plan (render.yml) writes prometheus.yml and
    dlcluster.json from it. The monitoring host sets its own node_exporter port: gpu-1,
    which sets none, is still scraped at the role's default, where its exporter listens."""
    inventory = tmp_path / "inventory.json"
    head = local_host(
        cluster_data_address="10.0.0.1",
        monitoring_node_exporter_port=9200,
        monitoring_onefs_user="monitor-ro",
        monitoring_onefs_password="s3cret-onefs",
    )
    inventory.write_text(
        json.dumps(
            {
                "all": {
                    "children": {
                        "head": {"hosts": {"head-1": head}},
                        "monitoring": {"hosts": {"head-1": {}}},
                        "compute": {
                            "hosts": {
                                "gpu-1": local_host(cluster_data_address="10.0.0.11"),
                                "gpu-2": local_host(monitoring_listen_address="fd00::12"),
                            }
                        },
                        "isilon": {"hosts": {"isi-1": {"cluster_data_address": "10.0.0.21"}}},
                    }
                },
                "_meta": {"hostvars": {}},
            }
        )
    )
    result = run_playbook(
        inventory, ROOT / "tests" / "unit" / "playbooks" / "monitoring_plan.yml",
        {"out": str(tmp_path)},
    )  # fmt: skip
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
    plan_text = (tmp_path / "plan.json").read_text()
    assert "s3cret-onefs" not in plan_text and "monitor-ro" not in plan_text
    plan = json.loads(plan_text)
    written = tmp_path / "head-1" / "etc" / "prometheus"
    config = yaml.safe_load((written / "prometheus.yml").read_text())
    assert [
        {"job_name": job["job_name"],
         "targets": [{"instance": c["labels"]["instance"], "address": c["targets"][0]}
                     for c in job["static_configs"]]}
        for job in config["scrape_configs"]
    ] == plan["scrape_jobs"]  # fmt: skip
    assert config["alerting"]["alertmanagers"][0]["static_configs"][0]["targets"] == [
        plan["listen"]["alertmanager"]]  # fmt: skip
    assert json.loads((written / "dlcluster.json").read_text()) == {"url": plan["url"]}
    assert _targets(plan)["node"] == [("head-1", "10.0.0.1:9200"), ("gpu-1", "10.0.0.11:9100"),
                                      ("gpu-2", "[fd00::12]:9100")]  # fmt: skip
    assert plan["onefs_urls"] == ["https://10.0.0.21:8080"]


def test_the_files_as_host_state_reads_them():
    assert mon.monitoring_host_state_files(
        [{"dest": "/etc/default/x", "src": "x.j2", "service": "x"},
         {"dest": "/usr/local/sbin/e", "file": "e", "mode": "0755", "service": ""},
         {"dest": "/etc/default/s", "src": "s.j2", "mode": "0600", "secret": True,
          "checksum": "da39a3ee", "service": "s"}]
    ) == [
        {"path": "/etc/default/x", "owner": "root", "group": "root", "mode": "0644",
         "template": "x.j2"},
        {"path": "/usr/local/sbin/e", "owner": "root", "group": "root", "mode": "0755",
         "source": "e"},
        {"path": "/etc/default/s", "owner": "root", "group": "root", "mode": "0600",
         "checksum": "da39a3ee"},  # a secret: its content stays on the controller
    ]  # fmt: skip


def test_the_services_as_host_state_reads_them_with_the_files_each_reads():
    """Running, enabled, and started after the files it reads last changed: each service
    its own files, dlcluster's exporters the exporter program too; files without a service
    (the program itself, the console pages) name none."""
    exporter = "/usr/local/sbin/dlcluster-exporter"
    assert mon.monitoring_host_state_services(
        [{"dest": "/etc/default/prometheus-node-exporter", "service": "prometheus-node-exporter"},
         {"dest": exporter, "service": ""},
         {"dest": "/etc/systemd/system/dlcluster-gpu-exporter.service",
          "service": "dlcluster-gpu-exporter"},
         {"dest": "/etc/prometheus/prometheus.yml", "service": "prometheus"},
         {"dest": "/etc/prometheus/dlcluster-alerts.yml", "service": "prometheus"},
         {"dest": "/etc/prometheus/consoles/isilon.html", "service": ""}],
        exporter,
    ) == [
        {"name": "prometheus-node-exporter", "state": "started", "enabled": True,
         "reads": ["/etc/default/prometheus-node-exporter"]},
        {"name": "dlcluster-gpu-exporter", "state": "started", "enabled": True,
         "reads": ["/etc/systemd/system/dlcluster-gpu-exporter.service", exporter]},
        {"name": "prometheus", "state": "started", "enabled": True,
         "reads": ["/etc/prometheus/prometheus.yml", "/etc/prometheus/dlcluster-alerts.yml"]},
    ]  # fmt: skip


def test_the_onefs_exporter_reads_the_simulated_cluster_over_tls(tmp_path):
    """dlcluster's OneFS exporter against the lab's OneFS simulator in-process: basic
    authentication, the CA file, the first address that answers; every family from
    known samples and files."""
    from test_onefs_sim_statistics import MIB, Node, two_busy_nodes
    from throwaway_tls import self_signed

    cert = tuple(str(path) for path in self_signed(tmp_path))
    node = Node(tmp_path, cert=cert)
    try:
        two_busy_nodes(node.stats, time.time())
        (node.ifs / "data").mkdir()
        (node.ifs / "data" / "shard-0").write_bytes(b"x" * MIB)
        dead = "https://127.0.0.1:9"  # nothing listens: the exporter goes on to the next
        collector = exporter.OnefsCollector([dead, node.url], "admin", "lab-secret", cert[0])
        text = _serve(collector)
        wrong = _serve(exporter.OnefsCollector([node.url], "admin", "wrong", cert[0]))
    finally:
        node.stop()
    assert "dlcluster_onefs_up 1.0" in text
    assert 'dlcluster_onefs_ifs_bytes{kind="total"}' in text
    assert 'dlcluster_onefs_node_cpu_ratio{mode="user",node="1"} 0.3' in text
    assert 'dlcluster_onefs_node_cpu_ratio{mode="idle",node="2"} 0.8' in text
    assert 'dlcluster_onefs_node_bytes_per_second{direction="out",node="1"} 2.097152e+06' in text
    assert 'dlcluster_onefs_node_nfs_operations_per_second{node="1"} 125.0' in text
    assert 'dlcluster_onefs_nfs_operations_per_second{op="read"} 110.0' in text
    assert 'dlcluster_onefs_node_health{node="3"} 2.0' in text  # no sample: down
    assert 'node="3",mode=' not in text and 'mode="user",node="3"' not in text
    # the unplaced file lives where `anywhere` puts it (the SSD pool), on its HDDs
    used = 'dlcluster_onefs_pool_bytes{kind="used",pool="f800_48tb-ssd_256gb",type="nodepool"}'
    assert f"{used} 1.048576e+06" in text
    assert 'dlcluster_onefs_pool_used_ratio{pool="f800_48tb-ssd_256gb",type="nodepool"} 0.0' in text
    assert "dlcluster_onefs_up 0.0" in wrong and "dlcluster_onefs_ifs_bytes{" not in wrong


def test_api_addresses_that_hang_cost_one_budget_together_not_one_each():
    """Three addresses that accept and never answer: the scrape says the API is down
    within the collector's budget (all tries together), not after a timeout per address."""
    import socket

    listeners = [socket.create_server(("127.0.0.1", 0)) for _ in range(3)]
    try:
        urls = [f"https://127.0.0.1:{s.getsockname()[1]}" for s in listeners]
        start = time.monotonic()
        text = _serve(exporter.OnefsCollector(urls, "admin", "x", None, budget=1.0))
        took = time.monotonic() - start
    finally:
        for listener in listeners:
            listener.close()
    assert "dlcluster_onefs_up 0.0" in text
    assert took < 2.0, took  # one budget (1 s), where one timeout per address took 3 s
