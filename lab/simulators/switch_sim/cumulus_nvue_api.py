"""NVUE's REST API on the Cumulus Linux 5.x simulator (SN3700): `/nvue_v1` over HTTPS, on
the revisions and the configuration the `nv` CLI edits (cumulus_nvue.py), so a revision
applied one way is seen the other.

To serve it (https.py is the listener; `switch` a server.Switch of platform cumulus that
runs a 5.x release; NVUE listens on port 8765 by default [NVUE API guide]):

    APIServer(nvue_api_handler(switch.state, switch.session_cls, switch.users),
              host, 8765, certfile, keyfile).start()

Only 5.x has NVUE: on a 4.x switch the handler is not made (SystemExit, as for a platform
without an API); 4.x's NCLU HTTP API is not modelled.

Sources (named in brackets below):
- NVUE API guide: the Cumulus Linux user guides' "NVUE API" page (cumulus-linux-58 and
  cumulus-linux-510, github CumulusNetworks/docs): methods, query arguments, the revision
  workflow and its answers, the `invalid` and `ays_fail` transitions, save, unset with
  `null`, GET /system and /interface;
- NVUE reference: nvue-reference "Config Commands" (`nv config apply --confirm`);
- nvidia.nvue: github NVIDIA/nvidia.nvue (mirror stackhpc/ansible-nvidia-nvue), plugins/
  httpapi/httpapi.py: what the collection's modules send (an empty POST body, keys with
  `_` turned to `-`, %2F-encoded revision ids, `"ignore_fail": "ignore_fail_yes"`);
- gpncfg: github entropia/gpn-noc-gpncfg, gpncfg/deployment/__init__.py, a REST client of
  Cumulus switches: apply with `"state-controls": {"confirm": <seconds>}`, wait for state
  `confirm`, confirm with `{"state": "confirm_yes"}`; its list of NVUE revision states;
- nv-config-manager: github NVIDIA/nv-config-manager, its Cumulus device client: the same
  `state-controls`, confirmation by a second `{"state": "apply"}`, `applied_and_saved`
  where auto-save is on, `GET ?rev=A&diff=B`;
- nvue_automation: a third-party async NVUE client (code search `applied_and_saved`): waits
  for `applied_and_saved`, drops a pending revision with `DELETE /revision/<id>`;
- NVOS manual: NVIDIA NVOS User Manual 25.02, "Configuration Management Commands" (the
  same API on NVIDIA's IB switches: `nv config detach` is a DELETE under /nvue_v1/revision).

What the API does here:
- HTTP Basic auth with the switch's users, the CLI's accounts [NVUE API guide]; anything
  else is 401 (body and realm **unverified**). The 403 that 5.6 and later answer until the
  factory `cumulus` password is changed [NVUE API guide] is not modelled.
- GET `<path>?rev=...` [NVUE API guide]: `applied`, `startup`, `pending` (the CLI's pending
  revision, else the applied configuration) or a revision id give the configuration tree
  (cumulus_nvue.to_tree); `operational`, the default, is the applied tree with what `nv
  show` reports on top: /system is `nv show system -o json`'s object, /interface the rows
  of `nv show interface -o json`. `filled=false` is accepted (these trees carry no
  defaults to leave out). `diff=<rev>`: where the two trees differ, the leaves of `rev`,
  and `null` where only the other has a node (read off nv-config-manager's use and test
  samples, **inferred**). A path the tree lacks is 404.
- Revisions: GET `/revision` (every revision by id; whether the device lists more, e.g.
  `applied`, is **unverified**), GET `/revision/<id>` (flat `{"state", "transition"}`, as
  the guide's samples and nvidia.nvue read it; the guide's one `ays_fail` sample wrapped in
  its id is taken for a slip), POST `/revision` (any or no body) -> `{"<id>": {...}}`,
  DELETE `/revision/<id>` drops a revision never applied [nvue_automation, NVOS manual].
  An id may arrive %2F-encoded [nvidia.nvue, NVUE API guide]: path segments are decoded.
- PATCH `<path>?rev=<id>` merges the object in (`nv set`), `null` unsets, DELETE unsets the
  path's subtree [NVUE API guide]. An edit becomes the `nv set` / `nv unset` lines the CLI
  takes (path words, then the value; an empty object is a word of the path, `vlan: {10:
  {}}` is `vlan 10`) and runs through the CLI's grammar (cumulus_nvue.Change) on a copy of
  the revision: the API accepts and refuses what the CLI does, with its words (400). A
  subtree is unset leaf by leaf, deepest first, an interface's `type` last. The answer is
  the revision's tree at the path after the edit (the guide's targeted and root patches);
  DELETE answers `{}` (the guide's root DELETE).
- PATCH `/revision/<id>` `{"state": "apply", "auto-prompt": {"ays": "ays_yes"}}` checks and
  applies at once: the answer says `apply`, the next GET the outcome [NVUE API guide]; see
  cumulus_nvue.Revisions for the states. A change that asks first (a breakout reloads
  switchd; /etc/network/interfaces was modified locally and would be overwritten, as "if
  you change a file manually" [NVUE API guide]) without `ays_yes` ends `ays_fail` at once
  rather than after the device's wait for an answer. `ignore_fail` and `message` change
  nothing (no apply step fails here).
  `"state-controls": {"confirm": <seconds>}` applies with a rollback unless confirmed
  [gpncfg, nv-config-manager]; the confirmation is `{"state": "confirm_yes"}` [gpncfg] or
  `{"state": "apply"}` on the waiting revision [nv-config-manager]; `{"state":
  "confirm_no"}` rolls back at once (the CLI's `--confirm-no`: **inferred**).
  `{"state": "save"}` on `applied` (or the applied id) writes startup [NVUE API guide].
- Error bodies: no public source shows one; they are RFC 7807 problem objects `{"detail",
  "status", "title", "type"}` (**unverified**), `detail` the CLI's message where the CLI
  refuses the same thing. An edit of a revision that no longer takes edits (applied, or
  waiting for its confirmation) and an apply while another waits for its confirmation are
  409 (**unverified**; gpncfg's waiting for its turn suggests the device queues that apply).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

from .cumulus_model import is_nvue
from .cumulus_nvue import (
    AYS_ISSUE,
    REV_AYS_FAIL,
    Invalid,
    Revisions,
    leaves,
    staged,
    to_tree,
)
from .https import Handler, Request, Response, credentials
from .state import SwitchState

PREFIX = "/nvue_v1"
JSON_TYPE = {"Content-Type": "application/json"}
TITLES = {400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed", 409: "Conflict"}
Edit = tuple[bool, list[str]]  # (set?, the words after `nv set` / `nv unset`)


class Problem(Exception):
    """A refused request: its status and what went wrong."""

    def __init__(self, status: int, detail: str):
        super().__init__(detail)
        self.status = status

    def response(self) -> Response:
        body = {"detail": str(self), "status": self.status, "title": TITLES[self.status],
                "type": "about:blank"}  # fmt: skip
        return Response(self.status, json.dumps(body).encode(), JSON_TYPE)


def nvue_api_handler(
    state: SwitchState, session_cls: Callable[[SwitchState], Any], users: dict[str, str]
) -> Handler:
    """The NVUE REST API of one Cumulus Linux 5.x switch, for https.APIServer; users and
    passwords as the SSH server has them. A 4.x switch has none: SystemExit."""
    release = state.running["release"]
    if not is_nvue(state.running):
        raise SystemExit(
            f"switch_sim: Cumulus Linux {release} has no NVUE REST API (NVUE is Cumulus Linux"
            " 5.x; a switch's release is CUMULUS_SIM_RELEASE when its state was created)"
        )
    return NvueApi(state, session_cls, users)


class NvueApi:
    """The requests under /nvue_v1 of one switch."""

    def __init__(
        self,
        state: SwitchState,
        session_cls: Callable[[SwitchState], Any],
        users: dict[str, str],
    ):
        self.state = state
        self.session_cls = session_cls
        self.users = users

    def __call__(self, request: Request) -> Response:
        if request.path != PREFIX and not request.path.startswith(f"{PREFIX}/"):
            return Problem(404, f"{request.path} is not under {PREFIX}").response()
        if credentials(request, self.users) is None:
            return Response(401, b"Unauthorized\n", {"WWW-Authenticate": 'Basic realm="NVUE"'})
        path = [unquote(part) for part in request.path[len(PREFIX) :].split("/") if part]
        query = {name: values[-1] for name, values in request.query.items()}
        try:
            with self.state.lock:
                revisions = Revisions(self.state)  # an expired confirm window rolls back
                if path[:1] == ["revision"]:
                    return self._revision(revisions, request.method, path[1:], request.body)
                return self._config(revisions, request.method, path, query, request.body)
        except Problem as err:
            return err.response()

    # -- /revision -------------------------------------------------------------------------

    def _revision(self, revs: Revisions, method: str, rest: list[str], body: bytes) -> Response:
        if not rest and method == "GET":
            return _ok(revs.listing())
        if not rest and method == "POST":
            _body(body, allow_empty=True)
            rev = revs.create()
            return _ok({rev: revs.record(rev)})
        if len(rest) != 1:
            raise Problem(404 if method == "GET" else 405, f"{method} {'/'.join(rest)}")
        rev = _known(revs, revs.applied if rest[0] == "applied" else rest[0])
        if method == "GET":
            return _ok(revs.record(rev) if revs.get(rev) else _settled())
        if method == "PATCH":
            return self._transition(revs, rev, _body(body))
        if method == "DELETE":
            if not revs.editable(rev):
                raise Problem(409, f"Revision {rev} was applied; only a pending one is dropped")
            revs.detach(rev)
            return _ok({})
        raise Problem(405, f"{method} is not a method of a revision")

    def _transition(self, revs: Revisions, rev: str, doc: Any) -> Response:
        """PATCH /revision/<id>: apply, confirm, roll back or save."""
        if not isinstance(doc, dict):
            raise Problem(400, "a revision PATCH takes a JSON object")
        target = doc.get("state")
        waiting = revs.confirming()
        if target != "save" and revs.get(rev) is None:
            raise Problem(409, f"Revision {rev} is the factory configuration")
        if target == "save":
            if rev != revs.applied:
                raise Problem(409, f"Revision {rev} is not the applied one")
            revs.save()
        elif target == "confirm_yes" or (target == "apply" and waiting == rev):
            self._waiting_is(waiting, rev)
            revs.confirm()
        elif target == "confirm_no":
            self._waiting_is(waiting, rev)
            revs.rollback()
        elif target == "apply":
            if waiting is not None:
                raise Problem(409, f"Revision {waiting} is waiting for its confirmation")
            prompts = doc.get("auto-prompt") or {}
            ays = isinstance(prompts, dict) and prompts.get("ays") == "ays_yes"
            _apply(revs, rev, ays, _confirm_seconds(doc))
        else:
            raise Problem(400, f"{target!r} is not a state a revision is moved to here")
        return _ok({"state": target, "transition": {"issue": {}, "progress": ""}})

    @staticmethod
    def _waiting_is(waiting: str | None, rev: str) -> None:
        if waiting != rev:
            raise Problem(409, f"Revision {rev} is not waiting for a confirmation")

    # -- the configuration tree --------------------------------------------------------------

    def _config(
        self,
        revs: Revisions,
        method: str,
        path: list[str],
        query: dict[str, str],
        body: bytes,
    ) -> Response:
        if method == "GET":
            tree = self._tree(revs, query.get("rev", "operational"))
            if "diff" in query:
                tree = differences(tree, self._tree(revs, query["diff"]))
            node = _at(tree, path)
            if node is None:
                raise Problem(404, f"The requested item does not exist: {'/'.join(path)}")
            return _ok(node)
        if method not in ("PATCH", "DELETE"):
            raise Problem(405, f"{method} of the configuration is not modelled")
        rev = _known(revs, query.get("rev", ""))
        if not revs.editable(rev):
            raise Problem(409, f"Revision {rev} is not pending: it takes no more changes")
        config = revs.get(rev)["config"]
        tree = to_tree(config)
        if method == "DELETE":
            edits = unset_lines(path, tree)
        else:
            edits = set_lines(path, _body(body), tree)
        try:
            candidate = staged(config, edits)
        except Invalid as err:
            # a path the CLI unsets as a whole (`nv unset interface bond1`) whose leaves it
            # does not take one by one
            if method != "DELETE" or not path:
                raise Problem(400, str(err)) from None
            try:
                candidate = staged(config, [(False, path)])
            except Invalid:
                raise Problem(400, str(err)) from None
        revs.put(rev, candidate)
        if method == "DELETE":
            return _ok({})
        node = _at(to_tree(candidate), path)
        return _ok({} if node is None else node)

    def _tree(self, revs: Revisions, rev: str) -> dict[str, Any]:
        if rev == "operational":
            return self._operational()
        if rev == "applied":
            return to_tree(self.state.running)
        if rev == "startup":
            return to_tree(self.state.startup)
        if rev == "pending":
            pending = revs.cli_config()
            return to_tree(self.state.running if pending is None else pending)
        revision = revs.get(rev)
        if revision is None:
            raise Problem(404, f"Revision {rev} does not exist")
        return to_tree(revision["config"])

    def _operational(self) -> dict[str, Any]:
        """The applied tree with `nv show system` and `nv show interface` on top."""
        shell = self.session_cls(self.state)
        shown = {
            "system": json.loads(shell.execute("nv show system -o json")),
            "interface": json.loads(shell.execute("nv show interface -o json")),
        }
        return merged(to_tree(self.state.running), shown)


# ---- edits as `nv set` / `nv unset` lines ---------------------------------------------------


def set_lines(path: list[str], value: Any, tree: dict[str, Any]) -> list[Edit]:
    """The lines a PATCH of `value` at `path` is: an object's members in order, its empty
    objects words of the path, `null` an unset of that subtree, any other value the last
    word."""
    if value is None:
        return unset_lines(path, tree)
    if isinstance(value, dict):
        if not value:
            return [(True, path)] if path else []
        lines: list[Edit] = []
        for key, item in value.items():
            lines += set_lines([*path, str(key)], item, tree)
        return lines
    return [(True, [*path, str(value)])]


def unset_lines(path: list[str], tree: dict[str, Any]) -> list[Edit]:
    """`nv unset` of a subtree: each of its leaves, deepest first and an interface's `type`
    last (unsetting it removes the interface, which a later line would create again); a
    path the tree lacks is unset as it is, for the CLI to take or refuse."""
    node = _at(tree, path)
    if not isinstance(node, dict) or not node:
        return [(False, path)] if path else []
    inner = sorted(leaves(node), key=lambda p: (len(p), p[-1] != "type"), reverse=True)
    return [(False, [*path, *sub]) for sub in inner]


# ---- helpers ---------------------------------------------------------------------------------


def _apply(revs: Revisions, rev: str, ays: bool, confirm: float | None) -> None:
    """The CLI's `nv config apply` for a REST client: check, then warn, then commit."""
    problems = revs.problems(rev)
    if problems:
        revs.invalid(rev, problems)
    elif revs.warns(rev) and not ays:
        revs.fail(rev, REV_AYS_FAIL, [dict(AYS_ISSUE)], "Aborted apply after warnings")
    else:
        revs.commit(rev, confirm)


def _confirm_seconds(doc: dict[str, Any]) -> float | None:
    controls = doc.get("state-controls") or {}
    confirm = controls.get("confirm") if isinstance(controls, dict) else None
    if confirm is None:
        return None
    if isinstance(confirm, bool) or not isinstance(confirm, int | float) or confirm <= 0:
        raise Problem(400, f"state-controls confirm {confirm!r} is not a number of seconds")
    return float(confirm)


def _known(revs: Revisions, rev: str) -> str:
    if not rev:
        raise Problem(400, "a change names its revision: ?rev=<id>")
    if rev != "0" and revs.get(rev) is None:
        raise Problem(404, f"Revision {rev} does not exist")
    return rev


def _settled() -> dict[str, Any]:
    """The factory configuration, applied before any revision was."""
    return {"state": "applied", "transition": {"issue": {}, "progress": ""}}


def _body(body: bytes, allow_empty: bool = False) -> Any:
    if not body.strip() and allow_empty:
        return {}
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise Problem(400, "the body is not JSON") from None


def _at(tree: Any, path: list[str]) -> Any:
    """The node at `path`, None where there is none."""
    node = tree
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def merged(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    """`base` with `top` laid over it, objects merged member by member."""
    out = dict(base)
    for key, value in top.items():
        below = out.get(key)
        both = isinstance(below, dict) and isinstance(value, dict)
        out[key] = merged(below, value) if both else value
    return out


def differences(mine: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    """`?rev=A&diff=B`: A's leaves where A and B differ, and `null` at the first node of a
    path only B has (nv-config-manager's samples: `"syslog": {"mgmt": null}`)."""
    ours, theirs = leaves(mine), leaves(other)
    flat: dict[tuple[str, ...], Any] = {p: v for p, v in ours.items() if theirs.get(p, ...) != v}
    for path in theirs:
        cut = next((n for n in range(1, len(path) + 1) if _at(mine, list(path[:n])) is None), 0)
        if path not in ours and cut:
            flat[path[:cut]] = None
    tree: dict[str, Any] = {}
    for path, value in flat.items():
        node = tree
        for key in path[:-1]:
            if not isinstance(node.get(key), dict):
                node[key] = {}
            node = node[key]
        if not (value is None and isinstance(node.get(path[-1]), dict)):
            node[path[-1]] = value
    return tree


def _ok(document: Any) -> Response:
    return Response(200, json.dumps(document).encode(), JSON_TYPE)
