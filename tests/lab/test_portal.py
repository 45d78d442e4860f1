"""The data scientist portal on the lab (roles/jupyterhub): JupyterHub on lab-head behind
its TLS proxy, each notebook server a Slurm job on a GPU server as its user.

The first tests speak HTTP as a script would (login form, spawn form, the hub's REST
API); the last drives a real browser through validate's `portal` check and reads its
report and the session's job in Slurm.
"""

from __future__ import annotations

import json
import re
import socket
import ssl
import time
from pathlib import Path

import pytest
import requests
from conftest import ROOT, docker_host, lab_password, load_lab_groups, run_playbook

GROUPS = load_lab_groups()
HEAD = sorted(GROUPS["head"])[0]
HEAD_MGMT = GROUPS["head"][HEAD]["lab_mgmt_address"]
PORT = GROUPS["head"][HEAD]["lab_portal_port"]
URL = f"https://127.0.0.1:{PORT}"
CA = ROOT / "lab" / ".state" / "pki" / "ca.crt"
REPORT = ROOT / "lab" / ".state" / "reports" / "validate"
COMPUTE = sorted(GROUPS["compute"])
USERS = {"alice": "lab-user", "bob": "lab-user-bob"}


def login(user: str, password: str | None = None) -> requests.Session:
    """A logged-in session, as the login form makes it (its _xsrf field and cookie)."""
    session = requests.Session()
    session.trust_env = False  # the lab CA, whatever REQUESTS_CA_BUNDLE says; no proxy
    session.verify = str(CA)
    page = session.get(f"{URL}/hub/login", timeout=30)
    page.raise_for_status()
    xsrf = re.search(r'name="_xsrf" value="([^"]+)"', page.text)
    form = {"username": user, "password": password or lab_password(USERS[user])}
    if xsrf:
        form["_xsrf"] = xsrf.group(1)
    session.post(f"{URL}/hub/login", data=form, timeout=60)
    return session


def api(session: requests.Session, method: str, path: str, **kwargs) -> requests.Response:
    """The hub's REST API with the session's cookie (and its xsrf token, as the hub's
    own pages send it)."""
    headers = {"X-XSRFToken": session.cookies.get("_xsrf", path="/hub/") or ""}
    return session.request(method, f"{URL}/hub/api{path}", headers=headers, timeout=60, **kwargs)


def server_of(session: requests.Session, user: str) -> dict:
    reply = api(session, "GET", f"/users/{user}")
    reply.raise_for_status()
    return reply.json().get("servers", {}).get("", {})


def wait_ready(session: requests.Session, user: str, timeout: int = 600) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        server = server_of(session, user)
        if server.get("ready"):
            return server
        if not server.get("pending") and not server:
            pytest.fail(f"{user}'s server stopped while starting")
        time.sleep(5)
    pytest.fail(f"{user}'s server was not ready within {timeout} s")


def squeue(user: str) -> list[str]:
    out = docker_host(HEAD).check_output(f"squeue -h -u {user} -n spawner-jupyterhub -o '%i %T %N'")
    return [line for line in out.splitlines() if line.strip()]


def scontrol(job_id: str) -> dict[str, str]:
    line = docker_host(HEAD).check_output(f"scontrol --oneliner show job {job_id}")
    return dict(t.partition("=")[::2] for t in line.split() if "=" in t)


@pytest.fixture(scope="module")
def bob_server():
    """bob's server, started through the spawn form with 1 GPU; stopped at the end (alice's
    session is the browser check's)."""
    bob = login("bob")
    assert bob.get(f"{URL}/hub/home", timeout=30).url.endswith("/hub/home")
    assert 'name="gpus"' in bob.get(f"{URL}/hub/spawn", timeout=30).text
    # the form's page sends the _xsrf cookie's token with the form, as the hub's script does
    data = {"gpus": "1", "partition": "hipri", "_xsrf": bob.cookies.get("_xsrf", path="/hub/")}
    spawned = bob.post(f"{URL}/hub/spawn", data=data, timeout=120)
    assert spawned.status_code == 200, spawned.status_code
    server = wait_ready(bob, "bob")
    # the server's own login (OAuth with the hub), as a browser's first visit makes it
    assert bob.get(f"{URL}/user/bob/lab", timeout=120).status_code == 200
    yield bob, server
    api(bob, "DELETE", "/users/bob/server")
    deadline = time.monotonic() + 120
    while squeue("bob") and time.monotonic() < deadline:
        time.sleep(3)


def test_only_the_portal_port_listens_beyond_the_head_node():
    listening = docker_host(HEAD).check_output("ss -Hltnp")
    sockets = {}
    for line in listening.splitlines():
        fields = line.split()
        proc = re.search(r'"([^"]+)"', line)
        sockets.setdefault(proc.group(1) if proc else "?", set()).add(fields[3])
    # the proxy: the public port on every address, its API on loopback only
    assert any(addr.endswith(":8000") and not addr.startswith("127.") for addr in sockets["node"])
    assert "127.0.0.1:8001" in sockets["node"]
    # the hub's API: on the cluster's network (where the GPU servers call back), not on all
    assert {a for a in sockets["jupyterhub"] if a.endswith(":8081")} == {f"{HEAD_MGMT}:8081"}


def test_idle_sessions_are_culled_by_a_hub_service_with_only_its_scopes():
    """jupyterhub-idle-culler runs as the hub's managed service with the role's timeout
    (an idle session's Slurm job ends, its GPUs go back): its first pass at start-up reads
    the users and their servers, which its role's scopes must allow (a 403 otherwise)."""
    head = docker_host(HEAD)
    culler = head.check_output("pgrep -af jupyterhub_idle_culler || true")
    assert "--timeout=3600" in culler and "--cull-every=300" in culler, culler
    log = head.check_output("journalctl -q -u jupyterhub --no-pager")
    assert "idle-culler" in log
    culler_lines = [line for line in log.splitlines() if "idle-culler" in line or "cull" in line]
    assert not [line for line in culler_lines if " 403 " in line or "Forbidden" in line]


def test_the_portal_serves_the_sites_certificate():
    context = ssl.create_default_context(cafile=str(CA))
    with (
        socket.create_connection(("127.0.0.1", PORT), timeout=10) as raw,
        context.wrap_socket(raw, server_hostname=HEAD) as tls,
    ):
        subject = dict(item[0] for item in tls.getpeercert()["subject"])
    assert subject["commonName"] == HEAD
    assert requests.get(f"{URL}/hub/login", verify=str(CA), timeout=30).status_code == 200


def test_the_secrets_are_made_on_the_head_node_and_private():
    head = docker_host(HEAD)
    cookie = head.file("/var/lib/jupyterhub/jupyterhub_cookie_secret")
    env = head.file("/etc/jupyterhub/proxy.env")
    key = head.file("/etc/jupyterhub/tls/portal.key")
    assert (cookie.user, cookie.mode) == ("root", 0o600)
    assert (env.user, env.mode) == ("root", 0o600)
    assert (key.group, key.mode) == ("jupyterhub-proxy", 0o640)
    assert re.fullmatch(r"[0-9a-f]{64}", cookie.content_string.strip())
    token = env.content_string.strip().partition("=")[2]
    assert re.fullmatch(r"[0-9a-f]{64}", token)
    # never in the services' logs
    assert token not in head.check_output("journalctl -q -u jupyterhub -u jupyterhub-proxy")


def test_a_wrong_password_is_refused():
    session = login("bob", password="not-the-password")
    assert "/hub/login" in session.get(f"{URL}/hub/home", timeout=30).url
    assert session.get(f"{URL}/hub/api/user", timeout=30).status_code == 403


def test_a_request_outside_the_form_is_refused_and_submits_nothing():
    alice = login("alice")
    reply = api(alice, "POST", "/users/alice/server", json={"gpus": "9"})
    assert reply.status_code == 400 and "Invalid user options" in reply.text, reply.text
    # the hub's log says why (apply_user_options)
    log = docker_host(HEAD).check_output("journalctl -q -u jupyterhub --since=-2min")
    assert "gpus must be from 1 to 4, not 9" in log
    assert squeue("alice") == []


def test_the_server_is_a_slurm_job_as_the_user_with_what_the_form_asked(bob_server):
    _, server = bob_server
    job_id = server["state"]["job_id"] if "state" in server else squeue("bob")[0].split()[0]
    job = scontrol(job_id)
    assert job["JobState"] == "RUNNING"
    assert job["UserId"].startswith("bob(5002)")
    assert job["Partition"] == "hipri"
    assert job["NodeList"] in COMPUTE
    tres = dict(t.partition("=")[::2] for t in job["TRES"].split(","))
    assert (job["TresPerNode"], tres["cpu"], tres["mem"]) == ("gres:gpu:1", "8", "48G")
    assert (job["NumNodes"], job["TimeLimit"]) == ("1", "08:00:00")


def test_the_session_has_its_home_laid_out(bob_server):
    bob, _ = bob_server
    contents = bob.get(f"{URL}/user/bob/api/contents/", timeout=60)
    assert contents.status_code == 200, contents.text[:300]
    names = {entry["name"] for entry in contents.json()["content"]}
    assert {"templates", "isilon", "logs"} <= names
    templates = bob.get(f"{URL}/user/bob/api/contents/templates", timeout=60).json()
    assert {e["name"] for e in templates["content"] if e["name"].endswith(".ipynb")} >= {
        "tensorflow-horovod-resnet50.ipynb",
        "mxnet-resnet50.ipynb",
        "pytorch-resnet50.ipynb",
    }
    # the Isilon export as the GPU server sees it
    isilon = bob.get(f"{URL}/user/bob/api/contents/isilon/data", timeout=60).json()
    assert "imagenet-scratch" in {e["name"] for e in isilon["content"]}


def test_the_session_offers_python_and_r_kernels_and_a_terminal(bob_server):
    bob, _ = bob_server
    specs = bob.get(f"{URL}/user/bob/api/kernelspecs", timeout=60).json()["kernelspecs"]
    assert {"python3", "ir"} <= set(specs)
    xsrf = {"X-XSRFToken": bob.cookies.get("_xsrf", path="/user/bob/") or ""}
    terminal = bob.post(f"{URL}/user/bob/api/terminals", headers=xsrf, timeout=60)
    assert terminal.status_code == 200, terminal.text[:300]
    bob.delete(f"{URL}/user/bob/api/terminals/{terminal.json()['name']}", headers=xsrf)


def test_another_user_cannot_reach_the_server(bob_server):
    alice = login("alice")
    page = alice.get(f"{URL}/user/bob/api/contents/", timeout=60, allow_redirects=True)
    assert page.status_code in (403, 404) or "/user/bob/" not in page.url
    assert alice.get(f"{URL}/user/bob/api/status", timeout=60).status_code != 200
    assert api(alice, "GET", "/users/bob").status_code in (403, 404)


def test_the_hub_restarts_without_losing_the_server(bob_server):
    bob, _ = bob_server
    before = squeue("bob")
    docker_host(HEAD).check_output("systemctl restart jupyterhub")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if requests.get(f"{URL}/hub/health", verify=str(CA), timeout=10).ok:
                break
        except requests.RequestException:
            pass
        time.sleep(2)
    assert squeue("bob") == before
    assert server_of(bob, "bob").get("ready")
    assert bob.get(f"{URL}/user/bob/api/status", timeout=60).status_code == 200


def test_an_idle_server_is_culled_and_its_slurm_job_ends(bob_server):
    """The culler as the hub runs it (its service's token and API URL, read from the
    running culler's environment on the head node, so with exactly its role's scopes),
    with a lab-short timeout instead of the site's hour: bob's server, idle since the
    tests above, is stopped through the hub, and its Slurm job ends, its GPU back. The
    culler runs until the job is gone (a pass every 2 s), then it is stopped."""
    bob, _ = bob_server
    assert len(squeue("bob")) == 1  # the server runs as one Slurm job
    head = docker_host(HEAD)
    pid = head.check_output("pgrep -o -f jupyterhub_idle_culler").strip()
    head.check_output(
        f"export $(tr '\\0' '\\n' < /proc/{pid}/environ | grep -E '^JUPYTERHUB_API_(TOKEN|URL)=');"
        " timeout 90 /opt/jupyterhub/bin/python3 -m jupyterhub_idle_culler"
        " --timeout=5 --cull-every=2 > /tmp/lab-culler.log 2>&1 < /dev/null &"
        " echo $! > /tmp/lab-culler.pid"
    )
    try:
        deadline = time.monotonic() + 80  # the culler's pass; batchspawner cancels the job
        while squeue("bob") and time.monotonic() < deadline:
            time.sleep(2)
    finally:
        head.run("kill $(cat /tmp/lab-culler.pid)")
    culled = head.check_output("cat /tmp/lab-culler.log")
    assert "Culling server bob" in culled, culled[-2000:]
    assert squeue("bob") == [], culled[-2000:]
    assert not server_of(bob, "bob"), "the hub still lists bob's server"


def _spawn(session: requests.Session, gpus: str = "1") -> None:
    data = {"gpus": gpus, "partition": "hipri", "_xsrf": session.cookies.get("_xsrf", path="/hub/")}
    assert session.post(f"{URL}/hub/spawn", data=data, timeout=120).status_code == 200


def _wait_stopped(session: requests.Session, user: str, timeout: int) -> None:
    deadline = time.monotonic() + timeout
    while server_of(session, user) and time.monotonic() < deadline:
        time.sleep(2)
    assert server_of(session, user) == {}, server_of(session, user)


def test_a_session_whose_job_is_cancelled_outside_the_hub_shows_stopped():
    """An admin's scancel (or a node lost) ends a running session's job: the hub's next
    poll (batchspawner asks Slurm, every jupyterhub_poll_interval: 5 s in the lab, 30 by
    default) finds it gone, and the user's home page offers to start a server again
    instead of a dead link."""
    alice = login("alice")
    _spawn(alice)
    wait_ready(alice, "alice")
    job = squeue("alice")[0].split()[0]
    assert docker_host(HEAD).run(f"scancel {job}").rc == 0
    _wait_stopped(alice, "alice", 90)
    home = alice.get(f"{URL}/hub/home", timeout=30).text
    assert re.search(r"Start\s+My Server", home), home[-2000:]


def test_a_spawn_whose_job_vanishes_while_pending_tells_the_user_why():
    """With every GPU server drained the session's job waits in the queue; cancelled there,
    the spawn fails and its progress (what the spawn page shows) says so, instead of
    waiting out the start timeout."""
    head = docker_host(HEAD)
    nodes = ",".join(COMPUTE)
    assert head.run(f"scontrol update nodename={nodes} state=drain reason=lab-full").rc == 0
    try:
        alice = login("alice")
        _spawn(alice)
        deadline = time.monotonic() + 60
        while not squeue("alice") and time.monotonic() < deadline:
            time.sleep(1)
        job, state = squeue("alice")[0].split()[:2]
        assert state == "PENDING", squeue("alice")
        assert server_of(alice, "alice").get("pending") == "spawn"
        assert head.run(f"scancel {job}").rc == 0
        _wait_stopped(alice, "alice", 60)
        headers = {"X-XSRFToken": alice.cookies.get("_xsrf", path="/hub/") or ""}
        progress = alice.get(f"{URL}/hub/api/users/alice/server/progress", headers=headers,
                             timeout=30).text  # fmt: skip
        events = [
            json.loads(line[5:]) for line in progress.splitlines() if line.startswith("data:")
        ]
        assert events and events[-1].get("failed") is True, progress
        assert events[-1]["message"].startswith("Spawn failed: "), events[-1]
    finally:
        head.run(f"scontrol update nodename={nodes} state=resume")


def test_the_browser_check_reports_each_step_and_the_job_slurm_ran():
    """validate's `portal` check: Chromium logs in as alice, asks for 2 GPUs on sxm2,
    sees templates and isilon, uses a terminal, a notebook and TensorBoard, stops the
    server; its screenshots go into the report. Then Slurm's own record of the job, and its
    accounting record once it ended: alice exists only in the directory (cluster_users'
    ldap backend), so this is a directory user's portal login, notebook job and usage."""
    result = run_playbook(
        "playbooks/validate.yml", "-e", json.dumps({"validate_checks": ["portal"]})
    )
    assert result.returncode == 0, result.stdout[-4000:]
    records = [
        r
        for r in json.loads((REPORT / "results.json").read_text())["results"]
        if r["check"] == "portal"
    ]
    steps = [r["target"] for r in records]
    assert steps[:8] == [
        "login", "spawn_form", "server_ready", "file_browser", "terminal", "notebook",
        "tensorboard", "stop",
    ]  # fmt: skip
    assert all(r["status"] == "pass" for r in records), records
    for record in records[:8]:
        assert (REPORT / record["screenshot"]).stat().st_size > 10_000, record
    report = (REPORT / "report.md").read_text()
    assert "![login](portal/01-login.png)" in report
    (job,) = [r for r in records if r["target"].startswith("Slurm job ")]
    fields = scontrol(job["target"].split()[-1])
    tres = dict(t.partition("=")[::2] for t in fields["TRES"].split(","))
    assert (fields["TresPerNode"], tres["cpu"], tres["mem"]) == ("gres:gpu:2", "16", "96G")
    assert (fields["NumNodes"], fields["TimeLimit"], fields["Partition"]) == (
        "1",
        "08:00:00",
        "sxm2",
    )
    assert fields["NodeList"] in COMPUTE
    assert fields["JobState"] in ("CANCELLED", "COMPLETED")
    assert squeue("alice") == []
    # slurmctld sends the job's end to slurmdbd on its own time: sacct may lag a moment
    job_id = job["target"].split()[-1]
    for _ in range(30):
        row = docker_host(HEAD).check_output(f"sacct -n -P -X -j {job_id} -o User,State,AllocTRES")
        if row and not row.split("|")[1].startswith(("RUNNING", "PENDING")):
            break
        time.sleep(1)
    user, state, tres = row.split("|")
    assert user == "alice" and state.split()[0] in ("CANCELLED", "COMPLETED"), row
    assert "gres/gpu=2" in tres.split(","), row
    assert Path(REPORT / "portal").is_dir()
