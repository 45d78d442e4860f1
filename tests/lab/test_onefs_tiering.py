"""The papers' "Testing Automatic Storage Tiering" on the lab (docs/tiering-test.md),
and Dell's generated SDK (isilon-sdk, OneFS 9.10) reading the lab's cluster.

What the API alone decides is proved against the same simulator in process: a tier
change's requests, a write failing mid-way (tests/unit/test_onefs_tiering_role.py), the
SDK's writes and job control (tests/unit/test_onefs_sdk.py). A tier naming a node pool
the cluster lacks is refused in the lab's bad-input run (tests/lab/test_bad_input_lab.py).
Here: the converged cluster, files moving between tiers as the papers test it, and the
lab's container serving the SDK.
"""

from __future__ import annotations

import re
import time

import pytest
from conftest import ROOT, docker_host, lab_password

SHARD = "/ifs/data/imagenet-scratch/tfrecords/train-00005-of-00016"
PAPI = "https://127.0.0.1:18081"  # lab-isilon-1's API, published on the control host


@pytest.fixture(scope="module")
def isilon():
    return docker_host("lab-isilon-1")


def _pool(host, path: str = SHARD) -> str:
    lines = host.check_output(f"isi get -D {path}").splitlines()
    return next(line for line in lines if line.startswith("* Disk pools:"))


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
