"""/etc/network/interfaces on the Cumulus Linux simulator as a real file: written the Linux
way (`sudo tee /etc/network/interfaces`), applied with `sudo ifreload -a` (ifupdown2), and
written again by NCLU's `net commit` and NVUE's `nv config apply`. The model renders the
file (cumulus_model.render_interfaces); this module reads it back.

Sources (named in brackets below):
- 4.2 interfaces guide: the Cumulus Linux 4.2 user guide, "Interface Configuration and
  Management" (github CumulusNetworks/docs): `sudo ifreload -a` applies the file and skips
  what did not change; `sudo bash -c "ifreload -s -a && ifreload -a"` checks the syntax
  first; child interfaces need no stanza of their own; an address without a mask is a /32;
- ifreload(8): the ifupdown2 manual page (`-a`, `-s`), and the `ifreload --help` usage of
  ifupdown2 3.0 (Debian bullseye, shown on sleeplessbeastie.eu "How to reload network
  configuration");
- ifupdown2 source (github CumulusNetworks/ifupdown2): `ifupdown2/__main__.py`
  stand_alone() (`must be root to run this command` on stderr, exit 1, for every command
  but ifquery); `ifupdown/networkinterfaces.py` (the parser: `<file>: line<N>: <message>`,
  `error processing line '...'`, `iface <name>: invalid syntax '...'`, `iface <name>:
  unsupported keyword (<attr>)`, `invalid auto line '...'`, `iface <name>: unsupported
  address family|method '...'`, the address families and methods); `ifupdown/
  ifupdownmain.py` (`_check_validvals_value`: `<iface>: <attr>: invalid value "<v>": valid
  attribute values: [...]` and `value of out range "<v>": valid attribute range: <lo>-<hi>`;
  `_reload_default`: `-s` stops after the checks, a failed check ends with exit status 1);
  `lib/log.py` (messages as `<level>: <message>` on stderr). That the level reads `error` /
  `warning` in lower case is **inferred** (ifupdown2's older front end renames the levels
  so; the newer log.py does not show it).

What differs from ifupdown2, on purpose: ifupdown2 warns about an attribute it does not
know and still applies the rest (its exit status is then 1); here any line the model cannot
hold (an unknown stanza or attribute, a value out of range, a port the switch lacks) fails
the whole reload and nothing changes, so the model never drifts from the file. ifupdown2's
own wording is used where it has one; what is the simulator's own is said so in the message
("not modelled by this simulator"). Every attribute the model lacks is answered with
ifupdown2's `unsupported keyword`, also one ifupdown2 supports (e.g. `bridge-stp`): a model
limit. `auto` lines are read but every stanza counts as auto; `source` lines read nothing
(the model has no /etc/network/interfaces.d); `allow-<class>` lines are accepted.

The local edit is a file on the switch's storage (SwitchState.files): it survives a
restart; `ifreload -a` makes it the running configuration and saves that as startup (a
file applied by ifupdown2 is what the switch boots with). A file written but never applied
stays on disk as written; that the next boot would apply it (ifupdown2 runs at boot) is not
modelled: the restarted switch runs its startup configuration. NCLU commands or an NVUE
revision staged before a reload keep the configuration they started from: committing them
writes that, and the reloaded edit is gone (as NVUE overwrites a local edit; for NCLU,
which reads the file when it stages, **unverified**).
"""

from __future__ import annotations

import copy
import ipaddress
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import cumulus_model as model
from .state import SwitchState

INTERFACES = "/etc/network/interfaces"
NOT_ROOT = "must be root to run this command"  # [ifupdown2 __main__.py stand_alone()]
# `ifreload --help` of ifupdown2 3.0 [ifreload(8)]
USAGE = (
    "usage: ifreload [-h] (-a | -c | --allow CLASS) [-n] [-v] [-d] [-u] [-l] [-f] [-s] [-V]"
    " [--nldebug]"
)
# What a failed ifreload prints first: the shell's exit status reads it.
FAILURES = ("error:", "warning:", NOT_ROOT, "usage: ifreload", "ifreload:")
# [networkinterfaces.py _addrfams]
ADDRESS_FAMILIES = ("inet", "inet6")
METHODS = ("static", "manual", "loopback", "dhcp", "dhcp6", "ppp", "tunnel")
# Values the model holds; ifupdown2 takes yes/no for on/off as well (its link-autoneg
# validvals; **inferred** from the addon's `<yes|no>` style, not read in its source).
AUTONEG = {"on": "on", "off": "off", "yes": "on", "no": "off"}
FECS = ("rs", "baser", "auto", "off")  # NCLU's three [4.2 port attributes] and NVUE's auto
BOND_MODES = {"802.3ad": None, "balance-xor": "balance-xor"}  # the model's [4.2 bonding]
YES_NO = {"yes": True, "no": False}
SWP = re.compile(r"swp\d+(s\d+)?")
BOND = re.compile(r"bond[\w-]{0,11}")  # a Linux name has at most 15 characters
SVI = re.compile(r"vlan([1-9]\d{0,3})")
BRIDGE = "bridge"  # the VLAN-aware bridge NCLU and NVUE write [4.2 NCLU guide]
FACTORY = {name: (method, attributes) for name, method, attributes in model.FACTORY_STANZAS}


class IfupdownError(Exception):
    """What ifupdown2 says about a file it will not apply, one line per complaint."""

    def __init__(self, lines: list[str]):
        super().__init__("\n".join(lines))


# ---- the file on the switch's storage ----------------------------------------------------


def interfaces_text(state: SwitchState) -> str:
    """`cat /etc/network/interfaces`: a local edit as written, else what NCLU or NVUE
    rendered from the running configuration."""
    written = state.files.get(INTERFACES)
    return written if written is not None else model.render_interfaces(state.running)


def locally_modified(state: SwitchState) -> bool:
    """Whether someone wrote the file since NCLU or NVUE last did."""
    return INTERFACES in state.files


def write_interfaces(state: SwitchState, text: str) -> None:
    """A local edit: on disk at once, the running configuration unchanged until
    `ifreload -a`. The rendered text written back counts as no edit (that NVUE compares
    contents rather than write times is **inferred**)."""
    if text == model.render_interfaces(state.running):
        state.remove_file(INTERFACES)
    else:
        state.write_file(INTERFACES, text)


def render_again(state: SwitchState) -> None:
    """`net commit` / `nv config apply` write the file from the configuration: a local
    edit is replaced (NVUE asks first, cumulus_nvue.Revisions.warnings)."""
    state.remove_file(INTERFACES)


# ---- ifreload ----------------------------------------------------------------------------


def ifreload(state: SwitchState, args: list[str], root: bool) -> str:
    """`ifreload -a` applies the file; `-s` only checks it [ifreload(8), 4.2 interfaces
    guide]. Silent when it succeeds (ifupdown2 is quiet without -v [4.2 interfaces guide])."""
    if not root:
        return NOT_ROOT
    flags, problem = _options(args)
    if problem:
        return problem
    with state.lock:
        try:
            config = parse_interfaces(interfaces_text(state), state.running)
        except IfupdownError as err:
            return str(err)
        if "s" in flags:
            return ""
        state.running = config
        state.save()  # the applied file is the one the switch boots with
    return ""


def _options(args: list[str]) -> tuple[set[str], str]:
    """(short flags, the error argparse prints or "") of ifreload's command line."""
    long = {"--all": "a", "--syntax-check": "s", "--verbose": "v", "--currently-up": "c"}
    flags: set[str] = set()
    for word in args:
        if word in long:
            flags.add(long[word])
        elif re.fullmatch(r"-[a-zA-Z]+", word) and set(word[1:]) <= set("asvc"):
            flags.update(word[1:])
        else:  # argparse's wording (**inferred**)
            return flags, f"{USAGE}\nifreload: error: unrecognized arguments: {word}"
    if "c" in flags:
        return flags, "ifreload: -c/--currently-up is not modelled by this simulator; use -a"
    if "a" not in flags:
        required = "one of the arguments -a/--all -c/--currently-up --allow is required"
        return flags, f"{USAGE}\nifreload: error: {required}"
    return flags, ""


# ---- reading the file back ----------------------------------------------------------------


@dataclass
class Stanza:
    """One `iface` (or `vlan`) stanza: its line, the words after the name, the attributes
    as (line, name, value)."""

    keyword: str
    name: str
    line: int
    method: tuple[str, ...]
    attributes: list[tuple[int, str, str]] = field(default_factory=list)


def parse_interfaces(text: str, base: dict[str, Any]) -> dict[str, Any]:
    """The configuration the file describes: `base` (release, hostname, breakouts and the
    rest that lives outside this file) with the interfaces, bridge and SVIs read from
    `text`. Raises IfupdownError with every complaint; render -> parse is the identity on a
    configuration the tools made."""
    stanzas, errors = read_stanzas(text)
    builder = Builder(base)
    for stanza in stanzas:
        builder.stanza(stanza)
    errors += builder.finish()
    if errors:
        raise IfupdownError(errors)
    return builder.config


def _error(line: int, message: str) -> str:
    return f"error: {INTERFACES}: line{line}: {message}"  # [networkinterfaces.py _parse_error]


def read_stanzas(text: str) -> tuple[list[Stanza], list[str]]:
    """The stanzas of the file and the lines ifupdown2's parser refuses
    [networkinterfaces.py process_interfaces, parse_iface]."""
    stanzas: list[Stanza] = []
    errors: list[str] = []
    current: Stanza | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        words = line.split()
        keyword = words[0]
        if keyword in ("iface", "vlan") and len(words) >= 2:
            current = Stanza(keyword, words[1], number, tuple(words[2:]))
            stanzas.append(current)
        elif keyword in ("auto", "source", "source-directory") or keyword.startswith("allow-"):
            current = None
            if len(words) < 2:
                errors.append(_error(number, f"invalid {keyword} line '{line}'"))
        elif current is None or keyword in ("iface", "vlan"):
            errors.append(_error(number, f"error processing line '{line}'"))
        elif len(words) < 2:
            errors.append(_error(number, f"iface {current.name}: invalid syntax '{line}'"))
        else:
            current.attributes.append((number, keyword, line.split(None, 1)[1]))
    return stanzas, errors


class Builder:
    """The configuration the stanzas describe, built one stanza at a time."""

    def __init__(self, base: dict[str, Any]):
        self.config = copy.deepcopy(base)
        self.config.update(interfaces={}, bridge={"vids": [], "pvid": None}, vlans={})
        self.errors: list[str] = []
        self.vlan_aware: dict[int, bool] = {}  # line of each bridge stanza -> vlan-aware
        self.handlers: dict[str, dict[str, Callable[..., None]]] = {
            "port": {
                "alias": self._alias,
                "mtu": self._mtu,
                "link-speed": self._speed,
                "link-autoneg": self._autoneg,
                "link-fec": self._fec,
                "link-down": self._link_down,
                "bridge-access": self._access,
                "bridge-vids": self._trunk,
            },
            "bond": {"bond-slaves": self._slaves, "bond-mode": self._bond_mode},
            "bridge": {
                "bridge-ports": self._bridge_ports,
                "bridge-vids": self._bridge_vids,
                "bridge-pvid": self._bridge_pvid,
                "bridge-vlan-aware": self._vlan_aware,
            },
            "svi": {
                "address": self._address,
                "vlan-id": self._vlan_id,
                "vlan-raw-device": self._raw_device,
            },
        }

    # -- stanzas ---------------------------------------------------------------------------

    def stanza(self, stanza: Stanza) -> None:
        name = stanza.name
        if stanza.keyword == "vlan":
            self._not_modelled(stanza.line, f"vlan {name}: a `vlan` stanza")
        elif name in FACTORY:
            self._factory(stanza)
        elif not self._method(stanza):
            return
        elif SWP.fullmatch(name) or BOND.fullmatch(name):
            kinds = ("port", "bond") if name.startswith("bond") else ("port",)
            self._attributes(stanza, kinds, self._settings(name))
        elif name == BRIDGE:
            self.vlan_aware.setdefault(stanza.line, False)
            self._attributes(stanza, ("bridge",), self.config["bridge"], stanza.line)
        elif (svi := SVI.fullmatch(name)) and int(svi.group(1)) <= model.VLAN_RANGE[1]:
            vlan = self.config["vlans"].setdefault(svi.group(1), {"addresses": []})
            self._attributes(stanza, ("svi",), vlan, int(svi.group(1)))
        else:
            self._not_modelled(stanza.line, f"iface {name}: this interface")

    def finish(self) -> list[str]:
        """The errors, with the model's own checks of the whole configuration last (their
        wording is the model's: **unverified** for ifupdown2)."""
        for line, aware in self.vlan_aware.items():
            if not aware:
                self._not_modelled(line, "iface bridge: a bridge without bridge-vlan-aware yes")
        for _name, reason in model.check(self.config):
            self.errors.append(f"error: {reason}")
        return self.errors

    def _factory(self, stanza: Stanza) -> None:
        """lo, mgmt and eth0 as the switch ships them (render_interfaces' first stanzas);
        a change to them is not modelled."""
        method, attributes = FACTORY[stanza.name]
        written = sorted(f"{a} {' '.join(v.split())}" for _, a, v in stanza.attributes)
        if " ".join(stanza.method) != method or written != sorted(attributes):
            self._not_modelled(stanza.line, f"iface {stanza.name}: a change to this stanza")

    def _method(self, stanza: Stanza) -> bool:
        """`iface NAME [inet|inet6 [METHOD]]`: ifupdown2's families and methods
        [networkinterfaces.py _validate_addr_family]; the model's interfaces are static."""
        if not stanza.method:
            return True
        family, method = stanza.method[0], (stanza.method[1:2] or ("static",))[0]
        where = f"iface {stanza.name}"
        if family not in ADDRESS_FAMILIES:
            self.errors.append(
                _error(stanza.line, f"{where}: unsupported address family '{family}'")
            )
        elif method not in METHODS:
            self.errors.append(
                _error(stanza.line, f"{where}: unsupported address method '{method}'")
            )
        elif method not in ("static", "manual") or len(stanza.method) > 2:
            self._not_modelled(stanza.line, f"{where}: address method '{method}'")
        else:
            return True
        return False

    def _attributes(
        self, stanza: Stanza, kinds: tuple[str, ...], target: dict[str, Any], *extra: Any
    ) -> None:
        for line, attribute, value in stanza.attributes:
            handler = next((self.handlers[k][attribute] for k in kinds
                            if attribute in self.handlers[k]), None)  # fmt: skip
            if handler is None:
                keyword = f"iface {stanza.name}: unsupported keyword ({attribute})"
                self.errors.append(_error(line, keyword))
            else:
                handler(stanza.name, attribute, value, target, *extra)

    def _settings(self, name: str) -> dict[str, Any]:
        """An interface's settings, made the first time a stanza or a list names it (a child
        interface needs no stanza of its own [4.2 interfaces guide])."""
        interfaces = self.config["interfaces"]
        if name not in interfaces:
            interfaces[name] = model.new_interface("bond" if name.startswith("bond") else "swp")
        return interfaces[name]

    # -- messages ----------------------------------------------------------------------------

    def _not_modelled(self, line: int, what: str) -> None:
        self.errors.append(_error(line, f"{what} is not modelled by this simulator"))

    def _invalid(self, name: str, attribute: str, value: str, valid: list[str]) -> None:
        # [ifupdownmain.py _check_validvals_value]
        self.errors.append(
            f'warning: {name}: {attribute}: invalid value "{value}": valid attribute values:'
            f" {valid}"
        )

    def _number(self, name: str, attribute: str, value: str, low: int, high: int) -> int | None:
        if not value.isdigit():
            self._invalid(name, attribute, value, [f"<number {low}-{high}>"])  # **unverified**
            return None
        if not low <= int(value) <= high:
            self.errors.append(  # ifupdown2's own typo "of out" [ifupdownmain.py]
                f'warning: {name}: {attribute}: value of out range "{value}": valid attribute'
                f" range: {low}-{high}"
            )
            return None
        return int(value)

    def _choice(self, name: str, attribute: str, value: str, choices: dict[str, Any]) -> Any:
        if value not in choices:
            self._invalid(name, attribute, value, list(choices))
            return None
        return choices[value]

    # -- switch ports and bonds [4.2 port attributes, 4.2 bonding, bridge guides] -------------

    def _alias(self, name: str, attribute: str, value: str, settings: dict[str, Any]) -> None:
        settings["alias"] = value

    def _mtu(self, name: str, attribute: str, value: str, settings: dict[str, Any]) -> None:
        settings["mtu"] = self._number(name, attribute, value, *model.MTU_RANGE)

    def _speed(self, name: str, attribute: str, value: str, settings: dict[str, Any]) -> None:
        """Mb/s; whether the port runs it is model.check's question."""
        settings["speed"] = self._number(name, attribute, value, 1, max(model.SPEED_LADDER))

    def _autoneg(self, name: str, attribute: str, value: str, settings: dict[str, Any]) -> None:
        settings["autoneg"] = self._choice(name, attribute, value, AUTONEG)

    def _fec(self, name: str, attribute: str, value: str, settings: dict[str, Any]) -> None:
        settings["fec"] = self._choice(name, attribute, value, {f: f for f in FECS})

    def _link_down(self, name: str, attribute: str, value: str, settings: dict[str, Any]) -> None:
        settings["admin_down"] = bool(self._choice(name, attribute, value, YES_NO))

    def _access(self, name: str, attribute: str, value: str, settings: dict[str, Any]) -> None:
        settings["access"] = self._number(name, attribute, value, *model.VLAN_RANGE)

    def _trunk(self, name: str, attribute: str, value: str, settings: dict[str, Any]) -> None:
        settings["trunk_vlans"] = self._vlans(name, attribute, value)

    def _vlans(self, name: str, attribute: str, value: str) -> list[int] | None:
        """`10 20 30-40` [4.2 interfaces guide: `bridge-vids 1-100`]."""
        ids = model.parse_vlans(",".join(value.split()))
        if ids is None:
            self._invalid(name, attribute, value, ["<number-range-list>"])
        return ids

    def _slaves(self, name: str, attribute: str, value: str, settings: dict[str, Any]) -> None:
        for member in value.split():
            other = model.bond_of(self.config, member)
            if not SWP.fullmatch(member):
                self._invalid(name, attribute, member, ["<interface-list>"])
            elif other not in (None, name):  # wording **unverified**
                self.errors.append(f"error: {name}: {member} is already a member of {other}")
            elif member not in settings["slaves"]:
                settings["slaves"].append(member)
                self._settings(member)

    def _bond_mode(self, name: str, attribute: str, value: str, settings: dict[str, Any]) -> None:
        if value in BOND_MODES:
            settings["mode"] = BOND_MODES[value]
        else:  # the model's modes; ifupdown2 knows more
            self._invalid(name, attribute, value, list(BOND_MODES))

    # -- the VLAN-aware bridge and its SVIs [bridge guides] -----------------------------------

    def _bridge_ports(self, name: str, attribute: str, value: str, bridge: Any, _: int) -> None:
        for member in value.split():
            if SWP.fullmatch(member) or BOND.fullmatch(member):
                self._settings(member)["bridge"] = True
            else:  # also `glob` / `regex` patterns: not modelled
                self._invalid(name, attribute, member, ["<interface-list>"])

    def _bridge_vids(self, name: str, attribute: str, value: str, bridge: Any, _: int) -> None:
        ids = self._vlans(name, attribute, value) or []
        bridge["vids"] = sorted(set(bridge["vids"]) | set(ids))

    def _bridge_pvid(self, name: str, attribute: str, value: str, bridge: Any, _: int) -> None:
        bridge["pvid"] = self._number(name, attribute, value, *model.VLAN_RANGE)

    def _vlan_aware(self, name: str, attribute: str, value: str, bridge: Any, line: int) -> None:
        self.vlan_aware[line] = bool(self._choice(name, attribute, value, YES_NO))

    def _address(self, name: str, attribute: str, value: str, svi: Any, vlan: int) -> None:
        """An address without a mask is a /32 [4.2 interfaces guide]."""
        try:
            address = str(ipaddress.ip_interface(value))
        except ValueError:
            self._invalid(name, attribute, value, ["<ip/prefixlen>"])
            return
        if address not in svi["addresses"]:
            svi["addresses"].append(address)

    def _vlan_id(self, name: str, attribute: str, value: str, svi: Any, vlan: int) -> None:
        if value != str(vlan):  # the model's SVI carries the VLAN its name gives
            self.errors.append(f"error: {name}: vlan-id {value} is not modelled by this simulator")

    def _raw_device(self, name: str, attribute: str, value: str, svi: Any, vlan: int) -> None:
        if value != BRIDGE:
            self.errors.append(
                f"error: {name}: vlan-raw-device {value} is not modelled by this simulator"
            )
