"""filter_plugins/slurm.py: node lines from slurmd, the munge key, node states."""

from __future__ import annotations

import base64
import importlib.util
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[2] / "filter_plugins" / "slurm.py"
_SPEC = importlib.util.spec_from_file_location("slurm_filters", _PATH)
slurm = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(slurm)

# `slurmd -C` on a lab node (Debian 12, Slurm 22.05.8): the node line, then UpTime.
SLURMD_C = (
    "NodeName=lab-compute-1 CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=2 "
    "ThreadsPerCore=1 RealMemory=24105\nUpTime=0-05:57:43\n"
)


def test_slurmd_c_becomes_the_node_line_values():
    assert slurm.slurm_node_hardware(SLURMD_C) == {
        "NodeName": "lab-compute-1",
        "CPUs": 2,
        "Boards": 1,
        "SocketsPerBoard": 1,
        "CoresPerSocket": 2,
        "ThreadsPerCore": 1,
        "RealMemory": 24105,
    }


def test_the_inventorys_settings_win_and_come_out_as_plain_values():
    class Tagged(int):  # as ansible-core tags an inventory value with its origin
        pass

    node = slurm.slurm_node_hardware(SLURMD_C, {"CPUs": Tagged(40), "RealMemory": 384000})
    assert node["CPUs"] == 40 and node["RealMemory"] == 384000 and node["Boards"] == 1
    assert all(type(value) in (int, str) for value in node.values()), node


def test_output_without_a_node_line_is_an_error():
    with pytest.raises(ValueError, match="no NodeName= line"):
        slurm.slurm_node_hardware("slurmd: error: something\n")


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_the_vault_key_wins_and_must_be_long_enough():
    assert slurm.slurm_munge_key(_b64(b"x" * 64), "k" * 40) == "k" * 40
    with pytest.raises(ValueError, match="at least 32"):
        slurm.slurm_munge_key(None, "short")


def test_a_text_key_on_the_head_node_is_kept():
    key = "A" * 20 + "b-c_d" * 4
    assert slurm.slurm_munge_key(_b64(key.encode())) == key


def test_a_packaged_binary_key_or_none_is_replaced_by_a_new_text_key():
    """Debian's postinst writes a random binary key per host; the cluster needs one key."""
    binary = bytes(range(256)) * 4
    first = slurm.slurm_munge_key(_b64(binary))
    assert len(first) >= 32 and first.isascii() and first.isprintable()
    assert slurm.slurm_munge_key("") != first  # random each time none is kept
    assert slurm.slurm_munge_key(_b64(b"too short")) != "too short"


def test_gres_files_are_the_drivers_device_files_or_one_per_pci_gpu():
    files = ["/dev/nvidia0", "/dev/nvidia1"]
    assert slurm.slurm_gres_files(files, []) == files
    assert slurm.slurm_gres_files([], ["0000:3b:00.0", "0000:5e:00.0", "0000:86:00.0"]) == [
        "/dev/nvidia0",
        "/dev/nvidia1",
        "/dev/nvidia2",
    ]
    assert slurm.slurm_gres_files([], []) == []


def test_conf_line_keeps_order_and_speaks_slurms_booleans():
    line = slurm.slurm_conf_line(
        {"Nodes": "ALL", "Default": True, "OverSubscribe": False, "X": None}
    )
    assert line == "Nodes=ALL Default=YES OverSubscribe=NO"


def test_only_nodes_that_cannot_run_jobs_are_reported():
    sinfo = "\n".join(
        [
            "node01|idle|none",
            "node01|idle|none",  # the same node in a second partition
            "node02|mixed|none",
            "node03|drained|gres/gpu count reported lower than configured (0 < 4)",
            "node04|down*|Not responding",
            "node05|idle*|none",
            "node06|allocated|none",
        ]
    )
    assert slurm.slurm_node_problems(sinfo) == [
        "node03: drained (gres/gpu count reported lower than configured (0 < 4))",
        "node04: down* (Not responding)",
        "node05: idle*",
    ]


def test_the_nodes_the_health_check_drained_that_can_run_it_again():
    sinfo = "\n".join(
        [
            "node01|drained|dlcluster-health: /mnt/data not mounted or not readable",
            "node01|drained|dlcluster-health: /mnt/data not mounted or not readable",
            "node02|draining|dlcluster-health: 3 of 4 GPU device files",
            "node03|drained|disk replaced, ticket 4711",  # an admin's drain
            "node04|drained*|dlcluster-health: ngc (port 2222) does not answer",  # no answer
            "node05|idle|none",
            "node06|down|dlcluster-health: old reason on a down node",
        ]
    )
    assert slurm.slurm_drained_by(sinfo, "dlcluster-health:") == ["node01", "node02"]
    assert slurm.slurm_drained_by("", "dlcluster-health:") == []


def test_partition_nodes_default_to_all():
    assert slurm.slurm_partition_nodes({"name": "hipri"}, ["n1"]) == "ALL"
    assert slurm.slurm_partition_nodes({"name": "sxm2", "nodes": ["n1", "n2"]}, ["n1"]) == "n1,n2"
    assert slurm.slurm_partition_nodes({"name": "x", "nodes": "node[01-04]"}, []) == "node[01-04]"


def test_default_memory_per_cpu_is_the_smallest_nodes_share():
    nodes = [{"CPUs": 40, "RealMemory": 384000}, {"CPUs": 80, "RealMemory": 512000}]
    assert slurm.slurm_def_mem_per_cpu(nodes) == 6400
    assert slurm.slurm_def_mem_per_cpu([]) is None
    assert slurm.slurm_def_mem_per_cpu([{"CPUs": 0, "RealMemory": 1}]) is None


def test_a_declared_node_for_the_offline_plan():
    node = slurm.slurm_declared_node(
        {"inventory_hostname": "node001", "slurm_node_settings": {"CPUs": 40}, "slurm_gpus": 4}
    )
    assert node == {
        "hardware": {"NodeName": "node001", "CPUs": 40},
        "gpu_files": ["/dev/nvidia0", "/dev/nvidia1", "/dev/nvidia2", "/dev/nvidia3"],
    }
    # auto: unknown before the node reports
    assert slurm.slurm_declared_node({"inventory_hostname": "n"})["gpu_files"] == []


def test_a_gpu_count_names_that_many_device_files_whatever_the_host_shows():
    assert slurm.slurm_gres_files(["/dev/nvidia0"], [], 2) == ["/dev/nvidia0", "/dev/nvidia1"]
    assert slurm.slurm_gres_files(["/dev/nvidia0"], ["0000:3b:00.0"], 0) == []
    assert slurm.slurm_gres_files(["/dev/nvidia5"], [], "auto") == ["/dev/nvidia5"]


# ---- slurm_partitions, checked before anything is touched ---------------------------------

GPU_SERVERS = ["c4140-01", "c4140-02", "c4140-03", "c4140-04"]


def test_the_papers_partitions_pass():
    partitions = [
        {"name": "hipri", "default": True, "max_time": "12:00:00"},
        {"name": "sxm2", "nodes": "c4140-[01-04]"},
        {"name": "iq", "nodes": ["c4140-01", "c4140-02"]},
        {"name": "requestq", "nodes": "ALL"},
    ]
    assert slurm.slurm_partition_problems(partitions, GPU_SERVERS) == []


def test_a_partition_naming_a_node_that_is_not_a_gpu_server_is_named():
    partitions = [{"name": "sxm2", "nodes": "c4140-[03-05],login1"}]
    assert slurm.slurm_partition_problems(partitions, GPU_SERVERS) == [
        "slurm_partitions: partition sxm2 names c4140-05, login1, not a GPU server of this"
        " inventory (the compute group: c4140-01, c4140-02, c4140-03, c4140-04)"
    ]


def test_two_defaults_and_a_name_twice_are_named():
    partitions = [
        {"name": "hipri", "default": True},
        {"name": "sxm2", "default": "yes"},
        {"name": "hipri"},
    ]
    assert slurm.slurm_partition_problems(partitions, GPU_SERVERS) == [
        "slurm_partitions: partition hipri is listed twice",
        "slurm_partitions: 2 partitions are the default (hipri, sxm2); at most one takes the"
        " jobs that name no partition",
    ]


@pytest.mark.parametrize(
    ("nodes", "says"),
    [
        ("c4140-[01-02", "unbalanced brackets in 'c4140-[01-02'"),
        ("c4140-01,,c4140-02", "an empty name in 'c4140-01,,c4140-02'"),
        ("c4140-[a-b]", "'a-b' in 'c4140-[a-b]' is not a number or a range"),
    ],
)
def test_a_host_list_slurm_cannot_read_is_named(nodes, says):
    problems = slurm.slurm_partition_problems([{"name": "gpu", "nodes": nodes}], GPU_SERVERS)
    assert problems == [f"slurm_partitions: partition gpu: {says}"]


def test_host_lists_expand_as_slurm_writes_them():
    assert slurm._hostlist("n[01-03,7],gpu1") == ["n01", "n02", "n03", "n7", "gpu1"]
    assert slurm._hostlist("r[1-2]-n[1-2]") == ["r1-n1", "r1-n2", "r2-n1", "r2-n2"]
