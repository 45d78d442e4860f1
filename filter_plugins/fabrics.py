"""The DGX A100 fabrics of seed 002 planned from what is cabled to them: the storage fabric
(SN3700 on Cumulus Linux) and the InfiniBand fabric (QM8700 on MLNX-OS).

Storage fabric: an admin lists the links of each storage switch (`storage_fabric_links`:
port, attached inventory host, optional speed and bond). The port speed follows the
attached device's inventory group (seed 002: DGX A100 at 100/200 GbE, F800 nodes at 25/40
GbE) unless the link names one; a link on a sub-port (`swp9s0`) splits its QSFP56 port
into the map that runs that speed; every link gets the fabric's MTU and, unless bonded, an
access port in the storage VLAN; bonds and single ports join the VLAN-aware bridge.

InfiniBand fabric: an admin lists each IB switch's links (`ib_fabric_links`: port,
attached inventory host, its HCA, optional speed) and where the fabric's subnet managers
run (`cluster_ib_subnet_managers`: a switch or a server each, with a priority). The plan
gives HDR on linked ports, a port split into two HDR100 ports when a link names one of its
halves (1/40/1) or `ib_fabric_split_ports` asks, the unused halves shut, and the switch's
own SM on when it is listed. The link check reads `show interfaces ib status` and names
every linked port that is not LinkUp and Active at its speed.

Both plans are the switches role's inputs for the switch (switches_cumulus_*,
switches_mlnxos_*), checked by the switches role's own input check in preflight. The
functions are pure: the roles, the offline plan and the unit tests share them.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any


def _switch_host_problems() -> Any:
    """The switches role's input check (filter_plugins/switches.py), loaded by path:
    on the control host filter_plugins is not importable as a package."""
    name = "_dlcluster_switch_ports"
    if name not in sys.modules:
        path = Path(__file__).resolve().parent / "switches.py"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name].switch_host_problems


# ---- storage fabric (Cumulus Linux) ---------------------------------------------------------
# Lane speed (Mb/s) of a sub-port -> the SN3700 breakout map that gives it, as the switch
# prints the map (module_utils/switch_config.py MODELS["SN3700"]).
BREAKOUT_FOR_SPEED = {100000: "2x100G", 50000: "4x50G", 25000: "4x25G", 10000: "4x10G"}
_SWP = re.compile(r"^swp(?P<port>\d+)(?:s(?P<sub>\d+))?$")
# plan key -> the switches role's variable it becomes
CUMULUS_VARIABLES = {
    "breakouts": "switches_cumulus_breakouts",
    "interfaces": "switches_cumulus_interfaces",
    "bonds": "switches_cumulus_bonds",
    "bridge_ports": "switches_cumulus_bridge_ports",
    "bridge_vids": "switches_cumulus_bridge_vids",
}


def _speed(link: Mapping[str, Any], groups: Mapping[str, Sequence[str]], speeds: Mapping) -> Any:
    if link.get("speed") not in (None, ""):
        return int(link["speed"])
    for group, speed in speeds.items():
        if link.get("host") in groups.get(group, ()):
            return int(speed)
    return None


def storage_fabric_problems(
    links: Sequence[Mapping[str, Any]],
    groups: Mapping[str, Sequence[str]],
    speeds: Mapping[str, Any],
    switch: str = "",
) -> list[str]:
    """What stops the plan of one switch: unknown ports, hosts or speeds, a port listed
    twice, sub-ports of one port at different speeds, a sub-port speed no map gives."""
    where = f"{switch}: " if switch else ""
    problems: list[str] = []
    known = {host for members in groups.values() for host in members}
    seen: set[str] = set()
    split_speeds: dict[str, int] = {}
    for index, link in enumerate(links):
        port = str(link.get("port", ""))
        match = _SWP.match(port)
        if not match:
            problems.append(
                f"{where}storage_fabric_links[{index}]: port {port!r} is not swpN/swpNsM"
            )
            continue
        if port in seen:
            problems.append(f"{where}storage_fabric_links: port {port} is listed twice")
        seen.add(port)
        host = link.get("host")
        if host not in known:
            problems.append(f"{where}{port}: host {host!r} is not in the inventory")
        speed = _speed(link, groups, speeds)
        if speed is None:
            problems.append(
                f"{where}{port}: no speed for {host!r}: give the link a speed or put the host"
                f" in a group of storage_fabric_speeds ({', '.join(speeds) or 'none'})"
            )
            continue
        if match["sub"] is not None:
            if speed not in BREAKOUT_FOR_SPEED:
                problems.append(
                    f"{where}{port}: a sub-port runs {', '.join(map(str, BREAKOUT_FOR_SPEED))}"
                    f" Mb/s, not {speed}"
                )
            elif split_speeds.setdefault(match["port"], speed) != speed:
                problems.append(f"{where}swp{match['port']}: its sub-ports need one speed")
    for port in seen:
        if f"swp{_SWP.match(port)['port']}" != port:  # a sub-port
            continue
        if any(other.startswith(f"{port}s") for other in seen):
            problems.append(f"{where}{port} is linked whole and split at once")
    bonds: dict[str, set[str]] = {}
    for link in links:
        if link.get("bond"):
            bonds.setdefault(str(link["bond"]), set()).add(str(link.get("host")))
    for bond, hosts in sorted(bonds.items()):
        if not re.fullmatch(r"bond\d+|[A-Za-z][\w-]*", bond) or bond.startswith("swp"):
            problems.append(f"{where}bond name {bond!r} is not a Cumulus interface name")
        if len(hosts) > 1:
            problems.append(
                f"{where}{bond} bonds ports of several hosts: {', '.join(sorted(hosts))}"
            )
    return problems


def storage_fabric_plan(
    links: Sequence[Mapping[str, Any]],
    groups: Mapping[str, Sequence[str]],
    speeds: Mapping[str, Any],
    vlan: int,
    mtu: int,
) -> dict[str, Any]:
    """The switches role's Cumulus inputs for one switch's links (checked first by
    storage_fabric_problems): breakouts, interfaces, bonds, bridge ports and VLANs."""
    breakouts: dict[str, str] = {}
    interfaces: list[dict[str, Any]] = []
    bonds: dict[str, list[str]] = {}
    bridge_ports: list[str] = []
    for link in links:
        port = str(link["port"])
        speed = _speed(link, groups, speeds)
        match = _SWP.match(port)
        if match and match["sub"] is not None:
            breakouts[f"swp{match['port']}"] = BREAKOUT_FOR_SPEED[speed]
        interface = {"name": port, "speed": speed, "mtu": int(mtu), "alias": str(link["host"])}
        bond = link.get("bond")
        if bond:
            if bond not in bonds:
                bridge_ports.append(bond)
            bonds.setdefault(bond, []).append(port)
        else:
            interface["access_vlan"] = int(vlan)
            bridge_ports.append(port)
        interfaces.append(interface)
    return {
        "breakouts": [{"ports": port, "mode": mode} for port, mode in breakouts.items()],
        "interfaces": interfaces,
        "bonds": [{"name": name, "slaves": slaves} for name, slaves in bonds.items()],
        "bridge_ports": bridge_ports,
        "bridge_vids": [int(vlan)],
    }


def storage_fabric_input_problems(
    hosts: Sequence[str],
    hostvars: Mapping[str, Mapping[str, Any]],
    groups: Mapping[str, Sequence[str]],
    defaults: Mapping[str, Any],
    data_mtu: int = 0,
) -> list[str]:
    """Preflight of every storage fabric switch: its links, switches_cumulus_* not also
    set in the inventory, then the switches role's checks on the plan the links make."""
    problems: list[str] = []
    for host in hosts:
        values = {**defaults, **{k: v for k, v in hostvars[host].items() if k in defaults}}
        own = storage_fabric_problems(
            values["storage_fabric_links"], groups, values["storage_fabric_speeds"], host
        )
        own += fabric_override_problems(hostvars[host], host, "storage")
        problems += own
        if own:
            continue
        plan = storage_fabric_plan(
            values["storage_fabric_links"],
            groups,
            values["storage_fabric_speeds"],
            int(values["storage_fabric_vlan"]),
            int(values["storage_fabric_mtu"]),
        )
        inputs = {
            "switches_platform": hostvars[host].get("switches_platform"),
            "switches_model": hostvars[host].get("switches_model"),
            **{variable: plan[key] for key, variable in CUMULUS_VARIABLES.items()},
        }
        problems += [
            f"{problem} (planned from storage_fabric_links)"
            for problem in _switch_host_problems()(host, inputs, data_mtu)
        ]
    return problems


# ---- InfiniBand fabric (MLNX-OS) ------------------------------------------------------------

# QM8700: a port splits into two HDR100 ports 1/N/1-2 (NVIDIA MLNX-OS User Manual v3.10;
# mlxlink's split hint in Mellanox/mstflint; the public QM8700 capture named below)
SPLIT = "qsfp-split-2"
# `Supported speeds : sdr, qdr, fdr, edr, hdr` on a QM8700 port (a public capture: the blog
# "High Performance computing (HPC) on Openstack", 2022): a split half runs HDR on two
# lanes (2X), which is HDR100, under the same `hdr` keyword.
SPEEDS = ("sdr", "qdr", "fdr", "edr", "hdr")
_IB_PORT = re.compile(r"^1/(?P<port>\d+)(?:/(?P<half>[12]))?$")
# A row of `show interfaces ib status` (the table's layout is unverified; public MLNX-OS
# collection scripts grep it for `LinkUp`): the name, then the logical and physical state
# last.
_STATUS_ROW = re.compile(
    r"^IB(?P<name>1/\d+(?:/\d)?)\s+(?P<rest>.*?)\s+(?P<logical>\S+)\s+(?P<physical>\S+)$"
)


def _manager_hosts(managers: Sequence[Mapping[str, Any]]) -> list[str]:
    return [str(m.get("host")) for m in managers]


def ib_fabric_problems(
    links: Sequence[Mapping[str, Any]],
    split_ports: Sequence[str],
    known_hosts: Sequence[str],
    switch: str = "",
) -> list[str]:
    """What stops one IB switch's plan: ports that are not 1/N or 1/N/1-2, a port listed
    twice or linked whole while split, unknown hosts, unknown speeds."""
    where = f"{switch}: " if switch else ""
    problems: list[str] = []
    seen: set[str] = set()
    for index, link in enumerate(links):
        port = str(link.get("port", ""))
        if not _IB_PORT.match(port):
            problems.append(f"{where}ib_fabric_links[{index}]: port {port!r} is not 1/N or 1/N/1-2")
            continue
        if port in seen:
            problems.append(f"{where}ib_fabric_links: port {port} is listed twice")
        seen.add(port)
        if link.get("host") not in known_hosts:
            problems.append(f"{where}{port}: host {link.get('host')!r} is not in the inventory")
        speed = link.get("speed")
        if speed not in (None, "") and speed not in SPEEDS:
            problems.append(f"{where}{port}: speed {speed!r} is not one of {', '.join(SPEEDS)}")
    for port in split_ports:
        if not re.fullmatch(r"1/\d+", str(port)):
            problems.append(f"{where}ib_fabric_split_ports: {port!r} is not 1/N")
    split = set(map(str, split_ports)) | {p.rsplit("/", 1)[0] for p in seen if p.count("/") == 2}
    for port in sorted(seen & split):
        problems.append(f"{where}{port} is linked whole and split into HDR100 halves at once")
    return problems


def ib_fabric_manager_problems(
    managers: Sequence[Mapping[str, Any]],
    ib_switches: Sequence[str],
    servers: Sequence[str],
) -> list[str]:
    """Every IB subnet needs a running subnet manager (Red Hat KB "Installing and
    configuring the OpenSM InfiniBand subnet manager", access.redhat.com/node/7087953): at
    least one, each on an IB switch or a server, with a priority 0-15, and no two at the
    same priority (one master, the others standby: the same KB; rdma-core's sminfo(8))."""
    if not ib_switches:
        return []
    if not managers:
        return [
            "cluster_ib_subnet_managers is empty: an InfiniBand fabric needs a subnet manager"
            " (a QM8700 of ib_fabric or a server running OpenSM)"
        ]
    problems: list[str] = []
    priorities: dict[int, str] = {}
    for manager in managers:
        host = str(manager.get("host"))
        if host not in ib_switches and host not in servers:
            problems.append(
                f"cluster_ib_subnet_managers: {host!r} is neither an ib_fabric switch nor a server"
            )
        priority = manager.get("priority", 0)
        if not (isinstance(priority, int) and 0 <= priority <= 15):
            problems.append(
                f"cluster_ib_subnet_managers: {host}: priority {priority!r} is not 0-15"
            )
            continue
        if priority in priorities:
            problems.append(
                f"cluster_ib_subnet_managers: {priorities[priority]} and {host} share priority"
                f" {priority}; give the master the highest and each standby its own"
            )
        priorities[priority] = host
    if len(set(_manager_hosts(managers))) != len(managers):
        problems.append("cluster_ib_subnet_managers: a host is listed twice")
    return problems


def ib_fabric_plan(
    links: Sequence[Mapping[str, Any]],
    split_ports: Sequence[str],
    managers: Sequence[Mapping[str, Any]],
    switch: str,
    speed: str = "hdr",
    shut_unused_halves: bool = True,
) -> dict[str, Any]:
    """The switches role's MLNX-OS inputs for one switch: breakouts, interfaces, SM."""
    linked = [str(link["port"]) for link in links]
    halves = {p.rsplit("/", 1)[0] for p in linked if p.count("/") == 2}
    split = sorted(set(map(str, split_ports)) | halves, key=lambda p: int(p.split("/")[1]))
    interfaces: list[dict[str, Any]] = []
    for link in links:
        port = str(link["port"])
        interfaces.append({"name": port, "speed": link.get("speed") or speed})
    if shut_unused_halves:
        for port in split:
            for half in (f"{port}/1", f"{port}/2"):
                if half not in linked:
                    interfaces.append({"name": half, "shutdown": True})
    return {
        "breakouts": [{"ports": port, "mode": SPLIT} for port in split],
        "interfaces": interfaces,
        "subnet_manager": switch in _manager_hosts(managers),
    }


def ib_fabric_link_status(status: str) -> dict[str, dict[str, str]]:
    """`show interfaces ib status` -> {port: {logical, physical, row}}."""
    found = {}
    for line in status.splitlines():
        match = _STATUS_ROW.match(line.strip())
        if match:
            found[match["name"]] = {
                "logical": match["logical"],
                "physical": match["physical"],
                "row": line.strip(),
            }
    return found


def ib_fabric_link_problems(
    status: str, links: Sequence[Mapping[str, Any]], switch: str = "", speed: str = "hdr"
) -> list[str]:
    """Each linked port must be LinkUp (a cable, not shut) and Active (a subnet manager
    has brought it up: the Red Hat KB above; ibstat's `State: Active`) at its planned
    speed."""
    where = f"{switch}: " if switch else ""
    rows = ib_fabric_link_status(status)
    problems = []
    for link in links:
        port = str(link["port"])
        peer = f"{link.get('host')} {link.get('hca', '')}".strip()
        row = rows.get(port)
        if row is None:
            problems.append(f"{where}IB{port} ({peer}) is missing from `show interfaces ib status`")
            continue
        if row["physical"] != "LinkUp":
            problems.append(
                f"{where}IB{port} ({peer}) is {row['physical']}, not LinkUp: check the cable"
                " and the HCA's port type (IB, not Ethernet)"
            )
        elif row["logical"] != "Active":
            problems.append(
                f"{where}IB{port} ({peer}) is LinkUp but {row['logical']}, not Active:"
                " no subnet manager runs on the fabric"
            )
        else:
            planned = link.get("speed") or speed
            if not re.search(rf"\s{re.escape(planned)}\s", f" {row['row']} ".lower()):
                problems.append(f"{where}IB{port} ({peer}) is not at {planned}: {row['row']}")
    return problems


# plan key -> the switches role's variable it becomes
MLNXOS_VARIABLES = {
    "breakouts": "switches_mlnxos_breakouts",
    "interfaces": "switches_mlnxos_interfaces",
    "subnet_manager": "switches_mlnxos_subnet_manager",
}


def ib_fabric_input_problems(
    hosts: Sequence[str],
    hostvars: Mapping[str, Mapping[str, Any]],
    defaults: Mapping[str, Any],
    managers: Sequence[Mapping[str, Any]],
    servers: Sequence[str],
) -> list[str]:
    """Preflight of the InfiniBand fabric: the subnet managers, every IB switch's links,
    switches_mlnxos_* not also set in the inventory, then the switches role's checks on
    the plan the links make."""
    problems = ib_fabric_manager_problems(managers, hosts, servers)
    known = list(hostvars)
    for host in hosts:
        values = {**defaults, **{k: v for k, v in hostvars[host].items() if k in defaults}}
        own = ib_fabric_problems(
            values["ib_fabric_links"], values["ib_fabric_split_ports"], known, host
        )
        own += fabric_override_problems(hostvars[host], host, "ib")
        problems += own
        if own:
            continue
        plan = ib_fabric_plan(
            values["ib_fabric_links"],
            values["ib_fabric_split_ports"],
            managers,
            host,
            values["ib_fabric_speed"],
            values["ib_fabric_shut_unused_halves"],
        )
        inputs = {
            "switches_platform": hostvars[host].get("switches_platform"),
            "switches_model": hostvars[host].get("switches_model"),
            **{variable: plan[key] for key, variable in MLNXOS_VARIABLES.items()},
        }
        problems += [
            f"{problem} (planned from ib_fabric_links)"
            for problem in _switch_host_problems()(host, inputs)
        ]
    return problems


# fabric -> (the switches role's variables its plan sets, where the plan comes from)
_FABRIC_OWNED = {
    "storage": (
        CUMULUS_VARIABLES,
        "the storage fabric plans this switch from storage_fabric_links",
    ),
    "ib": (
        MLNXOS_VARIABLES,
        "the InfiniBand fabric plans this switch from ib_fabric_links and"
        " cluster_ib_subnet_managers",
    ),
}


def fabric_override_problems(host_vars: Mapping[str, Any], host: str, fabric: str) -> list[str]:
    """A fabric switch whose inventory or command line also sets one of the switches
    role's inputs the fabric plans. From the inventory the plan would win (include_role
    vars outrank it); from `-e` the value would win over the plan: refused either way."""
    variables, source = _FABRIC_OWNED[fabric]
    return [
        f"{host}: {name} is set, but {source}; drop one"
        for name in variables.values()
        if name in host_vars
    ]


class FilterModule:
    def filters(self):
        return {
            "fabric_override_problems": fabric_override_problems,
            "storage_fabric_plan": storage_fabric_plan,
            "storage_fabric_problems": storage_fabric_problems,
            "storage_fabric_input_problems": storage_fabric_input_problems,
            "ib_fabric_plan": ib_fabric_plan,
            "ib_fabric_problems": ib_fabric_problems,
            "ib_fabric_manager_problems": ib_fabric_manager_problems,
            "ib_fabric_input_problems": ib_fabric_input_problems,
            "ib_fabric_link_problems": ib_fabric_link_problems,
        }
