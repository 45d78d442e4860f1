"""The rdma role's proof (filter_plugins/rdma_verify.py, tasks/verify.yml) and its place in
the validate role's report: outputs as rdma-core v44's ibv_devinfo and ibstat print them
(linux-rdma/rdma-core v44.0: libibverbs/examples/devinfo.c, infiniband-diags/ibstat.c)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location(
    "rdma_verify", ROOT / "filter_plugins" / "rdma_verify.py"
)
ib = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(ib)

ROLE = ROOT / "roles" / "validate"
RDMA = ROOT / "roles" / "rdma"


def devinfo_hca(
    name: str,
    state: str = "PORT_ACTIVE (4)",
    sm_lid: int = 1,
    lid: int = 28,
    layer: str = "InfiniBand",
    part: int = 4123,
) -> str:
    """One HCA as devinfo.c prints it: tabs, `key:\\t...value`, a blank line per port."""
    return (
        f"hca_id:\t{name}\n"
        "\ttransport:\t\t\tInfiniBand (0)\n"
        "\tfw_ver:\t\t\t\t20.28.1002\n"
        "\tnode_guid:\t\t\tb859:9f03:00d4:1a2e\n"
        "\tsys_image_guid:\t\t\tb859:9f03:00d4:1a2e\n"
        "\tvendor_id:\t\t\t0x02c9\n"
        f"\tvendor_part_id:\t\t\t{part}\n"
        "\thw_ver:\t\t\t\t0x0\n"
        "\tboard_id:\t\t\tMT_0000000223\n"
        "\tphys_port_cnt:\t\t\t1\n"
        "\t\tport:\t1\n"
        f"\t\t\tstate:\t\t\t{state}\n"
        "\t\t\tmax_mtu:\t\t4096 (5)\n"
        "\t\t\tactive_mtu:\t\t4096 (5)\n"
        f"\t\t\tsm_lid:\t\t\t{sm_lid}\n"
        f"\t\t\tport_lid:\t\t{lid}\n"
        "\t\t\tport_lmc:\t\t0x00\n"
        f"\t\t\tlink_layer:\t\t{layer}\n"
        "\n"
    )


def ibstat_ca(
    name: str,
    state: str = "Active",
    physical: str = "LinkUp",
    rate: str = "200",
    sm_lid: int = 1,
    lid: int = 28,
    layer: str = "InfiniBand",
) -> str:
    """One CA as ibstat.c prints it (ca_dump, then port_dump with two tabs)."""
    return (
        f"CA '{name}'\n"
        "\tCA type: MT4123\n"
        "\tNumber of ports: 1\n"
        "\tFirmware version: 20.28.1002\n"
        "\tHardware version: 0\n"
        "\tNode GUID: 0xb8599f0300d41a2e\n"
        "\tSystem image GUID: 0xb8599f0300d41a2e\n"
        "\tPort 1:\n"
        f"\t\tState: {state}\n"
        f"\t\tPhysical state: {physical}\n"
        f"\t\tRate: {rate}\n"
        f"\t\tBase lid: {lid}\n"
        "\t\tLMC: 0\n"
        f"\t\tSM lid: {sm_lid}\n"
        "\t\tCapability mask: 0x2651e848\n"
        "\t\tPort GUID: 0xb8599f0300d41a2e\n"
        f"\t\tLink layer: {layer}\n"
    )


def ran(stdout: str, rc: int = 0, stderr: str = "") -> dict:
    return {"rc": rc, "stdout": stdout, "stderr": stderr, "changed": False}


def check(devinfo: str, ibstat: str, expected=(), rate: float = 200) -> list[dict]:
    return ib.rdma_infiniband_records(ran(devinfo), ran(ibstat), "dgx-01", list(expected), rate)


HDR = [{"name": "mlx5_0", "port": 1}]
# A server with its first compute HCA and a storage port in Ethernet mode (RoCE).
MIXED_DEVINFO = devinfo_hca("mlx5_0") + devinfo_hca("mlx5_4", sm_lid=0, lid=0, layer="Ethernet")
MIXED_IBSTAT = ibstat_ca("mlx5_0") + ibstat_ca(
    "mlx5_4", rate="100", sm_lid=0, lid=0, layer="Ethernet"
)


def test_an_hdr_port_that_a_subnet_manager_brought_up_passes():
    records = check(devinfo_hca("mlx5_0"), ibstat_ca("mlx5_0"), HDR)
    assert len(records) == 1
    record = records[0]
    assert (record["check"], record["host"], record["target"]) == (
        "infiniband",
        "dgx-01",
        "mlx5_0 port 1",
    )
    assert (record["value"], record["unit"], record["threshold"], record["status"]) == (
        200,
        "Gb/s link rate",
        200,
        "pass",
    )
    assert record["reason"] == "Active, LinkUp, InfiniBand, MTU 4096, base lid 28, SM lid 1"


def test_a_port_without_a_subnet_manager_fails_and_says_why():
    records = check(
        devinfo_hca("mlx5_0", state="PORT_INIT (2)", sm_lid=0, lid=0),
        ibstat_ca("mlx5_0", state="Initializing", sm_lid=0, lid=0),
        HDR,
    )
    assert [r["status"] for r in records] == ["fail"]
    reason = records[0]["reason"]
    assert "state Initializing, not Active" in reason
    assert "SM lid 0: no subnet manager has swept this port" in reason
    assert "base lid 0" in reason
    assert "LinkUp" not in reason  # the cable is fine: only the SM is missing


def test_an_hdr100_port_fails_where_hdr_is_expected_and_passes_where_hdr100_is():
    devinfo, ibstat = devinfo_hca("mlx5_0"), ibstat_ca("mlx5_0", rate="100")
    hdr = check(devinfo, ibstat, HDR, rate=200)[0]
    assert (hdr["status"], hdr["value"], hdr["threshold"]) == ("fail", 100, 200)
    assert hdr["reason"] == "rate 100, 200 expected"
    assert check(devinfo, ibstat, HDR, rate=100)[0]["status"] == "pass"


def test_a_link_that_is_down_fails_on_its_physical_state():
    record = check(
        devinfo_hca("mlx5_0", state="PORT_DOWN (1)", sm_lid=0, lid=0),
        ibstat_ca("mlx5_0", state="Down", physical="Polling", rate="10", sm_lid=0, lid=0),
        HDR,
    )[0]
    assert record["status"] == "fail"
    assert "physical state Polling, not LinkUp" in record["reason"]


@pytest.mark.parametrize(
    "stderr",
    [
        "Failed to get IB devices list: Function not implemented",  # no RDMA kernel support
        "No IB devices found",  # ib_core loaded, no device
    ],
)
@pytest.mark.parametrize("expected", [[], HDR])
def test_a_host_without_any_rdma_device_is_skipped_unless_it_should_have_hcas(stderr, expected):
    records = ib.rdma_infiniband_records(
        ran("", rc=255, stderr=stderr), ran(""), "lab-compute-1", expected, 200
    )
    assert len(records) == 1
    record = records[0]
    status = "failed" if expected else "skipped"
    assert (record["status"], record["target"]) == (status, "HCA ports")
    assert record["reason"].startswith(f"no RDMA device on this host (ibv_devinfo: {stderr})")
    assert ("rdma_verify_hcas" in record["reason"]) == bool(expected)


def test_an_expected_hca_missing_beside_other_rdma_devices_fails():
    expected = [*HDR, {"name": "mlx5_1", "port": 1}]
    records = check(MIXED_DEVINFO, MIXED_IBSTAT, expected)
    assert [(r["target"], r["status"]) for r in records] == [
        ("mlx5_0 port 1", "pass"),
        ("mlx5_1 port 1", "fail"),
    ]
    assert records[1]["reason"] == "not found on this host (RDMA ports: mlx5_0:1, mlx5_4:1)"


def test_an_expected_port_in_ethernet_mode_fails_on_its_link_layer():
    record = check(MIXED_DEVINFO, MIXED_IBSTAT, [{"name": "mlx5_4", "port": 1}])[0]
    assert record["status"] == "fail"
    assert "link layer Ethernet, not InfiniBand" in record["reason"]


def test_without_a_list_every_infiniband_port_is_checked_in_device_order():
    devinfo = devinfo_hca("mlx5_10") + devinfo_hca("mlx5_2") + MIXED_DEVINFO
    ibstat = ibstat_ca("mlx5_10") + ibstat_ca("mlx5_2", rate="100") + MIXED_IBSTAT
    records = check(devinfo, ibstat, [])
    assert [(r["target"], r["status"]) for r in records] == [
        ("mlx5_0 port 1", "pass"),
        ("mlx5_2 port 1", "fail"),
        ("mlx5_10 port 1", "pass"),
    ]  # mlx5_4 is Ethernet (a storage port): not an InfiniBand port to check


def test_rdma_devices_that_are_all_ethernet_are_skipped_with_their_names():
    records = check(devinfo_hca("mlx5_4", layer="Ethernet"), ibstat_ca("mlx5_4", layer="Ethernet"))
    assert [r["status"] for r in records] == ["skipped"]
    assert records[0]["reason"] == "no InfiniBand port; RDMA ports found: mlx5_4:1 (Ethernet)"


def test_a_port_ibstat_cannot_see_fails_with_ibstats_message():
    records = ib.rdma_infiniband_records(
        ran(devinfo_hca("mlx5_0")),
        ran("", rc=255, stderr="ibpanic: [1] main: can't init UMAD library: (No such file)"),
        "dgx-01",
        HDR,
        200,
    )
    assert records[0]["status"] == "fail"
    assert "ibstat does not show this port" in records[0]["reason"]
    assert "can't init UMAD library" in records[0]["reason"]


def test_tools_that_did_not_run_fail_and_check_mode_skips():
    missing = ib.rdma_infiniband_records(
        {"rc": 2, "msg": "[Errno 2] No such file or directory: b'ibv_devinfo'", "failed": True},
        {"rc": 2, "msg": "[Errno 2] No such file or directory: b'ibstat'", "failed": True},
        "dgx-01",
        HDR,
        200,
    )
    assert [r["status"] for r in missing] == ["fail"]
    assert "No such file or directory" in missing[0]["reason"]
    skipped = ib.rdma_infiniband_records({"skipped": True}, {"skipped": True}, "dgx-01", HDR, 200)
    assert [(r["status"], r["reason"]) for r in skipped] == [("skipped", "not run in check mode")]


def test_the_parsers_read_every_field_the_check_judges():
    assert ib.parse_ibv_devinfo(devinfo_hca("mlx5_0"))["mlx5_0"][1] == {
        "state": "PORT_ACTIVE (4)",
        "active_mtu": "4096 (5)",
        "sm_lid": "1",
        "port_lid": "28",
        "link_layer": "InfiniBand",
    }
    port = ib.parse_ibstat(ibstat_ca("mlx5_0", rate="40 (FDR10)"))["mlx5_0"][1]
    assert (port["state"], port["physical_state"], port["rate"]) == (
        "Active",
        "LinkUp",
        "40 (FDR10)",
    )
    assert (port["base_lid"], port["sm_lid"], port["link_layer"]) == ("28", "1", "InfiniBand")
    sdr = check(devinfo_hca("mlx5_0"), ibstat_ca("mlx5_0", rate="2.5"), HDR)[0]
    assert (sdr["value"], sdr["status"]) == (2.5, "fail")


def test_the_sites_hca_list_is_reduced_to_name_and_port():
    site = [
        {"name": "mlx5_0", "port": 1, "gpu": 0, "netdev": "ibp12s0"},
        {"name": "mlx5_6", "gpu": 4},
        "mlx5_9:1",
    ]
    assert ib.rdma_infiniband_expected(site) == [
        {"name": "mlx5_0", "port": 1},
        {"name": "mlx5_6", "port": 1},
        {"name": "mlx5_9", "port": 1},
    ]
    assert ib.rdma_infiniband_expected(None) == []


def test_the_report_has_a_row_per_hca_port(tmp_path):
    records = check(MIXED_DEVINFO, MIXED_IBSTAT, [*HDR, {"name": "mlx5_1", "port": 1}])
    source = tmp_path / "results.json"
    source.write_text(json.dumps({"cluster": "dgxa100", "results": records}))
    script = ROLE / "files" / "validate_report.py"
    subprocess.run([sys.executable, str(script), str(source), str(tmp_path)], check=True)
    report = (tmp_path / "report.md").read_text()
    assert "## InfiniBand HCA ports (ibstat, ibv_devinfo)" in report
    assert (
        "| dgx-01 | mlx5_0 port 1 | 200 Gb/s link rate | 200 | pass | "
        "Active, LinkUp, InfiniBand, MTU 4096, base lid 28, SM lid 1 |"
    ) in report
    assert "| dgx-01 | mlx5_1 port 1 |  | 200 | **FAIL** | not found on this host" in report


def test_the_check_runs_by_default_as_the_rdma_roles_proof_with_its_tools():
    defaults = yaml.safe_load((ROLE / "defaults" / "main.yml").read_text())
    spec = yaml.safe_load((ROLE / "meta" / "argument_specs.yml").read_text())
    checks = spec["argument_specs"]["main"]["options"]["validate_checks"]
    assert {"infiniband", "nccl"} <= set(defaults["validate_checks"])
    assert defaults["validate_checks"] == checks["default"]
    assert all((ROLE / "tasks" / f"{name}.yml").is_file() for name in checks["choices"])
    # validate runs the rdma role's entry point and reports what it publishes
    thin = yaml.safe_load((ROLE / "tasks" / "infiniband.yml").read_text())
    assert thin[0]["ansible.builtin.include_role"] == {
        "name": "rdma",
        "tasks_from": "verify.yml",
        "rolespec_validate": False,
    }
    assert "rdma_verify_results" in thin[1]["ansible.builtin.set_fact"]["validate_results"]
    # the proof installs its own tools, per OS family
    verify = yaml.safe_load((RDMA / "tasks" / "verify.yml").read_text())
    packages = yaml.safe_load((RDMA / "vars" / "main.yml").read_text())[
        "_rdma_verify_packages_by_family"
    ]
    assert verify[0]["ansible.builtin.package"]["state"] == "present"
    assert packages["Debian"] == ["ibverbs-utils", "infiniband-diags"]
    rdma_defaults = yaml.safe_load((RDMA / "defaults" / "main.yml").read_text())
    assert rdma_defaults["rdma_verify_hcas"] == "{{ rdma_compute_hcas | rdma_infiniband_expected }}"
