"""Arista EOS (DCS-7060CX2-32S) device model: state, commands, sessions, rendering.

Configuration sessions work on a copy of the running configuration: `show
session-config diffs` compares it with running, `commit` applies it, `abort` drops it,
`end` leaves it pending. `show running-config` follows EOS: a header, `!` between
blocks, sub-commands indented three spaces, `end` last.
"""

from __future__ import annotations

import copy
import difflib
import re
from typing import Any

from .os10 import CommandError, SessionEnd
from .state import SwitchState

SPEEDS = {
    "forced 100gfull": "forced 100gfull",
    "forced 40gfull": "forced 40gfull",
    "forced 25gfull": "forced 25gfull",
    "forced 10000full": "forced 10000full",
    "100g": "100g",
    "40g": "40g",
    "25g": "25g",
    "10g": "10g",
}


def _invalid(line: str, token: int = 1) -> CommandError:
    words = line.split()
    word = words[token - 1] if len(words) >= token else line
    return CommandError(f"% Invalid input (at token {token - 1}: '{word}')")


def _interface(**extra: Any) -> dict[str, Any]:
    return {"description": None, "shutdown": False, "speed": None, "mtu": None,
            "channel_group": None, "access_vlan": None, **extra}  # fmt: skip


def factory(hostname: str) -> dict[str, Any]:
    interfaces = {f"Ethernet{n}/1": _interface() for n in range(1, 33)}
    interfaces.update({"Ethernet33": _interface(), "Ethernet34": _interface()})
    return {
        "hostname": hostname,
        "transceiver_default_mode": None,
        "spanning_tree_mode": "mstp",
        "interfaces": interfaces,
        "port_channels": {},
        "ip_routing": False,
        "routes": [],
    }


def _key(name: str) -> tuple:
    kind = re.match(r"[A-Za-z-]+", name).group(0)
    return (kind != "Ethernet", kind, [int(n) for n in re.findall(r"\d+", name)])


def render(config: dict[str, Any]) -> str:
    lines = [
        "! Command: show running-config",
        f"! device: {config['hostname']} (DCS-7060CX2-32S, EOS-4.20.15M)",
        "!",
        "! boot system flash:/EOS-4.20.15M.swi",
        "!",
    ]
    if config["transceiver_default_mode"]:
        lines += [f"transceiver qsfp default-mode {config['transceiver_default_mode']}", "!"]
    lines += [f"hostname {config['hostname']}", "!"]
    if config["spanning_tree_mode"]:
        lines += [f"spanning-tree mode {config['spanning_tree_mode']}", "!"]
    for channel in sorted(config["port_channels"], key=int):
        lines += _render_interface(f"Port-Channel{channel}", config["port_channels"][channel])
    for name in sorted(config["interfaces"], key=_key):
        lines += _render_interface(name, config["interfaces"][name])
    lines += ["interface Management1", "!"]
    for prefix, hop in config["routes"]:
        lines.append(f"ip route {prefix} {hop}")
    if config["routes"]:
        lines.append("!")
    lines += ["ip routing" if config["ip_routing"] else "no ip routing", "!", "end"]
    return "\n".join(lines)


def _render_interface(name: str, settings: dict[str, Any]) -> list[str]:
    lines = [f"interface {name}"]
    if settings.get("description"):
        lines.append(f"   description {settings['description']}")
    if settings.get("shutdown"):
        lines.append("   shutdown")
    if settings.get("mtu"):
        lines.append(f"   mtu {settings['mtu']}")
    if settings.get("speed"):
        lines.append(f"   speed {settings['speed']}")
    if settings.get("access_vlan"):
        lines.append(f"   switchport access vlan {settings['access_vlan']}")
    if settings.get("channel_group"):
        group, mode = settings["channel_group"]
        lines.append(f"   channel-group {group} mode {mode}")
    return [*lines, "!"]


def _canonical(name: str) -> str | None:
    """Ethernet31/1, Et31/1, et31/1 -> Ethernet31/1; Po10 -> Port-Channel10."""
    match = re.fullmatch(r"(?i)(ethernet|eth|et)\s*(\d+(?:/\d+)?)", name)
    if match:
        return f"Ethernet{match.group(2)}"
    match = re.fullmatch(r"(?i)(port-channel|po)\s*(\d+)", name)
    if match:
        return f"Port-Channel{match.group(2)}"
    return None


def _short(name: str) -> str:
    return name.replace("Ethernet", "Et").replace("Port-Channel", "Po")


class EOSSession:
    platform = "eos"

    def __init__(self, state: SwitchState):
        self.state = state
        self.modes: list[tuple[str, str]] = []
        self.session_name: str | None = None
        self.sessions: dict[str, dict[str, Any]] = {}

    @property
    def config(self) -> dict[str, Any]:
        if self.session_name is not None and self.modes:
            return self.sessions[self.session_name]
        return self.state.running

    @property
    def in_config(self) -> bool:
        return bool(self.modes)

    def prompt(self) -> str:
        host = self.state.running["hostname"]
        if not self.modes:
            return f"{host}#"
        session = f"-s-{self.session_name[:6]}" if self.session_name else ""
        kind, target = self.modes[-1]
        if kind == "config":
            return f"{host}(config{session})#"
        return f"{host}(config{session}-if-{_short(target)})#"

    def execute(self, line: str) -> str:
        line = line.strip()
        if not line:
            return ""
        try:
            if not self.modes:
                return self._exec(line)
            if line == "end":
                self.modes.clear()
                self.session_name = None  # the session stays pending
                return ""
            if line == "exit":
                self.modes.pop()
                if not self.modes:
                    self.session_name = None
                return ""
            if line.startswith("show "):
                return self._show(line)
            if line == "commit" and self.session_name:
                self.state.running = self.sessions.pop(self.session_name)
                self.modes.clear()
                self.session_name = None
                return ""
            if line == "abort" and self.session_name:
                del self.sessions[self.session_name]
                self.modes.clear()
                self.session_name = None
                return ""
            kind, target = self.modes[-1]
            if kind == "interface":
                handled = self._interface_command(target, line)
                if handled is not None:
                    return handled
            return self._config_command(line)
        except CommandError as err:
            return str(err)

    def _exec(self, line: str) -> str:
        words = line.split()
        if line in ("enable", "terminal length 0"):
            return "" if line == "enable" else "Pagination disabled."
        if words[:2] == ["terminal", "width"] and len(words) == 3 and words[2].isdigit():
            return f"Width set to {words[2]} columns."
        if line in ("configure", "configure terminal", "conf t"):
            self.modes = [("config", "")]
            return ""
        if words[:2] == ["configure", "session"] and len(words) == 3:
            name = words[2]
            self.sessions.setdefault(name, copy.deepcopy(self.state.running))
            self.session_name = name
            self.modes = [("config", "")]
            return ""
        if line in ("copy running-config startup-config", "write memory", "write"):
            self.state.save()
            return "Copy completed successfully."
        if line == "exit":
            raise SessionEnd
        if line.startswith("show "):
            return self._show(line)
        raise _invalid(line)

    def _show(self, line: str) -> str:
        if line == "show running-config":
            return render(self.state.running)
        if line == "show session-config diffs" and self.session_name:
            diff = difflib.unified_diff(
                render(self.state.running).splitlines(),
                render(self.sessions[self.session_name]).splitlines(),
                "system:/running-config",
                f"session:/{self.session_name}-session-config",
                lineterm="",
            )
            return "\n".join(diff)
        if line == "show configuration sessions":
            rows = ["Maximum number of completed sessions: 1",
                    "Maximum number of pending sessions: 5", "",
                    "  Name          State         User    Terminal",
                    "  ------------- ------------- ------- --------"]  # fmt: skip
            for name in self.sessions:
                rows.append(f"  {name:<13} {'pending':<13}")
            return "\n".join(rows)
        if line == "show version":
            return (
                "Arista DCS-7060CX2-32S-F\n"
                "Hardware version:    11.00\n"
                "Serial number:       JPE00000000\n"
                "System MAC address:  444c.a800.0001\n\n"
                "Software image version: 4.20.15M\n"
                "Architecture:           i686\n"
                "Internal build version: 4.20.15M-sim\n"
                "Internal build ID:      00000000-0000-0000-0000-000000000000\n\n"
                "Uptime:                 1 day, 2 hours and 3 minutes\n"
                "Total memory:           8010424 kB\n"
                "Free memory:            5123456 kB"
            )
        if line == "show interfaces status":
            rows = ["Port       Name   Status       Vlan     Duplex Speed  Type         Flags"]
            for name in sorted(self.state.running["interfaces"], key=_key):
                settings = self.state.running["interfaces"][name]
                status = "disabled" if settings["shutdown"] else "connected"
                speed = (settings.get("speed") or "100g").split()[-1].replace("full", "")
                vlan = (
                    "in Po" + str(settings["channel_group"][0])
                    if settings.get("channel_group")
                    else "1"
                )
                rows.append(
                    f"{_short(name):<10} {(settings.get('description') or '')[:6]:<6} "
                    f"{status:<12} {vlan:<8} full   {speed:<6} 100GBASE-SR4"
                )
            return "\n".join(rows)
        raise _invalid(line, 2)

    def _config_command(self, line: str) -> str:
        config = self.config
        words = line.split()
        negate = words[0] == "no"
        body = words[1:] if negate else words
        text = " ".join(body)
        if body[:1] == ["hostname"] and len(body) == 2 and not negate:
            config["hostname"] = body[1]
        elif body[:3] == ["transceiver", "qsfp", "default-mode"]:
            if negate:
                config["transceiver_default_mode"] = None
            elif len(body) == 4 and body[3] == "4x10G":
                config["transceiver_default_mode"] = "4x10G"
            else:
                raise _invalid(line, 4)
        elif body[:2] == ["spanning-tree", "mode"]:
            if negate:
                config["spanning_tree_mode"] = "mstp"
            elif len(body) == 3 and body[2] in ("mstp", "rstp", "rapid-pvst", "none"):
                config["spanning_tree_mode"] = body[2]
            else:
                raise _invalid(line, 3)
        elif text == "ip routing":
            config["ip_routing"] = not negate
        elif body[:2] == ["ip", "route"] and len(body) == 4:
            route = [body[2], body[3]]
            if negate:
                if route in config["routes"]:
                    config["routes"].remove(route)
            elif route not in config["routes"]:
                config["routes"].append(route)
        elif body[:1] == ["interface"] and len(body) >= 2:
            name = _canonical("".join(body[1:]))
            if name is None:
                raise _invalid(line, 2)
            if name.startswith("Port-Channel"):
                number = name[len("Port-Channel") :]
                if negate:
                    config["port_channels"].pop(number, None)
                    return ""
                config["port_channels"].setdefault(number, _interface())
            elif name not in config["interfaces"]:
                raise CommandError(f"% Interface {name} not found")  # unverified wording
            elif negate:
                config["interfaces"][name] = _interface()
                return ""
            self.modes = [("config", ""), ("interface", name)]
        else:
            raise _invalid(line)
        return ""

    def _interface_command(self, target: str, line: str) -> str | None:
        if target.startswith("Port-Channel"):
            settings = self.config["port_channels"][target[len("Port-Channel") :]]
        else:
            settings = self.config["interfaces"][target]
        words = line.split()
        if line == "shutdown":
            settings["shutdown"] = True
        elif line == "no shutdown":
            settings["shutdown"] = False
        elif words[0] == "description" and len(words) > 1:
            settings["description"] = line.split(" ", 1)[1]
        elif line == "no description":
            settings["description"] = None
        elif words[0] == "speed" and len(words) > 1:
            speed = " ".join(words[1:])
            if speed not in SPEEDS:
                raise _invalid(line, 2)
            settings["speed"] = SPEEDS[speed]
        elif words[:2] == ["no", "speed"]:
            settings["speed"] = None
        elif words[0] == "mtu" and len(words) == 2 and words[1].isdigit():
            settings["mtu"] = int(words[1])
        elif line == "no mtu":
            settings["mtu"] = None
        elif re.fullmatch(r"channel-group \d+ mode (active|passive|on)", line):
            group = words[1]
            self.config["port_channels"].setdefault(group, _interface())
            settings["channel_group"] = [group, words[3]]
        elif words[:2] == ["no", "channel-group"]:
            settings["channel_group"] = None
        elif re.fullmatch(r"switchport access vlan \d+", line):
            settings["access_vlan"] = int(words[-1])
        elif line in (
            "switchport mode trunk",
            "switchport mode access",
            "no switchport access vlan",
        ):
            if line == "no switchport access vlan":
                settings["access_vlan"] = None
        else:
            return None
        return ""
