"""MLNX-OS JSON API of the QM8700 simulator: CLI commands over HTTP, answered in JSON.

The API runs the device's own CLI (mlnxos.py) on the switch's state, so what a client
changes here an SSH session sees at once, and the other way round. Serve it with the
HTTP listener (https.py) on the objects of server.py's `Switch`:

    api = APIServer(json_api_handler(switch.state, switch.session_cls, switch.users),
                    "0.0.0.0", 80)  # plain HTTP: `web http enable`, as Omnia uses it
    api.start()

What the device does, and where that is known from (sources below):
- JSON login: `POST /admin/launch?script=rh&template=json-request&action=json-login`, body
  {"username": ..., "password": ...} -> {"status": "OK", "status_message": "Successfully
  logged-in"} and a session cookie; refused: {"status": "ERROR", "status_message":
  "Invalid username or password"} or "... Please provide username and password"
  [MLNX-GW JSON API]. The HTTP status of a refusal is not documented: 200 here.
- Form login (the Web UI's): `POST /admin/launch?script=rh&template=login&action=login`,
  form fields f_user_id, f_password [Omnia, UFM]: HTTP 302 with a Set-Cookie, the cookie
  sent back up to its first `;` [Omnia]. The cookie is named `session` [Onyx
  clients]; it carries no Secure flag, as after `no web https ssl secure-cookie enable`,
  which Omnia sets first [Omnia]. A refused form login also answers 302, without a
  cookie (inferred: Omnia requires 302 and then checks for the cookie). The redirects
  lead to the login page `/admin/launch?script=rh&template=login` [web framework] when
  refused and to a home page when accepted (`template=home` is unverified; an Onyx client
  checks for "home" in the URL it lands on [Onyx clients]). The Web UI is not modelled:
  its pages here are empty, there only so that a client following the redirect lands.
- Logout: `GET /admin/launch?script=rh&template=logout&action=logout` ends the session
  [web framework]; it answers with a redirect to the login page (unverified).
- Commands: `POST /admin/launch?script=json` with the cookie. {"cmd": "<line>"} ->
  {"status": "OK"|"ERROR", "executed_command", "status_message", "data"}; {"commands":
  [...]} (optionally "execution_type": "sync") -> {"results": [one such object a
  command]} [Omnia, JSON clients]. On an error `status_message` is the CLI's error text
  [Onyx note]; `data` is the command's output as text, or an object for a show the device
  parses, e.g. `show version` [Onyx note]; here the shows the model prints with `|
  json-print` (`show version`, `show interfaces ib status`), the others as text (that
  MLNX-OS parses most shows is likely [MLNX-OS manual appendix], their objects are not
  modelled). An answer without `data` on an error, and "" for a command without output,
  are unverified.
- The commands run in a session "already inside configuration mode": `interface ib 1/1`
  works at once and a literal `configure terminal` fails "Unrecognized command" [Onyx
  note, Omnia]; inferred for MLNX-OS 3.9. Each request gets a fresh CLI session of the
  account (login, `enable`, `configure terminal`, unseen); whether the mode carries over
  from one request to the next is unverified (Omnia sends what works either way).
- A refused command stops the batch: its result is the last one, the commands after it do
  not run (unverified). The commands before it stay applied (MLNX-OS has no transaction,
  mlnxos.py). Chosen because a batch is one CLI context: after a refused `interface ib
  1/41`, `description ...` and `shutdown` would run at Config mode, where they are
  refused or mean something else. A command that logs the session out (`exit` from
  Enable) also ends the batch.
- Refused requests (wordings unverified): without a valid session cookie, HTTP 401 and
  {"status": "ERROR", "status_message": "You are not authenticated"} (the wording of a
  client of the same web framework) -- Omnia fails at the HTTP status, and its check
  (`status` present and not "OK") reads the body as a failure too; a body with neither
  "cmd" nor "commands" (e.g. "cmds") answers {"status": "ERROR", "status_message": "No
  command found"} [Onyx note]; "execution_type": "async" (which answers a job on the
  device) is not modelled and refused the same way.
- Not applied here: the SSH side's fault injection (server.py).

Sources (named in brackets):
- MLNX-GW JSON API: docs.nvidia.com, MLNX-GW User Manual 8.1.4000 and later, "MLNX-GW—JSON
  API" (the JSON gateway MLNX-OS shares);
- MLNX-OS manual appendix: NVIDIA MLNX-OS User Manual v3.12, "Show Commands Not Supported
  By JSON API";
- Omnia: github dell/omnia, the infiniband switch role, network/roles/infiniband/tasks/
  authenticate.yml, global_config.yml, configure_interface.yml, split_port.yml,
  snmp_config.yml, enable_switch_sm.yml, save_config.yml and vars/main.yml;
- UFM: github Mellanox/ufm_sdk_3.0, the SNMP plugin (form login, then `{"cmd":
  "snmp-server host <ip> traps"}`);
- JSON clients: third-party clients found by code search for `admin/launch?script=json`
  (a Python module: {"cmd"} -> "data", {"commands"} -> "results"; a Go client:
  "execution_type": "sync", a cookie whose name starts with "session");
- Onyx note: a third-party note on Onyx 3.7.1134 (SN2700) JSON API use (the fields of an
  answer, `data` text or object, the session in configuration mode, "cmds" refused);
- Onyx clients: third-party Onyx clients (the `session` cookie, landing on a "home" URL
  after the form login);
- web framework: third-party clients of the same web UI (code search
  `template=login&action=login`): the login page, the logout URL, "You are not
  authenticated".
"""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Callable
from http.cookies import CookieError, SimpleCookie
from typing import Any
from urllib.parse import parse_qs

from .https import Handler, Request, Response
from .mlnxos import MLNXOSSession
from .state import SessionEnd, SwitchState

LAUNCH = "/admin/launch"
COOKIE = "session"
LOGIN_PAGE = f"{LAUNCH}?script=rh&template=login"
HOME_PAGE = f"{LAUNCH}?script=rh&template=home"
CONFIG_MODE = ("enable", "configure terminal")  # where a JSON session starts
LOGGED_IN = "Successfully logged-in"
BAD_CREDENTIALS = "Invalid username or password"
NO_CREDENTIALS = "Please provide username and password"
NOT_AUTHENTICATED = "You are not authenticated"
NO_COMMAND = "No command found"


class BadRequest(Exception):
    """A body the API cannot run: answered with its status_message."""


def json_api_handler(
    state: SwitchState, session_cls: Callable[[SwitchState], MLNXOSSession], users: dict[str, str]
) -> Handler:
    """The JSON API of one switch, for APIServer: `state`, `session_cls` and `users` are the
    switch's (server.py's Switch), so the accounts are the SSH ones."""
    return JsonApi(state, session_cls, users)


class JsonApi:
    """Logins, sessions and command runs of one switch's JSON API."""

    def __init__(
        self,
        state: SwitchState,
        session_cls: Callable[[SwitchState], MLNXOSSession],
        users: dict[str, str],
    ):
        self.state = state
        self.session_cls = session_cls
        self.users = users
        self.sessions: dict[str, str] = {}  # cookie value -> account
        self.sessions_lock = threading.Lock()

    def __call__(self, request: Request) -> Response:
        if request.path != LAUNCH:
            return Response(404)
        query = {name: values[0] for name, values in request.query.items()}
        key = (request.method, query.get("script"), query.get("template"), query.get("action"))
        routes: dict[tuple[Any, ...], Callable[[Request], Response]] = {
            ("POST", "rh", "json-request", "json-login"): self._json_login,
            ("POST", "rh", "login", "login"): self._form_login,
            ("GET", "rh", "logout", "logout"): self._logout,
            ("GET", "rh", "login", None): lambda _: _page("login"),
            ("GET", "rh", "home", None): self._home,
            ("POST", "json", None, None): self._execute,
        }
        route = routes.get(key)
        return route(request) if route else Response(404)

    # -- sessions ------------------------------------------------------------------------

    def _open(self, username: str) -> str:
        token = secrets.token_hex(16)
        with self.sessions_lock:
            self.sessions[token] = username
        return token

    def _token(self, request: Request) -> str | None:
        cookies: SimpleCookie = SimpleCookie()
        try:
            cookies.load(request.headers.get("cookie", ""))
        except CookieError:
            return None
        return cookies[COOKIE].value if COOKIE in cookies else None

    def _user(self, request: Request) -> str | None:
        """The account of the request's session cookie, None without a valid one."""
        token = self._token(request)
        with self.sessions_lock:
            return self.sessions.get(token) if token else None

    def _json_login(self, request: Request) -> Response:
        body = _json_body(request)
        username, password = body.get("username"), body.get("password")
        if not isinstance(username, str) or not isinstance(password, str) or not username:
            return _answer({"status": "ERROR", "status_message": NO_CREDENTIALS})
        if self.users.get(username) != password:
            return _answer({"status": "ERROR", "status_message": BAD_CREDENTIALS})
        cookie = {"Set-Cookie": _set_cookie(self._open(username))}
        return _answer({"status": "OK", "status_message": LOGGED_IN}, headers=cookie)

    def _form_login(self, request: Request) -> Response:
        form = parse_qs(request.body.decode(errors="replace"))
        username = form.get("f_user_id", [""])[0]
        password = form.get("f_password", [""])[0]
        if not username or self.users.get(username) != password:
            return Response(302, headers={"Location": LOGIN_PAGE})
        cookie = _set_cookie(self._open(username))
        return Response(302, headers={"Location": HOME_PAGE, "Set-Cookie": cookie})

    def _logout(self, request: Request) -> Response:
        token = self._token(request)
        with self.sessions_lock:
            self.sessions.pop(token or "", None)
        return Response(302, headers={"Location": LOGIN_PAGE})

    def _home(self, request: Request) -> Response:
        if self._user(request) is None:
            return Response(302, headers={"Location": LOGIN_PAGE})
        return _page("home")

    # -- commands ------------------------------------------------------------------------

    def _execute(self, request: Request) -> Response:
        username = self._user(request)
        if username is None:
            return _answer({"status": "ERROR", "status_message": NOT_AUTHENTICATED}, status=401)
        try:
            commands, batch = _commands(_json_body(request))
        except BadRequest as err:
            return _answer({"status": "ERROR", "status_message": str(err)})
        results = self._run(username, commands)
        return _answer({"results": results} if batch else results[0])

    def _run(self, username: str, commands: list[str]) -> list[dict[str, Any]]:
        """Run the commands in order in one CLI session at Config mode, the whole batch
        under the switch's lock (no SSH line runs in between); stop after a refused one."""
        results = []
        with self.state.lock:
            session = self._cli(username)
            for command in commands:
                try:
                    result = _result(session, command)
                except SessionEnd:  # `exit` from Enable: the session is over
                    results.append(_ok(command, ""))
                    break
                results.append(result)
                if result["status"] != "OK":
                    break
        return results

    def _cli(self, username: str) -> MLNXOSSession:
        """A CLI session of the account, taken to Config mode."""
        session = self.session_cls(self.state)
        session.login(username, self.users[username])
        for line in CONFIG_MODE:
            session.execute(line)
        return session


def _commands(body: dict[str, Any]) -> tuple[list[str], bool]:
    """(the command lines, whether they came as a `commands` batch) of an execute body."""
    execution = body.get("execution_type", "sync")
    if execution != "sync":
        raise BadRequest(f"Unsupported execution_type: {execution}")
    commands = body.get("commands")
    if isinstance(commands, list) and commands and all(isinstance(c, str) for c in commands):
        return commands, True
    if isinstance(body.get("cmd"), str):
        return [body["cmd"]], False
    raise BadRequest(NO_COMMAND)


def _result(session: MLNXOSSession, command: str) -> dict[str, Any]:
    """One command's answer: ERROR with the CLI's `%` text, else OK with its data."""
    output = session.execute(command)
    if output.lstrip("\x07").startswith("%"):
        return {"status": "ERROR", "executed_command": command, "status_message": output}
    parsed = session.json_data(command)
    return _ok(command, output if parsed is None else parsed)


def _ok(command: str, data: Any) -> dict[str, Any]:
    return {"status": "OK", "executed_command": command, "status_message": "", "data": data}


def _json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object; anything else reads as an empty one."""
    try:
        body = json.loads(request.body or b"{}")
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def _set_cookie(token: str) -> str:
    return f"{COOKIE}={token}; Path=/; HttpOnly"


def _answer(
    payload: dict[str, Any], status: int = 200, headers: dict[str, str] | None = None
) -> Response:
    body = json.dumps(payload).encode()
    return Response(status, body, {"Content-Type": "application/json", **(headers or {})})


def _page(name: str) -> Response:
    """A Web UI page: empty (the Web UI is not modelled)."""
    html = f"<html><head><title>MLNX-OS {name}</title></head><body></body></html>"
    return Response(200, html.encode(), {"Content-Type": "text/html"})
