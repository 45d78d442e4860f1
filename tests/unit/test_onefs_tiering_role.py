"""The onefs_tiering role end to end against the OneFS simulator in this process.

`playbooks/storage.yml --tags onefs`, the command an admin runs after editing the tiers,
against the lab's simulated cluster (lab/simulators/onefs_sim, OneFS 9.10) served over
HTTPS on an ephemeral port of this process: an inventory of one Isilon node reaches it,
the requests it receives are read from the simulator's request log, and a fault file makes
it refuse writes as the lab's containers would. What the lab's cluster proves beyond the
API (NFS reads, `isi`, the papers' tiering test) stays in tests/lab/test_onefs_tiering.py.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_onefs_sim import PASSWORD, USER, Cluster
from throwaway_tls import self_signed

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
# the lab's file pool policy with another idle time (inventories/lab: the role's defaults)
POLICY = {
    "name": "Idle data to cold tier",
    "description": "Files not accessed for 30 days move to the H500 tier",
    "apply_order": 1,
    "idle_days": 30,
    "storagepool": "cold-tier",
    "ssd_strategy": "metadata",
    "snapshot_storagepool": "cold-tier",
    "snapshot_ssd_strategy": "metadata",
}


class Site:
    """A one-node Isilon inventory reaching a simulated cluster of this process (and the
    one GPU server the early phase wants a site to have)."""

    def __init__(self, tmp_path: Path):
        cert, key = (str(path) for path in self_signed(tmp_path))
        self.cert = cert
        self.cluster = Cluster(tmp_path, (cert, key))
        (self.cluster.ifs / "data").mkdir(exist_ok=True)
        self.log = self.cluster.ifs / ".ifsvar" / "requests.log"
        self.faults_file = self.cluster.ifs / ".ifsvar" / "faults.json"
        port = int(self.cluster.url.rsplit(":", 1)[1])
        self.inventory = tmp_path / "inventory.yml"
        node = {
            "ansible_connection": "local",
            "ansible_python_interpreter": sys.executable,
            "onefs_lnn": 1,
            "cluster_data_address": "10.201.1.21",
            "cluster_onefs_api_host": "127.0.0.1",
            "cluster_onefs_api_port": port,
            "cluster_onefs_api_ca_path": cert,
            "cluster_onefs_username": USER,
            "cluster_onefs_password": PASSWORD,
        }
        # the early phase checks the whole site: one GPU server, never contacted (the
        # onefs tag runs none of its plays)
        server = {"cluster_data_address": "10.201.1.11", "ansible_connection": "local"}
        site_vars = {"cluster_data_mtu": 9000, "cluster_registry_password": "unused"}
        self.inventory.write_text(json.dumps({"all": {"vars": site_vars, "children": {
            "isilon": {"hosts": {"lab-isilon-1": node}},
            "compute": {"hosts": {"gpu-1": server}},
            "servers": {"children": {"compute": {}}},
        }}}))  # fmt: skip

    def storage(self, *extra: str) -> subprocess.CompletedProcess[str]:
        env = {
            **os.environ,
            "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"),
            "ANSIBLE_NOCOLOR": "1",
            "ANSIBLE_STDOUT_CALLBACK": "default",
        }
        return subprocess.run(
            [str(BIN / "ansible-playbook"), "-i", str(self.inventory), "playbooks/storage.yml",
             "--tags", "onefs", *extra],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip

    def requests(self) -> list[str]:
        """Every state-changing request so far, as `METHOD PATH`."""
        if not self.log.exists():
            return []
        return [" ".join(line.split()[2:4]) for line in self.log.read_text().splitlines()]


def _recap(output: str) -> dict[str, int]:
    match = re.search(r"^lab-isilon-1\s+: (ok=.*)$", output, re.M)
    assert match, output[-3000:]
    return {key: int(value) for key, value in re.findall(r"(\w+)=(\d+)", match.group(1))}


def _job_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    """SmartPools jobs of half a second: the role waits for the job it starts."""
    monkeypatch.setenv("ONEFS_SIM_JOB_SECONDS", "0.5")
    monkeypatch.setenv("ONEFS_SIM_JOB_SECONDS_PER_FILE", "0")


@pytest.fixture(scope="module")
def converged_state(tmp_path_factory) -> Path:
    """The state file of a cluster the role converged from scratch, made once: the
    papers' access time, tiers, policies and export, as the lab's converge leaves them."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        _job_seconds(monkeypatch)
        made = Site(tmp_path_factory.mktemp("converge"))
        try:
            first = made.storage()
            assert first.returncode == 0, first.stdout[-3000:]
            assert _recap(first.stdout)["changed"] > 0
            assert made.requests()  # every object was written through the API
        finally:
            made.cluster.stop()
    return made.cluster.store.path


@pytest.fixture
def site(tmp_path, monkeypatch, converged_state):
    """A cluster in the converged state (a copy of it), with its own request log."""
    _job_seconds(monkeypatch)
    state = tmp_path / "ifs" / ".ifsvar" / "state.json"
    state.parent.mkdir(parents=True)
    shutil.copy(converged_state, state)
    made = Site(tmp_path)
    yield made
    made.cluster.stop()


# the role's apply tasks, each a module that reads its object again before writing
APPLY_TASKS = (
    "Track access times (the idle policy reads them)",
    "Build the tiers from node pools",
    "Point the default file pool policy at the hot tier",
    "Create, change in place or remove the file pool policies",
    "Export the paths the servers mount",
)


def _ran(output: str) -> set[str]:
    """The role's apply tasks that ran a module (not skipped) in this run's output."""
    ran = set()
    for name in APPLY_TASKS:
        section = output.split(f"TASK [onefs_tiering : {name}]", 1)
        assert len(section) == 2, f"no task {name!r} in the output"
        body = section[1].split("\nTASK [", 1)[0]
        if re.search(r"^(ok|changed|failed|fatal):", body, re.M):
            ran.add(name)
    return ran


def test_a_rerun_with_nothing_to_change_sends_no_write(site):
    before = site.requests()
    again = site.storage()
    assert again.returncode == 0, again.stdout[-3000:]
    assert _recap(again.stdout)["changed"] == 0
    assert site.requests() == before
    # the one onefs_info read decided it: no apply module ran
    assert _ran(again.stdout) == set()


def test_a_hand_edit_on_the_cluster_is_found_and_written_back(site):
    """Edits made on the cluster behind the role's back (access time off, the policy's
    SSD strategy, the default policy's snapshot pool, the export read-only), each in a
    field the role's one read must compare as its module does: the next run writes each
    back, and only those, and the run after it writes nothing."""
    name = "Idle%20data%20to%20cold%20tier"
    policy = site.cluster.papi("GET", f"12/filepool/policies/{name}", verify=site.cert)
    actions = policy.json()["policies"][0]["actions"]
    for action in actions:
        if action["action_type"] == "apply_data_storage_policy":
            action["action_param"]["ssd_strategy"] = "data"
    default = site.cluster.papi("GET", "4/filepool/default-policy", verify=site.cert)
    default_actions = default.json()["default-policy"]["actions"]
    for action in default_actions:
        if action["action_type"] == "apply_snapshot_storage_policy":
            action["action_param"]["storagepool"] = "cold-tier"
    export = site.cluster.papi("GET", "20/protocols/nfs/exports", verify=site.cert)
    export_id = export.json()["exports"][0]["id"]
    for method, path, body in (
        ("PUT", "1/filesystem/settings/access-time", {"enabled": False}),
        ("PUT", f"12/filepool/policies/{name}", {"actions": actions}),
        ("PUT", "4/filepool/default-policy", {"actions": default_actions}),
        ("PUT", f"20/protocols/nfs/exports/{export_id}", {"read_only": True}),
    ):
        answer = site.cluster.papi(method, path, json=body, verify=site.cert)
        assert answer.ok, answer.text
    before = len(site.requests())
    repaired = site.storage()
    assert repaired.returncode == 0, repaired.stdout[-3000:]
    assert _ran(repaired.stdout) == set(APPLY_TASKS) - {"Build the tiers from node pools"}
    assert sorted(site.requests()[before:]) == sorted([
        "PUT /platform/1/filesystem/settings/access-time",
        f"PUT /platform/12/filepool/policies/{name}",
        "PUT /platform/4/filepool/default-policy",
        f"PUT /platform/20/protocols/nfs/exports/{export_id}",
        "POST /platform/21/job/jobs",
    ])  # fmt: skip
    settings = site.cluster.papi("GET", "1/filesystem/settings/access-time", verify=site.cert)
    assert settings.json()["settings"]["enabled"] is True
    after = len(site.requests())
    again = site.storage()
    assert again.returncode == 0, again.stdout[-3000:]
    assert _recap(again.stdout)["changed"] == 0
    assert len(site.requests()) == after


def test_changing_the_idle_days_sends_one_put_and_starts_one_job(site):
    before = len(site.requests())
    changed = site.storage(
        "-e", json.dumps({"onefs_tiering_policies": [{**POLICY, "idle_days": 14}]})
    )
    assert changed.returncode == 0, changed.stdout[-3000:]
    # OneFS 9.10 (API 21): the modules use the newest versions they know
    assert site.requests()[before:] == [
        "PUT /platform/12/filepool/policies/Idle%20data%20to%20cold%20tier",
        "POST /platform/21/job/jobs",
    ]
    # the policy's module alone ran, for that policy alone
    assert _ran(changed.stdout) == {"Create, change in place or remove the file pool policies"}
    assert "(item=Idle data to cold tier (present))" in changed.stdout
    policy = site.cluster.papi(
        "GET", "12/filepool/policies/Idle%20data%20to%20cold%20tier", verify=site.cert
    )
    criteria = policy.json()["policies"][0]["file_matching_pattern"]["or_criteria"][0]
    assert int(criteria["and_criteria"][0]["value"]) == 14 * 86400


def test_a_write_failing_mid_way_says_what_was_applied_and_a_rerun_completes_it(site):
    """Two changes planned (the default policy's SSD strategy, the idle days); the
    policy write fails with 500 on every try. The run fails naming what was applied and
    what was not, read back from the cluster; without the fault the same run completes."""
    default = {
        "storagepool": "hot-tier",
        "ssd_strategy": "metadata",
        "snapshot_storagepool": "hot-tier",
        "snapshot_ssd_strategy": "data",
        "data_access_pattern": "concurrency",
        "enable_coalescer": True,
    }
    change = json.dumps(
        {
            "onefs_tiering_default_policy": default,
            "onefs_tiering_policies": [{**POLICY, "idle_days": 21}],
        }
    )
    site.faults_file.write_text(json.dumps(
        {"fail": [{"method": "PUT", "path": "filepool/policies", "status": 500, "count": 20}]}
    ))  # fmt: skip
    failed = site.storage("-e", change)
    site.faults_file.unlink()
    output = " ".join(failed.stdout.split())
    assert failed.returncode != 0, output[-3000:]
    assert "Applied: default policy 'default' (modify)." in output, output[-3000:]
    assert (
        "Not applied: file pool policy 'Idle data to cold tier' (modify), "
        "job 'SmartPools' (start). A re-run applies the rest."
    ) in output
    view = site.cluster.isi("filepool", "default-policy", "view")
    assert "'ssd_strategy': 'metadata'" in view and "'storagepool': 'hot-tier'" in view
    completed = site.storage("-e", change)
    assert completed.returncode == 0, completed.stdout[-3000:]
    assert _recap(completed.stdout)["changed"] > 0


def test_a_false_given_as_a_string_is_false(site):
    """`-e onefs_tiering_prune=false` is the string "false", truthy in a bare expression:
    it must not remove a policy the inventory does not name, which `true` removes."""
    extra = {**POLICY, "name": "Made by hand", "apply_order": 2, "idle_days": 90}
    site.storage("-e", json.dumps({"onefs_tiering_policies": [POLICY, extra]}))
    names = ["Idle data to cold tier", "Made by hand"]
    assert _policies(site) == names
    kept = site.storage("-e", "onefs_tiering_prune=false")
    assert kept.returncode == 0, kept.stdout[-3000:]
    assert "Conditional" not in kept.stdout
    assert _recap(kept.stdout)["changed"] == 0
    assert _policies(site) == names
    pruned = site.storage("-e", "onefs_tiering_prune=true")
    assert pruned.returncode == 0, pruned.stdout[-3000:]
    assert _policies(site) == ["Idle data to cold tier"]


def _policies(site: Site) -> list[str]:
    listed = site.cluster.papi("GET", "12/filepool/policies", verify=site.cert).json()
    return sorted(policy["name"] for policy in listed["policies"])
