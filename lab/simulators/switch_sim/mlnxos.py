"""NVIDIA MLNX-OS 3.9 on a Quantum QM8700 (40 HDR InfiniBand ports): the CLI session (the
device model is mlnxos_model.py).

A session walks the device's modes: Standard (`>`) after an SSH login, Enable (`#`) after
`enable` (no password), Config (`(config) #`) after `configure terminal`, and an interface
mode for one port or a range (`(config interface ib 1/1-1/18) #`). Every prompt carries
the HA state, `<host> [standalone: master] ...` [SX6036 notes]. Keywords may be
abbreviated to a unique prefix: netmiko's driver sends `config term`, and captures show
`int ib 1/1-1/36`, `no shut`, `wr mem`, `sh ports type` (a 3rd-party SX6036 transcript,
code search "int ib 1/1-1/36").

A port takes a description (`description port 3` in interface mode, the rest of the line:
Omnia's infiniband role sends it unquoted, as mellanox.onyx does for Ethernet ports), shown
by `show interfaces ib` and `show interfaces ib status`. SNMP is in mlnxos_snmp.py.

Configuration applies at once to the running configuration; `configuration write`
(Config) and `write memory` (Enable, and Config through the Enable commands it also
runs) copy it to startup [MLNX-OS manual]. A refused command prints a line starting with `%`
and changes nothing: every value is checked before anything is written.

Sources (named in brackets below; mlnxos_model.py lists the others):
- MLNX-OS manual: NVIDIA MLNX-OS User Manual v3.10 (docs.nvidia.com/networking/display/
  MLNXOSv3104202): "Command Line Interface (CLI)", "Configuration Management", "SM
  Commands", "UI Commands", "InfiniBand Interface";
- mellanox.onyx: github ansible-collections/mellanox.onyx, plugins/terminal/onyx.py,
  plugins/cliconf/onyx.py, plugins/modules/onyx_interface.py (`description <text>` in
  interface mode, read back as `Description`) and the unit fixtures (MLNX-OS 3.6.5000
  `show version`, a running config);
- Omnia: github dell/omnia, the infiniband switch role (network/roles/infiniband/tasks/
  configure_interface.yml: `interface ib 1/N`, `description port N`, `no shutdown`);
- netmiko: github ktbyers/netmiko 4.6.0, netmiko/mellanox/mellanox_mlnxos_ssh.py;
- QM8700 capture: the public blog "High Performance computing (HPC) on Openstack" (2022);
- SX6036 notes: public notes on MLNX-OS 3.6.8012 on an SX6036 (a skill file and the blog
  "Mellanox SX6036");
- third-party scripts found by code search: MLNX-OS collection scripts (`show interfaces
  ib status | json-print`, `| include LinkUp`), SM automation (`show ib sm`, `ib smnode`),
  a note on HDR100 splitting and notes on the `show hosts` output;
Where a wording or layout has no source it is marked "unverified" at the place it is used.
"""

from __future__ import annotations

import copy
import json
import shlex
from collections.abc import Callable
from typing import Any

from . import cli, mlnxos_snmp
from . import mlnxos_model as model
from .cli import ARG, END, CommandError, KeywordErrors
from .mlnxos_model import (
    HOSTNAME_RE,
    MTU,
    SPEEDS,
    SPLIT,
    UNSPLIT,
    expand_range,
    front_panel,
    link,
    new_port,
    port_key,
    render,
    sm_running,
    snmp_settings,
    unrecognized,
    version_data,
    version_text,
)
from .state import SessionEnd, SwitchState

# what server.py reads of a platform module
DEFAULT_HOSTNAME = model.DEFAULT_HOSTNAME
factory = model.factory

ERR_INCOMPLETE = "% Incomplete command."  # unverified (no source gives exact `%` strings)
REJECTED = "% Command rejected."  # the fault injection's refusal; wording unverified


def ambiguous(word: str) -> CommandError:
    return CommandError(f'% Ambiguous command "{word}".')  # unverified


# MLNX-OS names the word it cannot place in its keyword errors
KEYWORD_ERRORS = KeywordErrors(
    ambiguous=ambiguous,
    unknown=unrecognized,
    incomplete=lambda: CommandError(ERR_INCOMPLETE),
)


# ---- grammar -----------------------------------------------------------------------------


def merge(*grammars: dict[str, Any]) -> dict[str, Any]:
    """Deep union of keyword trees: Config mode also runs the Enable commands [SX6036 notes:
    `wr mem` and `sh ports type` typed at `(config) #`]."""
    result: dict[str, Any] = {}
    for grammar in grammars:
        for key, value in grammar.items():
            if isinstance(value, dict) and isinstance(result.get(key), dict):
                result[key] = merge(result[key], value)
            else:
                result[key] = copy.deepcopy(value)
    return result


PAGING = {"cli": {"session": {"paging": {"enable": {END: True}}}}}
STANDARD_GRAMMAR: dict[str, Any] = {
    "enable": {END: True},
    "exit": {END: True},
    "no": PAGING,  # netmiko and mellanox.onyx send it right after login [netmiko, mellanox.onyx]
    "show": {
        "version": {END: True},
        "interfaces": {"ib": {"status": {END: True}, ARG: True}},
        "hosts": {END: True},
    },
}
# Enable adds what a monitor prompt lacks (`show running-config`, `show ib ...` need
# enable: [SX6036 notes]) and the save command.
ENABLE_GRAMMAR = merge(
    STANDARD_GRAMMAR,
    {
        "disable": {END: True},
        "configure": {"terminal": {END: True}},
        "write": {"memory": {END: True}},
        "show": {
            "running-config": {END: True},
            "configuration": {"files": {END: True}},
            "ib": {"sm": {END: True}, "smnode": {ARG: True}},
        },
    },
)
CONFIG_ONLY: dict[str, Any] = {
    "interface": {"ib": {ARG: True}},
    "hostname": {ARG: True},
    "ib": {"sm": {END: True}, "smnode": {ARG: True}},
    "configuration": {"write": {END: True}},
    "cli": {"default": {"paging": {"enable": {END: True}}}},  # [MLNX-OS manual]
    **mlnxos_snmp.GRAMMAR,
    "no": {
        "configure": {END: True},
        "ib": {"sm": {END: True}},
        "cli": {
            "default": {"paging": {"enable": {END: True}}, "prefix-modes": {"enable": {END: True}}}
        },
        **mlnxos_snmp.GRAMMAR,
    },
}
_ENABLE_IN_CONFIG = {k: v for k, v in ENABLE_GRAMMAR.items() if k not in ("disable", "configure")}
CONFIG_GRAMMAR = merge(_ENABLE_IN_CONFIG, CONFIG_ONLY)
INTERFACE_ONLY: dict[str, Any] = {
    "shutdown": {END: True},
    "speed": {ARG: True},
    "module-type": {ARG: True},
    "description": {ARG: True},
    # `no description`: the usual form of the CLI, unverified for IB ports
    "no": {"shutdown": {END: True}, "speed": {END: True}, "description": {END: True}},
}
# what interface mode runs on its ports (the rest of INTERFACE_GRAMMAR is Config mode's)
PORT_COMMANDS = {
    ("shutdown",),
    ("speed",),
    ("module-type",),
    ("description",),
    ("no", "shutdown"),
    ("no", "speed"),
    ("no", "description"),
}
INTERFACE_GRAMMAR = merge(CONFIG_GRAMMAR, INTERFACE_ONLY)


def parse(words: list[str], grammar: dict[str, Any]) -> tuple[tuple[str, ...], list[str]]:
    """Expand unique keyword prefixes; return (keywords, the rest for the handler)."""
    return cli.parse(words, grammar, KEYWORD_ERRORS)


def keyword(word: str, choices: tuple[str, ...]) -> str:
    """One argument keyword, abbreviated or not."""
    return cli.keyword(word, choices, KEYWORD_ERRORS)


# ---- the session -------------------------------------------------------------------------


class MLNXOSSession:
    """One CLI session: its mode, the ports an interface mode works on, the commands."""

    platform = "mlnxos"
    REJECTED = REJECTED
    echo = True

    def __init__(self, state: SwitchState):
        self.state = state
        # Driven without the SSH layer (the console the lab types day-0 lines at) the
        # session is privileged; login() puts an SSH user at the Standard prompt [MLNX-OS manual].
        self.mode = "enable"
        self.targets: list[str] = []
        self.target_text = ""

    def exec_lines(self, command: str) -> list[str]:
        """An SSH exec request's lines: `cli "enable" "show interfaces ib status"` runs
        each quoted argument as a line, in order (as Omnia reads its QM8700s; options such
        as `-h` before them are skipped: their meaning is unverified); any other command
        is one CLI line."""
        try:
            words = shlex.split(command)
        except ValueError:
            return [command]
        if words[:1] == ["cli"]:
            return [word for word in words[1:] if not word.startswith("-")]
        return [command]

    def login(self, username: str, password: str = "") -> None:
        """Every SSH login starts in Standard mode (`>`), whatever the account [SX6036 notes]."""
        self.mode = "standard"

    @property
    def config(self) -> dict[str, Any]:
        return self.state.running

    @property
    def in_config(self) -> bool:
        return self.mode in ("config", "interface")

    def prompt(self) -> str:
        host = f"{self.config['hostname']} [standalone: master]"
        if self.mode == "standard":
            return f"{host} > "
        if self.mode == "enable":
            return f"{host} # "
        if self.mode == "config":
            return f"{host} (config) # "
        return f"{host} (config interface ib {self.target_text}) # "

    # -- dispatch ------------------------------------------------------------------------

    def execute(self, line: str) -> str:
        """Run one line; return what the device prints (errors too)."""
        line = line.strip()
        if not line or line.startswith("#"):
            return ""  # `#` lines are comments in the device's own config files [mellanox.onyx]
        try:
            command, pipe = self._split_pipe(line)
            with self.state.lock:
                if pipe and pipe[0] == "json-print":
                    return self._json(command)
                return self._filter(self._dispatch(command.split()), pipe)
        except CommandError as err:
            return str(err)

    @staticmethod
    def _split_pipe(line: str) -> tuple[str, list[str]]:
        """`show x | json-print` or `show x | include WORD` [mellanox.onyx, collection scripts]."""
        if "|" not in line:
            return line, []
        command, _, pipe = line.partition("|")
        words = pipe.split()
        if not words:
            raise CommandError(ERR_INCOMPLETE)
        if not "show".startswith(command.split()[0].lower() if command.split() else "-"):
            raise unrecognized("|")  # filters follow show commands (inferred)
        words[0] = keyword(words[0], ("json-print", "include"))
        if words[0] == "include" and len(words) < 2:
            raise CommandError(ERR_INCOMPLETE)
        if words[0] == "json-print" and len(words) > 1:
            raise unrecognized(words[1])
        return command.strip(), words

    @staticmethod
    def _filter(output: str, pipe: list[str]) -> str:
        """`| include WORD` keeps the lines that contain WORD."""
        if not pipe:
            return output
        pattern = " ".join(pipe[1:]).strip('"')
        return "\n".join(line for line in output.splitlines() if pattern in line)

    def _grammar(self) -> dict[str, Any]:
        return {
            "standard": STANDARD_GRAMMAR,
            "enable": ENABLE_GRAMMAR,
            "config": CONFIG_GRAMMAR,
            "interface": INTERFACE_GRAMMAR,
        }[self.mode]

    def _dispatch(self, words: list[str]) -> str:
        path, args = parse(words, self._grammar())
        if self.mode == "interface" and path in PORT_COMMANDS:
            return self._port_command(self.targets, path, args)
        if "snmp-server" in path[:2]:
            return self._snmp(path, args)
        handlers: dict[tuple[str, ...], Callable[[], str]] = {
            ("enable",): lambda: self._set_mode("enable"),
            ("disable",): lambda: self._set_mode("standard"),
            ("exit",): self._exit,
            ("no", "configure"): lambda: self._set_mode("enable"),
            ("configure", "terminal"): lambda: self._set_mode("config"),
            ("no", "cli", "session", "paging", "enable"): lambda: "",
            ("cli", "default", "paging", "enable"): lambda: "",
            ("no", "cli", "default", "paging", "enable"): lambda: "",
            ("no", "cli", "default", "prefix-modes", "enable"): lambda: "",
            ("show", "version"): version_text,
            ("show", "hosts"): self._show_hosts,
            ("show", "interfaces", "ib"): lambda: self._show_ports(args),
            ("show", "interfaces", "ib", "status"): self._status,
            ("show", "running-config"): lambda: render(self.config),
            ("show", "configuration", "files"): self._files,
            ("show", "ib", "sm"): lambda: "enable" if self.config["sm"] else "disable",
            ("show", "ib", "smnode"): lambda: self._show_smnode(args),
            ("write", "memory"): self._save,
            ("configuration", "write"): self._save,
            ("hostname",): lambda: self._hostname(args),
            ("ib", "sm"): lambda: self._set_sm(True),
            ("no", "ib", "sm"): lambda: self._set_sm(False),
            ("ib", "smnode"): lambda: self._smnode(args),
            ("interface", "ib"): lambda: self._interface(args),
        }
        return handlers[path]()

    def _set_mode(self, mode: str) -> str:
        self.mode = mode
        self.targets, self.target_text = [], ""
        return ""

    def _exit(self) -> str:
        """Interface -> Config -> Enable; from Enable or Standard `exit` logs out
        (netmiko's driver sends `exit` until `(config` is gone [netmiko])."""
        if self.mode == "interface":
            return self._set_mode("config")
        if self.mode == "config":
            return self._set_mode("enable")
        raise SessionEnd

    # -- configuration -------------------------------------------------------------------

    def _save(self) -> str:
        self.state.save()
        return ""

    def _hostname(self, args: list[str]) -> str:
        if len(args) != 1 or not HOSTNAME_RE.fullmatch(args[0]):
            raise unrecognized(args[1] if len(args) > 1 else args[0])  # unverified
        self.config["hostname"] = args[0]
        return ""

    def _snmp(self, path: tuple[str, ...], args: list[str]) -> str:
        snmp = snmp_settings(self.config)
        mlnxos_snmp.configure(snmp, path, args, KEYWORD_ERRORS)
        self.config["snmp"] = snmp
        return ""

    def _set_sm(self, enabled: bool) -> str:
        self.config["sm"] = enabled
        return ""

    def _own_smnode(self, args: list[str]) -> None:
        """`<host> <word>` naming this switch's own SM node, or the device's refusal."""
        if len(args) < 2:
            raise CommandError(ERR_INCOMPLETE)
        if len(args) > 2:
            raise unrecognized(args[2])
        if args[0] != self.config["hostname"]:
            raise CommandError(f"% Unknown SM node {args[0]}.")  # unverified

    def _smnode(self, args: list[str]) -> str:
        """`ib smnode <host> enable|disable` [3rd-party SM automation]; only this switch's
        own node exists on a standalone switch (refusing other names is inferred; wording
        unverified)."""
        self._own_smnode(args)
        self.config["smnodes"][args[0]] = keyword(args[1], ("enable", "disable"))
        return ""

    def _interface(self, args: list[str]) -> str:
        """`interface ib RANGE` enters interface mode; `interface ib RANGE CMD` runs CMD on
        the range in one line, the form running-config uses [mellanox.onyx] and the split
        uses [MLNX-OS manual]."""
        if not args:
            raise CommandError(ERR_INCOMPLETE)
        names = expand_range(args[0], self.config["ports"])
        if len(args) > 1:
            path, rest = parse(args[1:], INTERFACE_ONLY)
            return self._port_command(names, path, rest)
        self.mode, self.targets, self.target_text = "interface", names, args[0]
        return ""

    def _port_command(self, names: list[str], path: tuple[str, ...], args: list[str]) -> str:
        """shutdown / speed / module-type / description on ports, all checked before any
        changes."""
        ports = self.config["ports"]
        if path == ("module-type",):
            return self._module_type(names, args)
        if path == ("description",):
            text = self._description(args)
            for name in names:
                ports[name]["description"] = text
            return ""
        if path == ("no", "description"):
            for name in names:
                ports[name].pop("description", None)
            return ""
        if path in (("shutdown",), ("no", "shutdown")):
            for name in names:
                ports[name]["shutdown"] = path == ("shutdown",)
            return ""
        speeds = self._speeds(args) if path == ("speed",) else None
        for name in names:
            ports[name]["speeds"] = speeds
        return ""

    @staticmethod
    def _description(args: list[str]) -> str:
        """The rest of the line, `description port 3` [Omnia] or `description "port 3"` (the
        quoted form, as running-config lists it, is unverified)."""
        text = " ".join(args)
        if len(text) > 1 and text[0] == text[-1] == '"':
            text = text[1:-1]
        if not text:
            raise CommandError(ERR_INCOMPLETE)
        return text

    @staticmethod
    def _speeds(args: list[str]) -> list[str]:
        """`speed qdr fdr` [SX6036 notes]: one or more of the port's speeds, kept in their order."""
        if not args:
            raise CommandError(ERR_INCOMPLETE)
        chosen = [keyword(word, SPEEDS) for word in args]
        if len(set(chosen)) != len(chosen):
            raise unrecognized(args[-1])  # a speed twice: unverified
        return [s for s in SPEEDS if s in chosen]

    def _module_type(self, names: list[str], args: list[str]) -> str:
        """Split whole ports (`qsfp-split-2`) or unsplit through a sub-port (`qsfp`).

        The split takes effect at once, without `system profile ib split-ready` and a
        reload: the [QM8700 capture] shows the sub-ports after the one-line split,
        and only a hedged 3rd-party note on HDR100 splitting names the profile. `force` skips the
        device's confirmation question, which is not modelled (typing the command
        without `force` does the same here; unverified).
        """
        if not args:
            raise CommandError(ERR_INCOMPLETE)
        kind = keyword(args[0], (SPLIT, UNSPLIT))
        if len(args) > 1:
            keyword(args[1], ("force",))
        if len(args) > 2:
            raise unrecognized(args[2])
        if kind == SPLIT:
            if any(len(port_key(n)) == 3 for n in names):
                # splitting a sub-port, i.e. a port already split: wording unverified
                raise CommandError(f"% Interface ib {names[0]} is already split.")
            for name in names:
                self._replace(front_panel(name), [f"{name}/1", f"{name}/2"])
        else:
            if any(len(port_key(n)) == 2 for n in names):
                raise CommandError(f"% Interface ib {names[0]} is not split.")  # unverified
            for number in sorted({front_panel(n) for n in names}):
                self._replace(number, [f"1/{number}"])
        if self.mode == "interface" and any(t not in self.config["ports"] for t in self.targets):
            self._set_mode("config")  # the interfaces of this mode are gone (inferred)
        return ""

    def _replace(self, number: int, names: list[str]) -> None:
        """Front-panel port `number` becomes `names`, at factory settings (whether settings
        survive a split is unverified)."""
        ports = self.config["ports"]
        for old in [n for n in ports if front_panel(n) == number]:
            del ports[old]
        for name in names:
            ports[name] = new_port()

    # -- shows ---------------------------------------------------------------------------

    def _link(self, name: str) -> tuple[str, str, str, str, str]:
        return link(name, self.config["ports"][name], self.config, self.state.cabled_ports)

    def _show_ports(self, args: list[str]) -> str:
        """`show interfaces ib 1/2/1`: the block of the [QM8700 capture]."""
        if len(args) > 1:
            raise unrecognized(args[1])
        blocks = []
        for name in expand_range(args[0], self.config["ports"]):
            logical, physical, speed, width, rate = self._link(name)
            widths = "1X, 2X" if len(port_key(name)) == 3 else "1X, 2X, 4X"  # 4X: unverified
            fields = [
                ("Logical port state", logical),
                ("Physical port state", physical),
                ("Current line rate", rate),
                ("Supported speeds", ", ".join(SPEEDS)),
                ("Speed", speed),
                ("Supported widths", widths),
                ("Width", width),
                ("Max supported MTUs", str(MTU)),
                ("MTU", str(MTU)),
                ("VL capabilities", "VL0 - VL7"),
                ("Operational VLs", "VL0 - VL3" if physical == "LinkUp" else "-"),
                ("Description", self.config["ports"][name].get("description", "")),
                ("IB Subnet", "infiniband-default"),
            ]
            body = "\n".join(f"        {k:<28}: {v}".rstrip() for k, v in fields)
            blocks.append(f"IB{name} state:\n{body}")
        return "\n\n".join(blocks)

    def _status_rows(self) -> list[dict[str, str]]:
        rows = []
        for name in sorted(self.config["ports"], key=port_key):
            logical, physical, speed, _, rate = self._link(name)
            description = self.config["ports"][name].get("description", "")
            rows.append({"Interface": f"IB{name}", "Description": description, "Speed": speed,
                         "Current line rate": rate, "Logical port state": logical,
                         "Physical port state": physical})  # fmt: skip
        return rows

    def _status(self) -> str:
        """`show interfaces ib status`: one row a port. The command exists and scripts
        grep it for `LinkUp` [collection scripts]; the table layout is **unverified**."""
        rows = self._status_rows()
        header = list(rows[0])
        table = [header, ["-" * len(h) for h in header]] + [list(r.values()) for r in rows]
        widths = (12, 13, 8, 19, 20, 0)
        return "\n".join(
            "".join(f"{v:<{w}}" for v, w in zip(line, widths, strict=True)).rstrip()
            for line in table
        )

    def _json_shows(self) -> dict[tuple[str, ...], Callable[[], Any]]:
        """The shows the model prints as JSON: `show version` [mellanox.onyx] and `show
        interfaces ib status` [collection scripts] (whether others do is unverified)."""
        return {
            ("show", "version"): version_data,
            ("show", "interfaces", "ib", "status"): self._status_data,
        }

    def _status_data(self) -> dict[str, list[dict[str, str]]]:
        # shape unverified: an object per interface, keyed by its name
        return {row.pop("Interface"): [row] for row in self._status_rows()}

    def _json(self, command: str) -> str:
        """`| json-print`: the show's object as JSON text; other commands refuse it."""
        path, _ = parse(command.split(), self._grammar())
        if path not in self._json_shows():
            raise unrecognized("json-print")
        return json.dumps(self._json_shows()[path](), indent=4)

    def json_data(self, line: str) -> Any:
        """The object of `line` for a show the model prints as JSON, else None: what the
        JSON API answers in `data` for a parsed show (mlnxos_json.py)."""
        with self.state.lock:
            try:
                path, _ = parse(line.split(), self._grammar())
            except CommandError:
                return None
            build = self._json_shows().get(path)
            return build() if build else None

    def _files(self) -> str:
        """`show configuration files`: `initial` is the active file [MLNX-OS manual]; the
        `Active configuration` / `Unsaved changes` lines are unverified."""
        unsaved = "yes" if self.state.running != self.state.startup else "no"
        return f"initial (active)\n\nActive configuration: initial\nUnsaved changes: {unsaved}"

    def _show_hosts(self) -> str:
        # a `Hostname:` line is what scripts grep (`show hosts | include Hostname`, 3rd-party
        # sinomiko notes); the rest of the output is not modelled
        return f"Hostname: {self.config['hostname']}"

    def _show_smnode(self, args: list[str]) -> str:
        """`show ib smnode <host> sm-state|sm-running` -> `enable`/`disable`,
        `active`/`not active` ([SX6036 notes], 3rd-party SM automation)."""
        self._own_smnode(args)
        what = keyword(args[1], ("sm-state", "sm-running"))
        node = self.config["smnodes"].get(args[0])
        if what == "sm-state":
            return node or ("enable" if self.config["sm"] else "disable")
        return "active" if sm_running(self.config) else "not active"
