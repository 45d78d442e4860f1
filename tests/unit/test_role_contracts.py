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
    for name, cell in _readme_variables(role).items():
        literal = re.fullmatch(r"`([^`]*)`", cell)
        if not literal or "default" not in options.get(name, {}):
            continue  # a described default ("every isilon host's address") is not compared
        readme_default = yaml.safe_load(literal.group(1)) if literal.group(1) else ""
        assert readme_default == options[name]["default"], (
            f"{role}: README says {name} defaults to {literal.group(1)!r}, "
            f"argument_specs says {options[name]['default']!r}"
        )


def _code_files(base: Path):
    return [p for p in base.rglob("*") if p.is_file() and p.suffix in CODE_SUFFIXES]


@pytest.mark.parametrize("role", ROLES)
def test_no_role_reads_another_roles_private_variables(role):
    others = [other for other in ROLES if other != role]
    pattern = re.compile(r"(?<![A-Za-z0-9_])_(" + "|".join(others) + r")_[a-z0-9_]+")
    found = {
        f"{path.relative_to(ROOT)}: {match.group(0)}"
        for path in _code_files(ROOT / "roles" / role)
        for match in pattern.finditer(path.read_text())
    }
    assert not found


def test_playbooks_read_no_roles_private_variables():
    pattern = re.compile(r"(?<![A-Za-z0-9_])_(" + "|".join(ROLES) + r")_[a-z0-9_]+")
    found = {
        f"{path.relative_to(ROOT)}: {match.group(0)}"
        for path in [*_code_files(ROOT / "playbooks"), ROOT / "site.yml"]
        for match in pattern.finditer(path.read_text())
    }
    assert not found


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
        meta = yaml.safe_load((ROOT / "roles" / role / "meta" / "main.yml").read_text())
        deps = [
            dep["role"] if isinstance(dep, dict) else dep for dep in meta.get("dependencies") or []
        ]
        if reads:
            assert "cluster" in deps, (
                f"{role} reads cluster_* settings but does not depend on cluster"
            )
