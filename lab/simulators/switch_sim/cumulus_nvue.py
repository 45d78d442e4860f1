"""NVUE, the `nv` command of Cumulus Linux 5.x: `nv set|unset` into a pending revision,
`nv config diff|apply|save|show|detach`, and the `nv show` views clients read.

Sources: those named in cumulus.py's docstring (NVUE CLI guide, NVUE API guide, 5.10 port
attributes, 5.10 bridge guide, NVUE reference, mgmt VRF guide, generic-switch), and:
- 5.10 user accounts: cumulus-linux-510 "User Accounts";
- NVUE upgrade KB: the Cumulus docs' KB "NVUE Fails to Apply Configuration After Upgrade"
  and the "NVUE Flexible Snippets" page;
- 5.x bond guides: the 5.x "Bonding - Link Aggregation" and "LACP Bypass" pages;
- nv show examples: the `nv show interface` examples of the 5.x guides and of the
  nvue-reference Interface page;
- NVUE transcripts: public 3rd-party transcripts of an NVUE EVPN lab (`applied [rev_id:
  N]`) and of `nv config show -o commands`.

The configuration is one tree (interface, bridge, system); `nv set` edits a pending revision,
`nv config apply` checks the whole revision and makes it the applied one, or prints
`Invalid config [rev_id: N]` with one indented `Config invalid at <path>: <reason>` line per
problem and applies nothing [NVUE upgrade KB]. Whether apply persists depends on the
release (see cumulus_model.AUTO_SAVE_FROM). Type and range errors of `nv set` are refused at once;
NVUE's exact wording for them is **unverified**: the lines start with `Error: Invalid
parameter`, a string networking-generic-switch treats as an NVUE failure [generic-switch].
"""

from __future__ import annotations

import copy
import ipaddress
import json
import re
import time
from typing import Any

from . import cumulus_model as model
from .cumulus_nclu import table

INVALID = "Error: Invalid parameter"  # prefix networking-generic-switch matches
# NVUE's link speed enum [NVUE CLI guide]; which of them a port runs is the model's check at apply
SPEEDS = {
    "10M": 10,
    "100M": 100,
    "1G": 1000,
    "10G": 10000,
    "25G": 25000,
    "40G": 40000,
    "50G": 50000,
    "100G": 100000,
    "200G": 200000,
    "400G": 400000,
    "800G": 800000,
}
BREAKOUTS = {"1x": "1x", "2x": "2x100G", "4x": "4x50G", "disabled": "disabled"}  # 8x: 8-lane ports
BOND_MODES = {"lacp": None, "static": "balance-xor"}  # [5.x bond guides]: static is balance-xor
DOMAIN = "br_default"  # the default bridge domain [5.10 bridge guide]
# An apply that reloads switchd (a breakout change) asks first (3rd-party capture of 5.4:
# docs.netapp.com ONTAP SN2100 cabling page: "switchd need to reload on this config change" /
# "Are you sure? [y/N] y" / "applied [rev_id: 22]"); the answer to a refusal is **unverified**.
RELOAD_WARNING = "switchd need to reload on this config change"
CONFIRM_PROMPT = "Are you sure? [y/N] "
BOOTED = time.time()


class Invalid(Exception):
    """A refused `nv` line; the message is printed as it is."""


def invalid(reason: str) -> Invalid:
    return Invalid(f"{INVALID}: {reason}")


# ---- the configuration as NVUE's tree ----------------------------------------------------


def to_tree(config: dict[str, Any]) -> dict[str, Any]:
    """The model as NVUE's configuration tree: interface, bridge, system [the 5.x guides above]."""
    interfaces: dict[str, Any] = {}
    for port, mode in config["breakouts"].items():
        key = "disabled" if mode == "disabled" else mode[:2]
        interfaces[f"swp{port}"] = {"link": {"breakout": {key: {}}}, "type": "swp"}
    for name, settings in config["interfaces"].items():
        node = interfaces.setdefault(name, {"type": "swp"})
        if "slaves" in settings:
            node["type"] = "bond"
            node["bond"] = {"member": {m: {} for m in settings["slaves"]}}
            if settings["mode"]:
                node["bond"]["mode"] = "static"
        if settings["alias"]:
            node["description"] = settings["alias"]
        link = node.setdefault("link", {})
        for key, field in (("mtu", "mtu"), ("fec", "fec"), ("autoneg", "auto-negotiate")):
            if settings[key] is not None:
                link[field] = settings[key]
        if settings["speed"] is not None:
            link["speed"] = model.speed_text(settings["speed"])
        if settings["admin_down"]:
            link["state"] = {"down": {}}
        if not link:
            del node["link"]
        if settings["bridge"]:
            domain: dict[str, Any] = {}
            if settings["access"] is not None:
                domain["access"] = settings["access"]
            if settings["trunk_vlans"]:
                domain["vlan"] = {str(v): {} for v in settings["trunk_vlans"]}
            node["bridge"] = {"domain": {DOMAIN: domain}}
    for vlan, svi in config["vlans"].items():
        interfaces[f"vlan{vlan}"] = {
            "ip": {"address": {a: {} for a in svi["addresses"]}},
            "type": "svi",
            "vlan": int(vlan),
        }
    tree: dict[str, Any] = {}
    if interfaces:
        tree["interface"] = interfaces
    bridge = config["bridge"]
    if bridge["vids"] or bridge["pvid"] is not None:
        domain = {}
        if bridge["pvid"] is not None:
            domain["untagged"] = bridge["pvid"]
        if bridge["vids"]:
            domain["vlan"] = {str(v): {} for v in bridge["vids"]}
        tree["bridge"] = {"domain": {DOMAIN: domain}}
    tree["system"] = {"hostname": config["hostname"]}
    return tree


def leaves(tree: dict[str, Any], path: tuple[str, ...] = ()) -> dict[tuple[str, ...], Any]:
    """path -> value of every leaf; an empty object ({}) is a leaf too (`vlan: {10: {}}`)."""
    out: dict[tuple[str, ...], Any] = {}
    for key, value in tree.items():
        if isinstance(value, dict) and value:
            out.update(leaves(value, (*path, str(key))))
        else:
            out[(*path, str(key))] = value
    return out


def nest(flat: dict[tuple[str, ...], Any]) -> dict[str, Any]:
    tree: dict[str, Any] = {}
    for path, value in flat.items():
        node = tree
        for key in path[:-1]:
            node = node.setdefault(key, {})
        node[path[-1]] = value
    return tree


def yaml(value: Any, indent: int = 0) -> list[str]:
    """A small YAML writer for NVUE's trees (sorted keys, `{}` for empty objects)."""
    lines = []
    pad = " " * indent
    for key in sorted(value, key=model.sort_key):
        item = value[key]
        if isinstance(item, dict) and item:
            lines += [f"{pad}{key}:", *yaml(item, indent + 2)]
        else:
            text = "{}" if isinstance(item, dict) else item
            if isinstance(text, str) and (" " in text or text == ""):
                text = f"'{text}'"
            lines.append(f"{pad}{key}: {text}")
    return lines


def command_lines(flat: dict[tuple[str, ...], Any], verb: str) -> list[str]:
    """`nv set ...` lines, interfaces with the same setting folded into a range
    (`nv set interface swp1-2,32 type swp` [NVUE transcripts])."""
    by_suffix: dict[tuple[str, ...], list[str]] = {}
    others = []
    for path, value in flat.items():
        words = list(path) if value == {} or verb == "unset" else [*path, str(value)]
        if words[0] == "interface" and len(words) > 1:
            by_suffix.setdefault(tuple(words[2:]), []).append(words[1])
        else:
            others.append(f"nv {verb} " + " ".join(_quote(w) for w in words))
    folded = [
        f"nv {verb} interface {model.compress(names)} " + " ".join(_quote(w) for w in suffix)
        for suffix, names in by_suffix.items()
    ]
    return sorted(line.rstrip() for line in folded + others)


def _quote(word: str) -> str:
    return f"'{word}'" if " " in word else word


# ---- the command ---------------------------------------------------------------------------


class NVUE:
    """The `nv` command of one login session."""

    name = "nv"
    REJECTED = INVALID

    def __init__(self, session: Any):
        self.session = session
        self.state = session.state

    @staticmethod
    def changes_config(words: list[str]) -> bool:
        return words[:1] == ["nv"] and words[1:2] in (["set"], ["unset"])

    @staticmethod
    def failed(output: str) -> bool:
        return output.startswith(("Error", "Invalid config")) or "command not found" in output

    @property
    def revisions(self) -> dict[str, Any]:
        """Pending revision and revision counter, shared by every session until restart."""
        return self.state.volatile.setdefault(
            "nvue", {"pending": None, "rev": None, "next": 1, "applied": 0}
        )

    def run(self, args: list[str]) -> str:
        try:
            if args[:1] in (["set"], ["unset"]):
                return self._edit(args[0] == "set", args[1:])
            if args[:1] == ["config"]:
                return self._config(args[1:])
            if args[:1] == ["show"]:
                return self._show(args[1:])
            raise Invalid(_usage(args))
        except Invalid as err:
            return str(err)

    # -- nv set / unset ----------------------------------------------------------------------

    def _edit(self, add: bool, words: list[str]) -> str:
        with self.state.lock:
            revs = self.revisions
            base = revs["pending"] if revs["pending"] is not None else self.state.running
            candidate = copy.deepcopy(base)
            Change(candidate, add).apply(words)
            if revs["pending"] is None:
                revs["rev"], revs["next"] = revs["next"], revs["next"] + 1
            revs["pending"] = candidate
        return ""

    # -- nv config -----------------------------------------------------------------------------

    def _config(self, args: list[str]) -> str:
        revs = self.revisions
        output = _option(args, "-o", "--output")
        if args[:1] == ["apply"]:
            return self._apply(args[1:])
        if args == ["save"]:
            self.state.save()
            return "saved [rev_id: applied]"  # [NVUE transcripts]
        if args == ["detach"]:
            revs["pending"] = None
            return ""
        if args[:1] == ["diff"]:
            if revs["pending"] is None:
                return ""
            old = leaves(to_tree(self.state.running))
            new = leaves(to_tree(revs["pending"]))
            sets = {p: v for p, v in new.items() if old.get(p, object()) != v}
            unsets = {p: v for p, v in old.items() if p not in new}
            if output == "commands":
                return "\n".join(command_lines(unsets, "unset") + command_lines(sets, "set"))
            lines = []
            if sets:
                lines += ["- set:", *yaml(nest(sets), 4)]
            if unsets:
                lines += ["- unset:", *yaml(nest(unsets), 4)]
            return "\n".join(lines)
        if args[:1] == ["show"]:
            tree = to_tree(self.state.running)
            if output == "commands":
                return "\n".join(command_lines(leaves(tree), "set"))
            if output == "json":
                return json.dumps([{"header": self._header()}, {"set": tree}], indent=2)
            header = ["- header:", *yaml(self._header(), 4)]
            return "\n".join([*header, "- set:", *yaml(tree, 4)])
        raise Invalid(_usage(["config", *args]))

    def _header(self) -> dict[str, Any]:
        # header keys of `nv config show` (**unverified**)
        return {
            "model": "SN3700",
            "nvue-api-version": "nvue_v1",
            "rev-id": f"{self.revisions['applied']}.0",
            "version": f"Cumulus Linux {self.state.running['release']}",
        }

    def _apply(self, options: list[str]) -> str:
        """Check the whole pending revision, then make it the applied one [NVUE CLI
        guide, NVUE reference, NVUE upgrade KB]."""
        revs = self.revisions
        known = {"-y", "--assume-yes", "--assume-no", "-m", "--message"}
        if any(o.startswith("-") and o not in known for o in options):
            raise invalid(f"unknown option {next(o for o in options if o.startswith('-'))}")
        if revs["pending"] is None:
            return "Warning: Nothing to apply"  # **unverified**
        problems = model.check(revs["pending"])
        if problems:
            reasons = [f"  Config invalid at interface.{name}: {why}" for name, why in problems]
            return "\n".join([f"Invalid config [rev_id: {revs['rev']}]", *reasons])
        if revs["pending"]["breakouts"] != self.state.running["breakouts"]:
            if "--assume-no" in options:
                return f"{RELOAD_WARNING}\n{CONFIRM_PROMPT}N\nDeclined apply after warnings"
            if not {"-y", "--assume-yes"} & set(options):
                self.session.confirm = _Confirm(CONFIRM_PROMPT)
                return RELOAD_WARNING
        return self._commit_pending()

    def confirmed(self, answer: str) -> str:
        if answer.lower() in ("y", "yes"):
            return self._commit_pending()
        return "Declined apply after warnings"  # **unverified**

    def _commit_pending(self) -> str:
        revs = self.revisions
        with self.state.lock:
            rev = revs["rev"]
            revs["pending"]["netedit"] = self.state.running["netedit"]  # /etc/group's
            self.state.running = revs["pending"]
            revs["pending"], revs["applied"] = None, rev
            if model.release_of(self.state.running["release"])[:2] >= model.AUTO_SAVE_FROM:
                self.state.save()
        return f"applied [rev_id: {rev}]"  # [NVUE transcripts]

    # -- nv show -------------------------------------------------------------------------------

    def _show(self, args: list[str]) -> str:
        output = _option(args, "-o", "--output")
        if args == ["system"]:
            return self._system(output)
        if args == ["interface"]:
            return self._interfaces(output)
        if len(args) in (2, 3) and args[0] == "interface" and args[2:] in ([], ["link"]):
            return self._link(args[1], output)
        raise Invalid(_usage(["show", *args]))

    def _system(self, output: str | None) -> str:
        config = self.state.running
        uptime = time.strftime("%H:%M:%S", time.gmtime(time.time() - BOOTED))
        values = {
            "build": f"Cumulus Linux {config['release']}",
            "hostname": config["hostname"],
            "uptime": f"0:{uptime}",
        }
        if output == "json":  # the REST API's GET /system keys [NVUE API guide]
            return json.dumps(values, indent=2)
        return table(
            ["", "operational", "applied"],
            [
                ["hostname", config["hostname"], config["hostname"]],
                ["build", values["build"], ""],
                ["uptime", values["uptime"], ""],
            ],
        )

    def _interface_rows(self) -> dict[str, dict[str, Any]]:
        config = self.state.running
        names = model.physical_ports(config)
        names += sorted(
            (n for n in config["interfaces"] if n.startswith("bond")), key=model.sort_key
        )
        # eth0: the management port, up in the mgmt VRF on a factory switch [mgmt VRF guide]
        rows: dict[str, dict[str, Any]] = {
            "eth0": {"type": "eth", "description": "", "link": {
                "admin-status": "up", "oper-status": "up", "mtu": 1500, "speed": "1G",
                "state": {"up": {}}}},
        }  # fmt: skip
        for name in names:
            settings = config["interfaces"].get(name)
            up = model.link_up(self.state, config, name)
            speed = model.link_speed(self.state, config, name) if up else 0
            rows[name] = {
                "type": "bond" if name.startswith("bond") else "swp",
                "link": {
                    "admin-status": "up" if settings and not settings["admin_down"] else "down",
                    "oper-status": "up" if up else "down",
                    "mtu": (settings or {}).get("mtu")
                    or (model.DEFAULT_MTU if settings else model.DRIVER_MTU),
                    "speed": model.speed_text(speed) if speed else "",
                    "state": {"up" if settings and not settings["admin_down"] else "down": {}},
                },
                "description": (settings or {}).get("alias") or "",
            }
        for vlan in sorted(config["vlans"], key=int):
            rows[f"vlan{vlan}"] = {
                "type": "svi",
                "link": {
                    "admin-status": "up",
                    "oper-status": "up",
                    "mtu": model.DEFAULT_MTU,
                    "speed": "",
                    "state": {"up": {}},
                },
                "description": "",
            }
        return rows

    def _interfaces(self, output: str | None) -> str:
        """Summary of every interface; the columns changed between 5.x releases [nv show
        examples], the
        later `Admin Status / Oper Status` form is used (JSON shape **unverified**)."""
        rows = self._interface_rows()
        if output == "json":
            return json.dumps(rows, indent=2)
        return table(
            [
                "Interface",
                "Admin Status",
                "Oper Status",
                "Speed",
                "MTU",
                "Type",
                "Remote Host",
                "Remote Port",
                "Summary",
            ],
            [
                [
                    name,
                    r["link"]["admin-status"],
                    r["link"]["oper-status"],
                    r["link"]["speed"],
                    str(r["link"]["mtu"]),
                    r["type"],
                    "",
                    "",
                    "",
                ]
                for name, r in rows.items()
            ],
        )

    def _link(self, name: str, output: str | None) -> str:
        """`nv show interface swp1 link`: operational and applied columns, pending when a
        revision is staged [NVUE CLI guide, 5.10 port attributes]."""
        rows = self._interface_rows()
        if name not in rows:
            raise Invalid(
                f"Error: The requested item does not exist: interface {name}"
            )  # unverified
        link = rows[name]["link"]
        config = self.state.running
        applied = to_tree(config).get("interface", {}).get(name, {}).get("link", {})
        pending_config = self.revisions["pending"]
        if output == "json":
            return json.dumps(link, indent=2)
        fields = ["auto-negotiate", "speed", "fec", "mtu", "state"]
        operational = {
            "auto-negotiate": "on" if link["oper-status"] == "up" else "off",
            "speed": link["speed"] or "N/A",
            "fec": "auto" if link["oper-status"] == "up" else "",
            "mtu": str(link["mtu"]),
            "state": next(iter(link["state"])),
        }
        defaults = {
            "auto-negotiate": "on",
            "speed": "auto",
            "fec": "auto",
            "mtu": str(model.DEFAULT_MTU),
            "state": "up",
        }
        headers = ["", "operational", "applied"]
        pending = None
        if pending_config is not None:
            pending = to_tree(pending_config).get("interface", {}).get(name, {}).get("link", {})
            headers.append("pending")
        rows_out = []
        for field in fields:
            row = [field, operational[field], _value(applied, field, defaults)]
            if pending is not None:
                row.append(_value(pending, field, defaults))
            rows_out.append(row)
        return table(headers, rows_out)


def _value(link: dict[str, Any], field: str, defaults: dict[str, str]) -> str:
    value = link.get(field, defaults[field])
    return next(iter(value)) if isinstance(value, dict) else str(value)


class _Confirm:
    """A question the next line answers."""

    def __init__(self, prompt: str):
        self.prompt = prompt


def _option(args: list[str], short: str, long: str) -> str | None:
    """Remove `-o X` / `--output X` from args; return X."""
    for flag in (short, long):
        if flag in args:
            index = args.index(flag)
            if index + 1 >= len(args):
                raise invalid(f"option {flag} requires an argument")
            value = args[index + 1]
            del args[index : index + 2]
            if value not in ("json", "yaml", "auto", "raw", "commands"):
                raise invalid(f"'{value}' is not a valid output format")
            return value
    return None


def _usage(args: list[str]) -> str:
    # NVUE's answer to an unknown command (**unverified** wording)
    return f"Error: Command not found: nv {' '.join(args)}".rstrip()


class Change:
    """One `nv set|unset` line applied to a candidate configuration."""

    def __init__(self, config: dict[str, Any], add: bool):
        self.config, self.add = config, add

    def apply(self, words: list[str]) -> None:
        if words[:1] == ["interface"] and len(words) >= 2:
            for name in self._names(words[1]):
                self._interface(name, words[2:])
        elif words[:3] == ["bridge", "domain", DOMAIN]:
            self._bridge(words[3:])
        elif words[:2] == ["system", "hostname"] and (len(words) == 3 or not self.add):
            self._hostname(words[2:])
        else:
            raise Invalid(_usage(["set" if self.add else "unset", *words]))

    def _names(self, text: str) -> list[str]:
        """Interface names NVUE accepts: swpN, swpNsM, bond*, vlanN; whether the port exists
        is checked when the revision is applied [NVUE upgrade KB]."""
        names = model.expand_range(text)
        for name in names:
            if not re.fullmatch(r"swp\d+(s\d+)?|bond[\w-]{0,11}|vlan\d+|eth0|lo", name):
                raise invalid(f"'{name}' is not a valid interface name")
            if (
                name.startswith("vlan")
                and not model.VLAN_RANGE[0] <= int(name[4:]) <= model.VLAN_RANGE[1]
            ):
                raise invalid(f"'{name}': VLAN must be in range 1 - 4094")
        return names

    def _settings(self, name: str) -> dict[str, Any]:
        interfaces = self.config["interfaces"]
        if name not in interfaces:
            interfaces[name] = model.new_interface("bond" if name.startswith("bond") else "swp")
        return interfaces[name]

    def _interface(self, name: str, words: list[str]) -> None:
        if name.startswith("vlan"):
            self._svi(name[4:], words)
            return
        if not words or words[:1] == ["type"]:
            if self.add:
                self._settings(name)
            else:
                self._remove(name)
            return
        if words[:2] == ["link", "breakout"]:
            self._breakout(name, words[2:])
            return
        settings = self._settings(name)
        head, value = words[0], words[1:]
        if head == "description":
            settings["alias"] = " ".join(value) if self.add else None
        elif head == "link" and value:
            self._link(settings, value[0], value[1:])
        elif words[:3] == ["bridge", "domain", DOMAIN]:
            self._port_bridge(settings, words[3:])
        elif head == "bond" and "slaves" in settings and value:
            self._bond(name, settings, value)
        else:
            raise Invalid(_usage(["set" if self.add else "unset", "interface", name, *words]))

    def _link(self, settings: dict[str, Any], field: str, value: list[str]) -> None:
        """`link mtu|speed|state|fec|auto-negotiate` with the types `?` shows [NVUE CLI
        guide, 5.10 port attributes]."""
        if not self.add:
            key = {
                "mtu": "mtu",
                "speed": "speed",
                "fec": "fec",
                "auto-negotiate": "autoneg",
                "state": "admin_down",
            }.get(field)
            if key is None:
                raise Invalid(_usage(["unset", "link", field]))
            settings[key] = False if key == "admin_down" else None
            return
        if len(value) != 1:
            raise invalid(f"link {field} takes one value")
        word = value[0]
        if field == "mtu":
            if not word.isdigit() or not model.MTU_RANGE[0] <= int(word) <= model.MTU_RANGE[1]:
                raise invalid(f"'{word}' is not in range integer:552 - 9216")
            settings["mtu"] = int(word)
        elif field == "speed":
            if word not in (*SPEEDS, "auto"):
                raise invalid(f"'{word}' is not one of {', '.join(SPEEDS)}, auto")
            settings["speed"] = None if word == "auto" else SPEEDS[word]
        elif field == "state":
            if word not in ("up", "down"):
                raise invalid(f"'{word}' is not one of up, down")
            settings["admin_down"] = word == "down"
        elif field == "fec" and word in ("auto", "baser", "off", "rs"):
            settings["fec"] = word
        elif field == "auto-negotiate" and word in ("on", "off"):
            settings["autoneg"] = word
        else:
            raise invalid(f"'{word}' is not a valid value for link {field}")

    def _breakout(self, name: str, value: list[str]) -> None:
        """`link breakout 1x|2x|4x|disabled` on a port [5.10 port attributes]; `nv unset
        ... link breakout` back to 1x. Settings of the interfaces a split replaces go with
        them (inferred)."""
        match = re.fullmatch(r"swp(\d+)", name)
        if not match:
            raise invalid(f"link breakout applies to a port, not {name}")
        if self.add and (len(value) != 1 or value[0] not in BREAKOUTS):
            raise invalid(f"'{' '.join(value)}' is not one of 1x, 2x, 4x, disabled")
        mode = BREAKOUTS[value[0]] if self.add else "1x"
        port = match.group(1)
        for old in [n for n in self.config["interfaces"] if model.port_number(n) == int(port)]:
            if old != name or mode != "1x":
                self._remove(old)
        if mode == "1x":
            self.config["breakouts"].pop(port, None)
        else:
            self.config["breakouts"][port] = mode

    def _port_bridge(self, settings: dict[str, Any], words: list[str]) -> None:
        """`bridge domain br_default [access N | vlan LIST]` on a port or bond [5.10 bridge
        guide, 5.x bond guides]."""
        if not words:
            settings["bridge"] = self.add
            if not self.add:
                settings["access"] = settings["trunk_vlans"] = None
            return
        settings["bridge"] = True
        if words[0] == "access" and len(words) <= 2:
            settings["access"] = _vlan(words[1:]) if self.add else None
        elif words[0] == "vlan" and len(words) <= 2:
            ids = _vlans(words[1:]) if self.add or len(words) == 2 else []
            keep = set(settings["trunk_vlans"] or [])
            new = keep | set(ids) if self.add else (keep - set(ids) if ids else set())
            settings["trunk_vlans"] = sorted(new) or None
        else:
            raise Invalid(_usage(["set", "bridge", "domain", DOMAIN, *words]))

    def _bond(self, name: str, settings: dict[str, Any], words: list[str]) -> None:
        """`bond member <ports>` / `bond mode lacp|static` [5.x bond guides]."""
        if words[0] == "member" and len(words) == 2:
            members = model.expand_range(words[1])
            for member in members:
                if not re.fullmatch(r"swp\d+(s\d+)?", member):
                    raise invalid(f"bond member '{member}' is not a switch port")
                other = model.bond_of(self.config, member)
                if self.add and other and other != name:
                    self.config["interfaces"][other]["slaves"].remove(member)
                if self.add and member not in settings["slaves"]:
                    settings["slaves"].append(member)
                    self._settings(member)
                elif not self.add and member in settings["slaves"]:
                    settings["slaves"].remove(member)
            settings["slaves"].sort(key=model.sort_key)
        elif words[0] == "mode" and len(words) <= 2:
            if self.add and (len(words) != 2 or words[1] not in BOND_MODES):
                raise invalid(f"'{' '.join(words[1:])}' is not one of lacp, static")
            settings["mode"] = BOND_MODES[words[1]] if self.add else None
        else:
            raise Invalid(_usage(["set", "interface", name, "bond", *words]))

    def _svi(self, vlan: str, words: list[str]) -> None:
        """`nv set interface vlan10 ip address 10.1.10.2/24` [5.10 bridge guide]."""
        vlans = self.config["vlans"]
        if not words or words[:1] == ["type"]:
            if self.add:
                vlans.setdefault(vlan, {"addresses": []})
            else:
                vlans.pop(vlan, None)
            return
        if words[:2] != ["ip", "address"] or len(words) != 3:
            raise Invalid(_usage(["set", "interface", f"vlan{vlan}", *words]))
        try:
            address = str(ipaddress.ip_interface(words[2]))
        except ValueError:
            raise invalid(f"'{words[2]}' is not a valid IP prefix") from None
        svi = vlans.setdefault(vlan, {"addresses": []})
        if self.add and address not in svi["addresses"]:
            svi["addresses"].append(address)
        elif not self.add and address in svi["addresses"]:
            svi["addresses"].remove(address)

    def _bridge(self, words: list[str]) -> None:
        """`nv set bridge domain br_default vlan 10,20` / `untagged 1` [5.10 bridge guide]."""
        bridge = self.config["bridge"]
        if words[:1] == ["vlan"] and len(words) <= 2:
            ids = _vlans(words[1:]) if self.add or len(words) == 2 else list(bridge["vids"])
            keep = set(bridge["vids"])
            bridge["vids"] = sorted(keep | set(ids) if self.add else keep - set(ids))
        elif words[:1] == ["untagged"] and len(words) <= 2:
            bridge["pvid"] = _vlan(words[1:]) if self.add else None
        else:
            raise Invalid(_usage(["set", "bridge", "domain", DOMAIN, *words]))

    def _hostname(self, words: list[str]) -> None:
        if not self.add:
            self.config["hostname"] = model.DEFAULT_HOSTNAME
            return
        if not re.fullmatch(r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?", words[0]):
            raise invalid(f"'{words[0]}' is not a valid hostname")
        self.config["hostname"] = words[0]

    def _remove(self, name: str) -> None:
        self.config["interfaces"].pop(name, None)
        for settings in self.config["interfaces"].values():
            if name in settings.get("slaves", []):
                settings["slaves"].remove(name)


def _vlan(words: list[str]) -> int:
    if len(words) != 1 or not words[0].isdigit() or not 1 <= int(words[0]) <= 4094:
        raise invalid(f"'{' '.join(words)}' is not in range integer:1 - 4094")
    return int(words[0])


def _vlans(words: list[str]) -> list[int]:
    ids = model.parse_vlans(words[0]) if len(words) == 1 else None
    if ids is None:
        raise invalid(f"'{' '.join(words)}' is not a VLAN list in range 1 - 4094")
    return ids
