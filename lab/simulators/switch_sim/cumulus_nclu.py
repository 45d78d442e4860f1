"""NCLU, the `net` command of Cumulus Linux 4.x: staged `net add|del`, `net pending`,
`net commit` / `net abort`, and the `net show` views clients read.

Sources: those named in cumulus.py's docstring (4.2 NCLU guide, 4.2 quick start, 4.2 port
attributes, 4.2 bonding, bridge guides, generic-switch, NCLU transcripts), and
napalm-cumulus (github napalm-automation/napalm-cumulus, napalm_cumulus/cumulus.py and
test/unit/mocked_data) and the nclu module (github ansible-collections/community.network,
plugins/modules/nclu.py).

NCLU keeps the staged commands of every user in one buffer (its daemon, netd) until a
commit writes /etc/network/interfaces and /etc/cumulus/ports.conf, so the buffer lives in
the switch's volatile state: shared by sessions, lost on restart. A value outside a
token's range does not match NCLU's grammar, so it is answered like any unknown command:
`ERROR: Command not found` and the syntax lines that come closest [4.2 NCLU guide].

NCLU "is interoperable with the regular way of accessing underlying configuration files"
[4.2 NCLU guide]: a hand edit of /etc/network/interfaces applied with `ifreload -a` is in
the running configuration NCLU stages from (cumulus_ifupdown.py). `net commit` writes the
file again from the configuration, so an edit never applied is replaced (whether NCLU
would fold it in is **unverified**).
"""

from __future__ import annotations

import copy
import difflib
import ipaddress
import json
import re
import time
from typing import Any

from . import cumulus_ifupdown as ifupdown
from . import cumulus_model as model

NOT_FOUND = "ERROR: Command not found"  # [4.2 NCLU guide]
# [4.2 NCLU guide] refusal for a user outside netd.conf's users_with_edit / groups_with_edit
NO_PERMISSION = "ERROR: User {user} does not have permission to make networking changes."
EDITORS = ("root", "cumulus")  # netd.conf users_with_edit default [4.2 NCLU guide]
# Banner before the command log of `net pending` / `net commit` [NCLU transcripts, 2019-2021];
# whether 4.2.1 quotes "net commit" with double or single quotes is **unverified**.
LOG_BANNER = 'net add/del commands since the last "net commit"'
SPEEDS = ("10", "100", "1000", "10000", "25000", "40000", "50000", "100000", "200000")
FECS = ("rs", "baser", "off")  # [4.2 port attributes]
BREAKOUT_WORDS = (*model.BREAKOUTS, *model.BREAKOUT_ALIASES, "disabled")
# ANSI colours of diff lines (netd.conf color_diffs, default True [4.2 NCLU guide];
# napalm-cumulus strips `\x1b\[\d+m`); which colour codes NCLU uses is **unverified**.
BOOTED = time.time()
GREEN, RED, RESET = "\x1b[32m", "\x1b[31m", "\x1b[0m"

# The syntax lines NCLU suggests after `Did you mean one of the following?` [4.2 NCLU guide]
SYNTAX = (
    "net add interface <interface>",
    "net add interface <interface> alias <text>",
    "net add interface <interface> mtu <552-9216>",
    "net add interface <interface> link speed (10|100|1000|10000|25000|40000|50000|100000|200000)",
    "net add interface <interface> link autoneg (on|off)",
    "net add interface <interface> link fec (rs|baser|off)",
    "net add interface <interface> link down",
    "net add interface <interface> breakout (1x|2x|4x|2x100G|2x50G|4x50G|4x25G|4x10G|disabled)",
    "net add interface <interface> bridge access <1-4094>",
    "net add interface <interface> bridge trunk vlans <number-ranges>",
    "net add bond <bond> bond slaves <interface-list>",
    "net add bond <bond> bond mode (802.3ad|balance-xor)",
    "net add bond <bond> alias <text>",
    "net add bond <bond> mtu <552-9216>",
    "net add bond <bond> bridge access <1-4094>",
    "net add bond <bond> bridge trunk vlans <number-ranges>",
    "net add bridge bridge ports <interface-list>",
    "net add bridge bridge vids <number-ranges>",
    "net add bridge bridge pvid <1-4094>",
    "net add vlan <number-ranges>",
    "net add vlan <1-4094> ip address <ipv4/prefixlen>",
    "net add hostname <text>",
    "net abort",
    "net commit [description <text>]",
    "net pending [json]",
    "net show configuration commands",
    "net show interface [all] [json]",
    "net show interface <interface> [json]",
    "net show system",
    "net show version",
)


class NotFound(Exception):
    """The words match no NCLU syntax line."""


class Refused(Exception):
    """NCLU's own `ERROR: ...` line for a command it understood but will not stage."""


def suggestions(words: list[str]) -> str:
    """`ERROR: Command not found` and the syntax lines sharing the longest keyword prefix."""

    words = (
        [*words[:2], "interface" if words[2:3] == ["int"] else words[2], *words[3:]]
        if len(words) > 2
        else words
    )

    def matched(line: str) -> int:
        count = 0
        for typed, token in zip(words, line.replace("(add|del)", "add").split(), strict=False):
            if (
                token.startswith(("<", "(", "["))
                or token == typed
                or (token == "add" and typed == "del")
            ):
                count += 1
            else:
                break
        return count

    best = max(matched(line) for line in SYNTAX)
    lines = [line for line in SYNTAX if matched(line) == best and best >= 2]
    if not lines:
        return NOT_FOUND
    if words[1:2] == ["del"]:
        lines = [line.replace("net add ", "net del ", 1) for line in lines]
    body = "\n".join(f"    {line}" for line in lines[:12])
    return f"{NOT_FOUND}\n\nDid you mean one of the following?\n\n{body}"


def table(headers: list[str], rows: list[list[str]], right: tuple[int, ...] = ()) -> str:
    """A plain table as NCLU prints it: two spaces between columns, a dash rule per column."""
    widths = [max(len(str(x)) for x in [h, *(r[i] for r in rows)]) for i, h in enumerate(headers)]

    def line(cells: list[str]) -> str:
        return "  ".join(
            str(c).rjust(w) if i in right else str(c).ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths]), *map(line, rows)])


class NCLU:
    """The `net` command of one login session."""

    name = "net"
    REJECTED = NOT_FOUND

    def __init__(self, session: Any):
        self.session = session
        self.state = session.state

    # -- what the shell asks ---------------------------------------------------------------

    @staticmethod
    def changes_config(words: list[str]) -> bool:
        return words[:1] == ["net"] and words[1:2] in (["add"], ["del"])

    @staticmethod
    def failed(output: str) -> bool:
        return output.startswith("ERROR") or "command not found" in output

    def confirmed(self, answer: str) -> str:
        return ""

    @property
    def pending(self) -> dict[str, Any] | None:
        return self.state.volatile.get("nclu_pending")

    def may_edit(self) -> bool:
        user = self.session.user
        return user in EDITORS or user in self.state.running["netedit"]

    # -- dispatch --------------------------------------------------------------------------

    def run(self, args: list[str]) -> str:
        words = ["net", *args]
        try:
            if args[:1] in (["add"], ["del"]):
                return self._stage(words)
            if args[:1] == ["commit"] and (len(args) == 1 or args[1] == "description"):
                return self._commit()
            if args == ["abort"]:
                if not self.may_edit():
                    return NO_PERMISSION.format(user=self.session.user)
                self.state.volatile.pop("nclu_pending", None)
                return ""
            if args in (["pending"], ["pending", "json"]):
                return self._pending_text(json_form=args[-1] == "json")
            if args[:1] == ["show"]:
                return self._show(args[1:])
            raise NotFound
        except NotFound:
            return suggestions(words)
        except Refused as err:
            return str(err)

    # -- staging ---------------------------------------------------------------------------

    def _stage(self, words: list[str]) -> str:
        if not self.may_edit():
            return NO_PERMISSION.format(user=self.session.user)
        with self.state.lock:
            pending = self.pending
            base = pending["config"] if pending else self.state.running
            candidate = copy.deepcopy(base)
            before = set(model.check(candidate))
            Edit(candidate, words).apply()
            new = [p for p in model.check(candidate) if p not in before]
            if new:
                raise Refused(f"ERROR: {new[0][1]}.")
            entry = (self.session.user, time.time(), " ".join(words))
            log = [*(pending["log"] if pending else []), entry]
            self.state.volatile["nclu_pending"] = {"config": candidate, "log": log}
        return ""

    def _commit(self) -> str:
        """Write the staged configuration (interfaces, ports.conf, hostname) and keep it:
        what NCLU writes are the files the switch boots from [4.2 NCLU guide]; the file it
        renders replaces a local edit of /etc/network/interfaces."""
        if not self.may_edit():
            return NO_PERMISSION.format(user=self.session.user)
        with self.state.lock:
            pending = self.pending
            if not pending:
                return ""  # nothing staged: output **unverified**
            text = self._pending_text(json_form=False)
            # group membership lives in /etc/group, outside what NCLU stages
            pending["config"]["netedit"] = self.state.running["netedit"]
            self.state.running = pending["config"]
            self.state.save()
            ifupdown.render_again(self.state)
            self.state.volatile.pop("nclu_pending", None)
        return text

    def _pending_text(self, json_form: bool) -> str:
        """Unified diffs of the files a commit would write, then the command log [NCLU
        transcripts]."""
        pending = self.pending
        if not pending:
            return "{}" if json_form else ""  # nothing staged: **unverified**
        running, staged = self.state.running, pending["config"]
        diffs = []
        for path, tmp, render in (
            (
                "/etc/network/interfaces",
                "/run/nclu/ifupdown2/interfaces.tmp",
                model.render_interfaces,
            ),
            ("/etc/cumulus/ports.conf", "/run/nclu/ports.conf.tmp", model.render_ports_conf),
            ("/etc/hostname", "/run/nclu/hostname.tmp", lambda c: c["hostname"]),
        ):
            diffs += _diff(render(running), render(staged), path, tmp)
        if json_form:  # keys **unverified**; `net pending json` exists [napalm-cumulus]
            return json.dumps(
                {"diff": "\n".join(diffs), "commands": [e[2] for e in pending["log"]]}
            )
        rows = [[user, _timestamp(stamp), cmd] for user, stamp, cmd in pending["log"]]
        log = table(["User", "Timestamp", "Command"], rows)
        return "\n".join([*diffs, "", "", LOG_BANNER, "=" * len(LOG_BANNER), "", log])

    # -- show ------------------------------------------------------------------------------

    def _show(self, args: list[str]) -> str:
        config = self.state.running
        if args == ["configuration", "commands"]:
            return "\n".join(commands(config))
        if args == ["system"]:
            return self._system()
        if args == ["version"]:
            return f"NCLU_VERSION=1.0-cl{config['release']}u1\n" + model.lsb_release(config)
        if args[:1] == ["interface"]:
            rest = args[1:]
            json_form = rest[-1:] == ["json"]
            rest = rest[:-1] if json_form else rest
            if rest in ([], ["all"]):
                return self._interfaces(json_form)
            if len(rest) == 1:
                return self._interface(rest[0], json_form)
        raise NotFound

    def _system(self) -> str:
        """`net show system`: napalm-cumulus takes the first line as the model and the last
        words of the `Build` and `Uptime` lines [napalm-cumulus]; the NCLU guide shows
        `Cumulus Version`, `Build: Cumulus Linux X`, `Uptime: ...` [4.2 NCLU guide]. The
        platform line's text is **unverified**."""
        release = self.state.running["release"]
        seconds = int(time.time() - BOOTED)
        uptime = f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
        return (
            f"Mellanox SN3700\nCumulus Version {release}\nBuild: Cumulus Linux {release}\n"
            f"Uptime: {uptime}"
        )

    def _rows(self) -> list[dict[str, Any]]:
        """One row per interface of `net show interface all` [4.2 quick start]."""
        config = self.state.running
        names = model.physical_ports(config)
        names += sorted(
            (n for n in config["interfaces"] if n.startswith("bond")), key=model.sort_key
        )
        rows = [
            {
                "name": "eth0",
                "state": "UP",
                "speed": "1G",
                "mtu": 1500,
                "mode": "Mgmt",
                "summary": "Master: mgmt(UP)",
                "mac": model.mac_of("eth0"),
                "alias": "",
            }
        ]
        for name in names:
            rows.append(self._row(config, name))
        if any(s["bridge"] for s in config["interfaces"].values()) or config["vlans"]:
            rows.append(
                {
                    "name": "bridge",
                    "state": "UP",
                    "speed": "N/A",
                    "mtu": model.DEFAULT_MTU,
                    "mode": "Bridge/L2",
                    "summary": "",
                    "mac": model.mac_of("bridge"),
                    "alias": "",
                }
            )
        for vlan in sorted(config["vlans"], key=int):
            addresses = config["vlans"][vlan]["addresses"]
            rows.append(
                {
                    "name": f"vlan{vlan}",
                    "state": "UP",
                    "speed": "N/A",
                    "mtu": model.DEFAULT_MTU,
                    "mode": "Interface/L3" if addresses else "Default",
                    "summary": ", ".join(f"IP: {a}" for a in addresses),
                    "addresses": addresses,
                    "mac": model.mac_of("bridge"),
                    "alias": "",
                }
            )
        return rows

    def _row(self, config: dict[str, Any], name: str) -> dict[str, Any]:
        """State, speed, MTU, mode and summary of one port or bond. An unconfigured port is
        `ADMDN ... NotConfigured` [4.2 quick start] at the driver's MTU [4.2 port
        attributes]; mode names other than the
        documented NotConfigured, Access/L2, BondMember and 802.3ad are **unverified**."""
        settings = config["interfaces"].get(name)
        row = {"name": name, "mac": model.mac_of(name), "alias": "", "summary": ""}
        if settings is None:
            return {
                **row,
                "state": "ADMDN",
                "speed": "N/A",
                "mtu": model.DRIVER_MTU,
                "mode": "NotConfigured",
            }
        up = model.link_up(self.session.state, config, name)
        state = "ADMDN" if settings["admin_down"] else "UP" if up else "DN"
        speed = "N/A"
        if up:
            speed = model.speed_text(model.link_speed(self.session.state, config, name))
        bond = model.bond_of(config, name)
        if bond:
            mode, summary = "BondMember", f"Master: {bond}({self._state(config, bond)})"
        elif "slaves" in settings:
            mode = settings["mode"] or "802.3ad"
            summary = "Master: bridge(UP)" if settings["bridge"] else ""
        elif settings["access"] is not None:
            mode, summary = "Access/L2", "Master: bridge(UP)"
        elif settings["bridge"] or settings["trunk_vlans"]:
            mode, summary = "Trunk/L2", "Master: bridge(UP)"
        else:
            mode, summary = "Default", ""
        return {
            **row,
            "state": state,
            "speed": speed,
            "mode": mode,
            "summary": summary,
            "mtu": settings["mtu"] or model.DEFAULT_MTU,
            "alias": settings["alias"] or "",
            "vlans": [settings["access"]] if settings["access"] else settings["trunk_vlans"] or [],
        }

    def _state(self, config: dict[str, Any], name: str) -> str:
        return "UP" if model.link_up(self.session.state, config, name) else "DN"

    def _interfaces(self, json_form: bool) -> str:
        rows = self._rows()
        if json_form:
            return json.dumps({r["name"]: _json_row(r) for r in rows}, indent=4)
        return table(
            ["State", "Name", "Spd", "MTU", "Mode", "LLDP", "Summary"],
            [
                [r["state"], r["name"], r["speed"], str(r["mtu"]), r["mode"], "", r["summary"]]
                for r in rows
            ],
        )

    def _interface(self, name: str, json_form: bool) -> str:
        """`net show interface swp1`: the header row in [4.2 port attributes] (counters and
        LLDP omitted)."""
        row = next((r for r in self._rows() if r["name"] == name), None)
        if row is None:
            return model.not_physical(name)
        if json_form:
            return json.dumps(
                {
                    "linkstate": row["state"],
                    "speed": row["speed"],
                    "mode": row["mode"],
                    "iface_obj": {
                        "mtu": row["mtu"],
                        "description": row["alias"],
                        "mac": row["mac"],
                    },
                },
                indent=4,
            )
        state = {"ADMDN": "ADMDN", "UP": "UP", "DN": "DN"}[row["state"]]
        head = table(
            ["", "Name", "MAC", "Speed", "MTU", "Mode"],
            [[state, name, row["mac"], row["speed"], str(row["mtu"]), row["mode"]]],
            right=(4,),
        )
        alias = f"\nAlias\n-----\n{row['alias']}" if row["alias"] else ""
        return head + alias


def _json_row(row: dict[str, Any]) -> dict[str, Any]:
    """One interface of `net show interface all json`. The keys are those clients read:
    linkstate, speed, mode, summary, iface_obj.description/mac/lldp (napalm-cumulus),
    iface_obj.ip_address.allentries and iface_obj.vlan[].vlan (3rd-party inventory and test
    scripts, string search `['iface_obj']`); the rest of the real object is not modelled."""
    config_vlans = row.get("vlans", [])
    return {
        "linkstate": row["state"],
        "speed": row["speed"],
        "mode": row["mode"],
        "summary": row["summary"],
        "iface_obj": {
            "mtu": row["mtu"],
            "description": row["alias"],
            "mac": row["mac"],
            "lldp": None,
            "ip_address": {"allentries": list(row.get("addresses", []))},
            "vlan": [{"vlan": v} for v in config_vlans],
        },
    }


def _timestamp(stamp: float) -> str:
    """`2019-03-25 15:04:49.012290`, the log's timestamp form [NCLU transcripts]."""
    micros = int(stamp * 1e6) % 1_000_000
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(stamp)) + f".{micros:06d}"


def _diff(old: str, new: str, path: str, tmp: str) -> list[str]:
    if old == new:
        return []
    stamp = time.strftime("%Y-%m-%d %H:%M:%S.000000000 +0000", time.gmtime())
    lines = list(
        difflib.unified_diff(
            old.splitlines(), new.splitlines(), f"{path}\t{stamp}", f"{tmp}\t{stamp}", lineterm=""
        )
    )
    coloured = []
    for line in lines:
        if line.startswith("+") and not line.startswith("+++"):
            line = f"{GREEN}{line}{RESET}"
        elif line.startswith("-") and not line.startswith("---"):
            line = f"{RED}{line}{RESET}"
        coloured.append(line)
    return coloured


class Edit:
    """One `net add|del` line applied to a candidate configuration (checked by the caller)."""

    def __init__(self, config: dict[str, Any], words: list[str]):
        self.config, self.words = config, words
        self.add = words[1] == "add"

    def apply(self) -> None:
        words = self.words
        if len(words) < 3:
            raise NotFound
        kind, rest = words[2], words[3:]
        if kind in ("interface", "int") and rest:
            for name in self._targets(rest[0], "swp"):
                self._interface(name, rest[1:])
        elif kind == "bond" and rest and re.fullmatch(r"[A-Za-z][\w-]{0,14}", rest[0]):
            self._bond(rest[0], rest[1:])
        elif kind == "bridge" and rest[:1] == ["bridge"] and len(rest) >= 2:
            self._bridge(rest[1:])
        elif kind == "vlan" and rest:
            self._vlan(rest)
        elif kind == "hostname" and (len(rest) == 1 or (not self.add and len(rest) <= 1)):
            self._hostname(rest)
        else:
            raise NotFound

    def _targets(self, text: str, kind: str) -> list[str]:
        """The interfaces a range names, each a port the switch has (or will have once the
        staged breakouts are committed: checked against the staged configuration, which is
        inferred) or an existing bond."""
        names = model.expand_range(text)
        ports = set(model.physical_ports(self.config))
        for name in names:
            if name in ports or (name in self.config["interfaces"] and name.startswith("bond")):
                continue
            if kind == "swp" and re.fullmatch(r"swp\d+", name) and _split_port(self.config, name):
                continue  # `breakout` on a split port: the port number still exists
            raise Refused(model.not_physical(name))
        return names

    # -- interface and bond settings -------------------------------------------------------

    def _settings(self, name: str) -> dict[str, Any]:
        interfaces = self.config["interfaces"]
        if name not in interfaces:
            interfaces[name] = model.new_interface("bond" if name.startswith("bond") else "swp")
        return interfaces[name]

    def _interface(self, name: str, rest: list[str]) -> None:
        """`alias`, `mtu`, `link ...`, `breakout`, `bridge access|trunk vlans` [4.2 NCLU
        guide, 4.2 port attributes]."""
        if rest[:1] == ["breakout"]:
            self._breakout(name, rest[1:])
            return
        if not rest:
            if self.add:
                self._settings(name)
            else:
                self._remove(name)
            return
        if re.fullmatch(r"swp\d+", name) and _split_port(self.config, name):
            raise Refused(model.not_physical(name))
        settings = self._settings(name)
        self._common(settings, rest)

    def _common(self, settings: dict[str, Any], rest: list[str]) -> None:
        key, value = self._setting(rest)
        if key == "admin_down":
            settings[key] = self.add
        elif key in ("access", "trunk_vlans"):
            settings[key] = value if self.add else None
            if self.add:
                settings["bridge"] = True  # NCLU makes the port a bridge port (inferred)
        else:
            settings[key] = value if self.add else None

    def _setting(self, rest: list[str]) -> tuple[str, Any]:
        """(key, checked value) of one setting; a value outside its token's range is a
        grammar mismatch, so `Command not found` [4.2 NCLU guide]. `net del` may leave the
        value out."""
        head, args = tuple(rest[:2]), rest[2:]
        optional = not self.add
        if rest[0] == "alias" and (len(rest) > 1 or optional):
            return "alias", " ".join(rest[1:])[:256]
        if rest[0] == "mtu" and len(rest) <= 2:
            return "mtu", _number(rest[1:], *model.MTU_RANGE, optional)
        if head == ("link", "speed") and len(args) <= 1:
            if (args and args[0] not in SPEEDS) or (not args and not optional):
                raise NotFound
            return "speed", int(args[0]) if args else None
        if head == ("link", "autoneg") and len(args) <= 1:
            return "autoneg", _choice(args, ("on", "off"), optional)
        if head == ("link", "fec") and len(args) <= 1:
            return "fec", _choice(args, FECS, optional)
        if rest == ["link", "down"]:
            return "admin_down", True
        if head == ("bridge", "access") and len(args) <= 1:
            return "access", _number(args, *model.VLAN_RANGE, optional)
        if rest[:3] == ["bridge", "trunk", "vlans"] and len(rest) <= 4:
            ids = model.parse_vlans(rest[3]) if len(rest) == 4 else None
            if ids is None and (self.add or len(rest) == 4):
                raise NotFound
            return "trunk_vlans", ids
        raise NotFound

    def _remove(self, name: str) -> None:
        self.config["interfaces"].pop(name, None)
        for settings in self.config["interfaces"].values():
            if name in settings.get("slaves", []):
                settings["slaves"].remove(name)

    def _breakout(self, name: str, args: list[str]) -> None:
        """`breakout 2x|4x|4x25G|disabled` on a port [4.2 port attributes]; `net del ...
        breakout` goes back to one port (NCLU documents only hand-editing ports.conf for
        that: **unverified**).
        Settings of the interfaces a split replaces are dropped with them (inferred)."""
        match = re.fullmatch(r"swp(\d+)", name)
        if not match:
            raise Refused(model.not_physical(name))
        if self.add and (len(args) != 1 or args[0] not in BREAKOUT_WORDS):
            raise NotFound
        mode = model.BREAKOUT_ALIASES.get(args[0], args[0]) if self.add else "1x"
        port = match.group(1)
        for old in [n for n in self.config["interfaces"] if model.port_number(n) == int(port)]:
            self._remove(old)
        if mode == "1x":
            self.config["breakouts"].pop(port, None)
        else:
            self.config["breakouts"][port] = mode

    def _bond(self, bond: str, rest: list[str]) -> None:
        """`bond slaves <ports>` / `bond mode` plus the interface settings, on a bond [4.2
        bonding]."""
        if not rest:
            if self.add:
                self._settings(bond)
            else:
                self._remove(bond)
            return
        settings = self._settings(bond)
        if "slaves" not in settings:
            raise Refused(model.not_physical(bond))
        if rest[:2] == ["bond", "slaves"] and len(rest) == 3:
            members = self._targets(rest[2], "member")
            if any(not m.startswith("swp") for m in members):
                raise Refused(f"ERROR: {members[0]} is not a physical interface on this switch.")
            for member in members:
                other = model.bond_of(self.config, member)
                if self.add and other and other != bond:
                    self.config["interfaces"][other]["slaves"].remove(member)
                if self.add and member not in settings["slaves"]:
                    settings["slaves"].append(member)
                    self._settings(member)
                elif not self.add and member in settings["slaves"]:
                    settings["slaves"].remove(member)
            settings["slaves"].sort(key=model.sort_key)
        elif rest[:2] == ["bond", "mode"] and len(rest) <= 3:
            mode = _choice(rest[2:], model.BOND_MODES, not self.add)
            settings["mode"] = None if mode == "802.3ad" or not self.add else mode
        else:
            self._common(settings, rest)

    # -- bridge, VLANs, hostname -----------------------------------------------------------

    def _bridge(self, rest: list[str]) -> None:
        """`net add bridge bridge ports|vids|pvid` [bridge guides]."""
        bridge = self.config["bridge"]
        if rest[0] == "ports" and len(rest) == 2:
            for name in self._targets(rest[1], "member"):
                self._settings(name)["bridge"] = self.add
        elif rest[0] == "vids" and len(rest) == 2:
            ids = model.parse_vlans(rest[1])
            if ids is None:
                raise NotFound
            keep = set(bridge["vids"])
            bridge["vids"] = sorted(keep | set(ids) if self.add else keep - set(ids))
        elif rest[0] == "pvid" and len(rest) <= 2:
            bridge["pvid"] = (
                _number(rest[1:], *model.VLAN_RANGE, not self.add) if self.add else None
            )
        else:
            raise NotFound

    def _vlan(self, rest: list[str]) -> None:
        """`net add vlan 10-20` and `net add vlan 10 ip address 10.0.0.1/24` [4.2 NCLU
        guide, bridge guides]: an SVI
        stanza on the bridge; the VLAN joins the bridge's VLANs (inferred)."""
        ids = model.parse_vlans(rest[0])
        if ids is None:
            raise NotFound
        vlans, bridge = self.config["vlans"], self.config["bridge"]
        if len(rest) == 1:
            for vlan in ids:
                if self.add:
                    vlans.setdefault(str(vlan), {"addresses": []})
                    bridge["vids"] = sorted(set(bridge["vids"]) | {vlan})
                else:
                    vlans.pop(str(vlan), None)
            return
        if rest[1:3] != ["ip", "address"] or len(rest) != 4 or len(ids) != 1:
            raise NotFound
        try:
            address = str(ipaddress.ip_interface(rest[3]))
        except ValueError:
            raise NotFound from None
        if "/" not in rest[3]:
            raise NotFound
        svi = vlans.setdefault(str(ids[0]), {"addresses": []})
        if self.add and address not in svi["addresses"]:
            svi["addresses"].append(address)
            bridge["vids"] = sorted(set(bridge["vids"]) | {ids[0]})
        elif not self.add and address in svi["addresses"]:
            svi["addresses"].remove(address)

    def _hostname(self, rest: list[str]) -> None:
        if not self.add:
            self.config["hostname"] = model.DEFAULT_HOSTNAME
            return
        if not re.fullmatch(r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?", rest[0]):
            raise NotFound  # a hostname NCLU accepts: RFC 1123 label (**unverified**)
        self.config["hostname"] = rest[0]


def _split_port(config: dict[str, Any], name: str) -> bool:
    """swpN while port N is split or disabled: the name no longer exists as an interface."""
    return model.breakout_of(config, int(name[3:])) != "1x"


def _number(args: list[str], low: int, high: int, optional: bool) -> int | None:
    if not args and optional:
        return None
    if len(args) != 1 or not args[0].isdigit() or not low <= int(args[0]) <= high:
        raise NotFound
    return int(args[0])


def _choice(args: list[str], choices: tuple[str, ...], optional: bool) -> str | None:
    if not args and optional:
        return None
    if len(args) != 1 or args[0] not in choices:
        raise NotFound
    return args[0]


def commands(config: dict[str, Any]) -> list[str]:
    """`net show configuration commands`: one `net add` line per setting, interfaces with
    the same setting folded into one range (`net add interface swp1-4`) [4.2 NCLU guide,
    bridge guides]."""
    by_suffix: dict[str, list[str]] = {}
    bonds: list[str] = []
    for port, mode in sorted(config["breakouts"].items(), key=lambda i: int(i[0])):
        by_suffix.setdefault(f"breakout {mode}", []).append(f"swp{port}")
    for name in sorted(config["interfaces"], key=model.sort_key):
        settings = config["interfaces"][name]
        lines = _setting_lines(settings)
        if name.startswith("bond"):
            if settings["slaves"]:
                bonds.append(
                    f"net add bond {name} bond slaves {model.compress(settings['slaves'])}"
                )
            if settings["mode"]:
                bonds.append(f"net add bond {name} bond mode {settings['mode']}")
            bonds += [f"net add bond {name} {line}" for line in lines]
            continue
        for suffix in ["", *lines]:
            by_suffix.setdefault(suffix, []).append(name)
    out = []
    if config["hostname"] != model.DEFAULT_HOSTNAME:
        out.append(f"net add hostname {config['hostname']}")
    out += [
        f"net add interface {model.compress(names)} {s}".rstrip() for s, names in by_suffix.items()
    ]
    out += bonds
    members = [
        n for n, s in config["interfaces"].items() if s["bridge"] and not model.bond_of(config, n)
    ]
    if members:
        out.append(f"net add bridge bridge ports {model.compress(members)}")
    if config["bridge"]["pvid"] is not None:
        out.append(f"net add bridge bridge pvid {config['bridge']['pvid']}")
    if config["bridge"]["vids"]:
        out.append(f"net add bridge bridge vids {model.vlan_text(config['bridge']['vids'])}")
    for vlan in sorted(config["vlans"], key=int):
        out.append(f"net add vlan {vlan}")
        out += [f"net add vlan {vlan} ip address {a}" for a in config["vlans"][vlan]["addresses"]]
    return out


def _setting_lines(settings: dict[str, Any]) -> list[str]:
    lines = []
    if settings["alias"]:
        lines.append(f"alias {settings['alias']}")
    if settings["access"] is not None:
        lines.append(f"bridge access {settings['access']}")
    if settings["trunk_vlans"]:
        lines.append(f"bridge trunk vlans {model.vlan_text(settings['trunk_vlans'])}")
    if settings["admin_down"]:
        lines.append("link down")
    for key, word in (("autoneg", "autoneg"), ("fec", "fec"), ("speed", "speed")):
        if settings[key] is not None:
            lines.append(f"link {word} {settings[key]}")
    if settings["mtu"] is not None:
        lines.append(f"mtu {settings['mtu']}")
    return lines
