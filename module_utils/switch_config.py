"""The switch platforms and port models, and the remediation of their configurations.

One table describes each platform the switch_config module drives (netmiko device type,
the command that prints the running configuration, how a change is pushed, the
hier_config driver, the role's template, the MTU range) and one describes each switch
model's ports (which exist, which break out and into what). A new platform is one
entry in PLATFORMS (plus its template and simulator); a new switch model is one entry
in MODELS. Everything here is plain data and functions: the module, the role's filters
and the unit tests all read the same tables.

A platform whose releases speak different CLIs lists them as dialects (Cumulus Linux: NCLU
on 4.x, NVUE on 5.x), each with its own running-config command, push, template and
comparison; the module asks the switch which one it speaks (`detect`) and uses that
dialect's entry (`SwitchPlatform.speaking`).

Dell OS10 has no hier_config platform: its driver below builds on the generic one with
OS10's `!` separators dropped. Breakouts are planned before hier_config sees the rest
(os10_breakout_plan): every QSFP28 port carries a map line, a port at its native map can
take a new map at once, a split port only after it is un-split.

Sources (named in brackets in the comments below):
- Cumulus Linux user guides, github CumulusNetworks/docs (published under
  docs.nvidia.com/networking-ethernet-software/): 4.2 NCLU guide (cumulus-linux-42 "Network
  Command Line Utility - NCLU"); 4.4 NVUE page (cumulus-linux-44 "NVIDIA User Experience -
  NVUE"); NVUE CLI guide / NVUE API guide / 5.10 port attributes / 5.10 user accounts
  (cumulus-linux-510 "NVUE CLI" / "NVUE API" / "Switch Port Attributes" / "User
  Accounts"); NVUE reference (nvue-reference "Config Commands"); NVUE upgrade KB (the KB
  "NVUE Fails to Apply Configuration After Upgrade");
- generic-switch: github openstack/networking-generic-switch,
  networking_generic_switch/devices/netmiko_devices/cumulus.py;
- NVUE transcripts: public 3rd-party transcripts of `nv config show -o commands`;
- MLNX-OS manual: NVIDIA MLNX-OS User Manual v3.10 (docs.nvidia.com/networking/display/
  MLNXOSv3104202), "Configuration Management" and "InfiniBand Interface";
- mellanox.onyx: github ansible-collections/mellanox.onyx, its running-config unit fixture;
- SX6036 notes: public notes on MLNX-OS 3.6.8012 on an SX6036 (a skill file and the blog
  "Mellanox SX6036"); QM8700 capture: the public blog "High Performance computing (HPC) on
  Openstack" (2022);
- eAPI docs: Arista's eAPI documentation (`management api http-commands`, the command-api
  endpoint, runCmds, its errors); pyeapi: github arista-eosplus/pyeapi, pyeapi/eapilib.py
  (the request it sends, `enable` with `input`); arista.eos: github
  ansible-collections/arista.eos, plugins/httpapi/eos.py (a configuration session over
  eAPI); EOS manual: arista.com/en/um-eos/eos-configure-session;
- OS10 sources: those lab/simulators/switch_sim/os10.py lists (the Dell OS10 User Guide,
  dellemc.os10, dell/omnia, grantcurell/projects' S4112F-ON captures, pastebin.com/13V2tpBX,
  intel/mfd-switchmanagement, ...).
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import json
import re
import shlex
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

# hier_config and netmiko take about a second to import: they are imported where a
# remediation or a push needs them, so that reading the tables (the role's filters) is
# cheap. The module reports a missing library with missing_required_lib.
HAS_HIER_CONFIG = importlib.util.find_spec("hier_config") is not None
HIER_CONFIG_IMPORT_ERROR = None if HAS_HIER_CONFIG else "No module named 'hier_config'"

BREAKOUT = "interface breakout"
# Error lines of both CLIs: `% Error: ...` (OS10), `% Invalid input ...`, `% Incomplete
# command`, `% Ambiguous command`, `% Cannot commit` (EOS). OS10 may put a BEL (OS10
# sources) or terminal escape sequences (colour, cursor: ESC [ ... letter) before the `%`,
# so any run of those and blanks may open the line.
ERROR_PATTERN = (
    r"(?m)^(?:\s|\x07|\x1b\[[0-9;?]*[A-Za-z])*% ?(Error|Invalid|Incomplete|Ambiguous|Cannot)"
)
EXEC_PROMPT = r"#\s*$"


# ---- the SSH session (switch_config and switch_command) -------------------------------------

# Imported in connect(), like hier_config where it is needed: the tables stay cheap to read.
HAS_NETMIKO = importlib.util.find_spec("netmiko") is not None
NETMIKO_IMPORT_ERROR = None if HAS_NETMIKO else "No module named 'netmiko'"

# The options of doc_fragments/switch_connection.py, as AnsibleModule takes them.
CONNECTION_ARGUMENT_SPEC: dict[str, dict[str, Any]] = {
    "platform": {"type": "str", "required": True, "choices": []},  # filled below the table
    "host": {"type": "str", "required": True},
    "port": {"type": "int", "default": 22},
    "username": {"type": "str", "required": True},
    "password": {"type": "str", "required": True, "no_log": True},
    "enable": {"type": "bool", "default": False},
    "enable_secret": {"type": "str", "no_log": True},
    "host_key_checking": {"type": "bool", "default": True},
    "known_hosts": {"type": "path"},
    "timeout": {"type": "int", "default": 30},
}
# The HTTP API instead of the SSH CLI, where the platform has one (API_TRANSPORTS):
# switch_config's options, beside the connection's.
API_ARGUMENT_SPEC: dict[str, dict[str, Any]] = {
    "transport": {"type": "str", "default": "cli", "choices": ["cli", "api"]},
    "api_port": {"type": "int"},
    "ca_path": {"type": "path"},
    "validate_certs": {"type": "bool", "default": True},
    "api_confirm": {"type": "int", "default": 300},
}


def connect(params: Mapping[str, Any]) -> Any:
    """One netmiko session to the switch, in privileged mode where asked and the platform
    has one."""
    known_hosts = params["known_hosts"]
    platform = PLATFORMS[params["platform"]]
    conn = session_class(platform)(
        device_type=platform.device_type,
        host=params["host"],
        port=params["port"],
        username=params["username"],
        password=params["password"],
        ssh_strict=params["host_key_checking"],
        system_host_keys=params["host_key_checking"] and not known_hosts,
        alt_host_keys=bool(params["host_key_checking"] and known_hosts),
        alt_key_file=known_hosts or "",
        conn_timeout=params["timeout"],
        auth_timeout=params["timeout"],
        banner_timeout=params["timeout"],
        read_timeout_override=params["timeout"],
        allow_agent=False,
        use_keys=False,
        fast_cli=True,
        secret=params["enable_secret"] or "",
    )
    if params["enable"] and platform.enable_mode:
        conn.enable()  # netmiko checks the prompt first: a no-op at `#`
    return conn


def session_class(platform: SwitchPlatform) -> type:
    """netmiko's driver for the platform; where the platform names its login prompt, one
    whose first read after the login ends at that prompt instead of after two quiet
    seconds (netmiko's generic first read, which its Cisco drivers also replace so)."""
    from netmiko.ssh_dispatcher import CLASS_MAPPER

    driver = CLASS_MAPPER[platform.device_type]
    prompt = platform.login_prompt
    if prompt is None:
        return driver

    class PromptFirst(driver):  # type: ignore[misc, valid-type]
        def _test_channel_read(self, count: int = 40, pattern: str = "") -> str:
            return super()._test_channel_read(count=count, pattern=pattern or prompt)

    PromptFirst.__name__ = f"{driver.__name__}PromptFirst"
    return PromptFirst


# ---- pushing a change ---------------------------------------------------------------------


class PushError(Exception):
    """A push that stopped part-way; carries what had been applied."""

    def __init__(self, message: str, applied: list[str]):
        super().__init__(message)
        self.applied = applied


def send_each(
    conn: Any, commands: Sequence[str], applied: list[str], error_pattern: str = ERROR_PATTERN
) -> None:
    """Send commands one by one in the current config mode, recording each applied one."""
    from netmiko.exceptions import ConfigInvalidException

    for command in commands:
        try:
            conn.send_config_set(
                [command],
                enter_config_mode=False,
                exit_config_mode=False,
                error_pattern=error_pattern,
            )
        except ConfigInvalidException as exc:
            raise PushError(f"the switch rejected {command!r}: {exc}", applied) from exc
        except Exception as exc:  # dropped session, timeout: say where it stopped
            raise PushError(f"the session failed at {command!r}: {exc}", applied) from exc
        applied.append(command)


def push_eos(conn: Any, commands: Sequence[str], options: Mapping[str, Any]) -> str:
    """Apply commands inside a config session; commit only if every command passed.

    Returns the session's `show session-config diffs`.
    """
    session = f"{options['session_name']}-{int(time.time())}"
    applied: list[str] = []
    conn.config_mode(config_command=f"configure session {session}")
    try:
        send_each(conn, commands, applied)
        diff = conn.send_command("show session-config diffs", expect_string=EXEC_PROMPT)
        output = conn.send_command("commit", expect_string=EXEC_PROMPT)
        if re.search(ERROR_PATTERN, output):
            raise PushError(f"commit of session {session} failed: {output.strip()}", applied)
    except PushError as exc:
        # the session may be gone already; EOS expires abandoned sessions itself
        with contextlib.suppress(Exception):
            conn.send_command("abort", expect_string=EXEC_PROMPT)
            exc.args = (f"{exc}; configuration session {session} was aborted",)
        raise
    return diff


def push_os10(conn: Any, commands: Sequence[str], options: Mapping[str, Any]) -> None:
    """Apply commands in a transaction where possible; discard it on any error."""
    transaction = options["transaction"]
    applied: list[str] = []
    use_transaction = False
    if transaction != "never":
        output = conn.send_command("start transaction", expect_string=EXEC_PROMPT)
        use_transaction = not re.search(ERROR_PATTERN, output)
        if transaction == "always" and not use_transaction:
            raise PushError(f"this switch refused `start transaction`: {output.strip()}", applied)
    conn.config_mode()
    try:
        send_each(conn, commands, applied)
        conn.exit_config_mode()
        if use_transaction:
            output = conn.send_command("commit", expect_string=EXEC_PROMPT)
            if re.search(ERROR_PATTERN, output):
                raise PushError(f"commit failed: {output.strip()}", applied)
    except PushError as exc:
        if use_transaction:
            try:
                conn.exit_config_mode()
                conn.send_command("discard", expect_string=EXEC_PROMPT)
                exc.applied = []  # discarded: nothing reached the running configuration
                exc.args = (f"{exc}; the transaction was discarded, nothing was committed",)
            except Exception:
                pass
        raise
    return None


# MLNX-OS refuses a command with a line that starts with `% ` [mellanox.onyx], e.g.
# `% Unrecognized command "x".` [SX6036 notes]; the other wordings of the lab's model are
# unverified.
MLNXOS_ERROR_PATTERN = r"(?m)^\s*% \S"


def push_mlnxos(conn: Any, commands: Sequence[str], options: Mapping[str, Any]) -> None:
    """Apply commands in configuration mode. MLNX-OS applies each one at once and has no
    transaction or session to discard [MLNX-OS manual]: a failure reports the commands
    that were applied before it, and the next run sends what is still missing."""
    applied: list[str] = []
    conn.config_mode()
    send_each(conn, commands, applied, MLNXOS_ERROR_PATTERN)
    conn.exit_config_mode()
    return None


# ---- Cumulus Linux NCLU (4.x) --------------------------------------------------------------

# NCLU answers a refused command with `ERROR: ...` [4.2 NCLU guide, generic-switch]; a switch
# without NCLU (5.x) answers `-bash: net: command not found`.
NCLU_ERROR_PATTERN = r"(?m)^(?:\s)*(?:ERROR|-bash: )"
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_NCLU_PORT = re.compile(r"^(?P<prefix>[a-z]+)?(?P<num>\d+)(?:s(?P<sub>\d+))?(?:-(?P<last>\d+))?$")


def nclu_ports(spec: str) -> list[str]:
    """`swp1,5-6,swp3s0-1,bond1` -> each name. NCLU folds ranges and drops a prefix the
    previous item gave (`swp1,5-6` is swp1, swp5, swp6) [4.2 NCLU guide]."""
    names: list[str] = []
    prefix = ""
    for part in spec.split(","):
        match = _NCLU_PORT.match(part)
        if not match or (match["prefix"] is None and not prefix):
            names.append(part)
            continue
        prefix = match["prefix"] or prefix
        if match["sub"] is not None and match["last"] is not None:  # swp3s0-3
            subs = range(int(match["sub"]), int(match["last"]) + 1)
            names += [f"{prefix}{match['num']}s{sub}" for sub in subs]
        elif match["last"] is not None:
            numbers = range(int(match["num"]), int(match["last"]) + 1)
            names += [f"{prefix}{n}" for n in numbers]
        else:
            sub = f"s{match['sub']}" if match["sub"] is not None else ""
            names.append(f"{prefix}{match['num']}{sub}")
    return names


def _port_order(name: str) -> tuple[str, list[int]]:
    """swp2 before swp10, bond1 before swp1."""
    return re.sub(r"\d.*", "", name), [int(n) for n in re.findall(r"\d+", name)]


def nclu_lines(text: str) -> str:
    """`net add` lines one setting per line: a line naming a port range becomes one line
    per port, and port lists (bond slaves, bridge ports) are spelt out, so that the
    switch's `net show configuration commands` and the intended text compare line by line."""
    lines = []
    for raw in _ANSI.sub("", text).splitlines():
        words = raw.split()
        if words[:2] != ["net", "add"] or len(words) < 4:
            continue
        if words[2] == "interface":
            lines += [" ".join(["net", "add", "interface", port, *words[4:]])
                      for port in nclu_ports(words[3])]  # fmt: skip
            continue
        if words[2:] and words[-3:-1] in (["bond", "slaves"], ["bridge", "ports"]):
            # a set of ports: the switch prints it folded and in its own order
            words[-1] = ",".join(sorted(nclu_ports(words[-1]), key=_port_order))
        lines.append(" ".join(words))
    return "".join(f"{line}\n" for line in lines)


def nclu_remediation(running: str, intended: str, owned_patterns: Sequence[str]) -> list[str]:
    """The `net del` of every owned line the intended text lacks (last first, so a port's
    settings go before the port), then the `net add` lines it adds, in its order."""
    patterns = [re.compile(p) for p in owned_patterns]
    have = running.splitlines()
    want = intended.splitlines()
    owned = [line for line in have if any(p.search(line) for p in patterns)]
    deletions = ["net del" + line[len("net add") :] for line in reversed(owned) if line not in want]
    return deletions + [line for line in want if line not in have]


def push_nclu(conn: Any, commands: Sequence[str], options: Mapping[str, Any]) -> str:
    """Stage the commands, read `net pending`, then `net commit`; on any error `net abort`,
    so that nothing reaches the running or the saved configuration [4.2 NCLU guide].
    Returns the pending diff."""
    applied: list[str] = []
    try:
        send_each(conn, commands, applied, NCLU_ERROR_PATTERN)
        pending = _ANSI.sub("", conn.send_command("net pending", read_timeout=60))
        output = conn.send_command("net commit", read_timeout=120)
        if re.search(NCLU_ERROR_PATTERN, output):
            raise PushError(f"net commit failed: {_ANSI.sub('', output).strip()}", applied)
    except PushError as exc:
        with contextlib.suppress(Exception):
            conn.send_command("net abort")
            exc.applied = []  # aborted: nothing was committed
            exc.args = (f"{exc}; the staged changes were aborted, nothing was committed",)
        raise
    return pending


# ---- Cumulus Linux: the release, and the dialect it speaks -----------------------------------

# How the release is read. `cat /etc/lsb-release` is what the Cumulus knowledge base has
# users run to see the running release (CumulusNetworks/docs, knowledge-base "Verify Software
# and Hardware Version Information": `DISTRIB_RELEASE=4.2.0`); it needs neither `net` nor
# `nv`. That 5.x keeps the file in that form is unverified, so where it names no release
# NVUE's `nv show system -o json` is asked (its `build` is "Cumulus Linux 5.4.0", the REST
# API's GET /system [NVUE API guide]).
CUMULUS_RELEASE_COMMANDS = ("cat /etc/lsb-release", "nv show system -o json")
_CUMULUS_RELEASE = re.compile(
    r'(?m)^DISTRIB_RELEASE="?(\d+(?:\.\d+)*)|"build":\s*"Cumulus Linux (\d+(?:\.\d+)*)'
)


def cumulus_release(text: str) -> str | None:
    """The release that `/etc/lsb-release` or `nv show system -o json` names, else None."""
    match = _CUMULUS_RELEASE.search(_ANSI.sub("", text))
    return (match.group(1) or match.group(2)) if match else None


def cumulus_dialect(release: str) -> str:
    """NCLU before 5.0, NVUE from 5.0 [4.2 NCLU guide, NVUE CLI guide]: 5.x has no NCLU,
    and 4.4 ships NVUE with its daemon disabled [4.4 NVUE page], so NCLU stays the CLI of
    every 4.x."""
    return "nvue" if int(release.split(".")[0]) >= 5 else "nclu"


def detect_cumulus(conn: Any) -> tuple[str, str]:
    """(dialect, release) of the Cumulus Linux switch behind `conn`."""
    output = ""
    for command in CUMULUS_RELEASE_COMMANDS:
        output = conn.send_command(command, read_timeout=30)
        release = cumulus_release(output)
        if release is not None:
            return cumulus_dialect(release), release
    raise RuntimeError(
        "cannot tell which Cumulus Linux release the switch runs: neither "
        + " nor ".join(f"`{c}`" for c in CUMULUS_RELEASE_COMMANDS)
        + f" names one (the last answered {_ANSI.sub('', output).strip()[:200]!r})"
    )


# ---- Cumulus Linux NVUE (5.x) --------------------------------------------------------------

# NVUE's failure texts as networking-generic-switch matches them [generic-switch]: a
# refused `nv set` (`Error: ...`), a revision that apply refuses (`Invalid config [rev_id: N]`
# with indented `Config invalid at ...` lines [NVUE upgrade KB]), `Unable to restart
# services`, `Failure during apply`; and bash's answer on a switch without `nv`.
NVUE_ERROR_PATTERN = (
    r"(?m)^\s*(?:Error\b|-bash: )|Invalid config|Config invalid at"
    r"|Unable to restart services|Failure during apply"
)
# NVUE settings whose last word is a value (`link mtu 9216`): `nv unset` names the setting
# without it (`nv unset interface swp1 link mtu`, `... link breakout` [NVUE CLI guide, 5.10
# port attributes]). In the others the last word is an entry of a list (`bond member
# swp5`, `vlan 10`, `ip address 10.1.10.2/24`) and is part of what is unset. `type` is the
# interface's own line: unsetting it is unsetting the interface (`nv unset interface
# swp1s0` [5.10 port attributes]).
NVUE_VALUE_SETTINGS = frozenset(
    {"access", "auto-negotiate", "breakout", "description", "fec", "hostname", "mode",
     "mtu", "speed", "state", "untagged"}
)  # fmt: skip


def _nvue_words(line: str) -> list[str]:
    """A line as NVUE takes its words: bash quoting (a description with blanks is quoted)."""
    try:
        return shlex.split(line)
    except ValueError:  # an unbalanced quote: compared as typed
        return line.split()


def _nvue_line(words: Sequence[str]) -> str:
    return " ".join(shlex.quote(word) for word in words)


def _vlan_ids(text: str) -> list[str]:
    """`10,20-22` -> 10, 20, 21, 22; anything else as it is."""
    ids: list[str] = []
    for part in text.split(","):
        low, _, high = part.partition("-")
        if not low.isdigit() or not (high.isdigit() or not high):
            return [text]
        ids += [str(n) for n in range(int(low), int(high or low) + 1)]
    return ids


def _nvue_settings(words: list[str]) -> list[list[str]]:
    """One `nv set` line per interface, bond member and VLAN the line names."""
    names = nclu_ports(words[3]) if words[2] == "interface" else [words[3]]
    rest = words[4:]
    values: list[str | None] = [None]
    if len(rest) >= 2 and rest[-2] in ("member", "vlan"):
        values = [*(nclu_ports if rest[-2] == "member" else _vlan_ids)(rest[-1])]
    return [
        [*words[:3], name, *(rest if value is None else [*rest[:-1], value])]
        for name in names
        for value in values
    ]


def nvue_lines(text: str) -> str:
    """`nv set` lines one setting per line, as NVUE's tree holds them, so that the switch's
    `nv config show -o commands` and the intended text compare line by line.

    The switch folds interfaces with the same setting into a range (`nv set interface
    swp1-2,32 type swp` [NVUE transcripts]); a line is made one per interface, bond member
    and VLAN. A line that is the path of another one's setting (`... bridge domain
    br_default` beside `... bridge domain br_default access 10`) is dropped: only the longer
    one is a setting of the tree. So is the `type` line of an interface that has other
    settings: any setting of an interface creates it with its type (swpN is a swp, bondN a
    bond), so the line says nothing more; the switch lists it, the intended text need not
    (the port that carries a breakout is configured by its breakout line alone).
    """
    settings: list[tuple[str, ...]] = []
    for raw in _ANSI.sub("", text).splitlines():
        words = _nvue_words(raw)
        if words[:2] == ["nv", "set"] and len(words) >= 4:
            settings += [tuple(item) for item in _nvue_settings(words)]
    unique = list(dict.fromkeys(settings))
    paths = {item[:n] for item in unique for n in range(4, len(item))}
    lines_of: dict[str, int] = {}
    for item in unique:
        if item[2] == "interface" and item not in paths:
            lines_of[item[3]] = lines_of.get(item[3], 0) + 1
    kept = [
        item
        for item in unique
        if item not in paths
        and not (item[2] == "interface" and item[4:5] == ("type",) and lines_of[item[3]] > 1)
    ]
    return "".join(f"{_nvue_line(item)}\n" for item in kept)


def _nvue_unset(words: Sequence[str]) -> list[str]:
    """The `nv unset` of the setting one `nv set` line makes."""
    if words[2] == "interface" and words[4:5] == ["type"]:
        return ["nv", "unset", *words[2:4]]
    keep = -1 if len(words) > 4 and words[-2] in NVUE_VALUE_SETTINGS else len(words)
    return ["nv", "unset", *words[2:keep]]


def nvue_remediation(running: str, intended: str, owned_patterns: Sequence[str]) -> list[str]:
    """The `nv unset` of every owned setting the intended text lacks, then the `nv set`
    lines it adds, in its order.

    A setting the intended text gives another value is only set (the new value replaces
    the old); an interface it no longer names at all is unset as a whole. Unsets go most
    specific first, an interface after its settings, and a breakout after the sub-ports it
    made [5.10 port attributes: the sub-ports, then `nv unset interface swp1 link breakout`].
    """
    patterns = [re.compile(p) for p in owned_patterns]
    have = running.splitlines()
    want = intended.splitlines()
    added = [line for line in want if line not in have]
    replaced = set()
    for words in map(_nvue_words, added):
        if len(words) > 4 and words[-2] in NVUE_VALUE_SETTINGS:
            replaced.add(tuple(words[2:-1]))
    named = {w[3] for w in map(_nvue_words, want) if w[2:3] == ["interface"] and len(w) > 3}
    unsets: list[list[str]] = []
    for line in have:
        if line in want or not any(p.search(line) for p in patterns):
            continue
        words = _nvue_words(line)
        if len(words) > 4 and words[-2] in NVUE_VALUE_SETTINGS and tuple(words[2:-1]) in replaced:
            continue
        unsets.append(_nvue_unset(words))
        if words[2] == "interface" and words[3] not in named:
            unsets.append(["nv", "unset", "interface", words[3]])
    unique = list(dict.fromkeys(map(tuple, unsets)))
    unique.sort(key=lambda words: (words[-1] == "breakout", -len(words)))
    return [_nvue_line(words) for words in unique] + added


def push_nvue(conn: Any, commands: Sequence[str], options: Mapping[str, Any]) -> str:
    """Stage the commands in NVUE's pending revision, read `nv config diff`, then `nv config
    apply -y` (`-y`: a breakout change asks before reloading switchd). On any error `nv
    config detach`, so the revision is never applied [NVUE CLI guide, NVUE reference]. Returns
    the pending diff."""
    applied: list[str] = []
    try:
        send_each(conn, commands, applied, NVUE_ERROR_PATTERN)
        diff = _ANSI.sub("", conn.send_command("nv config diff", read_timeout=60))
        output = conn.send_command("nv config apply -y", read_timeout=120)
        if re.search(NVUE_ERROR_PATTERN, output):
            raise PushError(f"nv config apply failed: {_ANSI.sub('', output).strip()}", applied)
    except PushError as exc:
        with contextlib.suppress(Exception):
            conn.send_command("nv config detach")
            exc.applied = []  # detached: the revision was never applied
            exc.args = (f"{exc}; the pending revision was detached, nothing was applied",)
        raise
    return diff


def save_nvue(conn: Any) -> str:
    """`nv config save` (startup.yaml). From 5.9 apply saves by itself (auto-save is on by
    default [NVUE reference, NVUE CLI guide]), and saving again writes the same file; before 5.9,
    or where auto-save was turned off, this is what makes the change survive a reboot."""
    return conn.send_command("nv config save", read_timeout=60)


# ---- the switches' HTTP APIs (transport: api) ---------------------------------------------


def api_request(
    name: str, url: str, params: Mapping[str, Any], method: str, body: Any = None
) -> Any:
    """One JSON request to a switch's HTTP API (`name` as messages say it), HTTP Basic auth
    with the switch user, the certificate verified; the JSON answer. A 401 and an
    unreachable API raise RuntimeError; another HTTP error raises it with the switch's
    words (an error body's `detail`, as NVUE sends it)."""
    import json

    from ansible.module_utils.urls import open_url

    try:
        response = open_url(
            url,
            data=None if body is None else json.dumps(body),
            headers={"Content-Type": "application/json"},
            method=method,
            url_username=params["username"],
            url_password=params["password"],
            force_basic_auth=True,
            validate_certs=params.get("validate_certs", True),
            ca_path=params.get("ca_path"),
            timeout=params["timeout"],
            use_proxy=False,
        )
        return json.loads(response.read() or b"{}")
    except Exception as exc:
        code = getattr(exc, "code", None)
        if code == 401:
            raise RuntimeError(
                f"{name} at {url} refused the credentials of {params['username']} (HTTP 401)"
            ) from exc
        if code is None:
            raise RuntimeError(f"cannot reach {name} at {url}: {exc}") from exc
        detail = ""
        with contextlib.suppress(Exception):
            detail = json.loads(exc.read()).get("detail", "")  # type: ignore[attr-defined]
        raise RuntimeError(f"{name} refused {method} {url}: {detail or exc}") from exc


class ApiCommandError(Exception):
    """A command the switch refused over its API: which one (its index in the request)
    and the switch's message."""

    def __init__(self, index: int, command: str, message: str):
        super().__init__(f"the switch rejected {command!r}: {message}")
        self.index, self.command, self.message = index, command, message


class EapiClient:
    """Arista eAPI: JSON-RPC `runCmds` over HTTPS, HTTP Basic auth [eAPI docs, pyeapi].

    The module drives it as it drives the SSH session: `send_command` returns a command's
    text output. Each request is a session of its own that starts at the user's privilege,
    so every request opens with `enable` (the enable secret as its input, as pyeapi sends
    it [pyeapi]). A refused command ends the request (eAPI's error `data` holds the
    results up to it); its index and the switch's message are raised as ApiCommandError.
    eAPI listens on HTTPS port 443 unless the switch's `management api http-commands`
    says otherwise [eAPI docs].
    """

    DEFAULT_PORT = 443

    def __init__(self, params: Mapping[str, Any]):
        port = params.get("api_port") or self.DEFAULT_PORT
        self.url = f"https://{params['host']}:{port}/command-api"
        self.params = params
        self.requests = 0

    def run(self, commands: Sequence[str]) -> list[str]:
        """The text output of each command, run in order after `enable`."""
        self.requests += 1
        enable: dict[str, Any] = {"cmd": "enable"}
        if self.params.get("enable_secret"):
            enable["input"] = self.params["enable_secret"]
        body = {
            "jsonrpc": "2.0",
            "method": "runCmds",
            "params": {"version": 1, "cmds": [enable, *commands], "format": "text"},
            "id": f"dlcluster-{self.requests}",
        }
        # eAPI answers a refused command with HTTP 200 and a JSON-RPC error [pyeapi]
        answer = api_request("eAPI", self.url, self.params, "POST", body)
        error = answer.get("error")
        if error is None:
            return [result.get("output", "") for result in answer["result"][1:]]
        data = error.get("data") or []
        if not data:  # refused before any command ran (a malformed request)
            raise RuntimeError(f"eAPI refused the request: {error.get('message')}")
        index = len(data) - 1  # data: the results up to the refused command, included
        failed = data[-1]
        message = "; ".join(failed.get("errors") or [error.get("message", "")])
        if index == 0:
            raise RuntimeError(f"`enable` failed over eAPI: {message}")
        raise ApiCommandError(index - 1, commands[index - 1], message)

    def send_command(self, command: str, **_: Any) -> str:
        return self.run([command])[0]

    def disconnect(self) -> None:
        """Nothing to close: each request is its own connection."""


def push_eos_api(conn: EapiClient, commands: Sequence[str], options: Mapping[str, Any]) -> str:
    """push_eos over eAPI: the commands into a named configuration session in one request;
    its `show session-config diffs` and `commit` in a second that re-enters the session
    (sessions are the switch's, not the request's [EOS manual]); on any refusal the session
    is aborted, so nothing of it is applied. The same two requests arista.eos's httpapi
    plugin sends for a session [arista.eos]. Returns the session's diff."""
    session = f"{options['session_name']}-{int(time.time())}"
    enter = f"configure session {session}"
    try:
        try:
            conn.run([enter, *commands])
        except ApiCommandError as exc:
            if exc.index == 0:
                raise PushError(f"the switch refused {enter!r}: {exc.message}", []) from exc
            raise PushError(str(exc), list(commands[: exc.index - 1])) from exc
        try:
            diff, _ = conn.run([enter, "show session-config diffs", "commit"])[1:]
        except ApiCommandError as exc:
            raise PushError(
                f"commit of session {session} failed: {exc.message}", list(commands)
            ) from exc
    except PushError as exc:
        with contextlib.suppress(Exception):
            conn.run([enter, "abort"])
            exc.args = (f"{exc}; configuration session {session} was aborted",)
        raise
    return diff


class NvueClient:
    """NVUE's REST API (Cumulus Linux 5.x): `/nvue_v1` over HTTPS, HTTP Basic auth with the
    switch's users, on port 8765 unless `nv set system api port` says otherwise [NVUE API
    guide]. The module drives it as it drives the SSH session: `send_command` answers the
    one command it reads the running configuration with (`nv config show -o commands`),
    made from the applied revision's tree (GET `/?rev=applied`), one `nv set` line per leaf.
    """

    DEFAULT_PORT = 8765

    def __init__(self, params: Mapping[str, Any]):
        port = params.get("api_port") or self.DEFAULT_PORT
        self.url = f"https://{params['host']}:{port}/nvue_v1"
        self.params = params
        self.waiting: str | None = None  # a revision applied, not confirmed yet

    def request(self, method: str, path: str, body: Any = None, rev: str | None = None) -> Any:
        """One request; the JSON answer. A refusal raises RuntimeError with the switch's
        words (the `detail` of its error body where it has one)."""
        from urllib.parse import quote

        url = f"{self.url}/{path.lstrip('/')}" + (f"?rev={quote(rev, safe='')}" if rev else "")
        return api_request("NVUE", url, self.params, method, body)

    def send_command(self, command: str, **_: Any) -> str:
        if command != CUMULUS_NVUE.show_running:
            raise RuntimeError(f"NVUE's REST API has no {command!r}")
        tree = self.request("GET", "/", rev="applied")
        return "".join(f"{_nvue_line(['nv', 'set', *words])}\n" for words in _tree_words(tree))

    def disconnect(self) -> None:
        """Nothing to close: each request is its own connection."""


def _tree_words(tree: Any, path: tuple[str, ...] = ()) -> list[list[str]]:
    """The `nv set` words of every leaf of an NVUE tree: the path, then the value; an empty
    object is a word of the path (`vlan: {10: {}}` is `vlan 10`) [NVUE API guide]."""
    words: list[list[str]] = []
    for key, value in (tree or {}).items():
        if isinstance(value, dict) and value:
            words += _tree_words(value, (*path, str(key)))
        elif isinstance(value, dict):
            words.append([*path, str(key)])
        elif value is not None:
            words.append([*path, str(key), str(value)])
    return words


def _nvue_edit(line: str) -> tuple[str, str, Any]:
    """An `nv set` / `nv unset` line as a REST edit: (method, path, body). A set is a PATCH
    of the object under the setting's parent (`link mtu 9216` -> PATCH interface/swp1/link
    {"mtu": 9216}; `vlan 10` -> PATCH bridge/domain/br_default/vlan {"10": {}}); an unset is
    a DELETE of the path it names [NVUE API guide]."""
    words = _nvue_words(line)
    verb, path = words[1], words[2:]
    if verb == "unset":
        return "DELETE", "/".join(path), None
    if len(path) > 2 and path[-2] in NVUE_VALUE_SETTINGS | {"type"}:
        value: Any = int(path[-1]) if path[-1].isdigit() else path[-1]
        return "PATCH", "/".join(path[:-2]), {path[-2]: value}
    return "PATCH", "/".join(path[:-1]), {path[-1]: {}}


def push_nvue_api(conn: NvueClient, commands: Sequence[str], options: Mapping[str, Any]) -> str:
    """push_nvue over NVUE's REST API: a new revision, the lines as PATCH / DELETE edits of
    it, then apply with `ays_yes` and a confirm window of `api_confirm` seconds, polled until
    the switch says how it went [NVUE API guide]. A refused edit or apply leaves the
    revision unapplied (it is dropped). Until confirm_nvue_api the switch rolls the change
    back by itself when the window runs out: a change that cuts the control host off the
    switch undoes itself. Returns the staged lines (the REST API has no `nv config diff`
    text)."""
    if conn.waiting is not None:  # a second pass: the first one's change stands
        confirm_nvue_api(conn)
    rev = next(iter(conn.request("POST", "revision", {})))
    applied: list[str] = []
    try:
        for line in commands:
            method, path, body = _nvue_edit(line)
            conn.request(method, path, body, rev=rev)
            applied.append(line)
        apply = {"state": "apply", "auto-prompt": {"ays": "ays_yes"}}
        if options.get("api_confirm"):
            apply["state-controls"] = {"confirm": int(options["api_confirm"])}
        conn.request("PATCH", f"revision/{rev}", apply)
        state = _nvue_settle(conn, rev, options["timeout"])
    except RuntimeError as exc:
        with contextlib.suppress(Exception):
            conn.request("DELETE", f"revision/{rev}")
        raise PushError(f"{exc}; revision {rev} was not applied", []) from exc
    if state == "confirm":
        conn.waiting = rev
    return "".join(f"{line}\n" for line in commands)


# Revision states an apply ends in [NVUE API guide; `confirm`, `applied_and_saved`: the
# REST clients gpn-noc-gpncfg and NVIDIA/nv-config-manager]
NVUE_DONE = ("applied", "applied_and_saved", "confirm")
NVUE_FAILED = ("invalid", "ays_fail", "apply_fail", "confirm_fail")


def _nvue_settle(conn: NvueClient, rev: str, timeout: int) -> str:
    deadline = time.monotonic() + timeout
    while True:
        record = conn.request("GET", f"revision/{rev}")
        state = record.get("state")
        if state in NVUE_DONE:
            return state
        if state in NVUE_FAILED:
            issues = (record.get("transition") or {}).get("issue") or {}
            reasons = [i.get("message") or str(i.get("data")) for i in issues.values()]
            raise RuntimeError(f"revision {rev} ended {state}: " + ("; ".join(reasons) or "-"))
        if time.monotonic() > deadline:
            raise RuntimeError(f"revision {rev} still {state} after {timeout} s")
        time.sleep(1)


def confirm_nvue_api(conn: NvueClient) -> None:
    """Confirm the revision waiting in its window, once the re-read showed nothing left:
    `{"state": "confirm_yes"}` (gpn-noc-gpncfg's form; **unverified** against NVIDIA's
    documentation, which shows the CLI's `--confirm-yes` only)."""
    if conn.waiting is not None:
        conn.request("PATCH", f"revision/{conn.waiting}", {"state": "confirm_yes"})
        conn.waiting = None


def rollback_nvue_api(conn: NvueClient) -> None:
    """Roll the waiting revision back at once (`confirm_no`, **inferred** from the CLI's
    `--confirm-no`); the window's end would do it anyway."""
    if conn.waiting is not None:
        conn.request("PATCH", f"revision/{conn.waiting}", {"state": "confirm_no"})
        conn.waiting = None


def save_nvue_api(conn: NvueClient) -> str:
    """`nv config save` over REST: PATCH /revision/applied {"state": "save"} [NVUE API
    guide]. From 5.9 the apply (or its confirmation) saved already."""
    conn.request("PATCH", "revision/applied", {"state": "save", "auto-prompt": {"ays": "ays_yes"}})
    return ""


def detect_nvue_api(conn: NvueClient) -> tuple[str, str]:
    """(dialect, release) from GET /system's `build` [NVUE API guide]."""
    build = str(conn.request("GET", "system").get("build", ""))
    release = cumulus_release(f'"build": "{build}"')
    if release is None:
        raise RuntimeError(f"NVUE's /system names no Cumulus Linux release ({build!r})")
    return cumulus_dialect(release), release


@dataclass(frozen=True)
class ApiTransport:
    """A platform's HTTP API as the module drives it instead of the SSH CLI: a client with
    send_command/disconnect, the push, and the save."""

    name: str  # as messages name it
    connect: Callable[[Mapping[str, Any]], Any]
    push: Callable[[Any, Sequence[str], Mapping[str, Any]], str | None]
    save: Callable[[Any], str]
    # an API whose apply waits for a confirmation: confirmed once the re-read shows nothing
    # left, rolled back when it does not
    confirm: Callable[[Any], None] | None = None
    rollback: Callable[[Any], None] | None = None
    # a platform of several dialects: which the switch speaks, read through the API; the
    # dialect the API is for
    detect: Callable[[Any], tuple[str, str]] | None = None
    dialect: str | None = None


# ---- interface counters -----------------------------------------------------------------

# The command that prints every interface's counters, per platform that has a structured
# form of them: EOS's `show interfaces | json` carries `interfaceCounters` (inOctets,
# inUcastPkts, inMulticastPkts, inBroadcastPkts and their out* twins), the keys napalm's
# get_interfaces_counters reads (napalm, napalm/eos/eos.py).
COUNTER_COMMANDS: dict[str, str] = {"arista_eos": "show interfaces | json"}


def interface_counters(output: str, names: Sequence[str]) -> dict[str, dict[str, int]]:
    """Packets and octets in and out of each named interface, from the answer of a
    COUNTER_COMMANDS command (the JSON document of EOS's `show interfaces`, the one
    platform there; switch_command refuses the others before it opens a session).
    ValueError names an interface the switch does not have, or an answer that is not
    that JSON."""
    try:
        interfaces = json.loads(output)["interfaces"]
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"the answer is not its JSON: {exc}") from None
    found = {}
    for name in names:
        if name not in interfaces:
            raise ValueError(f"the switch has no interface {name}")
        counters = interfaces[name].get("interfaceCounters") or {}
        found[name] = {
            f"{way}_{unit}": sum(int(counters.get(f"{way}{key}", 0)) for key in keys)
            for way in ("in", "out")
            for unit, keys in (
                ("packets", ("UcastPkts", "MulticastPkts", "BroadcastPkts")),
                ("octets", ("Octets",)),
            )
        }
    return found


API_TRANSPORTS: dict[str, ApiTransport] = {
    "arista_eos": ApiTransport(
        name="eAPI",
        connect=EapiClient,
        push=push_eos_api,
        save=lambda conn: conn.send_command("write memory"),  # what netmiko's save sends
    ),
    # Cumulus Linux 5.x: NVUE's REST API, each change applied with a confirm window
    "cumulus_linux": ApiTransport(
        name="NVUE's REST API",
        connect=NvueClient,
        push=push_nvue_api,
        save=save_nvue_api,
        confirm=confirm_nvue_api,
        rollback=rollback_nvue_api,
        detect=detect_nvue_api,
        dialect="nvue",
    ),
}


# ---- OS10 breakouts (planned outside hier_config) ------------------------------------------

_OS10_BREAKOUT_LINE = re.compile(r"^interface breakout (\S+) map (\S+)\s*$")


def _os10_breakouts(text: str) -> dict[str, str]:
    """{port: map} of the `interface breakout` lines of an OS10 configuration."""
    found = {}
    for line in text.splitlines():
        match = _OS10_BREAKOUT_LINE.match(line.strip())
        if match:
            found[match.group(1)] = match.group(2)
    return found


def _os10_heads(text: str) -> set[str]:
    return {block[0].strip() for block in _top_level_blocks(text)}


def _drop_blocks(text: str, drop: Callable[[str], bool]) -> str:
    """The configuration without the top-level blocks whose first line `drop` selects."""
    kept = [block for block in _top_level_blocks(text) if not drop(block[0].strip())]
    return "\n".join(line for block in kept for line in block) + ("\n" if kept else "")


def os10_breakout_plan(
    running: str, intended: str, owned_patterns: Sequence[str] = ()
) -> tuple[list[str], str, str]:
    """Breakout commands in the order OS10 takes them, and both texts without breakouts.

    Every QSFP28 port of a factory OS10 switch carries a breakout line with its native
    map, and a port at its native map keeps its name `ethernet1/1/N` (dellemc.os10's 10.4.0E
    fixtures and the S4112F-ON 10.5 captures of grantcurell/projects; inferred for the
    S5232F). So a port whose running config still has that interface is unsplit: it takes a
    new map at once (Omnia applies `map 10g-4x` to factory ports). A split port changes
    map only after `no interface breakout` (Omnia docs), which brings back the native
    map; a port whose intended map is native (the intended text configures
    `ethernet1/1/N` itself) needs nothing more. Sub-ports of a port that is un-split are
    dropped from the running side, so their intended settings are sent again (whether a
    re-map keeps them is unverified). The rest is left to hier_config.
    """
    have, want = _os10_breakouts(running), _os10_breakouts(intended)
    running_heads, intended_heads = _os10_heads(running), _os10_heads(intended)
    patterns = [re.compile(p) for p in owned_patterns]
    owned = set(want) | {
        port
        for port, mode in have.items()
        if any(p.search(f"interface breakout {port} map {mode}") for p in patterns)
    }
    commands: list[str] = []
    unsplit: set[str] = set()
    for port in sorted(owned, key=lambda p: [int(n) for n in re.findall(r"\d+", p)]):
        current, wanted = have.get(port), want.get(port)
        if current == wanted:
            continue
        is_native = f"interface ethernet{port}" in running_heads
        wants_native = wanted is None or f"interface ethernet{port}" in intended_heads
        if not is_native and current is not None:
            commands.append(f"no {BREAKOUT} {port}")
            unsplit.add(port)
        if not wants_native:
            commands.append(f"{BREAKOUT} {port} map {wanted}")

    def breakout_or_unsplit(head: str) -> bool:
        if head.startswith(BREAKOUT + " "):
            return True
        match = re.match(r"^interface ethernet(\S+?)(?::\d+)?$", head)
        return bool(match and match.group(1) in unsplit)

    return (
        commands,
        _drop_blocks(running, breakout_or_unsplit),
        _drop_blocks(intended, lambda head: head.startswith(BREAKOUT + " ")),
    )


# ---- hier_config drivers --------------------------------------------------------------------


@functools.cache
def _os10_driver_class() -> type:
    """Dell OS10 (SmartFabric OS10) on the generic driver's indentation rules."""
    from hier_config.models import MatchRule, NegationSubRule, OrderingRule, PerLineSubRule
    from hier_config.platforms.driver_base import HConfigDriverBase, HConfigDriverRules

    class HConfigDriverDellOS10(HConfigDriverBase):
        @staticmethod
        def _instantiate_rules() -> HConfigDriverRules:
            return HConfigDriverRules(
                per_line_sub=[
                    # `! Version ...`, `! Last configuration change ...` and the `!`
                    # separators between blocks carry no configuration.
                    PerLineSubRule(search=r"^\s*!.*$", replace=""),
                    PerLineSubRule(search=r"^\s*\x07.*$", replace=""),
                ],
                negation_sub=[
                    # A breakout is undone port-wide, whatever its map was.
                    NegationSubRule(
                        match_rules=(MatchRule(startswith=BREAKOUT),),
                        search=r"^(no interface breakout \S+).*$",
                        replace=r"\1",
                    )
                ],
                ordering=[
                    # Un-split and split ports before configuring the sub-ports they make.
                    OrderingRule(
                        match_rules=(MatchRule(startswith=(BREAKOUT, "no " + BREAKOUT)),),
                        weight=-100,
                    ),
                    OrderingRule(
                        match_rules=(MatchRule(startswith="no " + BREAKOUT),),
                        weight=-200,
                    ),
                ],
            )

    return HConfigDriverDellOS10


def _os10_driver() -> Any:
    return _os10_driver_class()()


@functools.cache
def _mlnxos_driver_class() -> type:
    """MLNX-OS: flat commands, shown indented by three spaces under `##` section titles
    [mellanox.onyx]; a setting is undone by `no` after the interface, not before it."""
    from hier_config.models import MatchRule, NegationSubRule, OrderingRule
    from hier_config.platforms.driver_base import HConfigDriverBase, HConfigDriverRules

    split = MatchRule(re_search=r"^interface ib \S+ module-type qsfp-split")
    unsplit = MatchRule(re_search=r"^interface ib \S+ module-type qsfp force")

    class HConfigDriverMLNXOS(HConfigDriverBase):
        @staticmethod
        def _instantiate_rules() -> HConfigDriverRules:
            return HConfigDriverRules(
                # no per-line rules: the platform's normalize (flatten) has already
                # dropped the `##` titles and the indentation
                negation_sub=[
                    # a description (Omnia's `description port N`, an admin's) the
                    # inventory does not give goes the same way: `... no description`
                    NegationSubRule(
                        match_rules=(
                            MatchRule(re_search=r"^interface ib \S+ (shutdown|speed|description)"),
                        ),
                        search=r"^no (interface ib \S+) (shutdown|speed|description)\b.*$",
                        replace=r"\1 no \2",
                    ),
                    # un-split: `module-type qsfp` typed on the first sub-port (the lab
                    # model's form; unverified on a QM8700)
                    NegationSubRule(
                        match_rules=(split,),
                        search=r"^no interface ib (\S+) module-type \S+( force)?$",
                        replace=r"interface ib \1/1 module-type qsfp force",
                    ),
                ],
                ordering=[
                    # split before the sub-ports are set, un-split after they are cleared
                    OrderingRule(match_rules=(split,), weight=-100),
                    OrderingRule(match_rules=(unsplit,), weight=100),
                ],
            )

    return HConfigDriverMLNXOS


def _mlnxos_driver() -> Any:
    return _mlnxos_driver_class()()


def _eos_driver() -> Any:
    from hier_config import Platform, get_hconfig_driver

    return get_hconfig_driver(Platform.ARISTA_EOS)


# ---- the platform table ---------------------------------------------------------------------


@dataclass(frozen=True)
class Dialect:
    """One configuration language of a platform whose releases speak different ones
    (Cumulus Linux: NCLU on 4.x, NVUE on 5.x): the fields of SwitchPlatform it decides."""

    show_running: str
    push: Callable[[Any, Sequence[str], Mapping[str, Any]], str | None]
    template: str
    normalize: Callable[[str], str] | None
    remediate: Callable[[str, str, Sequence[str]], list[str]] | None
    save: Callable[[Any], str] | None
    error_pattern: str
    refusal_hint: str

    def settings(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class SwitchPlatform:
    """How the module and the role drive one switch operating system."""

    device_type: str  # netmiko device type
    show_running: str  # prints the running configuration
    push: Callable[[Any, Sequence[str], Mapping[str, Any]], str | None]  # returns a diff or None
    driver: Callable[[], Any] | None  # hier_config driver; None where `remediate` replaces it
    template: str  # the role's templates/<name>, the intended configuration
    mtu_range: tuple[int, int]  # interface MTU the CLI accepts
    variables: str  # prefix of the switches role's variables for this platform only
    # remediation lines never sent: the device refuses them and another command covers them
    never_sent: tuple[str, ...] = ()
    # commands planned before hier_config sees the rest: (running, intended, owned) ->
    # (commands, running rest, intended rest); OS10 breakouts
    plan_first: Callable[[str, str, Sequence[str]], tuple[list[str], str, str]] | None = None
    # remediation in the driver's ordering weights (flat platforms whose commands depend
    # on each other, such as a split before its sub-ports)
    ordered: bool = False
    # configurations shown in another form than one command per line (MLNX-OS's `##`
    # titles, Cumulus NCLU's folded port ranges): made one command per line first
    normalize: Callable[[str], str] | None = None
    # the whole remediation, where hier_config's section model does not fit (NCLU's
    # `net add` lines: a line is added, or deleted with `net del`)
    remediate: Callable[[str, str, Sequence[str]], list[str]] | None = None
    # whether the CLI has a privileged mode that `enable` enters (Cumulus has sudo)
    enable_mode: bool = True
    # saving after a push: None is netmiko's save_config(); a callable does it itself
    save: Callable[[Any], str] | None = None
    # what a refused `show` of the running configuration most likely means
    refusal_hint: str = " (a user who lands at `>` needs `enable`)"
    # how the CLI marks a refused command
    error_pattern: str = ERROR_PATTERN
    # a platform whose releases speak different CLIs: each dialect by name, the name of the
    # one the fields above describe (the module's `intended` is written in it), and how a
    # connected switch tells which it speaks: detect(conn) -> (dialect, release)
    dialects: Mapping[str, Dialect] = field(default_factory=dict)
    dialect: str | None = None
    detect: Callable[[Any], tuple[str, str]] | None = None
    # the end of the prompt a login lands at, which netmiko's first read waits for; None
    # keeps netmiko's driver as it is
    login_prompt: str | None = None

    def speaking(self, dialect: str | None) -> SwitchPlatform:
        """The entry with `dialect`'s fields (itself for None or its own dialect)."""
        if dialect is None or dialect == self.dialect:
            return self
        if dialect not in self.dialects:
            raise ValueError(
                f"unknown dialect {dialect!r}; this platform speaks: "
                + (", ".join(self.dialects) or "one CLI only")
            )
        return replace(self, dialect=dialect, **self.dialects[dialect].settings())


# Cumulus Linux 4.x: `net add` lines staged, `net commit` writes the files, so a commit is
# also the save [4.2 NCLU guide].
CUMULUS_NCLU = Dialect(
    show_running="net show configuration commands",
    push=push_nclu,
    template="cumulus_linux.cfg.j2",
    normalize=nclu_lines,
    remediate=nclu_remediation,
    save=lambda conn: "",
    error_pattern=NCLU_ERROR_PATTERN,
    refusal_hint=" (NCLU's `net` needs show rights: the netshow or netedit group, /etc/netd.conf)",
)
# Cumulus Linux 5.x: `nv set|unset` into a pending revision, `nv config apply`, `nv config
# save` [NVUE CLI guide, NVUE reference]. The running configuration is the applied revision
# as commands.
CUMULUS_NVUE = Dialect(
    show_running="nv config show -o commands",
    push=push_nvue,
    template="cumulus_linux.nvue.cfg.j2",
    normalize=nvue_lines,
    remediate=nvue_remediation,
    save=save_nvue,
    error_pattern=NVUE_ERROR_PATTERN,
    refusal_hint=" (NVUE's `nv` needs the nvshow group or an NVUE role such as nvue-monitor)",
)

PLATFORMS: dict[str, SwitchPlatform] = {
    "dell_os10": SwitchPlatform(
        device_type="dell_os10",
        show_running="show running-configuration",
        push=push_os10,
        driver=_os10_driver,
        template="dell_os10.cfg.j2",
        # Intel's OS10 driver's frame size limits (intel/mfd-switchmanagement, dell_os10
        # base.py); the S5232F's own range and error text are unverified.
        mtu_range=(1312, 9216),
        variables="switches_os10_",
        # Physical ports cannot be deleted on OS10; un-splitting a breakout removes its
        # sub-ports, so their negation is never sent.
        never_sent=("no interface ethernet",),
        plan_first=os10_breakout_plan,
    ),
    "arista_eos": SwitchPlatform(
        device_type="arista_eos",
        show_running="show running-config",
        push=push_eos,
        driver=_eos_driver,
        template="arista_eos.cfg.j2",
        # Unverified: real 7060CX2 configs (github Cray-HPE/docs-csm; the ta367 snapshot of
        # arista-netdevops-community/automation_and_telemetry_demo) show `mtu 9214` as the
        # largest value; the lower bound is EOS's IPv4 minimum.
        mtu_range=(68, 9214),
        variables="switches_eos_",
    ),
    "mellanox_mlnxos": SwitchPlatform(
        device_type="mellanox_mlnxos",
        show_running="show running-config",
        push=push_mlnxos,
        driver=_mlnxos_driver,
        template="mellanox_mlnxos.cfg.j2",
        # InfiniBand ports have no MTU setting in the CLI (neither the MLNX-OS manual nor a
        # public capture shows one): the IB MTU is 4096 (`MTU : 4096` [QM8700 capture]), and
        # the data network's Ethernet MTU does not apply.
        mtu_range=(4096, 4096),
        variables="switches_mlnxos_",
        ordered=True,
        normalize=lambda text: flatten(text),
        error_pattern=MLNXOS_ERROR_PATTERN,
        # MLNX-OS lands at `<host> [standalone: master] >` (or `#`): netmiko's MLNX-OS
        # driver keeps the generic first read, two quiet seconds on every session
        login_prompt=r"[>#]\s*$",
    ),
    # Cumulus Linux on the SN3700: NCLU on 4.x (the DGX A100 paper's 4.2.1, NCLU 1.0), NVUE on
    # 5.x; the module reads the release when it connects and speaks that release's CLI. Neither
    # needs sudo for a user with edit rights (NCLU: netedit [4.2 NCLU guide]; NVUE:
    # nvset/nvapply [5.10 user accounts]).
    "cumulus_linux": SwitchPlatform(
        device_type="cumulus_linux",
        driver=None,  # `net add` / `nv set` lines are compared by their own remediation
        # NCLU `<552-9216>` [4.2 NCLU guide], NVUE `(integer:552 - 9216)` [NVUE CLI guide]
        mtu_range=(552, 9216),
        variables="switches_cumulus_",
        enable_mode=False,
        dialects={"nclu": CUMULUS_NCLU, "nvue": CUMULUS_NVUE},
        dialect="nclu",
        detect=detect_cumulus,
        **CUMULUS_NCLU.settings(),
    ),
}


CONNECTION_ARGUMENT_SPEC["platform"]["choices"] = list(PLATFORMS)

# ---- the port model table (per switch model) ----------------------------------------------


@dataclass(frozen=True)
class PortGroup:
    """Front-panel ports of one kind, numbered `first`..`last`."""

    first: int
    last: int
    media: str  # QSFP28, QSFP100, SFP+
    port: str  # port id as breakouts name it, `{n}` is the number
    interface: str  # interface name(s) of an unsplit port: `{n}`, and `{lane}` for lanes
    lanes: int = 1  # interfaces an unsplit port has (EOS lanes /1../4)
    breakouts: Mapping[str, int] = field(default_factory=dict)  # map -> sub-ports it creates
    subport: str = ""  # sub-port name after a breakout: `{n}`, `{sub}`
    native: str = ""  # the map that keeps the port's own name (no sub-ports)
    first_sub: int = 1  # number of the first sub-port (Cumulus counts from 0: swp1s0)

    @property
    def numbers(self) -> range:
        return range(self.first, self.last + 1)

    def interfaces(self, n: int, mode: str | None = None) -> list[str]:
        """Interface names of port `n` at breakout map `mode` (None: unsplit)."""
        if mode is None or mode == self.native or mode not in self.breakouts:
            return [self.interface.format(n=n, lane=lane) for lane in range(1, self.lanes + 1)]
        subs = range(self.first_sub, self.first_sub + self.breakouts[mode])
        return [self.subport.format(n=n, sub=sub) for sub in subs]


@dataclass(frozen=True)
class PortModel:
    """The ports of one switch model and the platform it runs."""

    platform: str
    groups: tuple[PortGroup, ...]


# Breakout maps of a QSFP28 port on OS10 and the sub-ports each creates (dellemc.os10's
# os10_interface role, Omnia's ethernet_sseries_input.yml). The native map (100g-1x on a
# QSFP28 port) keeps the name ethernet1/1/N; any other map, 40g-1x included, names its
# sub-ports `:1`..`:k` (an S4112F-ON 10.5.0.2 capture in grantcurell/projects;
# pastebin.com/13V2tpBX).
OS10_QSFP28_BREAKOUTS = {"100g-1x": 1, "40g-1x": 1, "50g-2x": 2, "25g-4x": 4, "10g-4x": 4}

MODELS: dict[str, PortModel] = {
    # Dell S5232F-ON, OS10 10.4.3E: 32 QSFP28 ports that break out, two 10G SFP+ ports
    # (1/1/33-34, no breakout: Omnia's S5232F input lists them without a fanout).
    "S5232F-ON": PortModel(
        platform="dell_os10",
        groups=(
            PortGroup(
                1,
                32,
                "QSFP28",
                port="1/1/{n}",
                interface="ethernet1/1/{n}",
                breakouts=OS10_QSFP28_BREAKOUTS,
                subport="ethernet1/1/{n}:{sub}",
                native="100g-1x",
            ),
            PortGroup(33, 34, "SFP+", port="1/1/{n}", interface="ethernet1/1/{n}"),
        ),
    ),
    # Arista 7060CX2-32S: 32 QSFP100 ports whose lanes are the interfaces EthernetN/1-4
    # (no breakout command: the lane speed decides), SFP+ ports 33-34. That the SFP+
    # ports are named Ethernet33/Ethernet34 (no lane) is unverified (the public sources
    # lab/simulators/switch_sim/eos_model.py lists give only "SFP+ 33-34"); the lab's
    # simulator names them so.
    "7060CX2-32S": PortModel(
        platform="arista_eos",
        groups=(
            PortGroup(1, 32, "QSFP100", port="{n}", interface="Ethernet{n}/{lane}", lanes=4),
            PortGroup(33, 34, "SFP+", port="{n}", interface="Ethernet{n}"),
        ),
    ),
    # NVIDIA SN3700 on Cumulus Linux 4.x: 32 QSFP56 200G ports swp1-swp32, each breaking
    # out into 2 or 4 sub-ports swpNs0..; no adjacent port is disabled on the SN3700
    # [5.10 port attributes]. The maps are written as `net show configuration commands`
    # prints them on the lab's model; which lower speeds each map takes is unverified.
    "SN3700": PortModel(
        platform="cumulus_linux",
        groups=(
            PortGroup(
                1,
                32,
                "QSFP56",
                port="swp{n}",
                interface="swp{n}",
                breakouts={"2x100G": 2, "4x50G": 4, "4x25G": 4, "4x10G": 4},
                subport="swp{n}s{sub}",
                first_sub=0,
            ),
        ),
    ),
    # NVIDIA Mellanox QM8700, MLNX-OS 3.9: 40 HDR QSFP56 ports 1/1-1/40; a port splits into
    # two HDR100 ports 1/N/1-1/N/2 (40 ports: a 3rd-party sizing table; the split: MLNX-OS
    # manual, QM8700 capture).
    "QM8700": PortModel(
        platform="mellanox_mlnxos",
        groups=(
            PortGroup(
                1,
                40,
                "QSFP56",
                port="1/{n}",
                interface="1/{n}",
                breakouts={"qsfp-split-2": 2},
                subport="1/{n}/{sub}",
            ),
        ),
    ),
}


def get_platform(name: str, dialect: str | None = None) -> SwitchPlatform:
    """The table entry of a platform (speaking `dialect` where given), or a ValueError
    naming the supported ones."""
    try:
        entry = PLATFORMS[name]
    except KeyError:
        raise ValueError(
            f"unsupported platform {name!r}; supported: {', '.join(PLATFORMS)}"
        ) from None
    return entry.speaking(dialect)


def get_model(name: str) -> PortModel:
    """The port model of a switch model, or a ValueError naming the known ones."""
    try:
        return MODELS[name]
    except KeyError:
        raise ValueError(f"unknown switch model {name!r}; known: {', '.join(MODELS)}") from None


def driver_for(name: str) -> Any:
    """The hier_config driver of a platform (a ValueError for one that compares its own way)."""
    driver = get_platform(name).driver
    if driver is None:
        raise ValueError(f"platform {name!r} has no hier_config driver: it has its own remediation")
    return driver()


def _top_level_blocks(text: str) -> list[list[str]]:
    """Split a configuration into top-level blocks (a line and its indented children)."""
    blocks: list[list[str]] = []
    for line in text.splitlines():
        stripped = line.rstrip()
        if not stripped.strip() or stripped.lstrip().startswith("!") or stripped == "end":
            continue
        if stripped[0] not in " \t" or not blocks:
            blocks.append([stripped])
        else:
            blocks[-1].append(stripped)
    return blocks


def flatten(text: str) -> str:
    """One command per line, without `##` comment lines and indentation (MLNX-OS)."""
    lines = [line.strip() for line in text.splitlines()]
    return "".join(f"{line}\n" for line in lines if line and not line.startswith("#"))


def owned_running(running: str, intended: str, owned_patterns: Sequence[str] = ()) -> str:
    """The running configuration restricted to the sections the intended text owns.

    A top-level block is owned when its first line also starts a block of the intended
    configuration, or matches one of `owned_patterns` (regular expressions, for sections
    the role owns but the intended config no longer has, e.g. a breakout to remove).
    """
    intended_heads = {block[0].strip() for block in _top_level_blocks(intended)}
    patterns = [re.compile(p) for p in owned_patterns]
    kept = [
        block
        for block in _top_level_blocks(running)
        if block[0].strip() in intended_heads or any(p.search(block[0]) for p in patterns)
    ]
    return "\n".join(line for block in kept for line in block) + ("\n" if kept else "")


def remediation(
    platform: str,
    running: str,
    intended: str,
    owned_patterns: Sequence[str] = (),
    dialect: str | None = None,
) -> list[str]:
    """Commands, in order, that bring the owned part of `running` to `intended`.

    Sections are entered by their own line and left with `exit`, so a command never
    depends on which mode the previous section left the session in.
    """
    from hier_config import WorkflowRemediation, get_hconfig

    entry = get_platform(platform, dialect)
    if entry.normalize is not None:
        running, intended = entry.normalize(running), entry.normalize(intended)
    if entry.remediate is not None:
        return entry.remediate(running, intended, owned_patterns)
    first: list[str] = []
    if entry.plan_first is not None:
        first, running, intended = entry.plan_first(running, intended, owned_patterns)
    current = get_hconfig(entry.driver(), owned_running(running, intended, owned_patterns))
    wanted = get_hconfig(entry.driver(), intended)
    config = WorkflowRemediation(current, wanted).remediation_config
    commands: list[str] = []

    def walk(children: Iterable) -> None:
        if entry.ordered:
            children = sorted(children, key=lambda child: child.order_weight)
        for child in children:
            commands.append(child.text)
            if child.children:
                walk(child.children)
                commands.append("exit")

    walk(config.children)
    return first + [
        c for c in commands if not (entry.never_sent and c.startswith(entry.never_sent))
    ]


def owned_text(
    running: str,
    intended: str,
    owned_patterns: Sequence[str] = (),
    platform: str | None = None,
    dialect: str | None = None,
) -> str:
    """The owned sections as text, for diff output."""
    normalize = get_platform(platform, dialect).normalize if platform is not None else None
    if normalize is not None:
        running, intended = normalize(running), normalize(intended)
    return owned_running(running, intended, owned_patterns)
