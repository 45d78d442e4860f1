"""HTTP side of the simulator: PAPI routing, authentication, JSON bodies and errors.

A route is one table entry (method, path pattern, API versions) and one handler; the
handlers only translate between HTTP and model.py. `/platform/N/x` is served by the
newest version of `x` that is <= N (spec section 0).
"""

from __future__ import annotations

import base64
import hmac
import json
import re
import secrets
import ssl
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse

from . import model, smartpools

Handler = Callable[["Request"], tuple[int, Any]]
SESSION_TIMEOUT_ABSOLUTE = 14400
SESSION_TIMEOUT_INACTIVE = 900


class Request:
    """What a handler sees: the state store, path parameters, query and JSON body."""

    def __init__(self, server: Simulator, params: dict[str, str], query: dict, body: Any):
        self.server = server
        self.params = params
        self.query = query
        self.body = body

    def arg(self, name: str, default: str | None = None) -> str | None:
        values = self.query.get(name)
        return values[0] if values else default


ROUTES: list[tuple[str, re.Pattern[str], set[int], Handler]] = []


def route(method: str, pattern: str, versions: set[int]) -> Callable[[Handler], Handler]:
    compiled = re.compile("^" + re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", pattern) + "$")

    def register(handler: Handler) -> Handler:
        ROUTES.append((method, compiled, versions, handler))
        return handler

    return register


def _state(req: Request, write: bool = False):
    return req.server.store.transaction(write=write)


# ---- storage pools ------------------------------------------------------------------


@route("GET", "storagepool/tiers", {1, 16})
def list_tiers(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        tiers = [model.tier_view(state, t) for t in state["tiers"]]
    return 200, {"tiers": tiers, "total": len(tiers)}


@route("POST", "storagepool/tiers", {1, 16})
def create_tier(req: Request) -> tuple[int, Any]:
    with _state(req, write=True) as state:
        return 201, {"id": model.create_tier(state, req.body)}


@route("GET", "storagepool/tiers/{ref}", {1, 16})
def get_tier(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        return 200, {"tiers": [model.tier_view(state, model.find_tier(state, req.params["ref"]))]}


@route("PUT", "storagepool/tiers/{ref}", {1, 16})
def put_tier(req: Request) -> tuple[int, Any]:
    with _state(req, write=True) as state:
        model.update_tier(state, req.params["ref"], req.body)
    return 204, None


@route("DELETE", "storagepool/tiers/{ref}", {1, 16})
def delete_tier(req: Request) -> tuple[int, Any]:
    with _state(req, write=True) as state:
        model.delete_tier(state, req.params["ref"])
    return 204, None


@route("GET", "storagepool/nodepools", {1, 3, 9, 16, 22})
def list_nodepools(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        pools = [model.nodepool_view(p) for p in state["nodepools"]]
    return 200, {"nodepools": pools, "total": len(pools)}


@route("GET", "storagepool/nodepools/{ref}", {1, 3, 9, 16, 22})
def get_nodepool(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        return 200, {
            "nodepools": [model.nodepool_view(model.find_nodepool(state, req.params["ref"]))]
        }


@route("GET", "storagepool/storagepools", {1, 3, 9, 16})
def list_storagepools(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        pools = [{**model.tier_view(state, t), "type": "tier"} for t in state["tiers"]]
        pools += [{**model.nodepool_view(p), "type": "nodepool"} for p in state["nodepools"]]
    return 200, {"storagepools": pools, "total": len(pools)}


@route("GET", "storagepool/settings", {1, 5, 16, 18})
def get_sp_settings(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        return 200, {"settings": state["storagepool_settings"]}


@route("PUT", "storagepool/settings", {1, 5, 16, 18})
def put_sp_settings(req: Request) -> tuple[int, Any]:
    with _state(req, write=True) as state:
        settings = state["storagepool_settings"]
        model._only(req.body, set(settings) - {"global_namespace_acceleration_state"})
        settings.update(req.body)
    return 204, None


# ---- file pool policies ---------------------------------------------------------------


@route("GET", "filepool/policies", {1, 4, 12})
def list_policies(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        policies = sorted(state["filepool_policies"], key=lambda p: p["apply_order"])
    return 200, {"policies": policies, "total": len(policies)}


@route("POST", "filepool/policies", {1, 4, 12})
def create_policy(req: Request) -> tuple[int, Any]:
    with _state(req, write=True) as state:
        return 201, {"id": model.create_policy(state, req.body)}


@route("GET", "filepool/policies/{ref}", {1, 4, 12})
def get_policy(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        return 200, {"policies": [model.find_policy(state, req.params["ref"])]}


@route("PUT", "filepool/policies/{ref}", {1, 4, 12})
def put_policy(req: Request) -> tuple[int, Any]:
    with _state(req, write=True) as state:
        model.update_policy(state, req.params["ref"], req.body)
    return 204, None


@route("DELETE", "filepool/policies/{ref}", {1, 4, 12})
def delete_policy(req: Request) -> tuple[int, Any]:
    with _state(req, write=True) as state:
        model.delete_policy(state, req.params["ref"])
    return 204, None


@route("GET", "filepool/default-policy", {4})
def get_default_policy(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        return 200, {"default-policy": state["default_policy"]}


@route("PUT", "filepool/default-policy", {4})
def put_default_policy(req: Request) -> tuple[int, Any]:
    with _state(req, write=True) as state:
        model._only(req.body, {"actions"})
        state["default_policy"]["actions"] = model.validate_actions(req.body.get("actions", []))
    return 204, None


# ---- file system settings -------------------------------------------------------------


@route("GET", "filesystem/settings/access-time", {1})
def get_access_time(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        return 200, {"settings": state["access_time"]}


@route("PUT", "filesystem/settings/access-time", {1})
def put_access_time(req: Request) -> tuple[int, Any]:
    with _state(req, write=True) as state:
        model.set_access_time(state, req.body)
    return 204, None


# ---- jobs ---------------------------------------------------------------------------------


@route("GET", "job/jobs", {1, 3, 7, 10})
def list_jobs(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        jobs = [j for j in state["jobs"] if j["state"] not in model.JOB_FINAL_STATES]
    return 200, {"jobs": jobs, "total": len(jobs), "resume": None}


@route("POST", "job/jobs", {1, 3, 7, 10})
def post_job(req: Request) -> tuple[int, Any]:
    with _state(req, write=True) as state:
        job = model.start_job(state, req.body)
    req.server.run_job_async(job["id"])
    return 201, {"id": job["id"]}


@route("GET", "job/jobs/{ref}", {1, 3, 7, 10})
def get_job(req: Request) -> tuple[int, Any]:
    # Spec section 12: whether finished jobs stay readable here is unverified; they do.
    with _state(req) as state:
        return 200, {"jobs": [model.find_job(state, req.params["ref"])]}


@route("PUT", "job/jobs/{ref}", {1, 3, 7, 10})
def put_job(req: Request) -> tuple[int, Any]:
    with _state(req, write=True) as state:
        job = model.find_job(state, req.params["ref"])
        model._only(req.body, {"state", "policy", "priority"})
        wanted = req.body.get("state")
        if wanted not in (None, "run", "pause", "cancel"):
            raise model.bad_request(f"Unknown job state {wanted!r}", "state")
        if job["state"] in model.JOB_FINAL_STATES and wanted:
            raise model.ApiError(409, "AEC_CONFLICT", f"Job {job['id']} has already finished")
        if wanted == "cancel":
            job.update(
                state="cancelled_user", control_state="cancelled_user", end_time=int(time.time())
            )
        elif wanted == "pause":
            job.update(state="paused_user", control_state="paused_user")
        elif wanted == "run":
            job.update(state="running", control_state="running")
    return 204, None


@route("GET", "job/recent", {3, 7, 10})
def recent_jobs(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        jobs = [j for j in state["jobs"] if j["state"] in model.JOB_FINAL_STATES][-20:]
    return 200, {"recent_jobs": jobs, "total": len(jobs)}


@route("GET", "job/types", {1, 3, 7})
def job_types(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        types = list(state["job_types"].values())
    return 200, {"types": types, "total": len(types)}


@route("GET", "job/types/{ref}", {1, 3, 7})
def job_type(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        if req.params["ref"] not in state["job_types"]:
            raise model.not_found(f"Job type {req.params['ref']}")
        return 200, {"types": [state["job_types"][req.params["ref"]]]}


@route("PUT", "job/types/{ref}", {1, 3, 7})
def put_job_type(req: Request) -> tuple[int, Any]:
    with _state(req, write=True) as state:
        if req.params["ref"] not in state["job_types"]:
            raise model.not_found(f"Job type {req.params['ref']}")
        model._only(req.body, {"enabled", "policy", "priority", "schedule"})
        state["job_types"][req.params["ref"]].update(req.body)
    return 204, None


# ---- protocols, network, cluster ---------------------------------------------------------


@route("GET", "protocols/nfs/exports", {1, 2, 4, 20, 22})
def list_exports(req: Request) -> tuple[int, Any]:
    zone = req.arg("zone", "System")
    with _state(req) as state:
        exports = [e for e in state["nfs_exports"] if e.get("zone", "System") == zone]
    return 200, {"exports": exports, "total": len(exports), "resume": None}


@route("POST", "protocols/nfs/exports", {1, 2, 4, 20, 22})
def create_export(req: Request) -> tuple[int, Any]:
    with _state(req, write=True) as state:
        return 201, {"id": model.create_export(state, req.body, req.arg("zone", "System"))}


@route("GET", "protocols/nfs/exports/{ref}", {1, 2, 4, 20, 22})
def get_export(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        return 200, {"exports": [model.find_export(state, req.params["ref"])]}


@route("PUT", "protocols/nfs/exports/{ref}", {1, 2, 4, 20, 22})
def put_export(req: Request) -> tuple[int, Any]:
    with _state(req, write=True) as state:
        model.update_export(state, req.params["ref"], req.body)
    return 204, None


@route("DELETE", "protocols/nfs/exports/{ref}", {1, 2, 4, 20, 22})
def delete_export(req: Request) -> tuple[int, Any]:
    with _state(req, write=True) as state:
        state["nfs_exports"].remove(model.find_export(state, req.params["ref"]))
    return 204, None


@route("GET", "network/interfaces", {3, 4, 7})
def interfaces(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        cluster = state["cluster"]
        items = [
            {
                "id": f"{node['lnn']}:40gige-1",
                "lnn": node["lnn"],
                "name": "40gige-1",
                "ip_addrs": node["addresses"],
                "owners": [
                    {
                        "groupnet": cluster["groupnet"],
                        "subnet": cluster["subnet"],
                        "pool": cluster["pool"],
                        "ip_addrs": node["addresses"],
                        "type": "static",
                    }
                ]
                if node["addresses"]
                else [],
                "status": "up",
                "type": "40gige",
                "linklayer": "ethernet",
            }
            for node in cluster["nodes"]
        ]
    return 200, {"interfaces": items, "total": len(items)}


@route("GET", "cluster/config", {1, 3, 5, 7})
def cluster_config(req: Request) -> tuple[int, Any]:
    with _state(req) as state:
        cluster = state["cluster"]
        release = cluster["release"]
    return 200, {
        "name": cluster["name"],
        "guid": cluster["guid"],
        "local_lnn": req.server.lnn,
        "devices": [{"devid": n["lnn"], "lnn": n["lnn"]} for n in cluster["nodes"]],
        "onefs_version": {
            "release": release,
            "version": release,
            "type": "Isilon OneFS",
            "build": f"B_{release.replace('.', '_')}_SIM",
            "revision": "0",
        },
    }


# ---- the server ---------------------------------------------------------------------------


class Simulator(ThreadingHTTPServer):
    """One node's API endpoint over the shared store."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address, store: model.Store, users: dict[str, str], ifs_root: str, lnn: int):
        super().__init__(address, PapiHandler)
        self.store = store
        self.users = users
        self.ifs_root = ifs_root
        self.lnn = lnn
        self.sessions: dict[str, dict[str, Any]] = {}
        self.sessions_lock = threading.Lock()
        self.log_lock = threading.Lock()

    def inject_fault(self, method: str, path: str) -> None:
        """Faults for tests, from faults.json beside the state (read at every request).

        {"delay_seconds": F, "fail": [{"method": "GET", "path": "regex", "status": 503,
        "count": N}]}: each matching rule answers its status N times (then is used up),
        so a test can make a burst of 503s, one 500, or a slow API.
        """
        path_file = self.store.path.parent / "faults.json"
        with self.log_lock:
            if not path_file.exists():
                return
            try:
                faults = json.loads(path_file.read_text() or "{}")
            except ValueError:
                return
            hit = None
            for rule in faults.get("fail", []):
                if (
                    rule.get("count", 1) > 0
                    and rule.get("method", method) == method
                    and re.search(rule.get("path", ""), path)
                ):
                    rule["count"] = rule.get("count", 1) - 1
                    hit = rule
                    break
            if hit:
                path_file.write_text(json.dumps(faults))
        if faults.get("delay_seconds"):
            time.sleep(float(faults["delay_seconds"]))
        if hit:
            status = int(hit.get("status", 503))
            code = {503: "AEC_SERVICE_UNAVAILABLE", 500: "AEC_EXCEPTION"}.get(
                status, "AEC_EXCEPTION"
            )
            raise model.ApiError(status, code, f"injected fault: {status}")

    def log_change(self, method: str, path: str, status: int) -> None:
        """Append every request that can change state to requests.log beside the state.

        Operators (and the lab's tests) read it to see exactly what a run sent.
        """
        if method == "GET" or path.startswith("/session/"):
            return
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        line = f"{stamp} node{self.lnn} {method} {path} {status}\n"
        with self.log_lock, open(self.store.path.parent / "requests.log", "a") as log:
            log.write(line)

    def run_job_async(self, job_id: int) -> None:
        """Run a started job in the background, as OneFS's job engine does."""

        def work() -> None:
            with self.store.transaction(write=True) as state:
                job = model.find_job(state, str(job_id))
                if job["state"] == "running" and job["type"] == "SmartPools":
                    smartpools.run_job(state, job, self.ifs_root)
                elif job["state"] == "running":
                    job.update(
                        state="succeeded", control_state="succeeded", end_time=int(time.time())
                    )

        threading.Thread(target=work, daemon=True).start()


def latest_version(store: model.Store) -> int:
    with store.transaction() as state:
        return int(state["cluster"]["api_latest"])


class PapiHandler(BaseHTTPRequestHandler):
    server: Simulator
    protocol_version = "HTTP/1.1"
    server_version = "Apache"  # OneFS's API sits behind Apache httpd

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_PUT(self) -> None:
        self._dispatch("PUT")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        self.server.log_change(self.command, self.path, status)
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if data:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if data:
            self.wfile.write(data)

    def _error(self, error: model.ApiError) -> None:
        self._send(error.status, error.body())

    def _read_body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not raw:
            return {}
        try:
            return json.loads(raw)
        except ValueError:
            raise model.bad_request("Request body is not valid JSON") from None

    def _cookies(self) -> dict[str, str]:
        cookies = {}
        for part in (self.headers.get("Cookie") or "").split(";"):
            if "=" in part:
                name, value = part.strip().split("=", 1)
                cookies[name] = value
        return cookies

    def _check_password(self, user: str, password: str) -> bool:
        expected = self.server.users.get(user)
        return expected is not None and hmac.compare_digest(expected, password)

    def _authenticate(self, method: str) -> str:
        """The user of a request (basic auth or a session), or raise 401."""
        header = self.headers.get("Authorization") or ""
        if header.startswith("Basic "):
            try:
                user, _, password = base64.b64decode(header[6:]).decode().partition(":")
            except ValueError:
                raise model.ApiError(401, "AEC_UNAUTHORIZED", "Authorization required") from None
            if self._check_password(user, password):
                return user
            raise model.ApiError(401, "AEC_UNAUTHORIZED", "Authorization required")
        session_id = self._cookies().get("isisessid")
        with self.server.sessions_lock:
            session = self.server.sessions.get(session_id or "")
            now = time.time()
            if session and (
                now - session["created"] > SESSION_TIMEOUT_ABSOLUTE
                or now - session["seen"] > SESSION_TIMEOUT_INACTIVE
            ):
                self.server.sessions.pop(session_id, None)
                session = None
            if not session:
                raise model.ApiError(401, "AEC_UNAUTHORIZED", "Authorization required")
            session["seen"] = now
        if method != "GET" and (
            self.headers.get("X-CSRF-Token") != session["csrf"] or not self.headers.get("Referer")
        ):
            # patched clusters require both the CSRF header and a Referer (spec section 1)
            raise model.ApiError(401, "AEC_UNAUTHORIZED", "CSRF token and Referer are required")
        return session["user"]

    def _session(self, method: str) -> None:
        if method == "POST":
            body = self._read_body()
            user, password = body.get("username", ""), body.get("password", "")
            if not self._check_password(user, password):
                raise model.ApiError(401, "AEC_UNAUTHORIZED", "Username or password is incorrect.")
            session_id, csrf = secrets.token_hex(16), secrets.token_hex(16)
            now = time.time()
            with self.server.sessions_lock:
                self.server.sessions[session_id] = {
                    "user": user, "csrf": csrf, "created": now, "seen": now,
                }  # fmt: skip
            services = body.get("services") or ["platform"]
            self.send_response(201)
            self.send_header(
                "Set-Cookie", f"isisessid={session_id}; path=/; HttpOnly; Secure; SameSite=strict"
            )
            self.send_header("Set-Cookie", f"isicsrf={csrf}; path=/; Secure")
            data = json.dumps(
                {
                    "services": services,
                    "timeout_absolute": SESSION_TIMEOUT_ABSOLUTE,
                    "timeout_inactive": SESSION_TIMEOUT_INACTIVE,
                    "username": user,
                }
            ).encode()
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        session_id = self._cookies().get("isisessid", "")
        with self.server.sessions_lock:
            session = self.server.sessions.get(session_id)
            if method == "DELETE" and session:
                del self.server.sessions[session_id]
                self._send(204, None)
                return
        if not session:
            self._send(401, {"errors": [{"message": "authorization required"}]})
            return
        self._send(
            200,
            {
                "services": ["platform"],
                "timeout_absolute": SESSION_TIMEOUT_ABSOLUTE,
                "timeout_inactive": SESSION_TIMEOUT_INACTIVE,
                "username": session["user"],
            },
        )

    def _dispatch(self, method: str) -> None:
        url = urlparse(self.path)
        try:
            self.server.inject_fault(method, url.path)
            if url.path.rstrip("/") == "/session/1/session":
                self._session(method)
                return
            self._authenticate(method)
            if url.path.rstrip("/") == "/platform/latest" and method == "GET":
                self._send(200, {"latest": str(latest_version(self.server.store))})
                return
            match = re.match(r"^/platform/(\d+)/(.+?)/?$", url.path)
            if not match:
                raise model.not_found(f"Path {url.path}")
            version, resource = int(match.group(1)), match.group(2)
            for route_method, pattern, versions, handler in ROUTES:
                found = pattern.match(resource)
                if not found:
                    continue
                if not any(v <= version for v in versions):
                    raise model.not_found(f"Path {url.path}")
                if route_method != method:
                    continue
                body = self._read_body() if method in ("POST", "PUT") else None
                status, payload = handler(
                    Request(
                        self.server,
                        {name: unquote(value) for name, value in found.groupdict().items()},
                        parse_qs(url.query),
                        body,
                    )
                )
                self._send(status, payload)
                return
            if any(p.match(resource) for _, p, _, _ in ROUTES):
                raise model.ApiError(405, "AEC_METHOD_NOT_ALLOWED", f"Method {method} not allowed")
            raise model.not_found(f"Path {url.path}")
        except model.ApiError as error:
            self._error(error)
        except Exception as exc:  # a simulator bug must still answer like the API
            self._error(model.ApiError(500, "AEC_EXCEPTION", f"{type(exc).__name__}: {exc}"))


def read_users(path: str) -> dict[str, str]:
    """`user:password` lines; the lab writes the generated OneFS password here."""
    users = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if ":" in line and not line.startswith("#"):
                user, password = line.rstrip("\n").split(":", 1)
                users[user] = password
    return users


def serve(
    address: tuple[str, int],
    store: model.Store,
    users: dict[str, str],
    ifs_root: str,
    lnn: int,
    cert: str | None = None,
    key: str | None = None,
) -> Simulator:
    """A started-but-not-serving simulator; call serve_forever() (tests use a thread)."""
    server = Simulator(address, store, users, ifs_root, lnn)
    if cert and key:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(cert, key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    return server
