"""The roles' seams: each README documents its contract, no role reads another's internals.

Every role's README table of variables names exactly the options of its
meta/argument_specs.yml, with the same defaults where the README gives a literal one; a
role's private names (`_<role>_...`) are used by that role alone; dlcluster's directories
come from the `cluster` role's settings, never a literal path.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
ROLES = sorted(path.name for path in (ROOT / "roles").iterdir() if (path / "meta").is_dir())
# files whose text is the role's code (docs and tests may name anything)
CODE_SUFFIXES = {".yml", ".yaml", ".j2", ".py"}


def _specs(role: str) -> dict:
    return yaml.safe_load((ROOT / "roles" / role / "meta" / "argument_specs.yml").read_text())[
        "argument_specs"
    ]


def _spec_options(role: str) -> dict:
    """Every option of every entry point (an entry point's own options included)."""
    options: dict = {}
    for entry in _specs(role).values():
        options.update(entry.get("options") or {})
    return options


def _readme_variables(role: str) -> dict[str, str]:
    """Name -> default cell of the README's "Variables" table(s)."""
    text = (ROOT / "roles" / role / "README.md").read_text()
    section = re.search(r"^## Variables\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert section, f"roles/{role}/README.md has no '## Variables' section"
    rows = {}
    for line in section.group(1).splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        match = re.fullmatch(r"`([a-z][a-z0-9_]*)`", cells[0]) if len(cells) >= 3 else None
        if match and match.group(1).startswith(role + "_"):
            rows[match.group(1)] = cells[1]
    return rows


@pytest.mark.parametrize("role", ROLES)
def test_readme_table_names_every_option_of_the_argument_specs(role):
    documented = set(_readme_variables(role))
    specified = {name for name in _spec_options(role) if name.startswith(role + "_")}
    assert documented - specified == set(), f"{role}: in the README, not in argument_specs"
    assert specified - documented == set(), f"{role}: in argument_specs, not in the README"


@pytest.mark.parametrize("role", ROLES)
def test_readme_literal_defaults_are_the_specs_defaults(role):
    options = _spec_options(role)
    compared = 0
    for name, cell in _readme_variables(role).items():
        literal = re.fullmatch(r"`([^`]*)`", cell)
        if not literal or "default" not in options.get(name, {}):
            continue  # a described default ("every isilon host's address") is not compared
        compared += 1
        readme_default = yaml.safe_load(literal.group(1)) if literal.group(1) else ""
        assert readme_default == options[name]["default"], (
            f"{role}: README says {name} defaults to {literal.group(1)!r}, "
            f"argument_specs says {options[name]['default']!r}"
        )
    literal_defaults = [
        name for name, spec in options.items()
        if name.startswith(role + "_") and "default" in spec
        and not (isinstance(spec["default"], str) and "{{" in spec["default"])
    ]  # fmt: skip
    # a role whose specs give literal defaults shows at least one of them as a literal
    assert compared > 0 or not literal_defaults, f"{role}: no README default was compared"


def _code_files(base: Path):
    return [p for p in base.rglob("*") if p.is_file() and p.suffix in CODE_SUFFIXES]


_PRIVATE = re.compile(r"(?<![A-Za-z0-9_])_([a-z][a-z0-9]*(?:_[a-z0-9]+)+)")


def _private_names(text: str) -> set[tuple[str, str]]:
    """(owner role, name) of each `_<role>_...` name; the longest role prefix owns it
    (`_cluster_host_x` is cluster_host's, not cluster's)."""
    found = set()
    for match in _PRIVATE.finditer(text):
        owners = [role for role in ROLES if match.group(1).startswith(role + "_")]
        if owners:
            found.add((max(owners, key=len), match.group(0)))
    return found


@pytest.mark.parametrize("role", ROLES)
def test_no_role_reads_another_roles_private_variables(role):
    found = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in _code_files(ROOT / "roles" / role)
        for owner, name in _private_names(path.read_text())
        if owner != role
    }
    assert not found


_LOCALHOST_READ = re.compile(r"""hostvars\[\s*['"]localhost['"]\s*\]""")


@pytest.mark.parametrize("role", ROLES)
def test_no_role_reads_the_control_hosts_copy_of_a_result(role):
    """A role reads what the early phase or another role published as its host's own fact
    (the early phase's mark is set on every host), never back from hostvars['localhost']."""
    found = [
        str(path.relative_to(ROOT))
        for path in _code_files(ROOT / "roles" / role)
        if _LOCALHOST_READ.search(path.read_text())
    ]
    assert found == []


def test_the_early_phase_marks_every_host():
    """The mark the roles read as their own fact is set on every host of the inventory."""
    plays = yaml.safe_load((ROOT / "playbooks" / "preflight.yml").read_text())
    play = plays[-1]
    (task,) = play["tasks"]
    assert task["ansible.builtin.set_fact"] == {"dlcluster_early_phase_done": True}
    # run_once: Ansible gives a set_fact's facts to every host of the play, whose hosts
    # are the control host (first, where the one execution is counted) and all others.
    assert task["run_once"] is True
    assert "delegate_to" not in task and "loop" not in task
    assert "else 'localhost:all'" in play["hosts"]


def test_playbooks_read_no_roles_private_variables():
    found = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in [*_code_files(ROOT / "playbooks"), ROOT / "site.yml"]
        for _owner, name in _private_names(path.read_text())
    }
    assert not found


def test_private_names_belong_to_the_longest_role_prefix():
    assert _private_names("{{ _cluster_host_package_list }} {{ _cluster_x }}") == {
        ("cluster_host", "_cluster_host_package_list"),
        ("cluster", "_cluster_x"),
    }


_HOST_READ = re.compile(
    r"\b(cluster_host_packages|cluster_host_read|nvidia_gpu_pci_addresses|nvidia_gpu_device_files)\b"
)


def _dependencies(role: str) -> list[str]:
    meta = yaml.safe_load((ROOT / "roles" / role / "meta" / "main.yml").read_text()) or {}
    return [d["role"] if isinstance(d, dict) else d for d in meta.get("dependencies") or []]


def test_roles_that_read_the_server_read_depend_on_cluster_host():
    """cluster_host publishes the packages and GPUs; every role that reads them (in its
    tasks, defaults, vars or templates) lists it as a dependency, so the read comes first
    however the role is run: in site.yml, alone in a site's own play, or from Molecule."""
    readers = [
        role
        for role in ROLES
        if role != "cluster_host"
        and any(_HOST_READ.search(path.read_text()) for path in _code_files(ROOT / "roles" / role))
    ]
    assert len(readers) >= 10  # the search finds them (base, nics, the driver, slurm, ...)
    assert [role for role in readers if "cluster_host" not in _dependencies(role)] == []


def _play_roles(play: dict) -> list[tuple[str, str | None]]:
    """(role, tasks_from) a play runs, in order: its roles: list, then its tasks' includes."""
    names = [(r["role"] if isinstance(r, dict) else r, None) for r in play.get("roles") or []]
    for task in play.get("tasks") or []:
        for key in ("ansible.builtin.include_role", "ansible.builtin.import_role"):
            if key in task:
                names.append((task[key]["name"], task[key].get("tasks_from")))
    return names


def test_plays_leave_the_server_read_to_the_roles_dependency():
    """No play lists cluster_host for its roles: their dependency runs it. The one
    exception is the read itself (tasks_from: host.yml) as the first task of the GPU
    servers' first play, a task execution cheaper than the dependency's include."""
    files = [
        *sorted((ROOT / "playbooks").rglob("*.yml")),
        *sorted(ROOT.glob("molecule/*/converge.yml")),
    ]
    listed = [
        (str(path.relative_to(ROOT)), play["name"], position, tasks_from)
        for path in files
        for play in yaml.safe_load(path.read_text()) or []
        for position, (role, tasks_from) in enumerate(_play_roles(play))
        if role == "cluster_host"
    ]
    assert listed == [("playbooks/layers/compute.yml", "Configure the GPU servers", 0, "host.yml")]


def test_dlcluster_directories_are_not_hard_coded():
    """/etc/dlcluster and /var/lib/dlcluster are the cluster role's defaults, nowhere else."""
    literal = re.compile(r"/(etc|var/lib)/dlcluster")
    found = [
        str(path.relative_to(ROOT))
        for base in ("roles", "playbooks", "library", "module_utils", "filter_plugins")
        for path in _code_files(ROOT / base)
        if literal.search(path.read_text())
        and path.relative_to(ROOT).parts[:2] != ("roles", "cluster")
    ]
    assert found == []


def test_roles_that_read_shared_settings_depend_on_the_cluster_role():
    shared = re.compile(
        r"\bcluster_(config_dir|state_dir|data_mounts_file|packages|data_mtu|registry)\b"
    )
    for role in ROLES:
        if role == "cluster":
            continue
        reads = any(
            shared.search(path.read_text()) for path in _code_files(ROOT / "roles" / role / "tasks")
        )
        reads = reads or any(
            shared.search(path.read_text())
            for sub in ("defaults", "vars", "templates")
            for path in _code_files(ROOT / "roles" / role / sub)
        )
        if reads:
            assert "cluster" in _all_dependencies(role), (
                f"{role} reads cluster_* settings but does not depend on cluster"
            )


def _all_dependencies(role: str) -> set[str]:
    """A role's dependencies and theirs: Ansible gives a role the defaults of all of them."""
    found: set[str] = set()
    pending = _dependencies(role)
    while pending:
        dependency = pending.pop()
        if dependency not in found:
            found.add(dependency)
            pending += _dependencies(dependency)
    return found


def test_a_role_lists_cluster_only_where_cluster_host_does_not_bring_it():
    """cluster_host depends on cluster: a role listing both loads cluster twice at every
    import (each load reads the role's files again), for nothing."""
    assert "cluster" in _dependencies("cluster_host")
    assert [r for r in ROLES if {"cluster", "cluster_host"} <= set(_dependencies(r))] == []


# ---- values given on the command line ------------------------------------------------------
# `-e name=value` makes every value a string, and extra vars outrank everything, so a role
# cannot convert them once: `when: name` on "false" is an error in ansible-core 2.19, and
# "false" is truthy inside a Jinja expression. Wherever a bool or number variable is read
# in an expression, it goes through `| bool`, `| int` or `| float`. A whole `"{{ name }}"`
# in a task is a module argument (the module converts it) or text, and is left alone.
CONVERSIONS = {"bool": "bool", "int": "int", "float": "float"}
# reads of the raw value by the checks that refuse it, naming it as given
RAW_FOR_CHECKS = {("roles/preflight/tasks/main.yml", "cluster_data_mtu")}


def _typed_options(role: str) -> dict[str, str]:
    return {
        name: spec["type"]
        for name, spec in _spec_options(role).items()
        if spec.get("type") in CONVERSIONS
    }


CONDITIONS = re.compile(r"^(\s*)(?:-\s+)?(when|that|failed_when|changed_when|until):(.*)$")


def _expression_spans(text: str) -> list[tuple[int, int]]:
    """Where `text` holds Jinja expressions: {{ }} and {% %}, and the bare expressions of
    when / that / failed_when / changed_when / until (inline or as an indented list)."""
    spans = [m.span() for m in re.finditer(r"\{%.*?%\}", text, re.S)]
    for opening in re.finditer(r"\{\{", text):
        depth, position = 0, opening.start()
        while position < len(text):  # to the matching }}, past dict literals' braces
            depth += {"{": 1, "}": -1}.get(text[position], 0)
            position += 1
            if depth == 0:
                break
        spans.append((opening.start(), position))
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    for index, line in enumerate(lines):
        match = CONDITIONS.match(line)
        if not match:
            continue
        end = index + 1
        if not match.group(3).strip() or match.group(3).strip() in (">-", "|", ">"):
            while end < len(lines) and (
                not lines[end].strip()
                or len(lines[end]) - len(lines[end].lstrip()) > len(match.group(1))
            ):
                end += 1
        spans.append((offsets[index] + match.start(3), offsets[end]))
    return spans


def _unconverted_reads(path: Path, names: dict[str, str]) -> list[str]:
    """Where `path` reads one of `names` in an expression without its conversion."""
    text = path.read_text()
    spans = _expression_spans(text)
    derived = path.parent.name in ("vars", "defaults")  # a whole "{{ x }}" there is a copy
    found = []
    for name, kind in names.items():
        for match in re.finditer(rf"(?<![\w.'\"]){re.escape(name)}\b", text):
            if (str(path.relative_to(ROOT)), name) in RAW_FOR_CHECKS:
                continue
            if not any(start <= match.start() < end for start, end in spans):
                continue  # text: a task name, a comment, a message
            line_start = text.rfind("\n", 0, match.start()) + 1
            if text[line_start : match.start()].lstrip().startswith("#"):
                continue
            rest, before = text[match.end() :], text[: match.start()]
            if re.match(r"\s+is\s+(not\s+)?(defined|undefined|none)\b", rest):
                continue  # whether it is set, not its value
            if re.match(rf"\s*(\|\s*default\([^)]*\)\s*)?\|\s*{CONVERSIONS[kind]}\b", rest):
                continue
            whole = re.search(r"\{\{\s*$", before) and re.match(r"\s*\}\}", rest)
            if whole and not derived:
                continue
            line = text.count("\n", 0, match.start()) + 1
            found.append(f"{path.relative_to(ROOT)}:{line}: {name} ({kind})")
    return found


@pytest.mark.parametrize("role", ROLES)
def test_bool_and_number_variables_are_converted_where_read(role):
    names = {**_typed_options("cluster"), **_typed_options(role)}  # every role reads cluster_*
    base = ROOT / "roles" / role
    files = [
        path
        for folder in ("tasks", "handlers", "vars", "defaults", "templates")
        for path in sorted((base / folder).glob("**/*"))
        if path.is_file()
    ]
    files += sorted((ROOT / "playbooks").rglob("*.yml"))
    problems = [line for path in files for line in _unconverted_reads(path, names)]
    assert problems == [], "read without | bool / | int / | float:\n" + "\n".join(problems)


def test_every_tasks_from_entry_point_has_its_own_contract():
    """A `tasks_from: x.yml` call validates against the entry point named x; one without
    an entry in meta/argument_specs.yml would skip validation altogether."""
    calls = set()
    for path in [*(ROOT / "playbooks").rglob("*.yml"), *(ROOT / "roles").glob("*/tasks/*.yml")]:
        text = path.read_text()
        for match in re.finditer(r"name: (\w+)\n\s+tasks_from: ([\w-]+)\.yml", text):
            calls.add((match.group(1), match.group(2)))
    assert calls, "no tasks_from call found: the pattern no longer matches the playbooks"
    missing = sorted(f"{role}:{entry}" for role, entry in calls if entry not in _specs(role))
    assert missing == [], f"tasks_from entry points without a spec: {missing}"
