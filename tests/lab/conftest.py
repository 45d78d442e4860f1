"""Fixtures for checks of the running lab (Molecule's verify step and `make verify`).

The lab's hosts and their expected addresses come from inventories/lab/hosts.yml;
each check runs inside the lab containers through testinfra's docker backend, so it
sees the hosts' real state whatever Ansible believes.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ansible_runner
import pytest
import testinfra
import yaml
from extra_vars import defaults_as_extra_vars

ROOT = Path(__file__).resolve().parents[2]
LAB_INVENTORY = ROOT / "inventories" / "lab" / "hosts.yml"


def _walk(group: dict[str, Any], name: str, out: dict[str, dict[str, dict[str, Any]]]) -> None:
    """Flatten the YAML inventory into {group: {host: vars}}, children included in parents.
    A group named again as another's child (an empty entry) adds to what it has."""
    hosts = dict(group.get("hosts") or {})
    for child_name, child in (group.get("children") or {}).items():
        _walk(child or {}, child_name, out)
        hosts.update(out[child_name])
    known = out.get(name, {})
    out[name] = {**known, **{host: dict(hvars or {}) for host, hvars in hosts.items()}}


def load_lab_groups() -> dict[str, dict[str, dict[str, Any]]]:
    """The lab inventory's groups, each mapping host name to its inventory variables."""
    groups: dict[str, dict[str, dict[str, Any]]] = {}
    _walk(yaml.safe_load(LAB_INVENTORY.read_text())["all"], "all", groups)
    return groups


@pytest.fixture(scope="session")
def lab_groups() -> dict[str, dict[str, dict[str, Any]]]:
    return load_lab_groups()


@pytest.fixture(scope="session")
def lab_state_dir() -> Path:
    return ROOT / "lab" / ".state"


def lab_password(name: str) -> str:
    """A lab secret generated at bring-up (lab/.state/secrets/<name>)."""
    return (ROOT / "lab" / ".state" / "secrets" / name).read_text().strip()


def docker_host(name: str) -> testinfra.host.Host:
    """A testinfra host that runs commands inside the lab container `name`."""
    return testinfra.get_host(f"docker://{name}")


def playbook_command(playbook: str, *args: str) -> tuple[list[str], dict[str, str]]:
    """The argv and environment of an ansible-playbook run against the lab inventory."""
    venv = Path(os.environ.get("VIRTUAL_ENV", ROOT / ".venv"))
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("ANSIBLE_FORCE_COLOR", "PY_COLORS")},
        "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"),
        "ANSIBLE_NOCOLOR": "1",  # Molecule forces colour; the tests read plain text
        "DLCLUSTER_LAB_STATE": str(ROOT / "lab" / ".state"),
    }
    argv = [str(venv / "bin" / "ansible-playbook"), "-i", "inventories/lab", playbook, *args]
    return argv, env


def run_playbook(playbook: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run a playbook against the lab inventory, as an admin re-running a change would."""
    argv, env = playbook_command(playbook, *args)
    return subprocess.run(
        argv,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


@pytest.fixture(scope="session")
def scheduler_check() -> str:
    """One check-mode run of the scheduler layer on the converged lab (whitespace folded),
    whose output several tests read: the roles' reports and the recap's custom stats."""
    result = run_playbook("playbooks/scheduler.yml", "--check")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    return re.sub(r"\s+", " ", result.stdout)


@dataclass(frozen=True)
class SiteRun:
    """A finished ansible-runner run of site.yml: its result, what it printed, the
    ansible-playbook command it ran, and the folder of its artifacts (events, stdout)."""

    result: Any
    output: str
    command: list[str]
    artifact_dir: Path


@pytest.fixture(scope="session")
def site_run(tmp_path_factory: pytest.TempPathFactory) -> SiteRun:
    """One run of site.yml on the converged lab, read by three tests for three properties
    (a full run costs minutes, so they share it rather than make one each):
    - through ansible-runner, as AWX / Automation Platform run a project
      (test_ansible_runner: it converges with nothing to change on any host, which is
      also the Molecule scenario's idempotence check: verify's first test);
    - with every boolean and number default given with -e as a string (test_command_line);
    - at -vvv, every task's arguments printed (test_secrets: no secret shows).
    """
    result = ansible_runner.run(
        private_data_dir=str(tmp_path_factory.mktemp("site-run")),
        project_dir=str(ROOT),
        playbook="site.yml",
        inventory=str(ROOT / "inventories" / "lab"),
        envvars={
            # AWX projects use the project's ansible.cfg; the lab finds its state here
            "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"),
            "DLCLUSTER_LAB_STATE": str(ROOT / "lab" / ".state"),
            "PATH": os.environ["PATH"],
        },
        verbosity=3,
        cmdline=shlex.join(defaults_as_extra_vars()),
        quiet=True,
    )
    artifact_dir = Path(result.config.artifact_dir)
    command = json.loads((artifact_dir / "command").read_text())["command"]
    return SiteRun(result, result.stdout.read(), command, artifact_dir)


def assert_runner_noop(result: Any, output: str) -> None:
    """An ansible-runner run of site.yml that succeeded and changed nothing on the lab."""
    assert result.status == "successful", output[-3000:]
    assert result.rc == 0
    stats = result.stats
    assert sum(stats["changed"].values()) == 0, stats["changed"]
    assert not stats["failures"] and not stats["dark"]
    assert set(stats["ok"]) >= set(load_lab_groups()["compute"]) | {
        "lab-isilon-1",
        "lab-s5232",
        "lab-7060",
    }


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize `compute_name` / `isilon_name` over the lab inventory's hosts."""
    groups = load_lab_groups()
    for fixture, group in (("compute_name", "compute"), ("isilon_name", "isilon")):
        if fixture in metafunc.fixturenames:
            metafunc.parametrize(fixture, sorted(groups[group]))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "fresh_lab: needs the lab as created, before the first converge (Molecule's prepare"
        " step selects these with -m fresh_lab; every other run leaves them out)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave out the fresh-lab tests unless `-m` names them: on a converged lab they
    cannot hold, and the verify step runs on one."""
    if "fresh_lab" in (config.getoption("markexpr") or ""):
        return
    kept = [item for item in items if item.get_closest_marker("fresh_lab") is None]
    deselected = [item for item in items if item.get_closest_marker("fresh_lab") is not None]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = kept
