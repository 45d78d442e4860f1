"""The rdma role's planning (filter_plugins/rdma.py) and its module (library/rdma_devices.py).

The module is tested against a fake sysfs tree and a fake `mstconfig` that keeps the
card's LINK_TYPE values in a file and prints them in mstconfig's query format.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


rdma = _load("rdma", ROOT / "filter_plugins" / "rdma.py")
rdma_devices = _load("rdma_devices", ROOT / "library" / "rdma_devices.py")

# DGX A100, GPU -> compute HCA -> IPoIB interface (a public dask-cuda cluster-startup.sh for
# DGX A100; NVIDIA/deepops, workloads/bit/hpl/syscfg-dgxa100-*.sh).
DGX_A100_HCAS = [
    {"name": "mlx5_0", "port": 1, "gpu": 0, "netdev": "ibp12s0"},
    {"name": "mlx5_1", "port": 1, "gpu": 1, "netdev": "ibp18s0"},
    {"name": "mlx5_2", "port": 1, "gpu": 2, "netdev": "ibp75s0"},
    {"name": "mlx5_3", "port": 1, "gpu": 3, "netdev": "ibp84s0"},
    {"name": "mlx5_6", "port": 1, "gpu": 4, "netdev": "ibp141s0"},
    {"name": "mlx5_7", "port": 1, "gpu": 5, "netdev": "ibp148s0"},
    {"name": "mlx5_8", "port": 1, "gpu": 6, "netdev": "ibp186s0"},
    {"name": "mlx5_9", "port": 1, "gpu": 7, "netdev": "ibp204s0"},
]

# ---- NCCL / UCX device strings ------------------------------------------------------------


def test_nccl_ib_hca_names_the_example_sites_dgx_a100_compute_hcas_exactly():
    site = yaml.safe_load(
        (ROOT / "inventories" / "dgxa100" / "group_vars" / "compute" / "infiniband.yml").read_text()
    )
    assert site["cluster_ib_compute_hcas"] == DGX_A100_HCAS
    assert rdma.rdma_nccl_ib_hca(DGX_A100_HCAS) == (
        "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_6:1,mlx5_7:1,mlx5_8:1,mlx5_9:1"
    )


def test_ucx_net_devices_lists_the_same_ports_without_nccls_exact_match_sign():
    assert rdma.rdma_ucx_net_devices(DGX_A100_HCAS[:2]) == "mlx5_0:1,mlx5_1:1"


def test_hca_env_gives_nccl_and_ucx_the_same_ports_and_nothing_without_hcas():
    assert rdma.rdma_hca_env([{"name": "mlx5_0"}, {"name": "mlx5_6", "port": 1}]) == {
        "NCCL_IB_HCA": "=mlx5_0:1,mlx5_6:1",
        "UCX_NET_DEVICES": "mlx5_0:1,mlx5_6:1",
    }
    # no empty NCCL_IB_HCA= handed to the ranks: NCCL and UCX keep their own choice
    assert rdma.rdma_hca_env([]) == {} and rdma.rdma_hca_env(None) == {}


def test_a_port_defaults_to_one_and_no_hca_leaves_the_choice_to_nccl_and_ucx():
    assert rdma.rdma_nccl_ib_hca([{"name": "mlx5_0"}, {"name": "mlx4_0", "port": 2}]) == (
        "=mlx5_0:1,mlx4_0:2"
    )
    assert rdma.rdma_nccl_ib_hca([]) == ""
    assert rdma.rdma_ucx_net_devices([]) == ""
    assert rdma.rdma_nccl_ib_hca(None) == ""


# ---- input checks -------------------------------------------------------------------------


def test_the_dgx_a100_settings_pass():
    port_types = [
        {"device": "mlx5_4", "port": 1, "type": "eth"},
        {"device": "mlx5_5", "port": 1, "type": "eth"},
        {"device": "mlx5_0", "port": 1, "type": "ib"},
    ]
    assert rdma.rdma_problems(port_types, DGX_A100_HCAS, 14) == []
    assert rdma.rdma_problems([], [], 0) == []


@pytest.mark.parametrize(
    ("port_types", "hcas", "priority", "message"),
    [
        ([{"device": "ib0", "type": "eth"}], [], 0, "rdma_port_types[0].device: 'ib0' is not"),
        ([{"device": "mlx5_4", "port": 0, "type": "eth"}], [], 0, "rdma_port_types[0].port: 0"),
        ([{"device": "mlx5_4", "port": 3, "type": "eth"}], [], 0, "is not a port number (1 to 2)"),
        ([{"device": "mlx5_4", "type": "roce"}], [], 0, "rdma_port_types[0].type: 'roce'"),
        (
            [{"device": "mlx5_4", "type": "eth"}, {"device": "mlx5_4", "port": 1, "type": "ib"}],
            [],
            0,
            "rdma_port_types[1]: mlx5_4 port 1 is listed as eth and as ib",
        ),
        (
            [{"device": "mlx5_0", "type": "eth"}],
            DGX_A100_HCAS,
            0,
            "rdma_compute_hcas[0]: mlx5_0 port 1 carries NCCL's InfiniBand traffic",
        ),
        ([], [{"name": "mlx5_0"}, {"name": "mlx5_0", "port": 1}], 0, "listed twice"),
        ([], [{"name": "mlx5_0", "gpu": -1}], 0, "rdma_compute_hcas[0].gpu: -1"),
        ([], [{"port": 1}], 0, "rdma_compute_hcas[0].name: None"),
        ([], [], 16, "rdma_subnet_manager_priority: 16 is outside 0-15"),
        ([], [], -1, "rdma_subnet_manager_priority: -1 is outside 0-15"),
        ([], [], "high", "rdma_subnet_manager_priority: 'high' is outside 0-15"),
    ],
)
def test_bad_settings_are_named_with_their_variable_and_value(port_types, hcas, priority, message):
    problems = rdma.rdma_problems(port_types, hcas, priority)
    assert any(message in problem for problem in problems), problems


def test_the_same_port_type_listed_twice_is_no_conflict():
    entry = {"device": "mlx5_4", "port": 1, "type": "eth"}
    assert rdma.rdma_problems([entry, dict(entry)], [], 0) == []


def test_preflight_names_the_host_and_falls_back_to_the_cluster_wide_hcas():
    problems = rdma.rdma_inventory_problems(
        ["dgx-1", "dgx-2"],
        [[{"device": "mlx5_0", "type": "eth"}], []],
        ["", [{"name": "bad"}]],
        [[{"name": "mlx5_0"}], [{"name": "mlx5_0"}]],
        [0, 20],
    )
    assert problems == [
        "dgx-1: rdma_compute_hcas[0]: mlx5_0 port 1 carries NCCL's InfiniBand traffic, but "
        "rdma_port_types sets it to eth (NCCL warns on mixed IB and RoCE devices)",
        "dgx-2: rdma_compute_hcas[0].name: 'bad' is not a ConnectX RDMA device name "
        "(mlx5_<n> or mlx4_<n>)",
        "dgx-2: rdma_subnet_manager_priority: 20 is outside 0-15 (the InfiniBand SM priority)",
    ]


# ---- sysfs discovery ----------------------------------------------------------------------


def _hca(
    root: Path,
    name: str,
    pci: str,
    ports: dict[int, str],
    netdevs: dict[str, int] | None = None,
) -> None:
    """A device under root/class (ports: number -> link layer), its PCI function under root/pci."""
    function = root / "pci" / pci
    function.mkdir(parents=True)
    for netdev, dev_port in (netdevs or {}).items():
        (function / "net" / netdev).mkdir(parents=True)
        (function / "net" / netdev / "dev_port").write_text(f"{dev_port}\n")
    device = root / "class" / name
    device.mkdir(parents=True)
    os.symlink(os.path.relpath(function, device), device / "device")
    (device / "hca_type").write_text("MT4123\n")
    (device / "fw_ver").write_text("20.28.1002\n")
    (device / "node_guid").write_text("b859:9f03:00a1:2b3c\n")
    for number, layer in ports.items():
        port = device / "ports" / str(number)
        port.mkdir(parents=True)
        (port / "link_layer").write_text(f"{layer}\n")
        (port / "state").write_text("4: ACTIVE\n")
        (port / "phys_state").write_text("5: LinkUp\n")
        (port / "rate").write_text("200 Gb/sec (4X HDR)\n")


def test_devices_are_read_with_pci_address_ports_and_netdev(tmp_path):
    _hca(tmp_path, "mlx5_0", "0000:0c:00.0", {1: "InfiniBand"}, {"ibp12s0": 0})
    _hca(tmp_path, "mlx5_4", "0000:61:00.0", {1: "Ethernet"}, {"enp97s0f0": 0})
    devices = rdma_devices.read_devices(str(tmp_path / "class"))
    assert [d["name"] for d in devices] == ["mlx5_0", "mlx5_4"]
    assert devices[0] == {
        "name": "mlx5_0",
        "pci": "0000:0c:00.0",
        "hca_type": "MT4123",
        "fw_ver": "20.28.1002",
        "node_guid": "b859:9f03:00a1:2b3c",
        "ports": [
            {
                "port": 1,
                "link_layer": "InfiniBand",
                "state": "ACTIVE",
                "phys_state": "LinkUp",
                "rate": "200 Gb/sec (4X HDR)",
                "netdev": "ibp12s0",
            }
        ],
    }
    assert devices[1]["ports"][0]["netdev"] == "enp97s0f0"


def test_two_ports_on_one_function_get_their_netdev_by_dev_port(tmp_path):
    _hca(
        tmp_path, "mlx4_0", "0000:05:00.0", {1: "InfiniBand", 2: "InfiniBand"}, {"ib0": 0, "ib1": 1}
    )
    ports = rdma_devices.read_devices(str(tmp_path / "class"))[0]["ports"]
    assert [(p["port"], p["netdev"]) for p in ports] == [(1, "ib0"), (2, "ib1")]


def test_a_port_without_a_netdev_has_an_empty_one(tmp_path):
    _hca(tmp_path, "mlx5_0", "0000:0c:00.0", {1: "InfiniBand"})
    assert rdma_devices.read_devices(str(tmp_path / "class"))[0]["ports"][0]["netdev"] == ""


def test_no_rdma_devices_or_no_rdma_kernel_support_is_an_empty_list(tmp_path):
    (tmp_path / "class").mkdir()
    assert rdma_devices.read_devices(str(tmp_path / "class")) == []
    assert rdma_devices.read_devices(str(tmp_path / "absent")) == []


# ---- mstconfig ----------------------------------------------------------------------------

QUERY = """
Device #1:
----------

Device type:    ConnectX6
Name:           MCX653106A-HDA_Ax
Device:         0000:61:00.0

Configurations:                              Next Boot
         MEMIC_BAR_SIZE                              0
         LINK_TYPE_P1                                IB(1)
         LINK_TYPE_P2                                ETH(2)
"""


def test_query_output_gives_each_cards_link_type():
    assert rdma_devices.parse_link_types(QUERY) == {1: 1, 2: 2}


def test_with_several_columns_the_next_boots_value_counts():
    line = "         LINK_TYPE_P1                                IB(1)     IB(1)      ETH(2)"
    assert rdma_devices.parse_link_types(line) == {1: 2}


def test_a_card_without_link_type_has_none():
    assert rdma_devices.parse_link_types("Configurations:\n  SRIOV_EN   False(0)\n") == {}


@pytest.mark.parametrize(
    ("pci", "port", "expected"),
    [("0000:61:00.0", 1, 1), ("0000:61:00.1", 1, 2), ("0000:05:00.0", 2, 2)],
)
def test_the_cards_port_is_the_pci_function_plus_the_rdma_port(pci, port, expected):
    assert rdma_devices.card_port(pci, port) == expected


DEVICES = [
    {
        "name": "mlx5_4",
        "pci": "0000:61:00.0",
        "ports": [{"port": 1, "link_layer": "InfiniBand"}],
    },
    {
        "name": "mlx5_5",
        "pci": "0000:61:00.1",
        "ports": [{"port": 1, "link_layer": "Ethernet"}],
    },
]


def test_only_differing_ports_are_set_and_absent_ones_are_skipped_with_the_reason():
    results = rdma_devices.resolve(
        DEVICES,
        [
            {"device": "mlx5_4", "port": 1, "type": "eth"},
            {"device": "mlx5_5", "port": 1, "type": "eth"},
            {"device": "mlx5_10", "port": 1, "type": "eth"},
            {"device": "mlx5_4", "port": 2, "type": "eth"},
        ],
    )
    settings = rdma_devices.decide(
        results, {"0000:61:00.0": {1: 1, 2: 2}, "0000:61:00.1": {1: 1, 2: 2}}
    )
    assert settings == {"0000:61:00.0": ["LINK_TYPE_P1=2"]}
    assert results == [
        {
            "device": "mlx5_4",
            "port": 1,
            "type": "eth",
            "pci": "0000:61:00.0",
            "field": "LINK_TYPE_P1",
            "before": 1,
            "after": 2,
            "status": "changed",
            "reboot_required": True,
        },
        {
            "device": "mlx5_5",
            "port": 1,
            "type": "eth",
            "pci": "0000:61:00.1",
            "field": "LINK_TYPE_P2",
            "before": 2,
            "after": 2,
            "status": "ok",
            "reboot_required": False,
        },
        {
            "device": "mlx5_10",
            "port": 1,
            "type": "eth",
            "status": "skipped",
            "reason": "no RDMA device mlx5_10 on this host",
        },
        {
            "device": "mlx5_4",
            "port": 2,
            "type": "eth",
            "status": "skipped",
            "reason": "mlx5_4 has no port 2",
        },
    ]


def test_a_port_set_earlier_still_needs_a_reboot_until_it_runs_the_new_link_layer():
    results = rdma_devices.resolve(DEVICES, [{"device": "mlx5_4", "port": 1, "type": "eth"}])
    assert rdma_devices.decide(results, {"0000:61:00.0": {1: 2}}) == {}
    assert results[0]["status"] == "ok" and results[0]["reboot_required"] is True


def test_a_card_whose_query_has_no_link_type_is_skipped():
    results = rdma_devices.resolve(DEVICES, [{"device": "mlx5_4", "port": 1, "type": "ib"}])
    assert rdma_devices.decide(results, {"0000:61:00.0": {}}) == {}
    assert results[0]["status"] == "skipped"
    assert "mstconfig shows no LINK_TYPE_P1 for 0000:61:00.0" in results[0]["reason"]


# ---- the module end to end, with a fake mstconfig -----------------------------------------

FAKE_MSTCONFIG = """#!{python}
import json, sys
from pathlib import Path
here = Path(__file__).parent
state = json.loads((here / "cards.json").read_text())
with open(here / "calls", "a") as log:
    log.write(" ".join(sys.argv[1:]) + "\\n")
args = [a for a in sys.argv[1:] if a != "-y"]
pci = args[args.index("-d") + 1]
if pci not in state:
    print("-E- Failed to open device: " + pci, file=sys.stderr)
    sys.exit(1)
if "set" in args:
    for setting in args[args.index("set") + 1:]:
        field, value = setting.split("=")
        state[pci][field] = int(value)
    (here / "cards.json").write_text(json.dumps(state))
    print("Applying... Done!")
    print("-I- Please reboot machine to load new configurations.")
else:
    print("Configurations:                              Next Boot")
    for field, value in sorted(state[pci].items()):
        print("         %-44s%s(%d)" % (field, {{1: "IB", 2: "ETH"}}[value], value))
"""


@pytest.fixture
def host(tmp_path):
    """A host with the DGX A100's storage card (mlx5_4, mlx5_5) in IB mode, and a fake mstconfig."""
    _hca(tmp_path, "mlx5_4", "0000:61:00.0", {1: "InfiniBand"}, {"ibp97s0f0": 0})
    _hca(tmp_path, "mlx5_5", "0000:61:00.1", {1: "InfiniBand"}, {"ibp97s0f1": 0})
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "mstconfig").write_text(FAKE_MSTCONFIG.format(python=sys.executable))
    (tools / "mstconfig").chmod(0o755)
    (tools / "cards.json").write_text(
        json.dumps(
            {p: {"LINK_TYPE_P1": 1, "LINK_TYPE_P2": 1} for p in ("0000:61:00.0", "0000:61:00.1")}
        )
    )
    return tmp_path


def _run(host: Path, check_mode: bool = False, **args) -> dict:
    args.setdefault("sysfs", str(host / "class"))
    params = host / "args.json"
    params.write_text(
        json.dumps(
            {
                "ANSIBLE_MODULE_ARGS": {
                    **args,
                    "_ansible_check_mode": check_mode,
                    "_ansible_diff": True,
                }
            }
        )
    )
    env = {**os.environ, "PATH": f"{host / 'bin'}:{os.environ['PATH']}"}
    out = subprocess.run(
        [sys.executable, str(ROOT / "library" / "rdma_devices.py"), str(params)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    ).stdout
    return json.loads(out)


def _calls(host: Path) -> list[str]:
    path = host / "bin" / "calls"
    return path.read_text().splitlines() if path.exists() else []


def test_a_port_type_is_set_once_and_the_second_run_changes_nothing(host):
    wanted = [{"device": "mlx5_5", "port": 1, "type": "eth"}]
    first = _run(host, port_types=wanted)
    assert first["changed"] is True
    assert first["commands"] == ["mstconfig -y -d 0000:61:00.1 set LINK_TYPE_P2=2"]
    assert first["diff"] == {
        "before": "0000:61:00.1 LINK_TYPE_P2=1\n",
        "after": "0000:61:00.1 LINK_TYPE_P2=2\n",
    }
    assert first["ansible_facts"]["rdma_reboot_required"] is True
    second = _run(host, port_types=wanted)
    assert second["changed"] is False and second["commands"] == []
    # the port still runs InfiniBand until the reboot, and the run says so
    assert second["ansible_facts"]["rdma_reboot_required"] is True
    assert _calls(host) == [
        "-d 0000:61:00.1 query",
        "-y -d 0000:61:00.1 set LINK_TYPE_P2=2",
        "-d 0000:61:00.1 query",
    ]


def test_check_mode_queries_but_sets_nothing(host):
    result = _run(host, check_mode=True, port_types=[{"device": "mlx5_4", "type": "eth"}])
    assert result["changed"] is True
    assert result["commands"] == ["mstconfig -y -d 0000:61:00.0 set LINK_TYPE_P1=2"]
    assert _calls(host) == ["-d 0000:61:00.0 query"]


def test_a_port_already_of_its_type_is_not_touched(host):
    result = _run(host, port_types=[{"device": "mlx5_4", "type": "ib"}])
    assert result["changed"] is False
    assert result["ansible_facts"]["rdma_port_type_results"][0]["status"] == "ok"
    assert result["ansible_facts"]["rdma_reboot_required"] is False
    assert _calls(host) == ["-d 0000:61:00.0 query"]


def test_a_host_without_hcas_skips_with_the_reason_and_runs_no_tool(tmp_path):
    """The lab: no /sys/class/infiniband, no mstconfig; nothing fails."""
    result = _run(
        tmp_path,
        sysfs=str(tmp_path / "absent"),
        port_types=[{"device": "mlx5_4", "port": 1, "type": "eth"}],
        expected_devices=["mlx5_0"],
    )
    assert "failed" not in result
    assert result["changed"] is False
    assert result["missing"] == ["mlx5_0"]
    facts = result["ansible_facts"]
    assert facts["rdma_devices"] == []
    assert facts["rdma_reboot_required"] is False
    assert facts["rdma_port_type_results"] == [
        {
            "device": "mlx5_4",
            "port": 1,
            "type": "eth",
            "status": "skipped",
            "reason": "no RDMA device mlx5_4 on this host",
        }
    ]


def test_required_devices_fail_when_absent(tmp_path):
    result = _run(
        tmp_path,
        sysfs=str(tmp_path / "absent"),
        port_types=[{"device": "mlx5_4", "type": "eth"}],
        require_devices=True,
    )
    assert result["failed"] is True
    assert "no RDMA device mlx5_4 on this host" in result["msg"]


def test_an_mstconfig_error_fails_with_its_own_message(host):
    (host / "bin" / "cards.json").write_text("{}")
    result = _run(host, port_types=[{"device": "mlx5_4", "type": "eth"}])
    assert result["failed"] is True
    assert "-E- Failed to open device: 0000:61:00.0" in result["msg"]


def test_the_report_notes_say_what_was_left_alone_missing_and_waiting():
    host_vars = {
        "_rdma_host": {"missing": ["mlx5_6"]},
        "ansible_facts": {
            "rdma_port_type_results": [
                {"status": "skipped", "reason": "no RDMA device mlx5_4 on this host"},
                {"status": "ok"},
            ],
            "rdma_reboot_required": True,
        },
    }
    assert rdma.rdma_report_notes(host_vars, "reboot required") == [
        "skipped: no RDMA device mlx5_4 on this host",
        "compute HCA mlx5_6 is not on this host",
        "reboot required",
    ]
    # the role may reboot (the host's own setting, else the role's): no waiting note
    assert "reboot required" not in rdma.rdma_report_notes(host_vars, "reboot required", True)
    assert "reboot required" not in rdma.rdma_report_notes(
        {**host_vars, "rdma_reboot": "true"}, "reboot required"
    )
    # a host the role did not read this run says nothing
    assert rdma.rdma_report_notes({"ansible_facts": host_vars["ansible_facts"]}, "x") == []
