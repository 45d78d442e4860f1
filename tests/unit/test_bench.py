"""The bench's pure parts (bench/run.py): the N-node lab inventory, the bare floor, the
summary and the docs table; the lab runs themselves are `make bench`."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location("bench_run", ROOT / "bench" / "run.py")
bench = importlib.util.module_from_spec(_SPEC)
sys.modules["bench_run"] = bench
_SPEC.loader.exec_module(bench)


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.setattr(bench, "WORK", tmp_path)
    return tmp_path


def _hosts(inventory: dict) -> dict[str, dict]:
    found: dict[str, dict] = {}

    def walk(group: dict) -> None:
        # a host listed again in another group (monitoring: lab-head:) brings no variables
        for name, variables in (group.get("hosts") or {}).items():
            found.setdefault(name, {}).update(variables or {})
        for child in (group.get("children") or {}).values():
            walk(child or {})

    walk(inventory["all"])
    return found


def test_sixteen_nodes_clash_with_no_other_lab_address_or_port(work):
    inventory = yaml.safe_load((bench.write_inventory(16) / "hosts.yml").read_text())
    compute = inventory["all"]["children"]["compute"]["hosts"]
    assert list(compute) == [f"lab-compute-{i}" for i in range(1, 17)]
    hosts = _hosts(inventory)
    for key in ("lab_mgmt_address", "lab_data_address", "ansible_port"):
        values = [v[key] for v in hosts.values() if key in v]
        assert len(values) == len(set(values)), key
    ports = [
        v.get(k) for v in hosts.values() for k in ("ansible_port", "lab_papi_port", "lab_ssh_port")
    ]
    ports = [p for p in ports if p]
    assert len(ports) == len(set(ports))
    # the first two keep the lab's own numbering, so `make lab` and the bench agree
    assert compute["lab-compute-1"]["lab_data_address"] == "10.201.1.11"
    assert compute["lab-compute-16"]["lab_data_address"] == "10.201.1.116"
    # the lab's nodes keep their NIC renderer; the others take the role's choice
    assert compute["lab-compute-2"]["nics_renderer"] == "netplan"
    assert "nics_renderer" not in compute["lab-compute-16"]
    assert (bench.write_inventory(16) / "group_vars").resolve() == (
        ROOT / "inventories" / "lab" / "group_vars"
    )


@pytest.mark.parametrize("nodes", [2, 16])
def test_the_fabrics_are_cabled_for_exactly_the_bench_compute_nodes(work, nodes):
    inventory = yaml.safe_load((bench.write_inventory(nodes) / "hosts.yml").read_text())
    compute = set(inventory["all"]["children"]["compute"]["hosts"])
    switches = inventory["all"]["children"]["switches"]
    lab = yaml.safe_load((ROOT / "inventories" / "lab" / "hosts.yml").read_text())
    lab_switches = lab["all"]["children"]["switches"]
    for group in ("storage_fabric", "ib_fabric"):
        key = f"{group}_links"
        for name, settings in switches["children"][group]["hosts"].items():
            links = settings[key]
            ports = [bench._front_panel(link["port"])[1] for link in links]
            assert len(set(ports)) == len(ports), (name, links)
            hosts = [link["host"] for link in links]
            assert {h for h in hosts if h.startswith("lab-compute-")} == compute
            # every other link is the lab's own, unchanged
            lab_links = lab_switches["children"][group]["hosts"][name][key]
            assert [link for link in links if not link["host"].startswith("lab-compute-")] == [
                link for link in lab_links if not link["host"].startswith("lab-compute-")
            ]
            splits = {bench._front_panel(p)[1] for p in settings.get("ib_fabric_split_ports", [])}
            assert not splits & set(ports)
            model = switches["hosts"][name]["switches_model"]
            assert set(ports) <= set(bench._model_ports(model))
            # a new node's link has the lab's compute link fields (the IB links their HCA)
            assert all(link.get("hca") == "mlx5_0" for link in links if group == "ib_fabric")
            # the lab cables each link's port and no port of a node the bench dropped (the
            # lab's fabric switches have a cable on exactly their linked ports)
            assert set(switches["hosts"][name]["lab_switch_cabling"]) == set(ports), name


def test_the_floor_runs_each_host_as_many_pings_as_it_executed(work):
    stats = {
        "lab-compute-1": {"executed": 3},
        "lab-compute-2": {"executed": 2},
        "localhost": {"executed": 0},
    }
    (play,) = yaml.safe_load(bench.floor_playbook(stats).read_text())
    assert play["hosts"] == "lab-compute-1,lab-compute-2"
    assert play["vars"]["bench_floor_counts"] == {"lab-compute-1": 3, "lab-compute-2": 2}
    assert [t["when"] for t in play["tasks"]] == [
        f"bench_floor_counts[inventory_hostname] >= {i}" for i in (1, 2, 3)
    ]
    assert all("ansible.builtin.ping" in t for t in play["tasks"])


def test_the_same_plays_floor_keeps_the_plays_their_hosts_and_counts(work):
    plays = [
        {"name": "Configure the data switches", "executed": {"lab-s5232": 4, "lab-7060": 4}},
        {"name": "Nothing ran here", "executed": {}},
        {"name": "Configure the GPU servers", "executed": {"lab-compute-1": 3, "lab-compute-2": 2}},
    ]
    first, second = yaml.safe_load(bench.plays_floor_playbook(plays).read_text())
    assert first["name"] == "Trivial tasks for: Configure the data switches"
    assert first["hosts"] == "lab-7060,lab-s5232" and len(first["tasks"]) == 4
    assert second["vars"]["bench_floor_counts"] == {"lab-compute-1": 3, "lab-compute-2": 2}
    assert len(second["tasks"]) == 3
    assert all("ansible.builtin.ping" in t for t in first["tasks"] + second["tasks"])


def test_repeated_runs_keep_the_median_and_every_wall_time():
    runs = [{"wall_seconds": w, "n": i} for i, w in enumerate([26.7, 19.4, 21.0])]
    chosen = bench.median_run(runs)
    assert chosen["n"] == 2 and chosen["wall_seconds"] == 21.0
    assert chosen["wall_seconds_all"] == [26.7, 19.4, 21.0]
    assert "wall_seconds_all" not in runs[2]  # the runs themselves are left as they were
    assert bench.seconds(chosen) == "21.0 s (19.4 to 26.7)"
    assert bench.seconds({"wall_seconds": 28.14}) == "28.1 s"


def test_summary_and_table():
    hosts = {
        "lab-compute-1": {"executed": 80, "skipped": 30, "changed": 0, "failed": 0,
                          "unreachable": 0, "seconds": 30.0},
        "lab-compute-2": {"executed": 70, "skipped": 35, "changed": 1, "failed": 0,
                          "unreachable": 0, "seconds": 20.0},
        "lab-isilon-1": {"executed": 8, "skipped": 3, "changed": 0, "failed": 0,
                         "unreachable": 0, "seconds": 5.0},
    }  # fmt: skip
    summary = bench.summarise(hosts)
    assert summary["executions_per_compute_host"] == 75.0
    assert summary["seconds_per_compute_host"] == 25.0
    assert summary["changed"] == 1 and summary["skipped"] == 68
    run = {"wall_seconds": 40.0, **summary}
    results = {
        "commit": "abc1234",
        "date": "2026-11-23 03:00 UTC",
        "cores": 2,
        "ansible_core": "2.19.14",
        "python": "3.11.7",
        "nodes": [
            {
                "nodes": 2,
                "runs": {
                    "lab_up": {"wall_seconds": 100.0},
                    "converge": {**run, "wall_seconds": 140.0, "changed": 60},
                    "noop": run,
                    "noop_defaults": {**run, "wall_seconds": 80.0},
                    "floor": {**run, "wall_seconds": 50.0},
                    "floor_plays": {**run, "wall_seconds": 38.0},
                },
                "tuned_over_defaults": 0.5,
                "noop_over_floor": 0.8,
                "noop_over_plays_floor": 1.05,
            }
        ],
    }
    table = bench.table(results)
    assert "Commit `abc1234`" in table and "2 cores" in table
    assert "| 2 | 100 s | 140 s | 60 | 40.0 s | 80.0 s | 0.50 | 75 " in table
    assert table.endswith("| 50.0 s | 0.80 | 38.0 s | 1.05 |")


def test_the_tier_edit_changes_one_policy_and_the_job_is_reported_apart():
    edit = json.loads(bench.edited_policies(31))["onefs_tiering_policies"]
    defaults = yaml.safe_load(
        (bench.ROOT / "roles" / "onefs_tiering" / "defaults" / "main.yml").read_text()
    )["onefs_tiering_policies"]
    assert edit[0]["idle_days"] == 31 != defaults[0]["idle_days"]
    assert [{k: v for k, v in p.items() if k != "idle_days"} for p in edit] == [
        {k: v for k, v in p.items() if k != "idle_days"} for p in defaults
    ]
    job = "onefs_tiering : " + bench.TIER_JOB_TASK
    run = {"slowest_tasks": {job: 4.5, "other": 9.0}, "ran_tasks": [job, "other"]}
    assert bench.job_seconds(run) == 4.5
    assert bench.job_seconds({"slowest_tasks": {"other": 9.0}, "ran_tasks": ["other"]}) == 0.0
    # a skipped job task costs hundredths, and a lean run lists it among its slowest
    skipped = {"slowest_tasks": {job: 0.02, "other": 9.0}, "ran_tasks": ["other"]}
    assert bench.job_seconds(skipped) == 0.0
    change = {"wall_seconds": 9.0, "wall_seconds_all": [9.0, 8.0, 10.0], "job_seconds": 4.5,
              "without_job_seconds": 4.5, "task_executions": 20}  # fmt: skip
    results = {"nodes": [{"nodes": 2, "runs": {"tier_change": change,
                                               "tier_rerun": {"wall_seconds": 3.5}}}]}  # fmt: skip
    assert bench.tier_table(results).endswith(
        "| 2 | 9.0 s (8.0 to 10.0) | 4.5 s | 4.5 s | 20 | 3.5 s |"
    )
