"""The switch_config module, its platform table and hier_config drivers, against the
lab's device models.

A thin stand-in for a netmiko connection sends every command to the simulators' device
models (lab/simulators/switch_sim: OS10Session, EOSSession) and checks each reply with
the module's error pattern, as netmiko does. A command the device model refuses is
refused here too, and after a push the device's own running configuration must need no
further remediation. The intended configurations are rendered from the role's own
templates with its own filters.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

import jinja2
import pytest
import yaml
from ansible.module_utils.parsing.convert_bool import boolean
from netmiko.exceptions import ConfigInvalidException
from throwaway_tls import self_signed

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "module_utils"))
sys.path.insert(0, str(ROOT / "lab" / "simulators"))
import ansible.module_utils  # noqa: E402
import switch_config as lib  # noqa: E402
from ansible.module_utils.testing import patch_module_args  # noqa: E402
from switch_sim import cumulus, cumulus_nvue, eos, mlnxos, mlnxos_model, os10, os10_model  # noqa: E402
from switch_sim.cumulus_nvue_api import nvue_api_handler  # noqa: E402
from switch_sim.eapi import eapi_handler  # noqa: E402
from switch_sim.https import APIServer  # noqa: E402
from switch_sim.state import SwitchState  # noqa: E402

# The module imports its shared code as ansible.module_utils.switch_config.
ansible.module_utils.__path__.append(str(ROOT / "module_utils"))
_SPEC = importlib.util.spec_from_file_location(
    "switch_config_module", ROOT / "library" / "switch_config.py"
)
module = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(module)
module_lib = sys.modules["ansible.module_utils.switch_config"]

_FILTERS_SPEC = importlib.util.spec_from_file_location(
    "switch_ports", ROOT / "filter_plugins" / "switches.py"
)
switch_ports = importlib.util.module_from_spec(_FILTERS_SPEC)
_FILTERS_SPEC.loader.exec_module(switch_ports)

ROLE = ROOT / "roles" / "switches"
DEVICE_MODELS = {
    "dell_os10": (os10.OS10Session, os10_model.factory),
    "arista_eos": (eos.EOSSession, eos.factory),
    "mellanox_mlnxos": (mlnxos.MLNXOSSession, mlnxos_model.factory),
    "cumulus_linux": (cumulus.CumulusSession, cumulus.factory),
}
MODEL_OF = {
    "dell_os10": "S5232F-ON",
    "arista_eos": "7060CX2-32S",
    "mellanox_mlnxos": "QM8700",
    "cumulus_linux": "SN3700",
}
PAPER_BREAKOUTS = [{"ports": "1/1/21-32", "mode": "40g-1x"}]
SPLIT_24 = [
    {"ports": "1/1/21-23", "mode": "40g-1x"},
    {"ports": "1/1/24", "mode": "10g-4x"},
    {"ports": "1/1/25-32", "mode": "40g-1x"},
]
LAB_EOS = yaml.safe_load((ROOT / "inventories/lab/group_vars/switches/arista_eos.yml").read_text())


class DeviceConnection:
    """What the module uses of a netmiko connection, played against a device model."""

    def __init__(self, session: Any, drop_after: int | None = None):
        self.session = session
        self.drop_after = drop_after
        self.config_sent: list[str] = []
        self.log: list[str] = []

    def _run(self, command: str) -> str:
        self.log.append(command)
        return self.session.execute(command)

    def send_command(self, command: str, **_: Any) -> str:
        return self._run(command)

    def config_mode(self, config_command: str = "configure terminal") -> str:
        output = self._run(config_command)
        assert not re.search(lib.ERROR_PATTERN, output), output
        assert self.session.in_config, f"{config_command!r} did not enter config mode"
        return output

    def exit_config_mode(self) -> str:
        if self.session.platform != "mlnxos":
            return self._run("end") if self.session.in_config else ""
        output = ""  # MLNX-OS has no `end`: netmiko sends `exit` until the prompt is `#`
        while self.session.in_config:
            output += self._run("exit")
        return output

    def send_config_set(self, commands, enter_config_mode=True, exit_config_mode=True,
                        error_pattern=None, **_: Any) -> str:  # fmt: skip
        if enter_config_mode and not self.session.in_config:
            self.config_mode()
        outputs = []
        for command in commands:
            if self.drop_after is not None and len(self.config_sent) >= self.drop_after:
                raise OSError("Socket is closed")
            self.config_sent.append(command)
            output = self._run(command)
            if error_pattern and re.search(error_pattern, output):
                raise ConfigInvalidException(f"Invalid input detected at command: {command}")
            outputs.append(output)
        if exit_config_mode:
            self.exit_config_mode()
        return "\n".join(outputs)

    def save_config(self) -> str:
        if self.session.platform == "mlnxos":  # netmiko: `configuration write` in config mode
            self.config_mode()
            output = self._run("configuration write")
            return output + self.exit_config_mode()
        command = {
            "os10": "copy running-configuration startup-configuration",
            "eos": "copy running-config startup-config",
        }[self.session.platform]
        return self._run(command)

    def disconnect(self) -> None:
        pass


class Device:
    """A device model with its state file, and the module run against it."""

    def __init__(self, tmp_path: Path, platform: str):
        session_cls, factory = DEVICE_MODELS[platform]
        self.platform = platform
        self.tmp_path = tmp_path
        self.state = SwitchState(tmp_path / f"{platform}.json", factory("lab-sw"))
        self.session_cls = session_cls
        self.connections: list[DeviceConnection] = []
        self.drop_after: int | None = None

    def connect(self, **kwargs: Any) -> DeviceConnection:
        assert kwargs["device_type"] == lib.PLATFORMS[self.platform].device_type
        conn = DeviceConnection(self.session_cls(self.state), self.drop_after)
        self.connections.append(conn)
        return conn

    @property
    def dialect(self) -> str | None:
        """The dialect the module finds on this device (None: a platform with one CLI)."""
        detect = lib.PLATFORMS[self.platform].detect
        return detect(DeviceConnection(self.session_cls(self.state)))[0] if detect else None

    def running(self) -> str:
        entry = lib.get_platform(self.platform, self.dialect)
        return self.session_cls(self.state).execute(entry.show_running)


def render(platform: str, dialect: str | None = None, **role_vars: Any) -> str:
    """The role's template of `platform` (in `dialect`, where the platform has several), with
    its defaults and filters, as the role renders it."""
    defaults = yaml.safe_load((ROLE / "defaults" / "main.yml").read_text())
    values = {k: v for k, v in defaults.items() if not (isinstance(v, str) and "{{" in v)}
    values.update(switches_platform=platform, switches_model=MODEL_OF[platform], **role_vars)
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(ROLE / "templates"),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
    )
    env.filters.update(switch_ports.FilterModule().filters())
    env.filters["bool"] = boolean  # Ansible's `| bool`
    return env.get_template(lib.get_platform(platform, dialect).template).render(values)


def owned_patterns(breakouts) -> list[str]:
    ports = switch_ports.switch_ports([entry["ports"] for entry in breakouts])
    return switch_ports.os10_owned_breakout_patterns(ports)


def fake_sessions(monkeypatch, device: Device) -> None:
    """The modules' sessions opened on `device` (connect() builds them with session_class,
    in the copy of switch_config that the modules import)."""
    monkeypatch.setattr(module_lib, "session_class", lambda platform: device.connect)


def run_module(monkeypatch, capsys, device: Device, intended: str, owned=(), check_mode=False,
               **extra: Any) -> dict[str, Any]:  # fmt: skip
    args = {
        "platform": device.platform,
        "host": "127.0.0.1",
        "port": 22311,
        "username": "admin",
        "password": "s3cret-pw",
        "intended": intended,
        "owned_patterns": list(owned),
        "backup_dir": str(device.tmp_path / "backups"),
        "backup_name": "lab-sw",
        "_ansible_check_mode": check_mode,
        "_ansible_diff": True,
        **extra,
    }
    fake_sessions(monkeypatch, device)
    with patch_module_args(args), pytest.raises(SystemExit):
        module.main()
    return json.loads(capsys.readouterr().out)


def remaining(device: Device, intended: str, owned=()) -> list[str]:
    return lib.remediation(device.platform, device.running(), intended, owned, device.dialect)


@pytest.fixture
def s5232(tmp_path):
    return Device(tmp_path, "dell_os10")


@pytest.fixture
def s5232_paper(monkeypatch, capsys, s5232):
    """An S5232 already carrying the DSS 8440 paper's breakouts."""
    result = run_module(
        monkeypatch,
        capsys,
        s5232,
        render("dell_os10", switches_os10_breakouts=PAPER_BREAKOUTS),
        owned_patterns(PAPER_BREAKOUTS),
    )
    assert result["changed"] is True, result
    return s5232


@pytest.fixture
def s7060(tmp_path):
    return Device(tmp_path, "arista_eos")


# ---- the platform table --------------------------------------------------------------


def test_module_choices_and_role_choices_are_the_tables_keys():
    specs = yaml.safe_load((ROLE / "meta" / "argument_specs.yml").read_text())["argument_specs"]
    options = specs["main"]["options"]
    assert options["switches_platform"]["choices"] == list(lib.PLATFORMS)
    assert options["switches_model"]["choices"] == list(lib.MODELS)
    assert "choices: [dell_os10" not in module.DOCUMENTATION  # read from the table


def test_every_platform_has_its_template_and_every_model_a_known_platform():
    for name, entry in lib.PLATFORMS.items():
        assert (ROLE / "templates" / entry.template).is_file(), name
        for dialect in entry.dialects.values():
            assert (ROLE / "templates" / dialect.template).is_file(), name
        assert entry.variables.startswith("switches_"), name
    assert {entry.platform for entry in lib.MODELS.values()} <= set(lib.PLATFORMS)


def test_unknown_platform_is_refused_naming_the_supported_ones():
    with pytest.raises(ValueError, match="supported: dell_os10, arista_eos"):
        lib.driver_for("cumulus")


# ---- remediation (pure) ----------------------------------------------------------------

OS10_RUNNING = """! Version 10.5.1.3
!
interface breakout 1/1/1 map 100g-1x
interface breakout 1/1/21 map 40g-1x
interface breakout 1/1/24 map 40g-1x
!
interface ethernet1/1/1
 no shutdown
!
interface ethernet1/1/21:1
 no shutdown
!
interface ethernet1/1/24:1
 no shutdown
"""
OWNED_21_24 = [r"^interface breakout 1/1/2[14] ", r"^interface ethernet1/1/2[14]:\d+$"]

# The DSS 8440 paper's S5232 listing ("DELL EMC NETWORKING S5232 SWITCH", seed 000), in
# order, without the `!` separators and indentation.
S5232_SEEDS = (
    ["ip vrf default"]
    + [f"interface breakout 1/1/{n} map 40g-1x" for n in range(21, 33)]
    + ["interface vlan1", "no shutdown"]
    + [
        line
        for n in range(21, 33)
        for line in (f"interface ethernet1/1/{n}:1", "no shutdown", "switchport access vlan 1")
    ]
)
# What the seeds' breakouts cost from a factory S5232F-ON: one map per port (a native port
# takes a new map at once), then each new sub-port's settings.
FACTORY_TO_SEEDS = [f"interface breakout 1/1/{n} map 40g-1x" for n in range(21, 33)] + [
    line
    for n in range(21, 33)
    for line in (f"interface ethernet1/1/{n}:1", "no shutdown", "switchport access vlan 1", "exit")
]


def _dss8440_breakouts() -> list[dict[str, str]]:
    hosts = yaml.safe_load((ROOT / "inventories/dss8440/hosts.yml").read_text())
    return hosts["all"]["children"]["switches"]["hosts"]["s5232-1"]["switches_os10_breakouts"]


def _seeds_order(config: str) -> list[str]:
    """The config's blocks that the seeds' listing names, in the config's order, flat."""
    heads = {line for line in S5232_SEEDS if line.startswith(("interface", "ip vrf"))}
    return [
        line.strip()
        for block in lib._top_level_blocks(config)
        if block[0] in heads
        for line in block
    ]


def test_dropped_breakout_of_an_owned_port_is_removed_with_its_sub_ports():
    intended = "interface breakout 1/1/21 map 40g-1x\n!\ninterface ethernet1/1/21:1\n no shutdown\n"
    commands = lib.remediation("dell_os10", OS10_RUNNING, intended, OWNED_21_24)
    # the sub-port goes with the un-split; OS10 cannot delete a physical port itself
    assert commands == ["no interface breakout 1/1/24"]


def test_factory_ports_take_their_new_map_without_an_unsplit():
    factory = os10_model.render(os10_model.factory("lab-sw"))
    intended = render("dell_os10", switches_os10_breakouts=_dss8440_breakouts())
    commands = lib.remediation("dell_os10", factory, intended, owned_patterns(PAPER_BREAKOUTS))
    assert commands == FACTORY_TO_SEEDS
    assert not [c for c in commands if c.startswith("no interface")]


def test_a_port_already_at_the_wanted_map_or_native_and_unowned_is_left_alone():
    running = OS10_RUNNING.replace("1/1/24 map 40g-1x", "1/1/24 map 100g-1x").replace(
        "interface ethernet1/1/24:1", "interface ethernet1/1/24"
    )
    intended = "interface breakout 1/1/21 map 40g-1x\n!\ninterface ethernet1/1/21:1\n no shutdown\n"
    # 1/1/24 owned but native: nothing to undo; 1/1/1 native and not owned: untouched
    assert lib.remediation("dell_os10", running, intended, OWNED_21_24) == []


def test_a_split_port_goes_back_to_its_native_map_with_one_unsplit():
    intended = (
        "interface breakout 1/1/21 map 40g-1x\ninterface breakout 1/1/24 map 100g-1x\n!\n"
        "interface ethernet1/1/21:1\n no shutdown\n!\ninterface ethernet1/1/24\n no shutdown\n"
    )
    commands = lib.remediation("dell_os10", OS10_RUNNING, intended, OWNED_21_24)
    assert commands == [
        "no interface breakout 1/1/24",
        "interface ethernet1/1/24",
        "no shutdown",
        "exit",
    ]


def test_a_split_port_changes_map_only_after_an_unsplit_and_its_sub_ports_are_resent():
    intended = (
        "interface breakout 1/1/21 map 40g-1x\ninterface breakout 1/1/24 map 10g-4x\n!\n"
        "interface ethernet1/1/21:1\n no shutdown\n!\n"
        + "".join(f"interface ethernet1/1/24:{n}\n no shutdown\n!\n" for n in range(1, 5))
    )
    commands = lib.remediation("dell_os10", OS10_RUNNING, intended, OWNED_21_24)
    assert commands[:2] == ["no interface breakout 1/1/24", "interface breakout 1/1/24 map 10g-4x"]
    # 24:1 existed before, but the re-map recreates it: its settings are sent again
    assert commands[2:5] == ["interface ethernet1/1/24:1", "no shutdown", "exit"]
    assert len(commands) == 2 + 4 * 3


def test_eos_adds_the_papers_port_channel_members():
    running = "! Command: show running-config\n!\nspanning-tree mode mstp\n!\nend\n"
    intended = (
        "spanning-tree mode mstp\n!\ninterface Port-Channel10\n!\n"
        "interface Ethernet31/1\n   channel-group 10 mode active\n!\nip routing\n"
    )
    assert lib.remediation("arista_eos", running, intended) == [
        "interface Port-Channel10",
        "interface Ethernet31/1",
        "channel-group 10 mode active",
        "exit",
        "ip routing",
    ]


# ---- the module against the OS10 device model ------------------------------------------


def test_factory_s5232_gets_the_papers_breakouts_in_one_committed_transaction(
    monkeypatch, capsys, s5232
):
    factory_running = s5232.running()
    intended = render("dell_os10", switches_os10_breakouts=PAPER_BREAKOUTS)
    result = run_module(monkeypatch, capsys, s5232, intended, owned_patterns(PAPER_BREAKOUTS))
    assert result["changed"] is True and result["saved"] is True
    log = s5232.connections[0].log
    assert log[1] == "start transaction" and "commit" in log
    config = s5232.running()
    assert all(f"interface breakout 1/1/{n} map 40g-1x" in config for n in range(21, 33))
    assert "interface ethernet1/1/21:1\n no shutdown\n switchport access vlan 1" in config
    assert remaining(s5232, intended, owned_patterns(PAPER_BREAKOUTS)) == []
    assert s5232.state.startup == s5232.state.running  # saved after the verified change
    assert Path(result["backup_path"]).read_text() == factory_running
    assert "s3cret-pw" not in json.dumps(result)


def test_factory_s5232_reaches_the_seeds_configuration_and_a_second_run_computes_nothing(
    monkeypatch, capsys, s5232
):
    breakouts = _dss8440_breakouts()
    owned = owned_patterns(breakouts)
    intended = render("dell_os10", switches_os10_breakouts=breakouts)
    factory = s5232.running()
    assert "interface breakout 1/1/21 map 100g-1x" in factory  # real-shaped start
    checked = run_module(monkeypatch, capsys, s5232, intended, owned, check_mode=True)
    assert checked["changed"] is True and checked["commands"] == FACTORY_TO_SEEDS
    assert "interface breakout 1/1/21 map 100g-1x" in checked["diff"]["before"]
    assert "interface breakout 1/1/21 map 40g-1x" in checked["diff"]["after"]
    assert "interface ethernet1/1/21:1" in checked["diff"]["after"]
    assert s5232.running() == factory and s5232.connections[-1].config_sent == []

    result = run_module(monkeypatch, capsys, s5232, intended, owned)
    assert result["changed"] is True and result["saved"] is True, result
    assert result["commands"] == FACTORY_TO_SEEDS  # one pass: nothing left after it
    config = s5232.running()
    assert _seeds_order(config) == S5232_SEEDS
    assert all(f"interface breakout 1/1/{n} map 100g-1x" in config for n in range(1, 21))
    assert "interface ethernet1/1/20\n" in config  # ports the seeds do not name: untouched

    again = run_module(monkeypatch, capsys, s5232, intended, owned)
    assert again["changed"] is False and again["commands"] == []
    assert s5232.connections[-1].config_sent == []


def test_a_push_through_error_lines_with_escape_sequences_still_fails(monkeypatch, capsys, s5232):
    """Real OS10 may open an error line with BEL / escape sequences: still an error."""
    session_cls = s5232.session_cls

    class ColouredErrors(session_cls):  # type: ignore[misc,valid-type]
        def execute(self, line: str) -> str:
            output = super().execute(line)
            return f"\x1b[1;31m\x07{output}\x1b[0m" if output.startswith("%") else output

    s5232.session_cls = ColouredErrors
    intended = render("dell_os10", switches_os10_breakouts=PAPER_BREAKOUTS, switches_port_mtu=9300)
    result = run_module(monkeypatch, capsys, s5232, intended, owned_patterns(PAPER_BREAKOUTS))
    assert result["failed"] is True and "rejected 'mtu 9300'" in result["msg"]
    assert s5232.state.running["breakouts"]["1/1/21"] == "100g-1x"  # discarded


def test_second_run_sends_nothing(monkeypatch, capsys, s5232_paper):
    intended = render("dell_os10", switches_os10_breakouts=PAPER_BREAKOUTS)
    result = run_module(monkeypatch, capsys, s5232_paper, intended, owned_patterns(PAPER_BREAKOUTS))
    assert result["changed"] is False and result["commands"] == []
    assert s5232_paper.connections[-1].config_sent == []


def test_breakout_change_unsplits_then_remaps_on_the_device(monkeypatch, capsys, s5232_paper):
    intended = render("dell_os10", switches_os10_breakouts=SPLIT_24)
    result = run_module(monkeypatch, capsys, s5232_paper, intended, owned_patterns(SPLIT_24))
    assert result["changed"] is True, result
    assert result["commands"][:2] == [
        "no interface breakout 1/1/24",
        "interface breakout 1/1/24 map 10g-4x",
    ]
    config = s5232_paper.running()
    assert all(f"interface ethernet1/1/24:{n}\n no shutdown" in config for n in range(1, 5))
    assert remaining(s5232_paper, intended, owned_patterns(SPLIT_24)) == []


def test_dropped_breakout_is_removed_on_the_device(monkeypatch, capsys, s5232_paper):
    kept = [{"ports": "1/1/21-23", "mode": "40g-1x"}, {"ports": "1/1/25-32", "mode": "40g-1x"}]
    intended = render("dell_os10", switches_os10_breakouts=kept)
    # 1/1/24 stays owned (switches_os10_owned_ports), so its breakout is removed
    result = run_module(monkeypatch, capsys, s5232_paper, intended, owned_patterns(PAPER_BREAKOUTS))
    assert result["commands"] == ["no interface breakout 1/1/24"]
    config = s5232_paper.running()
    # back at its native map, under its own name
    assert "interface breakout 1/1/24 map 100g-1x" in config
    assert "interface ethernet1/1/24\n" in config and "ethernet1/1/24:1" not in config
    assert remaining(s5232_paper, intended, owned_patterns(PAPER_BREAKOUTS)) == []
    again = run_module(monkeypatch, capsys, s5232_paper, intended, owned_patterns(PAPER_BREAKOUTS))
    assert again["changed"] is False and again["commands"] == []


def test_check_mode_returns_the_remediation_and_touches_nothing(monkeypatch, capsys, s5232_paper):
    before = s5232_paper.state.running
    intended = render("dell_os10", switches_os10_breakouts=SPLIT_24)
    result = run_module(
        monkeypatch, capsys, s5232_paper, intended, owned_patterns(SPLIT_24), check_mode=True
    )
    assert result["changed"] is True
    assert result["commands"][0] == "no interface breakout 1/1/24"
    assert "interface breakout 1/1/24 map 40g-1x" in result["diff"]["before"]
    assert "interface breakout 1/1/24 map 10g-4x" in result["diff"]["after"]
    assert s5232_paper.connections[-1].config_sent == []
    assert s5232_paper.state.running == before


def test_a_command_the_device_refuses_fails_and_the_transaction_is_discarded(
    monkeypatch, capsys, s5232_paper
):
    before = s5232_paper.running()
    # OS10 refuses an MTU above 9216 (the device model's `% Error: Invalid MTU value`)
    intended = render("dell_os10", switches_os10_breakouts=PAPER_BREAKOUTS, switches_port_mtu=9300)
    result = run_module(monkeypatch, capsys, s5232_paper, intended, owned_patterns(PAPER_BREAKOUTS))
    assert result["failed"] is True
    assert "rejected 'mtu 9300'" in result["msg"]
    assert "the transaction was discarded, nothing was committed" in result["msg"]
    assert result["commands_sent"] == []
    assert "discard" in s5232_paper.connections[-1].log
    assert s5232_paper.running() == before
    assert Path(result["backup_path"]).exists()


def test_jumbo_mtu_in_range_is_accepted_and_converges(monkeypatch, capsys, s5232_paper):
    intended = render("dell_os10", switches_os10_breakouts=PAPER_BREAKOUTS, switches_port_mtu=9216)
    result = run_module(monkeypatch, capsys, s5232_paper, intended, owned_patterns(PAPER_BREAKOUTS))
    assert result["changed"] is True, result
    assert (
        "interface ethernet1/1/21:1\n no shutdown\n switchport access vlan 1\n mtu 9216"
        in s5232_paper.running()
    )
    assert remaining(s5232_paper, intended, owned_patterns(PAPER_BREAKOUTS)) == []


def test_dropped_session_reports_what_was_applied_and_the_next_run_converges(
    monkeypatch, capsys, s5232_paper
):
    before = s5232_paper.running()
    intended = render("dell_os10", switches_os10_breakouts=SPLIT_24)
    s5232_paper.drop_after = 1
    result = run_module(
        monkeypatch, capsys, s5232_paper, intended, owned_patterns(SPLIT_24), transaction="never"
    )
    assert result["failed"] is True
    assert result["commands_sent"] == ["no interface breakout 1/1/24"]
    assert (
        "the session failed at 'interface breakout 1/1/24 map 10g-4x': Socket is closed"
        in result["msg"]
    )
    assert Path(result["backup_path"]).read_text() == before
    # without a transaction the applied line took effect: the device is half-way
    assert "interface breakout 1/1/24 map 100g-1x" in s5232_paper.running()
    s5232_paper.drop_after = None
    result = run_module(monkeypatch, capsys, s5232_paper, intended, owned_patterns(SPLIT_24))
    assert result["changed"] is True, result
    assert remaining(s5232_paper, intended, owned_patterns(SPLIT_24)) == []


# ---- the module against the EOS device model ---------------------------------------------


def _lab_eos_intended(**overrides: Any) -> str:
    return render("arista_eos", **{**LAB_EOS, **overrides})


def test_factory_7060_gets_the_lab_settings_through_a_committed_session(monkeypatch, capsys, s7060):
    intended = _lab_eos_intended()
    result = run_module(monkeypatch, capsys, s7060, intended)
    assert result["changed"] is True and result["saved"] is True, result
    log = s7060.connections[0].log
    opened = next(c for c in log if c.startswith("configure"))
    assert opened.startswith("configure session dlcluster-")
    assert log[log.index("show session-config diffs") + 1] == "commit"
    assert result["session_diff"].startswith("--- system:/running-config")
    config = s7060.running()
    member = "interface Ethernet31/1\n   speed forced 100gfull\n   channel-group 10 mode active"
    assert member in config
    assert "ip route 0.0.0.0/0 10.201.0.1" in config
    assert remaining(s7060, intended) == []
    assert s7060.state.startup == s7060.state.running
    again = run_module(monkeypatch, capsys, s7060, intended)
    assert again["changed"] is False and again["commands"] == []


def test_eos_command_the_device_refuses_aborts_the_session(monkeypatch, capsys, s7060):
    before = s7060.running()
    # the 7060's simulator knows no `spanning-tree mode fast`: `% Invalid input`
    intended = _lab_eos_intended(switches_eos_spanning_tree_mode="fast")
    result = run_module(monkeypatch, capsys, s7060, intended)
    assert result["failed"] is True
    assert "rejected 'spanning-tree mode fast'" in result["msg"]
    assert "was aborted" in result["msg"]
    assert s7060.running() == before


def test_eos_plain_speed_syntax_and_port_mtu_converge(monkeypatch, capsys, s7060):
    intended = _lab_eos_intended(switches_eos_speed_syntax="plain", switches_port_mtu=9214)
    result = run_module(monkeypatch, capsys, s7060, intended)
    assert result["changed"] is True, result
    assert "interface Ethernet1/1\n   description lab-compute-1\n   mtu 9214\n   speed 100g" in (
        s7060.running()
    )
    assert remaining(s7060, intended) == []


# ---- the module over Arista eAPI (transport: api) --------------------------------------------


@pytest.fixture
def s7060_api(tmp_path):
    """A 7060 whose eAPI is served over TLS on the device model the CLI drives: (device,
    the module's API options)."""
    yield from _served(Device(tmp_path, "arista_eos"), eapi_handler, tmp_path)


def _served(device: Device, handler_of: Any, tmp_path: Path) -> Any:
    """Serve the device's API (handler_of: the simulator's handler factory) over TLS with a
    throwaway certificate while a test runs; yields (device, the module's API options)."""
    certfile, keyfile = self_signed(tmp_path)
    handler = handler_of(device.state, device.session_cls, {"admin": "s3cret-pw"})
    server = APIServer(handler, "127.0.0.1", 0, str(certfile), str(keyfile))
    server.start()
    try:
        yield device, {"transport": "api", "api_port": server.port, "ca_path": str(certfile)}
    finally:
        server.stop()


def test_eos_over_eapi_pushes_what_the_cli_pushes_through_a_committed_session(
    monkeypatch, capsys, tmp_path, s7060_api
):
    device, api = s7060_api
    intended = _lab_eos_intended()
    result = run_module(monkeypatch, capsys, device, intended, **api)
    assert result["changed"] is True and result["saved"] is True, result
    assert device.connections == [] and result["transport"] == "api"  # no SSH session
    assert result["session_diff"].startswith("--- system:/running-config")
    assert remaining(device, intended) == []
    assert device.state.startup == device.state.running
    sessions = device.state.volatile["eos_sessions"]
    assert [s["state"] for s in sessions.values()] == ["completed"]
    # the same commands as the CLI path sends a factory switch
    (tmp_path / "cli").mkdir()
    cli = Device(tmp_path / "cli", "arista_eos")
    assert run_module(monkeypatch, capsys, cli, intended)["commands"] == result["commands"]
    again = run_module(monkeypatch, capsys, device, intended, **api)
    assert again["changed"] is False and again["commands"] == [], again


def test_eos_over_eapi_a_refused_command_aborts_the_session(monkeypatch, capsys, s7060_api):
    device, api = s7060_api
    before = device.running()
    intended = _lab_eos_intended(switches_eos_spanning_tree_mode="fast")
    result = run_module(monkeypatch, capsys, device, intended, **api)
    assert result["failed"] is True
    assert "rejected 'spanning-tree mode fast'" in result["msg"], result["msg"]
    assert "was aborted" in result["msg"]
    assert device.running() == before
    assert all(s["state"] != "pending" for s in device.state.volatile["eos_sessions"].values())


def test_eos_over_eapi_check_mode_changes_nothing(monkeypatch, capsys, s7060_api):
    device, api = s7060_api
    before = device.running()
    result = run_module(monkeypatch, capsys, device, _lab_eos_intended(), check_mode=True, **api)
    assert result["changed"] is True and result["commands"], result
    assert device.running() == before
    assert not device.state.volatile.get("eos_sessions")


def test_eapi_refuses_a_wrong_password_without_echoing_it(monkeypatch, capsys, s7060_api):
    device, api = s7060_api
    result = run_module(monkeypatch, capsys, device, _lab_eos_intended(), password="wrong-pw",
                        **api)  # fmt: skip
    assert result["failed"] is True and "(HTTP 401)" in result["msg"], result
    assert "wrong-pw" not in json.dumps(result)


def test_eapi_with_a_certificate_the_control_host_does_not_trust_is_refused(
    monkeypatch, capsys, s7060_api
):
    device, api = s7060_api
    result = run_module(monkeypatch, capsys, device, _lab_eos_intended(),
                        **{**api, "ca_path": None})  # fmt: skip
    assert result["failed"] is True and "CERTIFICATE_VERIFY_FAILED" in result["msg"], result


def test_a_platform_without_an_api_transport_is_refused_by_name(monkeypatch, capsys, s5232):
    result = run_module(monkeypatch, capsys, s5232, "", transport="api")
    assert result["failed"] is True
    assert "dell_os10 has no API transport here" in result["msg"], result


# ---- the module against the MLNX-OS (QM8700) device model ----------------------------------

MLNXOS_OWNED = ["^interface ib ", "^ib sm$"]  # roles/switches/vars/main.yml


@pytest.fixture
def qm8700(tmp_path):
    return Device(tmp_path, "mellanox_mlnxos")


def _fabric(**overrides: Any) -> str:
    """Two ports split for HDR100 hosts, one sub-port and one port shut, the SM on."""
    values = {
        "switches_mlnxos_breakouts": [{"ports": "1/39-40", "mode": "qsfp-split-2"}],
        "switches_mlnxos_interfaces": [
            {"name": "1/40/2", "shutdown": True},
            {"name": "1/38", "shutdown": True},
            {"name": "1/1", "speed": "hdr"},
        ],
        "switches_mlnxos_subnet_manager": True,
        **overrides,
    }
    return render("mellanox_mlnxos", **values)


def test_factory_qm8700_gets_splits_ports_and_the_subnet_manager(monkeypatch, capsys, qm8700):
    intended = _fabric()
    result = run_module(monkeypatch, capsys, qm8700, intended, MLNXOS_OWNED)
    assert result["changed"] is True and result["saved"] is True, result
    sent = result["commands"]
    # the splits go before the sub-port they make is set
    assert sent.index("interface ib 1/40 module-type qsfp-split-2 force") < sent.index(
        "interface ib 1/40/2 shutdown"
    )
    config = qm8700.running()
    assert "   interface ib 1/39 module-type qsfp-split-2 force" in config
    assert "   interface ib 1/40/2 shutdown" in config and "   ib sm" in config
    assert remaining(qm8700, intended, MLNXOS_OWNED) == []
    assert qm8700.state.startup == qm8700.state.running
    again = run_module(monkeypatch, capsys, qm8700, intended, MLNXOS_OWNED)
    assert again["changed"] is False and again["commands"] == []


def test_a_qm8700_port_description_the_inventory_does_not_give_is_removed(
    monkeypatch, capsys, qm8700
):
    """A description set outside the role (Omnia's `description port 3`, over SSH or the
    JSON API) is on a line the role owns: the role removes it the way the CLI takes it."""
    intended = _fabric()
    run_module(monkeypatch, capsys, qm8700, intended, MLNXOS_OWNED)
    session = qm8700.session_cls(qm8700.state)
    for line in ("enable", "configure terminal", "interface ib 1/3", "description port 3"):
        assert session.execute(line) == "", line
    assert "interface ib 1/3 description" in qm8700.running()
    result = run_module(monkeypatch, capsys, qm8700, intended, MLNXOS_OWNED)
    assert result["changed"] is True
    assert result["commands"] == ["interface ib 1/3 no description"]
    assert "description" not in qm8700.running()


def test_qm8700_settings_the_inventory_drops_are_undone(monkeypatch, capsys, qm8700):
    run_module(monkeypatch, capsys, qm8700, _fabric(), MLNXOS_OWNED)
    smaller = _fabric(
        switches_mlnxos_breakouts=[{"ports": "1/39", "mode": "qsfp-split-2"}],
        switches_mlnxos_interfaces=[{"name": "1/1", "speed": "hdr"}],
        switches_mlnxos_subnet_manager=False,
    )
    result = run_module(monkeypatch, capsys, qm8700, smaller, MLNXOS_OWNED)
    assert result["changed"] is True, result
    sent = result["commands"]
    # the sub-port is cleared before its port is un-split (on its first sub-port)
    assert sent.index("interface ib 1/40/2 no shutdown") < sent.index(
        "interface ib 1/40/1 module-type qsfp force"
    )
    assert {"interface ib 1/38 no shutdown", "no ib sm"} <= set(sent)
    config = qm8700.running()
    assert "1/40 module-type" not in config and "ib sm" not in config
    assert remaining(qm8700, smaller, MLNXOS_OWNED) == []


def test_qm8700_refused_command_fails_naming_it_and_what_was_applied(monkeypatch, capsys, qm8700):
    # `speed qdr2` is no speed keyword: the model answers with a `%` line
    intended = _fabric(switches_mlnxos_interfaces=[{"name": "1/2", "speed": "qdr2"}])
    result = run_module(monkeypatch, capsys, qm8700, intended, MLNXOS_OWNED)
    assert result["failed"] is True
    assert "rejected 'interface ib 1/2 speed qdr2'" in result["msg"], result["msg"]
    assert "1/39 module-type qsfp-split-2" in qm8700.running()  # applied before it, at once


# ---- the module against the Cumulus Linux 4.2.1 (NCLU) device model ------------------------

NCLU_OWNED = ["^net add (interface|bond|bridge) "]  # roles/switches/vars/main.yml


@pytest.fixture
def sn3700(tmp_path, monkeypatch):
    monkeypatch.setenv("CUMULUS_SIM_RELEASE", "4.2.1")  # the paper's release
    return Device(tmp_path, "cumulus_linux")


def _storage_fabric(dialect: str | None = None, **overrides: Any) -> str:
    """The paper's storage switch: DGX A100 ports at 100G, an F800 port broken out to
    25G, the storage bond, the bridge with the storage VLAN, MTU 9216."""
    values = {
        "switches_cumulus_breakouts": [{"ports": "swp31", "mode": "4x25G"}],
        "switches_cumulus_interfaces": [
            {"name": "swp1", "speed": 100000, "mtu": 9216, "alias": "dgx-a100-1"},
            {"name": "swp31s0", "mtu": 9216, "alias": "isilon-1", "access_vlan": 10},
        ],
        "switches_cumulus_bonds": [{"name": "bond1", "slaves": ["swp5", "swp6"]}],
        "switches_cumulus_bridge_ports": ["bond1", "swp1", "swp31s0"],
        "switches_cumulus_bridge_vids": [10],
        **overrides,
    }
    return render("cumulus_linux", dialect, **values)


def test_factory_sn3700_gets_the_storage_fabric_in_one_commit(monkeypatch, capsys, sn3700):
    intended = _storage_fabric()
    result = run_module(monkeypatch, capsys, sn3700, intended, NCLU_OWNED, enable=True)
    assert result["changed"] is True and result["saved"] is True, result
    log = sn3700.connections[0].log
    assert log[-3:] == ["net pending", "net commit", "net show configuration commands"]
    assert "+    mtu 9216" in result["session_diff"]
    config = sn3700.running()
    assert "net add bond bond1 bond slaves swp5-6" in config
    assert "net add interface swp31 breakout 4x25G" in config
    assert remaining(sn3700, intended, NCLU_OWNED) == []
    assert sn3700.state.startup == sn3700.state.running  # a commit writes the files
    again = run_module(monkeypatch, capsys, sn3700, intended, NCLU_OWNED)
    assert again["changed"] is False and again["commands"] == []


def test_sn3700_settings_the_inventory_drops_are_deleted(monkeypatch, capsys, sn3700):
    run_module(monkeypatch, capsys, sn3700, _storage_fabric(), NCLU_OWNED)
    smaller = _storage_fabric(
        switches_cumulus_interfaces=[{"name": "swp1", "speed": 100000, "mtu": 9216}],
        switches_cumulus_bonds=[],
        switches_cumulus_bridge_ports=["swp1"],
    )
    result = run_module(monkeypatch, capsys, sn3700, smaller, NCLU_OWNED)
    assert result["changed"] is True, result
    assert "net del interface swp1 alias dgx-a100-1" in result["commands"]
    assert "net del bond bond1 bond slaves swp5,swp6" in result["commands"]
    assert remaining(sn3700, smaller, NCLU_OWNED) == []
    assert "bond1" not in sn3700.running()


def test_sn3700_refused_line_aborts_everything_staged(monkeypatch, capsys, sn3700):
    before = sn3700.running()
    # 9300 is above NCLU's MTU range <552-9216>: the switch answers ERROR
    intended = _storage_fabric(
        switches_cumulus_interfaces=[{"name": "swp1", "mtu": 9216}, {"name": "swp2", "mtu": 9300}]
    )
    result = run_module(monkeypatch, capsys, sn3700, intended, NCLU_OWNED)
    assert result["failed"] is True
    assert "rejected 'net add interface swp2 mtu 9300'" in result["msg"], result["msg"]
    assert "aborted, nothing was committed" in result["msg"]
    assert result["commands_sent"] == []
    assert sn3700.running() == before
    assert "net abort" in sn3700.connections[0].log


def test_a_4x_switch_still_gets_nclu_when_both_texts_are_given(monkeypatch, capsys, sn3700):
    result = run_module(monkeypatch, capsys, sn3700, _storage_fabric(), NCLU_OWNED,
                        **_nvue_args())  # fmt: skip
    assert result["changed"] is True, result
    assert (result["dialect"], result["release"]) == ("nclu", "4.2.1")
    log = sn3700.connections[0].log
    assert log[0] == "cat /etc/lsb-release" and "net commit" in log
    assert not [line for line in log if line.startswith("nv ")]


# ---- the module against the Cumulus Linux 5.x (NVUE) device model --------------------------

VARS = yaml.safe_load((ROLE / "vars" / "main.yml").read_text())
NVUE_OWNED = VARS["_switches_dialect_owned_patterns"]["cumulus_linux"]["nvue"]
# The lab's SN3700 as its storage fabric plan gives it (inventories/lab: servers at 100G,
# the head's bond, the Isilon nodes at 40G, one storage VLAN); no breakout, so both CLIs
# leave the same device model.
LAB_CUMULUS = {
    "switches_cumulus_interfaces": [
        *({"name": f"swp{n}", "speed": 100000, "mtu": 9216, "alias": f"lab-compute-{n}",
           "access_vlan": 100} for n in (1, 2, 3)),
        *({"name": f"swp{n}", "speed": 100000, "mtu": 9216, "alias": "lab-head"} for n in (5, 6)),
        *({"name": f"swp{n}", "speed": 40000, "mtu": 9216, "alias": f"lab-isilon-{n - 20}",
           "access_vlan": 100} for n in (21, 22, 23, 24)),
    ],
    "switches_cumulus_bonds": [{"name": "bond1", "slaves": ["swp5", "swp6"]}],
    "switches_cumulus_bridge_ports": ["swp1", "swp2", "swp3", "bond1", "swp21", "swp22",
                                      "swp23", "swp24"],
    "switches_cumulus_bridge_vids": [100],
}  # fmt: skip


# `link speed 100G` is a valid value, but not on a 4x sub-port: apply refuses the revision
SUBPORT_AT_100G = [
    {"name": "swp1", "speed": 100000, "mtu": 9216, "alias": "dgx-a100-1"},
    {"name": "swp31s0", "speed": 100000, "mtu": 9216, "alias": "isilon-1", "access_vlan": 10},
]


def _nvue_args(**overrides: Any) -> dict[str, Any]:
    """The module's NVUE options as the role passes them, for the storage fabric."""
    return {
        "intended_by_dialect": {"nvue": _storage_fabric("nvue", **overrides)},
        "owned_patterns_by_dialect": {"nvue": NVUE_OWNED},
    }


# 5.10: the grammar modelled, apply also saves; 5.4: before auto-save (5.9), first with
# lane-count breakouts (`4x`, Cumulus Linux 5.10 user guide, "Switch Port Attributes")
@pytest.fixture(params=["5.10.0", "5.4.0"])
def sn3700_nvue(request, tmp_path, monkeypatch):
    monkeypatch.setenv("CUMULUS_SIM_RELEASE", request.param)
    return Device(tmp_path, "cumulus_linux")


def test_factory_sn3700_on_5x_gets_the_storage_fabric_in_one_applied_revision(
    monkeypatch, capsys, sn3700_nvue
):
    device = sn3700_nvue
    args = _nvue_args()
    result = run_module(monkeypatch, capsys, device, _storage_fabric(), NCLU_OWNED, **args)
    assert result["changed"] is True and result["saved"] is True, result
    release = device.state.running["release"]
    assert (result["dialect"], result["release"]) == ("nvue", release)
    log = device.connections[0].log
    assert log[0] == "cat /etc/lsb-release"
    assert log[-4:] == [
        "nv config diff",
        "nv config apply -y",
        "nv config show -o commands",
        "nv config save",
    ]
    assert not [line for line in log if line.startswith("net ")]
    assert "nv set interface swp31 link breakout 4x" in result["commands"]
    assert "          mtu: 9216" in result["session_diff"]  # `nv config diff`'s YAML
    config = device.running()
    assert "nv set interface bond1 bond member swp5" in config
    assert "nv set interface swp31s0-3 link speed 25G" in config
    intended = args["intended_by_dialect"]["nvue"]
    assert remaining(device, intended, NVUE_OWNED) == []
    assert device.state.startup == device.state.running  # saved, whatever the release
    again = run_module(monkeypatch, capsys, device, _storage_fabric(), NCLU_OWNED, **args)
    assert again["changed"] is False and again["commands"] == [], again


# ---- the module over NVUE's REST API (transport: api, Cumulus Linux 5.x) ------------------


@pytest.fixture
def sn3700_api(sn3700_nvue, tmp_path):
    """A 5.x SN3700 whose NVUE REST API is served over TLS on the device model the CLI
    drives: (device, the module's API options)."""
    yield from _served(sn3700_nvue, nvue_api_handler, tmp_path)


def _revision_states(device: Device) -> list[str]:
    return [r["state"] for r in device.state.volatile["nvue"]["revisions"].values()]


def test_5x_over_nvue_api_applies_confirms_and_saves_what_the_cli_would_send(
    monkeypatch, capsys, tmp_path, sn3700_api
):
    device, api = sn3700_api
    result = run_module(monkeypatch, capsys, device, _storage_fabric(), NCLU_OWNED,
                        **_nvue_args(), **api)  # fmt: skip
    assert result["changed"] is True and result["saved"] is True, result
    assert result["dialect"] == "nvue" and result["transport"] == "api"
    assert device.connections == []  # no SSH session
    assert remaining(device, _nvue_args()["intended_by_dialect"]["nvue"], NVUE_OWNED) == []
    assert device.state.startup == device.state.running
    # one revision, applied inside a confirm window and confirmed (it stays when the
    # window's time has passed)
    assert _revision_states(device) in (["applied"], ["applied_and_saved"])
    assert device.state.volatile["nvue"]["confirm"] is None
    # the CLI path sends the same lines to a factory switch
    (tmp_path / "cli").mkdir()
    cli = Device(tmp_path / "cli", "cumulus_linux")
    cli_result = run_module(monkeypatch, capsys, cli, _storage_fabric(), NCLU_OWNED, **_nvue_args())
    assert cli_result["commands"] == result["commands"]
    again = run_module(monkeypatch, capsys, device, _storage_fabric(), NCLU_OWNED,
                       **_nvue_args(), **api)  # fmt: skip
    assert again["changed"] is False and again["commands"] == [], again


def test_5x_over_nvue_api_unsets_what_the_inventory_drops(monkeypatch, capsys, sn3700_api):
    device, api = sn3700_api
    run_module(monkeypatch, capsys, device, _storage_fabric(), NCLU_OWNED, **_nvue_args(), **api)
    smaller = _nvue_args(
        switches_cumulus_interfaces=[{"name": "swp1", "speed": 100000, "mtu": 9000}],
        switches_cumulus_bonds=[],
        switches_cumulus_bridge_ports=["swp1"],
    )
    result = run_module(monkeypatch, capsys, device, _storage_fabric(), NCLU_OWNED,
                        **smaller, **api)  # fmt: skip
    assert result.get("changed") is True, result.get("msg")
    assert "nv unset interface bond1" in result["commands"]
    assert remaining(device, smaller["intended_by_dialect"]["nvue"], NVUE_OWNED) == []
    assert "bond1" not in device.running()


def test_5x_over_nvue_api_a_refused_value_applies_nothing(monkeypatch, capsys, sn3700_api):
    device, api = sn3700_api
    before = device.running()
    args = _nvue_args(
        switches_cumulus_interfaces=[{"name": "swp1", "mtu": 9216}, {"name": "swp2", "mtu": 9300}]
    )
    result = run_module(monkeypatch, capsys, device, _storage_fabric(), NCLU_OWNED, **args, **api)
    assert result["failed"] is True
    assert "interface/swp2/link" in result["msg"] and "was not applied" in result["msg"], result
    assert device.running() == before
    assert _revision_states(device) == []  # the refused revision was dropped


def test_5x_over_nvue_api_a_revision_refused_at_apply_changes_nothing(
    monkeypatch, capsys, sn3700_api
):
    device, api = sn3700_api
    run_module(monkeypatch, capsys, device, _storage_fabric(), NCLU_OWNED, **_nvue_args(), **api)
    applied = device.running()
    args = _nvue_args(switches_cumulus_interfaces=SUBPORT_AT_100G)
    result = run_module(monkeypatch, capsys, device, _storage_fabric(), NCLU_OWNED, **args, **api)
    assert result["failed"] is True and "ended invalid" in result["msg"], result
    assert device.running() == applied


def test_5x_over_nvue_api_a_change_not_read_back_is_rolled_back(monkeypatch, capsys, sn3700_api):
    """The apply waits in its confirm window; when the re-read after it fails (the switch
    no longer answers as it did), the module rolls the change back instead of confirming
    it, and the switch is as it was."""
    device, api = sn3700_api
    before = device.running()
    real = module.read_running
    reads = []

    def lost_after_the_apply(conn, entry):
        reads.append(1)
        if len(reads) > 1:
            raise RuntimeError("Connection reset by peer")
        return real(conn, entry)

    monkeypatch.setattr(module, "read_running", lost_after_the_apply)
    result = run_module(monkeypatch, capsys, device, _storage_fabric(), NCLU_OWNED,
                        **_nvue_args(), **api)  # fmt: skip
    assert result["failed"] is True and "Connection reset" in result["msg"], result
    assert device.running() == before
    assert _revision_states(device) == ["confirm_fail"]


def test_5x_over_nvue_api_an_unconfirmed_change_rolls_back_by_itself(
    monkeypatch, capsys, sn3700_api
):
    """The control host that applied a change and then lost the switch cannot confirm
    nor roll back: the switch rolls back when the window runs out."""
    device, api = sn3700_api
    before = device.running()
    monkeypatch.setitem(
        module_lib.API_TRANSPORTS,
        "cumulus_linux",
        module_lib.replace(module_lib.API_TRANSPORTS["cumulus_linux"], confirm=lambda conn: None),
    )
    monkeypatch.setattr(cumulus_nvue, "SECOND", 0.01)
    result = run_module(monkeypatch, capsys, device, _storage_fabric(), NCLU_OWNED,
                        **_nvue_args(), api_confirm=20, **api)  # fmt: skip
    assert result["changed"] is True, result
    assert device.running() != before  # applied, waiting for its confirmation
    deadline = time.monotonic() + 5
    while device.running() != before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert device.running() == before


def test_a_4x_switch_has_no_nvue_api_to_drive(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("CUMULUS_SIM_RELEASE", "4.2.1")
    device = Device(tmp_path, "cumulus_linux")
    with pytest.raises(SystemExit, match="no NVUE REST API"):
        nvue_api_handler(device.state, device.session_cls, {"admin": "s3cret-pw"})


def test_5x_check_mode_shows_the_change_and_applies_nothing(monkeypatch, capsys, sn3700_nvue):
    device = sn3700_nvue
    before = device.running()
    result = run_module(monkeypatch, capsys, device, _storage_fabric(), NCLU_OWNED,
                        check_mode=True, **_nvue_args())  # fmt: skip
    assert result["changed"] is True and result["dialect"] == "nvue"
    assert "nv set interface swp1 link mtu 9216" in result["commands"]
    assert result["diff"]["before"] == ""
    assert "nv set interface swp1 link speed 100G\n" in result["diff"]["after"]
    assert device.connections[0].config_sent == []  # not one `nv set`
    assert device.running() == before
    assert device.session_cls(device.state).execute("nv config diff") == ""  # nothing pending


def test_5x_settings_the_inventory_drops_are_unset(monkeypatch, capsys, sn3700_nvue):
    device = sn3700_nvue
    run_module(monkeypatch, capsys, device, _storage_fabric(), NCLU_OWNED, **_nvue_args())
    smaller = _nvue_args(
        switches_cumulus_interfaces=[{"name": "swp1", "speed": 100000, "mtu": 9000}],
        switches_cumulus_bonds=[],
        switches_cumulus_bridge_ports=["swp1"],
    )
    result = run_module(monkeypatch, capsys, device, _storage_fabric(), NCLU_OWNED, **smaller)
    assert result["changed"] is True, result
    commands = result["commands"]
    assert "nv unset interface swp1 description" in commands
    assert "nv unset interface bond1 bond member swp5" in commands
    # a new value replaces the old one: set, not unset first
    assert "nv set interface swp1 link mtu 9000" in commands
    assert "nv unset interface swp1 link mtu" not in commands
    # an interface no longer named goes whole, after its settings
    assert commands.index("nv unset interface bond1") > commands.index(
        "nv unset interface bond1 bond member swp5"
    )
    assert remaining(device, smaller["intended_by_dialect"]["nvue"], NVUE_OWNED) == []
    assert "bond1" not in device.running()
    assert "swp31s0 description" not in device.running()  # the breakout's sub-port stays bare
    assert "nv set interface swp31s0-3 link speed 25G" in device.running()


def test_5x_breakout_removed_goes_back_to_one_port(monkeypatch, capsys, sn3700_nvue):
    device = sn3700_nvue
    run_module(monkeypatch, capsys, device, _storage_fabric(), NCLU_OWNED, **_nvue_args())
    args = _nvue_args(
        switches_cumulus_breakouts=[],
        switches_cumulus_interfaces=[{"name": "swp1", "speed": 100000, "mtu": 9216}],
        switches_cumulus_bridge_ports=["bond1", "swp1"],
    )
    result = run_module(monkeypatch, capsys, device, _storage_fabric(), NCLU_OWNED, **args)
    commands = result["commands"]
    # the sub-ports first, then the breakout (Cumulus Linux 5.10, "Switch Port Attributes")
    assert commands.index("nv unset interface swp31s0") < commands.index(
        "nv unset interface swp31 link breakout"
    )
    assert device.state.running["breakouts"] == {}
    assert remaining(device, args["intended_by_dialect"]["nvue"], NVUE_OWNED) == []


def test_5x_refused_line_detaches_the_revision(monkeypatch, capsys, sn3700_nvue):
    device = sn3700_nvue
    before = device.running()
    # 9300 is above NVUE's `(integer:552 - 9216)`: `nv set` refuses it at once
    args = _nvue_args(
        switches_cumulus_interfaces=[{"name": "swp1", "mtu": 9216}, {"name": "swp2", "mtu": 9300}]
    )
    result = run_module(monkeypatch, capsys, device, _storage_fabric(), NCLU_OWNED, **args)
    assert result["failed"] is True and result["dialect"] == "nvue"
    assert "rejected 'nv set interface swp2 link mtu 9300'" in result["msg"], result["msg"]
    assert "the pending revision was detached, nothing was applied" in result["msg"]
    assert result["commands_sent"] == []
    log = device.connections[0].log
    assert "nv config detach" in log and "nv config apply -y" not in log
    assert device.running() == before
    assert device.session_cls(device.state).execute("nv config diff") == ""


def test_5x_revision_refused_at_apply_is_detached(monkeypatch, capsys, sn3700_nvue):
    device = sn3700_nvue
    run_module(monkeypatch, capsys, device, _storage_fabric(), NCLU_OWNED, **_nvue_args())
    applied = device.running()
    args = _nvue_args(switches_cumulus_interfaces=SUBPORT_AT_100G)
    result = run_module(monkeypatch, capsys, device, _storage_fabric(), NCLU_OWNED, **args)
    assert result["failed"] is True
    assert "nv config apply failed: Invalid config" in result["msg"], result["msg"]
    assert "Config invalid at interface.swp31s0" in result["msg"]
    assert "detached" in result["msg"] and result["commands_sent"] == []
    assert result["commands"] == ["nv set interface swp31s0 link speed 100G"]
    assert device.connections[-1].log[-1] == "nv config detach"
    assert device.running() == applied


def test_5x_switch_without_an_nvue_text_fails_naming_the_option(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("CUMULUS_SIM_RELEASE", "5.10.0")
    device = Device(tmp_path, "cumulus_linux")
    result = run_module(monkeypatch, capsys, device, _storage_fabric(), NCLU_OWNED)
    assert result["failed"] is True
    assert "the switch speaks nvue, and intended_by_dialect has no nvue text" in result["msg"]
    assert (result["dialect"], result["release"]) == ("nvue", "5.10.0")
    assert device.connections[0].config_sent == []


def test_nvue_and_nclu_texts_of_the_lab_configure_the_same_switch(monkeypatch, capsys, tmp_path):
    """The lab's Cumulus inputs, pushed as NCLU to 4.2.1 and as NVUE to 5.10.0, leave the
    same ports, bonds and bridge in the device model."""
    configs = {}
    for release, dialect in (("4.2.1", None), ("5.10.0", "nvue")):
        monkeypatch.setenv("CUMULUS_SIM_RELEASE", release)
        device = Device(tmp_path / release, "cumulus_linux")
        args = {
            "intended_by_dialect": {"nvue": render("cumulus_linux", "nvue", **LAB_CUMULUS)},
            "owned_patterns_by_dialect": {"nvue": NVUE_OWNED},
        }
        intended = render("cumulus_linux", **LAB_CUMULUS)
        result = run_module(monkeypatch, capsys, device, intended, NCLU_OWNED, **args)
        assert result["changed"] is True and result["dialect"] == (dialect or "nclu"), result
        configs[release] = device.state.running
    nclu, nvue = configs["4.2.1"], configs["5.10.0"]
    assert nvue["interfaces"] == nclu["interfaces"]
    assert nvue["bridge"] == nclu["bridge"] and nvue["breakouts"] == nclu["breakouts"] == {}


# ---- NVUE lines and remediation (pure) ------------------------------------------------------


def test_nvue_lines_spell_out_ranges_members_and_vlans():
    text = (
        "nv set interface swp1-2,31,swp31s0-1 type swp\n"
        "nv set interface bond1 bond member swp5-6\n"
        "nv set bridge domain br_default vlan 10,20-21\n"
        "nv set interface swp1 description 'dgx a100-1'\n"
        "nv set system hostname leaf01\n"
    )
    assert lib.nvue_lines(text).splitlines() == [
        # swp1's `type` line is implied by its description
        "nv set interface swp2 type swp",
        "nv set interface swp31 type swp",
        "nv set interface swp31s0 type swp",
        "nv set interface swp31s1 type swp",
        "nv set interface bond1 bond member swp5",
        "nv set interface bond1 bond member swp6",
        "nv set bridge domain br_default vlan 10",
        "nv set bridge domain br_default vlan 20",
        "nv set bridge domain br_default vlan 21",
        "nv set interface swp1 description 'dgx a100-1'",
        "nv set system hostname leaf01",
    ]


def test_nvue_lines_keep_the_setting_not_its_path():
    text = (
        "nv set interface swp1 bridge domain br_default\n"
        "nv set interface swp1 bridge domain br_default access 10\n"
        "nv set interface swp2 bridge domain br_default\n"
    )
    assert lib.nvue_lines(text) == (
        "nv set interface swp1 bridge domain br_default access 10\n"
        "nv set interface swp2 bridge domain br_default\n"
    )


def test_nvue_remediation_unsets_what_the_intended_lacks_most_specific_first():
    running = lib.nvue_lines(
        "nv set interface swp1 link mtu 9000\n"
        "nv set interface swp1 description old\n"
        "nv set interface swp7 link mtu 9216\n"
        "nv set interface swp7 description gone\n"
        "nv set interface bond1 bond member swp5\n"
        "nv set interface eth0 ip address 10.0.0.2/24\n"
        "nv set bridge domain br_default vlan 20\n"
    )
    intended = lib.nvue_lines(
        "nv set interface swp1 link mtu 9216\n"
        "nv set interface bond1 bond member swp5\n"
        "nv set bridge domain br_default vlan 10\n"
    )
    assert lib.nvue_remediation(running, intended, NVUE_OWNED) == [
        "nv unset bridge domain br_default vlan 20",
        "nv unset interface swp7 link mtu",
        "nv unset interface swp1 description",
        "nv unset interface swp7 description",
        "nv unset interface swp7",
        "nv set interface swp1 link mtu 9216",
        "nv set bridge domain br_default vlan 10",
    ]


@pytest.mark.parametrize(
    ("output", "found"),
    [
        ('DISTRIB_ID="Cumulus Linux"\nDISTRIB_RELEASE=4.2.1\n', ("nclu", "4.2.1")),
        ('DISTRIB_ID="Cumulus Linux"\nDISTRIB_RELEASE=5.10.0\n', ("nvue", "5.10.0")),
        ('{\n  "build": "Cumulus Linux 5.4.0",\n  "hostname": "leaf01"\n}', ("nvue", "5.4.0")),
    ],
)
def test_the_release_names_the_dialect(output, found):
    release = lib.cumulus_release(output)
    assert (lib.cumulus_dialect(release), release) == found


def test_a_switch_that_names_no_release_is_refused_naming_both_commands():
    class Silent:
        def send_command(self, command: str, **_: Any) -> str:
            return f"cat: {command}: No such file or directory"

    with pytest.raises(RuntimeError, match="neither `cat /etc/lsb-release` nor `nv show"):
        lib.detect_cumulus(Silent())


@pytest.mark.parametrize(("release", "persisted"), [("5.4.0", False), ("5.10.0", True)])
def test_5x_without_save_persists_only_where_apply_saves(
    monkeypatch, capsys, tmp_path, release, persisted
):
    """`switches_save: false` sends no `nv config save`; from 5.9 apply saves by itself."""
    monkeypatch.setenv("CUMULUS_SIM_RELEASE", release)
    device = Device(tmp_path, "cumulus_linux")
    result = run_module(monkeypatch, capsys, device, _storage_fabric(), NCLU_OWNED,
                        save=False, **_nvue_args())  # fmt: skip
    assert result["changed"] is True and result["saved"] is False
    assert "nv config save" not in device.connections[0].log
    assert (device.state.startup == device.state.running) is persisted


# ---- switch_command: read-only show commands over the same session ---------------------------

_COMMAND_SPEC = importlib.util.spec_from_file_location(
    "switch_command_module", ROOT / "library" / "switch_command.py"
)
command_module = importlib.util.module_from_spec(_COMMAND_SPEC)
_COMMAND_SPEC.loader.exec_module(command_module)


def run_command(monkeypatch, capsys, device: Device, commands: list[str]) -> dict[str, Any]:
    args = {"platform": device.platform, "host": "127.0.0.1", "username": "admin",
            "password": "s3cret-pw", "commands": commands,
            "_ansible_check_mode": True}  # fmt: skip
    fake_sessions(monkeypatch, device)
    with patch_module_args(args), pytest.raises(SystemExit):
        command_module.main()
    return json.loads(capsys.readouterr().out)


def test_switch_command_returns_each_show_output_in_check_mode(monkeypatch, capsys, qm8700):
    result = run_command(monkeypatch, capsys, qm8700, ["show interfaces ib status", "show ib sm"])
    assert not result.get("failed") and result["changed"] is False
    assert result["stdout"][0].splitlines()[0].startswith("Interface")
    assert re.search(r"^IB1/1\s", result["stdout"][0], re.M)
    assert result["stdout"][1].strip() == "disable"  # factory: no subnet manager
    assert result["stdout_lines"][0] == result["stdout"][0].splitlines()


def test_switch_command_refuses_what_is_not_a_show_and_what_the_switch_refuses(
    monkeypatch, capsys, qm8700
):
    result = run_command(monkeypatch, capsys, qm8700, ["interface ib 1/1 shutdown"])
    assert result["failed"] and "show commands only" in result["msg"]
    result = run_command(monkeypatch, capsys, qm8700, ["show interfaces ib bogus"])
    assert result["failed"] and "the switch refused `show interfaces ib bogus`" in result["msg"]
