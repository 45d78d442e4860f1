"""SNMP on MLNX-OS 3.9 (QM8700): the agent, its notifications, communities and trap hosts.

The lines modelled are the ones NVIDIA/Dell's Omnia sends to a QM8700 (`snmp-server
enable`, `snmp-server enable notify`, `snmp-server community <name> ro`, `snmp-server
host <ip> traps version 1 <name>` [Omnia]) and the one UFM's SNMP plugin sends
(`snmp-server host <ip> traps` [UFM]), with the `no` forms mellanox.onyx sends to the same
CLI [onyx_snmp, onyx_snmp_hosts]. All are Config mode commands that apply at once, as
the rest of the model (mlnxos.py).

- `snmp-server enable` / `no snmp-server enable`: the agent. On out of the box
  (**unverified**: no source gives the default).
- `snmp-server enable notify` / `no snmp-server enable notify`: sending notifications.
  On out of the box: mellanox.onyx reads it as on unless running-config holds `no
  snmp-server enable notify` [onyx_snmp].
- `snmp-server community <name> [ro|rw]` / `no snmp-server community <name>`; without
  `ro`/`rw` the community is read-only (inferred: onyx_snmp sends the bare form for a
  community it then looks for among the read-only ones) [onyx_snmp].
- `snmp-server host <host> traps|informs [port <n>] [version 1|2c] [<community>]` /
  `no snmp-server host <host>` [onyx_snmp_hosts]. The community last, after the
  version or right after `traps`, as Omnia and UFM send it and as another CLI of the same
  style documents it (`snmp-server host 10.0.0.2 traps version 1 private` [Trellix]).
  Setting a host again replaces its settings (unverified).

Not modelled (refused as an unknown word): SNMPv3 (`version 3 user ... auth ...`), `snmp-server
host <host> disable`, the other `snmp-server` settings (location, contact, notify port /
community / event, set-permission), host names in place of addresses; `show snmp` and
`show snmp host` are not modelled either. How running-config lists these lines
(section title, order, `ro` written out) is unverified; the `no` lines for what is on by
default follow [onyx_snmp].

Sources (named in brackets):
- Omnia: github dell/omnia, the infiniband switch role, network/roles/infiniband/tasks/
  snmp_config.yml;
- UFM: github Mellanox/ufm_sdk_3.0, the SNMP plugin's switch registration;
- onyx_snmp, onyx_snmp_hosts: github ansible-collections/mellanox.onyx,
  plugins/modules/onyx_snmp.py and onyx_snmp_hosts.py (commands they send, what they read
  back from running-config);
- Trellix: docs.trellix.com "snmp-server host" (a CLI of the same style).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from typing import Any

from . import cli
from .cli import ARG, END, KeywordErrors

# `snmp-server ...`; Config mode also takes each under `no`
GRAMMAR: dict[str, Any] = {
    "snmp-server": {
        "enable": {END: True, "notify": {END: True}},
        "community": {ARG: True},
        "host": {ARG: True},
    }
}
SINK_TYPES = ("traps", "informs")
VERSIONS = ("1", "2c")  # version 3 needs users and keys, which are not modelled


def factory() -> dict[str, Any]:
    """SNMP out of the box: agent and notifications on, no community, no host."""
    return {"enabled": True, "notify": True, "communities": {}, "hosts": {}}


def configure(
    snmp: dict[str, Any], path: tuple[str, ...], args: list[str], errors: KeywordErrors
) -> None:
    """Apply one `[no] snmp-server ...` line (its keywords `path`, the rest `args`) to
    `snmp`; every value is checked before anything changes."""
    negate = path[0] == "no"
    what = path[2:] if negate else path[1:]
    handlers: dict[tuple[str, ...], Callable[[], None]] = {
        ("enable",): lambda: snmp.update(enabled=not negate),
        ("enable", "notify"): lambda: snmp.update(notify=not negate),
        ("community",): lambda: _community(snmp["communities"], args, negate, errors),
        ("host",): lambda: _host(snmp["hosts"], args, negate, errors),
    }
    handlers[what]()


def _community(
    communities: dict[str, str], args: list[str], negate: bool, errors: KeywordErrors
) -> None:
    """`community <name> [ro|rw]` sets it, `no community <name>` removes it (removing one
    that does not exist is accepted silently: unverified)."""
    if len(args) > (1 if negate else 2):
        raise errors.unknown(args[1 if negate else 2])
    if negate:
        communities.pop(args[0], None)
        return
    communities[args[0]] = cli.keyword(args[1], ("ro", "rw"), errors) if len(args) > 1 else "ro"


def _host(
    hosts: dict[str, dict[str, str]], args: list[str], negate: bool, errors: KeywordErrors
) -> None:
    """`host <address> traps|informs ...` sets a notification sink, `no host <address>`
    removes it."""
    address = _address(args[0], errors)
    if negate:
        if len(args) > 1:
            raise errors.unknown(args[1])
        hosts.pop(address, None)
        return
    hosts[address] = _sink(args[1:], errors)


def _address(word: str, errors: KeywordErrors) -> str:
    """An IPv4 or IPv6 address, as written by the device (compressed IPv6)."""
    try:
        return str(ipaddress.ip_address(word))
    except ValueError:
        raise errors.unknown(word) from None


def _sink(args: list[str], errors: KeywordErrors) -> dict[str, str]:
    """`traps|informs [port <n>] [version 1|2c] [<community>]`, in that order."""
    if not args:
        raise errors.incomplete()
    sink = {"type": cli.keyword(args[0], SINK_TYPES, errors)}
    rest = args[1:]
    checks = {
        "port": lambda word: _udp_port(word, errors),
        "version": lambda word: cli.keyword(word, VERSIONS, errors),
    }
    for option, check in checks.items():
        if rest[:1] == [option]:
            if len(rest) < 2:
                raise errors.incomplete()
            sink[option] = check(rest[1])
            rest = rest[2:]
    if len(rest) > 1:
        raise errors.unknown(rest[1])
    if rest:
        sink["community"] = rest[0]
    return sink


def _udp_port(word: str, errors: KeywordErrors) -> str:
    """A UDP port, 1 to 65535 (a bad one named as an unknown word: unverified)."""
    if not word.isdigit() or not 0 < int(word) < 65536:
        raise errors.unknown(word)
    return str(int(word))


def render(snmp: dict[str, Any]) -> list[str]:
    """The running-config lines of what differs from the factory, indented 3 spaces."""
    lines = [] if snmp["enabled"] else ["no snmp-server enable"]
    lines += [] if snmp["notify"] else ["no snmp-server enable notify"]
    lines += [
        f"snmp-server community {n} {kind}" for n, kind in sorted(snmp["communities"].items())
    ]
    for address, sink in sorted(snmp["hosts"].items()):
        words = [sink["type"]]
        words += [f"port {sink['port']}"] if "port" in sink else []
        words += [f"version {sink['version']}"] if "version" in sink else []
        words += [sink["community"]] if "community" in sink else []
        lines.append(f"snmp-server host {address} {' '.join(words)}")
    return [f"   {line}" for line in lines]
