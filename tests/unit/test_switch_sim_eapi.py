"""Arista eAPI on the EOS simulator (lab/simulators/switch_sim/eapi.py), driven by the
clients people use: pyeapi, and NAPALM's EOS driver over it.

The API is served over TLS (a throwaway self-signed certificate, trusted as the clients'
CA) next to the SSH CLI of the same switch, so a change made one way is checked the other.
Raw requests pin the JSON-RPC shapes eAPI answers that the clients hide.
"""

from __future__ import annotations

import base64
import copy
import json
import ssl
import sys
from pathlib import Path

import pyeapi
import pytest
import requests
from napalm import get_network_driver
from pyeapi.eapilib import CommandError, ConnectionError
from sim_lab import SimLab
from throwaway_tls import self_signed

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "lab" / "simulators"))
from switch_sim import eos, eos_model  # noqa: E402
from switch_sim.eapi import eapi_handler  # noqa: E402
from switch_sim.https import APIServer  # noqa: E402
from switch_sim.state import SwitchState  # noqa: E402

PASSWORD = "pw"


@pytest.fixture(scope="module")
def certificate(tmp_path_factory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key."""
    return self_signed(tmp_path_factory.mktemp("tls"), "lab-sw")


class Switch:
    """A factory EOS simulator (logins land at `>`, no enable secret) with its SSH CLI and
    its eAPI on ephemeral 127.0.0.1 ports; Ethernet1/1 is cabled."""

    def __init__(self, tmp_path: Path, certificate: tuple[Path, Path]):
        self.lab = SimLab(tmp_path, "eos", password=PASSWORD, cabled=[1])
        self.state: SwitchState = self.lab.switch.state
        switch = self.lab.switch
        handler = eapi_handler(switch.state, switch.session_cls, switch.users)
        certfile, keyfile = certificate
        self.api = APIServer(handler, "127.0.0.1", 0, str(certfile), str(keyfile))
        self.api.start()
        self.port = self.api.port
        self.ca = str(certfile)

    def tls(self) -> ssl.SSLContext:
        """A client context that trusts the switch's certificate."""
        return ssl.create_default_context(cafile=self.ca)

    def node(self, password: str = PASSWORD, **options) -> pyeapi.client.Node:
        return pyeapi.connect(
            transport="https",
            host="127.0.0.1",
            port=self.port,
            username="admin",
            password=password,
            context=self.tls(),
            return_node=True,
            **options,
        )

    def post(self, document: object, path: str = "/command-api", auth=("admin", PASSWORD)):
        """One raw HTTP request, for what the clients do not show."""
        return requests.post(
            f"https://127.0.0.1:{self.port}{path}",
            data=json.dumps(document),
            auth=auth,
            verify=self.ca,
            timeout=10,
        )

    def cli(self, *lines: str) -> list[str]:
        """Lines typed in one privileged CLI session of the device model."""
        session = eos.EOSSession(self.state)
        return [session.execute(line) for line in lines]

    def stop(self) -> None:
        self.api.stop()
        self.lab.stop()


@pytest.fixture(scope="module")
def served(tmp_path_factory, certificate):
    switch = Switch(tmp_path_factory.mktemp("switch"), certificate)
    yield switch
    switch.stop()


@pytest.fixture
def switch(served):
    """The served switch, put back to its factory state for each test."""
    state = served.state
    with state.lock:
        state.running = eos.factory("lab-sw")
        state.startup = copy.deepcopy(state.running)
        state.files = {}
        state.volatile = {}
    return served


def run_cmds(cmds: list, **params) -> dict:
    """A runCmds request as pyeapi builds it (`streaming` included)."""
    return {
        "jsonrpc": "2.0",
        "method": "runCmds",
        "id": "req-1",
        "params": {"version": 1, "cmds": cmds, "format": "json", **params},
        "streaming": False,
    }


# ---- pyeapi ---------------------------------------------------------------------------------


def test_show_version_in_json_is_the_document_the_cli_prints_with_pipe_json(switch):
    node = switch.node()
    result = node.enable(["show version"])[0]
    assert result["encoding"] == "json"
    cli_json = json.loads(switch.cli("show version | json")[0])
    assert result["result"] == cli_json
    assert result["result"]["modelName"] == "DCS-7060CX2-32S"
    assert node.version == eos_model.EOS_VERSION


def test_show_version_in_text_is_what_the_cli_prints(switch):
    result = switch.node().enable(["show version"], encoding="text")[0]
    assert result["result"]["output"] == switch.cli("show version")[0] + "\n"


def test_a_request_lands_where_an_ssh_login_lands(switch):
    node = switch.node()
    with pytest.raises(CommandError) as refused:
        node.run_commands(["show running-config"], encoding="text", send_enable=False)
    assert refused.value.error_code == 1002
    assert "Invalid input (privileged mode required)" in refused.value.command_error
    output = node.run_commands(["show running-config"], encoding="text")[0]["output"]
    assert output.startswith("! Command: show running-config\n")


def test_config_over_eapi_is_seen_over_ssh_and_a_cli_change_over_eapi(switch):
    node = switch.node()
    assert node.config(["hostname eapi-sw", "interface Ethernet1/1", "description uplink"]) == [
        {},
        {},
        {},
    ]
    ssh = switch.lab.connect()
    try:
        ssh.enable()
        assert "Hostname: eapi-sw" in ssh.send_command("show hostname")
        block = ssh.send_command("show running-config | section Ethernet1/1$")
        assert "   description uplink" in block
        ssh.send_config_set(["interface Ethernet2/1", "description from-ssh"])
    finally:
        ssh.disconnect()
    interfaces = node.enable(["show interfaces"])[0]["result"]["interfaces"]
    assert interfaces["Ethernet2/1"]["description"] == "from-ssh"
    assert interfaces["Ethernet1/1"]["description"] == "uplink"


def test_a_failing_command_stops_the_request_with_the_eapi_error(switch):
    node = switch.node()
    with pytest.raises(CommandError) as failed:
        node.run_commands(["show hostname", "show bogus", "show version"])
    error = failed.value
    assert error.error_code == 1002
    assert error.error_text == "CLI command 3 of 4 'show bogus' failed: invalid command"
    assert "Invalid input (at token 1: 'bogus')" in error.command_error
    assert error.output == [
        {},
        {"hostname": "lab-sw", "fqdn": "lab-sw"},
        {"errors": ["Invalid input (at token 1: 'bogus')"]},
    ]
    with pytest.raises(CommandError):
        node.config(["hostname first", "mtu 1500", "hostname second"])
    assert switch.state.running["hostname"] == "first"  # later commands did not run


def test_a_device_refusal_is_code_1000(switch):
    with pytest.raises(CommandError) as failed:
        switch.node().config(["interface Ethernet1/1", "ip address 10.0.0.1/32"])
    assert failed.value.error_code == 1000
    assert failed.value.error_text.endswith(
        "'ip address 10.0.0.1/32' failed: could not run command"
    )
    assert "Prefix length must be less than 32" in failed.value.command_error


def test_a_show_command_without_json_is_unconverted_and_enable_asks_again_in_text(switch):
    node = switch.node()
    with pytest.raises(CommandError) as unconverted:
        node.run_commands(["show running-config"])
    assert unconverted.value.error_code == 1003
    assert unconverted.value.output[-1] == {"errors": ["This is an unconverted command"]}
    result = node.enable(["show running-config"])[0]
    assert result["encoding"] == "text"
    assert "hostname lab-sw" in result["result"]["output"]


def test_a_wrong_password_is_a_connection_error(switch):
    with pytest.raises(ConnectionError):
        switch.node(password="wrong").enable(["show version"])


def test_enable_reads_the_secret_from_input(switch):
    switch.cli("configure", "enable secret s3cret", "end")
    node = switch.node(enablepwd="s3cret")
    assert node.enable(["show running-config"], encoding="text")[0]["result"]["output"]
    with pytest.raises(CommandError) as denied:
        switch.node(enablepwd="nope").enable(["show version"])
    assert denied.value.error_text == "CLI command 1 of 2 'enable' failed: could not run command"
    assert "Access denied" in denied.value.command_error
    with pytest.raises(CommandError):
        switch.node().enable(["show version"])  # plain `enable`: no password to give


def test_abbreviations_need_auto_complete(switch):
    node = switch.node()
    with pytest.raises(CommandError) as refused:
        node.run_commands(["sh ver"])
    assert refused.value.error_code == 1002
    assert "Invalid input (at token 0: 'sh')" in refused.value.command_error
    version = node.run_commands(["sh ver"], autoComplete=True)[0]
    assert version["modelName"] == "DCS-7060CX2-32S"


def test_a_configuration_session_diffs_and_commits(switch):
    node = switch.node()
    node.configure_session()
    node.config(["interface Ethernet3/1", "description staged"])
    assert "description staged" not in eos.render(switch.state.running)
    diff = node.diff()
    assert diff.startswith("--- system:/running-config\n+++ session:/")
    assert "+   description staged" in diff.splitlines()
    sessions = node.enable(["show configuration sessions"])[0]["result"]["sessions"]
    assert [s["state"] for s in sessions.values()] == ["pending"]
    node.commit()
    assert "   description staged" in eos.render(switch.state.running).splitlines()


# ---- the JSON-RPC envelope ------------------------------------------------------------------


def test_results_echo_the_id_and_carry_one_entry_per_command(switch):
    answer = switch.post(run_cmds(["enable", "configure", "hostname raw", "end", "write"]))
    assert answer.status_code == 200
    assert answer.json() == {
        "jsonrpc": "2.0",
        "id": "req-1",
        "result": [{}, {}, {}, {}, {"messages": ["Copy completed successfully."]}],
    }
    assert switch.state.startup["hostname"] == "raw"


def test_a_text_failure_carries_the_cli_line_and_its_errors(switch):
    cmds = [{"cmd": "enable", "input": ""}, "show hostname", "show bogus"]
    answer = switch.post(run_cmds(cmds, format="text", version="latest")).json()
    assert answer["error"] == {
        "code": 1002,
        "message": "CLI command 3 of 3 'show bogus' failed: invalid command",
        "data": [
            {"output": ""},
            {"output": "Hostname: lab-sw\nFQDN:     lab-sw\n"},
            {
                "output": "% Invalid input (at token 1: 'bogus')\n",
                "errors": ["Invalid input (at token 1: 'bogus')"],
            },
        ],
    }


def test_malformed_requests_get_json_rpc_errors(switch):
    missing = switch.post({"method": "runCmds", "params": {"version": 1, "cmds": ["show version"]}})
    assert missing.json() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32600, "message": "Expected field 'jsonrpc' not specified"},
    }
    method = switch.post({**run_cmds(["show version"]), "method": "runCommands"}).json()
    assert method["error"]["code"] == -32601 and method["id"] == "req-1"
    unknown = switch.post(run_cmds(["show version"], bogus=True)).json()
    assert "unexpected keyword argument 'bogus'" in unknown["error"]["message"]
    fmt = switch.post(run_cmds(["show version"], format="xml")).json()
    assert fmt["error"]["code"] == -32602


def test_http_answers_outside_runcmds(switch):
    assert switch.post(run_cmds(["show version"]), auth=None).status_code == 401
    assert switch.post(run_cmds(["show version"]), path="/other").status_code == 404
    get = requests.get(f"https://127.0.0.1:{switch.port}/command-api", verify=switch.ca, timeout=10)
    assert get.status_code == 405
    basic = base64.b64encode(b"admin:wrong").decode()
    wrong = requests.post(
        f"https://127.0.0.1:{switch.port}/command-api",
        data=json.dumps(run_cmds(["show version"])),
        headers={"Authorization": f"Basic {basic}"},
        verify=switch.ca,
        timeout=10,
    )
    assert wrong.status_code == 401


# ---- NAPALM ---------------------------------------------------------------------------------


def _napalm(switch):
    """NAPALM's EOS driver for the switch, over HTTPS with its certificate."""
    return get_network_driver("eos")(
        "127.0.0.1",
        "admin",
        PASSWORD,
        optional_args={"transport": "https", "port": switch.port, "context": switch.tls()},
    )


def test_napalm_facts_interfaces_merge_commit_and_rollback(switch):
    driver = _napalm(switch)
    driver.open()
    try:
        facts = driver.get_facts()
        assert facts["hostname"] == "lab-sw" and facts["model"] == "DCS-7060CX2-32S"
        assert "Ethernet1/1" in facts["interface_list"]
        interfaces = driver.get_interfaces()
        assert interfaces["Ethernet1/1"]["is_up"] and interfaces["Ethernet1/1"]["speed"] == 100000
        assert not interfaces["Ethernet2/1"]["is_up"] and interfaces["Ethernet2/1"]["is_enabled"]

        before = eos.render(switch.state.startup)
        driver.load_merge_candidate(config="interface Ethernet1/1\n   description napalm\n")
        diff = driver.compare_config()
        assert "+   description napalm" in diff.splitlines()
        assert "description napalm" not in eos.render(switch.state.running)
        driver.commit_config()
        assert "   description napalm" in eos.render(switch.state.startup).splitlines()
        assert eos.render(switch.state.files["rollback-0"]) == before

        driver.rollback()
        assert eos.render(switch.state.running) == before
        assert eos.render(switch.state.startup) == before
    finally:
        driver.close()


def test_napalm_reads_the_counters_the_fault_file_sets_and_zero_elsewhere(switch):
    """A lab switch forwards nothing: its counters are 0 unless the fault file plays
    traffic; a Port-Channel counts what its members do. The same numbers in the CLI's
    `show interfaces` text."""
    switch.cli("enable", "configure", "interface Ethernet31/1", "channel-group 10 mode active",
               "interface Ethernet32/1", "channel-group 10 mode active", "end")  # fmt: skip
    faults = {
        "interface_counters": {
            "Ethernet31/1": {"inUcastPkts": 1000, "outUcastPkts": 900, "inOctets": 64000},
            "Ethernet32/1": {"inUcastPkts": 10, "inMulticastPkts": 5},
        }
    }
    switch.lab.faults.write_text(json.dumps(faults))
    try:
        driver = _napalm(switch)
        driver.open()
        try:
            counters = driver.get_interfaces_counters()
        finally:
            driver.close()
        text = switch.cli("show interfaces")[0]
    finally:
        switch.lab.faults.write_text("{}")
    assert counters["Ethernet31/1"]["rx_unicast_packets"] == 1000
    assert counters["Ethernet31/1"]["tx_unicast_packets"] == 900
    assert counters["Ethernet31/1"]["rx_octets"] == 64000
    assert counters["Port-Channel10"]["rx_unicast_packets"] == 1010
    assert counters["Port-Channel10"]["rx_multicast_packets"] == 5
    assert counters["Ethernet1/1"]["rx_unicast_packets"] == 0  # nothing crosses a lab switch
    block = text[text.index("Ethernet31/1 is") :].split("\nEthernet")[0].splitlines()
    assert "     1000 packets input, 64000 bytes" in block
    assert "     900 packets output, 0 bytes" in block


def test_napalm_replace_starts_from_the_clean_config_and_close_discards_it(switch):
    driver = _napalm(switch)
    driver.open()
    driver.load_replace_candidate(config="hostname replaced\nip routing\n")
    diff = driver.compare_config().splitlines()
    assert {"-hostname lab-sw", "+hostname replaced", "+ip routing", "-no ip routing"} <= set(diff)
    driver.close()  # discards the session
    assert switch.state.running["hostname"] == "lab-sw"
    assert switch.cli("show configuration sessions | json")[0].count("pending") == 0


def test_configure_replace_needs_the_file(switch):
    with pytest.raises(CommandError) as missing:
        switch.node().run_commands(["configure replace flash:rollback-0"], encoding="text")
    assert missing.value.error_code == 1000
    assert "flash:rollback-0: No such file or directory" in missing.value.command_error


def test_flash_files_survive_a_restart(switch):
    switch.cli("copy running-config flash:before-change")
    assert "before-change" in switch.cli("dir flash:")[0]
    reloaded = SwitchState(switch.state.path, eos.factory("lab-sw"))
    assert reloaded.files["before-change"] == switch.state.running
