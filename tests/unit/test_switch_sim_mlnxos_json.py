"""The MLNX-OS JSON API of the QM8700 simulator, driven with `requests` as Omnia's
infiniband role and UFM drive a switch, on the same device model as the SSH CLI.

The facts and their public sources (MLNX-GW JSON API, Omnia, UFM, Onyx clients) are named
in lab/simulators/switch_sim/mlnxos_json.py.
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "lab" / "simulators"))
from sim_lab import SimLab  # noqa: E402
from switch_sim import mlnxos, mlnxos_model  # noqa: E402
from switch_sim.https import APIServer  # noqa: E402
from switch_sim.mlnxos_json import json_api_handler  # noqa: E402
from switch_sim.state import SwitchState  # noqa: E402

USERS = {"admin": "pw"}
JSON_LOGIN = "/admin/launch?script=rh&template=json-request&action=json-login"
FORM_LOGIN = "/admin/launch?script=rh&template=login&action=login"
EXECUTE = "/admin/launch?script=json"


@pytest.fixture
def state(tmp_path) -> SwitchState:
    return SwitchState(tmp_path / "state.json", mlnxos_model.factory("lab-sw"))


def serve(state: SwitchState, users: dict[str, str]) -> APIServer:
    """The API on an ephemeral port, as the lead wires it to a Switch's attributes."""
    server = APIServer(json_api_handler(state, mlnxos.MLNXOSSession, users), "127.0.0.1", 0)
    server.start()
    return server


@pytest.fixture
def url(state) -> Iterator[str]:
    server = serve(state, USERS)
    yield f"http://127.0.0.1:{server.port}"
    server.stop()


@dataclass
class Client:
    """A logged-in client: its cookie jar keeps the session cookie."""

    url: str
    http: requests.Session

    def run(self, body: dict) -> dict:
        answer = self.http.post(self.url + EXECUTE, json=body)
        assert answer.status_code == 200
        return answer.json()


@pytest.fixture
def api(url) -> Iterator[Client]:
    """A client logged in with the documented JSON login."""
    with requests.Session() as http:
        answer = http.post(url + JSON_LOGIN, json={"username": "admin", "password": "pw"})
        assert answer.json() == {"status": "OK", "status_message": "Successfully logged-in"}
        yield Client(url, http)


# ---- logins (MLNX-GW JSON API; Omnia's and UFM's form login) ----------------------------------


def test_json_login_sets_the_session_cookie_and_show_version_comes_back_parsed(api, state):
    assert "session" in api.http.cookies
    answer = api.run({"cmd": "show version"})
    assert answer["status"] == "OK" and answer["executed_command"] == "show version"
    assert answer["data"]["Product name"] == "MLNX-OS"
    assert answer["data"]["Product release"] == "3.9.0606"
    printed = mlnxos.MLNXOSSession(state).execute("show version")  # the same values
    assert all(f"{key}:" in printed and value in printed for key, value in answer["data"].items())
    plain = api.run({"cmd": "show ib sm"})  # a show the model has no object for: its text
    assert plain["status"] == "OK" and plain["data"] == "disable"


def test_form_login_answers_302_with_the_cookie_omnia_sends_back(url, state):
    form = {"f_user_id": "admin", "f_password": "pw", "enter": "Sign in"}  # as Omnia posts it
    login = requests.post(url + FORM_LOGIN, data=form, allow_redirects=False)
    assert login.status_code == 302 and "Set-Cookie" in login.headers
    cookie = login.headers["Set-Cookie"].split(";")[0]  # what Omnia sends back
    answer = requests.post(url + EXECUTE, headers={"Cookie": cookie}, json={"commands": ["ib sm"]})
    assert answer.json()["results"][0]["status"] == "OK"
    assert state.running["sm"] is True
    # UFM's client follows the redirect with its cookie jar, then sends a single cmd
    with requests.Session() as ufm:
        assert ufm.post(url + FORM_LOGIN, data=form).status_code == 200  # landed on a page
        answer = ufm.post(url + EXECUTE, json={"cmd": "snmp-server host 10.0.0.9 traps"})
        assert answer.json()["status"] == "OK"
    assert state.running["snmp"]["hosts"] == {"10.0.0.9": {"type": "traps"}}


def test_wrong_or_missing_credentials_are_refused_without_a_cookie(url):
    wrong = requests.post(url + JSON_LOGIN, json={"username": "admin", "password": "nope"})
    assert wrong.json() == {"status": "ERROR", "status_message": "Invalid username or password"}
    assert "Set-Cookie" not in wrong.headers
    missing = requests.post(url + JSON_LOGIN, json={"username": "admin"})
    assert missing.json() == {
        "status": "ERROR",
        "status_message": "Please provide username and password",
    }
    form = {"f_user_id": "admin", "f_password": "nope"}
    refused = requests.post(url + FORM_LOGIN, data=form, allow_redirects=False)
    assert refused.status_code == 302 and "Set-Cookie" not in refused.headers  # Omnia's check
    assert refused.headers["Location"] == "/admin/launch?script=rh&template=login"


def test_commands_without_a_valid_session_are_refused_and_change_nothing(url, state):
    before = copy.deepcopy(state.running)
    for headers in ({}, {"Cookie": "session=forged"}):
        answer = requests.post(url + EXECUTE, headers=headers, json={"commands": ["ib sm"]})
        assert answer.status_code == 401
        assert answer.json()["status"] == "ERROR"  # Omnia: `status` present and not "OK"
    assert state.running == before


def test_logout_ends_the_session(api):
    api.http.get(api.url + "/admin/launch?script=rh&template=logout&action=logout")
    assert api.http.post(api.url + EXECUTE, json={"cmd": "show version"}).status_code == 401


def test_a_body_without_commands_or_with_async_execution_is_refused(api):
    assert api.run({"cmds": ["show version"]}) == {
        "status": "ERROR",
        "status_message": "No command found",
    }
    body = {"execution_type": "async", "commands": ["show version"]}
    assert api.run(body)["status"] == "ERROR"


# ---- commands in configuration mode (Omnia's infiniband role) -----------------------------------


def test_omnia_interface_batch_runs_in_configuration_mode(api, state):
    body = {
        "execution_type": "sync",
        "commands": ["interface ib 1/3", "description port 3", "no shutdown"],
    }
    results = api.run(body)["results"]
    assert [r["executed_command"] for r in results] == body["commands"]
    assert [r["status"] for r in results] == ["OK", "OK", "OK"]
    assert state.running["ports"]["1/3"] == {
        "shutdown": False,
        "speeds": None,
        "description": "port 3",
    }
    refused = api.run({"cmd": "configure terminal"})  # the session is in Config mode already
    assert refused["status"] == "ERROR"
    assert refused["status_message"] == '% Unrecognized command "configure".'


def test_a_refused_command_stops_the_batch_after_what_it_applied(api, state):
    batch = ["ib sm", "interface ib 1/41", "description x", "shutdown"]
    results = api.run({"commands": batch})["results"]
    assert [r["status"] for r in results] == ["OK", "ERROR"]
    assert results[1] == {
        "status": "ERROR",
        "executed_command": "interface ib 1/41",
        "status_message": "% Interface ib 1/41 does not exist.",
    }
    assert state.running["sm"] is True  # applied before the refusal: no transaction
    assert not any(p["shutdown"] or "description" in p for p in state.running["ports"].values())


def test_omnia_split_snmp_sm_and_save(api, state):
    split = api.run({"commands": ["interface ib 1/2", "shutdown", "module-type qsfp-split-2"]})
    assert [r["status"] for r in split["results"]] == ["OK", "OK", "OK"]
    assert {"1/2/1", "1/2/2"} <= set(state.running["ports"]) and "1/2" not in state.running["ports"]
    for line in (
        "snmp-server enable",
        "snmp-server enable notify",
        "snmp-server community omnia ro",
        "snmp-server host 10.5.0.1 traps version 1 omnia",
        "ib sm",
    ):
        assert api.run({"commands": [line]})["results"][0]["status"] == "OK", line
    assert state.startup != state.running
    assert api.run({"commands": ["configuration write"]})["results"][0]["status"] == "OK"
    assert state.startup == state.running
    config = api.run({"cmd": "show running-config"})["data"].splitlines()
    assert "   snmp-server community omnia ro" in config
    assert "   snmp-server host 10.5.0.1 traps version 1 omnia" in config
    assert "   interface ib 1/2 module-type qsfp-split-2 force" in config


# ---- one device model: the JSON API and SSH see each other's changes ----------------------------


def test_json_and_ssh_share_the_device(tmp_path):
    lab = SimLab(tmp_path, "mlnxos", fast_cli=True)
    server = serve(lab.switch.state, lab.switch.users)  # the wiring server.py's Switch allows
    try:
        with requests.Session() as api:
            base = f"http://127.0.0.1:{server.port}"
            api.post(base + JSON_LOGIN, json={"username": "admin", "password": "pw"})
            batch = ["interface ib 1/3", "description port 3", "shutdown"]
            api.post(base + EXECUTE, json={"commands": batch})
            with lab.connect() as ssh:
                detail = ssh.send_command("show interfaces ib 1/3")
                assert "        Description                 : port 3" in detail.splitlines()
                assert "Disabled" in detail
                ssh.enable()
                ssh.send_config_set(["interface ib 1/7 description rack-7"])
            status = api.post(base + EXECUTE, json={"cmd": "show interfaces ib status"}).json()
        assert status["data"]["IB1/7"][0]["Description"] == "rack-7"
        assert status["data"]["IB1/3"][0]["Physical port state"] == "Disabled"
    finally:
        server.stop()
        lab.stop()
