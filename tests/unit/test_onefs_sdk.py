"""Dell's generated OneFS SDKs against the simulator, at the release each one is for.

isilon-sdk 0.7.0 (isilon_sdk.v9_10_0, session auth) against the lab's default 9.10
cluster, and isi-sdk-9-1-0 (basic auth) against a 9.1 cluster: every object either
reads must deserialise without a model error ("Invalid value for `x`, must not be
`None`", enum and range checks run on responses too), and the writes our roles do
(tiers, file pool policies, default policy, access time, exports, jobs) must work.
"""

from __future__ import annotations

import time

import pytest
from test_onefs_sim import IDLE_POLICY, PASSWORD, RELEASES, USER, Cluster
from throwaway_tls import self_signed

SDKS = {"9.10": "isilon_sdk.v9_10_0", "9.1": "isi_sdk_9_1_0"}


@pytest.fixture(params=sorted(SDKS))
def sdk_cluster(request, tmp_path, monkeypatch):
    """(sdk module, ApiClient, cluster) for one release, over HTTPS with a lab CA."""
    monkeypatch.setenv("ONEFS_SIM_JOB_SECONDS", "0.6")
    monkeypatch.setenv("ONEFS_SIM_JOB_SECONDS_PER_FILE", "0")
    sdk = pytest.importorskip(SDKS[request.param])
    cert = tuple(str(path) for path in self_signed(tmp_path))
    node = Cluster(tmp_path, cert, config=RELEASES[request.param][0])
    (node.ifs / "data").mkdir()
    config = sdk.Configuration()
    config.host = node.url  # both SDKs speak HTTPS only, and verify it
    config.username, config.password = USER, PASSWORD
    config.verify_ssl = True
    config.ssl_ca_cert = cert[0]
    client = sdk.ApiClient(config)
    yield sdk, client, node
    node.stop()


def _api(sdk, client, name):
    return getattr(sdk, name)(client)


def test_the_sdk_reads_every_object_the_lab_serves(sdk_cluster):
    sdk, client, _node = sdk_cluster
    release = sdk.__name__
    cluster = _api(sdk, client, "ClusterApi")
    config = cluster.get_cluster_config()
    assert config.onefs_version.release in ("9.10.0.0", "9.1.0.0")
    assert ("v9_10_0" in release) == config.onefs_version.release.startswith("9.10")
    assert [d.lnn for d in config.devices] == list(range(1, 9))
    assert cluster.get_cluster_identity().name == "isilon"
    assert cluster.get_cluster_version().total == 8
    assert len(cluster.get_cluster_nodes().nodes) == 8
    assert cluster.get_cluster_external_ips() == [f"10.201.1.{n}" for n in range(21, 25)]

    zones = _api(sdk, client, "ZonesApi")
    assert [z.name for z in zones.list_zones().zones] == ["System"]
    assert zones.get_zone("System").zones[0].path == "/ifs"  # dellemc.powerscale passes names

    network = _api(sdk, client, "NetworkApi")
    assert [g.name for g in network.list_network_groupnets().groupnets] == ["groupnet0"]
    assert network.get_network_groupnet("groupnet0").groupnets[0].subnets == ["subnet0"]
    interfaces = network.get_network_interfaces().interfaces
    assert sorted(i.lnn for i in interfaces if i.ip_addrs) == [1, 2, 3, 4]
    assert network.get_network_subnets().subnets[0].prefixlen == 24
    assert [p.id for p in network.get_network_pools().pools] == ["groupnet0.subnet0.pool0"]
    groupnets = _api(sdk, client, "NetworkGroupnetsApi")
    assert groupnets.list_groupnet_subnets("groupnet0").subnets[0].name == "subnet0"
    assert groupnets.get_groupnet_subnet("subnet0", "groupnet0").subnets[0].base_addr
    pool = groupnets.get_subnets_subnet_pool("pool0", "groupnet0", "subnet0").pools[0]
    assert (pool.sc_dns_zone, pool.alloc_method) == ("isilon.lab", "static")
    assert [r.low for r in pool.ranges] == ["10.201.1.21"]
    assert sorted(i.lnn for i in pool.ifaces) == [1, 2, 3, 4]

    storage = _api(sdk, client, "StoragepoolApi")
    assert len(storage.list_storagepool_nodepools().nodepools) == 2
    assert storage.get_storagepool_storagepools().total == 2
    assert storage.get_storagepool_status().unhealthy == []
    assert storage.get_storagepool_unprovisioned().unprovisioned.lnns == []
    assert storage.get_storagepool_settings().settings.spillover_target.type == "anywhere"

    filepool = _api(sdk, client, "FilepoolApi")
    assert filepool.list_filepool_policies().policies == []
    templates = filepool.get_filepool_templates().templates
    assert templates and filepool.get_filepool_template(templates[0].name).templates
    actions = filepool.get_filepool_default_policy().default_policy.actions
    assert "apply_data_storage_policy" in {a.action_type for a in actions}
    assert _api(sdk, client, "FilesystemApi").get_settings_access_time().settings.enabled is False
    exports = _api(sdk, client, "ProtocolsApi").list_nfs_exports()
    assert exports.total == 1 and exports.exports[0].paths == ["/ifs"]
    assert exports.exports[0].security_flavors == ["unix"]

    jobs = _api(sdk, client, "JobApi")
    types = {t.id: t for t in jobs.get_job_types().types}
    assert types["SmartPools"].schedule == "every day at 22:00"
    assert jobs.get_job_job_summary().summary.job_d_enabled is True
    assert jobs.get_job_reports().reports == []
    assert jobs.get_job_events().events == []
    assert jobs.get_job_recent().recent_jobs == []


def test_the_sdk_writes_what_the_roles_write(sdk_cluster):
    sdk, client, _node = sdk_cluster
    storage = _api(sdk, client, "StoragepoolApi")
    hot = storage.create_storagepool_tier(
        sdk.StoragepoolTierCreateParams(name="hot-tier", children=["f800_48tb-ssd_256gb"])
    ).id
    storage.create_storagepool_tier(sdk.StoragepoolTierCreateParams(name="cold-tier"))
    storage.update_storagepool_tier(
        sdk.StoragepoolTier(children=["h500_60tb_3.2tb-ssd_128gb"]), "cold-tier"
    )
    tiers = {t.name: t for t in storage.list_storagepool_tiers().tiers}
    assert tiers["hot-tier"].id == hot and tiers["hot-tier"].lnns == [1, 2, 3, 4]
    assert tiers["cold-tier"].children == ["h500_60tb_3.2tb-ssd_128gb"]
    storage.create_storagepool_tier(sdk.StoragepoolTierCreateParams(name="spare"))
    storage.delete_storagepool_tier("spare")
    assert len(storage.list_storagepool_tiers().tiers) == 2

    filepool = _api(sdk, client, "FilepoolApi")
    assert filepool.create_filepool_policy(IDLE_POLICY).id == "Idle data to cold tier"
    pattern = {"or_criteria": [{"and_criteria": [
        {"type": "accessed_time", "operator": ">", "use_relative_time": True, "value": 1209600}
    ]}]}  # fmt: skip
    filepool.update_filepool_policy(
        {"file_matching_pattern": pattern,
         "actions": [{"action_type": "set_data_access_pattern", "action_param": "streaming"}]},
        "Idle data to cold tier",
    )  # fmt: skip
    filepool.update_filepool_policy({"name": "Idle 14 days"}, "Idle data to cold tier")
    policy = filepool.get_filepool_policy("Idle 14 days").policies[0]
    assert policy.file_matching_pattern.or_criteria[0].and_criteria[0].value == "1209600"
    assert [a.action_type for a in policy.actions] == ["set_data_access_pattern"]
    filepool.delete_filepool_policy("Idle 14 days")
    assert filepool.list_filepool_policies().policies == []

    default = {"actions": [
        {"action_type": "apply_data_storage_policy",
         "action_param": {"storagepool": "hot-tier", "ssd_strategy": "data"}},
        {"action_type": "set_data_access_pattern", "action_param": "concurrency"},
    ]}  # fmt: skip
    filepool.update_filepool_default_policy(default)
    assert "hot-tier" in str(filepool.get_filepool_default_policy().default_policy.actions[0])

    files = _api(sdk, client, "FilesystemApi")
    files.update_settings_access_time({"enabled": True, "precision": 86400})
    assert files.get_settings_access_time().settings.precision == 86400

    protocols = _api(sdk, client, "ProtocolsApi")
    created = protocols.create_nfs_export(sdk.NfsExportCreateParams(paths=["/ifs/data"]))
    protocols.update_nfs_export(sdk.NfsExport(read_only=True), str(created.id))
    found = protocols.list_nfs_exports(path="/ifs/data")
    assert found.total == 1 and found.exports[0].read_only is True
    protocols.delete_nfs_export(str(created.id))
    assert protocols.list_nfs_exports().total == 1


def test_the_sdk_starts_polls_pauses_and_cancels_jobs(sdk_cluster):
    sdk, client, _node = sdk_cluster
    jobs = _api(sdk, client, "JobApi")
    first = jobs.create_job_job(sdk.JobJobCreateParams(type="SmartPools", policy="LOW")).id
    assert jobs.get_job_job(str(first)).jobs[0].state == "running"
    assert [j.id for j in jobs.list_job_jobs().jobs] == [first]
    deadline = time.monotonic() + 5
    while jobs.get_job_job(str(first)).jobs[0].state != "succeeded":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    second = jobs.create_job_job(sdk.JobJobCreateParams(type="SmartPools")).id
    jobs.update_job_job(sdk.JobJob(state="pause"), str(second))
    assert jobs.get_job_job(str(second)).jobs[0].state == "paused_user"
    jobs.update_job_job(sdk.JobJob(state="run"), str(second))
    jobs.update_job_job(sdk.JobJob(state="cancel"), str(second))
    done = jobs.get_job_job(str(second)).jobs[0]
    assert done.state == "cancelled_user"
    assert [j.id for j in jobs.get_job_recent().recent_jobs] == [second, first]
    assert jobs.get_job_reports(job_id=first).total == 2
    assert jobs.get_job_events(job_id=second).total == 4  # started, paused, resumed, cancelled
