"""The OneFS API simulator (lab/simulators/onefs_sim): PAPI shapes, auth, state, SmartPools."""

from __future__ import annotations

import datetime
import io
import os
import sys
import threading
from contextlib import redirect_stdout
from pathlib import Path

import pytest
import requests

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "lab" / "simulators"))
from onefs_sim import api, isi, model  # noqa: E402

CLUSTER = ROOT / "lab" / "simulators" / "onefs_sim" / "lab-cluster.json"
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

    def __init__(self, tmp_path: Path, cert: tuple[str, str] | None = None):
        self.ifs = tmp_path / "ifs"
        self.ifs.mkdir(exist_ok=True)
        self.store = model.Store(tmp_path / "ifs" / ".ifsvar" / "state.json", CLUSTER)
        self.server = api.serve(
            ("127.0.0.1", 0), self.store, {USER: PASSWORD}, str(self.ifs), 1, *(cert or ())
        )
        scheme = "https" if cert else "http"
        self.url = f"{scheme}://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
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


@pytest.fixture
def cluster(tmp_path):
    node = Cluster(tmp_path)
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
    response = cluster.papi("POST", "4/filepool/policies", json={**IDLE_POLICY, **change})
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == field


def test_default_policy_uses_the_hyphenated_key(cluster):
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


def test_version_routing_serves_the_newest_version_not_above_the_request(cluster):
    assert cluster.papi("GET", "latest").json() == {"latest": "11"}
    assert cluster.papi("GET", "99/filepool/policies").status_code == 200
    assert cluster.papi("GET", "3/filepool/policies").status_code == 200
    assert cluster.papi("GET", "3/filepool/default-policy").status_code == 404
    assert cluster.papi("GET", "1/no/such/thing").status_code == 404
    assert cluster.papi("PATCH", "1/storagepool/tiers").status_code in (404, 405, 501)


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


def _self_signed(tmp_path: Path) -> tuple[str, str]:
    """A certificate for 127.0.0.1 that is its own CA, like a one-node lab CA."""
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(1)
        .not_valid_before(now)
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return str(cert_path), str(key_path)


def test_tls_with_the_lab_ca(tmp_path):
    cert_path, key_path = _self_signed(tmp_path)
    node = Cluster(tmp_path, (cert_path, key_path))
    try:
        trusted = requests.get(
            f"{node.url}/platform/latest", auth=(USER, PASSWORD), verify=str(cert_path), timeout=5
        )
        assert trusted.json() == {"latest": "11"}
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
    for name, pool in (
        ("hot-tier", "f800_48tb-ssd_256gb"),
        ("cold-tier", "h500_60tb_3.2tb-ssd_128gb"),
    ):
        assert cluster.papi(
            "POST", "1/storagepool/tiers", json={"name": name, "children": [pool]}
        ).ok
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
    assert cluster.isi("job", "jobs", "start", "SmartPools").startswith("Started job [")
    cold = cluster.isi("get", "-D", path)
    assert "policy cold-tier(4) -> data target h500_60tb_3.2tb-ssd_128gb:2(2)" in cold

    shard.read_bytes()
    os.utime(shard, None)  # a read under strict atime
    cluster.isi("job", "jobs", "start", "SmartPools")
    assert "policy hot-tier(3)" in cluster.isi("get", "-D", path)
    assert "SmartPools" in cluster.isi("status")


def test_a_second_smartpools_job_is_refused_while_one_runs(cluster):
    with cluster.store.transaction(write=True) as state:
        model.start_job(state, {"type": "SmartPools"})  # running, never finished here
    refused = cluster.papi("POST", "3/job/jobs", json={"type": "SmartPools"})
    assert refused.status_code == 409
    assert cluster.papi("GET", "3/job/jobs").json()["total"] == 1


@pytest.fixture
def tls_cluster(tmp_path):
    cert = _self_signed(tmp_path)
    node = Cluster(tmp_path, cert)
    node.ca = cert[0]
    yield node
    node.stop()


def test_dells_generated_sdk_talks_to_the_simulator(tls_cluster):
    sdk = pytest.importorskip("isi_sdk_9_1_0")
    config = sdk.Configuration()
    config.host = tls_cluster.url  # the SDK speaks HTTPS only, and verifies it
    config.username, config.password = USER, PASSWORD
    config.verify_ssl = True
    config.ssl_ca_cert = tls_cluster.ca
    client = sdk.ApiClient(config)
    pools = sdk.StoragepoolApi(client)
    created = pools.create_storagepool_tier(
        sdk.StoragepoolTierCreateParams(name="hot-tier", children=["f800_48tb-ssd_256gb"])
    )
    tiers = pools.list_storagepool_tiers().tiers
    assert [(t.id, t.name, t.children) for t in tiers] == [
        (created.id, "hot-tier", ["f800_48tb-ssd_256gb"])
    ]
    assert [p.name for p in pools.list_storagepool_nodepools().nodepools] == [
        "f800_48tb-ssd_256gb",
        "h500_60tb_3.2tb-ssd_128gb",
    ]
    filepool = sdk.FilepoolApi(client)
    filepool.create_filepool_policy(IDLE_POLICY)
    policy = filepool.get_filepool_policy("Idle data to cold tier").policies[0]
    assert policy.file_matching_pattern.or_criteria[0].and_criteria[0].type == "accessed_time"
    assert "cold-tier" in str(policy.actions[0].action_param)  # the SDK models it as a string
    default = filepool.get_filepool_default_policy().default_policy
    assert {a.action_type for a in default.actions} >= {"apply_data_storage_policy"}
    settings = sdk.FilesystemApi(client).get_settings_access_time().settings
    assert (settings.enabled, settings.precision) == (False, 0)
    job = sdk.JobApi(client).create_job_job(sdk.JobJobCreateParams(type="SmartPools"))
    assert job.id >= 1
