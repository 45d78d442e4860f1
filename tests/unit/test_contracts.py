"""Role contracts checked across the site before any play
(filter_plugins/preflight_contracts.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location(
    "contracts", ROOT / "filter_plugins" / "preflight_contracts.py"
)
contracts = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(contracts)

POLICIES = {
    "type": "list",
    "elements": "dict",
    "options": {
        "name": {"type": "str", "required": True},
        "idle_days": {"type": "int"},
        "state": {"type": "str", "choices": ["present", "absent"]},
    },
}


def test_an_unknown_key_is_named_with_its_full_path_and_the_allowed_keys():
    value = [{"name": "a", "idle_days": 30}, {"name": "b", "idle_day": 30}]
    assert contracts.check_value(value, POLICIES, "onefs_tiering_policies") == [
        "onefs_tiering_policies[1].idle_day is not a known key (allowed: idle_days, name, state)"
    ]


def test_nested_values_are_converted_as_ansible_does_and_refused_by_path():
    assert contracts.check_value([{"name": "a", "idle_days": "30"}], POLICIES, "p") == []
    assert contracts.check_value([{"name": "a", "idle_days": "thirty"}], POLICIES, "p") == [
        "p[0].idle_days is 'thirty', which is not a int"
    ]
    assert contracts.check_value([{"idle_days": 3}], POLICIES, "p") == ["p[0].name is required"]
    assert contracts.check_value([{"name": "a", "state": "gone"}], POLICIES, "p") == [
        "p[0].state is 'gone'; allowed: present, absent"
    ]


def test_booleans_and_numbers_from_the_command_line_pass_as_ansible_converts_them():
    assert contracts.check_value("true", {"type": "bool"}, "x") == []
    assert contracts.check_value("4", {"type": "int"}, "x") == []
    assert contracts.check_value("four", {"type": "int"}, "isilon_mounts_per_host") == [
        "isilon_mounts_per_host is 'four', which is not a int"
    ]
    assert contracts.check_value("maybe", {"type": "bool"}, "onefs_tiering_prune") == [
        "onefs_tiering_prune is 'maybe', which is not a bool"
    ]


def test_bounds_the_specs_cannot_say_are_checked_by_path():
    assert contracts.check_value(70000, {"type": "int"}, "ngc_container_ssh_port") == [
        "ngc_container_ssh_port is 70000; allowed: 1..65535"
    ]
    assert contracts.check_value(
        -1, {"type": "float"}, "validate_thresholds.images_per_sec_min"
    ) == ["validate_thresholds.images_per_sec_min is -1; allowed: 0.."]
    assert contracts.check_value(0, POLICIES["options"]["idle_days"], "x") == []  # no bound
    bad = [{"name": "a", "idle_days": 0}]
    assert contracts.check_value(bad, POLICIES, "onefs_tiering_policies") == [
        "onefs_tiering_policies[0].idle_days is 0; allowed: 1.."
    ]


def test_every_bounded_path_is_an_option_of_some_role():
    options = {}
    for spec_path in (ROOT / "roles").glob("*/meta/argument_specs.yml"):
        options.update(contracts._contract(ROOT, spec_path.parts[-3]))
    for path in [*contracts.RANGES, *contracts.MAP_VALUES]:
        name = path.split("[", 1)[0].split(".", 1)[0]
        assert name in options, f"RANGES/MAP_VALUES name {path}, which no role's contract has"


def test_free_keyed_dicts_have_their_values_checked():
    """Docker reads log-opts values as strings only; a number stops dockerd."""
    spec = {"type": "dict"}
    assert contracts.check_value({"max-size": "100m", "max-file": "3"}, spec,
                                 "container_runtime_log_opts") == []  # fmt: skip
    assert contracts.check_value({"max-file": 3}, spec, "container_runtime_log_opts") == [
        "container_runtime_log_opts.max-file is 3; it must be a string (quote numbers and "
        'booleans, e.g. "3"): Docker reads log-opts as strings only'
    ]
    problems = contracts.check_value(
        {"ethernet1/1/21:1": ["isilon-1"]}, spec, "switches_os10_port_descriptions"
    )
    assert problems == [
        "switches_os10_port_descriptions.ethernet1/1/21:1 is ['isilon-1']; "
        "it must be a description (text)"
    ]


def test_roles_are_found_on_the_hosts_the_playbooks_run_them_on():
    groups = {
        "all": ["gpu-1", "gpu-2", "isilon-1", "sw-1"],
        "compute": ["gpu-1", "gpu-2"],
        "isilon": ["isilon-1"],
        "switches": ["sw-1"],
    }
    hosts = contracts.role_hosts(str(ROOT), groups)
    # nics reports from the control host (its tasks_from=report.yml, a localhost play)
    assert hosts["nics"] == ["gpu-1", "gpu-2", "localhost"]
    assert hosts["isilon_mounts"] == ["gpu-1", "gpu-2"]
    # the early phase's templated pattern: the preflight role runs on the control host
    assert hosts["preflight"] == ["localhost"]
    # onefs_tiering plans from the control host (its tasks_from=plan.yml, the early
    # phase's plan play), with the role's defaults as the control host reads them
    assert hosts["onefs_tiering"] == ["isilon-1", "localhost"]
    assert hosts["switches"] == ["sw-1"]
    # the shared settings run wherever a role that depends on them runs
    assert set(hosts["cluster"]) == {"gpu-1", "gpu-2", "isilon-1", "sw-1", "localhost"}
    # every role is found on its hosts, wherever under playbooks/ its play is (a role
    # found nowhere would have none of its variables checked)
    roles = {path.parent.parent.name for path in ROOT.glob("roles/*/meta/argument_specs.yml")}
    assert sorted(roles - set(hosts)) == []


def test_a_run_narrowed_by_tags_checks_the_roles_it_can_run():
    every = contracts.roles_run_by_tags(str(ROOT), ["all"])
    groups = {"all": ["h"], "compute": ["h"], "head": ["h"], "isilon": ["h"], "switches": ["h"]}
    assert set(every) == set(contracts.role_hosts(str(ROOT), groups))
    for tags in (None, ["preflight"], ["tagged"], ["untagged"], ["onefs", "all"]):
        assert contracts.roles_run_by_tags(str(ROOT), tags) == every, tags
    # the tier change: OneFS and the shared settings; not the mount plan (its play is
    # tagged with the layers that mount)
    assert contracts.roles_run_by_tags(str(ROOT), ["onefs"]) == [
        "cluster", "onefs_tiering", "preflight",
    ]  # fmt: skip
    assert "isilon_mounts" in contracts.roles_run_by_tags(str(ROOT), ["mounts"])
    network = contracts.roles_run_by_tags(str(ROOT), ["network"])
    assert {"switches", "storage_fabric", "ib_fabric"} <= set(network)
    assert not {"nics", "slurm", "ngc_container", "onefs_tiering"} & set(network)
    # validate runs the owners' verify entry points: their inputs are checked too
    validate = contracts.roles_run_by_tags(str(ROOT), ["validate"])
    assert {"validate", "ngc_container", "nics", "jupyterhub", "slurm"} <= set(validate)


def test_tags_select_roles_by_play_task_and_own_tasks_with_what_they_run(tmp_path):
    def write(path: str, data) -> None:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(yaml.safe_dump(data))

    role = "ansible.builtin.import_role"
    write("playbooks/layers/x.yml", [
        {"hosts": "g", "tags": ["p"], "tasks": [{role: {"name": "a"}}]},
        {"hosts": "g", "tasks": [
            {role: {"name": "b"}},
            {"block": [{role: {"name": "c"}}], "tags": ["t3"]},
            {role: {"name": "f", "tasks_from": "x.yml"}, "tags": ["always"]},
        ]},
    ])  # fmt: skip
    write("roles/a/tasks/main.yml", [{"ansible.builtin.include_role": {"name": "e"}}])
    write("roles/b/tasks/main.yml", [{"name": "own", "ansible.builtin.debug": {}, "tags": ["t2"]}])
    write("roles/c/meta/main.yml", {"dependencies": ["d"]})
    # the early phase's checks of another role do not select it
    write("roles/f/tasks/x.yml", [{role: {"name": "g", "tasks_from": "preflight.yml"}}])
    assert contracts.roles_run_by_tags(str(tmp_path), ["p"]) == ["a", "e", "f"]
    assert contracts.roles_run_by_tags(str(tmp_path), ["t2"]) == ["b", "f"]
    assert contracts.roles_run_by_tags(str(tmp_path), ["t3"]) == ["c", "d", "f"]
    assert contracts.roles_run_by_tags(str(tmp_path), ["none"]) == ["f"]
    assert contracts.roles_run_by_tags(str(tmp_path), ["all"]) == ["a", "b", "c", "d", "e", "f"]


class _Undefined:
    """Stands in for the marker ansible-core returns for a value it cannot work out."""


_Undefined.__name__ = "AnsibleUndefined"


class Marker:
    """ansible-core 2.19's base of the values it hands on instead of failing."""


class UndefinedMarker(Marker):
    """What 2.19 returns for a variable that reads one the host lacks (inventory_dir on
    the control host)."""


def test_a_problem_shared_by_hosts_is_said_once_and_secrets_are_never_shown():
    groups = {"compute": ["gpu-1", "gpu-2"], "isilon": ["isilon-1"], "switches": []}
    hostvars = {
        "gpu-1": {"isilon_mounts_per_host": "four", "ngc_container_ssh_port": 2222},
        "gpu-2": {
            "isilon_mounts_per_host": "four",
            "nics_apply": _Undefined(),
            "nics_renderer": UndefinedMarker(),
        },
        "isilon-1": {"cluster_onefs_password": {"not": "a string"}},
    }
    problems = contracts.role_contract_problems(groups, hostvars, str(ROOT))
    assert "gpu-1, gpu-2: isilon_mounts_per_host is 'four', which is not a int" in problems
    secret = [p for p in problems if "cluster_onefs_password" in p]
    assert secret and all("not a string" not in p for p in secret)
    unworkable = ("nics_apply", "nics_renderer", "ngc_container_ssh_port")
    assert not [p for p in problems if any(name in p for name in unworkable)]


def test_mutually_exclusive_keys_of_an_item_are_refused_by_path():
    spec = {**POLICIES, "mutually_exclusive": [["idle_days", "state"]]}
    assert contracts.check_value(
        [{"name": "a", "idle_days": 3, "state": "present"}], spec, "p"
    ) == ["p[0]: give one of idle_days, state, not both"]


def test_the_example_sites_policies_fit_the_onefs_tiering_contract():
    options = contracts._contract(ROOT, "onefs_tiering")
    defaults = __import__("yaml").safe_load(
        (ROOT / "roles" / "onefs_tiering" / "defaults" / "main.yml").read_text()
    )
    for name in ("onefs_tiering_tiers", "onefs_tiering_policies", "onefs_tiering_exports"):
        assert contracts.check_value(defaults[name], options[name], name) == []


GROUPS = {"head": ["head-1"], "compute": ["gpu-1"], "isilon": [], "switches": []}


def test_the_head_nodes_services_on_their_default_ports_pass():
    hostvars = {"head-1": {}, "gpu-1": {}}
    assert contracts.listener_problems(GROUPS, hostvars, str(ROOT)) == []


def test_two_services_on_one_port_of_the_head_node_are_named():
    hostvars = {"head-1": {"jupyterhub_port": 6817, "jupyterhub_hub_port": 22}, "gpu-1": {}}
    assert contracts.listener_problems(GROUPS, hostvars, str(ROOT)) == [
        "head-1: port 22 is set for the hub's API (jupyterhub_hub_port) and sshd; each needs"
        " its own",
        "head-1: port 6817 is set for the portal (jupyterhub_port) and slurmctld"
        " (slurm_controller_port); each needs its own",
    ]


def test_fixed_ports_and_the_ssh_port_ansible_uses_count():
    hostvars = {"head-1": {"jupyterhub_port": 2049, "ansible_port": 8001}, "gpu-1": {}}
    assert contracts.listener_problems(GROUPS, hostvars, str(ROOT)) == [
        "head-1: port 2049 is set for the portal (jupyterhub_port) and the NFS server; each"
        " needs its own",
        "head-1: port 8001 is set for the proxy's API and sshd; each needs its own",
    ]


def test_a_run_that_starts_none_of_the_services_leaves_their_ports_alone():
    """A run narrowed by tags (`--tags onefs`) checks the ports where it can start one of
    the services (the portal's run, jupyterhub), not where it starts none."""
    hostvars = {"head-1": {"jupyterhub_port": 6817}, "gpu-1": {}}
    onefs = ["cluster", "onefs_tiering", "preflight"]
    assert contracts.listener_problems(GROUPS, hostvars, str(ROOT), roles=onefs) == []
    portal = ["cluster", "cluster_host", "jupyterhub"]
    assert len(contracts.listener_problems(GROUPS, hostvars, str(ROOT), roles=portal)) == 1


def test_the_gpu_servers_are_not_checked_for_the_head_nodes_services():
    hostvars = {"head-1": {}, "gpu-1": {"jupyterhub_port": 6817}}
    assert contracts.listener_problems(GROUPS, hostvars, str(ROOT)) == []


GPU_GROUPS = {"head": ["head-1"], "compute": ["gpu-1", "gpu-2"], "isilon": [], "switches": []}


def test_gpus_asked_for_are_checked_against_the_servers_declared_counts():
    hostvars = {
        "head-1": {"jupyterhub_gpus_max": 8, "apptainer_job_sbatch": ["-N 1", "--gres=gpu:v100:6"]},
        "gpu-1": {"slurm_gpus": 4, "jupyterhub_verify_gpus": 2},
        "gpu-2": {"slurm_gpus": "4", "nvidia_driver_expected_gpus": 4, "jupyterhub_verify_gpus": 2},
    }
    problems = contracts.gpu_count_problems(GPU_GROUPS, hostvars, str(ROOT))
    assert problems == [
        "head-1: jupyterhub_gpus_max: the portal's form offers 8 GPUs, more than any GPU server"
        " has (the most: 4, on gpu-1, gpu-2)",
        "head-1: apptainer_job_sbatch: the Apptainer example job asks for 6 GPUs, more than any"
        " GPU server has (the most: 4, on gpu-1, gpu-2)",
    ]


def test_a_role_default_that_asks_for_more_gpus_than_the_servers_have_is_named():
    hostvars = {
        "head-1": {},
        "gpu-1": {"slurm_gpus": 2},
        "gpu-2": {"nvidia_driver_expected_gpus": 2},
    }
    assert contracts.gpu_count_problems(GPU_GROUPS, hostvars, str(ROOT)) == [
        "head-1, gpu-1, gpu-2: apptainer_job_sbatch (the role's default): the Apptainer"
        " example job asks for 4 GPUs, more than any GPU server has (the most: 2, on gpu-1, gpu-2)"
    ]


def test_a_run_of_none_of_the_gpu_roles_leaves_the_counts_alone():
    hostvars = {"head-1": {"jupyterhub_gpus_max": 8}, "gpu-1": {"slurm_gpus": 4}, "gpu-2": {}}
    groups = {**GPU_GROUPS, "compute": ["gpu-1"]}
    onefs = ["cluster", "onefs_tiering", "preflight"]
    assert contracts.gpu_count_problems(groups, hostvars, str(ROOT), roles=onefs) == []
    portal = ["cluster", "cluster_host", "jupyterhub"]
    assert len(contracts.gpu_count_problems(groups, hostvars, str(ROOT), roles=portal)) == 1


def test_gpu_counts_left_to_the_servers_are_not_guessed_and_disagreements_are_named():
    hostvars = {
        "head-1": {"jupyterhub_gpus_max": 8},
        "gpu-1": {"slurm_gpus": "auto"},
        "gpu-2": {"slurm_gpus": 8, "nvidia_driver_expected_gpus": 4},
    }
    assert contracts.gpu_count_problems(GPU_GROUPS, hostvars, str(ROOT)) == [
        "gpu-2: slurm_gpus is 8 but nvidia_driver_expected_gpus is 4; Slurm would offer GPUs"
        " the server does not have, or hide some"
    ]


def test_a_variable_of_a_renamed_role_is_named_with_its_new_name():
    groups = {"head": ["head-1"], "compute": ["gpu-1"], "isilon": [], "switches": []}
    hostvars = {"head-1": {"modules_tree_dir": "/apps"}, "gpu-1": {"modules_tree_dir": "/apps"}}
    problems = contracts.role_contract_problems(groups, hostvars, str(ROOT))
    assert problems == [
        "gpu-1, head-1: modules_tree_dir is now lmod_tree_dir; rename it in the inventory"
    ]


def test_a_variable_that_moved_to_the_role_it_proves_is_named_with_its_new_name():
    groups = {"head": ["head-1"], "compute": ["gpu-1"], "isilon": [], "switches": []}
    hostvars = {"head-1": {}, "gpu-1": {"validate_infiniband_rate": 100}}
    problems = contracts.role_contract_problems(groups, hostvars, str(ROOT))
    assert problems == [
        "gpu-1: validate_infiniband_rate is now rdma_verify_rate; rename it in the inventory"
    ]
    assert set(contracts.RENAMED_VARIABLES.values()) <= {
        name
        for spec in (ROOT / "roles").glob("*/meta/argument_specs.yml")
        for entry in yaml.safe_load(spec.read_text())["argument_specs"].values()
        for name in entry.get("options") or {}
    }
