"""NVIDIA MLNX-OS 3.9 on a Quantum QM8700 (40 HDR InfiniBand ports): the device model.

Its ports (split ones included) and their names, the factory configuration, link state
(cabling, shutdown, subnet manager), `show version` and the rendering of `show
running-config` from the configuration, a plain dict persisted as JSON by SwitchState.
The CLI session that edits it is mlnxos.py; SNMP settings are mlnxos_snmp.py's.

Sources (named in brackets below):
- MLNX-OS manual: NVIDIA MLNX-OS User Manual v3.10 (docs.nvidia.com/networking/display/
  MLNXOSv3104202): "Command Line Interface (CLI)", "Configuration Management", "SM
  Commands", "UI Commands", "InfiniBand Interface";
- mellanox.onyx: github ansible-collections/mellanox.onyx, the unit fixtures (MLNX-OS
  3.6.5000 `show version`, a running config) and `| json-print`;
- mlxlink: github Mellanox/mstflint, mlxlink/modules/mlxlink_commander.cpp (split hint);
- QM8700 capture: the public blog "High Performance computing (HPC) on Openstack" (2022);
- SX6036 notes: public notes on MLNX-OS 3.6.8012 on an SX6036 (a skill file and the blog
  "Mellanox SX6036");
- third-party scripts and reports found by code search: a sizing table (`qm8700`, 40
  ports), SM automation (`ib smnode`), NVIDIA's upgrade procedure (`show version` of
  3.9.0606), a 3.9.2110 running config and an SX6036 error report;
- Red Hat KB "Installing and configuring the OpenSM InfiniBand subnet manager"
  (access.redhat.com/node/7087953): every IB subnet needs a running subnet manager.
Where a wording or layout has no source it is marked "unverified" at the place it is used.
"""

from __future__ import annotations

import re
import time
from typing import Any

from . import mlnxos_snmp
from .cli import CommandError

RELEASE = "3.9.0606"  # the seed's QM8700 product release (seed 002, Table 2)
# `show version` of 3.9.0606 (NVIDIA's upgrade procedure, code search "Product release:
# 3.9.0606"): field names and order as there; build values are that capture's.
VERSION_FIELDS = (
    ("Product name", "MLNX-OS"),
    ("Product release", RELEASE),
    ("Build ID", "#1-dev"),
    ("Build date", "2020-05-01 08:20:15"),
    ("Target arch", "x86_64"),
    ("Target hw", "x86_64"),
    ("Built by", "sw-r2d2-bot@b13770d14a06"),
    ("Version summary", f"X86_64 {RELEASE} 2020-05-01 08:20:15 x86_64"),
    None,
    ("Product model", "x86onie"),  # 3.6.5000 fixture [mellanox.onyx]; QM8700 unverified
    ("Host ID", "B8599F3A2C10"),  # made up; the device prints its base MAC here
    ("System serial num", "MT2022X01234"),  # made up, in the MTyyww form of the captures
    None,
    ("Uptime", "1d 2h 3m 4.500s"),
    ("CPU load averages", "0.02 / 0.08 / 0.11"),
    ("Number of CPUs", "2"),
    ("System memory", "485 MB used / 3278 MB free / 3763 MB total"),
    ("Swap", "0 MB used / 0 MB free / 0 MB total"),
)

PORTS = range(1, 41)  # QM8700: 40 HDR ports (a 3rd-party sizing table)
# HDR -> 2x HDR100, sub-ports 1/N/1 and 1/N/2 [MLNX-OS manual, mlxlink, QM8700 capture]
SPLIT = "qsfp-split-2"
UNSPLIT = "qsfp"  # `module-type qsfp` on a sub-port: **unverified** (Onyx Ethernet's form)
# `Supported speeds : sdr, qdr, fdr, edr, hdr` on a QM8700 port [QM8700 capture]; that `speed`
# takes these words is inferred from `speed qdr fdr` on an SX6036 [SX6036 notes] (HDR
# **unverified**)
SPEEDS = ("sdr", "qdr", "fdr", "edr", "hdr")
LANE_GBPS = {"sdr": 2.5, "qdr": 10.0, "fdr": 14.0, "edr": 25.0, "hdr": 50.0}  # 4X qdr = 40.0
MTU = 4096  # `MTU : 4096` [QM8700 capture]; no MTU command is known, so none is modelled

DEFAULT_HOSTNAME = "switch"  # [MLNX-OS manual]; units append MAC digits [SX6036 notes]
HOSTNAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,62}")  # rules unverified


def unrecognized(word: str) -> CommandError:
    """`% Unrecognized command "transceiver".`: the first word the CLI cannot place, in
    quotes (MLNX-OS 3.6.8012 on an SX6036, 3rd-party report, code search
    `Unrecognized command "transceiver"`; also `show ib partition` -> `"ib"`)."""
    return CommandError(f'% Unrecognized command "{word}".')


def no_such_interface(name: str) -> CommandError:
    # a port that does not exist, or that a split renamed: wording unverified
    return CommandError(f"% Interface ib {name} does not exist.")


# ---- factory state and port names ------------------------------------------------------


def new_port() -> dict[str, Any]:
    """A port out of the box: enabled, every supported speed (nothing in running-config)."""
    return {"shutdown": False, "speeds": None}


def factory(hostname: str) -> dict[str, Any]:
    """A QM8700 out of the box: 40 unsplit ports, subnet manager disabled [MLNX-OS
    manual: default], SNMP as mlnxos_snmp.factory. A port's description is a key it has
    only while one is set."""
    return {
        "hostname": hostname,
        "ports": {f"1/{n}": new_port() for n in PORTS},
        "sm": False,
        "smnodes": {},
        "snmp": mlnxos_snmp.factory(),
    }


def snmp_settings(config: dict[str, Any]) -> dict[str, Any]:
    """The SNMP settings; a configuration saved before SNMP was modelled has none: the
    factory's."""
    return config.get("snmp") or mlnxos_snmp.factory()


def port_key(name: str) -> tuple[int, ...]:
    return tuple(int(n) for n in name.split("/"))


def front_panel(name: str) -> int:
    """1/21 and 1/21/2 are both on front-panel port 21 (what the lab's cabling names)."""
    return port_key(name)[1]


def expand_range(text: str, ports: dict[str, Any]) -> list[str]:
    """`1/1`, `1/1-1/18`, `1/2/1`, `1/2/1-1/2/2` -> the ports, each of which must exist.

    A range of whole ports that crosses a split port is refused: the split port's name is
    gone [MLNX-OS manual: notation x/y -> x/y/z], so the range names a port that does not exist.
    """
    match = re.fullmatch(r"(\d+/\d+(?:/\d+)?)(?:-(\d+/\d+(?:/\d+)?))?", text)
    if not match:
        raise unrecognized(text)
    first = port_key(match.group(1))
    last = port_key(match.group(2)) if match.group(2) else first
    if len(first) != len(last) or (len(first) == 3 and first[:-1] != last[:-1]):
        raise no_such_interface(text)  # a range mixing ports and sub-ports: unverified
    if first[0] != 1 or last[0] != 1 or last < first:
        raise no_such_interface(text)
    if len(first) == 2:
        names = [f"1/{n}" for n in range(first[1], last[1] + 1)]
    else:
        names = [f"1/{first[1]}/{n}" for n in range(first[2], last[2] + 1)]
    for name in names:
        if name not in ports:
            raise no_such_interface(name)
    return names


# ---- link state (cabling, shutdown, subnet manager) -------------------------------------


def sm_running(config: dict[str, Any]) -> bool:
    """The switch's own SM runs when `ib sm` is on and its node is not disabled
    (`ib smnode <host> disable` [SX6036 notes], 3rd-party SM automation; the interplay is
    inferred)."""
    return config["sm"] and config["smnodes"].get(config["hostname"]) != "disable"


def link(
    name: str, settings: dict[str, Any], config: dict[str, Any], cabled: frozenset[int]
) -> tuple[str, str, str, str, str]:
    """(logical state, physical state, speed, width, rate) of one port.

    Physical `LinkUp` needs a cable (the lab's cabling) and no `shutdown`; a port with
    nothing linked polls (`Polling`, [SX6036 notes]); a shut port is `Disabled`
    (IB PortPhysicalState name, unverified in MLNX-OS output). Logical `Active` further
    needs a subnet manager [Red Hat KB]; the lab has none but the switch's own, so a linked
    port without it stays `Initialize` (wording unverified).
    """
    if settings["shutdown"]:
        return "Down", "Disabled", "-", "-", "-"
    if front_panel(name) not in cabled:
        return "Down", "Polling", "-", "-", "-"
    speed = (settings["speeds"] or SPEEDS)[-1]
    lanes = 2 if len(port_key(name)) == 3 else 4  # HDR100 split: 2X [QM8700 capture]
    rate = f"{LANE_GBPS[speed] * lanes:.1f} Gbps"
    logical = "Active" if sm_running(config) else "Initialize"
    return logical, "LinkUp", speed, f"{lanes}X", rate


# ---- rendering -----------------------------------------------------------------------------


def _section(title: str, lines: list[str]) -> list[str]:
    """A `##`-titled block with commands indented 3 spaces [mellanox.onyx; 3.9.2110 capture]."""
    return ["", "##", f"## {title}", "##", *lines] if lines else []


def render(config: dict[str, Any], database: str = "initial") -> str:
    """`show running-config`: banner, the prefix-mode line, then non-default settings.

    Banner and first section as in the Onyx fixture [mellanox.onyx] and a 3.9.2110 running config
    (code search "no cli default prefix-modes enable"); `hostname` sits under "Other IP
    configuration" there. The titles of the IB, split, SM and SNMP sections are unverified
    (the Ethernet one is "Interface Ethernet configuration"); order is the port order. A
    description is quoted when it holds a space, so that the line replays (unverified).
    """
    stamp = time.strftime("%Y/%m/%d %H:%M:%S +0000", time.gmtime())
    lines = [
        "##",
        f'## Running database "{database}"',
        f"## Generated at {stamp}",
        f"## Hostname: {config['hostname']}",
        f"## Product release: {RELEASE}",
        "##",
        "",
        "##",
        "## Running-config temporary prefix mode setting",
        "##",
        "no cli default prefix-modes enable",
    ]
    ports = sorted(config["ports"], key=port_key)
    splits = sorted({front_panel(p) for p in ports if len(port_key(p)) == 3})
    lines += _section(
        "Interface split configuration",
        [f"   interface ib 1/{n} module-type {SPLIT} force" for n in splits],
    )
    interface_lines = []
    for name in ports:
        settings = config["ports"][name]
        if settings["speeds"]:
            interface_lines.append(f"   interface ib {name} speed {' '.join(settings['speeds'])}")
        if settings["shutdown"]:
            interface_lines.append(f"   interface ib {name} shutdown")
        if "description" in settings:
            text = settings["description"]
            quoted = f'"{text}"' if " " in text else text
            interface_lines.append(f"   interface ib {name} description {quoted}")
    lines += _section("Interface IB configuration", interface_lines)
    sm_lines = ["   ib sm"] if config["sm"] else []
    sm_lines += [f"   ib smnode {h} {s}" for h, s in sorted(config["smnodes"].items())]
    lines += _section("Subnet Manager configuration", sm_lines)
    lines += _section("SNMP configuration", mlnxos_snmp.render(snmp_settings(config)))
    if config["hostname"] != DEFAULT_HOSTNAME:
        lines += _section("Other IP configuration", [f"   hostname {config['hostname']}"])
    return "\n".join(lines)


def version_text() -> str:
    return "\n".join("" if f is None else f"{f[0] + ':':<19}{f[1]}" for f in VERSION_FIELDS)


def version_data() -> dict[str, str]:
    """`show version` as an object: the printed fields by name (keys from [mellanox.onyx]'s
    `| json-print`; a flat object is unverified)."""
    return {f[0]: f[1] for f in VERSION_FIELDS if f is not None}
