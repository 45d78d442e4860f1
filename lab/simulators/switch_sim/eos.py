"""Arista EOS (DCS-7060CX2-32S) CLI: modes, privilege, configuration sessions, commands.

Sources (named in brackets below; eos_model.py lists the others):
- arista.eos: github ansible-collections/arista.eos, plugins/terminal/eos.py and
  plugins/cliconf/eos.py (what it sends, the errors it matches);
- EOS manual: arista.com/en/um-eos/eos-configure-session and
  arista.com/en/um-eos/eos-session-management-commands;
- eos.arista.com: "Common AAA Requirements" and "Securing EOS CLI";
- netmiko: github ktbyers/netmiko 4.6.0, netmiko/arista/arista.py;
- scrapli: its EOS driver's failure strings (driver/core/arista_eos/base_driver.py);
- error samples: napalm and nornir docs, aristanetworks/avd tests (`% Invalid input (at
  token N: ...)`).

A login lands in unprivileged exec (`>`) unless `aaa authorization exec default local` is
configured and the user's privilege is 2-15 [eos.arista.com]; `enable` asks for a password
only when an enable secret exists (without one it goes straight to `#`:
github.com/ytti/oxidized/issues/1632, "the user who ssh in can run enable without being
prompted"). Privileged commands typed
at `>` answer `% Invalid input (privileged mode required)` (a DCS-7060CX2-32S on EOS
4.28: github.com/ytti/oxidized/issues/3468).

Configuration sessions are device-wide: they live in the switch's state, survive the
SSH connection that opened them (`end` leaves them pending) and are limited to five
pending ones [EOS manual; EOS 4.25 notes]. A refused command changes nothing: each
command runs on a copy that is kept only when the command is accepted. What the device
prints is in eos_show.
"""

from __future__ import annotations

import copy
import ipaddress
import re
import time
from typing import Any

from . import eos_model as model
from . import eos_show
from .cli import CommandError, completions
from .eos_model import canonical_interface
from .state import SessionEnd, SwitchState

MAX_PENDING_SESSIONS = 5  # [EOS 4.25 notes: "Maximum number of pending sessions: 5"]
MAX_COMPLETED_SESSIONS = 1  # [EOS 4.25 notes: "Maximum number of completed sessions: 1"]
PRIVILEGE_REQUIRED = "% Invalid input (privileged mode required)"
INCOMPLETE = "% Incomplete command"  # [scrapli, arista.eos]
# [arista.eos: its terminal plugin matches "Maximum number of pending sessions has been
# reached"; the leading `% ` is **unverified**]
TOO_MANY_SESSIONS = "% Maximum number of pending sessions has been reached"
COPY_COMPLETED = "Copy completed successfully."  # **unverified**

factory = model.factory
render = model.render

DEFAULT_HOSTNAME = "switch"


def invalid(words: list[str], token: int) -> CommandError:
    """`% Invalid input (at token N: 'word')`, N the 0-based index of the bad token
    [error samples]."""
    word = words[token] if token < len(words) else words[-1]
    return CommandError(f"% Invalid input (at token {token}: '{word}')")


def parse_vlan_list(text: str, words: list[str], token: int) -> list[int]:
    """`10`, `10,20`, `10-12` -> VLAN ids, each within 1-4094 or an invalid-input error."""
    ids: list[int] = []
    for part in text.split(","):
        match = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if not match:
            raise invalid(words, token)
        low, high = int(match.group(1)), int(match.group(2) or match.group(1))
        if low not in model.VLAN_RANGE or high not in model.VLAN_RANGE or high < low:
            raise invalid(words, token)  # the out-of-range error text is **unverified**
        ids.extend(range(low, high + 1))
    return ids


# Keywords of each mode, for EOS's unique-prefix completion (`int e22`, `conf t`, `sh
# run`) [EOS CLI sources, EOS 4.25 notes]; a prefix that fits several keywords is
# `% Ambiguous command` [scrapli, arista.eos].
_SHOW: dict[str, Any] = {
    "running-config": {"all": {}},
    "startup-config": {},
    "session-config": {"diffs": {}, "named": {}},
    "configuration": {"sessions": {"detail": {}}},
    "version": {},
    "hostname": {},
    "interfaces": {"status": {}},
    "lldp": {"neighbors": {}},
    "vlan": {},
    "port-channel": {"summary": {}},
}
_EXEC: dict[str, Any] = {
    "configure": {"terminal": {}, "session": {}, "replace": {}},
    "copy": {"running-config": {"startup-config": {}}, "startup-config": {}},
    "write": {"memory": {}},
    "enable": {},
    "disable": {},
    "terminal": {"length": {}, "width": {}},
    "show": _SHOW,
    "exit": {},
    "logout": {},
    "bash": {},
    "dir": {"all-filesystems": {}},
}
_GLOBAL: dict[str, Any] = {
    "interface": {},
    "hostname": {},
    "ip": {"route": {}, "routing": {}},
    "vlan": {},
    "username": {},
    "aaa": {"authorization": {"exec": {"default": {"local": {}}}}},
    "enable": {"secret": {}},
    "spanning-tree": {"mode": {}},
    "transceiver": {"qsfp": {"default-mode": {}}},
    "end": {},
    "exit": {},
    "do": {},
    "show": _SHOW,
    "commit": {},
    "abort": {},
    "rollback": {"clean-config": {}},
}
_INTERFACE: dict[str, Any] = {
    **_GLOBAL,
    "description": {},
    "shutdown": {},
    "mtu": {},
    "speed": {"forced": {}, "auto": {}},
    "switchport": {
        "mode": {"access": {}, "trunk": {}},
        "access": {"vlan": {}},
        "trunk": {"native": {"vlan": {}}, "allowed": {"vlan": {}}},
    },
    "channel-group": {},
    "ip": {"route": {}, "routing": {}, "address": {}},
}
_VLAN: dict[str, Any] = {**_GLOBAL, "name": {}, "state": {}}


def expand(line: str, table: dict[str, Any], complete: bool = True) -> str:
    """Complete unique keyword prefixes before any pipe, as EOS's parser does.

    Without `complete` (eAPI's default: its `autoComplete` parameter "allows shorthand
    commands" [Arista eAPI documentation, anta asynceapi]) an abbreviated keyword is
    refused as invalid input (the wording of that refusal is **unverified**).
    """
    command, bar, pipes = line.partition("|")
    words = command.split()
    level = table
    for index, word in enumerate(words):
        if index == 0 and word in ("no", "default") and table is not _EXEC:
            continue
        if not level:
            break
        if word not in level:
            matches = completions(word, level, fold_case=False)
            if len(matches) > 1:
                raise CommandError("% Ambiguous command")
            if not matches:
                break
            if not complete:
                raise invalid(words, index)
            words[index] = word = matches[0]
        level = level[word]
    return " ".join(words) + (f" {bar}{pipes}" if bar else "")


class EOSSession:
    """One CLI session (an SSH connection) on the switch."""

    platform = "eos"
    REJECTED = "% Invalid input"

    def __init__(self, state: SwitchState):
        self.state = state
        with state.lock:
            model.upgrade(state.running)
        # The device model driven without the SSH layer (no login) is at `#`; the SSH
        # server calls login(), which applies the device's rule.
        self.privileged = True
        self.user = ""
        self.modes: list[tuple[str, Any]] = []
        self.session_name: str | None = None
        self.awaiting_password = False
        # Keyword prefixes are completed, as at any CLI; eAPI turns it off unless the
        # request sets `autoComplete`.
        self.auto_complete = True

    # ---- login, prompt, privilege ----------------------------------------------------

    def login(self, username: str, password: str = "") -> None:
        """Land where EOS lands this user [eos.arista.com] (the password plays no part
        after login)."""
        self.user = username
        config = self.state.running
        privilege = config["usernames"].get(username, {}).get("privilege", 1)
        self.privileged = bool(config["aaa_authorization_exec"]) and privilege >= 2

    @property
    def echo(self) -> bool:
        """A password typed after `enable` is not echoed."""
        return not self.awaiting_password

    @property
    def sessions(self) -> dict[str, dict[str, Any]]:
        """The switch's configuration sessions, shared by every connection [EOS manual]."""
        return self.state.volatile.setdefault("eos_sessions", {})

    @property
    def config(self) -> dict[str, Any]:
        """What configuration commands change: the open session's copy, or running."""
        if self.session_name is not None and self.modes:
            return self.sessions[self.session_name]["config"]
        return self.state.running

    @property
    def in_config(self) -> bool:
        return bool(self.modes)

    def prompt(self) -> str:
        if self.awaiting_password:
            return "Password: "
        host = self.state.running["hostname"]
        if not self.modes:
            return f"{host}{'#' if self.privileged else '>'}"
        session = f"-s-{self.session_name[:6]}" if self.session_name else ""
        kind, target = self.modes[-1]
        if kind == "interface":
            return f"{host}(config{session}-if-{model.short_name(target)})#"
        if kind == "vlan":  # `(config-vlan-10)`: **unverified**, by analogy with `-if-`
            return f"{host}(config{session}-vlan-{model.vlan_ranges(target)})#"
        return f"{host}(config{session})#"

    # ---- dispatch --------------------------------------------------------------------

    def execute(self, line: str) -> str:
        """Run one line; returns what the device prints (no prompt), a refusal included."""
        try:
            return self.run(line)
        except CommandError as err:
            return str(err)

    def run(self, line: str, as_json: bool = False) -> Any:
        """Run one line; return what the device prints or, with as_json, the JSON model
        of a show command (what eAPI's `format: json` answers; other commands still
        return their text). A refusal raises CommandError.

        The switch's lock is held for the line: other sessions (SSH or eAPI) interleave
        between lines, never within one.
        """
        with self.state.lock:
            if self.awaiting_password:
                return self._enable_password(line)
            line = line.strip()
            if not line:
                return ""
            line = expand(line, self._keywords(), self.auto_complete)
            if line.split()[0] == "show":
                return eos_show.json_model(self, line) if as_json else eos_show.run(self, line)
            if not self.modes:
                return self._exec(line)
            return self._config_line(line)

    def _keywords(self) -> dict[str, Any]:
        if not self.modes:
            return _EXEC
        return {"interface": _INTERFACE, "vlan": _VLAN}.get(self.modes[-1][0], _GLOBAL)

    def _enable_password(self, password: str) -> str:
        self.awaiting_password = False
        secret = self.state.running["enable_secret"]
        if secret and model.check_secret(password, secret):
            self.privileged = True
            return ""
        raise CommandError("% Access denied")  # wording **unverified**

    def require_privilege(self) -> None:
        if not self.privileged:
            raise CommandError(PRIVILEGE_REQUIRED)

    # ---- exec mode -------------------------------------------------------------------

    def _exec(self, line: str) -> str:
        words = line.split()
        if words == ["enable"]:
            if not self.privileged and self.state.running["enable_secret"]:
                self.awaiting_password = True
            else:
                self.privileged = True
            return ""
        if words == ["disable"]:
            self.privileged = False
            return ""
        if words[:1] == ["terminal"]:
            return self._terminal(words)
        if words in (["exit"], ["logout"], ["quit"]):
            raise SessionEnd
        if words[0] in ("configure", "copy", "write", "bash", "dir"):
            self.require_privilege()
        if words in (["configure"], ["configure", "terminal"]):
            self.modes = [("config", None)]
            return ""
        if words[:2] == ["configure", "session"]:
            return self._configure_session(words)
        if words[:3] == ["no", "configure", "session"] and len(words) == 4:
            self.require_privilege()
            self.sessions.pop(words[3], None)
            return ""
        if words in (["copy", "running-config", "startup-config"], ["write", "memory"], ["write"]):
            self.state.save()
            return COPY_COMPLETED
        if words[:1] == ["copy"]:
            return self._copy_to_flash(words)
        if words[:2] == ["configure", "replace"]:
            return self._configure_replace(words)
        if words[:1] == ["bash"]:
            return eos_show.bash(self, words)
        if words[:1] == ["dir"]:
            return eos_show.dir_all_filesystems(self, words)
        raise invalid(words, 0)

    def _copy_to_flash(self, words: list[str]) -> str:
        """`copy running-config|startup-config flash:NAME`: napalm's commit keeps the
        startup configuration it replaces as `flash:rollback-0` [napalm eos driver]. The
        file holds the configuration itself (the model renders it as EOS prints it).
        `flash:startup-config` is the startup configuration (`dir` lists it in flash:/)."""
        sources = {"running-config": self.state.running, "startup-config": self.state.startup}
        if len(words) < 3:
            raise CommandError(INCOMPLETE)
        if words[1] not in sources:
            raise invalid(words, 1)
        name = words[2].removeprefix("flash:")
        if len(words) > 3 or not words[2].startswith("flash:") or not name or "/" in name:
            raise invalid(words, 2)
        if name != "startup-config":
            self.state.write_file(name, sources[words[1]])
        elif words[1] == "running-config":
            self.state.save()
        return COPY_COMPLETED

    def _configure_replace(self, words: list[str]) -> str:
        """`configure replace flash:NAME`: the file becomes the running configuration
        (napalm's rollback) [napalm eos driver, EOS manual]. A file that is not there is
        refused (the wording is **unverified**)."""
        if len(words) == 2:
            raise CommandError(INCOMPLETE)
        if len(words) > 3 or not words[2].startswith("flash:"):
            raise invalid(words, 2 if len(words) == 3 else 3)
        name = words[2].removeprefix("flash:")
        saved = self.state.startup if name == "startup-config" else self.state.files.get(name)
        if saved is None:
            raise CommandError(f"% Error: {words[2]}: No such file or directory")
        self.state.running = copy.deepcopy(saved)
        model.upgrade(self.state.running)
        return ""

    def _terminal(self, words: list[str]) -> str:
        """`terminal length 0` / `terminal width N`: netmiko and arista.eos wait for the
        replies [netmiko, arista.eos]."""
        if len(words) == 3 and words[2].isdigit():
            if words[1] == "length":
                return "Pagination disabled." if words[2] == "0" else ""
            if words[1] == "width":
                return f"Width set to {words[2]} columns."
        if len(words) == 2 and words[1] in ("length", "width"):
            raise CommandError(INCOMPLETE)
        raise invalid(words, 1 if len(words) < 3 else 2)

    def _configure_session(self, words: list[str]) -> str:
        """`configure session [NAME] [commit|abort]` [EOS manual, arista.eos]."""
        if len(words) == 4 and words[3] in ("commit", "abort"):
            if words[2] not in self.sessions:
                raise invalid(words, 2)  # wording for an unknown session **unverified**
            if words[3] == "commit":
                self._commit(words[2])
            else:
                del self.sessions[words[2]]
            return ""
        if len(words) > 3:
            raise invalid(words, 3)
        name = words[2] if len(words) == 3 else self._new_session_name()
        existing = self.sessions.get(name)
        if existing is None or existing["state"] != "pending":
            pending = [s for s in self.sessions.values() if s["state"] == "pending"]
            if len(pending) >= MAX_PENDING_SESSIONS:
                raise CommandError(TOO_MANY_SESSIONS)
            self.sessions[name] = {
                "config": copy.deepcopy(self.state.running),
                "state": "pending",
                "user": self.user,
                "completed": None,
            }
        self.session_name = name
        self.modes = [("config", None)]
        return ""

    def _new_session_name(self) -> str:
        """An auto-generated name in EOS's pattern `sess-<pid>-<id>-<n>` [EOS manual]."""
        return f"sess-{2174}-{id(self.state) % 10**9}-{len(self.sessions)}"

    def _commit(self, name: str) -> None:
        """Apply a session to running; EOS keeps the last completed session listed
        [EOS 4.25 notes]."""
        session = self.sessions[name]
        self.state.running = session.pop("config")
        session["state"] = "completed"
        session["completed"] = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())
        done = [n for n, s in self.sessions.items() if s["state"] == "completed" and n != name]
        for old in done[: max(0, len(done) - MAX_COMPLETED_SESSIONS + 1)]:
            del self.sessions[old]

    # ---- configuration modes ---------------------------------------------------------

    def _config_line(self, line: str) -> str:
        words = line.split()
        if words == ["end"]:
            self.modes.clear()
            self.session_name = None  # a session stays pending [EOS manual]
            return ""
        if words == ["exit"]:
            self.modes.pop()
            if not self.modes:
                self.session_name = None
            return ""
        if self.session_name is not None and words in (["commit"], ["abort"]):
            if words == ["commit"]:
                self._commit(self.session_name)
            else:
                del self.sessions[self.session_name]
            self.modes.clear()
            self.session_name = None  # after commit the CLI leaves session mode [EOS 4.25 notes]
            return ""
        if words == ["rollback", "clean-config"] and self.session_name is not None:
            # the session starts over from the factory configuration, before the lines
            # of a full replace [EOS manual, arista.eos, napalm]; its hostname is the
            # one EOS shows with none configured (`no hostname`), **inferred**
            self.sessions[self.session_name]["config"] = model.factory("localhost")
            return ""
        if words[:1] == ["do"] and len(words) > 1:
            return self._exec(" ".join(words[1:]))
        target = self.config
        before = copy.deepcopy(target)
        try:
            return self._apply(words)
        except CommandError:
            target.clear()
            target.update(before)  # a refused command changes nothing
            raise

    def _apply(self, words: list[str]) -> str:
        kind, target = self.modes[-1]
        if kind == "interface":
            handled = self._interface_command(target, words)
            if handled is not None:
                return handled
        if kind == "vlan":
            handled = self._vlan_command(target, words)
            if handled is not None:
                return handled
        return self._global_command(words)

    def _global_command(self, words: list[str]) -> str:
        """Global configuration commands; a sub-mode falls back to these, as on EOS."""
        config = self.config
        negate = words[0] == "no"
        body = words[1:] if negate else words
        if not body:
            raise CommandError(INCOMPLETE)
        offset = 1 if negate else 0
        head = body[0]
        if head == "hostname":
            if negate:
                config["hostname"] = "localhost"
            elif len(body) == 2:
                config["hostname"] = body[1]
            else:
                raise CommandError(INCOMPLETE) if len(body) == 1 else invalid(words, 2)
        elif head == "transceiver":
            self._transceiver(config, words, body, negate)
        elif head == "spanning-tree":
            self._spanning_tree(config, words, body, negate)
        elif head == "ip" and body[1:2] == ["routing"] and len(body) == 2:
            config["ip_routing"] = not negate
        elif head == "ip" and body[1:2] == ["route"]:
            self._route(config, words, body, negate, offset)
        elif head == "ip":
            raise CommandError(INCOMPLETE) if len(body) == 1 else invalid(words, offset + 1)
        elif head == "vlan":
            self._vlan(config, words, body, negate, offset)
        elif head == "interface":
            self._enter_interface(config, words, body, negate, offset)
        elif head == "username":
            self._username(config, words, body, negate, offset)
        elif head == "aaa":
            if body[1:] != ["authorization", "exec", "default", "local"]:
                raise CommandError(INCOMPLETE) if len(body) < 5 else invalid(words, offset + 4)
            config["aaa_authorization_exec"] = not negate
        elif head == "enable" and body[1:2] == ["secret"]:
            self._enable_secret(config, words, body, negate)
        else:
            raise invalid(words, offset)
        return ""

    def _transceiver(self, config: dict, words: list[str], body: list[str], negate: bool) -> None:
        offset = 1 if negate else 0
        if body[:3] != ["transceiver", "qsfp", "default-mode"][: len(body)] or len(body) < 3:
            if body[:3] == ["transceiver", "qsfp", "default-mode"][: len(body)]:
                raise CommandError(INCOMPLETE)
            raise invalid(words, offset + len(body) - 1)
        if negate:
            config["transceiver_default_mode"] = None
        elif len(body) == 4 and body[3] == "4x10G":
            config["transceiver_default_mode"] = "4x10G"
        elif len(body) == 3:
            raise CommandError(INCOMPLETE)
        else:
            raise invalid(words, 3)

    def _spanning_tree(self, config: dict, words: list[str], body: list[str], negate: bool) -> None:
        offset = 1 if negate else 0
        if body[1:2] != ["mode"]:
            raise CommandError(INCOMPLETE) if len(body) == 1 else invalid(words, offset + 1)
        if negate:
            config["spanning_tree_mode"] = "mstp"
        elif len(body) == 3 and body[2] in ("mstp", "rstp", "rapid-pvst", "none"):
            config["spanning_tree_mode"] = body[2]
        elif len(body) == 2:
            raise CommandError(INCOMPLETE)
        else:
            raise invalid(words, 2)

    def _route(
        self, config: dict, words: list[str], body: list[str], negate: bool, offset: int
    ) -> None:
        """`ip route PREFIX NEXTHOP`; the prefix must be a valid IPv4 network (a /33 is
        invalid input, expected; **unverified**) and is stored as a network."""
        if len(body) < 4:
            if len(body) == 3:
                self._prefix(words, body[2], offset + 2)
            raise CommandError(INCOMPLETE)
        prefix = self._prefix(words, body[2], offset + 2)
        try:
            hop = str(ipaddress.IPv4Address(body[3]))
        except ValueError:
            raise invalid(words, offset + 3) from None
        if len(body) > 4:
            raise invalid(words, offset + 4)
        route = [prefix, hop]
        if negate:
            if route in config["routes"]:
                config["routes"].remove(route)
        elif route not in config["routes"]:
            config["routes"].append(route)

    @staticmethod
    def _prefix(words: list[str], text: str, token: int) -> str:
        match = re.fullmatch(r"(\d+\.\d+\.\d+\.\d+)/(\d+)", text)
        if not match or int(match.group(2)) > 32:
            raise invalid(words, token)
        try:
            return str(ipaddress.IPv4Network(text, strict=False))
        except ValueError:
            raise invalid(words, token) from None

    def _vlan(
        self, config: dict, words: list[str], body: list[str], negate: bool, offset: int
    ) -> None:
        if len(body) == 1:
            raise CommandError(INCOMPLETE)
        if len(body) > 2:
            raise invalid(words, offset + 2)
        ids = parse_vlan_list(body[1], words, offset + 1)
        if negate:
            for vid in ids:
                if vid != 1:  # VLAN 1 cannot be removed (**unverified** error; ignored here)
                    config["vlans"].pop(str(vid), None)
            return
        for vid in ids:
            config["vlans"].setdefault(str(vid), {"name": None, "state": "active"})
        self.modes = [("config", None), ("vlan", ids)]

    def _vlan_command(self, ids: list[int], words: list[str]) -> str | None:
        """`name X`, `state suspend|active` inside `vlan N` [arista.eos eos_vlans]."""
        vlans = self.config["vlans"]
        if words[0] == "name":
            if len(words) == 1:
                raise CommandError(INCOMPLETE)
            for vid in ids:
                vlans[str(vid)]["name"] = " ".join(words[1:])
        elif words == ["no", "name"]:
            for vid in ids:
                vlans[str(vid)]["name"] = None
        elif words[0] == "state":
            if len(words) == 1:
                raise CommandError(INCOMPLETE)
            if words[1:] not in (["suspend"], ["active"]):
                raise invalid(words, 1)
            for vid in ids:
                vlans[str(vid)]["state"] = words[1]
        elif words == ["no", "state"]:
            for vid in ids:
                vlans[str(vid)]["state"] = "active"
        else:
            return None
        return ""

    def _enter_interface(
        self, config: dict, words: list[str], body: list[str], negate: bool, offset: int
    ) -> None:
        if len(body) == 1:
            raise CommandError(INCOMPLETE)
        name = canonical_interface("".join(body[1:]))
        if name is None:
            raise invalid(words, offset + 1)
        if name.startswith("Port-Channel"):
            number = name[len("Port-Channel") :]
            if not 1 <= int(number) <= 2000:  # Port-Channel1-2000: range **unverified**
                raise invalid(words, offset + 1)
            if negate:
                config["port_channels"].pop(number, None)
                for settings in config["interfaces"].values():
                    if settings["channel_group"] and settings["channel_group"][0] == number:
                        settings["channel_group"] = None
                return
            config["port_channels"].setdefault(number, model.new_interface())
        elif name == "Management1":
            raise invalid(words, offset + 1)  # the management port is not modelled
        elif name not in config["interfaces"]:
            # an interface this model does not have, e.g. Ethernet35/1 or Ethernet1
            # (wording **unverified**: EOS's parser rejects the token)
            raise invalid(words, offset + 1)
        elif negate:
            config["interfaces"][name] = model.new_interface()
            return
        self.modes = [("config", None), ("interface", name)]

    def _username(
        self, config: dict, words: list[str], body: list[str], negate: bool, offset: int
    ) -> None:
        """`username NAME [privilege N] [role R] (nopassword|secret [0|sha512] X)`
        [eos.arista.com]."""
        if len(body) == 1:
            raise CommandError(INCOMPLETE)
        name = body[1]
        if negate:
            config["usernames"].pop(name, None)
            return
        new_user = {"privilege": 1, "role": "network-operator", "secret": None}
        user = dict(config["usernames"].get(name) or new_user)
        rest = body[2:]
        index = offset + 2
        if not rest:
            raise CommandError(INCOMPLETE)
        while rest:
            key = rest[0]
            if key in ("privilege", "role") and len(rest) >= 2:
                if key == "privilege":
                    if not rest[1].isdigit() or int(rest[1]) > 15:
                        raise invalid(words, index + 1)
                    user["privilege"] = int(rest[1])
                else:
                    user["role"] = rest[1]
                rest, index = rest[2:], index + 2
            elif key == "nopassword" and len(rest) == 1:
                user["secret"] = None
                rest = []
            elif key == "secret" and len(rest) in (2, 3):
                user["secret"] = self._secret_value(words, rest[1:], index + 1)
                rest = []
            elif key in ("privilege", "role", "secret"):
                raise CommandError(INCOMPLETE)
            else:
                raise invalid(words, index)
        config["usernames"][name] = user

    def _enable_secret(self, config: dict, words: list[str], body: list[str], negate: bool) -> None:
        if negate:
            config["enable_secret"] = None
            return
        if len(body) == 2:
            raise CommandError(INCOMPLETE)
        config["enable_secret"] = self._secret_value(words, body[2:], 2)

    @staticmethod
    def _secret_value(words: list[str], args: list[str], token: int) -> str:
        """`X`, `0 X` (clear text, stored hashed) or `sha512 $6$...` (already hashed)."""
        if len(args) == 1:
            return model.hash_secret(args[0])
        if args[0] == "0":
            return model.hash_secret(args[1])
        if args[0] == "sha512" and args[1].startswith("$6$"):
            return args[1]
        raise invalid(words, token)

    # ---- interface mode --------------------------------------------------------------

    def _interface_command(self, name: str, words: list[str]) -> str | None:
        """Interface sub-commands; None when the line is not one (then global commands)."""
        settings = model.interface_settings(self.config, name)
        negate = words[0] in ("no", "default")
        body = words[1:] if negate else words
        offset = 1 if negate else 0
        if not body:
            raise CommandError(INCOMPLETE)
        head = body[0]
        if head == "shutdown" and len(body) == 1:
            settings["shutdown"] = not negate
        elif head == "description":
            if negate:
                settings["description"] = None
            elif len(body) == 1:
                raise CommandError(INCOMPLETE)
            else:
                settings["description"] = " ".join(body[1:])
        elif head == "mtu":
            self._mtu(settings, words, body, negate, offset)
        elif head == "speed":
            if name.startswith("Port-Channel"):
                raise invalid(words, offset)
            self._speed(name, settings, words, body, negate, offset)
        elif head == "switchport":
            self._switchport(settings, words, body, negate, offset)
        elif head == "channel-group":
            if name.startswith("Port-Channel"):
                raise invalid(words, offset)
            self._channel_group(name, settings, words, body, negate, offset)
        elif head == "ip" and body[1:2] == ["address"]:
            self._ip_address(settings, words, body, negate, offset)
        else:
            return None
        return ""

    @staticmethod
    def _mtu(settings: dict, words: list[str], body: list[str], negate: bool, offset: int) -> None:
        if negate:
            settings["mtu"] = None
            return
        if len(body) == 1:
            raise CommandError(INCOMPLETE)
        if len(body) > 2 or not body[1].isdigit() or int(body[1]) not in model.MTU_RANGE:
            raise invalid(words, offset + 1)
        # 1500 is the default and is not printed (**inferred** from [ta367]: defaults hidden)
        settings["mtu"] = None if int(body[1]) == 1500 else int(body[1])

    @staticmethod
    def _speed(
        name: str, settings: dict, words: list[str], body: list[str], negate: bool, offset: int
    ) -> None:
        """`speed forced 100gfull` / `speed 100g` / `speed auto`, kept as typed [docs-csm];
        a speed the lane cannot run is refused [EOS CLI sources] (error text **unverified**)."""
        if negate or body[1:] == ["auto"]:
            settings["speed"] = None
            return
        if len(body) == 1 or body[1:] == ["forced"]:
            raise CommandError(INCOMPLETE)
        allowed = model.speeds_for(name)
        if body[1] == "forced":
            keyword, token = body[2] if len(body) > 2 else "", offset + 2
            ok = keyword.endswith("full") and keyword in allowed and len(body) == 3
        else:
            keyword, token = body[1], offset + 1
            ok = not keyword.endswith("full") and keyword in allowed and len(body) == 2
        if not ok:
            raise invalid(words, min(token, len(words) - 1))
        settings["speed"] = " ".join(body[1:])

    def _switchport(
        self, settings: dict, words: list[str], body: list[str], negate: bool, offset: int
    ) -> None:
        rest = body[1:]
        if not rest:
            settings["switchport"] = not negate
            return
        if rest[0] == "mode":
            if negate:
                settings["mode"] = None
            elif len(rest) == 1:
                raise CommandError(INCOMPLETE)
            elif rest[1:] == ["access"]:
                settings["mode"] = None  # the default, not printed
            elif rest[1:] == ["trunk"]:
                settings["mode"] = "trunk"
            else:
                raise invalid(words, offset + 2)
        elif rest[:2] == ["access", "vlan"]:
            if negate:
                settings["access_vlan"] = None
                return
            if len(rest) == 2:
                raise CommandError(INCOMPLETE)
            vid = parse_vlan_list(rest[2], words, offset + 3)
            if len(vid) != 1 or len(rest) > 3:
                raise invalid(words, offset + 3)
            settings["access_vlan"] = None if vid[0] == 1 else vid[0]
        elif rest[:3] == ["trunk", "native", "vlan"]:
            if negate:
                settings["native_vlan"] = None
                return
            if len(rest) == 3:
                raise CommandError(INCOMPLETE)
            if rest[3] == "tag":
                settings["native_vlan"] = "tag"
                return
            vid = parse_vlan_list(rest[3], words, offset + 4)
            if len(vid) != 1:
                raise invalid(words, offset + 4)
            settings["native_vlan"] = None if vid[0] == 1 else vid[0]
        elif rest[:3] == ["trunk", "allowed", "vlan"]:
            self._allowed_vlans(settings, words, rest[3:], negate, offset + 4)
        elif rest[0] in ("access", "trunk"):
            raise CommandError(INCOMPLETE) if len(rest) < 3 else invalid(words, offset + 2)
        else:
            raise invalid(words, offset + 1)

    @staticmethod
    def _allowed_vlans(
        settings: dict, words: list[str], args: list[str], negate: bool, token: int
    ) -> None:
        """`switchport trunk allowed vlan LIST|add LIST|remove LIST|all|none`."""
        if negate:
            settings["allowed_vlans"] = None
            return
        if not args:
            raise CommandError(INCOMPLETE)
        current = settings["allowed_vlans"]
        current_ids = (
            set(range(1, 4095))
            if current is None
            else set()
            if current == "none"
            else set(parse_vlan_list(current, words, token))
        )
        if args == ["all"]:
            new: set[int] | None = None
        elif args == ["none"]:
            new = set()
        elif args[0] in ("add", "remove", "except"):
            if len(args) == 1:
                raise CommandError(INCOMPLETE)
            ids = set(parse_vlan_list(args[1], words, token + 1))
            if args[0] == "add":
                new = current_ids | ids
            elif args[0] == "remove":
                new = current_ids - ids
            else:
                new = set(range(1, 4095)) - ids
        elif len(args) == 1:
            new = set(parse_vlan_list(args[0], words, token))
        else:
            raise invalid(words, token + 1)
        if new is None or new == set(range(1, 4095)):
            settings["allowed_vlans"] = None
        else:
            settings["allowed_vlans"] = model.vlan_ranges(sorted(new)) if new else "none"

    def _channel_group(
        self,
        name: str,
        settings: dict,
        words: list[str],
        body: list[str],
        negate: bool,
        offset: int,
    ) -> None:
        """`channel-group N mode active|passive|on`; changing the mode of a group that has
        other members fails with the device's message [arista.eos terminal plugin, PR #96]."""
        if negate:
            settings["channel_group"] = None
            return
        if len(body) < 4:
            if len(body) >= 2 and not body[1].isdigit():
                raise invalid(words, offset + 1)
            raise CommandError(INCOMPLETE)
        group, mode = body[1], body[3]
        if not group.isdigit() or not 1 <= int(group) <= 2000:
            raise invalid(words, offset + 1)
        if body[2] != "mode":
            raise invalid(words, offset + 2)
        if mode not in ("active", "passive", "on") or len(body) > 4:
            raise invalid(words, offset + 3)
        for other, other_settings in self.config["interfaces"].items():
            member = other_settings["channel_group"]
            if other != name and member and member[0] == group:
                lacp = {"active", "passive"}
                if (member[1] == "on") != (mode == "on") or not {member[1], mode} <= lacp | {"on"}:
                    raise CommandError("% Cannot change mode; remove all members and try again.")
        self.config["port_channels"].setdefault(group, model.new_interface())
        settings["channel_group"] = [group, mode]

    @staticmethod
    def _ip_address(
        settings: dict, words: list[str], body: list[str], negate: bool, offset: int
    ) -> None:
        """`ip address A.B.C.D/L`: a /32 on an Ethernet is refused with `% Prefix length
        must be less than 32` [github ansible/ansible PR #61747]."""
        if negate:
            settings["ip_address"] = None
            return
        if len(body) == 2:
            raise CommandError(INCOMPLETE)
        match = re.fullmatch(r"(\d+\.\d+\.\d+\.\d+)/(\d+)", body[2])
        if not match or int(match.group(2)) > 32 or len(body) > 3:
            raise invalid(words, offset + 2)
        try:
            ipaddress.IPv4Interface(body[2])
        except ValueError:
            raise invalid(words, offset + 2) from None
        if int(match.group(2)) == 32:
            raise CommandError("% Prefix length must be less than 32")
        settings["ip_address"] = body[2]
