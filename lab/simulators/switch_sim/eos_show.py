"""What the simulated 7060CX2-32S prints: show commands, their `| json` forms, pipes.

Sources (named in brackets below):
- arista.eos: github ansible-collections/arista.eos, its terminal, cliconf and eos_facts
  plugins (what it sends and what it reads back);
- napalm: github napalm-automation/napalm, napalm/eos/eos.py and test/eos/mocked_data;
- anta: github aristanetworks/anta, unit-test data (`show version` JSON);
- ntc-templates: github networktocode/ntc-templates, the arista_eos templates and the real
  captures in their tests (show_interfaces_status);
- ta367: github arista-netdevops-community/automation_and_telemetry_demo,
  ansible/demo/snapshots/ta367/report.md (real EOS 4.25.1F output);
- EOS manual: arista.com/en/um-eos/eos-configure-session, with the ngworx.ag blog
  "Arista EOS config sessions" (ngworx.ag/en/blog/arista-eos-config-sessions/).
Text formats are the ones ntc-templates' arista_eos templates parse; JSON keys are the ones
arista.eos, napalm and anta read from real devices.

Link state comes from the lab's cabling (SwitchState.cabled_ports): a port without a
cable is `notconnect`; lanes 2-4 of a QSFP port running one 4-lane speed (100G/40G) are
`inactive` [ntc-templates: `Et3/1/4 ... inactive ... unconf unconf`]. No LLDP neighbour is ever
seen: the lab's hosts do not speak LLDP.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from . import eos_model as model
from .cli import CommandError
from .state import SwitchState

# `| json` of a command that has no JSON form (wording from eAPI error replies,
# **unverified** for the CLI)
UNCONVERTED = "% This is an unconverted command"
BOOT_TIME = 1700000000.0
MEM_TOTAL, MEM_FREE = 8010424, 5123456  # kB


class ShowSession(Protocol):
    """What the show commands read of a CLI session (eos.EOSSession is one): typed here
    so that this module does not import eos, which imports it."""

    state: SwitchState
    session_name: str | None  # the configuration session this CLI session is in

    @property
    def sessions(self) -> dict[str, dict[str, Any]]:
        """The switch's configuration sessions, by name."""

    def require_privilege(self) -> None:
        """Refuse (CommandError) unless the session is at the privileged prompt."""


# ---- pipes ------------------------------------------------------------------------------


def split_pipes(line: str) -> tuple[str, list[tuple[str, str]]]:
    """`show x | include a|b` -> ("show x", [("include", "a|b")]).

    After `include`/`exclude`/`section`/`begin` EOS takes the rest of the line as one
    regex, `|` included (arista.eos sends `| include interface | access-group |
    traffic-filter`) [arista.eos, **inferred**]."""
    command, _, rest = line.partition("|")
    pipes: list[tuple[str, str]] = []
    while rest.strip():
        word, _, arg = rest.strip().partition(" ")
        if word in ("include", "exclude", "section", "begin", "grep"):
            pipes.append((word, arg.strip()))
            break
        this, _, rest = rest.partition("|")
        pipes.append((this.strip(), ""))
    return command.strip(), pipes


def section(text: str, pattern: str) -> str:
    """`| section RE`: every block whose header matches, whole; of other blocks the
    header and the matching sub-commands [arista.eos]."""
    regex = re.compile(pattern)
    out: list[str] = []
    for block in _blocks(text):
        if regex.search(block[0]):
            out += block
        else:
            children = [line for line in block[1:] if regex.search(line)]
            if children:
                out += [block[0], *children]
    return "\n".join(out)


def _blocks(text: str) -> list[list[str]]:
    blocks: list[list[str]] = []
    for line in text.splitlines():
        if not line.strip() or line.startswith("!") or line == "end":
            continue
        if line[0] != " " or not blocks:
            blocks.append([line])
        else:
            blocks[-1].append(line)
    return blocks


def apply_text_pipe(text: str, pipe: str, arg: str, words: list[str]) -> str:
    if not arg:
        raise CommandError("% Incomplete command")
    try:
        regex = re.compile(arg)
    except re.error:
        raise CommandError(f"% Invalid input (at token {len(words) - 1}: '{arg}')") from None
    lines = text.splitlines()
    if pipe in ("include", "grep"):
        return "\n".join(line for line in lines if regex.search(line))
    if pipe == "exclude":
        return "\n".join(line for line in lines if not regex.search(line))
    if pipe == "begin":
        for index, line in enumerate(lines):
            if regex.search(line):
                return "\n".join(lines[index:])
        return ""
    return section(text, arg)


def checked_pipes(line: str) -> tuple[str, list[tuple[str, str]]]:
    """split_pipes, refusing a pipe EOS does not have."""
    command, pipes = split_pipes(line)
    words = line.split()
    for pipe, _ in pipes:
        if pipe not in ("include", "exclude", "section", "begin", "grep", "json", "nz"):
            token = words.index(pipe) if pipe in words else len(words) - 1
            raise CommandError(f"% Invalid input (at token {token}: '{pipe}')")
    return command, pipes


def run(session: ShowSession, line: str) -> str:
    """A show command with its pipes."""
    command, pipes = checked_pipes(line)
    words = line.split()
    if pipes and pipes[0][0] == "json":
        return json.dumps(show_json(session, command), indent=2)
    text = show_text(session, command)
    for pipe, arg in pipes:
        if pipe == "nz":
            continue
        if pipe == "json":
            raise CommandError(UNCONVERTED)
        text = apply_text_pipe(text, pipe, arg, words)
    return text


def json_model(session: ShowSession, line: str) -> Any:
    """What eAPI's `format: json` answers for a show command: the document `| json`
    prints [pyntc PR #419: `| json` "renders the same document eAPI returns"]. A text
    filter (`| include` ...) has no JSON model: unconverted (**unverified**)."""
    command, pipes = checked_pipes(line)
    if any(pipe not in ("json", "nz") for pipe, _ in pipes):
        raise CommandError(UNCONVERTED)
    return show_json(session, command)


# ---- the command table ------------------------------------------------------------------


def _config_of(session: ShowSession, name: str | None) -> dict[str, Any]:
    if name is None:
        if session.session_name is None:
            raise CommandError("% Not in a configuration session")  # wording **unverified**
        name = session.session_name
    found = session.sessions.get(name)
    if found is None or found["state"] != "pending":
        raise CommandError(f"% Invalid input (at token 3: '{name}')")
    return found["config"]


def session_config(session: ShowSession, words: list[str]) -> str:
    """`show session-config [named S] [diffs]` [EOS manual, napalm]."""
    rest = words[2:]
    name = None
    if rest[:1] == ["named"]:
        if len(rest) < 2:
            raise CommandError("% Incomplete command")
        name, rest = rest[1], rest[2:]
    config = _config_of(session, name)
    if not rest:
        return model.render(config)
    if rest != ["diffs"]:
        raise CommandError(f"% Invalid input (at token {len(words) - len(rest)}: '{rest[0]}')")
    shown = name or session.session_name
    diff = difflib.unified_diff(
        model.render(session.state.running).splitlines(),
        model.render(config).splitlines(),
        "system:/running-config",
        f"session:/{shown}-session-config",
        lineterm="",
    )
    return "\n".join(diff)


def configuration_sessions(session: ShowSession, detail: bool) -> str:
    """`show configuration sessions [detail]` [a public EOS 4.25.4M capture]."""
    rows = [
        f"Maximum number of completed sessions: {1}",
        f"Maximum number of pending sessions: {5}",
        "",
        "  Name                   State           User       Terminal",
        "  ---------------------- --------------- ---------- --------",
    ]
    for name, info in session.sessions.items():
        mark = "*" if name == session.session_name else " "
        rows.append(f"{mark} {name:<22} {info['state']:<15} {info['user']:<10}")
    return "\n".join(rows)


def show_text(session: ShowSession, command: str) -> str:
    words = command.split()
    state = session.state
    running = state.running
    key = " ".join(words[1:])
    if key in ("running-config", "startup-config", "session-config") or words[1:2] in (
        ["running-config"],
        ["startup-config"],
        ["session-config"],
        ["configuration"],
    ):
        session.require_privilege()
    if key == "running-config":
        return model.render(running)
    if key == "running-config all":
        return model.render(running)  # defaults are not modelled: the same lines
    if key == "startup-config":
        return model.render(state.startup)
    if words[1:2] == ["session-config"]:
        return session_config(session, words)
    if key in ("configuration sessions", "configuration sessions detail"):
        return configuration_sessions(session, key.endswith("detail"))
    handler = TEXT.get(key)
    if handler is not None:
        return handler(session)
    if len(words) == 1:
        raise CommandError("% Incomplete command")
    raise CommandError(f"% Invalid input (at token 1: '{words[1]}')")


def show_json(session: ShowSession, command: str) -> Any:
    words = command.split()
    key = " ".join(words[1:])
    if key in ("configuration sessions", "configuration sessions detail"):
        session.require_privilege()
        return {
            "maxSavedSessions": 1,
            "maxOpenSessions": 5,
            "sessions": {
                name: {
                    "state": info["state"],
                    "completedTime": 0,
                    "commitUser": "",
                    "description": "",
                    "instances": {},
                }
                for name, info in session.sessions.items()
            },
        }
    handler = JSON.get(key)
    if handler is None:
        show_text(session, command)  # the same errors as the text form
        raise CommandError(UNCONVERTED)
    return handler(session)


# ---- port status ------------------------------------------------------------------------


def link(session: ShowSession, name: str) -> str:
    """connected / notconnect / disabled / inactive for an Ethernet interface."""
    config = session.state.running
    settings = config["interfaces"][name]
    if settings["shutdown"]:
        return "disabled"
    if model.lane_number(name) > 1 and _lane_speed(config, name.rsplit("/", 1)[0] + "/1") in (
        "100G",
        "40G",
    ):
        return "inactive"
    if model.port_number(name) not in session.state.cabled_ports:
        return "notconnect"
    return "connected"


def _lane_speed(config: dict[str, Any], name: str) -> str:
    """The speed an interface runs at: its configured one, or the port's native one."""
    speed = config["interfaces"][name]["speed"]
    if speed:
        return model.speeds_for(name)[speed.split()[-1]]
    if model.port_number(name) in model.SFP_PORTS:
        return "10G"
    return "100G" if model.lane_number(name) == 1 else "25G"


def _vlan_column(config: dict[str, Any], settings: dict[str, Any]) -> str:
    if settings["channel_group"]:
        return f"in Po{settings['channel_group'][0]}"
    if not settings["switchport"]:
        return "routed"
    if settings["mode"] == "trunk":
        return "trunk"
    return str(settings["access_vlan"] or 1)


def _type(session: ShowSession, name: str) -> str:
    """The transceiver: a cabled QSFP100 port carries a DAC (`100GBASE-CR4`, `40GBASE-CR4`
    at 40G); a port without a cable shows `Not Present` [ntc-templates]."""
    if model.port_number(name) not in session.state.cabled_ports:
        return "Not Present"
    if model.port_number(name) in model.SFP_PORTS:
        return "10GBASE-CR"
    speed = _lane_speed(session.state.running, name.rsplit("/", 1)[0] + "/1")
    return "40GBASE-CR4" if speed == "40G" else "100GBASE-CR4"


def status_rows(session: ShowSession) -> list[dict[str, Any]]:
    """One row per interface of `show interfaces status`, in EOS's order."""
    config = session.state.running
    rows = []
    for name in sorted(config["interfaces"], key=model.interface_sort_key):
        settings = config["interfaces"][name]
        status = link(session, name)
        speed = _lane_speed(config, name)
        duplex, shown_speed = ("full", speed) if status != "inactive" else ("unconf", "unconf")
        rows.append({
            "name": name, "description": settings["description"] or "", "status": status,
            "vlan": _vlan_column(config, settings), "duplex": duplex, "speed": shown_speed,
            "type": _type(session, name), "bandwidth": _bps(speed),
        })  # fmt: skip
    for number in sorted(config["port_channels"], key=int):
        settings = config["port_channels"][number]
        members = _members(session, number)
        up = [m for m in members if link(session, m) == "connected"]
        status = "disabled" if settings["shutdown"] else ("connected" if up else "notconnect")
        speed = _lane_speed(config, up[0]) if up else "unconf"
        rows.append({
            "name": f"Port-Channel{number}", "description": settings["description"] or "",
            "status": status, "vlan": _vlan_column(config, settings),
            "duplex": "full" if up else "unconf", "speed": speed, "type": "N/A",
            "bandwidth": _bps(speed) * len(up) if up else 0,
        })  # fmt: skip
    return rows


def _bps(speed: str) -> int:
    match = re.fullmatch(r"(\d+)G", speed)
    return int(match.group(1)) * 1_000_000_000 if match else 0


def _members(session: ShowSession, number: str) -> list[str]:
    config = session.state.running
    return sorted(
        (n for n, s in config["interfaces"].items() if (s["channel_group"] or [None])[0] == number),
        key=model.interface_sort_key,
    )


def interfaces_status(session: ShowSession) -> str:
    """`show interfaces status` [ntc-templates]; the Name column widens to the longest
    description (a public capture, repository unidentified)."""
    rows = status_rows(session)
    width = max([len("Name")] + [len(r["description"]) for r in rows])
    header = (
        f"{'Port':<10} {'Name':<{width}} {'Status':<12} {'Vlan':<8} {'Duplex':<6} "
        f"{'Speed':<6} {'Type':<15} {'Flags':<5} Encapsulation"
    )
    lines = [header]
    lines.append(
        f"{'Ma1':<10} {'':<{width}} {'connected':<12} {'routed':<8} {'a-full':<6} "
        f"{'a-1G':<6} 10/100/1000"
    )
    for row in rows:
        speed = row["speed"]
        lines.append(
            f"{model.short_name(row['name']):<10} {row['description']:<{width}} "
            f"{row['status']:<12} {row['vlan']:<8} {row['duplex']:<6} {speed:<6} {row['type']}"
        )
    return "\n".join(line.rstrip() for line in lines)


def interfaces_status_json(session: ShowSession) -> dict[str, Any]:
    """eAPI shape (`interfaceStatuses`) as anta's test data shows it [anta]."""
    statuses = {}
    for row in status_rows(session):
        vlan = row["vlan"]
        mode = "routed" if vlan == "routed" else "trunk" if vlan == "trunk" else "bridged"
        statuses[row["name"]] = {
            "description": row["description"],
            "linkStatus": row["status"],
            "lineProtocolStatus": "up" if row["status"] == "connected" else "down",
            "bandwidth": row["bandwidth"],
            "duplex": "duplexFull" if row["duplex"] == "full" else "duplexUnknown",
            "interfaceType": row["type"],
            "autoNegotiateActive": False,
            "vlanInformation": {
                "interfaceMode": mode,
                "interfaceForwardingModel": "routed" if mode == "routed" else "bridged",
                **({"vlanId": int(vlan)} if vlan.isdigit() else {}),
            },
        }
    return {"interfaceStatuses": statuses}


def _mac(index: int) -> str:
    """Interface MACs follow the system MAC (444c.a800.0001)."""
    base = int(model.SYSTEM_MAC.replace(".", ""), 16) + index
    raw = f"{base:012x}"
    return f"{raw[0:4]}.{raw[4:8]}.{raw[8:12]}"


def _colon(mac: str) -> str:
    raw = mac.replace(".", "")
    return ":".join(raw[i : i + 2] for i in range(0, 12, 2))


# `interfaceCounters` of `show interfaces | json`: the keys napalm's get_interfaces_counters
# reads [napalm]. A lab switch forwards nothing: every counter is 0 unless the lab's fault
# file sets it (SwitchState.interface_counters); a Port-Channel counts what its members do.
COUNTERS = (
    "inOctets", "inUcastPkts", "inMulticastPkts", "inBroadcastPkts", "inDiscards",
    "totalInErrors", "outOctets", "outUcastPkts", "outMulticastPkts", "outBroadcastPkts",
    "outDiscards", "totalOutErrors",
)  # fmt: skip


def counters(
    session: ShowSession, name: str, given: Mapping[str, Mapping[str, int]]
) -> dict[str, int]:
    """The counters of one interface, a Port-Channel's as the sum of its members', from
    `given` (SwitchState.interface_counters(), read once per show)."""
    names = [name]
    if name.startswith("Port-Channel") and name not in given:
        names = _members(session, name[len("Port-Channel") :])
    return {
        key: sum(int((given.get(member) or {}).get(key, 0)) for member in names) for key in COUNTERS
    }


def interface_facts(session: ShowSession) -> list[dict[str, Any]]:
    """What `show interfaces` reports for each interface (text and JSON share it)."""
    config = session.state.running
    given = session.state.interface_counters()  # the fault file: one read for the show
    facts = []
    for index, row in enumerate(status_rows(session), start=1):
        settings = model.interface_settings(config, row["name"])
        status = row["status"]
        protocol = {"connected": "up", "disabled": "down", "notconnect": "notPresent"}.get(
            status, "lowerLayerDown"
        )
        facts.append({
            "name": row["name"], "status": status, "protocol": protocol,
            "mac": _mac(index), "description": row["description"],
            "mtu": settings["mtu"] or (9214 if settings["switchport"] else 1500),
            "bandwidth": row["bandwidth"], "duplex": row["duplex"],
            "routed": not settings["switchport"], "address": settings["ip_address"],
            "counters": counters(session, row["name"], given),
        })  # fmt: skip
    return facts


def interfaces_text(session: ShowSession) -> str:
    """`show interfaces` (lines ntc-templates' arista_eos_show_interfaces reads)."""
    out: list[str] = []
    for fact in interface_facts(session):
        link_word = {"connected": "up", "disabled": "administratively down"}.get(
            fact["status"], "down"
        )
        kind = "Ethernet" if fact["name"].startswith("Ethernet") else "Port-Channel"
        out.append(
            f"{fact['name']} is {link_word}, line protocol is {fact['protocol'].lower()} "
            f"({fact['status']})"
        )
        out.append(f"  Hardware is {kind}, address is {fact['mac']} (bia {fact['mac']})")
        if fact["description"]:
            out.append(f"  Description: {fact['description']}")
        if fact["address"]:
            out.append(f"  Internet address is {fact['address']}")
        bandwidth = fact["bandwidth"] // 1000
        out.append(f"  Ethernet MTU {fact['mtu']} bytes, BW {bandwidth} kbit")
        speed = f"{fact['bandwidth'] // 1_000_000_000}Gb/s" if fact["bandwidth"] else "Unconfigured"
        out.append(f"  Full-duplex, {speed}, auto negotiation: off, uni-link: n/a")
        out.append("  0 link status changes since last clear")
        out.append('  Last clearing of "show interface" counters never')
        # the counter lines ntc-templates' arista_eos_show_interfaces passes over
        count = fact["counters"]
        for way, verb in (("in", "input"), ("out", "output")):
            packets = sum(count[f"{way}{kind}Pkts"] for kind in ("Ucast", "Multicast", "Broadcast"))
            out.append(f"     {packets} packets {verb}, {count[f'{way}Octets']} bytes")
    return "\n".join(out)


def interfaces_json(session: ShowSession) -> dict[str, Any]:
    """`show interfaces | json`: the keys eos_facts reads [arista.eos, napalm test data]."""
    interfaces = {}
    for fact in interface_facts(session):
        entry = {
            "name": fact["name"],
            "description": fact["description"],
            "physicalAddress": _colon(fact["mac"]),
            "burnedInAddress": _colon(fact["mac"]),
            "mtu": fact["mtu"],
            "bandwidth": fact["bandwidth"],
            "duplex": "duplexFull" if fact["duplex"] == "full" else "duplexUnknown",
            "lineProtocolStatus": fact["protocol"],
            "interfaceStatus": fact["status"],
            # napalm's get_interfaces_counters reads `hardware` [napalm]; "portChannel"
            # for a Port-Channel is **unverified**
            "hardware": "ethernet" if fact["name"].startswith("Ethernet") else "portChannel",
            "forwardingModel": "routed" if fact["routed"] else "bridged",
            "interfaceAddress": [],
            "interfaceCounters": fact["counters"],
        }
        if fact["address"]:
            address, _, length = fact["address"].partition("/")
            entry["interfaceAddress"] = [
                {
                    "primaryIp": {"address": address, "maskLen": int(length)},
                    "secondaryIpsOrderedList": [],
                }
            ]
        interfaces[fact["name"]] = entry
    return {"interfaces": interfaces}


# ---- the other show commands ------------------------------------------------------------


def version_text(session: ShowSession) -> str:
    """`show version` (the lines ntc-templates' arista_eos_show_version reads)."""
    return "\n".join([
        f"Arista {model.MODEL}",
        "Hardware version:    11.00",
        f"Serial number:       {model.SERIAL}",
        f"System MAC address:  {model.SYSTEM_MAC}",
        "",
        f"Software image version: {model.EOS_VERSION}",
        "Architecture:           i686",
        f"Internal build version: {model.EOS_VERSION}-10400853.42015M",
        "Internal build ID:      00000000-0000-0000-0000-000000000000",
        "",
        "Uptime:                 1 day, 2 hours and 3 minutes",
        f"Total memory:           {MEM_TOTAL} kB",
        f"Free memory:            {MEM_FREE} kB",
    ])  # fmt: skip


def version_json(session: ShowSession) -> dict[str, Any]:
    """`show version | json` [arista.eos: `version`, `modelName`, `serialNumber`,
    `memTotal`, `memFree`; the other keys as in napalm's and anta's real samples]."""
    return {
        "mfgName": "Arista",
        "modelName": model.MODEL,
        "hardwareRevision": "11.00",
        "serialNumber": model.SERIAL,
        "systemMacAddress": _colon(model.SYSTEM_MAC),
        "hwMacAddress": _colon(model.SYSTEM_MAC),
        "configMacAddress": "00:00:00:00:00:00",
        "version": model.EOS_VERSION,
        "architecture": "i686",
        "internalVersion": f"{model.EOS_VERSION}-10400853.42015M",
        "internalBuildId": "00000000-0000-0000-0000-000000000000",
        "imageFormatVersion": "1.0",
        "bootupTimestamp": BOOT_TIME,
        "uptime": 93780.0,
        "memTotal": MEM_TOTAL,
        "memFree": MEM_FREE,
        "isIntlVersion": False,
    }


def hostname_text(session: ShowSession) -> str:
    host = session.state.running["hostname"]
    return f"Hostname: {host}\nFQDN:     {host}"


def hostname_json(session: ShowSession) -> dict[str, Any]:
    host = session.state.running["hostname"]
    return {"hostname": host, "fqdn": host}  # [arista.eos, napalm]


def lldp_text(session: ShowSession) -> str:
    """`show lldp neighbors` [ta367 capture]; the table is empty (no LLDP peers)."""
    return "\n".join([
        "Last table change time   : never",
        "Number of table inserts  : 0",
        "Number of table deletes  : 0",
        "Number of table drops    : 0",
        "Number of table age-outs : 0",
        "",
        "Port          Neighbor Device ID       Neighbor Port ID    TTL",
        "---------- ------------------------ ---------------------- ---",
    ])  # fmt: skip


def lldp_json(session: ShowSession) -> dict[str, Any]:
    return {
        "tablesLastChangeTime": 0.0,
        "tablesAgeOuts": 0,
        "tablesInserts": 0,
        "tablesDeletes": 0,
        "tablesDrops": 0,
        "lldpNeighbors": [],
    }  # [arista.eos, napalm]


def _vlan_members(config: dict[str, Any]) -> dict[int, list[str]]:
    """Interfaces carrying each VLAN (access ports; trunks carry their allowed list)."""
    members: dict[int, list[str]] = {int(v): [] for v in config["vlans"]}
    names = list(config["interfaces"]) + [f"Port-Channel{n}" for n in config["port_channels"]]
    # Ethernets before Port-Channels, as `show vlan` lists them (`Et1, Et2, Po1`)
    for name in sorted(names, key=lambda n: (n.startswith("Port"), model.interface_sort_key(n))):
        settings = model.interface_settings(config, name)
        if not settings["switchport"] or settings["channel_group"]:
            continue
        if settings["mode"] == "trunk":
            allowed = settings["allowed_vlans"]
            for vid in members:
                if allowed is None or (allowed != "none" and vid in _ids(allowed)):
                    members[vid].append(name)
        else:
            members.setdefault(settings["access_vlan"] or 1, []).append(name)
    return members


def _ids(text: str) -> set[int]:
    ids: set[int] = set()
    for part in text.split(","):
        low, _, high = part.partition("-")
        ids.update(range(int(low), int(high or low) + 1))
    return ids


def vlan_rows(session: ShowSession) -> list[dict[str, Any]]:
    config = session.state.running
    members = _vlan_members(config)
    rows = []
    for vid in sorted(int(v) for v in config["vlans"]):
        vlan = config["vlans"][str(vid)]
        name = vlan["name"] or ("default" if vid == 1 else f"VLAN{vid:04d}")
        ports = [model.short_name(n) for n in members.get(vid, []) if _forwarding(session, n)]
        state = "suspended" if vlan["state"] == "suspend" else "active"
        rows.append({"id": vid, "name": name, "status": state, "ports": ports})
    return rows


def _forwarding(session: ShowSession, name: str) -> bool:
    """`show vlan` lists only ports that are up (connected)."""
    if name.startswith("Port-Channel"):
        return any(link(session, m) == "connected" for m in _members(session, name[12:]))
    return link(session, name) == "connected"


def vlan_text(session: ShowSession) -> str:
    """`show vlan` (the columns ntc-templates' arista_eos_show_vlan reads; names of
    unnamed VLANs `VLAN0010` as EOS makes them, **inferred**)."""
    lines = [
        "VLAN  Name                             Status    Ports",
        "----- -------------------------------- --------- -------------------------------",
    ]
    for row in vlan_rows(session):
        ports = ", ".join(row["ports"])
        lines.append(f"{row['id']:<5} {row['name']:<32} {row['status']:<9} {ports}".rstrip())
    return "\n".join(lines)


def vlan_json(session: ShowSession) -> dict[str, Any]:
    return {
        "sourceDetail": "",
        "vlans": {
            str(row["id"]): {
                "name": row["name"],
                "status": row["status"],
                "dynamic": False,
                "interfaces": {n: {"privatePromoted": False} for n in _long(session, row["ports"])},
            }
            for row in vlan_rows(session)
        },
    }


def _long(session: ShowSession, shorts: list[str]) -> list[str]:
    return [model.canonical_interface(s) or s for s in shorts]


def port_channel_summary(session: ShowSession) -> str:
    """`show port-channel summary` (flags legend, then `Po10(U) LACP(a) Et31/1(PG+)`;
    the layout ntc-templates' arista_eos_show_port-channel_summary reads)."""
    config = session.state.running
    lines = [
        "",
        "                 Flags",
        "------------------------ ---------------------------- -------------------------",
        "  a - LACP Active          p - LACP Passive           * - static fallback",
        "  F - Fallback enabled     f - Fallback configured    ^ - individual fallback",
        "  U - In Use               D - Down",
        "  + - In-Sync              - - Out-of-Sync            i - incompatible with agg",
        "  P - bundled in Po        s - suspended              G - Aggregable",
        "  I - Individual           S - ShortTimeout           w - wait for agg",
        "  E - Inactive. The number of configured port channels exceeds the config limit",
        "  M - Exceeds maximum weight",
        "",
        f"Number of channels in use: {len(config['port_channels'])}",
        f"Number of aggregators: {sum(1 for n in config['port_channels'] if _members(session, n))}",
        "",
        "   Port-Channel       Protocol    Ports",
        "------------------ -------------- -----------------",
    ]
    for number in sorted(config["port_channels"], key=int):
        members = _members(session, number)
        up = [m for m in members if link(session, m) == "connected"]
        mode = members and config["interfaces"][members[0]]["channel_group"][1]
        protocol = {"active": "LACP(a)", "passive": "LACP(p)"}.get(mode or "", "Static")
        ports = " ".join(f"{model.short_name(m)}({'PG+' if m in up else 'D'})" for m in members)
        lines.append(f"   Po{number}({'U' if up else 'D'})".ljust(22) + f"{protocol:<15}{ports}")
    return "\n".join(lines)


def bash(session: ShowSession, words: list[str]) -> str:
    """Only what arista.eos runs: `bash timeout 5 cat /mnt/flash/boot-config` [arista.eos]."""
    if words[1:2] == ["timeout"] and words[3:] == ["cat", "/mnt/flash/boot-config"]:
        return f"SWI={model.IMAGE}"
    raise CommandError(f"% Invalid input (at token 1: '{words[1] if len(words) > 1 else ''}')")


def dir_all_filesystems(session: ShowSession, words: list[str]) -> str:
    """`dir all-filesystems` [arista.eos; real text of vEOS 4.27.3F in github
    emilarista/tieto-borderlab, commands/P1/report.md]."""
    if words[1:] not in ([], ["all-filesystems"], ["flash:"]):
        raise CommandError(f"% Invalid input (at token 1: '{words[1]}')")
    files = {
        f"EOS-{model.EOS_VERSION}.swi": 727412812,
        "startup-config": len(model.render(session.state.startup)),
        **{name: len(model.render(saved)) for name, saved in session.state.files.items()},
    }
    flash = [
        "Directory of flash:/",
        "",
        *(
            f"       -rw-  {files[name]:>11}           Jan  1 00:00  {name}"
            for name in sorted(files, key=str.lower)  # the order is **unverified**
        ),
        "",
        "3957878784 bytes total (2558803968 bytes free)",
    ]
    if words[1:] != ["all-filesystems"]:
        return "\n".join(flash)
    return "\n".join([
        "Directory of file:/", "", "No space information available", "",
        *flash, "",
        "Directory of system:/", "",
        "       -rw-           0           Jan  1 00:00  running-config", "",
        "No space information available",
    ])  # fmt: skip


TEXT: dict[str, Callable[[ShowSession], str]] = {
    "version": version_text,
    "hostname": hostname_text,
    "interfaces": interfaces_text,
    "interfaces status": interfaces_status,
    "lldp neighbors": lldp_text,
    "vlan": vlan_text,
    "port-channel summary": port_channel_summary,
}
JSON: dict[str, Callable[[ShowSession], Any]] = {
    "version": version_json,
    "hostname": hostname_json,
    "interfaces": interfaces_json,
    "interfaces status": interfaces_status_json,
    "lldp neighbors": lldp_json,
    "vlan": vlan_json,
}
