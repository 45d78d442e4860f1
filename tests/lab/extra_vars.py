"""Every boolean and number role option the lab leaves at its default, as `-e` strings.

`-e name=value` makes every value a string, and extra vars outrank the inventory, so a
role that reads a boolean or a number without converting it breaks (or, worse, reads
"false" as true) only when an admin overrides it on the command line. The switches
role's inputs that a fabric role plans (switches_cumulus_*, switches_mlnxos_*) are left
out: an extra var would outrank the plan, and preflight refuses them on a fabric switch.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "filter_plugins"))
from fabrics import CUMULUS_VARIABLES, MLNXOS_VARIABLES

ROOT = Path(__file__).resolve().parents[2]
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
