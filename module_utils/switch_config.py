"""Remediation of switch configurations with hier_config, shared by the switch_config module.

The role renders the intended configuration of the sections it owns; this code reads the
running configuration, keeps only the sections the intended text owns (plus any the
caller names by pattern), and computes the commands that turn one into the other.
Dell OS10 has no hier_config platform: its driver below builds on the generic one with
OS10's `!` separators dropped, `no interface breakout 1/1/X` as the negation of a
breakout, and breakouts ordered before the interface blocks they create.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

try:
    from hier_config import Platform, WorkflowRemediation, get_hconfig, get_hconfig_driver
    from hier_config.models import MatchRule, NegationSubRule, OrderingRule, PerLineSubRule
    from hier_config.platforms.driver_base import HConfigDriverBase, HConfigDriverRules

    HAS_HIER_CONFIG = True
    HIER_CONFIG_IMPORT_ERROR = None
except ImportError as exc:  # reported by the module with missing_required_lib
    HAS_HIER_CONFIG = False
    HIER_CONFIG_IMPORT_ERROR = exc
    HConfigDriverBase = object  # type: ignore[assignment,misc]

PLATFORMS = ("dell_os10", "arista_eos")
BREAKOUT = "interface breakout"


if HAS_HIER_CONFIG:

    class HConfigDriverDellOS10(HConfigDriverBase):
        """Dell OS10 (SmartFabric OS10) on the generic driver's indentation rules."""

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


def driver_for(platform: str):
    """The hier_config driver of a netmiko device type."""
    if platform == "dell_os10":
        return HConfigDriverDellOS10()
    if platform == "arista_eos":
        return get_hconfig_driver(Platform.ARISTA_EOS)
    raise ValueError(f"unsupported platform {platform!r}; supported: {', '.join(PLATFORMS)}")


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
    platform: str, running: str, intended: str, owned_patterns: Sequence[str] = ()
) -> list[str]:
    """Commands, in order, that bring the owned part of `running` to `intended`.

    Sections are entered by their own line and left with `exit`, so a command never
    depends on which mode the previous section left the session in.
    """
    driver = driver_for(platform)
    current = get_hconfig(driver, owned_running(running, intended, owned_patterns))
    wanted = get_hconfig(driver_for(platform), intended)
    config = WorkflowRemediation(current, wanted).remediation_config
    commands: list[str] = []

    def walk(children: Iterable) -> None:
        for child in children:
            commands.append(child.text)
            if child.children:
                walk(child.children)
                commands.append("exit")

    walk(config.children)
    if platform == "dell_os10":
        # Physical ports cannot be deleted on OS10; un-splitting a breakout removes its
        # sub-ports, so their negation is never sent.
        commands = [c for c in commands if not c.startswith("no interface ethernet")]
    return commands


def owned_text(running: str, intended: str, owned_patterns: Sequence[str] = ()) -> str:
    """The owned sections as text, for diff output."""
    return owned_running(running, intended, owned_patterns)
