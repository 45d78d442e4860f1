"""Switch ports for the switches role: port ranges, breakouts, interface plans, input checks.

Every fact about a switch model's ports (which exist, which break out and into what) and
about a platform (MTU range, template) comes from the tables in
module_utils/switch_config.py, so a new model or platform needs no change here. The
functions are pure, so the rendered configurations and the checks are unit-tested
without a switch; templates only print what they return.
"""

from __future__ import annotations

import importlib.util
import ipaddress
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

try:
    from ansible.errors import AnsibleFilterError
except ImportError:  # pragma: no cover - usable without Ansible too
    AnsibleFilterError = ValueError  # type: ignore[misc,assignment]


def _load_tables() -> Any:
    """module_utils/switch_config.py, the one home of the platform and port model tables.

    Loaded by path: on the control host module_utils is not importable as a package.
    """
    name = "_dlcluster_switch_config"
    if name not in sys.modules:
        path = Path(__file__).resolve().parents[1] / "module_utils" / "switch_config.py"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


TABLES = _load_tables()
PLATFORMS = TABLES.PLATFORMS
MODELS = TABLES.MODELS

_RANGE = re.compile(r"^(?P<prefix>(?:swp)?(?:\d+/)*)(?P<first>\d+)(?:-(?P<last>\d+))?$")
EOS_SPEEDS = {
    # `speed forced ...` (older EOS, the 7060CX2's 4.20) and `speed ...` (newer); which
    # releases print which form is unverified (a real 4.23.0F config in Cray-HPE/docs-csm
    # prints `speed forced 100gfull`; aristanetworks/avd PR #5692 and issue #5632 list both).
    "forced": {"100g": "forced 100gfull", "40g": "forced 40gfull",
               "25g": "forced 25gfull", "10g": "forced 10000full"},
    "plain": {"100g": "100g", "40g": "40g", "25g": "25g", "10g": "10g"},
}  # fmt: skip


def _model(name: str) -> Any:
    try:
        return TABLES.get_model(name)
    except ValueError as exc:
        raise AnsibleFilterError(str(exc)) from None


# ---- ports and interfaces of a model ---------------------------------------------------------


def switch_ports(spec: str | Iterable[str]) -> list[str]:
    """Expand `1/1/21-32` (or `31-32`, or a list of such items) into each port, in order."""
    items = [spec] if isinstance(spec, str) else list(spec)
    ports: list[str] = []
    for item in items:
        for part in str(item).split(","):
            match = _RANGE.match(part.strip())
            if not match:
                raise AnsibleFilterError(f"{part!r} is not a port or range like 1/1/21-32")
            first, last = int(match["first"]), int(match["last"] or match["first"])
            if last < first:
                raise AnsibleFilterError(f"{part!r}: range runs backwards")
            ports.extend(f"{match['prefix']}{n}" for n in range(first, last + 1))
    return ports


def _groups_by_port(model: Any) -> dict[str, Any]:
    return {group.port.format(n=n): group for group in model.groups for n in group.numbers}


def _number(port: str) -> int:
    return int(re.findall(r"\d+", port)[-1])


def _breakout_ports_text(model: Any) -> str:
    ranges = [
        group.port.format(n=f"{group.first}-{group.last}")
        for group in model.groups
        if group.breakouts
    ]
    return ", ".join(ranges) or "none"


def model_interfaces(model: str, breakouts: Mapping[str, str] | None = None) -> list[str]:
    """Every interface name of `model` once `breakouts` ({port: map}) are applied."""
    entry = _model(model)
    breakouts = breakouts or {}
    names: list[str] = []
    for group in entry.groups:
        for n in group.numbers:
            names += group.interfaces(n, breakouts.get(group.port.format(n=n)))
    return names


def _interfaces_text(model: Any) -> str:
    """`ethernet1/1/N (N 1-32 unless broken out), ...`: what the model's interfaces look like."""
    parts = []
    for group in model.groups:
        text = group.interface.format(n="N", lane="L") + f" (N {group.first}-{group.last}"
        text += f", L 1-{group.lanes}" if group.lanes > 1 else ""
        text += " unless broken out)" if group.breakouts else ")"
        parts.append(text)
        if group.breakouts:
            maps = [mode for mode in group.breakouts if mode != group.native]
            parts.append(
                group.subport.format(n="N", sub="M") + f" once N is broken out ({', '.join(maps)})"
            )
    return ", ".join(parts)


# ---- breakouts ---------------------------------------------------------------------------


def breakout_problems(
    breakouts: Sequence[Mapping[str, Any]],
    model: str,
    name: str = "switches_os10_breakouts",
) -> list[str]:
    """What is wrong with a breakout list on `model`: bad ranges, maps, ports, overlaps."""
    entry = _model(model)
    groups = _groups_by_port(entry)
    problems: list[str] = []
    seen: dict[str, int] = {}
    for index, item in enumerate(breakouts):
        mode = item.get("mode")
        try:
            ports = switch_ports(item.get("ports", ""))
        except AnsibleFilterError as exc:
            problems.append(f"{name}[{index}]: {exc}")
            continue
        for port in ports:
            group = groups.get(port)
            if group is None or not group.breakouts:
                problems.append(
                    f"{name}[{index}]: port {port} cannot break out on the {model} "
                    f"(ports that can: {_breakout_ports_text(entry)})"
                )
            elif mode not in group.breakouts:
                problems.append(
                    f"{name}[{index}]: mode {mode!r} is not a breakout of {group.media} port "
                    f"{port} on the {model} (one of: {', '.join(group.breakouts)})"
                )
            if port in seen:
                problems.append(f"{name}[{index}]: port {port} is also in entry {seen[port]}")
            seen[port] = index
    return problems


def breakout_map(breakouts: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """{port: map} of a breakout list (ranges expanded)."""
    return {port: item["mode"] for item in breakouts for port in switch_ports(item["ports"])}


def breakout_plan(breakouts: Sequence[Mapping[str, Any]], model: str) -> list[dict[str, Any]]:
    """One entry per port: {port, mode, subports: [ethernet1/1/N:1, ...]}, ports in order.

    A port at its native map keeps its own name, so its one "sub-port" is the port itself
    (ethernet1/1/N for 100g-1x on a QSFP28 port: an S4112F-ON 10.5.0.2 capture in github
    grantcurell/projects).
    """
    problems = breakout_problems(breakouts, model)
    if problems:
        raise AnsibleFilterError("; ".join(problems))
    groups = _groups_by_port(_model(model))
    plan = []
    for port, mode in breakout_map(breakouts).items():
        subports = groups[port].interfaces(_number(port), mode)
        plan.append({"port": port, "mode": mode, "subports": subports})
    return sorted(plan, key=lambda p: [int(n) for n in re.findall(r"\d+", p["port"])])


def os10_owned_breakout_patterns(ports: Iterable[str]) -> list[str]:
    """Regexes for the OS10 running-config lines of these ports' breakouts and sub-ports.

    Owning them means a breakout or sub-port setting the inventory drops is removed;
    ports outside the list are never touched.
    """
    patterns = []
    for port in ports:
        escaped = re.escape(port)
        patterns.append(rf"^interface breakout {escaped} ")
        patterns.append(rf"^interface ethernet{escaped}:\d+$")
    return patterns


# ---- interface plans (what the templates print) --------------------------------------------


def os10_interface_plan(
    breakouts: Sequence[Mapping[str, Any]],
    model: str,
    descriptions: Mapping[str, str] | None = None,
    access_vlan: int = 1,
    port_mtu: int = 0,
) -> list[dict[str, Any]]:
    """The breakout sub-ports' settings, in port order: {name, description, access_vlan, mtu}."""
    descriptions = descriptions or {}
    return [
        {
            "name": subport,
            "description": descriptions.get(subport),
            "access_vlan": int(access_vlan),
            "mtu": int(port_mtu) or None,
        }
        for entry in breakout_plan(breakouts, model)
        for subport in entry["subports"]
    ]


def sort_eos_interfaces(names: Iterable[str]) -> list[str]:
    """EOS interface names in the order EOS prints them (Ethernet2/1 before Ethernet10/1)."""

    def key(name: str) -> tuple[str, list[int]]:
        match = re.match(r"^([A-Za-z-]+)([\d/]*)$", name)
        if not match:
            return (name, [])
        kind, numbers = match.groups()
        return (kind, [int(n) for n in numbers.split("/") if n])

    return sorted(names, key=key)


def eos_interface_plan(
    interfaces: Sequence[Mapping[str, Any]],
    port_channels: Sequence[Mapping[str, Any]] = (),
    speed_syntax: str = "forced",
    port_mtu: int = 0,
) -> list[dict[str, Any]]:
    """Each configured Ethernet interface in EOS order: {name, description, mtu, speed,
    channel_group: {id, mode} or None}. `port_mtu` applies where an interface sets none."""
    if speed_syntax not in EOS_SPEEDS:
        raise AnsibleFilterError(
            f"speed syntax {speed_syntax!r} is not one of: {', '.join(EOS_SPEEDS)}"
        )
    settings = {item["name"]: item for item in interfaces}
    members = {
        member: {"id": int(channel["id"]), "mode": channel.get("mode") or "active"}
        for channel in port_channels
        for member in channel["members"]
    }
    plan = []
    for name in sort_eos_interfaces(set(settings) | set(members)):
        item = settings.get(name, {})
        speed = item.get("speed")
        if speed is not None and str(speed).lower() not in EOS_SPEEDS[speed_syntax]:
            raise AnsibleFilterError(
                f"{name}: speed {speed!r} is not one of: {', '.join(EOS_SPEEDS[speed_syntax])}"
            )
        plan.append(
            {
                "name": name,
                "description": item.get("description"),
                "mtu": item.get("mtu") or int(port_mtu) or None,
                "speed": EOS_SPEEDS[speed_syntax][str(speed).lower()] if speed else None,
                "channel_group": members.get(name),
            }
        )
    return plan


# ---- the platform table, as the role reads it ----------------------------------------------


def switch_platform(name: str) -> dict[str, Any]:
    """The role-facing part of a platform's table entry: template, MTU range, knob prefix."""
    try:
        entry = TABLES.get_platform(name)
    except ValueError as exc:
        raise AnsibleFilterError(str(exc)) from None
    return {
        "template": entry.template,
        "device_type": entry.device_type,
        "mtu_min": entry.mtu_range[0],
        "mtu_max": entry.mtu_range[1],
        "variables": entry.variables,
    }


def switch_dialect_templates(name: str) -> dict[str, str]:
    """{dialect: template} of the platform's other dialects, those the switch_config module
    takes in `intended_by_dialect` (cumulus_linux: {nvue: cumulus_linux.nvue.cfg.j2});
    empty for a platform with one CLI. The platform's own template is switch_platform's."""
    try:
        entry = TABLES.get_platform(name)
    except ValueError as exc:
        raise AnsibleFilterError(str(exc)) from None
    return {
        dialect: spec.template
        for dialect, spec in entry.dialects.items()
        if dialect != entry.dialect
    }


# ---- input checks, before anything connects ------------------------------------------------


def _mtu_problems(host: str, name: str, mtu: Any, platform: str, data_mtu: Any) -> list[str]:
    if mtu in (None, "", 0, "0"):
        return []
    low, high = PLATFORMS[platform].mtu_range
    if low == high:
        return [f"{host}: {name} does not apply to {platform}: its ports have no MTU setting"]
    try:
        value = int(mtu)
    except (TypeError, ValueError):
        return [f"{host}: {name} {mtu!r} is not a whole number ({platform}: {low}-{high})"]
    problems = []
    if not low <= value <= high:
        problems.append(f"{host}: {name} {value} is outside the {platform} range {low}-{high}")
    try:
        wanted = int(data_mtu)
    except (TypeError, ValueError):
        wanted = None
    if wanted is not None and value < wanted:
        problems.append(
            f"{host}: {name} {value} is below cluster_data_mtu {wanted}; frames that size "
            f"would be dropped (allowed: {max(low, wanted)}-{high})"
        )
    return problems


def switch_host_problems(host: str, hostvars: Mapping[str, Any], data_mtu: Any = None) -> list[str]:
    """Every problem with one switch's inputs, each naming host, variable, value, allowed."""
    platform = hostvars.get("switches_platform")
    model_name = hostvars.get("switches_model")
    problems = []
    if platform not in PLATFORMS:
        problems.append(
            f"{host}: switches_platform {platform!r} is not one of: {', '.join(PLATFORMS)}"
        )
    if model_name not in MODELS:
        problems.append(f"{host}: switches_model {model_name!r} is not one of: {', '.join(MODELS)}")
    if problems:
        return problems
    model = MODELS[model_name]
    if model.platform != platform:
        return [
            f"{host}: switches_model {model_name} runs {model.platform}, not switches_platform "
            f"{platform} (models of {platform}: "
            f"{', '.join(m for m, e in MODELS.items() if e.platform == platform) or 'none'})"
        ]

    # Platform knobs are checked only on their platform's hosts (group_vars may give
    # every switch both platforms' knobs). The checks go by the knob's kind, so a new
    # platform's `<prefix>breakouts`, `<prefix>interfaces`... are checked as they are.
    prefix = PLATFORMS[platform].variables
    breakouts = hostvars.get(f"{prefix}breakouts") or []
    found = [f"{host}: {p}" for p in breakout_problems(breakouts, model_name, f"{prefix}breakouts")]
    problems += found
    interfaces = set(model_interfaces(model_name, {} if found else breakout_map(breakouts)))
    allowed = _interfaces_text(model)
    after = " with its breakouts" if any(group.breakouts for group in model.groups) else ""

    def check_name(variable: str, name: Any) -> None:
        if name not in interfaces:
            problems.append(
                f"{host}: {variable}: {name!r} is not an interface of the {model_name}"
                f"{after} (interfaces: {allowed})"
            )

    for name in hostvars.get(f"{prefix}port_descriptions") or {}:
        check_name(f"{prefix}port_descriptions", name)
    for index, item in enumerate(hostvars.get(f"{prefix}interfaces") or []):
        check_name(f"{prefix}interfaces[{index}].name", item.get("name"))
        problems += _mtu_problems(
            host, f"{prefix}interfaces[{index}].mtu", item.get("mtu"), platform, data_mtu
        )
    members: dict[str, Any] = {}
    for index, channel in enumerate(hostvars.get(f"{prefix}port_channels") or []):
        for member in channel.get("members") or []:
            check_name(f"{prefix}port_channels[{index}].members", member)
            if member in members:
                problems.append(
                    f"{host}: {prefix}port_channels[{index}].members: {member} is "
                    f"already in Port-Channel{members[member]}"
                )
            members[member] = channel.get("id")
    inter_switch = hostvars.get("switches_inter_switch_ports") or []
    if inter_switch and platform not in TABLES.COUNTER_COMMANDS:
        problems.append(
            f"{host}: switches_inter_switch_ports: validate reads packet counters on "
            f"{', '.join(TABLES.COUNTER_COMMANDS)} switches only, not {platform}"
        )
    channels = {f"Port-Channel{c.get('id')}" for c in hostvars.get(f"{prefix}port_channels") or []}
    for name in inter_switch if platform in TABLES.COUNTER_COMMANDS else []:
        if name not in channels:
            check_name("switches_inter_switch_ports", name)
    for index, bond in enumerate(hostvars.get(f"{prefix}bonds") or []):
        for member in bond.get("slaves") or []:
            check_name(f"{prefix}bonds[{index}].slaves", member)
    for index, route in enumerate(hostvars.get(f"{prefix}static_routes") or []):
        problems += _route_problems(host, f"{prefix}static_routes[{index}]", route)
    problems += _mtu_problems(
        host, "switches_port_mtu", hostvars.get("switches_port_mtu"), platform, data_mtu
    )
    if hostvars.get("switches_transport") == "api" and platform not in TABLES.API_TRANSPORTS:
        problems.append(
            f"{host}: switches_transport api: {platform} has no API transport here (only "
            f"{', '.join(TABLES.API_TRANSPORTS)}); use cli"
        )
    return problems


def _route_problems(host: str, where: str, route: Mapping[str, Any]) -> list[str]:
    """A static route the switch would refuse (an invalid prefix or next hop), or store
    as another network than meant (host bits set: EOS and OS10 keep the network only)."""
    problems = []
    prefix, hop = str(route.get("prefix", "")), str(route.get("next_hop", ""))
    try:
        network = ipaddress.ip_network(prefix, strict=False)
    except ValueError:
        problems.append(
            f"{host}: {where}.prefix {prefix!r} is not an IPv4/IPv6 prefix (a.b.c.d/0-32)"
        )
    else:
        if str(network) != prefix:
            problems.append(
                f"{host}: {where}.prefix {prefix!r} has host bits set; the switch would "
                f"store {network}"
            )
    try:
        ipaddress.ip_address(hop)
    except ValueError:
        problems.append(f"{host}: {where}.next_hop {hop!r} is not an IP address")
    return problems


def switch_input_problems(
    hosts: Sequence[str], hostvars: Mapping[str, Mapping[str, Any]], data_mtu: Any = None
) -> list[str]:
    """switch_host_problems for every switch of the inventory, in host order."""
    return [p for host in hosts for p in switch_host_problems(host, hostvars[host], data_mtu)]


class FilterModule:
    """Switch port helpers."""

    def filters(self) -> dict[str, Any]:
        return {
            "switch_ports": switch_ports,
            "switch_model_interfaces": model_interfaces,
            "switch_breakout_problems": breakout_problems,
            "switch_breakout_plan": breakout_plan,
            "os10_owned_breakout_patterns": os10_owned_breakout_patterns,
            "os10_interface_plan": os10_interface_plan,
            "eos_interface_plan": eos_interface_plan,
            "sort_eos_interfaces": sort_eos_interfaces,
            "switch_platform": switch_platform,
            "switch_dialect_templates": switch_dialect_templates,
            "switch_host_problems": switch_host_problems,
            "switch_input_problems": switch_input_problems,
        }
