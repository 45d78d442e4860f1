"""Generated bad inputs: every variable of every role's contract, refused by name.

For each option of each role's meta/argument_specs.yml (every entry point, nested options
included), this makes a value of the wrong type and, where the contract bounds the value
(choices, RANGES, a string's format, a list's items, a dict's keys), one out of those
bounds, sets it on a lab host the role runs on (as an inventory or `-e` would), and
asserts that preflight's contract check (`role_contract_problems`, the first task of the
early phase: playbooks/preflight.yml) refuses it, naming the host, the variable's full
path and the value. The contract tables must cover every option: an int without bounds,
a string without a format (or a reason in FREE_TEXT) or a raw without its rule fails
here, so a new variable arrives with its whole contract.

It runs in-process against the lab inventory: no play, no connection. That the check is
the early phase's first step, before any change, is proved by tests/unit/
test_bad_input_site.py (site.yml under the network guard) for a sample of these kinds.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from ansible.inventory.manager import InventoryManager
from ansible.parsing.dataloader import DataLoader

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location(
    "preflight_contracts", ROOT / "filter_plugins" / "preflight_contracts.py"
)
contracts = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(contracts)

ROLES = sorted(p.parent.parent.name for p in ROOT.glob("roles/*/meta/argument_specs.yml"))


def _flatten(options: dict, prefix: str = "") -> dict[str, dict]:
    """Every option by its path: `a`, `a.b` (dict), `a[].b` (list of dicts)."""
    found = {}
    for name, spec in options.items():
        path = f"{prefix}.{name}" if prefix else name
        found[path] = spec
        if "options" in spec:
            found.update(
                _flatten(spec["options"], path + ("[]" if spec.get("type") == "list" else ""))
            )
    return found


def _options(role: str) -> dict[str, dict]:
    specs = yaml.safe_load((ROOT / "roles" / role / "meta" / "argument_specs.yml").read_text())
    options: dict[str, dict] = {}
    for entry in specs["argument_specs"].values():
        options.update(_flatten(entry.get("options") or {}))
    return options


ALL_OPTIONS = {path: spec for role in ROLES for path, spec in _options(role).items()}


def _groups() -> dict[str, list[str]]:
    inventory = InventoryManager(DataLoader(), sources=[str(ROOT / "inventories" / "lab")])
    return {name: [h.name for h in group.get_hosts()] for name, group in inventory.groups.items()}


GROUPS = _groups()
WHERE = contracts.role_hosts(str(ROOT), GROUPS)


def _placed(path: str, leaf: Any) -> tuple[str, Any]:
    """(top-level variable, its value) with `leaf` at `path` (lists hold one item)."""
    parts = re.split(r"(\[\]|\.)", path)
    names = [p for p in parts if p not in ("", ".")]
    value = leaf
    for part in reversed(names[1:]):
        value = [value] if part == "[]" else {part: value}
    return names[0], value


def _shown(path: str) -> str:
    return path.replace("[]", "[0]")


WRONG_TYPE: dict[str, Any] = {
    "str": {"a": 1},
    "path": ["a"],
    "int": "many",
    "float": "much",
    "bool": "perhaps",
    "list": {"a": 1},
    "dict": ["a", "b"],
}


def _wrong_type(path: str, spec: dict) -> tuple[Any, str] | None:
    """A value Ansible cannot convert to the option's type, and the path refused."""
    kind = spec.get("type", "str")
    if kind == "raw":
        rule = contracts.RAW_VALUES.get(path)
        return (
            (rule.bad_example, path)
            if rule
            else (object(), path)
            if not spec.get("choices")
            else ("sometimes", path)
        )
    return WRONG_TYPE[kind], path


def _out_of_bounds(path: str, spec: dict) -> tuple[Any, str] | None:
    """A value of the right type outside the option's bounds, and the path refused;
    None where the type is the whole contract (a bool) or the string is free text."""
    kind = spec.get("type", "str")
    choices = spec.get("choices")
    if path in contracts.CHECKED_ELSEWHERE:
        return None  # its bounds are a role's check: a hand-written case each
    if choices and kind != "list":
        if kind in ("int", "float"):
            return max(choices) + 1, path
        return "not-a-choice", path
    if kind in ("int", "float"):
        low, high = contracts.RANGES[path]
        return (low - 1 if low is not None else high + 1), path
    if kind in ("str", "path"):
        if path in contracts.FREE_TEXT:
            return None
        return contracts.KINDS[contracts.FORMATS.get(path, "absolute_path")].bad_example, path
    if kind == "raw":
        return None  # its rule (RAW_VALUES or choices) is its bound: the wrong-type case
    if kind == "list" and "options" in spec:
        return [{"no_such_key": 1}], f"{path}[0].no_such_key"
    if kind == "dict" and "options" in spec:
        return {"no_such_key": 1}, f"{path}.no_such_key"
    if kind == "list":
        element = {"type": spec.get("elements", "str"), "choices": choices}
        bad = _out_of_bounds(path + "[]", {k: v for k, v in element.items() if v})
        return ([bad[0]], f"{path}[0]") if bad else None
    if kind == "dict":
        rule = contracts.MAP_VALUES.get(path)
        return ({"key": ["a", "b"]}, f"{path}.key") if rule else None
    return None  # bool


def _cases(role: str) -> list[tuple[str, Any, str]]:
    """(option path, bad value, path the refusal names) for every option of the role."""
    cases = []
    for path, spec in _options(role).items():
        for make in (_wrong_type, _out_of_bounds):
            made = make(path, spec)
            if made is not None:
                cases.append((path, made[0], made[1]))
    return cases


def _refusals(host: str, path: str, value: Any) -> list[str]:
    name, top = _placed(path, value)
    hostvars = {h: {} for hosts in GROUPS.values() for h in hosts}
    hostvars.setdefault("localhost", {})
    hostvars[host] = {name: top}
    return contracts.role_contract_problems(GROUPS, hostvars, str(ROOT))


@pytest.mark.parametrize("role", ROLES)
def test_every_variable_has_its_whole_contract(role):
    """Ints and floats have bounds, strings a format or a reason to be free, raws a rule,
    lists of strings a format for their items."""
    missing = []
    for path, spec in _options(role).items():
        kind = spec.get("type", "str")
        if spec.get("choices") or path in contracts.CHECKED_ELSEWHERE:
            continue
        if kind in ("int", "float") and path not in contracts.RANGES:
            missing.append(f"{path}: no bounds in RANGES")
        elif kind == "str" and path not in contracts.FORMATS and path not in contracts.FREE_TEXT:
            missing.append(f"{path}: no format in FORMATS (nor a reason in FREE_TEXT)")
        elif kind == "raw" and path not in contracts.RAW_VALUES:
            missing.append(f"{path}: no rule in RAW_VALUES")
        elif kind == "list" and "options" not in spec:
            item = path + "[]"
            elements = spec.get("elements", "str")
            free = item in contracts.FREE_TEXT or item in contracts.CHECKED_ELSEWHERE
            if elements == "str" and item not in contracts.FORMATS and not free:
                missing.append(f"{path}: no format for its items")
            if elements == "int" and item not in contracts.RANGES:
                missing.append(f"{path}: no bounds for its items")
    assert missing == []


@pytest.mark.parametrize("role", ROLES)
def test_every_variable_bad_in_type_or_bounds_is_refused_by_name(role):
    hosts = WHERE.get(role, [])
    assert hosts, f"{role} runs on no host of the lab inventory: its variables go unchecked"
    host = hosts[0]
    not_refused = []
    for path, value, refused in _cases(role):
        problems = _refusals(host, path, value)
        wanted = re.compile(rf"(^|\s){re.escape(_shown(refused))}( is |: | \(|$)")
        if not any(p.startswith(f"{host}") and wanted.search(p) for p in problems):
            not_refused.append(f"{path} = {value!r}: {problems}")
    assert not_refused == []


def test_every_table_names_options_of_the_contracts_and_every_kind_is_used():
    paths = set(ALL_OPTIONS) | {f"{path}[]" for path in ALL_OPTIONS}
    for table in ("FORMATS", "FREE_TEXT", "CHECKED_ELSEWHERE", "RAW_VALUES", "LIST_CHECKS"):
        assert set(getattr(contracts, table)) <= paths, table
    assert set(contracts.KINDS) == set(contracts.FORMATS.values()) | {"absolute_path"}
    tables = [set(contracts.FORMATS), set(contracts.FREE_TEXT), set(contracts.CHECKED_ELSEWHERE)]
    assert all(not a & b for a in tables for b in tables if a is not b)  # one rule each


def test_every_bound_checked_elsewhere_has_a_hand_written_case():
    """A variable left to another check (CHECKED_ELSEWHERE, which names the filter file)
    is set by a case of the hand-written bad-input table, or named by the unit tests of
    that filter file."""
    sys.path.insert(0, str(Path(__file__).parent))
    from test_bad_input import PREFLIGHT_CASES, ROLE_CASES

    given = {name for case in PREFLIGHT_CASES for name in case[2]}
    given |= {name for case in ROLE_CASES for name in case[2]}
    for groups in (case[1] for case in PREFLIGHT_CASES):
        for hosts in groups.values():
            given |= {name for values in hosts.values() for name in values}
    missing = []
    for path, where in contracts.CHECKED_ELSEWHERE.items():
        name = re.split(r"[.\[]", path)[0]
        source = where.split()[0].rstrip(":")
        tests = [
            test.read_text()
            for test in Path(__file__).parent.glob("test_*.py")
            if f'"filter_plugins" / "{source}"' in test.read_text()
        ]
        assert tests, f"{path}: no unit test loads filter_plugins/{source}"
        if name not in given and not any(name in text for text in tests):
            missing.append(path)
    assert missing == []


def test_the_generated_cases_cover_every_option_twice_where_it_has_bounds():
    cases = [case for role in ROLES for case in _cases(role)]
    paths = {case[0] for case in cases}
    assert paths == set(ALL_OPTIONS)
    assert len(cases) > 1.5 * len(ALL_OPTIONS)


def test_a_value_is_shown_unless_it_is_a_secret():
    login = {"registry": "nvcr.io", "username": "$oauthtoken", "password": {"a": 1}}
    problems = _refusals("lab-compute-1", "container_runtime_registry_logins", [login])
    assert problems == [
        "lab-compute-1: container_runtime_registry_logins[0].password"
        " is not a valid str (not shown)"
    ]
    problems = _refusals("lab-compute-1", "ngc_container_shm_size", "-1g")
    assert problems == ["lab-compute-1: ngc_container_shm_size is '-1g'; it must be a size with "
                        "its unit as Docker reads it (e.g. 1g, 512m)"]  # fmt: skip


def test_every_role_default_fits_its_own_contract():
    wrong = []
    for path, spec in ALL_OPTIONS.items():
        default = spec.get("default")
        if default is None or "options" in spec or "{{" in str(default):
            continue
        wrong += contracts.check_value(default, spec, _shown(path))
    assert wrong == []


@pytest.mark.parametrize(
    ("kind", "good"),
    [
        ("absolute_path", "/mnt/isilon"),
        ("relative_path", "data/imagenet"),
        ("url", "https://mirror.example/apptainer/{version}"),
        ("registry", "registry.example:5000"),
        ("ip_address", "172.16.1.10"),
        ("client", "172.16.1.0/24"),
        ("client", "gpu-1.example"),
        ("posix_name", "alice"),
        ("slurm_time", "8:00:00"),
        ("slurm_time", "2-12"),
        ("slurm_max_time", "INFINITE"),
        ("docker_size", "1g"),
        ("docker_ulimit", "memlock:-1:-1"),
        ("docker_volume", "/mnt:/mnt:ro"),
        ("fio_size", "64GiB"),
        ("fio_size", "10%"),
        ("iperf_length", "64K"),
        ("image_ref", "nvcr.io/nvidia/tensorflow:19.03-py3"),
        ("mlnxos_speeds", "edr hdr"),
        ("mlnxos_port", "1/3/2"),
        ("cumulus_port", "swp1s0"),
        ("pinned_python_package", "jupyterhub==5.4.3"),
        ("sbatch_option", "--gres=gpu:4"),
        ("sbatch_option", "-N 1"),
    ],
)
def test_the_formats_take_what_their_tools_take(kind, good):
    rule = contracts.KINDS[kind]
    assert rule.accepts(good)
    assert not rule.accepts(rule.bad_example)


@pytest.mark.parametrize(
    ("options", "problems"),
    [
        (["rw", "hard", "vers=3"], []),
        (["ro", "rw"], ["ro and rw contradict each other; keep one"]),
        (["soft", "hard", "nolock"], ["hard and soft contradict each other; keep one"]),
        (["vers=3", "nfsvers=4.1"], ["vers is given 2 values (3, 4.1); keep one"]),
    ],
)
def test_contradicting_mount_options_are_named(options, problems):
    assert contracts.contradicting_options(options) == problems


def test_a_list_with_contradicting_options_is_refused_by_name():
    problems = _refusals("lab-compute-1", "isilon_mounts_data_options", ["soft", "hard"])
    assert problems == [
        "lab-compute-1: isilon_mounts_data_options: hard and soft contradict each other; keep one"
    ]
