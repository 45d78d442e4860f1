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
import shutil
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
    A group named again as another's child (an empty entry) adds to what it has, and a
    host listed in several groups keeps the variables of every listing."""
    hosts = {host: dict(hvars or {}) for host, hvars in (group.get("hosts") or {}).items()}
    for child_name, child in (group.get("children") or {}).items():
        _walk(child or {}, child_name, out)
        for host, hvars in out[child_name].items():
            hosts[host] = {**hosts.get(host, {}), **hvars}
    known = out.get(name, {})
    out[name] = {
        **known,
        **{host: {**known.get(host, {}), **hvars} for host, hvars in hosts.items()},
    }
    for other in out.values():  # the same host seen earlier in another group
        for host in set(other) & set(hosts):
            other[host] = {**other[host], **out[name][host]}


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


EE_IMAGE = os.environ.get("DLCLUSTER_EE_IMAGE", "dlcluster-ee:latest")
# Where the lab's state is mounted in the job container (AWX: credentials, injected).
STATE_IN_EE = "/runner/lab-state"
# What an AWX project checkout does not carry: VCS data, local tools, caches, secrets.
NOT_IN_PROJECT = shutil.ignore_patterns(
    ".git", ".venv", ".cache", ".state", ".secrets", "__pycache__", ".*_cache"
)
# The ident of the shared run, so its artifacts (and the fact cache in them) have a name.
SITE_RUN_IDENT = "noop"


@pytest.fixture(scope="session")
def ee_image() -> str:
    """The execution environment, built by `make ee` exactly as a user builds it (cached
    by Docker: a second build takes seconds)."""
    build = subprocess.run(
        ["make", "--no-print-directory", "ee", f"EE_IMAGE={EE_IMAGE}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert build.returncode == 0, (build.stdout + build.stderr)[-4000:]
    return EE_IMAGE


@dataclass(frozen=True)
class SiteRun:
    """A finished ansible-runner run of site.yml: its result, what it printed, the
    command it ran, the folder of its artifacts (events, stdout), and its job's folder."""

    result: Any
    output: str
    command: list[str]
    artifact_dir: Path
    private_data_dir: Path


@pytest.fixture(scope="session")
def site_run(ee_image: str, tmp_path_factory: pytest.TempPathFactory) -> SiteRun:
    """The lab suite's one no-op run of site.yml on the converged lab, read by several
    tests for several properties (a full run costs minutes, so they share it):
    - as AWX / Automation Platform run a job: ansible-runner with process isolation starts
      the execution environment with a private data directory at /runner, the project
      copied into /runner/project and the inventory into /runner/inventory (where AWX
      writes the inventory it imported from the project); the lab's keys, passwords and
      known_hosts come in through a mount, as AWX credentials would; the job's fact cache
      holds the facts the converge gathered, as AWX's fact cache does
      (test_execution_environment);
    - it changes nothing on any host: the Molecule scenario's idempotence check, verify's
      first test, and its task executions per host are the budget (test_noop);
    - with every boolean and number default given with -e as a string (test_command_line);
    - at -vvv, every task's arguments printed (test_secrets: no secret shows);
    - the roles' reports of what they skipped and why (test_apptainer, test_modules).
    """
    private_data_dir = tmp_path_factory.mktemp("site-run") / "job"
    shutil.copytree(ROOT, private_data_dir / "project", ignore=NOT_IN_PROJECT, symlinks=True)
    shutil.copytree(ROOT / "inventories" / "lab", private_data_dir / "inventory")
    facts = ROOT / ".cache" / "facts"
    if facts.is_dir():
        shutil.copytree(facts, private_data_dir / "artifacts" / SITE_RUN_IDENT / "fact_cache")
    result = ansible_runner.run(
        private_data_dir=str(private_data_dir),
        ident=SITE_RUN_IDENT,
        playbook="site.yml",
        envvars={
            # AWX runs the project's ansible.cfg; the lab finds its state where it is mounted
            "ANSIBLE_CONFIG": "/runner/project/ansible.cfg",
            "DLCLUSTER_LAB_STATE": STATE_IN_EE,
        },
        process_isolation=True,
        process_isolation_executable="docker",
        container_image=ee_image,
        container_volume_mounts=[f"{ROOT / 'lab' / '.state'}:{STATE_IN_EE}"],
        # the lab's devices listen on 127.0.0.1 of this machine
        container_options=["--network=host"],
        verbosity=3,
        cmdline=shlex.join(defaults_as_extra_vars()),
        quiet=True,
    )
    artifact_dir = Path(result.config.artifact_dir)
    command = json.loads((artifact_dir / "command").read_text())["command"]
    return SiteRun(result, result.stdout.read(), command, artifact_dir, private_data_dir)


@pytest.fixture(scope="session")
def site_run_text(site_run: SiteRun) -> str:
    """What the shared run printed, colour dropped and whitespace folded: the roles'
    reports of what they skipped and why, and the recap's custom stats."""
    return re.sub(r"\s+", " ", re.sub(r"\x1b\[[0-9;]*m", "", site_run.output))


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


def task_executions(events: Any) -> dict[str, int]:
    """Task executions per host in a run's events, counted as the bench counts them
    (bench/callback_plugins/bench_stats.py): a task that ran on a host and was not
    skipped is one, a loop is one, an include is one."""
    counts: dict[str, int] = {}
    for event in events:
        if event.get("event") in ("runner_on_ok", "runner_on_failed", "runner_on_unreachable"):
            host = event["event_data"]["host"]
            counts[host] = counts.get(host, 0) + 1
    return counts


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
    config.addinivalue_line(
        "markers",
        "idempotence: the converged lab's re-run changes nothing; runs before every other"
        " test, whatever the file names, since the others change the lab and put it back",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The idempotence check first; the fresh-lab tests left out unless `-m` names them
    (on a converged lab they cannot hold, and the verify step runs on one)."""
    items.sort(key=lambda item: item.get_closest_marker("idempotence") is None)
    if "fresh_lab" in (config.getoption("markexpr") or ""):
        return
    kept = [item for item in items if item.get_closest_marker("fresh_lab") is None]
    deselected = [item for item in items if item.get_closest_marker("fresh_lab") is not None]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = kept
