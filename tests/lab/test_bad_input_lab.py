"""The bad-input table (tests/unit/test_bad_input.py) against the converged lab.

Each value is given to site.yml as extra vars: the run must fail in its first play,
naming the variable and the value, and afterwards no device holds anything else than
before: servers (addresses, links, fstab, /etc/hosts, packages, containers), the OneFS
log of writes, the switches' running and startup configurations.
"""

from __future__ import annotations

import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from conftest import ROOT, run_playbook
from device_state import differences, snapshot

sys.path.insert(0, str(ROOT / "tests" / "unit"))
from test_bad_input import PREFLIGHT_CASES

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


def _problem(case: tuple[str, Any, dict[str, Any], str], tmp_path: Path) -> str | None:
    """site.yml with one case's values: None when it failed in its first play, naming them."""
    name, _groups, extra_vars, message = case
    values = tmp_path / f"{name}.json"
    values.write_text(json.dumps(extra_vars))
    result = run_playbook("site.yml", "-e", f"@{values}")
    output = " ".join((result.stdout + result.stderr).split())
    if result.returncode == 0 or _expected(message) not in output:
        return f"{name}: rc {result.returncode}, expected {_expected(message)!r}"
    if "PLAY [Configure the data switches]" in output:
        return f"{name}: the run went past the early phase"
    return None


def test_every_bad_value_fails_the_first_play_and_no_device_changes(tmp_path: Path):
    cases = [c for c in PREFLIGHT_CASES if not c[1] and c[0] not in NOT_ON_THE_LAB]
    assert len(cases) >= 25
    before = snapshot()
    # Each run stops in the first play, on the control host, before any device is
    # contacted: the runs are independent and go side by side, one per core (a run is
    # CPU-bound on one core for most of its time).
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        wrong = [p for p in pool.map(lambda case: _problem(case, tmp_path), cases) if p]
    assert wrong == []
    assert differences(before, snapshot()) == []
