"""Dell OS10 (S5232F-ON, 10.5) CLI: modes, transactions, commands (the device model is
os10_model.py).

A session holds a mode stack; each line is parsed against the keyword grammar of its
mode (unique prefixes expand, as the CLI completes them), then handled against either
the running configuration or, inside a transaction, a candidate copy that `commit`
applies. Every value is checked before anything changes, so a refused command changes
nothing.

Sources (os10_model.py names those of the model): the Dell OS10 User Guide ("CLI Basics",
transactions; Dell KB 000120163 "How to use Transaction-Based Configuration Mode"); github
ansible-collections/dellemc.os10 (its plugins, os10_facts, unit fixtures of 10.4.0E,
integration tests and issues #52/#59/#66); github dell/omnia
(network/ethernet_sseries_input.yml, written for the S5232F-ON);
napalm-automation-community/napalm-dellos10 (mock data); github grantcurell/projects
(S4112F-ON captures of 10.5.0.2 and 10.5.1.3); intel/mfd-switchmanagement (the tests of its
dell_os10 driver); Cray-HPE/docs-csm (a real `show interface status`); netmiko 4.x
(dell_os10_ssh.py). Error wordings marked "unverified" are this simulator's choice where no
source shows the device's text.
"""

from __future__ import annotations

import copy
import difflib
import hashlib
import ipaddress
import re
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import Any

from . import cli
from . import os10_model as model
from .cli import ARG, END, CommandError, KeywordErrors, completions
from .os10_model import (
    BREAKOUT_MODES,
    DEFAULT_MTU,
    ERR_INCOMPLETE,
    ERR_UNRECOGNIZED,
    MTU_RANGE,
    NATIVE_MAP,
    PLATFORM,
    SPEEDS_OF,
    VERSION,
    VLAN_RANGE,
    interface_name,
    port_config,
    port_key,
    port_number,
    render,
    upgrade,
)
from .state import SessionEnd, SwitchState

# what server.py reads of a platform module
DEFAULT_HOSTNAME = model.DEFAULT_HOSTNAME
factory = model.factory

ERR_ILLEGAL = "% Error: Illegal parameter."  # napalm-dellos10; used for bad values
ERR_AMBIGUOUS = "% Error: Ambiguous command."  # unverified (User Guide: ambiguous prefixes beep)

# OS10 names no word in its keyword errors
KEYWORD_ERRORS = KeywordErrors(
    ambiguous=lambda word: CommandError(ERR_AMBIGUOUS),
    unknown=lambda word: CommandError(ERR_UNRECOGNIZED),
    incomplete=lambda: CommandError(ERR_INCOMPLETE),
)


# ---- the command grammar --------------------------------------------------------------------

EXEC_GRAMMAR: dict[str, Any] = {
    "configure": {"terminal": {END: True}},
    "show": {
        "running-configuration": {END: True, "all": {END: True}, "interface": {ARG: True}},
        "startup-configuration": {END: True},
        "version": {END: True},
        "system": {END: True},
        "interface": {END: True, "status": {END: True}, ARG: True},
        "lldp": {"neighbors": {END: True}},
        "diff": {"candidate-configuration": {"running-configuration": {END: True}}},
        "processes": {"node-id": {ARG: True}},
    },
    "copy": {"running-configuration": {"startup-configuration": {END: True}}},
    "write": {"memory": {END: True}},
    "start": {"transaction": {END: True}},
    "commit": {END: True},
    "discard": {END: True},
    "terminal": {"length": {ARG: True}},
    "exit": {END: True},
}
CONFIG_GRAMMAR: dict[str, Any] = {
    "hostname": {ARG: True},
    "interface": {"breakout": {ARG: True}, ARG: True},
    "ip": {"vrf": {"default": {END: True}}, "route": {ARG: True}},
    "no": {
        "hostname": {END: True},
        "interface": {"breakout": {ARG: True}},
        "ip": {"route": {ARG: True}},
    },
}
INTERFACE_GRAMMAR: dict[str, Any] = {
    "description": {ARG: True},
    "shutdown": {END: True},
    "mtu": {ARG: True},
    "speed": {ARG: True},
    "switchport": {
        "access": {"vlan": {ARG: True}},
        "mode": {"access": {END: True}, "trunk": {END: True}},
    },
    "no": {
        "description": {END: True},
        "shutdown": {END: True},
        "mtu": {END: True},
        "speed": {END: True},
        "switchport": {"access": {"vlan": {END: True}}},
    },
}
VLAN_GRAMMAR: dict[str, Any] = {
    "description": {ARG: True},
    "shutdown": {END: True},
    "no": {"description": {END: True}, "shutdown": {END: True}},
}
PIPES = ("grep", "except", "display-xml", "no-more")


def parse(words: list[str], grammar: dict[str, Any]) -> tuple[tuple[str, ...], list[str]]:
    """Expand unique keyword prefixes (`sh run`, `copy run start`); return (keywords, args).

    OS10 completes unique prefixes (User Guide, "CLI Basics": `conf t`); a prefix that
    fits several keywords, a missing keyword and an unknown one are errors.
    """
    return cli.parse(words, grammar, KEYWORD_ERRORS)


def _xml(root: ET.Element) -> str:
    ET.indent(root, space="  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode")


def _sub(parent: ET.Element, path: str, text: str | None = None) -> ET.Element:
    """Create the elements of `a/b/c` under parent; set the last one's text."""
    for tag in path.split("/"):
        parent = ET.SubElement(parent, tag)
    if text is not None:
        parent.text = text
    return parent


class OS10Session:
    """One CLI session: modes, transaction state, and the commands of each mode."""

    platform = "os10"
    REJECTED = "% Error: Command rejected."

    def __init__(self, state: SwitchState):
        self.state = state
        self.modes: list[tuple[str, str]] = []  # (kind, target) below exec
        self.candidate: dict[str, Any] | None = None
        with state.lock:
            upgrade(state.running)
            upgrade(state.startup)

    # -- prompt and mode ----------------------------------------------------------------

    @property
    def config(self) -> dict[str, Any]:
        return self.candidate if self.candidate is not None else self.state.running

    def prompt(self) -> str:
        host = self.config["hostname"]
        if not self.modes:
            return f"{host}# "
        kind, target = self.modes[-1]
        if kind == "config":
            return f"{host}(config)# "
        if kind == "vlan":
            return f"{host}(conf-if-vl-{target})# "
        return f"{host}(conf-if-{target.replace('ethernet', 'eth')})# "

    @property
    def in_config(self) -> bool:
        return bool(self.modes)

    # -- dispatch ------------------------------------------------------------------------

    def execute(self, line: str) -> str:
        """Run one line; return its output (errors are output too, as on the device)."""
        line = line.strip()
        if not line:
            return ""
        try:
            command, pipes = self._split_pipes(line)
            output = self._dispatch(command, xml="display-xml" in [p[0] for p in pipes])
            return self._filter(output, pipes)
        except CommandError as err:
            return str(err)

    def _dispatch(self, line: str, xml: bool) -> str:
        if not self.modes:
            return self._exec(line, xml)
        if line == "end":
            self.modes.clear()
            return ""
        if line == "exit":
            self.modes.pop()
            return ""
        words = line.split()
        if words[0] == "do":
            return self._exec(" ".join(words[1:]), xml)
        kind, target = self.modes[-1]
        # A mode's own commands first, then the global configuration commands, then exec
        # commands, which 10.5 runs in configuration mode without `do` (10.5.1.3 capture).
        attempts: list[Callable[[], str]] = []
        if kind == "interface":
            attempts.append(lambda: self._interface_command(target, words))
        if kind == "vlan":
            attempts.append(lambda: self._vlan_command(target, words))
        attempts += [lambda: self._config_command(words), lambda: self._exec(line, xml)]
        for attempt in attempts:
            try:
                return attempt()
            except CommandError as err:
                if str(err) != ERR_UNRECOGNIZED or attempt is attempts[-1]:
                    raise
        raise CommandError(ERR_UNRECOGNIZED)

    @staticmethod
    def _split_pipes(line: str) -> tuple[str, list[tuple[str, str]]]:
        """`show x | grep y | except z` -> ("show x", [("grep", "y"), ("except", "z")])."""
        command, *parts = line.split("|")
        pipes = []
        for part in parts:
            words = part.split(None, 1)
            if not words:
                raise CommandError(ERR_INCOMPLETE)
            names = completions(words[0], PIPES, fold_case=False)
            if len(names) != 1:
                raise CommandError(ERR_UNRECOGNIZED)
            pattern = words[1].strip().strip('"') if len(words) > 1 else ""
            if names[0] in ("grep", "except") and not pattern:
                raise CommandError(ERR_INCOMPLETE)
            pipes.append((names[0], pattern))
        first = command.split()[:1]
        if pipes and not (first and "show".startswith(first[0])):
            raise CommandError(ERR_UNRECOGNIZED)  # pipes follow show commands
        return command.strip(), pipes

    @staticmethod
    def _filter(output: str, pipes: list[tuple[str, str]]) -> str:
        """`| grep` keeps matching lines (dellemc.os10 and Omnia send it), `| except`
        drops them."""
        for name, pattern in pipes:
            if name in ("grep", "except"):
                try:
                    regex = re.compile(pattern)
                except re.error:
                    raise CommandError(ERR_ILLEGAL) from None
                keep = name == "grep"
                output = "\n".join(
                    line for line in output.splitlines() if bool(regex.search(line)) == keep
                )
        return output

    # -- exec mode -------------------------------------------------------------------------

    def _exec(self, line: str, xml: bool = False) -> str:
        path, args = parse(line.split(), EXEC_GRAMMAR)
        xml_handlers: dict[tuple[str, ...], Callable[[], str]] = {
            ("show", "version"): self._show_version_xml,
            ("show", "system"): self._show_system_xml,
            ("show", "interface"): lambda: self._show_interface_xml(args),
            ("show", "lldp", "neighbors"): self._lldp_xml,
        }
        if xml:
            if path not in xml_handlers:
                raise CommandError(ERR_UNRECOGNIZED)  # display-xml of others: not modelled
            return xml_handlers[path]()
        handler: Callable[[], str] = {
            ("configure", "terminal"): self._configure,
            ("show", "running-configuration"): lambda: self._running(),
            ("show", "running-configuration", "all"): lambda: self._running(),
            ("show", "running-configuration", "interface"): lambda: self._running(args),
            ("show", "startup-configuration"): lambda: render(self.state.startup),
            ("show", "version"): self._show_version,
            ("show", "system"): self._show_system,
            ("show", "interface"): lambda: self._show_interface(args),
            ("show", "interface", "status"): self._interface_status,
            ("show", "lldp", "neighbors"): self._lldp,
            ("show", "diff", "candidate-configuration", "running-configuration"): self._diff,
            ("show", "processes", "node-id"): self._processes,
            ("copy", "running-configuration", "startup-configuration"): self._save,
            ("write", "memory"): self._save,
            ("start", "transaction"): self._start_transaction,
            ("commit",): self._commit,
            ("discard",): self._discard,
            ("terminal", "length"): lambda: self._terminal_length(args),
            ("exit",): self._exit,
        }[path]
        return handler()

    def _configure(self) -> str:
        self.modes = [("config", "")]
        return ""

    def _exit(self) -> str:
        if self.modes:
            self.modes.pop()
            return ""
        raise SessionEnd

    def _terminal_length(self, args: list[str]) -> str:
        if len(args) != 1 or not args[0].isdigit():
            raise CommandError(ERR_ILLEGAL)
        return ""

    def _running(self, args: list[str] | None = None) -> str:
        # inside a transaction `show running-configuration` shows running, not the candidate
        if not args:
            return render(self.state.running)
        name = interface_name(" ".join(args))
        if name not in self.state.running["interfaces"]:
            raise CommandError(f"% Error: Interface {name} does not exist.")  # unverified
        return render(self.state.running, only=name)

    def _save(self) -> str:
        self.state.save()
        return ""

    def _start_transaction(self) -> str:
        if self.candidate is None:
            self.candidate = copy.deepcopy(self.state.running)
        return ""

    def _commit(self) -> str:
        # With no transaction open, `commit` (also typed in configuration mode, as
        # dellemc.os10 sends it) is accepted and prints nothing (inferred from dellemc.os10's
        # load_config and its issue #66).
        if self.candidate is not None:
            with self.state.lock:
                self.candidate["changed_at"] = time.time()
                self.state.running = self.candidate
            self.candidate = None
        return ""

    def _discard(self) -> str:
        self.candidate = None
        return ""

    def _diff(self) -> str:
        # format unverified: a unified diff of the two renderings without the banner
        if self.candidate is None:
            return ""
        diff = difflib.unified_diff(
            render(self.state.running).splitlines()[3:],
            render(self.candidate).splitlines()[3:],
            "running-configuration",
            "candidate-configuration",
            lineterm="",
        )
        return "\n".join(diff)

    def _show_version(self) -> str:
        # text form: `OS Version: ...`, `System Type: ...` (dellemc.os10 fixture)
        return (
            "Dell EMC Networking OS10 Enterprise\n"
            "Copyright (c) 1999-2020 by Dell Inc. All Rights Reserved.\n"
            f"OS Version: {VERSION}\n"
            f"Build Version: {VERSION}.210\n"
            "Build Time: 2020-11-19T08:58:40+0000\n"
            f"System Type: {PLATFORM}\n"
            "Architecture: x86_64\n"
            "Up Time: 1 day 02:03:04"
        )

    def _show_version_xml(self) -> str:
        # paths os10_facts reads (dellemc.os10 os10_facts.py and its fixture)
        root = ET.Element("rpc-reply")
        data = _sub(root, "data")
        _sub(data, "system-state/system-status/hostname", self.config["hostname"])
        version = _sub(data, "system-sw-state/sw-version")
        for tag, text in (("sw-version", VERSION), ("sw-name", "Enterprise"),
                          ("sw-platform", PLATFORM), ("cpu-arch", "x86_64")):  # fmt: skip
            _sub(version, tag, text)
        return _xml(root)

    def _mac(self, offset: int = 0) -> str:
        seed = hashlib.sha256(self.config["hostname"].encode()).digest()
        value = int.from_bytes(b"\x14\x18\x77" + seed[:3], "big") + offset
        return ":".join(f"{b:02x}" for b in value.to_bytes(6, "big"))

    def _show_system(self) -> str:
        # only `Current Type` is read by tools (Omnia: last word); layout unverified
        return (
            f"Node Id               : 1\nMAC                   : {self._mac()}\n\n"
            "-- Unit 1 --\nStatus                     : up\n"
            f"Required Type              : {PLATFORM}\nCurrent Type               : {PLATFORM}"
        )

    def _show_system_xml(self) -> str:
        root = ET.Element("rpc-reply")
        node = _sub(root, "data/system/node")
        _sub(node, "node-mac", self._mac())
        unit = _sub(node, "unit")
        _sub(unit, "unit-id", "1")
        _sub(unit, "mfg-info/service-tag")  # empty in the dellemc.os10 fixture
        _sub(unit, "port-info", "32x100GbE, 2x10GbE")  # wording unverified for S5232F
        return _xml(root)

    def _processes(self) -> str:
        # the `Mem` line os10_facts greps (dellemc.os10 fixture)
        return (
            "top - 10:00:00 up 1 day,  2:03,  0 users,  load average: 0.20, 0.25, 0.30\n"
            "KiB Mem:   8127144 total,  2297272 used,  5829872 free,   137360 buffers"
        )

    def _link_up(self, name: str, settings: dict[str, Any]) -> bool:
        """Up when the port has a cable (the lab's cabling) and is not shut down."""
        return not settings["shutdown"] and port_number(name) in self.state.cabled_ports

    def _speed(self, settings: dict[str, Any]) -> str:
        if settings.get("speed"):
            return f"{int(settings['speed']) // 1000}G"
        return settings["lane"]

    def _show_interface(self, args: list[str]) -> str:
        """`Ethernet 1/1/1:1 is up, line protocol is up` block (mfd-switchmanagement tests)."""
        if not args:
            names = sorted(self.state.running["interfaces"], key=port_key)
        else:
            names = [interface_name(" ".join(args))]
        blocks = []
        for name in names:
            settings = self.state.running["interfaces"].get(name)
            if settings is None:
                raise CommandError(f"% Error: Interface {name} does not exist.")  # unverified
            state = "up" if self._link_up(name, settings) else "down"
            admin = "down" if settings["shutdown"] else "up"
            mtu = settings.get("mtu") or DEFAULT_MTU
            blocks.append(
                f"{name.replace('ethernet', 'Ethernet ')} is {admin}, line protocol is {state}\n"
                f"Hardware is Eth, address is {self._mac(port_key(name)[2])}\n"
                f"MTU {mtu} bytes, IP MTU {mtu - 32} bytes\n"
                f"LineSpeed {self._speed(settings) if state == 'up' else 'auto'}, "
                "Auto-Negotiation on"
            )
        return "\n\n".join(blocks)

    def _show_interface_xml(self, args: list[str]) -> str:
        """One XML document per interface, concatenated (os10_facts splits on `?xml version`)."""
        names = (
            [interface_name(" ".join(args))]
            if args
            else sorted(self.state.running["interfaces"], key=port_key)
        )
        docs = []
        for name in names:
            settings = self.state.running["interfaces"].get(name)
            if settings is None:
                raise CommandError(f"% Error: Interface {name} does not exist.")  # unverified
            root = ET.Element("rpc-reply")
            interface = _sub(root, "data/interfaces/interface")
            _sub(interface, "name", name)
            _sub(interface, "type", "iana-if-type:ethernetCsmacd")  # unverified
            _sub(interface, "description", settings.get("description") or "")
            _sub(interface, "mtu", str(settings.get("mtu") or DEFAULT_MTU))
            _sub(interface, "speed", settings.get("speed") or "AUTO")
            _sub(interface, "duplex", "full")  # unverified
            bulk = _sub(root, "bulk/data/interface")
            up = self._link_up(name, settings)
            _sub(bulk, "name", name)
            gbits = int(self._speed(settings).rstrip("G")) if up else 0
            _sub(bulk, "speed", str(gbits * 1_000_000_000))
            _sub(bulk, "admin-status", "down" if settings["shutdown"] else "up")
            _sub(bulk, "oper-status", "up" if up else "down")
            _sub(bulk, "phys-address", self._mac(port_key(name)[2]))
            docs.append(_xml(root))
        return "\n".join(docs)

    def _lldp(self) -> str:
        # header of the real table (mfd-switchmanagement tests); the lab's switches see no
        # neighbours
        return (
            "Loc PortID          Rem Host Name        Rem Port Id                    "
            "Rem Chassis Id\n" + "-" * 86
        )

    def _lldp_xml(self) -> str:
        root = ET.Element("rpc-reply")
        _sub(root, "bulk/data")
        return _xml(root)

    def _interface_status(self) -> str:
        """The real table: 98-dash rules, columns at 0/16/32/41/50/59/64/69 (docs-csm)."""
        rule = "-" * 98
        rows = [
            rule,
            f"{'Port':<16}{'Description':<16}{'Status':<9}{'Speed':<9}{'Duplex':<9}"
            f"{'Mode':<5}{'Vlan':<5}Tagged-Vlans",
            rule,
        ]
        for name in sorted(self.state.running["interfaces"], key=port_key):
            settings = self.state.running["interfaces"][name]
            short = name.replace("ethernet", "Eth ")
            up = self._link_up(name, settings)
            desc = settings.get("description") or ""
            if len(desc) > 15:
                desc = desc[:13] + ".."  # as a newer capture (repo unidentified: weaker)
            speed = self._speed(settings) if up else "0"
            vlan = str(settings.get("access_vlan") or "")
            rows.append(
                f"{short:<16}{desc:<16}{'up' if up else 'down':<9}{speed:<9}{'full':<9}"
                f"{'A':<5}{vlan:<5}-"
            )
        rows.append(rule)
        return "\n".join(rows)

    # -- config mode ------------------------------------------------------------------------

    def _touch(self) -> None:
        self.config["changed_at"] = time.time()

    def _config_command(self, words: list[str]) -> str:
        path, args = parse(words, CONFIG_GRAMMAR)
        if path == ("hostname",):
            return self._hostname(args)
        if path == ("no", "hostname"):
            self.config["hostname"] = "OS10"
            self._touch()
            return ""
        if path == ("ip", "vrf", "default"):
            self.config["ip_vrf_default"] = True
            return ""
        if path == ("interface", "breakout"):
            port, mode = self._breakout_args(args, with_map=True)
            return self._breakout(port, mode)
        if path == ("no", "interface", "breakout"):
            port, _ = self._breakout_args(args, with_map=False)
            return self._unsplit(port)
        if path == ("ip", "route"):
            return self._route(args, add=True)
        if path == ("no", "ip", "route"):
            return self._route(args, add=False)
        return self._enter_interface(" ".join(args))

    def _hostname(self, args: list[str]) -> str:
        if len(args) != 1 or not re.fullmatch(r"[A-Za-z][\w.-]{0,63}", args[0]):
            raise CommandError(ERR_ILLEGAL)  # rules for hostnames unverified
        self.config["hostname"] = args[0]
        self._touch()
        return ""

    def _enter_interface(self, text: str) -> str:
        name = interface_name(text)
        if name.startswith("vlan"):
            vlan = name[4:]
            if not vlan.isdigit() or not VLAN_RANGE[0] <= int(vlan) <= VLAN_RANGE[1]:
                raise CommandError(ERR_ILLEGAL)
            vlan = str(int(vlan))
            if vlan not in self.config["vlans"]:
                self.config["vlans"][vlan] = {"shutdown": True, "description": None}
                self._touch()
            self.modes = [("config", ""), ("vlan", vlan)]
            return ""
        if name not in self.config["interfaces"]:
            # a port that does not exist, or that a breakout renamed (dellemc.os10 issue #59)
            raise CommandError(f"% Error: Interface {name} does not exist.")  # unverified
        self.modes = [("config", ""), ("interface", name)]
        return ""

    @staticmethod
    def _breakout_args(args: list[str], with_map: bool) -> tuple[str, str]:
        """`1/1/N map MODE` (or `1/1/N` for `no`): the port and the map, both checked."""
        if not args:
            raise CommandError(ERR_INCOMPLETE)
        match = re.fullmatch(r"1/1/(\d+)", args[0])
        if not match:
            raise CommandError(ERR_ILLEGAL)
        port = args[0]
        if not with_map:
            if len(args) > 1:
                raise CommandError(ERR_UNRECOGNIZED)
            return port, ""
        if len(args) < 2:
            raise CommandError(ERR_INCOMPLETE)
        if not "map".startswith(args[1]):
            raise CommandError(ERR_UNRECOGNIZED)
        if len(args) < 3:
            raise CommandError(ERR_INCOMPLETE)
        modes = completions(args[2], BREAKOUT_MODES, fold_case=False)
        if len(modes) != 1 or len(args) > 3:
            raise CommandError(ERR_UNRECOGNIZED)
        return port, modes[0]

    def _breakout(self, port: str, mode: str) -> str:
        """Apply a map. A port at its native map takes any map at once (Omnia applies
        `10g-4x` to factory ports); a split port changes only after un-splitting (Omnia)."""
        config = self.config
        current = config["breakouts"].get(port)
        if current is None:
            raise CommandError(f"% Error: Port {port} does not support breakout.")  # unverified
        if current == mode:
            return ""
        if current != NATIVE_MAP:
            raise CommandError(  # wording unverified
                f"% Error: Port {port} is already in breakout mode {current}. "
                f"Remove it with 'no interface breakout {port}' first."
            )
        self._set_map(port, mode)
        return ""

    def _set_map(self, port: str, mode: str) -> None:
        """Replace the port's interfaces with those of `mode`, at factory settings.

        Whether sub-port settings survive a re-map is unverified: they are reset here.
        """
        config = self.config
        for name in [n for n in config["interfaces"] if n == f"ethernet{port}"
                     or n.startswith(f"ethernet{port}:")]:  # fmt: skip
            del config["interfaces"][name]
        count, lane = BREAKOUT_MODES[mode]
        if mode == NATIVE_MAP:
            config["interfaces"][f"ethernet{port}"] = port_config(lane)
        else:
            for n in range(1, count + 1):
                config["interfaces"][f"ethernet{port}:{n}"] = port_config(lane)
        config["breakouts"][port] = mode
        self._touch()

    def _unsplit(self, port: str) -> str:
        """Back to the native map (presumably what `no interface breakout` does; unverified)."""
        current = self.config["breakouts"].get(port)
        if current is None:
            raise CommandError(f"% Error: Port {port} does not support breakout.")  # unverified
        if current != NATIVE_MAP:
            self._set_map(port, NATIVE_MAP)
        return ""

    def _route(self, args: list[str], add: bool) -> str:
        """`ip route A.B.C.D/LEN NEXT-HOP`: prefix and next hop checked before storing."""
        if len(args) < 2:
            raise CommandError(ERR_INCOMPLETE)
        if len(args) > 2:
            raise CommandError(ERR_UNRECOGNIZED)
        try:
            network = ipaddress.IPv4Network(args[0], strict=True)
            hop = ipaddress.IPv4Address(args[1])
        except ValueError:
            # /33, octets above 255, host bits set: refused (wording unverified)
            raise CommandError(ERR_ILLEGAL) from None
        if "/" not in args[0]:
            raise CommandError(ERR_ILLEGAL)
        route = [str(network), str(hop)]
        routes = self.config.setdefault("routes", [])
        if add and route not in routes:
            routes.append(route)
            routes.sort(key=lambda r: (ipaddress.IPv4Network(r[0]), ipaddress.IPv4Address(r[1])))
        elif not add:
            if route not in routes:
                raise CommandError("% Error: Route not found.")  # unverified
            routes.remove(route)
        self._touch()
        return ""

    def _interface_command(self, target: str, words: list[str]) -> str:
        """An Ethernet interface-mode command; values checked before anything changes."""
        path, args = parse(words, INTERFACE_GRAMMAR)
        settings = self.config["interfaces"][target]
        value: Any = None
        if path in (("description",), ("mtu",), ("speed",), ("switchport", "access", "vlan")):
            value = self._value(path[-1], args, settings)
        updates = {
            ("description",): ("description", value),
            ("no", "description"): ("description", None),
            ("shutdown",): ("shutdown", True),
            ("no", "shutdown"): ("shutdown", False),
            ("mtu",): ("mtu", value),
            ("no", "mtu"): ("mtu", None),
            ("speed",): ("speed", value),
            ("no", "speed"): ("speed", None),
            ("switchport", "access", "vlan"): ("access_vlan", value),
            ("no", "switchport", "access", "vlan"): ("access_vlan", 1),
        }
        if path in (("switchport", "mode", "access"), ("switchport", "mode", "trunk")):
            return ""  # access is every port's default; trunk VLANs are not modelled
        key, new = updates[path]
        settings[key] = new
        self._touch()
        return ""

    def _value(self, what: str, args: list[str], settings: dict[str, Any]) -> Any:
        """A checked interface value: description text, MTU, speed, access VLAN."""
        if what == "description":
            text = " ".join(args).strip('"')
            if len(text) > 240:  # OS9 docs' limit; OS10's unverified
                raise CommandError(ERR_ILLEGAL)
            return text
        if len(args) != 1:
            raise CommandError(ERR_UNRECOGNIZED)
        word = args[0]
        if what == "speed":
            if word == "auto":
                return None
            if word not in SPEEDS_OF[settings["lane"]]:
                raise CommandError(ERR_ILLEGAL)  # speeds a port takes: unverified
            return word
        if not word.isdigit():
            raise CommandError(ERR_ILLEGAL)
        number = int(word)
        low, high = MTU_RANGE if what == "mtu" else VLAN_RANGE
        if not low <= number <= high:
            raise CommandError(ERR_ILLEGAL)
        return number

    def _vlan_command(self, target: str, words: list[str]) -> str:
        path, args = parse(words, VLAN_GRAMMAR)
        settings = self.config["vlans"][target]
        if path == ("description",):
            settings["description"] = self._value("description", args, settings)
        elif path == ("no", "description"):
            settings["description"] = None
        else:
            settings["shutdown"] = path == ("shutdown",)
        self._touch()
        return ""
