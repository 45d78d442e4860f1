"""Arista eAPI on the EOS simulator: JSON-RPC 2.0 `runCmds` on the device model the SSH
CLI drives, so a change made one way is seen the other.

To serve it (https.py is the listener; `switch` a server.Switch of platform eos):

    APIServer(eapi_handler(switch.state, switch.session_cls, switch.users),
              host, port, certfile, keyfile).start()

Sources (named in brackets below):
- eAPI docs: Arista's eAPI documentation, through the parameter and error text quoted by
  aristanetworks/anta (asynceapi/device.py);
- pyeapi: github arista-eosplus/pyeapi 1.0.4, pyeapi/eapilib.py and pyeapi/client.py
  (what it sends, how it reads errors and HTTP 401);
- napalm: github napalm-automation/napalm, napalm/eos/eos.py;
- arista.eos: github ansible-collections/arista.eos, plugins/httpapi/eos.py;
- vEOS replies: github arista-northwest/eapy, tests/conftest.py (a success, a failing
  `show bogus` in json and text, a malformed request);
- client fixtures: Puppet's and Ruby's eAPI clients and napalm's code comments (errors
  1000 "could not run command" and 1003 "unconverted command" as devices answered them);
  the Ruby client arista-eapi names the codes 1000-1004 (general error, internal error,
  invalid command, text only, incompatible command);
- JSON-RPC 2.0 specification (jsonrpc.org): the standard error codes -32700 to -32602.

A request is one CLI session of the authenticated user (HTTP Basic auth), landing where
an SSH login lands; its commands run in order, `enable` (with its `input` as the password)
and configuration modes and sessions included, and the first refused command ends it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from .cli import CommandError
from .eos_show import UNCONVERTED
from .https import Request, Response, credentials
from .state import SessionEnd, SwitchState

# Parameters of runCmds [pyeapi: version, format, cmds, autoComplete, expandAliases,
# timestamps; anta, arista.eos]. `timestamps` is accepted and changes nothing: what EOS
# adds to the results for it is **unverified**. `expandAliases` expands user aliases,
# which this model does not have (no `alias` command).
PARAMS = {"version", "cmds", "format", "autoComplete", "expandAliases", "timestamps"}
FLAGS = ("autoComplete", "expandAliases", "timestamps")
PARSER_ERRORS = ("% Invalid input", "% Incomplete command", "% Ambiguous command")
JSON_TYPE = {"Content-Type": "application/json"}


class RPCError(Exception):
    """A request refused before any command runs: a JSON-RPC error without `data`."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


def eapi_handler(
    state: SwitchState, session_cls: Callable[[SwitchState], Any], users: dict[str, str]
) -> Callable[[Request], Response]:
    """The eAPI of one EOS switch, as https.APIServer serves it: `POST /command-api`
    [eAPI docs, pyeapi, arista.eos]; users and passwords as the SSH server has them."""

    def handle(request: Request) -> Response:
        if request.path != "/command-api":
            return Response(404, b"Not Found\n")  # body **unverified**
        if request.method != "POST":
            # what eAPI answers another method on this URL is **unverified**
            return Response(405, b"Method Not Allowed\n", {"Allow": "POST"})
        login = credentials(request, users)
        if login is None:
            # pyeapi raises ConnectionError on a 401 [pyeapi]; body and realm **unverified**
            return Response(401, b"Unauthorized\n", {"WWW-Authenticate": 'Basic realm="eAPI"'})
        return reply(run_request(state, session_cls, login, request.body))

    return handle


def reply(document: dict[str, Any]) -> Response:
    """A JSON-RPC answer; eAPI sends command errors with HTTP 200 too (pyeapi reads the
    body of any answer but a 401) [pyeapi]."""
    return Response(200, json.dumps(document).encode(), JSON_TYPE)


def run_request(
    state: SwitchState,
    session_cls: Callable[[SwitchState], Any],
    login: tuple[str, str],
    body: bytes,
) -> dict[str, Any]:
    """The JSON-RPC answer to one request body."""
    try:
        message = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return rpc_error(None, RPCError(-32700, "Parse error"))  # JSON-RPC 2.0 wording
    request_id = message.get("id") if isinstance(message, dict) else None
    try:
        cmds, text, flags = parse_request(message)
    except RPCError as err:
        return rpc_error(request_id, err)
    session = session_cls(state)
    if hasattr(session, "login"):
        session.login(*login)
    session.auto_complete = flags["autoComplete"]
    results: list[dict[str, Any]] = []
    for index, (cmd, given) in enumerate(cmds, start=1):
        try:
            results.append(run_command(session, cmd, given, text))
        except CommandError as err:
            failed = command_failure(str(err), text)
            error = cli_error(index, len(cmds), cmd, str(err))
            return {
                "jsonrpc": "2.0",
                "id": request_id,
                "error": {**error, "data": [*results, failed]},
            }
    return {"jsonrpc": "2.0", "id": request_id, "result": results}


def rpc_error(request_id: Any, err: RPCError) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": err.code, "message": str(err)}}


def parse_request(message: Any) -> tuple[list[tuple[str, str | None]], bool, dict[str, bool]]:
    """(commands with their input, whether the format is text, the boolean flags) of a
    runCmds request. A request without `jsonrpc` is refused as eAPI refuses it [vEOS
    replies]; the other refusals use JSON-RPC 2.0's codes and words, **unverified** for
    eAPI, except an unknown parameter, which EOS names as "unexpected keyword argument"
    (pyeapi looks for those words) [pyeapi]."""
    if not isinstance(message, dict) or "jsonrpc" not in message:
        raise RPCError(-32600, "Expected field 'jsonrpc' not specified")
    if message["jsonrpc"] != "2.0" or "method" not in message:
        raise RPCError(-32600, "Invalid Request")
    if message["method"] != "runCmds":
        raise RPCError(-32601, "Method not found")
    params = message.get("params")
    if not isinstance(params, dict):
        raise RPCError(-32602, "Invalid params")
    for name in params:
        if name not in PARAMS:
            raise RPCError(-32602, f"runCmds() got an unexpected keyword argument '{name}'")
    version = params.get("version")
    # JSON models are not versioned here: every version gives the one model
    if version != "latest" and not (type(version) is int and version >= 1):
        raise RPCError(-32602, "Invalid params")
    if params.get("format", "json") not in ("json", "text"):
        raise RPCError(-32602, "Invalid params")
    flags = {name: params.get(name, False) for name in FLAGS}
    if not all(isinstance(value, bool) for value in flags.values()):
        raise RPCError(-32602, "Invalid params")
    return parse_cmds(params.get("cmds")), params.get("format") == "text", flags


def parse_cmds(cmds: Any) -> list[tuple[str, str | None]]:
    """`cmds`: strings, or `{"cmd": ..., "input": ...}` objects [pyeapi, napalm]."""
    if not isinstance(cmds, list) or not cmds:
        raise RPCError(-32602, "Invalid params")
    parsed = []
    for cmd in cmds:
        if isinstance(cmd, dict) and set(cmd) <= {"cmd", "input"}:
            cmd, given = cmd.get("cmd"), cmd.get("input")
        else:
            given = None
        if not isinstance(cmd, str) or not (given is None or isinstance(given, str)):
            raise RPCError(-32602, "Invalid params")
        parsed.append((cmd, given))
    return parsed


def run_command(session: Any, cmd: str, given: str | None, text: bool) -> dict[str, Any]:
    """One command's result: `{"output": <CLI text>}` in text format; in json format the
    show command's JSON model, `{}` for a command that prints nothing [vEOS replies,
    pyeapi], and the lines other commands print as `{"messages": [...]}` (arista.eos reads
    `messages[0]` of `dir` [arista.eos]; the same shape for `write memory` and the other
    commands that print text is **inferred**). A command that asks for a password (`enable` with a
    secret) reads it from `input`; there is no terminal to type it at, so without one the
    password is empty. `exit` ends nothing: the request's commands all run in its one
    session (**unverified**)."""
    try:
        output = session.run(cmd, as_json=not text)
    except SessionEnd:
        output = ""
    if not getattr(session, "echo", True):
        output = session.run(given or "")
    if text:
        return {"output": f"{output}\n" if output else ""}
    if isinstance(output, str):
        return {"messages": [output]} if output else {}
    return output


def command_failure(message: str, text: bool) -> dict[str, Any]:
    """The `data` entry of the failed command: its errors without the `% ` the CLI prints
    and, in text format, the CLI's line [vEOS replies]."""
    errors = [message.removeprefix("% ")]
    return {"output": f"{message}\n", "errors": errors} if text else {"errors": errors}


def cli_error(index: int, count: int, cmd: str, message: str) -> dict[str, Any]:
    """Code and message of a failed command [vEOS replies, client fixtures]: 1002 for
    what the parser refuses (invalid input; incomplete and ambiguous commands are
    **inferred** to be parser errors too), 1003 for a show command without a JSON model
    (pyeapi's enable() then asks again in text), 1000 for a command the device could not
    carry out."""
    if message == UNCONVERTED:
        code, reason = 1003, "unconverted command"
    elif message.startswith(PARSER_ERRORS):
        code, reason = 1002, "invalid command"
    else:
        code, reason = 1000, "could not run command"
    return {"code": code, "message": f"CLI command {index} of {count} '{cmd}' failed: {reason}"}
