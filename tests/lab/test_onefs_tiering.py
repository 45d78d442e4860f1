"""The papers' "Testing Automatic Storage Tiering" on the lab (docs/tiering-test.md)."""

from __future__ import annotations

import json

import pytest
from conftest import docker_host, run_playbook

SHARD = "/ifs/data/imagenet-scratch/tfrecords/train-00005-of-00016"
LOG = "/ifs/.ifsvar/onefs_sim/requests.log"


@pytest.fixture(scope="module")
def isilon():
    return docker_host("lab-isilon-1")


def _pool(host, path: str = SHARD) -> str:
    lines = host.check_output(f"isi get -D {path}").splitlines()
    return next(line for line in lines if line.startswith("* Disk pools:"))


def _log(host) -> list[str]:
    """The simulator's log of state-changing requests (absent until the first one)."""
    return host.run(f"cat {LOG} 2>/dev/null").stdout.splitlines()


def _smartpools(host) -> None:
    assert host.check_output("isi job jobs start SmartPools").startswith("Started job [")


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
        assert methods == [
            "PUT /platform/4/filepool/policies/Idle%20data%20to%20cold%20tier",
            "POST /platform/3/job/jobs",
        ], sent
        policies = isilon.check_output("isi filepool policies list")
        assert "Idle data to cold tier" in policies
    finally:
        restored = run_playbook("playbooks/storage.yml", "--tags", "onefs")
        assert restored.returncode == 0, restored.stdout[-3000:]
