"""Values given on the command line behave as the same values in the inventory.

`-e name=value` makes every value a string, and extra vars outrank the inventory, so a
role that reads a boolean or a number without converting it breaks (or, worse, reads
"false" as true) only when an admin overrides it on the command line. Here every boolean
and number variable of every role that the lab leaves at its default is given on the
command line as the string of that default: site.yml must run as before, changing
nothing on the converged lab. The switches role's inputs that a fabric role plans
(switches_cumulus_*, switches_mlnxos_*) are the exception: an extra var would outrank the
plan, so preflight refuses them on a fabric switch, from the command line as from the
inventory.
"""

from __future__ import annotations

import re
import sys

import yaml
from conftest import ROOT, run_playbook

sys.path.insert(0, str(ROOT / "filter_plugins"))
from fabrics import CUMULUS_VARIABLES, MLNXOS_VARIABLES

LAB = ROOT / "inventories" / "lab"
# the switches role's inputs a fabric role sets from its plan (refused when also given)
FABRIC_PLANNED = {*CUMULUS_VARIABLES.values(), *MLNXOS_VARIABLES.values()}


def _lab_settings() -> set[str]:
    """Every variable name the lab inventory sets (hosts.yml and group_vars)."""
    text = (LAB / "hosts.yml").read_text() + "".join(
        path.read_text() for path in sorted((LAB / "group_vars").glob("**/*.yml"))
    )
    return set(re.findall(r"^\s*([a-z][a-z0-9_]*):", text, re.M))


def defaults_as_extra_vars() -> list[str]:
    """`-e name=value` for each bool/int/float role option with a literal default the lab
    does not set, the value written as an admin would type it."""
    taken = _lab_settings() | FABRIC_PLANNED
    values: dict[str, str] = {}  # an option of several entry points is given once
    for spec_path in sorted((ROOT / "roles").glob("*/meta/argument_specs.yml")):
        for entry in yaml.safe_load(spec_path.read_text())["argument_specs"].values():
            for name, spec in (entry.get("options") or {}).items():
                default = spec.get("default")
                if spec.get("type") not in ("bool", "int", "float") or name in taken:
                    continue
                if isinstance(default, bool):
                    values[name] = str(default).lower()
                elif isinstance(default, int | float):
                    values[name] = str(default)
    return [arg for name, value in values.items() for arg in ("-e", f"{name}={value}")]


def test_the_command_line_covers_booleans_and_numbers_of_several_roles():
    names = {arg.split("=", 1)[0] for arg in defaults_as_extra_vars()[1::2]}
    prefixes = {name.split("_", 1)[0] for name in names}
    assert {"onefs", "isilon", "nics", "nvidia", "ngc"} <= prefixes, sorted(names)


def test_site_takes_booleans_and_numbers_given_as_strings():
    result = run_playbook("site.yml", *defaults_as_extra_vars())
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-4000:]
    recap = output.split("PLAY RECAP", 1)[1]
    assert re.search(r"changed=[1-9]", recap) is None, recap
    assert re.search(r"failed=[1-9]|unreachable=[1-9]", recap) is None, recap


def test_a_fabric_planned_switch_setting_on_the_command_line_is_refused():
    # the extra var would outrank the plan ib_fabric passes to the switches role and turn
    # the lab QM8700's subnet manager off: refused before anything connects
    result = run_playbook("playbooks/network.yml", "-e", "switches_mlnxos_subnet_manager=false")
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-4000:]
    assert (
        "lab-qm8700: switches_mlnxos_subnet_manager is set, but the InfiniBand fabric plans"
        " this switch from ib_fabric_links and cluster_ib_subnet_managers; drop one"
    ) in " ".join(output.split())
    assert re.search(r"changed=[1-9]", output.split("PLAY RECAP", 1)[1]) is None


def test_a_false_given_as_a_string_is_false():
    # onefs_tiering_prune=false on the command line must not remove the cluster's
    # other tiers and policies (a bare "false" string is truthy in an expression)
    result = run_playbook("playbooks/storage.yml", "-e", "onefs_tiering_prune=false")
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-4000:]
    assert "Conditional" not in output
    assert re.search(r"changed=[1-9]", output.split("PLAY RECAP", 1)[1]) is None
