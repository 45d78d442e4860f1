"""NVIDIA SN3700 running Cumulus Linux: the device model and its bash login shell.

One model serves two releases: Cumulus Linux 4.x configures the switch with NCLU (`net
...`, cumulus_nclu.py) and 5.x with NVUE (`nv ...`, cumulus_nvue.py); the other tool is
absent from the shell. Both edit the same configuration (ports, bridge, bonds, SVIs,
hostname) kept in the switch state; each keeps its own staging (NCLU's pending commands,
NVUE's pending revision) in the state's volatile part, so a restart discards it.

Sources (named in brackets here and in cumulus_nclu.py / cumulus_nvue.py): the Cumulus
Linux user guides, github CumulusNetworks/docs (published under
docs.nvidia.com/networking-ethernet-software/):
- 4.2 NCLU guide: cumulus-linux-42 "Network Command Line Utility - NCLU";
- 4.2 quick start: cumulus-linux-42 "Quick Start Guide";
- 4.2 / 5.10 port attributes: "Switch Port Attributes" of cumulus-linux-42 / -510;
- 4.2 bonding: cumulus-linux-42 "Bonding - Link Aggregation";
- bridge guides: the 3.x-4.x "VLAN-aware Bridge Mode" and "Ethernet Bridging" pages;
- NVUE CLI guide / NVUE API guide: cumulus-linux-510 "NVUE CLI" / "NVUE API";
- 5.10 bridge guide: cumulus-linux-510 "VLAN-aware Bridge Mode";
- NVUE reference: nvue-reference "Config Commands";
- mgmt VRF guide: the "Management VRF" pages (4.x: on by default);
and netmiko (github ktbyers/netmiko 4.6.0, netmiko/cumulus/cumulus_linux_ssh.py),
generic-switch (github openstack/networking-generic-switch,
devices/netmiko_devices/cumulus.py), NCLU transcripts / NVUE transcripts (public 3rd-party
transcripts: NCLU sessions of 2019-2021; `nv config show -o commands` output), and seed
002 (Cumulus Linux 4.2.1, NCLU 1.0-cl4.2.1u1, SN3700). What no source shows is marked
"unverified".
"""

from __future__ import annotations

import os
import re
import shlex
from typing import Any

from .state import SessionEnd, SwitchState

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


def render_interfaces(config: dict[str, Any]) -> str:
    """/etc/network/interfaces in ifupdown2's syntax (the 4.2 NCLU guide, quick start,
    port attributes, bonding and bridge guides).

    The loopback, management VRF and eth0 stanzas first, as the 5.3 guide's example file has
    them (docs.nvidia.com cumulus-linux-53 Interface-Configuration-and-Management: `auto
    mgmt` ... `vrf-table auto`, eth0 `ip-forward off`, `ip6-forward off`, `vrf mgmt`); that
    4.2 writes the same lines (management VRF is on by default from 4.0 [mgmt VRF guide]) is
    **unverified**. Switch ports, bonds, the bridge and SVIs follow.
    """
    lines = [
        "auto lo",
        "iface lo inet loopback",
        "",
        "auto mgmt",
        "iface mgmt",
        "    address 127.0.0.1/8",
        "    address ::1/128",
        "    vrf-table auto",
        "",
        "auto eth0",
        "iface eth0 inet dhcp",
        "    ip-forward off",
        "    ip6-forward off",
        "    vrf mgmt",
        "",
    ]
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


# Commands of the shell besides the configuration tool (`net` or `nv`)
SHELL_COMMANDS = ("hostname", "whoami", "uname", "cat", "adduser", "sudo")


# ---- the login shell --------------------------------------------------------------------


class CumulusSession:
    """A bash login on the switch: the user's shell, `sudo -s` for root, then `net` or `nv`.

    Without login() (the model driven in-process, or the first-boot console) the session
    is root's console login.
    """

    platform = "cumulus"

    def __init__(self, state: SwitchState):
        self.state = state
        self.shells = ["root"]  # user of each nested shell: login, then `sudo -s`
        self.password = ""
        self.sudo_cached = False  # sudo asks once per terminal, then caches [sudo(8)]
        self.awaiting: str | None = None  # the command waiting for the sudo password
        self.sudo_tries = 0
        self.confirm: Any = None  # NVUE's `Are you sure? [y/N]` continuation
        # imported here: both modules import this one for the device model
        if is_nvue(state.running):
            from .cumulus_nvue import NVUE as Tool
        else:
            from .cumulus_nclu import NCLU as Tool
        self.tool = Tool(self)

    # -- login and prompt ------------------------------------------------------------------

    def login(self, username: str, password: str = "") -> None:
        """The SSH user's login shell; the password is what sudo asks for again."""
        self.shells = [username]
        self.password = password

    @property
    def user(self) -> str:
        return self.shells[-1]

    @property
    def login_user(self) -> str:
        return self.shells[0]

    @property
    def echo(self) -> bool:
        """sudo reads the password without echo."""
        return self.awaiting is None

    @property
    def in_config(self) -> bool:
        """netmiko's "config mode" is a root shell (`#`) [netmiko]."""
        return self.user == "root"

    @property
    def REJECTED(self) -> str:
        return self.tool.REJECTED

    def prompt(self) -> str:
        """`cumulus@leaf01:mgmt:~$ ` (logins land in the mgmt VRF [mgmt VRF
        guide, NCLU transcripts]); root `# `.

        The root prompt after `sudo -s` keeps the login's directory; its exact text
        (`~` or `/home/<user>`) is **unverified**: only the trailing `# ` matters to clients.
        """
        if self.awaiting is not None:
            return f"[sudo] password for {self.login_user}: "
        if self.confirm is not None:
            return self.confirm.prompt
        host = self.state.running["hostname"]
        return f"{self.user}@{host}:mgmt:~{'#' if self.user == 'root' else '$'} "

    def refused(self, output: str) -> bool:
        """Whether a line's output is an error of the shell, sudo, `net` or `nv`: what a
        first-boot loader should stop on (this platform's errors do not start with `%`)."""
        return output.startswith(("-bash:", "sudo:", "adduser:")) or self.tool.failed(output)

    def counts_as_config(self, line: str, output: str) -> bool:
        """Accepted `net add|del` / `nv set|unset` lines, for the dropped-session fault."""
        words = line.split()
        if words[:1] == ["sudo"]:
            words = words[1:]
        return self.tool.changes_config(words) and not self.tool.failed(output)

    # -- dispatch --------------------------------------------------------------------------

    def execute(self, line: str) -> str:
        """Run one command line as bash would; returns what it prints."""
        if self.awaiting is not None:
            return self._sudo_password(line)
        if self.confirm is not None:
            answer, self.confirm = line.strip(), None
            return self.tool.confirmed(answer)
        try:
            words = shlex.split(line)
        except ValueError:
            return "-bash: unexpected EOF while looking for matching quote"
        if not words:
            return ""
        return self.run(words)

    def run(self, words: list[str]) -> str:
        command = words[0]
        if command in ("exit", "logout"):
            self.shells.pop()
            if not self.shells:
                raise SessionEnd
            return ""
        if command == "sudo":
            return self._sudo(words[1:])
        handler = {
            "hostname": lambda: self.state.running["hostname"],
            "whoami": lambda: self.user,
            "uname": lambda: self._uname(words[1:]),
            "cat": lambda: self._cat(words[1:]),
            "adduser": lambda: self._adduser(words[1:]),
        }.get(command)
        if handler:
            return handler()
        if command == self.tool.name:
            return self.tool.run(words[1:])
        return f"-bash: {command}: command not found"

    def _uname(self, args: list[str]) -> str:
        if args == ["-a"]:
            return uname(self.state.running)
        if not args or args == ["-s"]:
            return "Linux"
        if args == ["-n"]:
            return self.state.running["hostname"]
        return f"uname: invalid option -- '{args[0].lstrip('-')[:1]}'"

    def _cat(self, paths: list[str]) -> str:
        """The files an admin reads to check what NCLU or NVUE wrote."""
        config = self.state.running
        files = {
            "/etc/lsb-release": lambda: lsb_release(config),
            "/etc/hostname": lambda: config["hostname"],
            "/etc/network/interfaces": lambda: render_interfaces(config),
            "/etc/cumulus/ports.conf": lambda: render_ports_conf(config),
        }
        outputs = []
        for path in paths:
            reader = files.get(path)
            outputs.append(reader() if reader else f"cat: {path}: No such file or directory")
        return "\n".join(outputs)

    def _adduser(self, args: list[str]) -> str:
        """`adduser USER netedit`: the way the 4.2 NCLU guide gives a user edit rights (group
        netedit in netd.conf). /etc/group is written at once, so the membership survives a
        restart without `net commit`. Messages are Debian adduser's."""
        if self.user != "root":
            return "adduser: Only root may add a user or group to the system."
        if len(args) != 2 or args[1] != "netedit":
            return "adduser: Only the netedit group is modelled on this switch."  # model limit
        user = args[0]
        with self.state.lock:
            for config in (self.state.running, self.state.startup):
                if user not in config["netedit"]:
                    config["netedit"].append(user)
            if self.state.running == self.state.startup:
                self.state.save()
        return (
            f"Adding user `{user}' to group `netedit' ...\n"
            f"Adding user {user} to group netedit\nDone."
        )

    # -- sudo ------------------------------------------------------------------------------

    def _sudo(self, args: list[str]) -> str:
        """`sudo -s` opens a root shell, `sudo CMD` runs one command as root; either asks
        for the login password first (`[sudo] password for <user>: `, netmiko waits for
        `ssword` [netmiko]) unless already root or cached. Every lab account may sudo, as the
        factory `cumulus` account does [4.2 quick start]."""
        if not args:
            return "usage: sudo -h | -K | -k | -V"
        if self.user == "root" or self.sudo_cached:
            return self._as_root(args)
        self.awaiting = " ".join(shlex.quote(a) for a in args)
        self.sudo_tries = 0
        return ""

    def _sudo_password(self, password: str) -> str:
        command = self.awaiting or ""
        if password != self.password:
            self.sudo_tries += 1
            if self.sudo_tries >= 3:  # sudo's default passwd_tries
                self.awaiting = None
                return "Sorry, try again.\nsudo: 3 incorrect password attempts"
            return "Sorry, try again."
        self.awaiting = None
        self.sudo_cached = True
        return self._as_root(shlex.split(command))

    def _as_root(self, args: list[str]) -> str:
        if args in (["-s"], ["-i"], ["su"], ["bash"]):
            self.shells.append("root")
            return ""
        if args[0] not in SHELL_COMMANDS and args[0] != self.tool.name:
            return f"sudo: {args[0]}: command not found"  # sudo's own wording for a builtin too
        self.shells.append("root")
        try:
            return self.run(args)
        finally:
            if self.shells and self.shells[-1] == "root" and len(self.shells) > 1:
                self.shells.pop()
