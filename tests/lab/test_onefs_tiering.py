"""The papers' "Testing Automatic Storage Tiering" on the lab (docs/tiering-test.md),
and Dell's generated SDK (isilon-sdk, OneFS 9.10) reading and writing the lab cluster."""

from __future__ import annotations

import json
import re
import subprocess
import time

import pytest
from conftest import ROOT, docker_host, lab_password, run_playbook

SHARD = "/ifs/data/imagenet-scratch/tfrecords/train-00005-of-00016"
LOG = "/ifs/.ifsvar/onefs_sim/requests.log"
PAPI = "https://127.0.0.1:18081"  # lab-isilon-1's API, published on the control host


@pytest.fixture(scope="module")
def isilon():
    return docker_host("lab-isilon-1")


def _pool(host, path: str = SHARD) -> str:
    lines = host.check_output(f"isi get -D {path}").splitlines()
    return next(line for line in lines if line.startswith("* Disk pools:"))


def _log(host) -> list[str]:
    """The simulator's log of state-changing requests (absent until the first one)."""
    return host.run(f"cat {LOG} 2>/dev/null").stdout.splitlines()


def _smartpools(host, timeout: float = 120) -> None:
    """Start the job and wait for it as the runbook says: `isi job jobs list` shows it
    running until it has finished (jobs take a few seconds in the lab)."""
    started = host.check_output("isi job jobs start SmartPools")
    job_id = re.match(r"Started job \[(\d+)\]", started).group(1)
    deadline = time.monotonic() + timeout
    seen_running = False
    while True:
        listed = host.check_output("isi job jobs list")
        if not re.search(rf"^{job_id}\s+SmartPools\s", listed, re.M):
            break
        seen_running = True
        assert time.monotonic() < deadline, f"SmartPools job {job_id} still running:\n{listed}"
        time.sleep(1)
    assert seen_running, "the job finished before it was ever listed as running"
    assert "succeeded" in host.check_output(f"isi job jobs view {job_id}")


def test_the_cluster_is_configured_as_the_papers_say(isilon):
    tiers = isilon.check_output("isi storagepool tiers list")
    assert "hot-tier    f800_48tb-ssd_256gb" in tiers
    assert "cold-tier   h500_60tb_3.2tb-ssd_128gb" in tiers
    assert "Idle data to cold tier" in isilon.check_output("isi filepool policies list")
    default = isilon.check_output("isi filepool default-policy view")
    assert "'storagepool': 'hot-tier'" in default


def test_files_move_to_the_cold_tier_when_idle_and_back_when_read(isilon):
    _smartpools(isilon)
    assert "policy hot-tier(" in _pool(isilon)
    assert "data target f800_48tb-ssd_256gb" in _pool(isilon)

    # the papers: touch -a -d 2018-01-01 on the files, run the job, they are cold
    isilon.check_output(f"touch -a -d 2018-01-01 {SHARD}")
    _smartpools(isilon)
    assert "policy cold-tier(" in _pool(isilon)
    assert "data target h500_60tb_3.2tb-ssd_128gb" in _pool(isilon)

    # a GPU server reads them through another node's NFS export; the job: hot again
    compute = docker_host("lab-compute-1")
    compute.check_output(f"nfs-cat nfs://10.201.1.22{SHARD} > /dev/null")
    _smartpools(isilon)
    assert "policy hot-tier(" in _pool(isilon)


def test_changing_the_idle_days_sends_one_put_and_starts_one_job(isilon):
    before = len(_log(isilon))
    policy = {
        "name": "Idle data to cold tier",
        "description": "Files not accessed for 30 days move to the H500 tier",
        "apply_order": 1,
        "idle_days": 14,
        "storagepool": "cold-tier",
        "ssd_strategy": "metadata",
        "snapshot_storagepool": "cold-tier",
        "snapshot_ssd_strategy": "metadata",
    }
    result = run_playbook(
        "playbooks/storage.yml",
        "--tags",
        "onefs",
        "-e",
        json.dumps({"onefs_tiering_policies": [policy]}),
    )
    try:
        assert result.returncode == 0, result.stdout[-3000:]
        sent = _log(isilon)[before:]
        methods = [line.split()[2] + " " + line.split()[3] for line in sent]
        # the lab is OneFS 9.10 (API 21): the modules use the newest versions they know
        assert methods == [
            "PUT /platform/12/filepool/policies/Idle%20data%20to%20cold%20tier",
            "POST /platform/21/job/jobs",
        ], sent
        policies = isilon.check_output("isi filepool policies list")
        assert "Idle data to cold tier" in policies
    finally:
        restored = run_playbook("playbooks/storage.yml", "--tags", "onefs")
        assert restored.returncode == 0, restored.stdout[-3000:]


def test_the_early_phase_reads_the_node_pools_and_refuses_a_tier_the_cluster_lacks(isilon):
    """A tier naming a node pool the cluster does not have is refused by site.yml's first
    play, which reads the cluster (read-only), before any layer is touched."""
    before = len(_log(isilon))
    tiers = [
        {"name": "hot-tier", "nodepools": ["f800_48tb-ssd_256gb"]},
        {"name": "cold-tier", "nodepools": ["a200_30tb_1tb-ssd_16gb"]},
    ]
    result = run_playbook("site.yml", "-e", json.dumps({"onefs_tiering_tiers": tiers}))
    output = " ".join(result.stdout.split())
    assert result.returncode != 0
    assert (
        "onefs_tiering_tiers names node pools the cluster does not have: "
        "a200_30tb_1tb-ssd_16gb (it has: f800_48tb-ssd_256gb, h500_60tb_3.2tb-ssd_128gb)"
    ) in output, output[-3000:]
    assert "PLAY [Configure the data switches]" not in output  # no play after the first
    assert len(_log(isilon)) == before  # nothing written to the cluster


FAULTS = "/ifs/.ifsvar/onefs_sim/faults.json"


def test_a_write_failing_mid_way_says_what_was_applied_and_a_rerun_completes_it(isilon):
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
    policy = {
        "name": "Idle data to cold tier",
        "description": "Files not accessed for 30 days move to the H500 tier",
        "apply_order": 1,
        "idle_days": 21,
        "storagepool": "cold-tier",
        "ssd_strategy": "metadata",
        "snapshot_storagepool": "cold-tier",
        "snapshot_ssd_strategy": "metadata",
    }
    change = json.dumps(
        {"onefs_tiering_default_policy": default, "onefs_tiering_policies": [policy]}
    )
    fault = {"fail": [{"method": "PUT", "path": "filepool/policies", "status": 500, "count": 20}]}
    subprocess.run(  # through stdin, so that no shell reinterprets the JSON
        ["docker", "exec", "-i", "lab-isilon-1", "sh", "-c", f"cat > {FAULTS}"],
        input=json.dumps(fault), text=True, check=True,
    )  # fmt: skip
    try:
        failed = run_playbook("playbooks/storage.yml", "--tags", "onefs", "-e", change)
        isilon.check_output(f"rm -f {FAULTS}")
        output = " ".join(failed.stdout.split())
        assert failed.returncode != 0, output[-3000:]
        assert "Applied: default policy 'default' (modify)." in output, output[-3000:]
        assert (
            "Not applied: file pool policy 'Idle data to cold tier' (modify), "
            "job 'SmartPools' (start). A re-run applies the rest."
        ) in output
        view = isilon.check_output("isi filepool default-policy view")
        assert "'ssd_strategy': 'metadata'" in view and "'storagepool': 'hot-tier'" in view
        completed = run_playbook("playbooks/storage.yml", "--tags", "onefs", "-e", change)
        assert completed.returncode == 0, completed.stdout[-3000:]
        assert re.search(r"lab-isilon-1\s+: ok=\d+\s+changed=[1-9]", completed.stdout)
    finally:
        isilon.run(f"rm -f {FAULTS}")
        restored = run_playbook("playbooks/storage.yml", "--tags", "onefs")
        assert restored.returncode == 0, restored.stdout[-3000:]


@pytest.fixture(scope="module")
def sdk():
    """isilon-sdk's 9.10 bindings, configured for lab-isilon-1 with the lab CA."""
    module = pytest.importorskip("isilon_sdk.v9_10_0")
    config = module.Configuration()
    config.host = PAPI
    config.username, config.password = "admin", lab_password("onefs")
    config.verify_ssl = True
    config.ssl_ca_cert = str(ROOT / "lab" / ".state" / "pki" / "ca.crt")
    return module, module.ApiClient(config)


def test_dells_sdk_reads_the_lab_cluster(sdk):
    module, client = sdk
    config = module.ClusterApi(client).get_cluster_config()
    assert config.onefs_version.release.startswith("9.10")
    assert len(config.devices) == 8
    assert module.ZonesApi(client).list_zones().zones[0].name == "System"
    network = module.NetworkApi(client)
    assert network.get_network_interfaces().total == 8
    pool = module.NetworkGroupnetsApi(client).get_subnets_subnet_pool(
        "pool0", "groupnet0", "subnet0"
    )
    assert sorted(i.lnn for i in pool.pools[0].ifaces) == [1, 2, 3, 4]
    storage = module.StoragepoolApi(client)
    tiers = {t.name: t for t in storage.list_storagepool_tiers().tiers}
    assert tiers["cold-tier"].children == ["h500_60tb_3.2tb-ssd_128gb"]
    assert tiers["hot-tier"].node_type_ids
    assert storage.get_storagepool_settings().settings is not None
    filepool = module.FilepoolApi(client)
    names = [p.name for p in filepool.list_filepool_policies().policies]
    assert "Idle data to cold tier" in names
    assert filepool.get_filepool_default_policy().default_policy.actions
    assert module.FilesystemApi(client).get_settings_access_time().settings.enabled is True
    exports = module.ProtocolsApi(client).list_nfs_exports(path="/ifs/data")
    assert all("/ifs/data" in e.paths for e in exports.exports)
    jobs = module.JobApi(client)
    assert "SmartPools" in {t.id for t in jobs.get_job_types().types}
    assert jobs.get_job_job_summary().summary.job_d_enabled is True


def test_dells_sdk_writes_and_controls_a_job_on_the_lab_cluster(sdk):
    module, client = sdk
    filepool = module.FilepoolApi(client)
    scratch = {
        "name": "lab sdk check",
        "file_matching_pattern": {"or_criteria": [{"and_criteria": [
            {"type": "path", "operator": "==", "value": "/ifs/nowhere", "case_sensitive": True}
        ]}]},
        "actions": [{"action_type": "set_data_access_pattern", "action_param": "streaming"}],
    }  # fmt: skip
    filepool.create_filepool_policy(scratch)
    try:
        filepool.update_filepool_policy({"name": "lab sdk check 2"}, "lab sdk check")
        assert filepool.get_filepool_policy("lab sdk check 2").policies[0].actions
    finally:
        for name in ("lab sdk check", "lab sdk check 2"):
            try:
                filepool.delete_filepool_policy(name)
            except module.rest.ApiException as err:
                assert err.status == 404
    jobs = module.JobApi(client)
    job_id = jobs.create_job_job(module.JobJobCreateParams(type="SmartPools")).id
    assert jobs.get_job_job(str(job_id)).jobs[0].state == "running"
    jobs.update_job_job(module.JobJob(state="pause"), str(job_id))
    assert jobs.get_job_job(str(job_id)).jobs[0].state == "paused_user"
    jobs.update_job_job(module.JobJob(state="cancel"), str(job_id))
    assert jobs.get_job_job(str(job_id)).jobs[0].state == "cancelled_user"
