"""The switch_config module over real SSH sessions to the in-process switch simulators.

What the switches role does on the lab's S5232 and 7060 (playbooks/layers/network.yml), played
here against the same simulators (lab/simulators/switch_sim) started in this process on
an ephemeral port: the module opens a real netmiko session, the simulator's fault file
drops the session or slows a command as the lab containers' would, and the running and
startup configurations are read back over SSH. The intended texts are the role's own
templates with the lab inventory's settings (tests/unit/test_switch_config.render). The
lab keeps what needs its containers: the converged switches, their cabling, a restart.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from ansible.module_utils.testing import patch_module_args
from sim_lab import SimLab
from test_switch_config import (
    LAB_EOS,
    PAPER_BREAKOUTS,
    SPLIT_24,
    module,
    owned_patterns,
    render,
)

RUNNING = {"os10": "show running-configuration", "eos": "show running-config"}
STARTUP = {"os10": "show startup-configuration", "eos": "show startup-config"}
PLATFORM = {"os10": "dell_os10", "eos": "arista_eos"}
EOS_ROUTES_AND_RSTP = {
    "switches_eos_static_routes": [
        {"prefix": "0.0.0.0/0", "next_hop": "10.201.0.1"},
        {"prefix": "10.99.0.0/16", "next_hop": "10.201.0.254"},
    ],
    "switches_eos_spanning_tree_mode": "rstp",
}


def push(platform: str, port: int, password: str, intended: str, owned: list[str], **extra: Any
         ) -> dict[str, Any]:  # fmt: skip
    """Run the switch_config module in this process, as the switches role calls it, against
    the switch listening on 127.0.0.1:`port`; its result."""
    args = {
        "platform": platform,
        "host": "127.0.0.1",
        "port": port,
        "username": "admin",
        "password": password,
        "enable": True,
        "host_key_checking": False,
        "intended": intended,
        "owned_patterns": owned,
        "backup_dir": extra.pop("backup_dir", None),
        "backup_name": "lab-sw",
        "_ansible_diff": True,
        **extra,
    }
    out = io.StringIO()
    with patch_module_args(args), contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        module.main()
    return json.loads(out.getvalue())


class Switch:
    """A simulated switch in this process, and the module run against it over SSH."""

    def __init__(self, tmp_path: Path, platform: str):
        self.platform = platform
        self.lab = SimLab(tmp_path, platform, password="lab-switch-pw", hostname="lab-sw")
        self.backups = tmp_path / "backups"

    def intended(self, **settings: Any) -> tuple[str, list[str]]:
        """The role's template of this platform with the lab's settings and `settings`."""
        if self.platform == "os10":
            breakouts = settings.pop("switches_os10_breakouts", PAPER_BREAKOUTS)
            # the role owns every port the lab inventory splits, whatever the map
            owned = owned_patterns(PAPER_BREAKOUTS)
            return render("dell_os10", switches_os10_breakouts=breakouts, **settings), owned
        return render("arista_eos", **{**LAB_EOS, **settings}), []

    def run(self, check_mode: bool = False, timeout: int = 20, **settings: Any) -> dict:
        transaction = settings.pop("switches_os10_transaction", "auto")
        intended, owned = self.intended(**settings)
        return push(
            PLATFORM[self.platform], self.lab.port, "lab-switch-pw", intended, owned,
            backup_dir=str(self.backups), timeout=timeout, transaction=transaction,
            _ansible_check_mode=check_mode,
        )  # fmt: skip

    def show(self, which: dict[str, str]) -> str:
        with self.lab.connect() as conn:
            conn.enable()
            return conn.send_command(which[self.platform])

    def running(self) -> str:
        """The running configuration without its header (a timestamp on OS10)."""
        return self.show(RUNNING).split("\n", 2)[2]

    def faults(self, faults: dict) -> None:
        self.lab.faults.write_text(json.dumps(faults))


@pytest.fixture(scope="module")
def converged_states(tmp_path_factory) -> dict[str, Path]:
    """Each platform's state file after the lab inventory's settings were pushed to a
    factory switch, made once (the first push, saved, as the lab's converge does)."""
    states = {}
    for platform in PLATFORM:
        switch = Switch(tmp_path_factory.mktemp(f"converge-{platform}"), platform)
        try:
            first = switch.run()
            assert first["changed"] is True and first["saved"] is True, first
        finally:
            switch.lab.stop()
        states[platform] = switch.lab.tmp_path / "state.json"
    return states


def _converged(tmp_path: Path, platform: str, states: dict[str, Path]) -> Switch:
    """A switch started from a copy of the converged state, as a restarted switch would."""
    shutil.copy(states[platform], tmp_path / "state.json")
    return Switch(tmp_path, platform)


@pytest.fixture(params=sorted(PLATFORM))
def converged(request, tmp_path, converged_states) -> Switch:
    """A switch as the lab's converge leaves it: the lab inventory's settings pushed."""
    switch = _converged(tmp_path, request.param, converged_states)
    yield switch
    switch.lab.stop()


@pytest.fixture
def s5232(tmp_path, converged_states) -> Switch:
    switch = _converged(tmp_path, "os10", converged_states)
    yield switch
    switch.lab.stop()


def test_a_second_run_over_ssh_sends_nothing(converged):
    again = converged.run()
    assert again["changed"] is False and again["commands"] == [], again


def test_check_diff_shows_a_breakout_change_and_touches_nothing(s5232):
    before = s5232.running()
    result = s5232.run(check_mode=True, switches_os10_breakouts=SPLIT_24)
    assert result["changed"] is True
    diff = result["diff"]
    assert "interface breakout 1/1/24 map 40g-1x" in diff["before"]
    assert "interface breakout 1/1/24 map 40g-1x" not in diff["after"]
    assert "interface breakout 1/1/24 map 10g-4x" in diff["after"]
    assert "interface ethernet1/1/24:4" in diff["after"]
    assert s5232.running() == before


def test_breakout_change_is_applied_saved_and_reverted(s5232):
    result = s5232.run(switches_os10_breakouts=SPLIT_24)
    assert result["changed"] is True and result["saved"] is True, result
    for config in (s5232.running(), s5232.show(STARTUP)):
        assert "interface breakout 1/1/24 map 10g-4x" in config
        assert all(f"interface ethernet1/1/24:{n}\n no shutdown" in config for n in range(1, 5))
    restored = s5232.run()
    assert restored["changed"] is True and restored["saved"] is True, restored
    assert "interface breakout 1/1/24 map 40g-1x" in s5232.running()
    assert "interface breakout 1/1/24 map 40g-1x" in s5232.show(STARTUP)


# a change on each switch that a dropped session interrupts
DROPPED = {"os10": {"switches_os10_breakouts": SPLIT_24}, "eos": EOS_ROUTES_AND_RSTP}
# a change on each switch, and one of its commands the switch answers slowly
SLOW = {
    "os10": ({"switches_os10_breakouts": SPLIT_24}, "interface ethernet1/1/24:3"),
    "eos": ({"switches_eos_spanning_tree_mode": "rstp"}, "spanning-tree mode rstp"),
}


def test_a_dropped_session_fails_with_what_was_sent_and_the_next_run_converges(converged):
    change = DROPPED[converged.platform]
    converged.faults({"drop_after_config_commands": 2})
    failed = converged.run(timeout=8, switches_os10_transaction="never", **change)
    converged.faults({})
    assert failed.get("failed") is True, failed
    assert failed["msg"].startswith("lab-sw: the session failed at"), failed["msg"]
    assert failed["commands_sent"], failed
    assert Path(failed["backup_path"]).parent == converged.backups
    assert Path(failed["backup_path"]).name.startswith("lab-sw-")
    # the inventory as it was: the next run puts the switch back, then has nothing to do
    converged_again = converged.run()
    assert converged_again.get("failed") is not True, converged_again
    again = converged.run()
    assert again["changed"] is False and again["commands"] == [], again


SLOW_SECONDS = 6
TIMEOUT = 3


def test_replies_slower_than_the_timeout_commit_nothing_and_the_next_run_converges(converged):
    change, slow = SLOW[converged.platform]
    before = converged.running()
    converged.faults({"slow_commands": [f"^{re.escape(slow)}$"], "slow_seconds": SLOW_SECONDS})
    failed = converged.run(timeout=TIMEOUT, **change)
    converged.faults({})
    assert failed.get("failed") is True, failed
    assert f"lab-sw: the session failed at '{slow}'" in failed["msg"], failed["msg"]
    assert Path(failed["backup_path"]).parent == converged.backups
    time.sleep(SLOW_SECONDS + 1)  # the simulator finishes the abandoned session's reply
    # nothing half-done reached the running configuration (transaction, session)
    assert converged.running() == before
    applied = converged.run(**change)
    assert applied["changed"] is True and applied["saved"] is True, applied
    restored = converged.run()
    assert restored["changed"] is True, restored
    assert converged.running() == before
