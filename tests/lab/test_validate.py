"""playbooks/validate.yml on the lab: every supported check, the report, and failure."""

from __future__ import annotations

import json

from conftest import ROOT, docker_host, load_lab_groups, run_playbook

REPORT = ROOT / "lab" / ".state" / "reports" / "validate"


def _failures(output: str) -> str:
    """What a failed run says about its failed tasks (each `fatal:` or `failed:` line and
    the lines after it), before the recap that the output's tail shows."""
    lines = output.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith(("fatal:", "failed:"))]
    return "\n".join("\n".join(lines[i : i + 12]) for i in starts)[-4000:]


def test_validate_reports_every_check_and_skips_only_with_a_reason():
    result = run_playbook("playbooks/validate.yml")
    assert result.returncode == 0, _failures(result.stdout) + "\n" + result.stdout[-3000:]
    data = json.loads((REPORT / "results.json").read_text())
    checks = {r["check"] for r in data["results"]}
    assert checks == {
        "mtu",
        "mpi",
        "gpus",
        "infiniband",
        "nccl",
        "slurm",
        "apptainer",
        "iperf3",
        "iperf2",
        "fio",
        "reader",
        "sizing",
    }
    for record in data["results"]:
        assert record["status"] in ("pass", "skipped", "info"), record
        if record["status"] == "skipped":
            assert record["reason"], record
    # iperf3 to, and iperf 2 from, every Isilon address (the lab's nodes run both servers)
    isilon = {h["lab_data_address"] for h in load_lab_groups()["isilon"].values()}
    for check in ("iperf3", "iperf2"):
        toward = [r for r in data["results"] if r["check"] == check and r["target"] in isilon]
        assert len(toward) == len(isilon) * len(load_lab_groups()["compute"]), (check, toward)
        assert all(r["value"] > 0 for r in toward), toward
    readers = [r for r in data["results"] if r["check"] == "reader"]
    # every compute host mounts each of the 4 Isilon addresses once
    hosts = load_lab_groups()["compute"]
    assert len(readers) == 4 * len(hosts) and all(r["value"] > 0 for r in readers)
    # Slurm: every node with its 4 GPUs as gres, and the test job ran on each of them
    slurm = {r["host"]: r for r in data["results"] if r["check"] == "slurm"}
    assert {h: slurm[h]["value"] for h in hosts} == {h: 4 for h in hosts}
    test_job = slurm[sorted(load_lab_groups()["head"])[0]]
    assert test_job["status"] == "pass" and test_job["value"] == len(hosts), test_job
    # the lab installs no Apptainer (no source it may reach): said per server, with why
    apptainer = [r for r in data["results"] if r["check"] == "apptainer"]
    assert {r["host"] for r in apptainer} == set(hosts)
    assert all("apptainer_source=none" in r["reason"] for r in apptainer), apptainer
    # no HCA and no GPU in the lab: the InfiniBand check per server and the NCCL
    # all-reduce are skipped, each saying what it found
    infiniband = [r for r in data["results"] if r["check"] == "infiniband"]
    assert {r["host"] for r in infiniband} == set(hosts), infiniband
    assert all(
        r["status"] == "skipped"
        and r["reason"].startswith("no RDMA device on this host (ibv_devinfo: ")
        for r in infiniband
    ), infiniband
    (nccl,) = [r for r in data["results"] if r["check"] == "nccl"]
    assert nccl["status"] == "skipped" and "no GPU on" in nccl["reason"], nccl
    assert nccl["reason"].endswith(": NCCL all-reduce not run"), nccl
    assert all(h in nccl["reason"] for h in hosts), nccl
    report = (REPORT / "report.md").read_text()
    assert "## InfiniBand HCA ports (ibstat, ibv_devinfo)" in report
    assert "## NCCL all-reduce across the servers (nccl-tests)" in report
    assert "## Slurm: partitions, nodes, GPUs and a test job" in report
    assert "## Apptainer on the servers" in report
    assert "## Storage: reader per mount" in report
    assert "a local directory: this host has no kernel NFS client" in report
    assert (REPORT / "throughput.png").read_bytes()[:4] == b"\x89PNG"


def test_an_impossible_threshold_and_a_drained_node_each_fail_the_run_naming_them():
    """Validation reports every check before it fails: one run with a throughput nothing
    reaches (the ring of servers, measured briefly) and a Slurm node drained by hand must
    name both."""
    node = sorted(load_lab_groups()["compute"])[-1]
    head = docker_host(sorted(load_lab_groups()["head"])[0])
    extra = {
        "nics_verify_iperf_gbps_min": 10000,
        "validate_checks": ["network", "slurm"],
        "nics_verify_iperf_isilon": False,
        "nics_verify_iperf_seconds": 1,
    }
    head.check_output(f"scontrol update nodename={node} state=drain reason=lab-validate")
    try:
        result = run_playbook("playbooks/validate.yml", "-e", json.dumps(extra))
    finally:
        head.check_output(f"scontrol update nodename={node} state=resume")
    assert result.returncode != 0
    summary = " ".join(result.stdout.split())
    assert "Validation failed" in summary, result.stdout[-3000:]
    assert "(threshold 10000)" in summary
    assert f"slurm {node} -> partitions" in summary and "state drained" in summary


def test_the_papers_benchmark_launch_runs_and_records_images_per_sec():
    """validate's opt-in benchmark: the papers' flushes, then ngc_container's training
    launch (mpirun from the first container, round_robin_mpi.py, the stand-in workload
    reading each rank's data mount through NFS), one record per run in images/s."""
    result = run_playbook(
        "playbooks/validate.yml",
        "-e",
        json.dumps({"validate_checks": ["benchmark"], "validate_benchmark_runs": 2}),
    )
    assert result.returncode == 0, result.stdout[-3000:]
    data = json.loads((REPORT / "results.json").read_text())
    runs = [r for r in data["results"] if r["check"] == "benchmark"]
    compute = load_lab_groups()["compute"]
    assert [r["target"] for r in runs] == [
        f"run {i} of 2: {2 * len(compute)} ranks on {len(compute)} server(s)" for i in (1, 2)
    ]
    for run in runs:
        assert run["status"] == "pass" and run["unit"] == "images/s" and run["value"] > 0, run
        assert "stand-in workload: not TensorFlow" in run["reason"], run
        # the lab's containers cannot drop the page cache: attempted, refused, said
        assert "server caches not flushed" in run["reason"], run
        assert "Read-only file system" in run["reason"], run
        assert (
            "Isilon caches not flushed (validate_benchmark_flush_isilon is false)" in run["reason"]
        )
    report = (REPORT / "report.md").read_text()
    assert "## The papers' benchmark launch, next to the paper's figure" in report
    # the servers during the runs, from the monitoring layer's Prometheus, as a figure
    series = {r["name"]: r for r in data["results"] if r["check"] == "benchmark_series"}
    assert set(series) == {"gpu", "cpu", "memory", "network_in", "network_out"}
    servers = set(compute) | set(load_lab_groups()["head"])
    assert set(series["cpu"]["series"]) >= servers, series["cpu"]
    assert set(series["gpu"]["series"]) == set(compute)  # the stand-in readings
    assert all(len(points) > 2 for points in series["cpu"]["series"].values())
    assert "![the servers during the benchmark](benchmark.png)" in report
    assert (REPORT / "benchmark.png").stat().st_size > 20_000
    # the inter-switch ports' counters before and after the runs, read from the lab's 7060
    # container over SSH (seed 000 Appendix F tip 2); the lab's switches forward nothing
    links = {r["target"]: r for r in data["results"] if r["check"] == "inter_switch"}
    assert set(links) == {"Ethernet31/1", "Ethernet32/1"}, links
    for link in links.values():
        assert link["host"] == "lab-7060" and link["status"] == "info", link
        assert link["value"] == 0 and link["unit"] == "packets during the runs", link
    assert "## Inter-switch links during the benchmark (packet counters before and after)" in report


def test_a_benchmark_whose_caches_cannot_be_flushed_fails_when_flushes_are_required():
    result = run_playbook(
        "playbooks/validate.yml",
        "-e",
        json.dumps({"validate_checks": ["benchmark"], "validate_benchmark_require_flush": True}),
    )
    assert result.returncode != 0
    summary = " ".join(result.stdout.split())
    assert "Validation failed" in summary and "server caches not flushed" in summary
