"""The Slurm controller's plan (roles/slurm/tasks/plan.yml, filter slurm_plan in
filter_plugins/slurm.py): what the inventory decides, as the controller sees it, and that
the controller renders from the plan the control host published."""

from __future__ import annotations

import copy
import importlib.util
import json
from pathlib import Path

from playbook import local_host, run_playbook

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location(
    "slurm_filters", ROOT / "filter_plugins" / "slurm.py"
)
slurm = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(slurm)

# The role's defaults (roles/slurm/defaults/main.yml) as vars/main.yml passes them.
SETTINGS = {
    "cluster_name": "lab",
    "controller_host": "lab-head",
    "controller_address": None,
    "controller_port": 6817,
    "partitions": [{"name": "batch", "default": True}],
    "mpi_default": "none",
    "config_overrides": False,
    "health_check": True,
    "health_check_interval": 300,
    "health_check_program": "/usr/local/sbin/dlcluster-healthcheck",
    "accounting": True,
    "priority_weights": {
        "Fairshare": 10000,
        "Age": 1000,
        "QOS": 1000,
        "JobSize": 0,
        "Partition": 0,
    },
    "priority_decay_half_life": "7-0",
    "config": {},
    "cgroup_config": {"CgroupPlugin": "autodetect", "ConstrainCores": True},
}
NODES = ["gpu-1", "gpu-2"]


def test_the_plan_holds_slurm_conf_in_order_with_the_run_time_options_in_their_place():
    plan = slurm.slurm_plan(SETTINGS, NODES)
    assert list(plan["config"])[:3] == ["ClusterName", "SlurmctldHost", "SlurmctldPort"]
    assert list(plan["config"]).index("DefMemPerCPU") == 15  # after SelectTypeParameters
    assert plan["config"]["ClusterName"] == "lab"
    assert plan["config"]["HealthCheckInterval"] == 300
    assert "SlurmdParameters" not in plan["config"]  # None: left out
    assert plan["config_at_run_time"] == ["SlurmctldHost", "DefMemPerCPU", "AccountingStorageHost"]
    assert all(plan["config"][key] is None for key in plan["config_at_run_time"])
    assert list(plan["config"])[-5:] == [f"PriorityWeight{f}" for f in SETTINGS["priority_weights"]]
    assert plan["nodes"] == NODES
    assert plan["cgroup"] == SETTINGS["cgroup_config"]
    assert (plan["cluster_name"], plan["controller_host"], plan["controller_port"]) == (
        "lab",
        "lab-head",
        6817,
    )


def test_an_address_the_inventory_names_and_slurm_config_leave_nothing_to_run_time():
    settings = {
        **SETTINGS,
        "controller_address": "head.example",
        "controller_port": "7817",
        "config": {"DefMemPerCPU": 4000, "MpiDefault": "pmix", "HealthCheckNodeState": None},
    }
    plan = slurm.slurm_plan(settings, NODES)
    assert plan["config_at_run_time"] == []
    assert (
        plan["config"]["SlurmctldHost"] == plan["config"]["AccountingStorageHost"] == "head.example"
    )
    assert plan["config"]["SlurmctldPort"] == plan["controller_port"] == 7817
    assert plan["config"]["DefMemPerCPU"] == 4000
    assert list(plan["config"]).index("MpiDefault") == 19  # replaced in place
    assert "HealthCheckNodeState" not in plan["config"]


def test_without_accounting_or_health_check_their_lines_are_left_out():
    settings = {**SETTINGS, "accounting": "no", "health_check": False, "config_overrides": "yes"}
    plan = slurm.slurm_plan(settings, [])
    assert plan["accounting"] is False
    assert not [
        k for k in plan["config"] if k.startswith(("Accounting", "Priority", "HealthCheck"))
    ]
    assert "JobAcctGatherType" not in plan["config"]
    assert plan["config"]["SlurmdParameters"] == "config_overrides"
    assert plan["config_at_run_time"] == ["SlurmctldHost", "DefMemPerCPU"]


def test_partitions_get_their_defaults_and_the_settings_are_not_changed():
    settings = {
        **SETTINGS,
        "partitions": [
            {"name": "hipri", "default": True, "max_time": "12:00:00"},
            {"name": "iq", "nodes": ["gpu-1", "gpu-2"], "state": "DOWN"},
            {"name": "shareq", "nodes": "gpu-[1-2]", "options": {"OverSubscribe": "YES"}},
        ],
    }
    before = copy.deepcopy(settings)
    plan = slurm.slurm_plan(settings, NODES)
    assert settings == before
    assert plan["partitions"] == [
        {"name": "hipri", "nodes": "ALL", "default": True, "max_time": "12:00:00",
         "state": "UP", "options": {}},
        {"name": "iq", "nodes": "gpu-1,gpu-2", "default": False, "max_time": "INFINITE",
         "state": "DOWN", "options": {}},
        {"name": "shareq", "nodes": "gpu-[1-2]", "default": False, "max_time": "INFINITE",
         "state": "UP", "options": {"OverSubscribe": "YES"}},
    ]  # fmt: skip
    assert slurm.FilterModule().filters()["slurm_plan"] is slurm.slurm_plan


def test_the_controller_renders_the_plan_the_control_host_publishes(tmp_path):
    """Planned on the control host (the early phase), from the controller's variables (a
    head group with its own cluster name, partitions and no accounting) while the control
    host's own differ: the controller holds that plan and its files follow it."""
    node = {"slurm_node_settings": {"CPUs": 4, "RealMemory": 8000}, "slurm_gpus": 2}
    inventory = tmp_path / "inventory.json"
    inventory.write_text(
        json.dumps(
            {
                "all": {
                    "children": {
                        "control": {
                            "hosts": {
                                "localhost": local_host(
                                    slurm_cluster_name="controlhost",
                                    slurm_partitions=[{"name": "wrong"}],
                                )
                            }
                        },
                        "head": {
                            "hosts": {"head-1": local_host()},
                            "vars": {
                                "slurm_cluster_name": "headcluster",
                                "slurm_accounting": False,
                                "slurm_partitions": [
                                    {"name": "gpu", "default": True, "max_time": "4:00:00"},
                                    {"name": "debug", "nodes": ["gpu-1"]},
                                ],
                            },
                        },
                        "compute": {
                            "hosts": {"gpu-1": local_host(**node), "gpu-2": local_host(**node)}
                        },
                    }
                },
                "_meta": {"hostvars": {}},
            }
        )
    )
    result = run_playbook(
        inventory,
        ROOT / "tests" / "unit" / "playbooks" / "slurm_plan.yml",
        {"planner": "localhost", "out": str(tmp_path)},
    )
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
    plan = json.loads((tmp_path / "head-1.json").read_text())
    assert plan["cluster_name"] == "headcluster"
    assert [p["name"] for p in plan["partitions"]] == ["gpu", "debug"]
    assert plan["accounting"] is False
    assert plan["nodes"] == ["gpu-1", "gpu-2"]
    etc = tmp_path / "head-1" / "etc" / "slurm"
    conf = (etc / "slurm.conf").read_text()
    assert "ClusterName=headcluster\nSlurmctldHost=head-1\n" in conf
    assert "DefMemPerCPU=2000\n" in conf
    assert "Accounting" not in conf
    assert "NodeName=gpu-2 CPUs=4 RealMemory=8000 Gres=gpu:2 State=UNKNOWN\n" in conf
    assert (etc / "partitions.conf").read_text().splitlines()[2:] == [
        "PartitionName=gpu Nodes=ALL Default=YES MaxTime=4:00:00 State=UP",
        "PartitionName=debug Nodes=gpu-1 Default=NO MaxTime=INFINITE State=UP",
    ]
    assert "NodeName=gpu-1 Name=gpu File=/dev/nvidia1\n" in (etc / "gres.conf").read_text()
    assert not (etc / "slurmdbd.conf").exists()
