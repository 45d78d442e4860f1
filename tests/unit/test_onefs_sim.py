"""The OneFS API simulator (lab/simulators/onefs_sim): PAPI shapes, auth, state, SmartPools."""

from __future__ import annotations

import datetime
import io
import os
import sys
import threading
import time
from contextlib import redirect_stdout
from pathlib import Path

import pytest
import requests
from throwaway_tls import self_signed

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "lab" / "simulators"))
from onefs_sim import api, isi, model  # noqa: E402

SIM = ROOT / "lab" / "simulators" / "onefs_sim"
CLUSTER = SIM / "lab-cluster.json"  # the lab's default: OneFS 9.10 (API 21)
RELEASES = {"9.10": (CLUSTER, 21), "9.1": (SIM / "lab-cluster-9.1.json", 11)}
USER, PASSWORD = "admin", "lab-secret"
IDLE_POLICY = {
    "name": "Idle data to cold tier",
    "apply_order": 1,
    "file_matching_pattern": {
        "or_criteria": [
            {
                "and_criteria": [
                    {
                        "type": "accessed_time",
                        "operator": ">",
                        "use_relative_time": True,
                        "value": "2592000",
                    }
                ]
            }
        ]
    },
    "actions": [
        {
            "action_type": "apply_data_storage_policy",
            "action_param": {"storagepool": "cold-tier", "ssd_strategy": "metadata"},
        },
        {
            "action_type": "apply_snapshot_storage_policy",
            "action_param": {"storagepool": "cold-tier", "ssd_strategy": "metadata"},
        },
    ],
}


class Cluster:
    """A simulator node serving on an ephemeral port, over a temporary /ifs."""

    def __init__(self, tmp_path: Path, cert: tuple[str, str] | None = None, config: Path = CLUSTER):
        self.ifs = tmp_path / "ifs"
        self.ifs.mkdir(exist_ok=True)
        self.store = model.Store(tmp_path / "ifs" / ".ifsvar" / "state.json", config)
        self.server = api.serve(
            ("127.0.0.1", 0), self.store, {USER: PASSWORD}, str(self.ifs), 1, *(cert or ())
        )
        scheme = "https" if cert else "http"
        self.url = f"{scheme}://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()
        self.http = requests.Session()
        self.http.auth = (USER, PASSWORD)

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def papi(self, method: str, path: str, **kwargs) -> requests.Response:
        return self.http.request(method, f"{self.url}/platform/{path}", timeout=10, **kwargs)

    def isi(self, *words: str) -> str:
        out = io.StringIO()
        with redirect_stdout(out):
            assert isi.main(list(words), self.store, str(self.ifs)) == 0
        return out.getvalue()

    def tiers(self) -> None:
        """The papers' two tiers, which the policies below name."""
        for name, pool in (
            ("hot-tier", "f800_48tb-ssd_256gb"),
            ("cold-tier", "h500_60tb_3.2tb-ssd_128gb"),
        ):
            assert self.papi(
                "POST", "1/storagepool/tiers", json={"name": name, "children": [pool]}
            ).ok

    def state(self) -> dict:
        with self.store.transaction() as state:
            return state


@pytest.fixture(autouse=True)
def quick_jobs(monkeypatch):
    """Jobs of a fixed short run time (the lab's default is a few seconds)."""
    monkeypatch.setenv("ONEFS_SIM_JOB_SECONDS", "0.3")
    monkeypatch.setenv("ONEFS_SIM_JOB_SECONDS_PER_FILE", "0")


@pytest.fixture
def cluster(tmp_path):
    node = Cluster(tmp_path)
    yield node
    node.stop()


@pytest.fixture(params=sorted(RELEASES))
def release_cluster(request, tmp_path):
    """The cluster at each release the lab supports; .latest is its API version."""
    config, latest = RELEASES[request.param]
    node = Cluster(tmp_path, config=config)
    node.latest = latest
    yield node
    node.stop()


def test_basic_auth_is_required_and_checked(cluster):
    assert cluster.papi("GET", "1/storagepool/nodepools").status_code == 200
    anonymous = requests.get(f"{cluster.url}/platform/1/storagepool/nodepools", timeout=5)
    assert anonymous.status_code == 401
    wrong = requests.get(f"{cluster.url}/platform/latest", auth=(USER, "nope"), timeout=5)
    assert wrong.status_code == 401
    assert wrong.json()["errors"][0]["code"] == "AEC_UNAUTHORIZED"


def test_session_needs_csrf_and_referer_for_changes(cluster):
    created = requests.post(
        f"{cluster.url}/session/1/session",
        json={"username": USER, "password": PASSWORD, "services": ["platform"]},
        timeout=5,
    )
    assert created.status_code == 201
    assert created.json()["username"] == USER
    # the cookies are Secure (HTTPS only), so this plain-HTTP test sends them by hand
    cookie = {"Cookie": f"isisessid={created.cookies['isisessid']}"}
    csrf = created.cookies["isicsrf"]
    assert "HttpOnly" in created.headers["Set-Cookie"]
    who = requests.get(f"{cluster.url}/session/1/session", headers=cookie, timeout=5)
    assert who.status_code == 200
    url = f"{cluster.url}/platform/1/filesystem/settings/access-time"
    assert requests.get(url, headers=cookie, timeout=5).status_code == 200
    body = {"enabled": True, "precision": 86400}
    assert requests.put(url, json=body, headers=cookie, timeout=5).status_code == 401
    headers = {**cookie, "X-CSRF-Token": csrf, "Referer": cluster.url}
    assert requests.put(url, json=body, headers=headers, timeout=5).status_code == 204
    logout = requests.delete(f"{cluster.url}/session/1/session", headers=cookie, timeout=5)
    assert logout.status_code == 204
    gone = requests.get(f"{cluster.url}/session/1/session", headers=cookie, timeout=5)
    assert gone.status_code == 401
    assert gone.json() == {"errors": [{"message": "authorization required"}]}


def test_tiers_are_created_changed_and_deleted(cluster):
    created = cluster.papi(
        "POST",
        "1/storagepool/tiers",
        json={"name": "hot-tier", "children": ["f800_48tb-ssd_256gb"]},
    )
    assert created.status_code == 201
    tier_id = created.json()["id"]
    listed = cluster.papi("GET", "1/storagepool/tiers").json()
    assert listed["total"] == 1
    assert listed["tiers"][0]["lnns"] == [1, 2, 3, 4]
    assert listed["tiers"][0]["usage"]["balanced"] is True
    duplicate = cluster.papi("POST", "1/storagepool/tiers", json={"name": "hot-tier"})
    assert duplicate.status_code == 409
    moved = cluster.papi(
        "PUT", f"1/storagepool/tiers/{tier_id}", json={"children": ["h500_60tb_3.2tb-ssd_128gb"]}
    )
    assert moved.status_code == 204
    pools = {
        p["name"]: p for p in cluster.papi("GET", "3/storagepool/nodepools").json()["nodepools"]
    }
    assert pools["h500_60tb_3.2tb-ssd_128gb"]["tier"] == "hot-tier"
    assert pools["f800_48tb-ssd_256gb"]["tier"] is None
    assert cluster.papi("DELETE", f"1/storagepool/tiers/{tier_id}").status_code == 204
    missing = cluster.papi("GET", f"1/storagepool/tiers/{tier_id}")
    assert missing.status_code == 404
    assert missing.json()["errors"][0]["code"] == "AEC_NOT_FOUND"


def test_file_pool_policy_round_trip_and_in_place_change(cluster):
    cluster.tiers()
    created = cluster.papi("POST", "4/filepool/policies", json=IDLE_POLICY)
    assert created.status_code == 201
    assert created.json() == {"id": "Idle data to cold tier"}
    name = "Idle%20data%20to%20cold%20tier"
    policy = cluster.papi("GET", f"4/filepool/policies/{name}").json()["policies"][0]
    criterion = policy["file_matching_pattern"]["or_criteria"][0]["and_criteria"][0]
    assert criterion["value"] == 2592000  # a JSON number, not the string sent
    pattern = policy["file_matching_pattern"]
    pattern["or_criteria"][0]["and_criteria"][0]["value"] = 1209600
    changed = cluster.papi(
        "PUT", f"4/filepool/policies/{name}", json={"file_matching_pattern": pattern}
    )
    assert changed.status_code == 204
    again = cluster.papi("GET", f"4/filepool/policies/{name}").json()["policies"][0]
    assert again["file_matching_pattern"]["or_criteria"][0]["and_criteria"][0]["value"] == 1209600
    renamed = cluster.papi("PUT", f"4/filepool/policies/{name}", json={"name": "Idle 14d"})
    assert renamed.status_code == 204
    assert cluster.papi("DELETE", "4/filepool/policies/Idle%2014d").status_code == 204
    assert cluster.papi("GET", "4/filepool/policies").json() == {"policies": [], "total": 0}


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"actions": [{"action_type": "set_data_storage_target", "action_param": "x"}]}, "actions"),
        ({"bogus": 1}, "bogus"),
    ],
)
def test_bad_policy_fields_are_rejected_with_the_field(cluster, change, field):
    cluster.tiers()
    response = cluster.papi("POST", "4/filepool/policies", json={**IDLE_POLICY, **change})
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == field


def test_default_policy_uses_the_hyphenated_key(cluster):
    cluster.tiers()
    body = cluster.papi("GET", "4/filepool/default-policy").json()
    actions = body["default-policy"]["actions"]
    actions[0]["action_param"]["storagepool"] = "hot-tier"
    assert (
        cluster.papi("PUT", "4/filepool/default-policy", json={"actions": actions}).status_code
        == 204
    )
    again = cluster.papi("GET", "4/filepool/default-policy").json()["default-policy"]
    assert again["actions"][0]["action_param"]["storagepool"] == "hot-tier"


def test_access_time_precision_is_range_checked(cluster):
    url = "1/filesystem/settings/access-time"
    assert cluster.papi("PUT", url, json={"enabled": True, "precision": 86400}).status_code == 204
    assert cluster.papi("GET", url).json() == {"settings": {"enabled": True, "precision": 86400}}
    too_long = cluster.papi("PUT", url, json={"precision": 1576800001})
    assert too_long.status_code == 400
    assert too_long.json()["errors"][0]["field"] == "precision"


def test_version_routing_serves_the_newest_version_not_above_the_request(release_cluster):
    node, latest = release_cluster, release_cluster.latest
    assert node.papi("GET", "latest").json() == {"latest": str(latest)}
    assert node.papi("GET", f"{latest}/filepool/policies").status_code == 200
    assert node.papi("GET", "3/filepool/policies").status_code == 200
    assert node.papi("GET", "3/filepool/default-policy").status_code == 404
    assert node.papi("GET", "1/no/such/thing").status_code == 404
    assert node.papi("PATCH", "1/storagepool/tiers").status_code == 405
    # above the cluster's latest is 404 (OneFS's versioned_mapper), with the body form
    # captured in Isilon/isilon_sdk_python#6
    above = node.papi("GET", f"{latest + 1}/filepool/policies")
    assert above.status_code == 404
    assert above.json() == {
        "errors": [
            {
                "code": "AEC_NOT_FOUND",
                "message": f"Path not found: /{latest + 1}/filepool/policies.",
            }
        ]
    }
    assert node.papi("GET", "99/filepool/policies").status_code == 404
    assert node.papi("GET", "13/filepool/policies").status_code == 404  # no release has 13
    assert node.papi("GET", "latest/filepool/policies").status_code == 404
    # the tier at the newest handler <= N: v16 fields on 9.10 only
    node.tiers()
    tier = node.papi("GET", f"{latest}/storagepool/tiers").json()["tiers"][0]
    assert ("node_type_ids" in tier) == (latest >= 16)
    assert "node_type_ids" not in node.papi("GET", "1/storagepool/tiers").json()["tiers"][0]


def test_a_release_above_the_latest_refuses_v16_only_fields(release_cluster):
    node = release_cluster
    body = {"name": "capped", "children": ["f800_48tb-ssd_256gb"], "transfer_limit_pct": 80}
    created = node.papi("POST", f"{node.latest}/storagepool/tiers", json=body)
    if node.latest >= 16:
        assert created.status_code == 201
        tier = node.papi("GET", "16/storagepool/tiers/capped").json()["tiers"][0]
        assert (tier["transfer_limit_pct"], tier["transfer_limit_state"]) == (80, "enabled")
    else:
        assert created.status_code == 400
        assert created.json()["errors"][0]["field"] == "transfer_limit_pct"
        assert node.state()["tiers"] == []


def test_state_survives_a_restart(tmp_path):
    first = Cluster(tmp_path)
    first.papi("POST", "1/storagepool/tiers", json={"name": "cold-tier"})
    first.stop()
    second = Cluster(tmp_path)
    try:
        assert [t["name"] for t in second.papi("GET", "1/storagepool/tiers").json()["tiers"]] == [
            "cold-tier"
        ]
    finally:
        second.stop()


def test_tls_with_the_lab_ca(tmp_path):
    cert_path, key_path = (str(path) for path in self_signed(tmp_path))
    node = Cluster(tmp_path, (cert_path, key_path))
    try:
        trusted = requests.get(
            f"{node.url}/platform/latest", auth=(USER, PASSWORD), verify=str(cert_path), timeout=5
        )
        assert trusted.json() == {"latest": "21"}
        with pytest.raises(requests.exceptions.SSLError):
            requests.get(f"{node.url}/platform/latest", auth=(USER, PASSWORD), timeout=5)
    finally:
        node.stop()


def _wait_for_job(cluster, job_id):
    import time

    for _ in range(100):
        job = cluster.papi("GET", f"3/job/jobs/{job_id}").json()["jobs"][0]
        if job["state"] == "succeeded":
            return job
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} did not finish: {job}")


def test_papers_tiering_procedure_moves_files_cold_and_back(cluster):
    # configure as the papers do: tiers, default policy to hot, idle policy, atime 1 day
    cluster.tiers()
    actions = cluster.papi("GET", "4/filepool/default-policy").json()["default-policy"]["actions"]
    for action in actions[:2]:
        action["action_param"] = {"storagepool": "hot-tier", "ssd_strategy": "data"}
    assert cluster.papi("PUT", "4/filepool/default-policy", json={"actions": actions}).ok
    assert cluster.papi("POST", "4/filepool/policies", json=IDLE_POLICY).ok
    assert cluster.papi(
        "PUT", "1/filesystem/settings/access-time", json={"enabled": True, "precision": 86400}
    ).ok
    shards = cluster.ifs / "data" / "imagenet-scratch" / "tfrecords"
    shards.mkdir(parents=True)
    shard = shards / "train-00000-of-01024"
    shard.write_bytes(b"x" * 4096)
    path = "/ifs/data/imagenet-scratch/tfrecords/train-00000-of-01024"

    job = cluster.papi("POST", "3/job/jobs", json={"type": "SmartPools", "policy": "LOW"})
    assert job.status_code == 201
    _wait_for_job(cluster, job.json()["id"])
    hot = cluster.isi("get", "-D", path)
    assert "* Disk pools:         policy hot-tier(3) -> data target f800_48tb-ssd_256gb:1(1)" in hot

    old = datetime.datetime(2018, 1, 1).timestamp()
    os.utime(shard, (old, shard.stat().st_mtime))
    assert cluster.isi("job", "jobs", "start", "SmartPools", "--wait").startswith("Started job [")
    cold = cluster.isi("get", "-D", path)
    assert "policy cold-tier(4) -> data target h500_60tb_3.2tb-ssd_128gb:2(2)" in cold

    shard.read_bytes()
    os.utime(shard, None)  # a read under strict atime
    cluster.isi("job", "jobs", "start", "SmartPools", "--wait")
    assert "policy hot-tier(3)" in cluster.isi("get", "-D", path)
    assert "SmartPools" in cluster.isi("status")


def test_a_second_smartpools_job_is_refused_while_one_runs(cluster, monkeypatch):
    # the cluster's answer is unverified; the simulator gives 409 AEC_CONFLICT (OneFS's
    # EEXIST code in a public copy of its isi_rest_server source) unless allow_dup queues it
    monkeypatch.setenv("ONEFS_SIM_JOB_SECONDS", "30")
    first = cluster.papi("POST", "21/job/jobs", json={"type": "SmartPools"}).json()["id"]
    refused = cluster.papi("POST", "21/job/jobs", json={"type": "SmartPools"})
    assert refused.status_code == 409
    assert refused.json()["errors"][0]["code"] == "AEC_CONFLICT"
    assert f"id {first}" in refused.json()["errors"][0]["message"]
    assert cluster.papi("GET", "21/job/jobs").json()["total"] == 1
    queued = cluster.papi("POST", "21/job/jobs", json={"type": "SmartPools", "allow_dup": True})
    assert queued.status_code == 201
    waiting = cluster.papi("GET", f"21/job/jobs/{queued.json()['id']}").json()["jobs"][0]
    assert (waiting["state"], waiting["waiting_on"]) == ("running", first)
    assert "start_time" not in waiting
    assert "Total: 2" in cluster.isi("job", "jobs", "list")


def test_a_job_runs_for_a_while_then_succeeds(cluster, monkeypatch):
    monkeypatch.setenv("ONEFS_SIM_JOB_SECONDS", "0.6")
    job_id = cluster.papi("POST", "21/job/jobs", json={"type": "SmartPools"}).json()["id"]
    seen = []
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        job = cluster.papi("GET", f"21/job/jobs/{job_id}").json()["jobs"][0]
        if not seen or seen[-1] != job["state"]:
            seen.append(job["state"])
        if job["state"] == "succeeded":
            break
        time.sleep(0.05)
    assert seen[0] == "running" and seen[-1] == "succeeded"
    assert job["end_time"] >= job["start_time"]
    assert cluster.papi("GET", "21/job/jobs").json()["total"] == 0  # running/paused only
    recent = cluster.papi("GET", "3/job/recent").json()["recent_jobs"]
    assert [j["id"] for j in recent] == [job_id]
    reports = cluster.papi("GET", f"7/job/reports?job_id={job_id}").json()
    assert reports["total"] == 2 and reports["reports"][0]["job_type"] == "SmartPools"


def test_job_lists_sort_page_and_filter(cluster, monkeypatch):
    monkeypatch.setenv("ONEFS_SIM_JOB_SECONDS", "30")
    for kind in ("SmartPools", "AutoBalance", "TreeDelete"):
        assert cluster.papi("POST", "21/job/jobs", json={"type": kind}).status_code == 201
    cluster.papi("PUT", "21/job/jobs/2", json={"state": "pause"})
    first = cluster.papi("GET", "21/job/jobs?sort=id&dir=DESC&limit=2").json()
    assert first["total"] == 3 and [j["id"] for j in first["jobs"]] == [3, 2]
    rest = cluster.papi("GET", f"21/job/jobs?resume={first['resume']}").json()
    assert [j["id"] for j in rest["jobs"]] == [1] and rest["resume"] is None
    paused = cluster.papi("GET", "21/job/jobs?state=paused_user").json()
    assert [j["type"] for j in paused["jobs"]] == ["AutoBalance"]
    assert cluster.papi("GET", "21/job/jobs?sort=nonsense").status_code == 400
    assert cluster.papi("GET", "21/job/jobs?resume=not-a-token").status_code == 400


def test_a_login_post_with_a_trailing_slash_is_not_found(cluster):
    body = {"username": USER, "password": PASSWORD, "services": ["platform"]}
    assert (
        requests.post(f"{cluster.url}/session/1/session/", json=body, timeout=5).status_code == 404
    )


def test_a_job_is_paused_resumed_and_cancelled(cluster, monkeypatch):
    monkeypatch.setenv("ONEFS_SIM_JOB_SECONDS", "0.5")
    job_id = cluster.papi("POST", "21/job/jobs", json={"type": "SmartPools"}).json()["id"]
    url = f"21/job/jobs/{job_id}"
    assert cluster.papi("PUT", url, json={"state": "pause"}).status_code == 204
    time.sleep(0.7)  # longer than the job's run time: a paused job does not advance
    paused = cluster.papi("GET", url).json()["jobs"][0]
    assert paused["state"] == "paused_user"
    assert "SmartPools" in cluster.isi("job", "jobs", "list")
    assert cluster.papi("PUT", url, json={"state": "run"}).status_code == 204
    assert cluster.papi("GET", url).json()["jobs"][0]["state"] == "running"
    assert cluster.papi("PUT", url, json={"state": "cancel"}).status_code == 204
    cancelled = cluster.papi("GET", url).json()["jobs"][0]
    assert cancelled["state"] == "cancelled_user"
    assert cluster.state()["placement"] == {}  # a cancelled SmartPools job placed nothing
    late = cluster.papi("PUT", url, json={"state": "run"})
    assert late.status_code == 409


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"type": "SmartPools", "priority": 99}, "priority"),
        ({"type": "SmartPools", "policy": "URGENT"}, "policy"),
        ({"type": "SmartPools", "paths": ["/tmp"]}, "paths"),
        ({"type": "NoSuchJob"}, "type"),
    ],
)
def test_bad_job_starts_are_refused_and_start_nothing(cluster, body, field):
    refused = cluster.papi("POST", "21/job/jobs", json=body)
    assert refused.status_code == 400
    assert refused.json()["errors"][0]["field"] == field
    assert cluster.state()["jobs"] == []


BAD_POLICY_CHANGES = [
    ({"actions": [{"action_type": "apply_data_storage_policy",
                   "action_param": {"storagepool": "no-such-tier", "ssd_strategy": "metadata"}}]},
     "actions"),
    ({"actions": [{"action_type": "set_requested_protection", "action_param": "+9z"}]},
     "actions"),
    ({"file_matching_pattern": {"or_criteria": []}}, "file_matching_pattern"),
    ({"file_matching_pattern": {"or_criteria": [{"and_criteria": []}]}},
     "file_matching_pattern"),
    ({"actions": []}, "actions"),
    ({"description": "x" * 256}, "description"),
]  # fmt: skip


@pytest.mark.parametrize(("change", "field"), BAD_POLICY_CHANGES)
def test_a_refused_policy_write_changes_nothing(cluster, change, field):
    cluster.tiers()
    before = cluster.state()
    refused = cluster.papi("POST", "12/filepool/policies", json={**IDLE_POLICY, **change})
    assert refused.status_code == 400
    assert refused.json()["errors"][0]["field"] == field
    assert cluster.state() == before


@pytest.mark.parametrize(
    ("path", "body", "status", "field"),
    [
        ("16/storagepool/tiers", {"name": "t", "transfer_limit_pct": 500}, 400,
         "transfer_limit_pct"),
        ("16/storagepool/tiers", {"name": "t", "children": ["h500_60tb_3.2tb-ssd_128gb"]}, 409,
         "children"),
        ("18/storagepool/settings", {"spillover_enabled": "yes"}, 400, "spillover_enabled"),
        ("18/storagepool/settings", {"spillover_target": {"name_or_id": "nope",
                                                          "type": "storagepool"}}, 400,
         "spillover_target"),
        ("20/protocols/nfs/exports", {"paths": ["/ifs/no/such/dir"]}, 400, "paths"),
        ("20/protocols/nfs/exports", {"paths": ["/ifs"]}, 409, "paths"),
        ("20/protocols/nfs/exports", {"paths": ["/ifs/data"], "read_only": "no"}, 400,
         "read_only"),
        ("20/protocols/nfs/exports", {"paths": ["/ifs/data"], "security_flavors": ["ntlm"]},
         400, "security_flavors"),
    ],
)  # fmt: skip
def test_refused_writes_answer_like_the_cluster_and_change_nothing(
    cluster, path, body, status, field
):
    cluster.tiers()  # the cold tier already holds the H500 pool
    (cluster.ifs / "data").mkdir()
    before = cluster.state()
    method = "PUT" if path.endswith("settings") else "POST"
    refused = cluster.papi(method, path, json=body)
    assert refused.status_code == status
    error = refused.json()["errors"][0]
    assert error["field"] == field
    assert error["code"] == {400: "AEC_BAD_REQUEST", 409: "AEC_CONFLICT"}[status]
    assert cluster.state() == before


def test_export_lists_filter_by_path_and_page_with_resume(cluster):
    for name in ("data", "scratch", "logs"):
        (cluster.ifs / name).mkdir()
        assert cluster.papi("POST", "20/protocols/nfs/exports", json={"paths": [f"/ifs/{name}"]}).ok
    found = cluster.papi("GET", "20/protocols/nfs/exports?path=/ifs/data").json()
    assert found["total"] == 1 and found["exports"][0]["paths"] == ["/ifs/data"]
    first = cluster.papi("GET", "20/protocols/nfs/exports?limit=2&sort=id&dir=DESC").json()
    assert first["total"] == 4 and [e["id"] for e in first["exports"]] == [4, 3]
    rest = cluster.papi("GET", f"20/protocols/nfs/exports?resume={first['resume']}").json()
    assert [e["id"] for e in rest["exports"]] == [2, 1] and rest["resume"] is None
    assert cluster.papi("GET", "20/protocols/nfs/exports?dir=UP").status_code == 400
    assert cluster.papi("GET", "20/protocols/nfs/exports?limit=0").status_code == 400
    assert cluster.papi("GET", "20/protocols/nfs/exports?zone=Nowhere").status_code == 404


def test_isi_views_pauses_and_cancels_a_running_job_and_names_an_unknown_one(
    cluster, monkeypatch, capsys
):
    monkeypatch.setenv("ONEFS_SIM_JOB_SECONDS", "30")
    job = cluster.papi("POST", "21/job/jobs", json={"type": "SmartPools"}).json()["id"]
    assert "State: running" in cluster.isi("job", "jobs", "view", str(job)).replace("  ", "")
    cluster.isi("job", "jobs", "pause", str(job))
    assert cluster.papi("GET", f"21/job/jobs/{job}").json()["jobs"][0]["state"] == "paused_user"
    cluster.isi("job", "jobs", "cancel", str(job))
    assert "Total: 0" in cluster.isi("job", "jobs", "list")
    for words in (["view", "999"], ["pause", "999"], ["cancel", str(job)]):
        assert isi.main(["job", "jobs", *words], cluster.store, str(cluster.ifs)) == 1
    errors = capsys.readouterr().err
    assert "isi: " in errors and f"Job {job} has already finished" in errors


def test_an_export_client_the_cluster_cannot_resolve_is_refused_unless_asked_to_keep_it(cluster):
    (cluster.ifs / "data").mkdir()
    url = "20/protocols/nfs/exports"
    before = cluster.state()
    refused = cluster.papi("POST", url, json={"paths": ["/ifs/data"], "clients": ["10.0.0.0/240"]})
    assert refused.status_code == 400
    assert refused.json()["errors"][0]["field"] == "clients"
    assert cluster.state() == before
    good = ["172.16.1.0/24", "172.16.1.5", "gpu-1.lab"]
    created = cluster.papi("POST", url, json={"paths": ["/ifs/data"], "clients": good})
    export_id = created.json()["id"]
    shown = cluster.papi("GET", f"{url}/{export_id}").json()["exports"][0]
    assert shown["clients"] == good and shown["unresolved_clients"] == []
    put = f"{url}/{export_id}"
    assert cluster.papi("PUT", put, json={"root_clients": ["bad host"]}).status_code == 400
    kept = cluster.papi(
        "PUT", put + "?ignore_unresolvable_hosts=true", json={"root_clients": ["bad host"]}
    )
    assert kept.status_code == 204
    shown = cluster.papi("GET", f"{url}/{export_id}").json()["exports"][0]
    assert shown["root_clients"] == ["bad host"] and shown["unresolved_clients"] == ["bad host"]
