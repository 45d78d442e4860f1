"""NVUE's REST API on the Cumulus Linux 5.x simulator (lab/simulators/switch_sim/
cumulus_nvue_api.py), driven with `requests` as the NVUE API guide's examples and the
nvidia.nvue collection drive a switch, on the same device model as the `nv` CLI.

The API is served over TLS (a throwaway self-signed certificate, trusted as the client's
CA) next to the switch's CLI, so a revision applied one way is checked the other. The facts
and their public sources are named in the module's docstring and in cumulus_nvue.Revisions.
"""

from __future__ import annotations

import io
import json
import ssl
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from urllib.parse import quote

import pytest
import requests
from sim_lab import SimLab
from throwaway_tls import self_signed

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "lab" / "simulators"))
from switch_sim import cumulus, cumulus_nvue  # noqa: E402
from switch_sim.__main__ import serve_api  # noqa: E402
from switch_sim.cumulus_nvue_api import nvue_api_handler  # noqa: E402
from switch_sim.https import APIServer, Request, read_chunked  # noqa: E402
from switch_sim.state import SwitchState  # noqa: E402

USER, PASSWORD = "cumulus", "CumulusLinux!"  # the account nvidia.nvue's examples use
JSON_HEADERS = {"Content-Type": "application/json"}  # what nvidia.nvue sends with every call
APPLY = {"state": "apply", "auto-prompt": {"ays": "ays_yes"}}  # [NVUE API guide]
EMPTY = {"issue": {}, "progress": ""}  # a transition without issues


@pytest.fixture(scope="module")
def certificate(tmp_path_factory) -> tuple[Path, Path]:
    return self_signed(tmp_path_factory.mktemp("tls"), "cumulus")


class Switch:
    """A factory SN3700 on a 5.x release, swp1 cabled, with its NVUE API on an ephemeral
    127.0.0.1 port; `cli` types lines in a login shell of the same switch."""

    def __init__(self, state: SwitchState, certificate: tuple[Path, Path]):
        self.state = state
        certfile, keyfile = certificate
        handler = nvue_api_handler(state, cumulus.CumulusSession, {USER: PASSWORD})
        self.server = APIServer(handler, "127.0.0.1", 0, str(certfile), str(keyfile))
        self.server.start()
        self.base = f"https://127.0.0.1:{self.server.port}/nvue_v1"
        self.ca = str(certfile)

    def call(
        self, method: str, path: str, body: Any = None, auth=(USER, PASSWORD), **params: str
    ) -> requests.Response:
        data = None if body is None else json.dumps(body)
        return requests.request(
            method, self.base + path, data=data, params=params, headers=JSON_HEADERS,
            auth=auth, verify=self.ca, timeout=10,
        )  # fmt: skip

    def get(self, path: str, **params: str) -> Any:
        answer = self.call("GET", path, **params)
        assert answer.status_code == 200, answer.text
        return answer.json()

    def revision(self) -> str:
        """POST /revision [NVUE API guide]: the new id is the answer's only key."""
        answer = self.call("POST", "/revision")
        assert answer.status_code == 200, answer.text
        (rev,) = answer.json()
        return rev

    def patch(self, path: str, body: Any, rev: str) -> Any:
        answer = self.call("PATCH", path, body, rev=rev)
        assert answer.status_code == 200, answer.text
        return answer.json()

    def apply(self, rev: str, body: dict[str, Any] = APPLY) -> dict[str, Any]:
        """Apply as the guide's Python example does: PATCH, then GET the revision."""
        answer = self.call("PATCH", f"/revision/{quote(rev, safe='')}", body)
        assert answer.status_code == 200, answer.text
        assert answer.json() == {"state": body["state"], "transition": EMPTY}
        return self.get(f"/revision/{quote(rev, safe='')}")

    def cli(self, *lines: str) -> list[str]:
        session = cumulus.CumulusSession(self.state)
        session.login(USER, PASSWORD)
        return [session.execute(line) for line in lines]

    def stop(self) -> None:
        self.server.stop()


def make_state(path: Path, monkeypatch, release: str) -> SwitchState:
    monkeypatch.setenv("CUMULUS_SIM_RELEASE", release)
    state = SwitchState(path / "state.json", cumulus.factory("cumulus"))
    state.cabled_ports = frozenset({1})
    return state


@pytest.fixture
def serve(tmp_path, monkeypatch, certificate) -> Iterator[Callable[[str], Switch]]:
    """serve(release): a switch of that release with its API; stopped after the test."""
    served: list[Switch] = []

    def start(release: str = "5.10.0") -> Switch:
        served.append(Switch(make_state(tmp_path, monkeypatch, release), certificate))
        return served[-1]

    yield start
    for switch in served:
        switch.stop()


@pytest.fixture
def switch(serve) -> Switch:
    return serve("5.10.0")


def restarted(switch: Switch) -> dict[str, Any]:
    """The running configuration a restart brings back (startup on disk)."""
    return SwitchState(switch.state.path, cumulus.factory("cumulus")).running


def wait_for(condition: Callable[[], bool], seconds: float = 5) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


# ---- authentication -------------------------------------------------------------------------


def test_requests_without_the_switch_credentials_are_refused(switch):
    assert switch.call("GET", "/system", auth=None).status_code == 401
    assert switch.call("POST", "/revision", auth=(USER, "wrong")).status_code == 401
    bearer = requests.get(
        switch.base + "/system", headers={"Authorization": "Bearer x"}, verify=switch.ca
    )
    assert bearer.status_code == 401 and "Basic" in bearer.headers["WWW-Authenticate"]
    assert switch.get("/revision") == {}  # the refused POST made no revision
    assert switch.get("/system")["hostname"] == "cumulus"


# ---- nvidia.nvue's `api` module, as its httpapi plugin sends it -----------------------------


def normalize_keys(data: Any) -> Any:
    """nvidia.nvue's HttpApi.normalize_keys: `_` in keys becomes `-` [nvidia.nvue]."""
    if isinstance(data, dict):
        return {key.replace("_", "-"): normalize_keys(value) for key, value in data.items()}
    return data


def ansible_post(url: str, ca: str) -> dict[str, Any]:
    """The plugin's create_revision: connection.send(path, dict(), method="POST"), which
    reaches urllib with data={}: no length, so an empty chunked body."""
    request = urllib.request.Request(url, data={}, method="POST", headers=JSON_HEADERS)
    request.add_header("Authorization", requests.auth._basic_auth_str(USER, PASSWORD))
    with urllib.request.urlopen(request, context=ssl.create_default_context(cafile=ca)) as answer:
        assert answer.status == 200
        return json.loads(answer.read())


def test_nvidia_nvue_api_set_flow_applies_what_the_cli_then_shows(switch):
    data = {"interface": {"swp1": {"link": {"auto_negotiate": "off", "mtu": 9000},
                                   "description": "dgx01 storage"}}}  # fmt: skip
    created = ansible_post(switch.base + "/revision", switch.ca)
    assert created == {"1": {"state": "pending", "transition": EMPTY}}
    rev = next(iter(created))  # `for k in handle_response(...): return k`
    echoed = switch.patch("/", normalize_keys(data), rev)  # path "/" -> /nvue_v1/?rev=<id>
    assert echoed["interface"]["swp1"] == {
        "type": "swp",
        "description": "dgx01 storage",
        "link": {"mtu": 9000, "auto-negotiate": "off"},
    }
    assert switch.state.running["interfaces"] == {}  # staged only
    force = {"state": "apply", "auto-prompt": {"ays": "ays_yes", "ignore_fail": "ignore_fail_yes"}}
    path = "/revision/" + rev.replace("/", "%2F")
    assert switch.call("PATCH", path, force).json() == {"state": "apply", "transition": EMPTY}
    wait = 0  # the module's default: one GET, then the last body is the result
    while wait >= 0:
        result = switch.get(path)
        if result.get("state") == "applied":
            break
        wait -= 1
    # 5.10 saves on apply: the state NVIDIA's own client waits for then [nv-config-manager]
    assert result == {"state": "applied_and_saved", "transition": EMPTY}
    shown = json.loads(switch.cli("nv config show -o json")[0])
    assert shown[0]["header"]["rev-id"] == "1.0"
    assert shown[1]["set"]["interface"]["swp1"]["link"] == {"mtu": 9000, "auto-negotiate": "off"}
    interfaces = switch.cli("cat /etc/network/interfaces")[0]
    assert "iface swp1\n    alias dgx01 storage\n    link-autoneg off\n    mtu 9000\n" in interfaces
    assert restarted(switch)["interfaces"]["swp1"]["mtu"] == 9000


def test_a_cli_apply_is_seen_over_get(switch):
    switch.cli("nv set interface swp1 link mtu 9216", "nv set system hostname leaf01")
    pending = switch.get("/interface/swp1/link", rev="pending")
    assert pending == {"mtu": 9216}
    assert switch.call("GET", "/interface/swp1", rev="applied").status_code == 404
    assert switch.cli("nv config apply -y") == ["applied [rev_id: 1]"]
    assert switch.get("/revision/1") == {"state": "applied_and_saved", "transition": EMPTY}
    assert switch.get("/", rev="applied") == {
        "interface": {"swp1": {"type": "swp", "link": {"mtu": 9216}}},
        "system": {"hostname": "leaf01"},
    }
    assert switch.get("/system/hostname", rev="startup") == "leaf01"
    system = switch.get("/system")  # operational: `nv show system -o json`
    assert system["hostname"] == "leaf01" and system["build"] == "Cumulus Linux 5.10.0"
    swp1 = switch.get("/interface/swp1")  # the applied tree under the `nv show` row
    assert swp1["link"]["oper-status"] == "up" and swp1["link"]["mtu"] == 9216
    assert switch.get("/interface")["swp2"]["link"]["admin-status"] == "down"


def test_a_revision_id_is_counted_once_for_the_cli_and_the_api(switch):
    switch.cli("nv set interface swp2 link mtu 9000")  # the CLI's revision: 1
    assert switch.revision() == "2"
    assert set(switch.get("/revision")) == {"1", "2"}
    assert switch.call("DELETE", "/revision/2").json() == {}
    assert set(switch.get("/revision")) == {"1"}
    assert switch.cli("nv config apply -y") == ["applied [rev_id: 1]"]
    assert switch.revision() == "3"
    # an id arrives %-encoded (nvidia.nvue turns "/" into %2F): the segment is decoded; sent
    # to the handler as it is, since `requests` would decode %33 itself
    handler = nvue_api_handler(switch.state, cumulus.CumulusSession, {USER: PASSWORD})
    auth = {"authorization": requests.auth._basic_auth_str(USER, PASSWORD)}
    answer = handler(Request("GET", "/nvue_v1/revision/%33", {}, auth, b""))
    assert json.loads(answer.body) == {"state": "pending", "transition": EMPTY}


# ---- one grammar: the CLI's -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "body", "line"),
    [
        ("/interface/swp1/link", {"mtu": 9300}, "nv set interface swp1 link mtu 9300"),
        ("/interface/swp1/link", {"speed": "300G"}, "nv set interface swp1 link speed 300G"),
        ("/interface", {"swp1": {"bridge": {"domain": {"br_default": {"access": 4095}}}}},
         "nv set interface swp1 bridge domain br_default access 4095"),
        ("/", {"interface": {"swp1": {"frobnicate": "on"}}},
         "nv set interface swp1 frobnicate on"),
    ],
)  # fmt: skip
def test_a_value_the_cli_refuses_is_refused_at_patch_in_its_words(switch, path, body, line):
    rev = switch.revision()
    answer = switch.call("PATCH", path, body, rev=rev)
    assert answer.status_code == 400
    problem = answer.json()
    assert problem["status"] == 400 and problem["title"] == "Bad Request"
    assert problem["detail"] == switch.cli(line)[0]
    assert switch.get("/", rev=rev) == {"system": {"hostname": "cumulus"}}  # nothing kept


def test_an_impossible_revision_ends_invalid_and_changes_nothing(switch):
    rev = switch.revision()
    switch.patch("/interface/swp5s0/link", {"mtu": 9000}, rev)  # swp5 is not split
    result = switch.apply(rev)
    reason = "swp5s0 is not a physical interface on this switch"
    assert result == {
        "state": "invalid",
        "transition": {
            "issue": {
                "0": {
                    "code": "config_invalid",
                    "data": {"location": "interface.swp5s0", "reason": reason},
                    "message": f"Config invalid at interface.swp5s0: {reason}",
                    "severity": "error",
                }
            },
            "progress": "Invalid config",
        },
    }
    assert switch.state.running["interfaces"] == {}
    assert "swp5s0" not in switch.cli("cat /etc/network/interfaces")[0]
    # the guide's remedy: fix the revision, then apply it again
    assert switch.call("DELETE", "/interface/swp5s0", rev=rev).json() == {}
    assert switch.get(f"/revision/{rev}")["state"] == "pending"
    switch.patch("/interface/swp5/link", {"mtu": 9000}, rev)
    assert switch.apply(rev)["state"] == "applied_and_saved"


def test_a_breakout_change_waits_for_ays_yes(switch):
    rev = switch.revision()
    switch.patch("/interface", {"swp2": {"link": {"breakout": {"4x": {}}}}}, rev)
    result = switch.apply(rev, {"state": "apply"})  # no auto-prompt: nobody answers
    assert result == {
        "state": "ays_fail",
        "transition": {
            "issue": {
                "0": {
                    "code": "client_timeout",
                    "data": {},
                    "message": "Timeout while waiting for client response",
                    "severity": "error",
                }
            },
            "progress": "Aborted apply after warnings",
        },
    }
    assert switch.state.running["breakouts"] == {}
    assert switch.apply(rev)["state"] == "applied_and_saved"
    assert "\n2=4x\n" in switch.cli("cat /etc/cumulus/ports.conf")[0]
    assert "swp2s3" in switch.get("/interface")


def test_a_locally_modified_interfaces_file_waits_for_ays_yes(switch):
    """A file changed by hand ("if you change a file manually instead of using NVUE, you
    see a warning prompt and the apply fails" [NVUE API guide]); ays_yes overwrites it."""
    session = cumulus.CumulusSession(switch.state)
    session.login(USER, PASSWORD)
    hand = "# by hand\n"
    session.execute_input(
        "sudo -S tee /etc/network/interfaces", io.BytesIO(f"{PASSWORD}\n{hand}".encode())
    )
    rev = switch.revision()
    switch.patch("/interface/swp1/link", {"mtu": 9000}, rev)
    result = switch.apply(rev, {"state": "apply"})
    assert result["state"] == "ays_fail"
    assert result["transition"]["progress"] == "Aborted apply after warnings"
    assert switch.cli("cat /etc/network/interfaces") == [hand]
    assert switch.apply(rev)["state"] == "applied_and_saved"
    assert "iface swp1\n    mtu 9000\n" in switch.cli("cat /etc/network/interfaces")[0]


def test_unset_with_null_and_with_delete(switch):
    switch.cli(
        "nv set interface swp1 link mtu 9000",
        "nv set interface swp2 description spare",
        "nv set interface vlan10 ip address 10.1.10.2/24",
        "nv set bridge domain br_default vlan 10,20",
        "nv config apply -y",
    )
    rev = switch.revision()
    echoed = switch.patch("/interface", {"swp1": {"link": {"mtu": None}}, "vlan10": None}, rev)
    assert "vlan10" not in echoed and echoed["swp1"] == {"type": "swp"}
    assert switch.call("DELETE", "/interface/swp2", rev=rev).json() == {}
    assert switch.call("DELETE", "/bridge/domain/br_default/vlan/20", rev=rev).json() == {}
    # `?rev=A&diff=B`: A's values where the two differ, null where only B has a node
    assert switch.get("/", rev=rev, diff="applied") == {
        "bridge": {"domain": {"br_default": {"vlan": {"20": None}}}},
        "interface": {"swp1": {"link": None}, "swp2": None, "vlan10": None},
    }
    assert switch.get("/interface", rev="applied", diff=rev)["swp2"] == {
        "type": "swp",
        "description": "spare",
    }
    assert switch.apply(rev)["state"] == "applied_and_saved"
    assert switch.cli("nv config show -o commands")[0].splitlines() == [
        "nv set bridge domain br_default vlan 10",
        "nv set interface swp1 type swp",
        "nv set system hostname cumulus",
    ]


def test_a_root_delete_then_patch_replaces_the_whole_configuration(switch):
    switch.cli("nv set interface bond1 bond member swp3-4", "nv config apply -y")
    rev = switch.revision()
    assert switch.call("DELETE", "/", rev=rev).json() == {}  # [NVUE API guide]
    new = {"system": {"hostname": "leaf02"}, "interface": {"swp1": {"link": {"mtu": 9216}}}}
    assert switch.patch("/", new, rev) == {
        "interface": {"swp1": {"type": "swp", "link": {"mtu": 9216}}},
        "system": {"hostname": "leaf02"},
    }
    switch.apply(rev)
    assert set(switch.state.running["interfaces"]) == {"swp1"}
    assert switch.cli("hostname") == ["leaf02"]


def test_an_applied_revision_takes_no_more_edits(switch):
    rev = switch.revision()
    switch.patch("/system", {"hostname": "leaf03"}, rev)
    switch.apply(rev)
    refused = switch.call("PATCH", "/system", {"hostname": "leaf04"}, rev=rev)
    assert refused.status_code == 409 and "not pending" in refused.json()["detail"]
    assert switch.call("DELETE", f"/revision/{rev}").status_code == 409
    assert switch.call("PATCH", "/system", {"hostname": "x"}, rev="99").status_code == 404
    assert switch.call("PATCH", "/system", {"hostname": "x"}).status_code == 400  # no ?rev=
    missing = switch.call("GET", "/interface/swp99")
    assert missing.status_code == 404 and missing.json()["title"] == "Not Found"
    assert switch.call("GET", "/revision/42").status_code == 404


# ---- save ------------------------------------------------------------------------------------


def test_before_5_9_only_the_save_patch_persists(serve):
    switch = serve("5.4.0")  # the guide's example build; auto-save from 5.9 [NVUE reference]
    rev = switch.revision()
    switch.patch("/interface/swp1/link", {"mtu": 9216}, rev)
    assert switch.apply(rev) == {"state": "applied", "transition": EMPTY}
    assert switch.state.running["interfaces"]["swp1"]["mtu"] == 9216
    assert "swp1" not in restarted(switch)["interfaces"]
    save = {"state": "save", "auto-prompt": {"ays": "ays_yes"}}
    answer = switch.call("PATCH", "/revision/applied", save)
    assert answer.json() == {"state": "save", "transition": EMPTY}
    assert switch.get(f"/revision/{rev}")["state"] == "applied_and_saved"
    assert restarted(switch)["interfaces"]["swp1"]["mtu"] == 9216
    assert switch.get("/interface/swp1/link/mtu", rev="startup") == 9216


# ---- apply with a rollback unless confirmed --------------------------------------------------


@pytest.fixture
def fast_clock(monkeypatch) -> float:
    """A confirm second lasts 20 ms (windows stay wide enough for a loaded test worker)."""
    monkeypatch.setattr(cumulus_nvue, "SECOND", 0.02)
    return 0.02


def locked(state: SwitchState, read: Callable[[], bool]) -> bool:
    """`read()` under the switch's lock, as a session reads the switch."""
    with state.lock:
        return read()


def mtu(config: dict[str, Any]) -> int | None:
    return config["interfaces"].get("swp1", {}).get("mtu")


def test_an_unconfirmed_apply_rolls_back_running_and_startup(switch, fast_clock):
    switch.cli("nv set interface swp1 link mtu 9000", "nv config apply -y")  # rev 1, saved
    rev = switch.revision()
    switch.patch("/interface/swp1/link", {"mtu": 1500}, rev)
    # a 3-second window: the save below lands in it even on a loaded test worker
    trial = {**APPLY, "state-controls": {"confirm": 150}}  # [gpncfg, nv-config-manager]
    assert switch.apply(rev, trial)["state"] == "confirm"
    assert mtu(switch.state.running) == 1500
    switch.call("PATCH", "/revision/applied", {"state": "save"})  # saved in the window
    assert mtu(switch.state.startup) == 1500
    # the timer, nobody asking; read under the switch's lock, which the rollback holds
    # from running to startup: never between the two
    wait_for(lambda: locked(switch.state, lambda: mtu(switch.state.running) == 9000), 10)
    assert "    mtu 9000" in switch.cli("cat /etc/network/interfaces")[0]
    assert mtu(switch.state.startup) == 9000 and mtu(restarted(switch)) == 9000
    assert switch.get(f"/revision/{rev}")["state"] == "confirm_fail"
    assert switch.cli("nv config show -o json")[0].count('"rev-id": "1.0"') == 1
    assert switch.call("PATCH", f"/revision/{rev}", {"state": "confirm_yes"}).status_code == 409


@pytest.mark.parametrize(
    "confirmation",
    [
        {"state": "confirm_yes", "auto-prompt": {"ays": "ays_yes"}},  # [gpncfg]
        APPLY,  # a second apply of the waiting revision [nv-config-manager]
    ],
)
def test_a_confirmed_apply_is_kept_and_saved(switch, fast_clock, confirmation):
    rev = switch.revision()
    switch.patch("/interface/swp1/link", {"mtu": 1500}, rev)
    trial = {"state": "apply", "auto-prompt": {"ays": "ays_yes", "confirm": "confirm_yes"},
             "state-controls": {"confirm": 150}}  # fmt: skip
    assert switch.apply(rev, trial)["state"] == "confirm"
    assert mtu(switch.state.startup) is None  # saved once confirmed
    other = switch.revision()
    assert switch.call("PATCH", f"/revision/{other}", APPLY).status_code == 409  # one at a time
    switch.apply(rev, confirmation)
    assert switch.get(f"/revision/{rev}")["state"] == "applied_and_saved"
    time.sleep(160 * fast_clock)  # past the window
    assert mtu(switch.state.running) == 1500 and mtu(restarted(switch)) == 1500


def test_cli_confirm_status_yes_and_the_timer(switch, fast_clock):
    switch.cli("nv set interface swp1 link mtu 9000", "nv config apply -y")
    first = switch.cli("nv set interface swp1 link mtu 1500", "nv config apply --confirm 150s -y")
    assert first == ["", "applied [rev_id: 2]"]
    status = switch.cli("nv config apply --confirm-status")[0]
    assert status.endswith("seconds left to confirm [rev_id: 2]")
    assert switch.get("/revision/2")["state"] == "confirm"
    refused = switch.cli("nv config apply 1 -y")[0]
    assert refused.startswith("Error: Revision 2 is waiting for its confirmation")
    # nobody types a `nv` line: the timer rolls back what the interfaces file shows
    wait_for(lambda: "mtu 9000" in switch.cli("cat /etc/network/interfaces")[0], 10)
    switch.cli("nv set interface swp2 link mtu 1500")  # starts from the rolled-back config
    kept = switch.cli("nv config apply --confirm 1m -y", "nv config apply 3 --confirm-yes")
    assert kept == ["applied [rev_id: 3]", "applied [rev_id: 3]"]
    time.sleep(70 * fast_clock)
    assert switch.state.running["interfaces"]["swp2"]["mtu"] == 1500
    assert mtu(restarted(switch)) == 9000 and restarted(switch)["interfaces"]["swp2"]["mtu"] == 1500
    refused = switch.cli("nv config apply --confirm-no")[0]
    assert refused == "Error: No apply is waiting for a confirmation"


def test_cli_confirm_no_rolls_back_at_once(switch):
    switch.cli("nv set interface swp1 link mtu 9000", "nv config apply --confirm -y")
    assert switch.cli("nv config apply --confirm-status")[0].startswith("600 seconds left")
    assert switch.cli("nv config apply --confirm-no") == ["rolled back [rev_id: 1]"]
    assert switch.state.running["interfaces"] == {} and switch.state.startup["interfaces"] == {}


# ---- transport and releases ------------------------------------------------------------------


def test_a_chunked_body_is_read_whole():
    body = b'4;ext=1\r\n{"a"\r\n3\r\n: 1\r\n1\r\n}\r\n0\r\nX-Trailer: y\r\n\r\n'
    assert read_chunked(io.BytesIO(body)) == b'{"a": 1}'
    assert read_chunked(io.BytesIO(b"0\r\n\r\n")) == b""


def test_a_4x_switch_has_no_api(tmp_path, monkeypatch):
    state = make_state(tmp_path, monkeypatch, "4.2.1")
    with pytest.raises(SystemExit, match=r"Cumulus Linux 4\.2\.1 has no NVUE REST API"):
        nvue_api_handler(state, cumulus.CumulusSession, {USER: PASSWORD})
    switch = SimpleNamespace(state=state, session_cls=cumulus.CumulusSession, users={})
    with pytest.raises(SystemExit, match=r"5\.x"):
        serve_api(switch, "cumulus", "127.0.0.1:0", None, None)


@pytest.fixture
def lab(tmp_path, monkeypatch) -> Iterator[SimLab]:
    monkeypatch.setenv("CUMULUS_SIM_RELEASE", "5.10.0")
    switch = SimLab(tmp_path, "cumulus", USER, PASSWORD, "cumulus", secret=PASSWORD)
    yield switch
    switch.stop()


def test_over_ssh_and_the_command_line_api(lab, certificate):
    """`--api-listen` wiring (serve_api) on a running switch, netmiko on its SSH side."""
    certfile, keyfile = certificate
    port = serve_api(lab.switch, "cumulus", "127.0.0.1:0", str(certfile), str(keyfile))
    base = f"https://127.0.0.1:{port}/nvue_v1"
    # per request: a CA bundle in the environment would override a Session's `verify`
    client = {"auth": (USER, PASSWORD), "verify": str(certfile), "timeout": 10}
    with lab.connect() as conn:
        conn.send_config_set(["nv set interface swp1 link mtu 9216"], error_pattern="Error")
        assert conn.send_command("nv config apply -y") == "applied [rev_id: 1]"
        applied = requests.get(base + "/", params={"rev": "applied"}, **client).json()
        assert applied["interface"]["swp1"]["link"] == {"mtu": 9216}
        rev = next(iter(requests.post(base + "/revision", **client).json()))
        body = json.dumps({"description": "uplink"})
        requests.patch(base + "/interface/swp2", body, params={"rev": rev}, **client)
        requests.patch(base + f"/revision/{rev}", json.dumps(APPLY), **client)
        commands = conn.send_command("nv config show -o commands")
    assert "nv set interface swp2 description uplink" in commands
