"""The bad-input table (tests/unit/test_bad_input.py) against the converged lab.

Each value is given to site.yml as extra vars: the run must fail in its first play,
naming the variable and the value, and afterwards no device holds anything else than
before: servers (addresses, links, fstab, /etc/hosts, packages, containers), the OneFS
log of writes, the switches' running and startup configurations.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from conftest import ROOT, run_playbook
from device_state import differences, snapshot

sys.path.insert(0, str(ROOT / "tests" / "unit"))
from test_bad_input import PREFLIGHT_CASES, shared_runs, shared_values

# Cases that fit the lab as they are written for the table's one-server inventory;
# the others depend on its host count or its hosts' own variables.
NOT_ON_THE_LAB = {
    "one_mount_per_address": "written for one server and four addresses",
    "ngc_ssh_port_of_the_hosts_sshd": "the lab servers' sshd is reached through published ports",
}


def _expected(message: str) -> str:
    """The message without the table's host prefix (the lab's hosts differ)."""
    prefix, _, rest = message.partition(": ")
    return rest if prefix.startswith(("gpu-1", "isilon-1")) else message


def test_every_bad_value_fails_the_first_play_and_no_device_changes(tmp_path: Path):
    cases = [c for c in PREFLIGHT_CASES if not c[1] and c[0] not in NOT_ON_THE_LAB]
    assert len(cases) >= 25
    before = snapshot()
    wrong = []
    # Preflight reports every problem before it fails: the cases share runs as the
    # table's own test groups them, and each one's message must appear in its run.
    for index, run in enumerate(shared_runs(cases)):
        values = tmp_path / f"run-{index}.json"
        values.write_text(json.dumps(shared_values(run)))
        result = run_playbook("site.yml", "-e", f"@{values}")
        output = " ".join((result.stdout + result.stderr).split())
        names = ", ".join(case[0] for case in run)
        if result.returncode == 0:
            wrong.append(f"{names}: the run succeeded")
        if "PLAY [Configure the data switches]" in output:
            wrong.append(f"{names}: the run went past the early phase")
        wrong += [
            f"{name}: expected {_expected(message)!r}"
            for name, _groups, _values, message in run
            if _expected(message) not in output
        ]
    assert wrong == []
    assert differences(before, snapshot()) == []
