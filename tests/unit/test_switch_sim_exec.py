"""SSH exec requests on every switch simulator: `ssh admin@switch "show version"`.

EOS and MLNX-OS answer an exec request with the CLI command's output (Omnia reads its
QM8700s with `cli "enable" "show ..."`; Trigger prefers exec channels on EOS), Cumulus
Linux runs it in the user's bash and returns its exit code, and Ansible's `raw` module is
an exec request with a terminal. Each runs here against the in-process simulator, with
paramiko's client and with Ansible's own paramiko connection: clients nobody here wrote.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import paramiko
import pytest
from sim_lab import ROOT, SimLab

BIN = Path(sys.executable).parent


@pytest.fixture
def lab(request, tmp_path):
    simulator = SimLab(tmp_path, request.param)
    yield simulator
    simulator.stop()


@pytest.mark.parametrize(
    ("lab", "command", "expected"),
    [
        ("os10", "show version", "Dell EMC Networking OS10 Enterprise"),
        ("eos", "show version", "Arista DCS-7060CX2-32S"),
        ("mlnxos", 'cli "enable" "show version"', "Product release:"),
        ("mlnxos", "show version", "Product name:      MLNX-OS"),
        ("cumulus", "hostname", "lab-sw"),
    ],
    indirect=["lab"],
)
def test_a_command_answers_with_its_output_and_status_zero(lab, command, expected):
    status, out, err = lab.exec(command)
    assert (status, err) == (0, "")
    assert expected in out
    assert not out.rstrip().endswith(("#", ">", "$"))  # no prompt on an exec channel


@pytest.mark.parametrize(
    ("lab", "command", "status", "stdout", "stderr"),
    [
        ("eos", "show bogus", 1, "% Invalid input", ""),
        ("cumulus", "frobnicate", 127, "", "-bash: frobnicate: command not found"),
        ("cumulus", "net show hostname", 1, "", "ERROR: Command not found"),
        # sudo(8) has no terminal to read the password from
        ("cumulus", "sudo net show interface", 1, "", "sudo: a terminal is required"),
    ],
    indirect=["lab"],
)
def test_a_failing_command_says_why_with_a_non_zero_status(lab, command, status, stdout, stderr):
    got_status, out, err = lab.exec(command)
    assert got_status == status
    assert stdout in out and stderr in err


@pytest.mark.parametrize("lab", ["mlnxos"], indirect=True)
def test_mlnxos_runs_the_cli_arguments_in_order_and_stops_at_the_first_failure(lab):
    # without `enable`, configuration mode is refused and nothing after it runs
    status, out, _err = lab.exec('cli "configure terminal" "hostname renamed"')
    assert status == 1 and out.startswith("%")
    status, out, _err = lab.exec('cli "enable" "configure terminal" "hostname renamed"')
    assert status == 0
    assert lab.switch.state.running["hostname"] == "renamed"  # the model the CLI sees


@pytest.mark.parametrize("lab", ["eos", "cumulus"], indirect=True)
def test_an_exec_request_with_a_wrong_password_is_refused(lab):
    with pytest.raises(paramiko.AuthenticationException):
        lab.exec("show version", password="wrong")


@pytest.mark.parametrize(
    ("lab", "command", "expected"),
    [("eos", "show version", "Arista DCS-7060CX2-32S"), ("cumulus", "hostname", "lab-sw")],
    indirect=["lab"],
)
def test_ansible_raw_reads_the_switch(lab, tmp_path, command, expected):
    """Ansible's raw module over its paramiko connection (a terminal is requested, as
    Ansible does by default): the way to read a device without Python."""
    inventory = tmp_path / "hosts.ini"
    inventory.write_text(
        f"sw ansible_host=127.0.0.1 ansible_port={lab.port} ansible_user={lab.username}"
        f" ansible_password={lab.password} ansible_connection=paramiko\n"
    )
    env = {
        **os.environ,
        "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"),
        "ANSIBLE_HOST_KEY_CHECKING": "False",
        "ANSIBLE_PARAMIKO_LOOK_FOR_KEYS": "False",
        "ANSIBLE_NOCOLOR": "1",
    }
    result = subprocess.run(
        [str(BIN / "ansible"), "sw", "-i", str(inventory), "-m", "ansible.builtin.raw",
         "-a", command],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "CHANGED | rc=0" in result.stdout and expected in result.stdout
