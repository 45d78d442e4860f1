"""Switch port names for the switch roles: OS10 port ranges, breakouts and their sub-ports.

Pure functions so that the rendered configurations and the checks are unit-tested.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

try:
    from ansible.errors import AnsibleFilterError
except ImportError:  # pragma: no cover - usable without Ansible too
    AnsibleFilterError = ValueError  # type: ignore[misc,assignment]

# S5232F-ON: 32 QSFP28 100G ports that break out; 33-34 are 10G SFP+ ports.
OS10_BREAKOUT_PORTS = range(1, 33)
# Breakout maps of a 100G QSFP28 port and the sub-ports each creates.
OS10_BREAKOUT_MODES = {"100g-1x": 1, "40g-1x": 1, "50g-2x": 2, "25g-4x": 4, "10g-4x": 4}
_RANGE = re.compile(r"^(\d+)/(\d+)/(\d+)(?:-(\d+))?$")


def os10_ports(spec: str | Iterable[str]) -> list[str]:
    """Expand `1/1/21-32` (or a list of such items) into 1/1/21 ... 1/1/32, in order."""
    items = [spec] if isinstance(spec, str) else list(spec)
    ports: list[str] = []
    for item in items:
        for part in str(item).split(","):
            match = _RANGE.match(part.strip())
            if not match:
                raise AnsibleFilterError(f"{part!r} is not an OS10 port or range like 1/1/21-32")
            node, slot, first, last = match.groups()
            last = last or first
            if int(last) < int(first):
                raise AnsibleFilterError(f"{part!r}: range runs backwards")
            ports.extend(f"{node}/{slot}/{n}" for n in range(int(first), int(last) + 1))
    return ports


def os10_breakout_problems(breakouts: Sequence[Mapping[str, Any]]) -> list[str]:
    """What is wrong with switch_os10_breakouts: bad ranges, modes, ports listed twice."""
    problems: list[str] = []
    seen: dict[str, int] = {}
    for index, entry in enumerate(breakouts):
        mode = entry.get("mode")
        if mode not in OS10_BREAKOUT_MODES:
            problems.append(
                f"switch_os10_breakouts[{index}]: mode {mode!r} is not one of "
                f"{', '.join(OS10_BREAKOUT_MODES)}"
            )
        try:
            ports = os10_ports(entry.get("ports", ""))
        except AnsibleFilterError as exc:
            problems.append(f"switch_os10_breakouts[{index}]: {exc}")
            continue
        for port in ports:
            number = int(port.rsplit("/", 1)[1])
            if number not in OS10_BREAKOUT_PORTS:
                problems.append(
                    f"switch_os10_breakouts[{index}]: port {port} cannot break out "
                    "(S5232F-ON ports 1-32 are QSFP28; 33-34 are 10G SFP+)"
                )
            if port in seen:
                problems.append(
                    f"switch_os10_breakouts[{index}]: port {port} is also in entry {seen[port]}"
                )
            seen[port] = index
    return problems


def os10_breakout_plan(breakouts: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One entry per port: {port, mode, subports: [ethernet1/1/N:1, ...]}, ports in order."""
    problems = os10_breakout_problems(breakouts)
    if problems:
        raise AnsibleFilterError("; ".join(problems))
    plan = []
    for entry in breakouts:
        for port in os10_ports(entry["ports"]):
            count = OS10_BREAKOUT_MODES[entry["mode"]]
            plan.append(
                {
                    "port": port,
                    "mode": entry["mode"],
                    "subports": [f"ethernet{port}:{n}" for n in range(1, count + 1)],
                }
            )
    return sorted(plan, key=lambda p: [int(n) for n in p["port"].split("/")])


def os10_owned_breakout_patterns(ports: Iterable[str]) -> list[str]:
    """Regexes for the running-config lines of these ports' breakouts and sub-ports.

    Owning them means a breakout or sub-port setting the inventory drops is removed;
    ports outside the list are never touched.
    """
    patterns = []
    for port in ports:
        escaped = re.escape(port)
        patterns.append(rf"^interface breakout {escaped} ")
        patterns.append(rf"^interface ethernet{escaped}:\d+$")
    return patterns


def sort_eos_interfaces(names: Iterable[str]) -> list[str]:
    """EOS interface names in the order EOS prints them (Ethernet2/1 before Ethernet10/1)."""

    def key(name: str) -> tuple[str, list[int]]:
        match = re.match(r"^([A-Za-z-]+)([\d/]*)$", name)
        if not match:
            return (name, [])
        kind, numbers = match.groups()
        return (kind, [int(n) for n in numbers.split("/") if n])

    return sorted(names, key=key)


class FilterModule:
    """Switch port helpers."""

    def filters(self) -> dict[str, Any]:
        return {
            "os10_ports": os10_ports,
            "os10_breakout_problems": os10_breakout_problems,
            "os10_breakout_plan": os10_breakout_plan,
            "os10_owned_breakout_patterns": os10_owned_breakout_patterns,
            "sort_eos_interfaces": sort_eos_interfaces,
        }
