"""Dell OS10 (S5232F-ON, 10.4.3E) device model: configuration state, commands, rendering.

A session holds a mode stack; each command is looked up in the table of its mode and
handled against either the running configuration or, inside a transaction, a candidate
copy that `commit` applies. Rendering follows `show running-configuration` of OS10:
`!` between blocks, sub-commands indented one space, breakouts before the interfaces.
Error wordings marked "unverified" are this simulator's choice where no source shows
the device's text (spec section 5).
"""

from __future__ import annotations

import copy
import difflib
import re
import time
from typing import Any

from .state import SwitchState

BREAKOUT_MODES = {"100g-1x": 1, "40g-1x": 1, "50g-2x": 2, "25g-4x": 4, "10g-4x": 4}
ERR_UNRECOGNIZED = "% Error: Unrecognized command."


class CommandError(Exception):
    """Printed as the device's error line; the command changes nothing."""


def _port_config(speed: str) -> dict[str, Any]:
    return {"shutdown": False, "access_vlan": 1, "description": None, "mtu": None, "speed": speed}


def factory(hostname: str) -> dict[str, Any]:
    """A freshly booted S5232F-ON: 32 QSFP28 ports, two SFP+ ports, vlan1, management."""
    interfaces = {f"ethernet1/1/{n}": _port_config("100G") for n in range(1, 33)}
    interfaces.update({f"ethernet1/1/{n}": _port_config("10G") for n in (33, 34)})
    return {
        "hostname": hostname,
        "ip_vrf_default": True,
        "breakouts": {},
        "interfaces": interfaces,
        "vlans": {"1": {"shutdown": False, "description": None}},
        "changed_at": time.time(),
    }


def _port_key(name: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", name))


def render(config: dict[str, Any], only: str | None = None) -> str:
    """`show running-configuration` (or its `interface X` form)."""
    lines: list[str] = []
    if only is None:
        stamp = time.strftime("%b %d %H:%M:%S %Y", time.gmtime(config["changed_at"]))
        lines += ["! Version 10.4.3E", f"! Last configuration change at {stamp}", "!"]
        if config["hostname"] != "OS10":
            lines += [f"hostname {config['hostname']}"]
        if config["ip_vrf_default"]:
            lines += ["ip vrf default"]
        lines += ["!"]
        if config["breakouts"]:
            for port in sorted(config["breakouts"], key=_port_key):
                lines.append(f"interface breakout {port} map {config['breakouts'][port]}")
            lines.append("!")
        for vlan in sorted(config["vlans"], key=int):
            lines += _render_vlan(vlan, config["vlans"][vlan])
    names = sorted(config["interfaces"], key=_port_key)
    for name in names:
        if only and name != only:
            continue
        lines += _render_interface(name, config["interfaces"][name])
    if only is None:
        lines += ["interface mgmt1/1/1", " no shutdown", " no ip address dhcp", "!"]
    return "\n".join(lines)


def _render_vlan(vlan: str, settings: dict[str, Any]) -> list[str]:
    lines = [f"interface vlan{vlan}"]
    if settings.get("description"):
        lines.append(f" description {settings['description']}")
    lines.append(" shutdown" if settings["shutdown"] else " no shutdown")
    return [*lines, "!"]


def _render_interface(name: str, settings: dict[str, Any]) -> list[str]:
    lines = [f"interface {name}"]
    if settings.get("description"):
        lines.append(f" description {settings['description']}")
    lines.append(" shutdown" if settings["shutdown"] else " no shutdown")
    if settings.get("mtu"):
        lines.append(f" mtu {settings['mtu']}")
    if settings.get("access_vlan"):
        lines.append(f" switchport access vlan {settings['access_vlan']}")
    return [*lines, "!"]


class OS10Session:
    """One CLI session: modes, transaction state, and the commands of each mode."""

    platform = "os10"

    def __init__(self, state: SwitchState):
        self.state = state
        self.modes: list[tuple[str, str]] = []  # (kind, target) below exec
        self.candidate: dict[str, Any] | None = None

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
            if line.startswith("do ") and self.modes:
                return self._exec(line[3:].strip())
            if not self.modes:
                return self._exec(line)
            kind, target = self.modes[-1]
            if line in ("end",):
                self.modes.clear()
                return ""
            if line == "exit":
                self.modes.pop()
                return ""
            if kind in ("interface", "vlan"):
                handled = self._interface_command(kind, target, line)
                if handled is not None:
                    return handled
            return self._config_command(line)
        except CommandError as err:
            return str(err)

    # -- exec mode -------------------------------------------------------------------------

    def _exec(self, line: str) -> str:
        words = line.split()
        if line in ("configure terminal", "conf t", "configure"):
            self.modes = [("config", "")]
            return ""
        if line == "terminal length 0":
            return ""
        if words[:2] == ["terminal", "width"]:
            raise CommandError(ERR_UNRECOGNIZED)
        if line in ("show running-configuration", "show running-config"):
            return render(self.config if self.candidate is None else self.state.running)
        if words[:3] == ["show", "running-configuration", "interface"] and len(words) >= 4:
            name = self._interface_name(" ".join(words[3:]))
            if name not in self.state.running["interfaces"]:
                raise CommandError(f"% Error: Interface {name} does not exist.")
            return render(self.state.running, only=name)
        if line == "show version":
            return (
                "Dell EMC Networking OS10-Enterprise\n"
                "Copyright (c) 1999-2019 by Dell Inc. All Rights Reserved.\n"
                "OS Version: 10.4.3E\n"
                "Build Version: 10.4.3E.105\n"
                "Build Time: 2019-05-14T18:55:57+0000\n"
                "System Type: S5232F-ON\n"
                "Architecture: x86_64\n"
                "Up Time: 1 day 02:03:04"
            )
        if line in ("show interface status", "show interfaces status"):
            return self._interface_status()
        if line == "show diff candidate-configuration running-configuration":
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
        if line == "start transaction":
            if self.candidate is None:
                self.candidate = copy.deepcopy(self.state.running)
            return ""
        if line == "commit":
            if self.candidate is not None:
                with self.state.lock:
                    self.candidate["changed_at"] = time.time()
                    self.state.running = self.candidate
                self.candidate = None
            return ""
        if line == "discard":
            self.candidate = None
            return ""
        if line in ("write memory", "copy running-configuration startup-configuration"):
            self.state.save()
            return ""
        if line == "exit":
            raise SessionEnd
        raise CommandError(ERR_UNRECOGNIZED)

    def _interface_status(self) -> str:
        rows = [
            "-" * 85,
            f"{'Port':<18}{'Description':<18}{'Status':<8}{'Speed':<8}{'Duplex':<8}"
            f"{'Mode':<6}{'Vlan':<5}Tagged-Vlans",
            "-" * 85,
        ]
        for name in sorted(self.state.running["interfaces"], key=_port_key):
            settings = self.state.running["interfaces"][name]
            short = name.replace("ethernet", "Eth ")
            status = "down" if settings["shutdown"] else "up"
            desc = (settings.get("description") or "")[:17]
            rows.append(
                f"{short:<18}{desc:<18}{status:<8}{settings['speed']:<8}{'full':<8}"
                f"{'A':<6}{settings.get('access_vlan') or '-'!s:<5}-"
            )
        return "\n".join(rows)

    # -- config mode ------------------------------------------------------------------------

    def _touch(self) -> None:
        if self.candidate is None:
            self.state.running["changed_at"] = time.time()

    def _config_command(self, line: str) -> str:
        config = self.config
        words = line.split()
        if words[0] == "hostname" and len(words) == 2:
            config["hostname"] = words[1]
            self._touch()
            return ""
        if line == "ip vrf default":
            config["ip_vrf_default"] = True
            return ""
        match = re.fullmatch(r"interface breakout (1/1/\d+) map (\S+)", line)
        if match:
            return self._breakout(*match.groups())
        match = re.fullmatch(r"no interface breakout (1/1/\d+)", line)
        if match:
            return self._unsplit(match.group(1))
        match = re.fullmatch(r"interface vlan ?(\d+)", line)
        if match:
            config["vlans"].setdefault(match.group(1), {"shutdown": True, "description": None})
            self._touch()
            self.modes = [("config", ""), ("vlan", match.group(1))]
            return ""
        if words[0] == "interface" and len(words) >= 2:
            name = self._interface_name(" ".join(words[1:]))
            if name not in config["interfaces"]:
                raise CommandError(f"% Error: Interface {name} does not exist.")  # unverified
            self.modes = [("config", ""), ("interface", name)]
            return ""
        raise CommandError(ERR_UNRECOGNIZED)

    @staticmethod
    def _interface_name(text: str) -> str:
        # `interface ethernet 1/1/21` and `interface ethernet1/1/21` name the same port
        return text.replace(" ", "")

    def _breakout(self, port: str, mode: str) -> str:
        config = self.config
        if mode not in BREAKOUT_MODES:
            raise CommandError(ERR_UNRECOGNIZED)
        number = int(port.rsplit("/", 1)[1])
        if not 1 <= number <= 32:
            raise CommandError(f"% Error: Port {port} does not support breakout.")  # unverified
        current = config["breakouts"].get(port)
        if current == mode:
            return ""
        if current is not None:
            # A port's map changes only after un-splitting it (Omnia docs); wording unverified.
            raise CommandError(
                f"% Error: Port {port} is already in breakout mode {current}. "
                f"Remove it with 'no interface breakout {port}' first."
            )
        config["interfaces"].pop(f"ethernet{port}", None)
        speed = mode.split("-")[0].upper()
        for n in range(1, BREAKOUT_MODES[mode] + 1):
            config["interfaces"][f"ethernet{port}:{n}"] = _port_config(speed)
        config["breakouts"][port] = mode
        self._touch()
        return ""

    def _unsplit(self, port: str) -> str:
        config = self.config
        if port not in config["breakouts"]:
            raise CommandError(f"% Error: Port {port} is not in breakout mode.")  # unverified
        del config["breakouts"][port]
        for name in [n for n in config["interfaces"] if n.startswith(f"ethernet{port}:")]:
            del config["interfaces"][name]
        config["interfaces"][f"ethernet{port}"] = _port_config("100G")
        self._touch()
        return ""

    def _interface_command(self, kind: str, target: str, line: str) -> str | None:
        """An interface-mode command, or None to try it as a global command."""
        settings = (
            self.config["vlans"][target] if kind == "vlan" else self.config["interfaces"][target]
        )
        words = line.split()
        if line == "shutdown":
            settings["shutdown"] = True
        elif line == "no shutdown":
            settings["shutdown"] = False
        elif words[0] == "description" and len(words) > 1:
            settings["description"] = line.split(" ", 1)[1][:240]
        elif line == "no description":
            settings["description"] = None
        elif kind == "interface" and words[0] == "mtu" and len(words) == 2:
            if not words[1].isdigit() or not 1312 <= int(words[1]) <= 9216:
                raise CommandError("% Error: Invalid MTU value. Valid range is 1312-9216.")
            settings["mtu"] = int(words[1])
        elif kind == "interface" and line == "no mtu":
            settings["mtu"] = None
        elif kind == "interface" and re.fullmatch(r"switchport access vlan \d+", line):
            settings["access_vlan"] = int(words[-1])
        elif kind == "interface" and line == "no switchport access vlan":
            settings["access_vlan"] = 1
        elif kind == "interface" and line in ("switchport mode access", "switchport mode trunk"):
            pass
        else:
            return None
        self._touch()
        return ""


class SessionEnd(Exception):
    """The user left the CLI (exit at the top level)."""
