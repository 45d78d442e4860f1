"""NVIDIA SN3700 running Cumulus Linux: the device model both configuration tools share.

The configuration kept in the switch state (ports and breakouts, bridge, bonds, SVIs,
hostname), link state from the lab's cabling, and the files NCLU (cumulus_nclu.py) and
NVUE (cumulus_nvue.py) write. The login shell that runs either tool is cumulus.py. Sources:
those named in cumulus.py's docstring, by the bracketed names used below.
"""

from __future__ import annotations

import os
import re
from typing import Any

from .state import SwitchState

DEFAULT_HOSTNAME = "cumulus"  # factory hostname; netmiko's autodetect wants `Linux cumulus`
DEFAULT_RELEASE = "4.2.1"  # seed 002: "SN3700V - Distribution Release 4.2.1"
# The NVUE grammar modelled is the 5.10 documentation's (NVUE CLI guide, 5.10 port
# attributes, 5.10 bridge guide): the most complete public source. CUMULUS_SIM_RELEASE=5.10.0
# is the 5.x release the lab should use; there `nv config apply` also saves, because
# auto-save is on by default from 5.9 [NVUE reference, NVUE CLI guide]. A release before 5.9
# (e.g. 5.4.0, the REST API's example build [NVUE API guide]) keeps the older rule: apply
# does not persist until `nv config save`.
AUTO_SAVE_FROM = (5, 9)
PORTS = range(1, 33)  # SN3700: 32x QSFP56 200G [5.10 port attributes]
# NCLU `<552-9216>` [4.2 NCLU guide], NVUE `(integer:552 - 9216)` [NVUE CLI guide]
MTU_RANGE = (552, 9216)
VLAN_RANGE = (1, 4094)
DEFAULT_MTU = 9216  # ifupdown2's default for a configured port [4.2 port attributes]
# what the Mellanox driver sets before ifupdown2 configures the port [4.2 port attributes]
DRIVER_MTU = 9238
# Breakout modes of a QSFP56 port (ports.conf values on 4.x) -> (sub-ports, lane speed in
# Mb/s). The SN3700 splits 2x or 4x with no adjacent port disabled [5.10 port attributes];
# that `4x` alone means 4x50G (full SFP56 lane rate) and `2x` 2x100G is inferred from 4x =
# 4x25G on 100G ports [4.2 port attributes].
BREAKOUTS = {
    "1x": (1, 200000),
    "2x100G": (2, 100000),
    "2x50G": (2, 50000),
    "4x50G": (4, 50000),
    "4x25G": (4, 25000),
    "4x10G": (4, 10000),
}
BREAKOUT_ALIASES = {"2x": "2x100G", "4x": "4x50G"}
# Speeds a (sub-)port takes, by its lane speed: every standard rate up to it. Which lower
# rates the SN3700 really runs per breakout is **unverified**.
SPEED_LADDER = (200000, 100000, 50000, 40000, 25000, 10000, 1000)
# NCLU default 802.3ad, alternative balance-xor [4.2 bonding]
BOND_MODES = ("802.3ad", "balance-xor")
MAC_PREFIX = "1c:34:da"  # a Mellanox OUI (**unverified**); only the address form matters


def release_of(text: str) -> tuple[int, ...]:
    """`4.2.1` -> (4, 2, 1); anything but a 4.x or 5.x release is refused at start-up."""
    if not re.fullmatch(r"[45](\.\d+){1,2}", text):
        raise ValueError(f"CUMULUS_SIM_RELEASE: 4.x or 5.x release expected, got {text!r}")
    return tuple(int(part) for part in text.split("."))


def factory(hostname: str) -> dict[str, Any]:
    """A freshly installed SN3700: nothing configured but eth0 and the management VRF.

    The release comes from CUMULUS_SIM_RELEASE (default 4.2.1, seed 002) and is kept in the
    state, so a restarted switch runs the release it was installed with.
    """
    release = os.environ.get("CUMULUS_SIM_RELEASE", DEFAULT_RELEASE)
    release_of(release)
    return {
        "release": release,
        "hostname": hostname,
        "breakouts": {},  # port number (str) -> BREAKOUTS key or "disabled"; absent = 1x
        "interfaces": {},  # swp/bond name -> settings (only what /etc/network/interfaces has)
        "bridge": {"vids": [], "pvid": None},
        "vlans": {},  # "10" -> {"addresses": [...]}: SVIs on the VLAN-aware bridge
        "netedit": [],  # members of the netedit group besides root and cumulus [4.2 NCLU guide]
    }


def is_nvue(config: dict[str, Any]) -> bool:
    return release_of(config["release"])[0] >= 5


def new_interface(kind: str = "swp") -> dict[str, Any]:
    """The settings of one stanza of /etc/network/interfaces (None = not configured)."""
    settings: dict[str, Any] = {
        "alias": None,
        "mtu": None,
        "speed": None,
        "autoneg": None,
        "fec": None,
        "admin_down": False,
        "bridge": False,
        "access": None,
        "trunk_vlans": None,
    }
    if kind == "bond":
        settings.update({"slaves": [], "mode": None})
    return settings


# ---- ports ------------------------------------------------------------------------------


def breakout_of(config: dict[str, Any], port: int) -> str:
    return config["breakouts"].get(str(port), "1x")


def physical_ports(config: dict[str, Any]) -> list[str]:
    """The swp interfaces the switch has now: swpN, or swpNs0.. once split, none if disabled."""
    names = []
    for port in PORTS:
        mode = breakout_of(config, port)
        if mode == "disabled":
            continue
        count = BREAKOUTS[mode][0]
        names += [f"swp{port}"] if count == 1 else [f"swp{port}s{n}" for n in range(count)]
    return names


def port_number(name: str) -> int | None:
    match = re.fullmatch(r"swp(\d+)(?:s\d)?", name)
    return int(match.group(1)) if match else None


def lane_speed(config: dict[str, Any], name: str) -> int:
    """The fastest speed of a (sub-)port, in Mb/s."""
    number = port_number(name)
    assert number is not None
    return BREAKOUTS[breakout_of(config, number)][1]


def speeds_of(config: dict[str, Any], name: str) -> tuple[int, ...]:
    top = lane_speed(config, name)
    return tuple(speed for speed in SPEED_LADDER if speed <= top)


def not_physical(name: str) -> str:
    return f"ERROR: {name} is not a physical interface on this switch."  # [generic-switch]


def sort_key(name: str) -> tuple[Any, ...]:
    return (re.sub(r"\d.*", "", name), *(int(n) for n in re.findall(r"\d+", name)))


def expand_range(text: str) -> list[str]:
    """`swp7-9,12`, `swp5-swp6`, `swp1s0-3`, `bond0,swp3` -> interface names [4.2 NCLU
    guide, 4.2 port attributes].

    A part without a prefix takes the previous one (`swp7-9,12` is swp7, 8, 9, 12). A range
    that does not count up is not an interface name: it is returned as typed so that the
    caller refuses it as an unknown interface.
    """
    names: list[str] = []
    prefix = ""
    for part in text.split(","):
        match = re.fullmatch(r"([a-z]+)?(\d+)(?:s(\d+))?(?:-(?:[a-z]+)?(\d+)(?:s(\d+))?)?", part)
        if not match:
            return [*names, part]
        kind, first, sub, last, last_sub = match.groups()
        prefix = kind or prefix
        if not prefix:
            return [*names, part]
        if sub is not None and last is not None:  # swp1s0-3 or swp1s0-swp1s3
            low, high = int(sub), int(last_sub if last_sub is not None else last)
            if (last_sub is not None and last != first) or high < low:
                return [*names, part]
            names += [f"{prefix}{first}s{n}" for n in range(low, high + 1)]
        elif last is not None:
            if int(last) < int(first):
                return [*names, part]
            names += [f"{prefix}{n}" for n in range(int(first), int(last) + 1)]
        else:
            names.append(f"{prefix}{first}" + (f"s{sub}" if sub is not None else ""))
    return names


def compress(names: list[str]) -> str:
    """The inverse of expand_range: swp1 swp2 swp3 swp7 -> `swp1-3,7`; the prefix is written
    once per run of same-kind names, as NVUE's listings do (`swp1-2,32` [NVUE transcripts])."""
    groups: list[tuple[str, int, int]] = []  # (prefix, low, high)
    others: list[str] = []
    for name in sorted(set(names), key=sort_key):
        match = re.fullmatch(r"(.*?)(\d+)", name)
        if not match:
            others.append(name)
            continue
        prefix, number = match.group(1), int(match.group(2))
        if groups and groups[-1][0] == prefix and groups[-1][2] + 1 == number:
            groups[-1] = (prefix, groups[-1][1], number)
        else:
            groups.append((prefix, number, number))
    parts = []
    for index, (prefix, low, high) in enumerate(groups):
        lead = "" if index and groups[index - 1][0] == prefix else prefix
        parts.append(f"{lead}{low}" + (f"-{high}" if high != low else ""))
    return ",".join(parts + others)


def parse_vlans(text: str) -> list[int] | None:
    """`10,20`, `10-12` -> ids within 1-4094; None for anything else."""
    ids: list[int] = []
    for part in text.split(","):
        match = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if not match:
            return None
        low, high = int(match.group(1)), int(match.group(2) or match.group(1))
        if not VLAN_RANGE[0] <= low <= high <= VLAN_RANGE[1]:
            return None
        ids += range(low, high + 1)
    return sorted(set(ids))


def vlan_text(ids: list[int]) -> str:
    """[10, 11, 12, 20] -> `10-12,20`."""
    return compress([f"v{n}" for n in ids]).replace("v", "")


def bond_of(config: dict[str, Any], name: str) -> str | None:
    for bond, settings in config["interfaces"].items():
        if name in settings.get("slaves", []):
            return bond
    return None


def check(config: dict[str, Any]) -> list[tuple[str, str]]:
    """What makes a configuration impossible on this switch: (interface, reason) pairs.

    NCLU refuses these when they are typed; NVUE when the revision is applied. The reasons
    are this model's wording (**unverified**); the rules are the device's: only existing
    ports take port settings [generic-switch], a sub-port exists only while its port is
    split [4.2 / 5.10 port attributes], a speed must be one the port runs, bond members must
    be ports [4.2 bonding].
    """
    problems = []
    ports = set(physical_ports(config))
    for name, settings in sorted(config["interfaces"].items(), key=lambda i: sort_key(i[0])):
        if name.startswith("swp") and name not in ports:
            problems.append((name, f"{name} is not a physical interface on this switch"))
            continue
        if settings["speed"] is not None and settings["speed"] not in speeds_of(config, name):
            problems.append((name, f"speed {settings['speed']} is not supported on {name}"))
        for member in settings.get("slaves", []):
            if member not in ports:
                problems.append((name, f"bond member {member} is not a physical interface"))
    return problems


# ---- link state -------------------------------------------------------------------------


def mac_of(name: str) -> str:
    number = port_number(name) or 0
    sub = int(name.rpartition("s")[2]) if re.fullmatch(r"swp\d+s\d", name) else 0
    return f"{MAC_PREFIX}:{number // 256:02x}:{number % 256:02x}:{sub:02x}"


def link_up(state: SwitchState, config: dict[str, Any], name: str) -> bool:
    """Up when configured, not set down, and the lab cabled its front-panel port."""
    settings = config["interfaces"].get(name)
    if settings is None or settings["admin_down"]:
        return False
    if name.startswith("bond"):
        return any(link_up(state, config, m) for m in settings["slaves"])
    return port_number(name) in state.cabled_ports


def link_speed(state: SwitchState, config: dict[str, Any], name: str) -> int:
    """Mb/s of an up link: the set speed or the port's own; a bond adds up its up members."""
    settings = config["interfaces"][name]
    if "slaves" in settings:
        return sum(link_speed(state, config, m) for m in settings["slaves"]
                   if link_up(state, config, m))  # fmt: skip
    return settings["speed"] or lane_speed(config, name)


def speed_text(mbps: int) -> str:
    return f"{mbps // 1000}G" if mbps >= 1000 else f"{mbps}M"


# ---- rendering: the files NCLU and NVUE write ------------------------------------------

# The stanzas of /etc/network/interfaces that no tool here changes: (name, address family and
# method, attributes), as render_interfaces writes them and cumulus_ifupdown reads them back.
FACTORY_STANZAS = (
    ("lo", "inet loopback", ()),
    ("mgmt", "", ("address 127.0.0.1/8", "address ::1/128", "vrf-table auto")),
    ("eth0", "inet dhcp", ("ip-forward off", "ip6-forward off", "vrf mgmt")),
)


def render_interfaces(config: dict[str, Any]) -> str:
    """/etc/network/interfaces in ifupdown2's syntax (the 4.2 NCLU guide, quick start,
    port attributes, bonding and bridge guides).

    The loopback, management VRF and eth0 stanzas first, as the 5.3 guide's example file has
    them (docs.nvidia.com cumulus-linux-53 Interface-Configuration-and-Management: `auto
    mgmt` ... `vrf-table auto`, eth0 `ip-forward off`, `ip6-forward off`, `vrf mgmt`); that
    4.2 writes the same lines (management VRF is on by default from 4.0 [mgmt VRF guide]) is
    **unverified**. Switch ports, bonds, the bridge and SVIs follow.
    """
    lines: list[str] = []
    for name, method, attributes in FACTORY_STANZAS:
        lines += [f"auto {name}", f"iface {name} {method}".rstrip()]
        lines += [f"    {attribute}" for attribute in attributes] + [""]
    for name in sorted(config["interfaces"], key=sort_key):
        lines += _stanza(name, config["interfaces"][name])
    members = [n for n, s in config["interfaces"].items() if s["bridge"] and not bond_of(config, n)]
    bridge = config["bridge"]
    if members or bridge["vids"] or config["vlans"]:
        lines += ["auto bridge", "iface bridge"]
        if members:
            lines.append("    bridge-ports " + " ".join(sorted(members, key=sort_key)))
        if bridge["pvid"] is not None:
            lines.append(f"    bridge-pvid {bridge['pvid']}")
        if bridge["vids"]:
            lines.append("    bridge-vids " + " ".join(str(v) for v in bridge["vids"]))
        lines += ["    bridge-vlan-aware yes", ""]
    for vlan in sorted(config["vlans"], key=int):
        lines += [f"auto vlan{vlan}", f"iface vlan{vlan}"]
        lines += [f"    address {a}" for a in config["vlans"][vlan]["addresses"]]
        lines += [f"    vlan-id {vlan}", "    vlan-raw-device bridge", ""]
    return "\n".join(lines)


def _stanza(name: str, settings: dict[str, Any]) -> list[str]:
    lines = [f"auto {name}", f"iface {name}"]
    if settings["alias"]:
        lines.append(f"    alias {settings['alias']}")
    if "slaves" in settings:
        if settings["slaves"]:
            lines.append("    bond-slaves " + " ".join(settings["slaves"]))
        if settings["mode"]:
            lines.append(f"    bond-mode {settings['mode']}")
    if settings["access"] is not None:
        lines.append(f"    bridge-access {settings['access']}")
    if settings["trunk_vlans"]:
        lines.append("    bridge-vids " + " ".join(str(v) for v in settings["trunk_vlans"]))
    if settings["admin_down"]:
        lines.append("    link-down yes")
    if settings["autoneg"]:
        lines.append(f"    link-autoneg {settings['autoneg']}")
    if settings["fec"]:
        lines.append(f"    link-fec {settings['fec']}")
    if settings["speed"]:
        lines.append(f"    link-speed {settings['speed']}")
    if settings["mtu"]:
        lines.append(f"    mtu {settings['mtu']}")
    return [*lines, ""]


def render_ports_conf(config: dict[str, Any]) -> str:
    """/etc/cumulus/ports.conf: `N=MODE` per port. 4.x writes `1=4x25G`, `2=disabled` [4.2
    port attributes]; 5.4 and later write the lane count only, `1=4x` / `1=1x` [5.10 port
    attributes]. The factory value of a port on 4.x (`200G` here) and the header comment
    are **unverified**."""
    old = release_of(config["release"]) < (5, 4)
    lines = [
        "# ports.conf --",
        "#",
        "#   configure port speed, aggregation, and subdivision.",
        "#",
        "# The SN3700 has:",
        "#     32 QSFP56 ports numbered 1-32",
        "#",
        "# QSFP56 ports",
        "#",
        "# <port label> = [200G|2x100G|2x50G|4x50G|4x25G|4x10G|disabled]"
        if old
        else "# <port label> = [1x|2x|4x|disabled]",
    ]
    for port in PORTS:
        mode = breakout_of(config, port)
        if old:
            value = "200G" if mode == "1x" else mode
        else:
            value = mode if mode == "disabled" else mode[:2]
        lines.append(f"{port}={value}")
    return "\n".join(lines)


def lsb_release(config: dict[str, Any]) -> str:
    """/etc/lsb-release as CL 4.2 documents it (`DISTRIB_ID="Cumulus Linux"`, ...)."""
    release = config["release"]
    return (
        'DISTRIB_ID="Cumulus Linux"\n'
        f"DISTRIB_RELEASE={release}\n"
        f'DISTRIB_DESCRIPTION="Cumulus Linux {release}"'
    )


def uname(config: dict[str, Any]) -> str:
    """`uname -a`: 4.x builds show `#1 SMP Cumulus 4.19.x-1+cl4.3u1`, 5.x `#1 SMP Debian
    4.19.x-1+cl5.1.0u1` (Cumulus VX login banners); the kernel build of each release modelled
    is **unverified**."""
    release = config["release"]
    vendor = "Debian" if is_nvue(config) else "Cumulus"
    return (
        f"Linux {config['hostname']} 4.19.0-cl-1-amd64 #1 SMP {vendor} "
        f"4.19.149-1+cl{release}u1 (2021-01-28) x86_64 GNU/Linux"
    )
