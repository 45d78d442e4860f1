"""Dell OS10 (S5232F-ON, 10.5) device model: ports, factory configuration, rendering.

The configuration is a plain dict (persisted as JSON by SwitchState): 32 QSFP28 ports
with a breakout map each, two SFP+ ports, VLANs and static routes. Rendering follows
`show running-configuration` of OS10: `!` between blocks, sub-commands indented one
space, a breakout map line for every QSFP28 port before the interface blocks, values in
the device's own form rather than as typed. The CLI session that edits it is os10.py.

Sources: github ansible-collections/dellemc.os10 (os10_interface role, unit fixtures of
10.4.0E, integration tests); github dell/omnia (network/ethernet_sseries_input.yml,
written for the S5232F-ON); napalm-automation-community/napalm-dellos10 (mock data);
github grantcurell/projects (S4112F-ON captures of 10.5.0.2 and 10.5.1.3);
pastebin.com/13V2tpBX; intel/mfd-switchmanagement (its dell_os10 driver); ipspace/netlab
PR #1989. Error wordings marked "unverified" are this simulator's choice where no source
shows the device's text.
"""

from __future__ import annotations

import re
import time
from typing import Any

from .cli import CommandError, completions

VERSION = "10.5.1.3"  # a 10.5 release with `interface breakout` (grantcurell/projects)
PLATFORM = "S5232F-ON"
QSFP28_PORTS = range(1, 33)
SFP_PORTS = (33, 34)
NATIVE_MAP = "100g-1x"  # a QSFP28 port's own map: keeps the name ethernet1/1/N (10.5.0.2 capture)
# map -> (sub-ports, lane speed); 40g-1x on a QSFP28 port is non-native: `:1` (pastebin 13V2tpBX)
BREAKOUT_MODES = {
    "100g-1x": (1, "100G"),
    "40g-1x": (1, "40G"),
    "50g-2x": (2, "50G"),
    "25g-4x": (4, "25G"),
    "10g-4x": (4, "10G"),
}
# `speed` values in Mb/s (dellemc.os10 os10_interface README: auto, 1000, 10000, 25000,
# ...); which a port takes is inferred from its lane speed (unverified per port).
SPEEDS_OF = {
    "100G": ("100000", "40000"),
    "50G": ("50000",),
    "40G": ("40000",),
    "25G": ("25000", "10000"),
    "10G": ("10000", "1000"),
}
MTU_RANGE = (1312, 9216)  # Intel's OS10 driver (mfd-switchmanagement); S5232F range unverified
DEFAULT_MTU = 1532  # dellemc.os10 fixtures
VLAN_RANGE = (1, 4093)  # usable VLANs as Intel's driver uses them (inferred)

ERR_UNRECOGNIZED = "% Error: Unrecognized command."  # dellemc.os10 integration tests
ERR_INCOMPLETE = "% Error: Incomplete command."  # unverified


DEFAULT_HOSTNAME = "OS10"


# ---- factory state ------------------------------------------------------------------------


def port_config(speed: str) -> dict[str, Any]:
    """An L2 port as OS10 lists it: ` no shutdown`, ` switchport access vlan 1`
    (dellemc.os10 fixtures)."""
    return {"shutdown": False, "access_vlan": 1, "description": None, "mtu": None,
            "speed": None, "lane": speed}  # fmt: skip


def factory(hostname: str) -> dict[str, Any]:
    """A freshly booted S5232F-ON: 32 QSFP28 ports at their native map, two SFP+ ports.

    Every QSFP28 port has its `interface breakout 1/1/N map 100g-1x` line and keeps its
    name (inferred for the S5232F from the S4112F captures in grantcurell/projects and the
    S6010 fixtures of dellemc.os10); the SFP+
    ports have no breakout (Omnia lists them without a fanout).
    """
    interfaces = {f"ethernet1/1/{n}": port_config("100G") for n in QSFP28_PORTS}
    interfaces.update({f"ethernet1/1/{n}": port_config("10G") for n in SFP_PORTS})
    return {
        "hostname": hostname,
        "ip_vrf_default": True,
        "breakouts": {f"1/1/{n}": NATIVE_MAP for n in QSFP28_PORTS},
        "interfaces": interfaces,
        "vlans": {"1": {"shutdown": False, "description": None}},
        "routes": [],
        "changed_at": time.time(),
    }


def upgrade(config: dict[str, Any]) -> None:
    """Bring a state file saved by an older simulator to this model, in place.

    Older files kept breakout lines only for split ports and a port's lane speed under
    `speed`; a saved startup configuration must survive the simulator's upgrade.
    """
    for port in QSFP28_PORTS:
        config["breakouts"].setdefault(f"1/1/{port}", NATIVE_MAP)
    for settings in config["interfaces"].values():
        if "lane" not in settings:
            settings["lane"], settings["speed"] = settings.get("speed") or "100G", None
    config.setdefault("routes", [])


def port_key(name: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", name))


def port_number(name: str) -> int | None:
    """Front-panel port of an interface: ethernet1/1/21 and ethernet1/1/21:1 are 21."""
    match = re.fullmatch(r"ethernet1/1/(\d+)(?::\d+)?", name)
    return int(match.group(1)) if match else None


# ---- interface names ----------------------------------------------------------------------

INTERFACE_KINDS = ("ethernet", "vlan", "mgmt")


def interface_name(text: str) -> str:
    """`ethernet 1/1/21`, `eth1/1/21:1`, `vlan 100`, `Eth 1/1/1` -> the device's own name."""
    match = re.fullmatch(r"([A-Za-z-]+)\s*([\d/:]+)", text.strip())
    if not match:
        raise CommandError(ERR_INCOMPLETE if not text.strip() else ERR_UNRECOGNIZED)
    kinds = completions(match.group(1), INTERFACE_KINDS)
    if len(kinds) != 1:
        raise CommandError(ERR_UNRECOGNIZED)
    return f"{kinds[0]}{match.group(2)}"


# ---- rendering (the device's own form) ----------------------------------------------------


def _description(text: str) -> str:
    # multi-word descriptions are shown quoted (netlab PR #1989, napalm-dellos10); one word
    # unquoted (inferred)
    return f'"{text}"' if " " in text else text


def render(config: dict[str, Any], only: str | None = None) -> str:
    """`show running-configuration` (or its `interface X` form)."""
    lines: list[str] = []
    if only is None:
        stamp = time.strftime("%b %d %H:%M:%S %Y", time.gmtime(config["changed_at"]))
        lines += [f"! Version {VERSION}", f"! Last configuration change at {stamp}", "!"]
        if config["ip_vrf_default"]:
            lines += ["ip vrf default", "!"]  # right after the banner on 10.5 (10.5 captures)
        if config["hostname"] != "OS10":
            lines += [f"hostname {config['hostname']}", "!"]
        for port in sorted(config["breakouts"], key=port_key):
            lines.append(f"interface breakout {port} map {config['breakouts'][port]}")
        lines.append("!")
        for vlan in sorted(config["vlans"], key=int):
            lines += _render_vlan(vlan, config["vlans"][vlan])
    for name in sorted(config["interfaces"], key=port_key):
        if only is None or name == only:
            lines += _render_interface(name, config["interfaces"][name])
    if only is None:
        lines += ["interface mgmt1/1/1", " no shutdown", " no ip address dhcp", "!"]
        for prefix, hop in config.get("routes", []):
            lines.append(f"ip route {prefix} {hop}")  # placement unverified
    return "\n".join(lines)


def _render_vlan(vlan: str, settings: dict[str, Any]) -> list[str]:
    lines = [f"interface vlan{vlan}"]
    if settings.get("description"):
        lines.append(f" description {_description(settings['description'])}")
    lines.append(" shutdown" if settings["shutdown"] else " no shutdown")
    return [*lines, "!"]


def _render_interface(name: str, settings: dict[str, Any]) -> list[str]:
    # order of sub-commands: description, admin state, switchport, mtu, speed (unverified)
    lines = [f"interface {name}"]
    if settings.get("description"):
        lines.append(f" description {_description(settings['description'])}")
    lines.append(" shutdown" if settings["shutdown"] else " no shutdown")
    if settings.get("access_vlan"):
        lines.append(f" switchport access vlan {settings['access_vlan']}")
    if settings.get("mtu"):
        lines.append(f" mtu {settings['mtu']}")
    if settings.get("speed"):
        lines.append(f" speed {settings['speed']}")
    return [*lines, "!"]
