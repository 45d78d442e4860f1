"""The validate role's result records (filter_plugins/validate.py) and its report."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location("validate", ROOT / "filter_plugins" / "validate.py")
validate = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(validate)
_SPEC = importlib.util.spec_from_file_location(
    "isilon_mounts_verify", ROOT / "filter_plugins" / "isilon_mounts_verify.py"
)
storage = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(storage)
_SPEC = importlib.util.spec_from_file_location(
    "nics_verify", ROOT / "filter_plugins" / "nics_verify.py"
)
network = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(network)

IPERF = {"end": {"sum_received": {"bits_per_second": 9.41e9}}}


def test_storage_outage_names_the_address_and_every_host_mounting_it():
    def reader(host, mounts):
        out = {"method": "libnfs", "mounts": mounts}
        return storage.isilon_mounts_reader_records({"stdout": json.dumps(out)}, host, 100)

    slow = {"mount": "/mnt/isilon2", "address": "10.0.0.2", "files": 1, "bytes": 10}
    slow.update(seconds=1.0, mbps=0.1)
    records = reader(
        "gpu-1",
        [{"mount": "/mnt/isilon1", "address": "10.0.0.3", "error": "nfs-ls: refused"}, slow],
    ) + reader("gpu-2", [{"mount": "/mnt/isilon4", "address": "10.0.0.3", "error": "refused"}])
    assert validate.validate_storage_outages(records) == [
        "Isilon address 10.0.0.3 did not serve the export to gpu-1 (/mnt/isilon1), "
        "gpu-2 (/mnt/isilon4); to plan around it until it is repaired, re-run "
        "playbooks/storage.yml --tags mounts with isilon_mounts_unavailable_addresses "
        "including 10.0.0.3"
    ]
    assert validate.validate_storage_outages(records[1:2]) == []  # slow is not down


def test_report_has_a_table_per_check_and_a_plot(tmp_path):
    results = {
        "cluster": "lab",
        "results": [
            network.nics_iperf_record({"stdout": json.dumps(IPERF)}, "a", 1, "b"),
            # a proof record as the nvidia_driver role's proof writes it without a GPU
            {
                **network.nics_iperf_record({"stdout": json.dumps(IPERF)}, "a", 1, "b"),
                "check": "gpus",
                "target": "GPUs",
                "value": None,
                "unit": "",
                "threshold": None,
                "status": "skipped",
                "reason": "no NVIDIA GPU (PCI vendor 0x10de) on this host",
            },
        ],
    }
    source = tmp_path / "results.json"
    source.write_text(json.dumps(results))
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "roles/validate/files/validate_report.py"),
            str(source),
            str(tmp_path),
        ],
        check=True,
        capture_output=True,
    )
    report = (tmp_path / "report.md").read_text()
    assert "## Network throughput (iperf3)" in report
    assert "| a | b | 9.41 Gbit/s | 1 | pass |" in report
    assert "| a | GPUs |  |  | skipped | no NVIDIA GPU" in report
    assert (tmp_path / "throughput.png").read_bytes()[:4] == b"\x89PNG"


def test_the_plot_keeps_one_unit_per_panel():
    """Network Gbit/s and storage MB/s never share an axis: each unit has its panel."""
    spec = importlib.util.spec_from_file_location(
        "validate_report", ROOT / "roles/validate/files/validate_report.py"
    )
    report = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(report)
    records = [
        {"check": "iperf3", "host": "a", "target": "b", "value": 9.4, "unit": "Gbit/s"},
        {"check": "reader", "host": "a", "target": "/mnt/isilon1", "value": 2500, "unit": "MB/s"},
        {"check": "fio", "host": "a", "target": "fio", "value": 900, "unit": "MB/s"},
        {"check": "sizing", "host": "a", "target": "x", "value": 700, "unit": "MB/s needed"},
        {"check": "gpus", "host": "a", "target": "GPUs", "value": None, "unit": ""},
    ]
    grouped = report.panels({"cluster": "lab", "results": records})
    assert {unit: [r["check"] for r in rows] for unit, rows in grouped.items()} == {
        "Gbit/s": ["iperf3"],
        "MB/s": ["reader", "fio"],
    }


def test_apptainer_is_its_version_or_skipped_with_the_roles_reason():
    ok = validate.validate_apptainer_result(
        {"apptainer_installed": True, "apptainer_version_found": "1.4.5"}, "n1"
    )
    assert ok["status"] == "pass" and ok["value"] == "1.4.5"
    absent = validate.validate_apptainer_result(
        {"apptainer_installed": False, "apptainer_absent_reason": "Apptainer not installed: x"},
        "n1",
    )
    assert absent["status"] == "skipped" and absent["reason"] == "Apptainer not installed: x"
    no_layer = validate.validate_apptainer_result({}, "n1")
    assert no_layer["status"] == "skipped" and "no head node" in no_layer["reason"]


LAUNCH = {
    "servers": ["gpu-1", "gpu-2"],
    "ranks": 16,
    "ran": True,
    "rc": 0,
    "images_per_sec": 5731.0,
    "rates": [5731.0],
    "stand_in": "",
    "output_tail": "total images/sec: 5731.00",
}
FLUSHED = {
    "required": True,
    "servers": {"gpu-1": {"rc": 0}, "gpu-2": {"rc": 0}},
    "isilon": {"rc": 0, "stdout": ""},
}
PAPER = {"images_per_sec": 5844, "source": "seed 000 Table 3, PyTorch ResNet-50, 8 GPUs"}


def test_a_benchmark_run_is_recorded_next_to_the_papers_figure():
    record = validate.validate_benchmark_result(LAUNCH, "gpu-1", 1, 3, 0, PAPER, FLUSHED)
    assert record["target"] == "run 1 of 3: 16 ranks on 2 server(s)"
    assert (record["value"], record["unit"], record["status"]) == (5731.0, "images/s", "pass")
    assert "paper: 5,844 images/s (seed 000 Table 3" in record["reason"]
    assert (
        "server caches flushed" in record["reason"] and "Isilon caches flushed" in record["reason"]
    )
    slow = validate.validate_benchmark_result(LAUNCH, "gpu-1", 1, 1, 6000, PAPER, FLUSHED)
    assert slow["status"] == "fail"


def test_a_run_whose_flush_failed_fails_only_when_flushes_are_required():
    refused = {
        **FLUSHED,
        "servers": {"gpu-1": {"rc": 0}, "gpu-2": {"rc": 2, "stderr": "Read-only file system"}},
    }
    failed = validate.validate_benchmark_result(LAUNCH, "gpu-1", 1, 1, 0, {}, refused)
    assert failed["status"] == "fail"
    assert "server caches not flushed (gpu-2: Read-only file system)" in failed["reason"]
    allowed = validate.validate_benchmark_result(
        LAUNCH, "gpu-1", 1, 1, 0, {}, {**refused, "required": False}
    )
    assert allowed["status"] == "pass" and "not required" in allowed["reason"]
    isilon = {**FLUSHED, "isilon": {"rc": 255, "stderr": "Permission denied (publickey)"}}
    record = validate.validate_benchmark_result(LAUNCH, "gpu-1", 1, 1, 0, {}, isilon)
    assert record["status"] == "fail" and "Permission denied" in record["reason"]
    off = {"required": True, "servers": None, "isilon": None}
    record = validate.validate_benchmark_result(LAUNCH, "gpu-1", 1, 1, 0, {}, off)
    assert record["status"] == "pass"
    assert "validate_benchmark_flush_servers is false" in record["reason"]
    assert "validate_benchmark_flush_isilon is false" in record["reason"]


def test_a_launch_that_failed_timed_out_or_printed_no_rate_fails_and_check_mode_skips():
    failed = validate.validate_benchmark_result(
        {**LAUNCH, "rc": 1, "output_tail": "a\nround_robin_mpi: no MPI rank"},
        "g",
        1,
        1,
        0,
        {},
        FLUSHED,
    )
    assert failed["status"] == "fail" and "no MPI rank" in failed["reason"]
    timed_out = validate.validate_benchmark_result({**LAUNCH, "rc": 124}, "g", 1, 1, 0, {}, FLUSHED)
    assert "stopped by the launch timeout" in timed_out["reason"]
    silent = validate.validate_benchmark_result(
        {**LAUNCH, "images_per_sec": None, "rates": []}, "g", 1, 1, 0, {}, FLUSHED
    )
    assert silent["status"] == "fail" and "total images/sec" in silent["reason"]
    check = validate.validate_benchmark_result({**LAUNCH, "ran": False}, "g", 1, 1, 0, {}, FLUSHED)
    assert check["status"] == "skipped"


def test_a_stand_in_workload_says_so_in_the_record():
    stand_in = {**LAUNCH, "stand_in": "stand-in workload: not TensorFlow and no GPU"}
    record = validate.validate_benchmark_result(stand_in, "g", 1, 1, 0, {}, FLUSHED)
    assert record["reason"].startswith("stand-in workload: not TensorFlow")


# scontrol --oneliner show job, as Slurm 22.05 prints a stopped 2-GPU portal session.
SERIES = [
    {"item": {"name": "cpu", "title": "CPU utilization", "unit": "%", "expr": "cpu_expr"},
     "status": 200, "json": {"status": "success", "data": {"resultType": "matrix", "result": [
         {"metric": {"instance": "gpu-1"}, "values": [[1700000000.0, "12.5"], [1700000015, "80"]]},
         {"metric": {"instance": "gpu-2"}, "values": [[1700000000, "3.25"]]}]}}},
    {"item": {"name": "gpu", "title": "GPU utilization", "unit": "%", "expr": "gpu_expr"},
     "status": 400, "msg": "Status code was 400",
     "json": {"status": "error", "error": "parse error at char 3"}},
]  # fmt: skip


def test_the_benchmarks_series_are_recorded_for_the_figure_and_failures_said():
    cpu, gpu = validate.validate_benchmark_series(SERIES, "gpu-1", "http://10.0.0.1:9090")
    assert cpu["check"] == "benchmark_series" and cpu["target"] == "CPU utilization"
    assert cpu["series"] == {"gpu-1": [[1700000000, 12.5], [1700000015, 80.0]],
                             "gpu-2": [[1700000000, 3.25]]}  # fmt: skip
    assert (cpu["status"], cpu["unit"], cpu["reason"]) == ("info", "%", "2 series over the runs")
    assert gpu["status"] == "skipped" and "parse error at char 3" in gpu["reason"]
    (none,) = validate.validate_benchmark_series([], "gpu-1", "")
    assert none["status"] == "skipped" and "no monitoring host" in none["reason"]
    why = "head publishes no Prometheus URL (/etc/prometheus/dlcluster.json: file not found)"
    (unpublished,) = validate.validate_benchmark_series([], "gpu-1", "", why)
    assert unpublished["reason"] == f"no Prometheus to ask: {why}"


def test_the_report_draws_the_servers_during_the_benchmark(tmp_path):
    records = validate.validate_benchmark_series(SERIES, "gpu-1", "http://p:9090")
    results = {"cluster": "lab", "results": records}
    source = tmp_path / "results.json"
    source.write_text(json.dumps(results))
    script = str(ROOT / "roles/validate/files/validate_report.py")
    subprocess.run([sys.executable, script, str(source), str(tmp_path)], check=True)
    report = (tmp_path / "report.md").read_text()
    assert "## The servers during the benchmark (Prometheus)" in report
    assert "![the servers during the benchmark](benchmark.png)" in report
    assert (tmp_path / "benchmark.png").read_bytes()[:4] == b"\x89PNG"
