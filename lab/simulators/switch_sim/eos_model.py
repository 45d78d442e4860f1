"""Arista DCS-7060CX2-32S on EOS 4.2x: its ports, factory configuration and rendering.

Sources (named in brackets below):
- EOS CLI sources: github ansible-collections/arista.eos (cliconf plugin, unit-test
  fixtures), scrapli's EOS driver and netmiko 4.x (netmiko/arista/arista.py);
- docs-csm: github Cray-HPE/docs-csm (release/1.0), real 7060CX2-32S / EOS 4.23.0F
  configurations in bi-can_arista_aruba_config.md and
  Management_Network_Flow_Control_Settings.md;
- ta367: github arista-netdevops-community/automation_and_telemetry_demo,
  ansible/demo/snapshots/ta367/report.md (a real EOS 4.25.1F running-config);
- EOS 4.25 notes: a public capture of EOS 4.25.4M (repository unidentified);
- AVD: github aristanetworks/avd PR #5692 and issue #5632 (speed keywords);
- eos.arista.com: "Common AAA Requirements" and "Securing EOS CLI".
The configuration is a plain dict (persisted as JSON by SwitchState); rendering prints it
the way EOS prints it, whatever form the command was typed in [docs-csm, ta367, EOS 4.25
notes].
"""

from __future__ import annotations

import hashlib
import re
import secrets
import warnings
from typing import Any

MODEL = "DCS-7060CX2-32S"
EOS_VERSION = "4.20.15M"
IMAGE = f"flash:/EOS-{EOS_VERSION}.swi"
SYSTEM_MAC = "444c.a800.0001"
SERIAL = "JPE00000000"
QSFP_PORTS = range(1, 33)  # 32 QSFP100 ports, four lanes each (EthernetN/1-N/4) [EOS CLI sources]
SFP_PORTS = (33, 34)  # SFP+ ports, one interface each (EthernetN) [EOS CLI sources]
VLAN_RANGE = range(1, 4095)  # 1-4094; 4095 is reserved (802.1Q)
# `mtu ?` range on this platform: 68-9214. The top is the largest MTU real 7060CX2
# configs carry [docs-csm, ta367: `mtu 9214`]; the exact bounds are **unverified**.
MTU_RANGE = range(68, 9215)
# Speed keywords by lane [EOS CLI sources: 100G/40G on /1 only; 4x25G / 4x10G on /1-/4]
# and by the SFP+ ports. Both the older `speed forced Xfull` and the newer `speed Xg` forms
# exist on 4.2x [docs-csm, AVD]; `speed auto` restores the default.
FOUR_LANE_SPEEDS = {"100gfull": "100G", "40gfull": "40G", "100g": "100G", "40g": "40G"}
ONE_LANE_SPEEDS = {"25gfull": "25G", "10000full": "10G", "25g": "25G", "10g": "10G"}
SFP_SPEEDS = {"10000full": "10G", "1000full": "1G", "10g": "10G", "1g": "1G"}


def lanes_of(port: int) -> list[str]:
    """The interfaces of one front-panel port."""
    if port in SFP_PORTS:
        return [f"Ethernet{port}"]
    return [f"Ethernet{port}/{lane}" for lane in range(1, 5)]


def port_number(name: str) -> int | None:
    """Front-panel port of an interface (Ethernet21/1 -> 21), None for logical ones."""
    match = re.fullmatch(r"Ethernet(\d+)(?:/\d+)?", name)
    return int(match.group(1)) if match else None


def lane_number(name: str) -> int:
    """The lane of a QSFP interface (1 for SFP+ ports)."""
    match = re.fullmatch(r"Ethernet\d+/(\d+)", name)
    return int(match.group(1)) if match else 1


def speeds_for(name: str) -> dict[str, str]:
    """The speed keywords an interface accepts, mapped to the speed they set."""
    port = port_number(name)
    if port in SFP_PORTS:
        return SFP_SPEEDS
    if lane_number(name) == 1:
        return {**FOUR_LANE_SPEEDS, **ONE_LANE_SPEEDS}
    return ONE_LANE_SPEEDS


def new_interface() -> dict[str, Any]:
    """An Ethernet or Port-Channel with nothing configured."""
    return {
        "description": None,
        "shutdown": False,
        "mtu": None,
        "speed": None,
        "switchport": True,
        "mode": None,
        "access_vlan": None,
        "native_vlan": None,
        "allowed_vlans": None,
        "channel_group": None,
        "ip_address": None,
    }


def factory(hostname: str) -> dict[str, Any]:
    """The configuration of a 7060CX2-32S out of the box.

    The factory user is `username admin privilege 1 role network-admin nopassword` and
    there is no `aaa authorization exec`: every login lands in unprivileged exec mode
    (`>`) [eos.arista.com]. `spanning-tree mode mstp` is the default EOS prints [EOS CLI
    sources].
    """
    interfaces: dict[str, Any] = {}
    for port in [*QSFP_PORTS, *SFP_PORTS]:
        for name in lanes_of(port):
            interfaces[name] = new_interface()
    return {
        "hostname": hostname,
        "usernames": {"admin": {"privilege": 1, "role": "network-admin", "secret": None}},
        "aaa_authorization_exec": False,
        "enable_secret": None,
        "transceiver_default_mode": None,
        "spanning_tree_mode": "mstp",
        "vlans": {"1": {"name": None, "state": "active"}},
        "interfaces": interfaces,
        "port_channels": {},
        "ip_routing": False,
        "routes": [],
    }


def upgrade(config: dict[str, Any]) -> None:
    """Fill keys a configuration saved by an older simulator lacks (lab state volumes)."""
    fresh = factory(config.get("hostname", "switch"))
    for key, value in fresh.items():
        config.setdefault(key, value)
    for name, settings in fresh["interfaces"].items():
        config["interfaces"].setdefault(name, settings)
    for settings in config["interfaces"].values():
        for key, value in new_interface().items():
            settings.setdefault(key, value)
        if isinstance(settings.get("channel_group"), list):
            settings["channel_group"] = list(settings["channel_group"])
    for settings in config["port_channels"].values():
        for key, value in new_interface().items():
            settings.setdefault(key, value)


def hash_secret(password: str) -> str:
    """The sha512-crypt form EOS stores secrets in [ta367: `secret sha512 $6$...`]."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            import crypt  # deprecated; the lab image runs Python 3.11

            return crypt.crypt(password, crypt.mksalt(crypt.METHOD_SHA512))
        except ImportError:  # pragma: no cover - Python 3.13+
            salt = secrets.token_hex(8)
            return f"$6${salt}${hashlib.sha512((salt + password).encode()).hexdigest()}"


def check_secret(password: str, stored: str) -> bool:
    """Whether a typed password matches a stored sha512-crypt secret."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            import crypt

            return crypt.crypt(password, stored) == stored
        except ImportError:  # pragma: no cover
            salt = stored.split("$")[2]
            return stored.endswith(hashlib.sha512((salt + password).encode()).hexdigest())


def interface_sort_key(name: str) -> tuple:
    """EOS lists Port-Channels, then Ethernets by port and lane, then Management."""
    order = {"Port-Channel": 0, "Ethernet": 1, "Management": 2}
    kind = re.match(r"[A-Za-z-]+", name).group(0)
    return (order.get(kind, 3), [int(n) for n in re.findall(r"\d+", name)])


def short_name(name: str) -> str:
    """Ethernet21/1 -> Et21/1, Port-Channel10 -> Po10, Management1 -> Ma1 (show output)."""
    for long, short in (("Ethernet", "Et"), ("Port-Channel", "Po"), ("Management", "Ma")):
        if name.startswith(long):
            return short + name[len(long) :]
    return name


def canonical_interface(text: str) -> str | None:
    """Et31/1, ethernet 31/1, e31/1 -> Ethernet31/1; po10 -> Port-Channel10 [EOS 4.25
    notes: `int e22` is shown as `interface Ethernet22`]."""
    text = text.replace(" ", "")
    match = re.fullmatch(r"(?i)e(?:t(?:h(?:e(?:r(?:n(?:e(?:t)?)?)?)?)?)?)?(\d+(?:/\d+)?)", text)
    if match:
        return f"Ethernet{match.group(1)}"
    match = re.fullmatch(
        r"(?i)po(?:r(?:t(?:-(?:c(?:h(?:a(?:n(?:n(?:e(?:l)?)?)?)?)?)?)?)?)?)?(\d+)", text
    )
    if match:
        return f"Port-Channel{match.group(1)}"
    match = re.fullmatch(r"(?i)ma(?:n(?:a(?:g(?:e(?:m(?:e(?:n(?:t)?)?)?)?)?)?)?)?(\d+)", text)
    if match:
        return f"Management{match.group(1)}"
    return None


def vlan_ranges(ids: list[int]) -> str:
    """10,11,12,20 -> 10-12,20: how EOS merges unnamed VLANs onto one line [ta367: `vlan
    100,300`]; that consecutive ids become a range is **inferred**."""
    parts: list[str] = []
    ids = sorted(ids)
    start = prev = ids[0]
    for vid in [*ids[1:], None]:
        if vid is not None and vid == prev + 1:
            prev = vid
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if vid is not None:
            start = prev = vid
    return ",".join(parts)


def render(config: dict[str, Any]) -> str:
    """`show running-config` [EOS CLI sources, ta367, docs-csm]: header, `!` between
    blocks, three-space indent, every interface listed even when unconfigured, `end` last."""
    lines = [
        "! Command: show running-config",
        f"! device: {config['hostname']} ({MODEL}, EOS-{EOS_VERSION})",
        "!",
        f"! boot system {IMAGE}",
        "!",
    ]
    if config["transceiver_default_mode"]:
        lines += [f"transceiver qsfp default-mode {config['transceiver_default_mode']}", "!"]
    lines += [f"hostname {config['hostname']}", "!"]
    if config["spanning_tree_mode"]:
        lines += [f"spanning-tree mode {config['spanning_tree_mode']}", "!"]
    if config["aaa_authorization_exec"]:
        lines += ["aaa authorization exec default local", "!"]
    if config["enable_secret"]:
        lines += [f"enable secret sha512 {config['enable_secret']}", "!"]
    for name in sorted(config["usernames"]):
        user = config["usernames"][name]
        secret = f"secret sha512 {user['secret']}" if user["secret"] else "nopassword"
        lines.append(f"username {name} privilege {user['privilege']} role {user['role']} {secret}")
    lines.append("!")
    lines += render_vlans(config)
    names = [f"Port-Channel{n}" for n in config["port_channels"]] + list(config["interfaces"])
    for name in sorted(names, key=interface_sort_key):
        lines += render_interface(name, interface_settings(config, name))
    lines += ["interface Management1", "!"]
    for prefix, hop in config["routes"]:
        lines.append(f"ip route {prefix} {hop}")
    if config["routes"]:
        lines.append("!")
    lines += ["ip routing" if config["ip_routing"] else "no ip routing", "!", "end"]
    return "\n".join(lines)


def render_vlans(config: dict[str, Any]) -> list[str]:
    """VLAN blocks; VLAN 1 is implicit; unnamed active VLANs share one line [ta367]."""
    lines: list[str] = []
    plain = [
        int(vid)
        for vid, vlan in config["vlans"].items()
        if vid != "1" and not vlan["name"] and vlan["state"] == "active"
    ]
    blocks: list[tuple[int, list[str]]] = []
    if plain:
        blocks.append((min(plain), [f"vlan {vlan_ranges(plain)}"]))
    for vid, vlan in config["vlans"].items():
        if vid == "1" or int(vid) in plain:
            continue
        block = [f"vlan {vid}"]
        if vlan["name"]:
            block.append(f"   name {vlan['name']}")
        if vlan["state"] == "suspend":
            block.append("   state suspend")
        blocks.append((int(vid), block))
    for _, block in sorted(blocks):
        lines += [*block, "!"]
    return lines


def interface_settings(config: dict[str, Any], name: str) -> dict[str, Any]:
    """The settings dict of an Ethernet or Port-Channel interface."""
    if name.startswith("Port-Channel"):
        return config["port_channels"][name[len("Port-Channel") :]]
    return config["interfaces"][name]


def render_interface(name: str, settings: dict[str, Any]) -> list[str]:
    """One interface block, sub-commands in the order EOS prints them."""
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
    if settings.get("native_vlan"):
        lines.append(f"   switchport trunk native vlan {settings['native_vlan']}")
    if settings.get("allowed_vlans") is not None:
        lines.append(f"   switchport trunk allowed vlan {settings['allowed_vlans']}")
    if settings.get("mode"):
        lines.append(f"   switchport mode {settings['mode']}")
    if not settings.get("switchport", True):
        lines.append("   no switchport")
    if settings.get("ip_address"):
        lines.append(f"   ip address {settings['ip_address']}")
    if settings.get("channel_group"):
        group, mode = settings["channel_group"]
        lines.append(f"   channel-group {group} mode {mode}")
    return [*lines, "!"]
