"""The onefs_* modules and their client: recorded responses, then the simulator as a cluster."""

from __future__ import annotations

import importlib.util
import json
import sys
import threading
import types
from pathlib import Path

import ansible.module_utils
import pytest
from ansible.errors import AnsibleActionFail
from ansible.module_utils.testing import patch_module_args
from ansible.parsing.dataloader import DataLoader
from ansible.playbook.play_context import PlayContext
from ansible.playbook.task import Task
from ansible.template import Templar

ROOT = Path(__file__).resolve().parents[2]
ansible.module_utils.__path__.append(str(ROOT / "module_utils"))
sys.path.insert(0, str(ROOT / "lab" / "simulators"))
from ansible.module_utils import onefs  # noqa: E402
from onefs_sim import api, jobs, model  # noqa: E402
from throwaway_tls import self_signed  # noqa: E402

PASSWORD = "pw-not-for-logs"
PARAMS = {
    "onefs_host": "127.0.0.1",
    "port_no": 8080,
    "api_user": "admin",
    "api_password": PASSWORD,
    "verify_ssl": True,
    "ca_path": None,
    "auth": "session",
    "timeout": 5,
    "retries": 3,
}


def _module(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "library" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---- the client against recorded responses ----------------------------------------------


class Recorder:
    """Answers requests from a script of (status, body) and records what was sent."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.sent = []

    def __call__(self, method, url, data, headers):
        self.sent.append((method, url, json.loads(data) if data else None, dict(headers)))
        status, body, headers_out = self.answers.pop(0)
        return status, json.dumps(body) if body is not None else "", headers_out


SESSION_OK = (
    201,
    {"services": ["platform"], "username": "admin"},
    [
        ("Set-Cookie", "isisessid=abc; path=/; HttpOnly; Secure"),
        ("Set-Cookie", "isicsrf=tok; path=/"),
    ],
)


def _client(answers, **overrides):
    client = onefs.OneFSClient({**PARAMS, **overrides}, sleep=lambda s: None)
    recorder = Recorder(answers)
    client._send = recorder
    return client, recorder


def test_session_login_sends_csrf_and_referer_on_later_calls():
    client, sent = _client([SESSION_OK, (200, {"settings": {"enabled": True}}, [])])
    client.login()
    client.get("1/filesystem/settings/access-time")
    headers = sent.sent[1][3]
    assert headers["Cookie"] == "isisessid=abc"
    assert headers["X-CSRF-Token"] == "tok"
    assert headers["Referer"] == "https://127.0.0.1:8080"
    assert "Authorization" not in headers
    assert sent.sent[0][2] == {"username": "admin", "password": PASSWORD, "services": ["platform"]}


def test_basic_auth_sends_the_authorization_header():
    client, sent = _client([(200, {"latest": "11"}, [])], auth="basic")
    client.login()
    assert client.get("latest") == {"latest": "11"}
    assert sent.sent[0][3]["Authorization"].startswith("Basic ")


def test_503_is_retried_then_succeeds_and_404_is_not_retried():
    busy = (503, {"errors": [{"code": "AEC_SERVICE_UNAVAILABLE", "message": "busy"}]}, [])
    client, sent = _client([busy, busy, (200, {"tiers": [], "total": 0}, [])], auth="basic")
    assert client.get("1/storagepool/tiers") == {"tiers": [], "total": 0}
    assert len(sent.sent) == 3
    missing = (404, {"errors": [{"code": "AEC_NOT_FOUND", "message": "Tier 9 not found"}]}, [])
    client, sent = _client([missing], auth="basic")
    with pytest.raises(onefs.OneFSError, match="404 AEC_NOT_FOUND: Tier 9 not found"):
        client.get("1/storagepool/tiers/9")
    assert len(sent.sent) == 1


def test_a_post_is_never_repeated():
    failure = (500, {"errors": [{"code": "AEC_EXCEPTION", "message": "boom"}]}, [])
    client, sent = _client([failure, (201, {"id": 1}, [])], auth="basic")
    with pytest.raises(onefs.OneFSError):
        client.post("1/storagepool/tiers", {"name": "hot-tier"})
    assert len(sent.sent) == 1  # a retry could create the tier twice


def test_errors_carry_the_clusters_message_not_the_password():
    denied = (
        401,
        {"errors": [{"code": "AEC_UNAUTHORIZED", "message": "Username or password is incorrect."}]},
        [],
    )
    client, _ = _client([denied])
    with pytest.raises(onefs.OneFSError) as caught:
        client.login()
    assert "Username or password is incorrect." in str(caught.value)
    assert PASSWORD not in str(caught.value)


def test_the_client_uses_the_newest_version_the_cluster_serves():
    client, sent = _client([(200, {"latest": "11"}, [])], auth="basic")
    assert client.path("protocols/nfs/exports", (4, 20)) == "4/protocols/nfs/exports"
    assert client.path("job/jobs", (3, 10, 21)) == "10/job/jobs"
    assert len(sent.sent) == 1  # /platform/latest is read once
    with pytest.raises(onefs.OneFSError, match="serves API versions up to 11; x needs version 12"):
        client.path("x", (12, 16))


def test_dellemc_style_criteria_become_the_papers_api_form():
    pattern = onefs.to_papi_pattern(
        {
            "or_criteria": [
                {
                    "and_criteria": [
                        {
                            "type": "accessed",
                            "condition": "is_older_than",
                            "relative_datetime_count": {"time_value": 1, "time_unit": "months"},
                        },
                        {
                            "type": "size",
                            "condition": "greater_than",
                            "size_info": {"size_value": 1, "size_unit": "MB"},
                        },
                    ]
                }
            ]
        }
    )
    assert pattern["or_criteria"][0]["and_criteria"] == [
        {"type": "accessed_time", "operator": ">", "use_relative_time": True, "value": 2592000},
        {"type": "size", "operator": ">", "value": 1, "units": "MB"},
    ]
    with pytest.raises(ValueError, match="positive time_value"):
        onefs.to_papi_criterion(
            {
                "type": "accessed",
                "condition": "is_older_than",
                "relative_datetime_count": {"time_value": 0},
            }
        )


# ---- the modules against the simulator ------------------------------------------------------


SIM = ROOT / "lab" / "simulators" / "onefs_sim"
# release -> (cluster config, the API version each module uses there): the newest
# version the module knows that the cluster serves (9.1 serves up to 11, 9.10 up to 21)
RELEASES = {
    "9.10": (SIM / "lab-cluster.json", {"tiers": 16, "policies": 12, "exports": 20, "jobs": 21}),
    "9.1": (SIM / "lab-cluster-9.1.json", {"tiers": 1, "policies": 4, "exports": 4, "jobs": 10}),
}


@pytest.fixture(autouse=True)
def quick_jobs(monkeypatch):
    """Jobs that run for 0.4 s (the lab's default is a few seconds)."""
    monkeypatch.setenv("ONEFS_SIM_JOB_SECONDS", "0.4")
    monkeypatch.setenv("ONEFS_SIM_JOB_SECONDS_PER_FILE", "0")


def _serve(tmp_path, release):
    config, versions = RELEASES[release]
    cert, key = (str(path) for path in self_signed(tmp_path))
    (tmp_path / "ifs").mkdir()
    store = model.Store(tmp_path / "ifs" / ".ifsvar" / "state.json", config)
    server = api.serve(
        ("127.0.0.1", 0), store, {"admin": PASSWORD}, str(tmp_path / "ifs"), 1, cert, key
    )
    # a short poll interval: shutdown() at teardown waits for one poll
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    node = {
        "port_no": server.server_address[1],
        "ca_path": cert,
        "store": store,
        "log": tmp_path / "ifs" / ".ifsvar" / "requests.log",
        "release": release,
        "v": versions,
    }
    return server, node


@pytest.fixture
def cluster(tmp_path):
    """The lab's default cluster (9.10)."""
    server, node = _serve(tmp_path, "9.10")
    yield node
    server.shutdown()
    server.server_close()


@pytest.fixture(params=sorted(RELEASES))
def release_cluster(request, tmp_path):
    """The cluster at each release the lab supports."""
    server, node = _serve(tmp_path, request.param)
    yield node
    server.shutdown()
    server.server_close()


def _tiers(cluster, capsys):
    """The papers' hot and cold tiers, which the policies name."""
    for tier, pool in (
        ("hot-tier", "f800_48tb-ssd_256gb"),
        ("cold-tier", "h500_60tb_3.2tb-ssd_128gb"),
    ):
        assert _run("onefs_storagepool_tier", cluster, capsys, tier_name=tier, nodepools=[pool])[
            "changed"
        ]
    cluster["log"].unlink()


def _run(name, cluster, capsys, check_mode=False, **args):
    module = _module(name)
    params = {**PARAMS, "port_no": cluster["port_no"], "ca_path": cluster["ca_path"], **args}
    params.update(_ansible_check_mode=check_mode, _ansible_diff=True)
    with patch_module_args(params), pytest.raises(SystemExit):
        module.main()
    return json.loads(capsys.readouterr().out)


def _changes(cluster):
    log = cluster["log"]
    return (
        [" ".join(line.split()[2:4]) for line in log.read_text().splitlines()]
        if log.exists()
        else []
    )


IDLE = {
    "policy_name": "Idle data to cold tier",
    "apply_order": 1,
    "file_matching_pattern": {
        "or_criteria": [
            {
                "and_criteria": [
                    {
                        "type": "accessed",
                        "condition": "is_older_than",
                        "relative_datetime_count": {"time_value": 30, "time_unit": "days"},
                    }
                ]
            }
        ]
    },
    "apply_data_storage_policy": {"storagepool": "cold-tier", "ssd_strategy": "metadata"},
    "apply_snapshot_storage_policy": {"storagepool": "cold-tier", "ssd_strategy": "metadata"},
}


def test_access_time_is_set_once_and_check_mode_writes_nothing(cluster, capsys):
    assert _run(
        "onefs_access_time", cluster, capsys, check_mode=True, enabled=True, precision_days=1
    )["changed"]
    assert _changes(cluster) == []
    assert _run("onefs_access_time", cluster, capsys, enabled=True, precision_days=1)["changed"]
    assert not _run("onefs_access_time", cluster, capsys, enabled=True, precision_days=1)["changed"]
    assert _changes(cluster) == ["PUT /platform/1/filesystem/settings/access-time"]


def test_tier_create_membership_change_and_delete(release_cluster, capsys):
    cluster, v = release_cluster, release_cluster["v"]["tiers"]
    args = {"tier_name": "cold-tier", "nodepools": ["h500_60tb_3.2tb-ssd_128gb"]}
    assert _run("onefs_storagepool_tier", cluster, capsys, **args)["changed"]
    assert not _run("onefs_storagepool_tier", cluster, capsys, **args)["changed"]
    moved = _run(
        "onefs_storagepool_tier",
        cluster,
        capsys,
        tier_name="cold-tier",
        nodepools=["f800_48tb-ssd_256gb"],
    )
    assert moved["changed"] and moved["diff"]["after"]["nodepools"] == ["f800_48tb-ssd_256gb"]
    assert _run("onefs_storagepool_tier", cluster, capsys, tier_name="cold-tier", state="absent")[
        "changed"
    ]
    assert not _run(
        "onefs_storagepool_tier", cluster, capsys, tier_name="cold-tier", state="absent"
    )["changed"]
    assert _changes(cluster) == [
        f"POST /platform/{v}/storagepool/tiers",
        f"PUT /platform/{v}/storagepool/tiers/3",
        f"DELETE /platform/{v}/storagepool/tiers/3",
    ]


def test_policy_create_rerun_change_to_14_days_and_delete(release_cluster, capsys):
    cluster, v = release_cluster, release_cluster["v"]["policies"]
    _tiers(cluster, capsys)
    created = _run("onefs_filepool_policy", cluster, capsys, **IDLE)
    assert created["changed"]
    assert created["policy"]["file_matching_pattern"]["or_criteria"][0]["and_criteria"] == [
        {"type": "accessed_time", "operator": ">", "use_relative_time": True, "value": 2592000}
    ]
    assert not _run("onefs_filepool_policy", cluster, capsys, **IDLE)["changed"]
    fourteen = json.loads(json.dumps(IDLE))
    fourteen["file_matching_pattern"]["or_criteria"][0]["and_criteria"][0][
        "relative_datetime_count"
    ]["time_value"] = 14
    changed = _run("onefs_filepool_policy", cluster, capsys, **fourteen)
    assert changed["changed"]
    assert list(changed["changes"]) == ["file_matching_pattern"]  # only what differs
    with cluster["store"].transaction() as state:
        criterion = state["filepool_policies"][0]["file_matching_pattern"]["or_criteria"][0][
            "and_criteria"
        ][0]
    assert criterion["value"] == 14 * 86400
    assert _run(
        "onefs_filepool_policy", cluster, capsys, policy_name=IDLE["policy_name"], state="absent"
    )["changed"]
    assert _changes(cluster) == [
        f"POST /platform/{v}/filepool/policies",
        f"PUT /platform/{v}/filepool/policies/Idle%20data%20to%20cold%20tier",
        f"DELETE /platform/{v}/filepool/policies/Idle%20data%20to%20cold%20tier",
    ]


def test_default_policy_keeps_the_actions_it_does_not_manage(cluster, capsys):
    _tiers(cluster, capsys)
    result = _run(
        "onefs_filepool_default_policy",
        cluster,
        capsys,
        apply_data_storage_policy={"storagepool": "hot-tier", "ssd_strategy": "data"},
    )
    kinds = [a["action_type"] for a in result["actions"]]
    assert "set_data_access_pattern" in kinds and "enable_coalescer" in kinds
    assert result["actions"][0]["action_param"] == {
        "storagepool": "hot-tier",
        "ssd_strategy": "data",
    }
    again = _run(
        "onefs_filepool_default_policy",
        cluster,
        capsys,
        apply_data_storage_policy={"storagepool": "hot-tier", "ssd_strategy": "data"},
    )
    assert not again["changed"]


def test_job_is_started_waited_for_and_not_duplicated(release_cluster, capsys):
    cluster, v = release_cluster, release_cluster["v"]["jobs"]
    done = _run("onefs_job", cluster, capsys, job_type="SmartPools", wait=True, wait_interval=0.1)
    assert done["changed"] and done["job"]["state"] == "succeeded"
    # the job ran for a while: the module saw it running before it succeeded
    assert done["progress"][0].startswith("running") and done["progress"][-1].startswith(
        "succeeded"
    )
    with cluster["store"].transaction(write=True) as state:
        model.start_job(
            state, {"type": "SmartPools"}, 0, {"base_seconds": 60, "seconds_per_file": 0}
        )
    busy = _run("onefs_job", cluster, capsys, job_type="SmartPools")
    assert not busy["changed"] and busy["msg"] == "a job of this type is already active"
    assert _changes(cluster) == [f"POST /platform/{v}/job/jobs"]


def test_a_running_job_is_waited_for_instead_of_started_again(cluster, capsys):
    with cluster["store"].transaction(write=True) as state:
        running = model.start_job(
            state, {"type": "SmartPools"}, 0, {"base_seconds": 0.5, "seconds_per_file": 0}
        )
    waited = _run("onefs_job", cluster, capsys, job_type="SmartPools", wait=True, wait_interval=0.1)
    assert not waited["changed"]
    assert (waited["job"]["id"], waited["job"]["state"]) == (running["id"], "succeeded")
    assert _changes(cluster) == []  # nothing was started


def test_a_wait_that_times_out_says_what_is_still_running(cluster, capsys, monkeypatch):
    monkeypatch.setenv("ONEFS_SIM_JOB_SECONDS", "60")
    result = _run(
        "onefs_job", cluster, capsys, job_type="SmartPools", wait=True, wait_timeout=1,
        wait_interval=0.2,
    )  # fmt: skip
    assert result["failed"]
    assert result["msg"].startswith("SmartPools job 1 is still running, phase 1/2")
    assert "after 1 s" in result["msg"]
    with cluster["store"].transaction() as state:
        assert state["jobs"][0]["state"] == "running"  # the timeout leaves the job alone


def test_a_job_cancelled_on_the_cluster_fails_the_wait(cluster, capsys, monkeypatch):
    monkeypatch.setenv("ONEFS_SIM_JOB_SECONDS", "60")

    def cancel():
        """An admin cancels the job on the cluster while the task waits."""
        with cluster["store"].transaction(write=True) as state:
            jobs.control(state, state["jobs"][0], "cancel")

    timer = threading.Timer(0.5, cancel)
    timer.start()
    try:
        result = _run(
            "onefs_job", cluster, capsys, job_type="SmartPools", wait=True, wait_timeout=20,
            wait_interval=0.1,
        )  # fmt: skip
    finally:
        timer.cancel()
    assert result["failed"] and result["msg"] == "SmartPools job 1 ended cancelled_user"


def test_export_is_idempotent_and_changes_in_place(release_cluster, capsys):
    cluster, v = release_cluster, release_cluster["v"]["exports"]
    args = {"path": "/ifs", "read_only": False, "map_root": {"enabled": True, "user": "nobody"}}
    assert not _run("onefs_nfs_export", cluster, capsys, **args)["changed"]
    assert _run("onefs_nfs_export", cluster, capsys, path="/ifs", read_only=True)["changed"]
    assert _changes(cluster) == [f"PUT /platform/{v}/protocols/nfs/exports/1"]


def test_the_export_of_a_subdirectory_is_not_mistaken_for_the_root_export(cluster, capsys):
    data = cluster["log"].parent.parent / "data"
    data.mkdir()
    created = _run("onefs_nfs_export", cluster, capsys, path="/ifs/data", read_only=True)
    assert created["changed"]
    again = _run("onefs_nfs_export", cluster, capsys, path="/ifs/data", read_only=True)
    assert not again["changed"] and again["export"]["paths"] == ["/ifs/data"]
    with cluster["store"].transaction() as state:
        assert {e["id"]: e["read_only"] for e in state["nfs_exports"]} == {1: False, 2: True}


def test_an_export_of_a_missing_path_fails_with_the_clusters_message(cluster, capsys):
    failed = _run("onefs_nfs_export", cluster, capsys, path="/ifs/no/such/dir")
    assert failed["failed"] and failed["status"] == 400
    assert "does not exist" in failed["msg"]


def test_info_gathers_the_asked_subsets(release_cluster, capsys):
    cluster = release_cluster
    facts = _run("onefs_info", cluster, capsys, gather_subset=["version", "nodepools"])["onefs"]
    assert set(facts) == {"version", "nodepools"}
    assert facts["version"]["release"] == f"{cluster['release']}.0.0"
    assert facts["version"]["api_latest"] == {"9.10": "21", "9.1": "11"}[cluster["release"]]
    assert [p["name"] for p in facts["nodepools"]] == [
        "f800_48tb-ssd_256gb",
        "h500_60tb_3.2tb-ssd_128gb",
    ]


def test_wrong_password_fails_cleanly_without_echoing_it(cluster, capsys):
    result = _run(
        "onefs_info", cluster, capsys, api_password="wrong-secret", gather_subset=["tiers"]
    )
    assert result["failed"] and result["status"] == 401
    assert "wrong-secret" not in json.dumps(result)


def test_an_untrusted_certificate_is_refused(cluster, capsys):
    result = _run("onefs_info", cluster, capsys, ca_path=None, gather_subset=["tiers"])
    assert result["failed"]
    assert "CERTIFICATE_VERIFY_FAILED" in result["msg"] or "certificate" in result["msg"].lower()


# ---- onefs_info's controller side (action_plugins/onefs_info.py) ---------------------------


def _info_action(cluster, transport="local", become=False, environment=None, **args):
    """The onefs_info action for a task with these arguments, on a connection of this
    transport; its module, if it runs it, answers {"ran": "module"}."""
    spec = importlib.util.spec_from_file_location(
        "onefs_info_action", ROOT / "action_plugins" / "onefs_info.py"
    )
    action = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(action)
    task = Task()
    task.action = "onefs_info"
    task.args = {**PARAMS, "port_no": cluster["port_no"], "ca_path": cluster["ca_path"], **args}
    if environment is not None:
        task.environment = environment
    play_context = PlayContext()
    play_context.become = become
    loader = DataLoader()
    connection = types.SimpleNamespace(
        transport=transport, _shell=types.SimpleNamespace(tmpdir="/tmp")
    )
    plugin = action.ActionModule(
        task, connection, play_context, loader, Templar(loader=loader), None
    )
    plugin._execute_module = lambda **kwargs: {"ran": "module", "module_args": kwargs}
    return plugin


def test_info_on_the_control_host_answers_as_the_module_without_running_it(cluster, capsys):
    """A task on the control host (the role's delegate_to: localhost) is read by the
    action itself, with the module's answer, and the module never runs."""
    subsets = [
        "version",
        "nodepools",
        "tiers",
        "filepool_policies",
        "default_policy",
        "access_time",
        "nfs_exports",
    ]
    result = _info_action(cluster, gather_subset=subsets).run(task_vars={})
    assert "ran" not in result
    module = _run("onefs_info", cluster, capsys, gather_subset=subsets)
    assert result["onefs"] == module["onefs"] and result["changed"] is False
    assert _changes(cluster) == []  # a read sends no write


def test_info_on_the_control_host_fails_as_the_module_without_the_password(cluster):
    result = _info_action(cluster, api_password="wrong-secret", gather_subset=["tiers"]).run(
        task_vars={}
    )
    assert result["failed"] and result["status"] == 401 and result["code"]
    assert "wrong-secret" not in json.dumps(result) and PASSWORD not in json.dumps(result)


def test_info_checks_its_arguments_on_the_control_host_too(cluster):
    with pytest.raises(AnsibleActionFail, match="gather_subset"):
        _info_action(cluster, gather_subset=["no_such_subset"]).run(task_vars={})


@pytest.mark.parametrize(
    "where",
    [
        {"transport": "ssh"},  # delegated to another host: the module runs there
        {"become": True},  # another user on the control host
        {"environment": [{"https_proxy": "http://proxy.example:3128"}]},  # the task's environment
    ],
)
def test_info_runs_the_module_anywhere_else(cluster, where):
    result = _info_action(cluster, gather_subset=["tiers"], **where).run(task_vars={})
    assert result["ran"] == "module"


# ---- faults injected into the simulator ------------------------------------------------------


def _faults(cluster, **faults):
    path = cluster["log"].parent / "faults.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(faults))
    return path


def test_a_burst_of_503s_is_retried_until_the_api_answers(cluster, capsys, monkeypatch):
    monkeypatch.setattr("time.sleep", lambda s: None)  # the client's backoff, not the wait
    _faults(cluster, fail=[{"method": "GET", "path": "access-time", "status": 503, "count": 3}])
    result = _run("onefs_access_time", cluster, capsys, enabled=True, precision_days=1)
    assert result["changed"] and not result.get("failed")
    assert _changes(cluster) == ["PUT /platform/1/filesystem/settings/access-time"]


def test_retries_give_up_with_the_clusters_error(cluster, capsys, monkeypatch):
    monkeypatch.setattr("time.sleep", lambda s: None)
    _faults(cluster, fail=[{"method": "GET", "path": "access-time", "status": 503, "count": 9}])
    result = _run("onefs_access_time", cluster, capsys, enabled=True, precision_days=1, retries=2)
    assert result["failed"] and result["status"] == 503
    assert "injected fault: 503" in result["msg"]
    assert _changes(cluster) == []


def test_a_500_on_create_is_not_retried_and_creates_nothing_twice(cluster, capsys):
    _faults(
        cluster, fail=[{"method": "POST", "path": "storagepool/tiers", "status": 500, "count": 1}]
    )
    failed = _run(
        "onefs_storagepool_tier",
        cluster,
        capsys,
        tier_name="hot-tier",
        nodepools=["f800_48tb-ssd_256gb"],
    )
    assert failed["failed"] and failed["status"] == 500
    with cluster["store"].transaction() as state:
        assert state["tiers"] == []
    again = _run(
        "onefs_storagepool_tier",
        cluster,
        capsys,
        tier_name="hot-tier",
        nodepools=["f800_48tb-ssd_256gb"],
    )
    assert again["changed"]
    with cluster["store"].transaction() as state:
        assert [t["name"] for t in state["tiers"]] == ["hot-tier"]


def test_a_slow_api_times_out_with_a_clear_error(cluster, capsys):
    _faults(cluster, delay_seconds=3)
    result = _run(
        "onefs_info", cluster, capsys, timeout=1, retries=0, auth="basic", gather_subset=["tiers"]
    )
    assert result["failed"]
    assert "timed out" in result["msg"].lower()


def test_the_wait_polls_soon_then_less_often_up_to_the_interval(monkeypatch):
    """A job of seconds is seen ending soon after it ends (polls after 0.5, 1, 2 s...),
    a long one is polled every wait_interval: the sleeps double from wait_first."""
    onefs_job = _module("onefs_job")
    states = iter(["running"] * 6 + ["succeeded"])
    monkeypatch.setattr(
        onefs_job, "read_job", lambda client, job_id: {"id": job_id, "type": "SmartPools",
                                                        "state": next(states)}
    )  # fmt: skip
    module = types.SimpleNamespace(
        params={"wait_timeout": 3600, "wait_interval": 5, "wait_first": 0.5,
                "job_type": "SmartPools"},
    )  # fmt: skip
    slept: list[float] = []
    job, seen = onefs_job.wait_for(module, None, {"id": 7}, sleep=slept.append, clock=lambda: 0)
    assert job["state"] == "succeeded" and seen[-1].startswith("succeeded")
    assert slept == [0.5, 1, 2, 4, 5, 5]
