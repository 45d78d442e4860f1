"""The nics role's proof (tasks/verify.yml, filter_plugins/nics_verify.py): the full-MTU
echo and the data network's throughput as proof records."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location(
    "nics_verify", ROOT / "filter_plugins" / "nics_verify.py"
)
network = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(network)

IPERF = {"end": {"sum_received": {"bits_per_second": 9.41e9}}}


def test_iperf_pass_and_fail_against_the_threshold():
    ok = network.nics_iperf_record({"stdout": json.dumps(IPERF)}, "gpu-1", 5.0, "gpu-2")
    assert (ok["value"], ok["unit"], ok["status"]) == (9.41, "Gbit/s", "pass")
    slow = network.nics_iperf_record({"stdout": json.dumps(IPERF)}, "gpu-1", 40.0, "gpu-2")
    assert slow["status"] == "fail"
    broken = network.nics_iperf_record(
        {"stdout": "", "stderr": "unable to connect"}, "gpu-1", 1, "x"
    )
    assert broken["status"] == "fail" and "unable to connect" in broken["reason"]


# iperf 2.1.8 `-c ... --parallel 2 --reportstyle C --reverse`, as captured on Debian 12
IPERF2_CSV = (
    "19700101000000,10.0.0.21,5001,10.0.0.11,60212,2,0.0-5.0,3393716224,5430000000\n"
    "19700101000000,10.0.0.21,5001,10.0.0.11,60200,1,0.0-5.0,3618570240,4470000000\n"
)


def test_iperf2_adds_the_streams_or_takes_the_sum_line_and_fails_without_a_line():
    ok = network.nics_iperf2_record({"stdout": IPERF2_CSV, "rc": 0}, "gpu-1", 5.0, "10.0.0.21")
    assert (ok["check"], ok["value"], ok["unit"], ok["status"]) == ("iperf2", 9.9, "Gbit/s", "pass")
    summed = IPERF2_CSV + "19700101000000,10.0.0.21,5001,10.0.0.11,0,-1,0.0-5.0,1,8000000000\n"
    assert network.nics_iperf2_record({"stdout": summed, "rc": 0}, "g", 1, "x")["value"] == 8.0
    slow = network.nics_iperf2_record({"stdout": IPERF2_CSV, "rc": 0}, "gpu-1", 40, "x")
    assert slow["status"] == "fail"
    # iperf 2 exits 0 when it cannot connect: no CSV line is the failure
    refused = network.nics_iperf2_record(
        {"stdout": "", "stderr": "tcp connect failed: Connection refused", "rc": 0}, "g", 1, "x"
    )
    assert refused["status"] == "fail" and "Connection refused" in refused["reason"]


def test_a_full_mtu_echo_passes_or_fails_with_what_ping_said():
    hostvars = {"gpu-2": {"cluster_data_address": "172.16.1.12"}}
    ok = network.nics_ping_record({"item": "gpu-2", "rc": 0}, "gpu-1", hostvars, 9000)
    assert (ok["check"], ok["target"], ok["value"], ok["threshold"], ok["status"]) == (
        "mtu",
        "gpu-2 (172.16.1.12)",
        9000,
        9000,
        "pass",
    )
    dropped = network.nics_ping_record(
        {"item": "gpu-2", "rc": 1, "stdout": "ping: local error: message too long, mtu=1500"},
        "gpu-1",
        hostvars,
        9000,
    )
    assert (dropped["value"], dropped["status"]) == (0, "fail")
    assert "mtu=1500" in dropped["reason"]


def test_a_threshold_is_recorded_as_the_inventory_wrote_it():
    slow = network.nics_iperf_record({"stdout": json.dumps(IPERF)}, "gpu-1", 10000.0, "gpu-2")
    assert (slow["threshold"], slow["status"]) == (10000, "fail")
    assert (
        network.nics_iperf_record({"stdout": json.dumps(IPERF)}, "a", 1.5, "b")["threshold"] == 1.5
    )


def test_validate_runs_each_part_of_the_proof_as_its_own_check():
    for check, part in (("data_network", ["mtu"]), ("network", ["throughput"])):
        thin = yaml.safe_load((ROOT / f"roles/validate/tasks/{check}.yml").read_text())
        include = thin[0]
        assert include["ansible.builtin.include_role"] == {
            "name": "nics",
            "tasks_from": "verify.yml",
            "rolespec_validate": False,
        }
        assert include["vars"] == {"nics_verify_checks": part}
        assert "nics_verify_results" in thin[1]["ansible.builtin.set_fact"]["validate_results"]
    spec = yaml.safe_load((ROOT / "roles/nics/meta/argument_specs.yml").read_text())
    checks = spec["argument_specs"]["verify"]["options"]["nics_verify_checks"]
    assert checks["choices"] == checks["default"] == ["mtu", "throughput"]
