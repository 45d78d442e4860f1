"""The bad-input table (tests/unit/test_bad_input.py) against the lab's whole site.yml,
under the network guard.

Each value is given to `site.yml -i inventories/lab` as extra vars, as an admin's typo
would reach it: the run must fail in its early phase, naming the variable and the value,
and nothing may try to reach a device. The guard (tests/unit/plan_guard, as for the
offline plans) logs and refuses every network connection and every ssh, docker or curl a
run attempts, so an empty log proves that no switch, server, registry or cluster API was
contacted before the refusal. The cluster's own node pools are not read here (their check
is the lab's: tests/lab/test_bad_input_lab.py, which also compares every device's state).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_bad_input import PREFLIGHT_CASES, shared_runs, shared_values
from test_plan import BIN, guarded_run

# Cases that fit the lab as they are written for the table's one-server inventory;
# the others depend on its host count or its hosts' own variables.
NOT_ON_THE_LAB = {
    "one_mount_per_address": "written for one server and four addresses",
    "ngc_ssh_port_of_the_hosts_sshd": "the lab servers' sshd is reached through published ports",
}
CASES = [c for c in PREFLIGHT_CASES if not c[1] and c[0] not in NOT_ON_THE_LAB]
RUNS = shared_runs(CASES)


def _expected(message: str) -> str:
    """The message without the table's host prefix (the lab's hosts differ)."""
    prefix, _, rest = message.partition(": ")
    return rest if prefix.startswith(("gpu-1", "isilon-1")) else message


def test_the_table_fits_the_lab():
    assert len(CASES) >= 25
    assert sum(len(run) for run in RUNS) == len(CASES)


@pytest.mark.parametrize("run", RUNS, ids=[run[0][0] for run in RUNS])
def test_every_bad_value_stops_site_yml_before_any_connection(run, tmp_path: Path):
    values = tmp_path / "values.json"
    values.write_text(json.dumps(shared_values(run)))
    log = tmp_path / "guard.log"
    log.touch()
    result = guarded_run(
        [str(BIN / "ansible-playbook"), "-i", "inventories/lab", "site.yml",
         "-e", f"@{values}", "-e", "onefs_tiering_preflight_read_cluster=false"],
        log,
    )  # fmt: skip
    output = " ".join((result.stdout + result.stderr).split())
    assert result.returncode != 0, output[-3000:]
    assert "PLAY [Configure the data switches]" not in output, output[-3000:]
    missing = [
        f"{name}: {_expected(message)!r}"
        for name, _groups, _values, message in run
        if _expected(message) not in output
    ]
    assert missing == [], output[-3000:]
    assert log.read_text() == ""
