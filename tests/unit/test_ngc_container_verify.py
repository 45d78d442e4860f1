"""The ngc_container role's proof, its NCCL part (filter_plugins/ngc_container_verify.py):
when it runs, and what an nccl-tests all-reduce printed. The outputs follow nccl-tests'
src/common.cu and NCCL's log formats (NVIDIA/nccl 2.21.5: src/init.cc,
src/transport/net_ib); the numbers are made up."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location(
    "ngc_container_verify", ROOT / "filter_plugins" / "ngc_container_verify.py"
)
nccl = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(nccl)

SERVERS = ["dgx-01", "dgx-02"]
IB_DEVICES = " ".join(
    f"[{i}]{name}:1/IB"
    for i, name in enumerate(["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_6", "mlx5_7"])
)


def row(size: int, oop: tuple[str, str, str], inp: tuple[str, str, str]) -> str:
    """A table row as nccl-tests prints it (size, count, type, redop, root, then time,
    algbw, busbw, #wrong out of place and in place)."""
    return (
        f"{size:>12} {size // 4:>13} {'float':>9} {'sum':>7} {-1:>7}"
        f" {oop[0]:>8} {oop[1]:>7} {oop[2]:>7} {0:>6} {inp[0]:>8} {inp[1]:>7} {inp[2]:>7} {0:>6}"
    )


TABLE = "\n".join(
    [
        "#",
        "#" + " " * 62 + "out-of-place" + " " * 23 + "in-place",
        "#       size         count      type   redop    root"
        "     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)"
        "            (us)  (GB/s)  (GB/s)",
        row(8, ("41.20", "0.00", "0.00"), ("40.95", "0.00", "0.00")),
        row(1048576, ("160.3", "6.54", "12.27"), ("158.9", "6.60", "12.37")),
        row(4294967296, ("46102", "93.16", "174.68"), ("46050", "93.27", "174.88")),
        "# Out of bounds values : 0 OK",
        "# Avg bus bandwidth    : 62.3517 ",  # "%g %s" with no NCCL_TESTS_MIN_BW
        "#",
        "",
    ]
)


def nccl_log(host: str, network: str = "IB") -> str:
    """What one rank's NCCL logs at INFO about its network."""
    prefix = f"{host}:4242:4242 [0] NCCL INFO"
    if network == "IB":
        net = f"{prefix} NET/IB : Using {IB_DEVICES} [RO]; OOB ib0:10.10.0.1<0>\n"
    else:
        net = (
            f"{prefix} NET/IB : No device found.\n"
            f"{prefix} NET/Socket : Using [0]enp226s0:10.0.0.2<0>\n"
        )
    return (
        f"{prefix} Bootstrap : Using enp226s0:10.0.0.1<0>\n{net}{prefix} Using network {network}\n"
    )


def head(ranks: int = 16) -> str:
    return (
        "# nThread 1 nGpus 1 minBytes 8 maxBytes 4294967296 step: 2(factor) warmup iters: 5"
        " iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n"
        + "".join(
            f"#  Rank {r:2d} Group  0 Pid {4242 + r} on {SERVERS[r // 8]} device  {r % 8}"
            " [0x07] NVIDIA A100-SXM4-40GB\n"
            for r in range(ranks)
        )
    )


GOOD = head() + nccl_log("dgx-01") + nccl_log("dgx-02") + TABLE
FALLBACK = head() + nccl_log("dgx-01") + nccl_log("dgx-02", network="Socket") + TABLE
PLAN = {"run": True, "status": "", "reason": "", "ranks_per_server": 8}


def result(stdout: str, rc: int = 0, stderr: str = "") -> dict:
    return {"rc": rc, "stdout": stdout, "stderr": stderr, "changed": False}


def record(output: str, minimum: float = 0, rc: int = 0, servers=SERVERS) -> dict:
    records = nccl.ngc_container_nccl_records(result(output, rc), PLAN, servers, "dgx-01", minimum)
    assert len(records) == 1
    return records[0]


def hostvars(gpus: dict[str, int], hcas: dict[str, list[str]]) -> dict:
    """What the play knows of each server: its GPUs (cluster_host's fact) and the
    registered listing of /sys/class/infiniband (rc 2 where it does not exist)."""
    return {
        name: {
            "ansible_facts": {
                "nvidia_gpu_pci_addresses": [f"0000:{i:02x}:00.0" for i in range(gpus[name])]
            },
            "_ngc_container_verify_rdma": {
                "rc": 0 if hcas[name] else 2,
                "stdout_lines": hcas[name],
            },
        }
        for name in gpus
    }


def test_the_average_bus_bandwidth_is_read_and_judged_against_the_threshold():
    passed = record(GOOD, minimum=50)
    assert (passed["check"], passed["status"]) == ("nccl", "pass")
    assert (passed["value"], passed["unit"], passed["threshold"]) == (
        62.3517,
        "GB/s bus bandwidth (average)",
        50,
    )
    assert passed["target"] == "all_reduce_perf, 8 rank(s) on each of 2 server(s)"
    assert "NET/IB: mlx5_0:1/IB, mlx5_1:1/IB" in passed["reason"]
    assert "largest 174.88 GB/s at 4294967296 bytes" in passed["reason"]
    slow = record(GOOD, minimum=100)
    assert slow["status"] == "fail"
    assert slow["reason"].startswith("average bus bandwidth 62.3517 GB/s, below 100")


def test_a_run_that_fell_back_to_sockets_fails_whatever_its_bandwidth():
    fallback = record(FALLBACK, minimum=0)
    assert fallback["status"] == "fail"
    assert fallback["reason"].startswith(
        "NCCL fell back to sockets (Using network Socket on dgx-02) (NET/IB : No device found.)"
    )
    parsed = nccl.ngc_container_nccl_parse(FALLBACK)
    assert parsed["networks"] == {"dgx-01": ["IB"], "dgx-02": ["Socket"]}
    assert parsed["no_ib_device"] is True


def test_the_parser_reads_what_nccl_tests_and_nccl_print():
    parsed = nccl.ngc_container_nccl_parse(GOOD)
    assert parsed["avg_busbw"] == 62.3517
    assert parsed["wrong"] == 0
    assert (parsed["largest_busbw"], parsed["largest_size"]) == (174.88, 4294967296)
    assert parsed["networks"] == {"dgx-01": ["IB"], "dgx-02": ["IB"]}
    assert parsed["ib_devices"][0] == "mlx5_0:1/IB" and len(parsed["ib_devices"]) == 6


def test_older_nccl_tests_lines_without_the_hash_are_read_too():
    old = TABLE.replace("# Out of", " Out of").replace("# Avg", " Avg")
    assert nccl.ngc_container_nccl_parse(old)["avg_busbw"] == 62.3517


def test_wrong_values_or_a_missing_bandwidth_line_fail():
    wrong = record(GOOD.replace("Out of bounds values : 0 OK", "Out of bounds values : 3 FAILED"))
    assert wrong["status"] == "fail" and "3 wrong values" in wrong["reason"]
    cut = record(GOOD.split("# Out of bounds")[0])
    assert cut["status"] == "fail" and "no '# Avg bus bandwidth' line" in cut["reason"]


def test_a_run_without_nccls_network_line_fails_as_unknown_transport():
    quiet = record(head() + TABLE)
    assert quiet["status"] == "fail"
    assert "NCCL logged no 'Using network' line" in quiet["reason"]


def test_a_launch_that_failed_says_how():
    missing = record(
        "--------------------------------------------------------------------------\n"
        "mpirun was unable to find the specified executable file, and therefore\n"
        "did not launch the job.\n",
        rc=134,
    )
    assert missing["status"] == "fail"
    assert missing["reason"].startswith("all_reduce_perf is not in the container")
    stopped = record(head() + nccl_log("dgx-01"), rc=124)
    assert stopped["status"] == "fail"
    assert (
        "the launch exited 124 (stopped by ngc_container_verify_nccl_timeout)" in stopped["reason"]
    )


def test_one_server_passes_but_says_the_network_was_not_crossed():
    single = record(head(8) + nccl_log("dgx-01") + TABLE, servers=["dgx-01"])
    assert single["status"] == "pass"
    assert "one server: the network is not crossed" in single["reason"]


def test_the_lab_without_gpus_or_hcas_is_skipped_with_both_reasons():
    lab = ["lab-compute-1", "lab-compute-2"]
    plan = nccl.ngc_container_nccl_plan(
        lab, hostvars(dict.fromkeys(lab, 0), {name: [] for name in lab})
    )
    assert plan["run"] is False and plan["status"] == "skipped"
    assert plan["reason"] == (
        "no GPU on lab-compute-1, lab-compute-2 (no NVIDIA PCI device, vendor 0x10de); "
        "no InfiniBand HCA on lab-compute-1, lab-compute-2 (nothing in /sys/class/infiniband)"
        ": NCCL all-reduce not run"
    )
    records = nccl.ngc_container_nccl_records({"skipped": True}, plan, lab, "lab-compute-1", 0)
    assert [(r["status"], r["reason"]) for r in records] == [("skipped", plan["reason"])]


def test_gpu_servers_without_any_hca_are_skipped():
    plan = nccl.ngc_container_nccl_plan(
        SERVERS, hostvars(dict.fromkeys(SERVERS, 8), {name: [] for name in SERVERS})
    )
    assert (plan["run"], plan["status"]) == (False, "skipped")
    assert plan["reason"].startswith("no InfiniBand HCA on dgx-01, dgx-02")
    assert "no GPU" not in plan["reason"]


def test_a_server_without_its_hcas_among_servers_with_them_fails():
    plan = nccl.ngc_container_nccl_plan(
        SERVERS, hostvars(dict.fromkeys(SERVERS, 8), {"dgx-01": ["mlx5_0"], "dgx-02": []})
    )
    assert (plan["run"], plan["status"]) == (False, "fail")
    assert plan["reason"].startswith("no InfiniBand HCA on dgx-02 ")
    records = nccl.ngc_container_nccl_records({"skipped": True}, plan, SERVERS, "dgx-01", 0)
    assert records[0]["status"] == "fail"


@pytest.mark.parametrize(("wanted", "ranks"), [(0, 4), (2, 2)])
def test_one_rank_per_gpu_on_the_server_with_the_fewest(wanted, ranks):
    plan = nccl.ngc_container_nccl_plan(
        SERVERS,
        hostvars({"dgx-01": 8, "dgx-02": 4}, {name: ["mlx5_0", "mlx5_1"] for name in SERVERS}),
        wanted,
    )
    assert plan == {"run": True, "status": "", "reason": "", "ranks_per_server": ranks}


def test_check_mode_records_the_run_as_skipped():
    records = nccl.ngc_container_nccl_records(
        {"skipped": True, "changed": False}, PLAN, SERVERS, "dgx-01", 0
    )
    assert [(r["status"], r["reason"]) for r in records] == [("skipped", "not run in check mode")]


def test_validate_runs_each_part_of_the_proof_as_its_own_check():
    import yaml

    for check in ("mpi", "nccl"):
        thin = yaml.safe_load((ROOT / f"roles/validate/tasks/{check}.yml").read_text())
        assert thin[0]["ansible.builtin.include_role"] == {
            "name": "ngc_container",
            "tasks_from": "verify.yml",
            "rolespec_validate": False,
        }
        assert thin[0]["vars"] == {"ngc_container_verify_checks": [check]}
        assert (
            "ngc_container_verify_results"
            in thin[1]["ansible.builtin.set_fact"]["validate_results"]
        )
    verify = yaml.safe_load((ROOT / "roles/ngc_container/tasks/verify.yml").read_text())
    # the NCCL plan reads what every server listed under this name (the plan's hostvars key)
    assert verify[1]["register"] == "_ngc_container_verify_rdma"
