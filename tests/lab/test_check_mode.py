"""`site.yml --check --diff`, the README's "what would change", on the lab.

On the freshly created lab (Molecule's prepare step runs these with `-m fresh_lab`,
before the first converge) it must run end to end and report what the first run would
do; on the converged lab it must report nothing to change. Neither run may change
anything on any device.
"""

from __future__ import annotations

import re

import pytest
from conftest import docker_host, load_lab_groups, run_playbook
from device_state import differences, snapshot


def _recap(output: str) -> dict[str, dict[str, int]]:
    recap = output.split("PLAY RECAP", 1)[1]
    return {
        host: {key: int(value) for key, value in re.findall(r"(\w+)=(\d+)", counts)}
        for host, counts in re.findall(r"^(\S+)\s+: (ok=.*)$", recap, re.M)
    }


def _check_site() -> tuple[str, dict[str, dict[str, int]]]:
    result = run_playbook("site.yml", "--check", "--diff")
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-5000:]
    recap = _recap(output)
    assert not [h for h, c in recap.items() if c["failed"] or c["unreachable"]], recap
    return output, recap


@pytest.mark.fresh_lab
def test_check_mode_on_the_fresh_lab_says_what_the_first_run_would_do_and_touches_nothing():
    compute = sorted(load_lab_groups()["compute"])
    configured = docker_host(compute[0]).run("test -e /etc/dlcluster/cluster.yml").rc == 0
    assert not configured, "the lab is already configured: this test needs a fresh lab"
    before = snapshot()
    output, recap = _check_site()
    assert differences(before, snapshot()) == []
    # every layer says what it would do: packages, switch pushes, OneFS, containers
    for host in [*compute, "lab-s5232", "lab-7060", "lab-isilon-1"]:
        assert recap[host]["changed"] > 0, (host, recap)
    assert "would install: " in output
    assert re.search(r"no Docker engine yet .* a run would (build|pull) ", output)
    assert "+interface breakout 1/1/21 map 40g-1x" in output  # S5232: the papers' 40G ports
    assert "+ip routing" in output  # 7060


def test_check_mode_on_the_converged_lab_reports_nothing_and_touches_nothing():
    before = snapshot()
    output, recap = _check_site()
    assert differences(before, snapshot()) == []
    assert [h for h, c in recap.items() if c["changed"]] == [], recap
    assert "not checked (check mode)" in output
