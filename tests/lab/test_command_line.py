"""Values given on the command line behave as the same values in the inventory.

`-e name=value` makes every value a string, and extra vars outrank the inventory, so a
role that reads a boolean or a number without converting it breaks (or, worse, reads
"false" as true) only when an admin overrides it on the command line. Here every boolean
and number variable of every role that the lab leaves at its default is given on the
command line as the string of that default (tests/lab/extra_vars.py): site.yml must run as
before, changing nothing on the converged lab (the shared run of conftest.site_run). The
switches role's inputs that a fabric role plans (switches_cumulus_*, switches_mlnxos_*)
are the exception: an extra var would outrank the plan, so preflight refuses them on a
fabric switch, from the command line as from the inventory.
"""

from __future__ import annotations

import re

from conftest import SiteRun, assert_runner_noop, run_playbook
from extra_vars import defaults_as_extra_vars


def test_the_command_line_covers_booleans_and_numbers_of_several_roles():
    names = {arg.split("=", 1)[0] for arg in defaults_as_extra_vars()[1::2]}
    prefixes = {name.split("_", 1)[0] for name in names}
    assert {"onefs", "isilon", "nics", "nvidia", "ngc"} <= prefixes, sorted(names)


def test_site_takes_booleans_and_numbers_given_as_strings(site_run: SiteRun):
    # the shared no-op run (conftest.site_run) was given every one of them (the command
    # starts with `docker run`, whose own `-e` options set the job's environment)
    command = site_run.command[site_run.command.index("ansible-playbook") :]
    given = [command[i + 1] for i, arg in enumerate(command[:-1]) if arg == "-e"]
    assert given == defaults_as_extra_vars()[1::2]
    assert_runner_noop(site_run.result, site_run.output)


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
