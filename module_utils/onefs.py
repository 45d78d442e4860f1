"""OneFS Platform API client shared by the onefs_* modules.

HTTPS with certificate verification on by default (ca_path for a site CA), basic or
session authentication (session: isisessid cookie plus the X-CSRF-Token header and a
Referer, which patched clusters require), timeouts, and retries with exponential
backoff on connection errors and 5xx answers for requests that are safe to repeat
(GET, PUT, DELETE; a POST is never repeated blindly, so a retry cannot create an
object twice). Error bodies become OneFSError with the cluster's own message; the
password is never part of a message.
"""

from __future__ import annotations

import base64
import contextlib
import json
import time
from urllib.parse import quote, urlencode

from ansible.module_utils.six.moves.urllib.error import HTTPError, URLError
from ansible.module_utils.urls import Request

RETRY_METHODS = ("GET", "PUT", "DELETE")


def onefs_argument_spec():
    """Connection options, named as in Dell's dellemc.powerscale collection."""
    return {
        "onefs_host": {"type": "str", "required": True},
        "port_no": {"type": "int", "default": 8080},
        "api_user": {"type": "str", "required": True},
        "api_password": {"type": "str", "required": True, "no_log": True},
        "verify_ssl": {"type": "bool", "default": True},
        "ca_path": {"type": "path"},
        "auth": {"type": "str", "default": "session", "choices": ["session", "basic"]},
        "timeout": {"type": "int", "default": 30},
        "retries": {"type": "int", "default": 3},
    }


class OneFSError(Exception):
    """An API call that failed, with the cluster's status, error code and message."""

    def __init__(self, method, path, status, code, message):
        self.status, self.code, self.api_message = status, code, message
        super().__init__(f"{method} {path} failed: {status} {code}: {message}")


def _errors(body):
    try:
        error = json.loads(body)["errors"][0]
        return error.get("code", ""), error.get("message", "")
    except (ValueError, KeyError, IndexError, TypeError):
        return "", body.strip()[:300] if body else ""


class OneFSClient:
    """One conversation with a cluster's API."""

    def __init__(self, params, sleep=None):
        self.base = f"https://{params['onefs_host']}:{params['port_no']}"
        self.params = params
        self.sleep = sleep or time.sleep
        self.request = Request(
            validate_certs=params["verify_ssl"],
            ca_path=params.get("ca_path"),
            timeout=params["timeout"],
            follow_redirects="none",
        )
        self.headers = {"Content-Type": "application/json", "Accept": "application/json"}
        self.session = False
        self._latest = None

    # -- transport -------------------------------------------------------------------

    def _send(self, method, url, data, headers):
        """One HTTP exchange: (status, body text, header pairs). Tests replace this."""
        try:
            response = self.request.open(method, url, data=data, headers=headers)
            return (
                response.getcode(),
                response.read().decode() or "",
                list(response.headers.items()),
            )
        except HTTPError as err:
            body = err.read().decode() if err.fp else ""
            return err.code, body, list((err.headers or {}).items())

    def _exchange(self, method, path, body=None, query=None, auth=True):
        url = self.base + path + ("?" + urlencode(query) if query else "")
        data = json.dumps(body) if body is not None else None
        headers = dict(self.headers)
        if auth and not self.session:
            headers["Authorization"] = self._basic()
        attempts = 1 + (self.params["retries"] if method in RETRY_METHODS else 0)
        delay = 0.5
        for attempt in range(attempts):
            try:
                status, text, response_headers = self._send(method, url, data, headers)
            except (URLError, OSError) as err:
                if attempt + 1 == attempts:
                    reason = str(getattr(err, "reason", err))
                    raise OneFSError(method, path, 0, "CONNECTION", reason) from None
                self.sleep(delay)
                delay *= 2
                continue
            if status >= 500 and attempt + 1 < attempts:
                self.sleep(delay)
                delay *= 2
                continue
            if status >= 400:
                code, message = _errors(text)
                raise OneFSError(method, path, status, code, message)
            return status, text, response_headers
        raise OneFSError(method, path, 0, "RETRIES", "no answer")  # pragma: no cover

    def _basic(self):
        token = f"{self.params['api_user']}:{self.params['api_password']}".encode()
        return "Basic " + base64.b64encode(token).decode()

    def login(self):
        """Open a session when asked for one (the default); basic auth needs nothing."""
        if self.params["auth"] != "session":
            return
        body = {
            "username": self.params["api_user"],
            "password": self.params["api_password"],
            "services": ["platform"],
        }
        _, _, headers = self._exchange("POST", "/session/1/session", body, auth=False)
        cookies = {}
        for key, value in headers:
            if key.lower() == "set-cookie":
                name, _, rest = value.strip().partition("=")
                if name in ("isisessid", "isicsrf"):
                    cookies[name] = rest.split(";", 1)[0]
        if "isisessid" not in cookies:
            raise OneFSError(
                "POST", "/session/1/session", 0, "SESSION", "no session cookie returned"
            )
        self.headers["Cookie"] = f"isisessid={cookies['isisessid']}"
        self.headers["X-CSRF-Token"] = cookies.get("isicsrf", "")
        self.headers["Referer"] = self.base
        self.session = True

    def logout(self):
        if self.session:
            with contextlib.suppress(OneFSError):
                self._exchange("DELETE", "/session/1/session")
            self.session = False

    # -- API -------------------------------------------------------------------------

    def call(self, method, path, body=None, query=None):
        """JSON of a /platform call (None for an empty answer)."""
        _, text, _ = self._exchange(method, "/platform/" + path.lstrip("/"), body, query)
        return json.loads(text) if text else None

    def latest(self):
        """The newest API version the cluster serves (GET /platform/latest, read once)."""
        if self._latest is None:
            latest = str(self.get("latest")["latest"])
            # gopowerscale allows a "M.m" minor in latest; the major is what routes
            self._latest = int(latest.split(".")[0])
        return self._latest

    def path(self, resource, versions):
        """`N/resource` at the newest of `versions` the cluster serves.

        A cluster answers 404 above its latest API version, and serves /N/x with the
        newest version of x <= N, so a module names the versions it was written
        against and uses the newest one the cluster has, never assuming 16 or 21.
        """
        usable = [v for v in versions if v <= self.latest()]
        if not usable:
            raise OneFSError(
                "GET",
                "/platform/latest",
                0,
                "API_VERSION",
                f"the cluster serves API versions up to {self.latest()}; {resource} needs "
                f"version {min(versions)} or later",
            )
        return f"{max(usable)}/{resource}"

    def get(self, path, query=None):
        return self.call("GET", path, query=query)

    def post(self, path, body):
        return self.call("POST", path, body)

    def put(self, path, body):
        return self.call("PUT", path, body)

    def delete(self, path):
        return self.call("DELETE", path)


def ref(name):
    """A name as one path segment (policy names have spaces)."""
    return quote(str(name), safe="")


def converse(params, work):
    """Open a client with `params` (onefs_argument_spec's options), return
    work(client) and close it; a failed call raises OneFSError."""
    client = OneFSClient(params)
    try:
        client.login()
        return work(client)
    finally:
        client.logout()


def run(module, work):
    """Open the client, run work(client), close it; errors fail the module cleanly."""
    try:
        return converse(module.params, work)
    except OneFSError as err:
        module.fail_json(msg=str(err), status=err.status, code=err.code)
    return None


# ---- onefs_info: what it reads (its module and its controller side share it) ----------

# subset -> (resource, the API versions it was written against, the answer's key); the
# newest version the cluster serves is used (versions: the PAPI schemas of github
# Isilon/isilon_sdk and Dell's generated SDKs, isi-sdk-9-1-0 and isilon-sdk 0.7.0).
INFO_SUBSETS = {
    "nodepools": ("storagepool/nodepools", (3, 16), "nodepools"),
    "tiers": ("storagepool/tiers", (1, 16), "tiers"),
    "filepool_policies": ("filepool/policies", (4, 12), "policies"),
    "default_policy": ("filepool/default-policy", (4,), "default-policy"),
    "access_time": ("filesystem/settings/access-time", (1,), "settings"),
    "nfs_exports": ("protocols/nfs/exports", (4, 20), "exports"),
}
INFO_CONFIG = ("cluster/config", (3, 17))


def info_argument_spec():
    """onefs_info's options: the connection's and gather_subset."""
    choices = ["version", *INFO_SUBSETS]
    spec = onefs_argument_spec()
    spec["gather_subset"] = {
        "type": "list",
        "elements": "str",
        "default": choices,
        "choices": choices,
    }
    return spec


def read_info(client, subsets):
    """onefs_info's answer: one key per subset read (one GET each, in the order asked)."""
    facts = {}
    for subset in subsets:
        if subset == "version":
            config = client.get(client.path(*INFO_CONFIG))
            facts["version"] = {
                "release": config["onefs_version"]["release"],
                "api_latest": str(client.latest()),
                "name": config.get("name"),
            }
        else:
            resource, versions, key = INFO_SUBSETS[subset]
            facts[subset] = client.get(client.path(resource, versions))[key]
    return {"changed": False, "onefs": facts}


# ---- file pool policies: actions and criteria, shared by the two policy modules -------

SSD_STRATEGIES = ["metadata", "metadata-write", "data", "avoid"]
_TARGET = {
    "type": "dict",
    "options": {
        "storagepool": {"type": "str", "required": True},
        "ssd_strategy": {"type": "str", "default": "metadata", "choices": SSD_STRATEGIES},
    },
}


def policy_action_spec():
    """The action options, named as dellemc.powerscale names them."""
    return {
        "apply_data_storage_policy": dict(_TARGET),
        "apply_snapshot_storage_policy": dict(_TARGET),
        "set_requested_protection": {"type": "str"},
        "set_data_access_pattern": {
            "type": "str",
            "choices": ["random", "concurrency", "streaming"],
        },
        "enable_coalescer": {"type": "bool"},
    }


def desired_actions(params):
    """The API actions for the action options that were given (others stay unmanaged)."""
    actions = []
    for kind in ("apply_data_storage_policy", "apply_snapshot_storage_policy"):
        if params.get(kind):
            actions.append(
                {
                    "action_type": kind,
                    "action_param": {
                        "storagepool": params[kind]["storagepool"],
                        "ssd_strategy": params[kind]["ssd_strategy"],
                    },
                }
            )
    for kind in ("set_requested_protection", "set_data_access_pattern", "enable_coalescer"):
        if params.get(kind) is not None:
            actions.append({"action_type": kind, "action_param": params[kind]})
    return actions


def merge_actions(current, wanted):
    """(actions to send, changed): wanted actions replace theirs, the others are kept."""
    by_type = {a["action_type"]: a for a in wanted}
    merged, changed = [], False
    for action in current:
        replacement = by_type.pop(action["action_type"], None)
        if replacement is None:
            merged.append(action)
            continue
        if _param(action.get("action_param")) != _param(replacement["action_param"]):
            changed = True
        merged.append(replacement)
    if by_type:
        changed = True
        merged.extend(by_type.values())
    return merged, changed


def _param(value):
    if isinstance(value, dict):
        return {k: v for k, v in value.items() if v is not None}
    return value


TYPE_MAP = {
    "file_name": "name",
    "file_path": "path",
    "file_type": "file_type",
    "accessed": "accessed_time",
    "created": "birth_time",
    "modified": "changed_time",
    "metadata_changed": "metadata_changed_time",
    "size": "size",
    "file_attribute": "custom_attribute",
}
CONDITION_MAP = {
    "is_older_than": ">",
    "is_newer_than": "<",
    "matches": "==",
    "does_not_match": "!=",
    "equal": "==",
    "not_equal": "!=",
    "greater_than": ">",
    "greater_than_equal_to": ">=",
    "less_than": "<",
    "less_than_equal_to": "<=",
    "exists": "==",
    "does_not_exist": "!",
}
# dellemc.powerscale counts a month as 30 days and a year as 365.
SECONDS = {"minutes": 60, "hours": 3600, "days": 86400, "weeks": 604800,
           "months": 30 * 86400, "years": 365 * 86400}  # fmt: skip
TIME_TYPES = {"accessed_time", "birth_time", "changed_time", "metadata_changed_time"}


def to_papi_criterion(criterion):
    """One criterion in the API's form; raises ValueError naming what is wrong."""
    if "operator" in criterion:
        return dict(criterion)
    kind = TYPE_MAP.get(criterion.get("type"))
    if kind is None:
        raise ValueError(
            f"unknown criterion type {criterion.get('type')!r}; known: {', '.join(TYPE_MAP)}"
        )
    operator = CONDITION_MAP.get(criterion.get("condition"))
    if operator is None:
        raise ValueError(
            f"unknown condition {criterion.get('condition')!r} for {criterion['type']}"
        )
    out = {"type": kind, "operator": operator}
    if kind in TIME_TYPES:
        count = criterion.get("relative_datetime_count")
        if count:
            unit = count.get("time_unit", "days")
            if unit not in SECONDS:
                raise ValueError(f"unknown time_unit {unit!r}")
            value = int(count.get("time_value", 0))
            if value <= 0:
                raise ValueError(f"{criterion['type']} needs a positive time_value, got {value}")
            out.update(use_relative_time=True, value=value * SECONDS[unit])
        else:
            out.update(use_relative_time=False, value=criterion.get("value"))
    elif kind == "size":
        info = criterion.get("size_info") or {}
        out.update(
            value=info.get("size_value", criterion.get("value")), units=info.get("size_unit", "B")
        )
    elif kind in ("name", "path"):
        out.update(
            value=criterion.get("value"), case_sensitive=criterion.get("case_sensitive", True)
        )
    elif kind == "custom_attribute":
        out.update(field=criterion.get("field"), value=criterion.get("value"))
    else:
        out["value"] = criterion.get("value")
    return out


def to_papi_pattern(pattern):
    if pattern is None:
        return None
    groups = pattern.get("or_criteria") or []
    if not groups:
        raise ValueError("or_criteria must list at least one and_criteria group")
    return {
        "or_criteria": [
            {"and_criteria": [to_papi_criterion(c) for c in group.get("and_criteria") or []]}
            for group in groups
        ]
    }


def _same(current, wanted):
    """A criterion equals the wanted one on every field the task sets (numbers as numbers)."""
    for key, value in wanted.items():
        have = current.get(key)
        if key == "value":
            try:
                if float(have) == float(value):
                    continue
            except (TypeError, ValueError):
                pass
        if have != value:
            return False
    return True


def pattern_differs(current, wanted):
    have = current.get("or_criteria", [])
    want = wanted["or_criteria"]
    if len(have) != len(want):
        return True
    for have_group, want_group in zip(have, want, strict=True):
        a, b = have_group.get("and_criteria", []), want_group["and_criteria"]
        if len(a) != len(b) or not all(_same(x, y) for x, y in zip(a, b, strict=True)):
            return True
    return False


# ---- what each apply module would write, from the resource as read ------------------
# The onefs_* apply modules decide with these from the resource they read; the
# onefs_tiering role decides with the same functions from its one onefs_info read
# (filter onefs_writes), so it runs a module only where the module would write.


def access_time_wanted(enabled, precision=None, precision_days=None):
    """The access-time settings asked for (precision in seconds)."""
    wanted = {"enabled": enabled}
    if precision_days is not None:
        wanted["precision"] = precision_days * 86400
    elif precision is not None:
        wanted["precision"] = precision
    return wanted


def access_time_change(current, wanted):
    """The settings to PUT: those that differ."""
    return {k: v for k, v in wanted.items() if current.get(k) != v}


def find_tier(tiers, name):
    return next((t for t in tiers if t.get("name") == name), None)


def tier_action(tier, pools, state):
    """None, or the write a tier needs: create, modify (its node pools, as a set), remove."""
    if state == "absent":
        return "remove" if tier else None
    if tier is None:
        return "create"
    if pools is not None and set(pools) != set(tier.get("children") or []):
        return "modify"
    return None


def policy_change(current, params, pattern, wanted_actions):
    """The fields of an existing file pool policy to PUT: description and apply_order
    where given, the pattern where it differs, the actions merged with the others."""
    change = {}
    for key in ("description", "apply_order"):
        if params.get(key) is not None and current.get(key) != params[key]:
            change[key] = params[key]
    if pattern is not None and pattern_differs(current.get("file_matching_pattern") or {}, pattern):
        change["file_matching_pattern"] = pattern
    actions, actions_changed = merge_actions(current.get("actions", []), wanted_actions)
    if actions_changed:
        change["actions"] = actions
    return change


def export_wanted(params):
    """The export fields asked for (those given), map_root as the API holds it."""
    wanted = {k: params.get(k) for k in ("description", "clients", "root_clients", "read_only")}
    wanted = {k: v for k, v in wanted.items() if v is not None}
    if params.get("map_root"):
        wanted["map_root"] = {
            "enabled": params["map_root"].get("enabled", True),
            "user": {"id": "USER:" + params["map_root"].get("user", "nobody")},
        }
    return wanted


def find_export(exports, path):
    """The export that serves this path (an export lists its paths)."""
    return next((e for e in exports if path in e.get("paths", [])), None)


def export_change(current, wanted):
    """The export fields to PUT: those that differ."""
    change = {}
    for key, value in wanted.items():
        have = current.get(key)
        if key == "map_root" and isinstance(have, dict):
            have = {"enabled": have.get("enabled"), "user": {"id": have.get("user", {}).get("id")}}
        if have != value:
            change[key] = value
    return change
