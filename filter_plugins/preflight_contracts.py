"""Every role's variables checked against its contract, for every host, before any play.

A role validates its own arguments when it starts (meta/argument_specs.yml), which is
too late for a site: by then the layers before it have changed things. The preflight
role calls `role_contract_problems` once, on the control host: it finds which roles run
on which hosts in the playbooks themselves, reads each host's value of every variable a
role's contract names (what the inventory and `-e` set; a role's own defaults are its
own business), and checks it against the contract with ansible-core's own type
conversions. Problems name the host(s), the variable with its full path inside lists
and dicts (`onefs_tiering_policies[1].idle_day`), the bad value and what is allowed.
Bounds that argument_specs cannot express live in RANGES; the values of dicts with free
keys in MAP_VALUES.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml
from ansible.module_utils.common import validation


def _scalar_str(value: Any) -> str:
    """A string, or a scalar Ansible would turn into one; a list or dict is a mistake."""
    if isinstance(value, Mapping | list | tuple | set):
        raise TypeError(f"{type(value).__name__} cannot be a string")
    return validation.check_type_str(value)


CHECKERS: dict[str, Callable[[Any], Any]] = {
    "str": _scalar_str,
    "bool": validation.check_type_bool,
    "int": validation.check_type_int,
    "float": validation.check_type_float,
    "list": validation.check_type_list,
    "dict": validation.check_type_dict,
    "path": lambda value: validation.check_type_path(_scalar_str(value)),
    "raw": validation.check_type_raw,
}

# Bounds per variable path ("[]" for any list index): the same rules the roles and the
# devices apply, said before anything is touched.
RANGES: dict[str, tuple[float | None, float | None]] = {
    "ngc_container_ssh_port": (1, 65535),
    "ngc_container_launch_slots": (1, None),
    "isilon_mounts_per_host": (1, None),
    "isilon_mounts_min_per_address": (1, None),
    "isilon_mounts_nconnect": (0, 16),  # 0: not set; Linux accepts 1..16
    "nics_check_timeout": (1, None),
    "nvidia_driver_expected_gpus": (0, None),
    "nvidia_driver_reboot_timeout": (1, None),
    "onefs_tiering_access_time_precision_days": (1, None),
    "onefs_tiering_job_wait_timeout": (1, None),
    "onefs_tiering_policies[].idle_days": (1, None),
    "switches_timeout": (1, None),
    "storage_fabric_vlan": (1, 4094),
    "storage_fabric_mtu": (552, 9216),  # Cumulus Linux's interface MTU range
    "ib_fabric_link_retries": (1, None),
    "ib_fabric_link_delay": (0, None),
    "rdma_subnet_manager_priority": (0, 15),
    "rdma_reboot_timeout": (1, None),
    "switches_os10_access_vlan": (1, 4094),
    "validate_thresholds.iperf_gbps_min": (0, None),
    "validate_thresholds.reader_mbps_min": (0, None),
    "validate_thresholds.fio_mbps_min": (0, None),
    "validate_thresholds.images_per_sec_min": (0, None),
    "validate_iperf2_streams": (1, 128),
    "validate_benchmark_runs": (1, None),
    "validate_benchmark_isilon_ssh.port": (1, 65535),
    "ngc_container_launch_timeout": (1, None),
    "validate_iperf_seconds": (1, None),
    "validate_iperf_streams": (1, 128),  # iperf3's --parallel limit
    "validate_ping_timeout": (1, None),
    "validate_infiniband_rate": (0, None),
    "validate_nccl_min_busbw_gbps": (0, None),
    "validate_nccl_timeout": (1, None),
    "validate_nccl_gpus_per_server": (0, None),
    "validate_fio_runtime": (1, None),
    "validate_fio_files_per_job": (1, None),
    "jupyterhub_cpus_per_gpu": (1, None),
    "jupyterhub_memory_per_gpu_gb": (1, None),
}

# Formats per variable path that argument_specs cannot express: a regular expression the
# whole string must match, and what it is, said as the tool that reads it says it.
FORMATS: dict[str, tuple[str, str]] = {
    # Slurm's --time (sbatch(1)): [days-]hours[:minutes[:seconds]]
    "jupyterhub_time_limit": (
        r"([0-9]+-)?[0-9]+(:[0-9]{2}){0,2}",
        "a Slurm time limit ([days-]hours[:minutes[:seconds]])",
    ),
    # TensorBoard's --logdir below each user's home
    "jupyterhub_tensorboard_logdir": (
        r"(?!/)(?!(.*/)?\.\.(/|$)).+",
        "a log folder inside the home (relative, no ..)",
    ),
    "jupyterhub_hub_host": (r".+", "the host name of the hub (a host of the `head` group)"),
}


# Dicts whose keys are free (option names, interface names), which argument_specs cannot
# describe: what each value must be, and why.
MAP_VALUES: dict[str, tuple[Callable[[Any], bool], str]] = {
    # Docker's documentation: log-opts values in daemon.json "must be provided as strings";
    # a number there (max-file: 3) keeps dockerd from starting.
    "container_runtime_log_opts": (
        lambda value: isinstance(value, str),
        'a string (quote numbers and booleans, e.g. "3"): Docker reads log-opts as strings only',
    ),
    "switches_os10_port_descriptions": (
        lambda value: isinstance(value, str | int | float) and not isinstance(value, bool),
        "a description (text)",
    ),
}


def _map_problems(value: Any, path: str) -> list[str]:
    """Values of a free-keyed dict (MAP_VALUES) that are not what the device takes."""
    rule = MAP_VALUES.get(_range_key(path))
    if rule is None or not isinstance(value, Mapping):
        return []
    accepts, wanted = rule
    return [
        f"{path}.{key} is {_shown(item)}; it must be {wanted}"
        for key, item in value.items()
        if not accepts(item)
    ]


def _range_key(path: str) -> str:
    """`onefs_tiering_policies[1].idle_days` -> `onefs_tiering_policies[].idle_days`."""
    return re.sub(r"\[\d+\]", "[]", path)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def check_value(value: Any, spec: Mapping[str, Any], path: str) -> list[str]:
    """What is wrong with `value` (found at `path`) under one option's `spec`."""
    kind = spec.get("type", "str")
    try:
        converted = CHECKERS.get(kind, validation.check_type_raw)(value)
    except (TypeError, ValueError):
        return [f"{path} is {_shown(value)}, which is not a {kind}"]
    problems = []
    pattern = FORMATS.get(_range_key(path))
    if pattern and kind == "str" and not re.fullmatch(pattern[0], converted):
        problems.append(f"{path} is {_shown(value)}; it must be {pattern[1]}")
    choices = spec.get("choices")
    if choices and kind != "list" and converted not in choices:
        allowed = ", ".join(str(choice) for choice in choices)
        problems.append(f"{path} is {_shown(value)}; allowed: {allowed}")
    bounds = RANGES.get(_range_key(path))
    if bounds and kind in ("int", "float"):
        low, high = bounds
        if (low is not None and converted < low) or (high is not None and converted > high):
            problems.append(
                f"{path} is {_shown(value)}; allowed: "
                f"{'' if low is None else low}..{'' if high is None else high}"
            )
    if kind == "list":
        element = {**spec, "type": spec.get("elements", "raw")}
        element.pop("elements", None)
        for index, item in enumerate(converted):
            problems += check_value(item, element, f"{path}[{index}]")
    elif kind == "dict" and "options" not in spec:
        problems += _map_problems(converted, path)
    elif kind == "dict" and "options" in spec:
        problems += check_options(converted, spec["options"], path)
        for group in spec.get("mutually_exclusive") or []:
            given = [key for key in group if converted.get(key) is not None]
            if len(given) > 1:
                problems.append(f"{path}: give one of {', '.join(given)}, not both")
    return problems


def check_options(values: Mapping[str, Any], options: Mapping[str, Any], path: str) -> list[str]:
    """A dict against nested options: unknown keys, missing required ones, each value."""
    problems = []
    unknown = sorted(set(values) - set(options))
    for key in unknown:
        problems.append(f"{path}.{key} is not a known key (allowed: {', '.join(sorted(options))})")
    for key, spec in options.items():
        if key in values and values[key] is not None:
            problems += check_value(values[key], spec, f"{path}.{key}")
        elif spec.get("required"):
            problems.append(f"{path}.{key} is required")
    return problems


@functools.cache
def _yaml(path: Path) -> Any:
    """A project file's YAML (playbooks, role meta), read once per process (a run does
    not change the project under it), with libyaml's parser where PyYAML has it."""
    return yaml.load(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def _included_roles(tasks: Sequence[Any]) -> list[str]:
    """Roles a play's tasks include or import (blocks included)."""
    roles = []
    for task in tasks:
        if not isinstance(task, dict):
            continue
        for key in ("ansible.builtin.include_role", "ansible.builtin.import_role"):
            if isinstance(task.get(key), dict) and task[key].get("name"):
                roles.append(task[key]["name"])
        for key in ("block", "rescue", "always"):
            roles += _included_roles(task.get(key) or [])
    return roles


def _plays(root: Path) -> list[tuple[list[str], list[str]]]:
    """(host patterns, roles) of each play of the playbooks under root/playbooks."""
    plays = []
    for playbook in sorted((root / "playbooks").glob("*.yml")):
        for play in _yaml(playbook) or []:
            if not isinstance(play, dict) or "hosts" not in play:
                continue
            hosts = play["hosts"]
            patterns = hosts if isinstance(hosts, list) else str(hosts).split(":")
            roles = [r if isinstance(r, str) else r.get("role") for r in play.get("roles", [])]
            roles += _included_roles(play.get("tasks") or [])
            plays.append(([str(p) for p in patterns], [r for r in roles if r]))
    return plays


def _dependencies(root: Path, role: str) -> list[str]:
    """The roles a role lists in meta/main.yml (e.g. `cluster`), which run where it runs."""
    path = root / "roles" / role / "meta" / "main.yml"
    meta = _yaml(path) if path.exists() else None
    return [
        d if isinstance(d, str) else d.get("role", d.get("name"))
        for d in (meta or {}).get("dependencies") or []
    ]


def role_hosts(root: str, groups: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """Which hosts each role (and the roles it depends on) runs on, read from the
    playbooks' plays (group names)."""
    hosts: dict[str, list[str]] = {}
    for patterns, roles in _plays(Path(root)):
        members = [h for p in patterns if p in groups for h in groups[p]]
        for role in roles + [d for r in roles for d in _dependencies(Path(root), r)]:
            known = hosts.setdefault(role, [])
            known += [host for host in members if host not in known]
    return hosts


def _contract(root: Path, role: str) -> dict[str, Any]:
    """Every option of every entry point of a role (entry points share names)."""
    path = root / "roles" / role / "meta" / "argument_specs.yml"
    if not path.exists():
        return {}
    options: dict[str, Any] = {}
    for entry in _yaml(path)["argument_specs"].values():
        options.update(entry.get("options") or {})
    return options


def _value(host_vars: Any, name: str) -> tuple[bool, Any]:
    """(set, value) of a host's variable; one that cannot be worked out outside its role
    (it reads the role's defaults) is left to the role's own check."""
    try:
        if name not in host_vars:
            return False, None
        value = _resolved(host_vars[name])
    except Exception:  # any templating error, at any depth: the role checks it itself
        return False, None
    return True, value


def _resolved(value: Any) -> Any:
    """The value with every nested item templated now, so that an item that reads a
    role's defaults fails here rather than later, inside the checks."""
    if type(value).__name__.endswith("Undefined"):
        raise ValueError("undefined")
    if isinstance(value, Mapping):
        return {key: _resolved(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_resolved(item) for item in value]
    return value


def role_contract_problems(
    groups: Mapping[str, Sequence[str]], hostvars: Mapping[str, Any], root: str
) -> list[str]:
    """Every role's set variables on every host it runs on, against its contract.

    A problem shared by several hosts (a group_vars or `-e` value) is said once, with
    the hosts named; a secret's value is never shown.
    """
    found: dict[str, list[str]] = {}
    # hostvars[host] works out all of a host's variables (its cached facts read again)
    # each time it is asked: once per host, not once per option
    host_vars: dict[str, Any] = {}
    for role, hosts in role_hosts(root, groups).items():
        options = _contract(Path(root), role)
        for host in hosts:
            if host not in host_vars:
                host_vars[host] = hostvars[host]
            for name, spec in options.items():
                present, value = _value(host_vars[host], name)
                if not present or value is None:
                    continue
                for problem in check_value(value, spec, name):
                    if spec.get("no_log"):
                        problem = f"{name} is not a valid {spec.get('type', 'str')} (not shown)"
                    found.setdefault(problem, [])
                    if host not in found[problem]:
                        found[problem].append(host)
    return [f"{', '.join(hosts)}: {problem}" for problem, hosts in found.items()]


# Who listens where on the head node: (role, variable) of each TCP port a role opens
# there, the default read from the role's argument specs (a private variable, fixed by
# the role: from its vars/main.yml); the ports of the services the roles run without a
# variable (nfs_share: rpcbind and the NFS server); and sshd, on the port Ansible
# reaches the host on.
LISTENERS = [
    ("jupyterhub", "jupyterhub_port", "the portal"),
    ("jupyterhub", "jupyterhub_hub_port", "the hub's API"),
    ("jupyterhub", "_jupyterhub_proxy_api_port", "the proxy's API"),
    ("slurm", "slurm_controller_port", "slurmctld"),
]
FIXED_LISTENERS = [
    ("nfs_share", 111, "rpcbind"),
    ("nfs_share", 2049, "the NFS server"),
]


def _listener_default(root: Path, role: str, name: str) -> Any:
    if name.startswith("_"):
        return (_yaml(root / "roles" / role / "vars" / "main.yml") or {}).get(name)
    return _contract(root, role).get(name, {}).get("default")


def listener_problems(
    groups: Mapping[str, Sequence[str]], hostvars: Mapping[str, Any], root: str
) -> list[str]:
    """Two services set to listen on one port of one host (the portal, the hub's API,
    slurmctld, the proxy's API, sshd, rpcbind, NFS): the second would fail to bind after
    the first layers had changed the host. These services run on the head node (the
    roles run on the GPU servers too, as clients), so its hosts are the ones checked."""
    base = Path(root)
    where = role_hosts(root, groups)
    problems = []
    for host in groups.get("head", []):
        host_vars = hostvars[host]  # works out all of the host's variables: asked once
        ports: dict[int, list[str]] = {}

        def listens(value: Any, label: str, ports: dict[int, list[str]] = ports) -> None:
            if str(value).isdigit():
                ports.setdefault(int(value), []).append(label)

        for role, name, what in LISTENERS:
            if host not in where.get(role, []):
                continue
            if name.startswith("_"):
                listens(_listener_default(base, role, name), what)
                continue
            own = host_vars.get(name)
            listens(_listener_default(base, role, name) if own is None else own, f"{what} ({name})")
        if ports:
            listens(host_vars.get("ansible_port") or 22, "sshd")
        for role, port, what in FIXED_LISTENERS:
            if ports and host in where.get(role, []):
                listens(port, what)
        problems += [
            f"{host}: port {port} is set for {' and '.join(users)}; each needs its own"
            for port, users in sorted(ports.items())
            if len(users) > 1
        ]
    return problems


class FilterModule:
    """Role contracts checked across the site, before any play changes anything."""

    def filters(self) -> dict[str, Any]:
        return {
            "role_contract_problems": role_contract_problems,
            "listener_problems": listener_problems,
        }
