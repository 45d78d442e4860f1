"""NVUE, the `nv` command of Cumulus Linux 5.x: `nv set|unset` into a pending revision,
`nv config diff|apply|save|show|detach`, and the `nv show` views clients read.

Sources: those named in cumulus.py's docstring (NVUE CLI guide, NVUE API guide, 5.10 port
attributes, 5.10 bridge guide, NVUE reference, mgmt VRF guide, generic-switch), and:
- 5.10 user accounts: cumulus-linux-510 "User Accounts";
- NVUE upgrade KB: the Cumulus docs' KB "NVUE Fails to Apply Configuration After Upgrade"
  and the "NVUE Flexible Snippets" page;
- 5.x bond guides: the 5.x "Bonding - Link Aggregation" and "LACP Bypass" pages;
- nv show examples: the `nv show interface` examples of the 5.x guides and of the
  nvue-reference Interface page;
- NVUE transcripts: public 3rd-party transcripts of an NVUE EVPN lab (`applied [rev_id:
  N]`) and of `nv config show -o commands` (`nv set interface vlan10 vlan 10`);
- napalm-cumulus NVUE fork: github david-pili/napalm-cumulus, napalm_cumulus/cumulus.py
  (`nv config apply --confirm <n>s -y`, `nv config apply <rev> --confirm-yes|--confirm-no`,
  a revision waiting for its confirmation in state `confirm`);
- NVUE lab guide: a 3rd-party NVUE training lab (code search `nv config apply
  --confirm-yes`: `--confirm 2m`, `--confirm 300s`, `--confirm-status`, a rollback when the
  time runs out);
- gpncfg, nv-config-manager, nvue_automation: REST clients of NVUE, named in
  cumulus_nvue_api.py's docstring (revision states `confirm`, `confirm_fail`,
  `applied_and_saved`).

The configuration is one tree (interface, bridge, system); `nv set` edits a pending revision,
`nv config apply` checks the whole revision and makes it the applied one, or prints
`Invalid config [rev_id: N]` with one indented `Config invalid at <path>: <reason>` line per
problem and applies nothing [NVUE upgrade KB]. Whether apply persists depends on the
release (see cumulus_model.AUTO_SAVE_FROM). Type and range errors of `nv set` are refused at once;
NVUE's exact wording for them is **unverified**: the lines start with `Error: Invalid
parameter`, a string networking-generic-switch treats as an NVUE failure [generic-switch].

The revisions (Revisions below) are the REST API's too (cumulus_nvue_api.py): one id
counter, and a revision applied one way is the applied configuration the other sees.

Files NVUE manages: `nv config apply` writes /etc/network/interfaces from the revision.
With the default `nv set system config apply overwrite all`, "if you modify a file
locally, you see a warning when you try to apply ... and you can stop the apply before NVUE
overwrites the local modification" (NVUE reference, Set and Unset Commands, `nv set system
config apply overwrite`; NVUE CLI guide): a file written since NVUE last did (`sudo tee
/etc/network/interfaces`, cumulus_ifupdown.py) makes apply ask `Are you sure? [y/N]` like a
switchd reload does, and the REST apply without `ays_yes` ends `ays_fail` [NVUE API
guide]. `overwrite controlled` and `apply ignore <file>` are not modelled. A local edit
applied with `ifreload -a` is in the running configuration the next revision starts from
(on a real switch NVUE's applied revision does not read the file back; only the
operational views see it: a simplification).
"""

from __future__ import annotations

import copy
import ipaddress
import json
import re
import threading
import time
from collections.abc import Callable
from typing import Any

from . import cumulus_ifupdown as ifupdown
from . import cumulus_model as model
from .cumulus_nclu import table

INVALID = "Error: Invalid parameter"  # prefix networking-generic-switch matches
# NVUE's link speed enum [NVUE CLI guide]; which of them a port runs is the model's check at apply
SPEEDS = {
    "10M": 10,
    "100M": 100,
    "1G": 1000,
    "10G": 10000,
    "25G": 25000,
    "40G": 40000,
    "50G": 50000,
    "100G": 100000,
    "200G": 200000,
    "400G": 400000,
    "800G": 800000,
}
BREAKOUTS = {"1x": "1x", "2x": "2x100G", "4x": "4x50G", "disabled": "disabled"}  # 8x: 8-lane ports
BOND_MODES = {"lacp": None, "static": "balance-xor"}  # [5.x bond guides]: static is balance-xor
DOMAIN = "br_default"  # the default bridge domain [5.10 bridge guide]
# An apply that reloads switchd (a breakout change) asks first (3rd-party capture of 5.4:
# docs.netapp.com ONTAP SN2100 cabling page: "switchd need to reload on this config change" /
# "Are you sure? [y/N] y" / "applied [rev_id: 22]"); the answer to a refusal is **unverified**.
RELOAD_WARNING = "switchd need to reload on this config change"
CONFIRM_PROMPT = "Are you sure? [y/N] "
# Before overwriting a locally modified file (wording **unverified**: the NVUE pages above
# describe the warning but show none).
FILES_WARNING = (
    "Warning: The following files have been changed since the last save, and they WILL be"
    f" overwritten.\n        - {ifupdown.INTERFACES}"
)
BOOTED = time.time()


class Invalid(Exception):
    """A refused `nv` line; the message is printed as it is."""


def invalid(reason: str) -> Invalid:
    return Invalid(f"{INVALID}: {reason}")


# ---- the configuration as NVUE's tree ----------------------------------------------------


def to_tree(config: dict[str, Any]) -> dict[str, Any]:
    """The model as NVUE's configuration tree: interface, bridge, system [the 5.x guides above]."""
    interfaces: dict[str, Any] = {}
    for port, mode in config["breakouts"].items():
        key = "disabled" if mode == "disabled" else mode[:2]
        interfaces[f"swp{port}"] = {"link": {"breakout": {key: {}}}, "type": "swp"}
    for name, settings in config["interfaces"].items():
        node = interfaces.setdefault(name, {"type": "swp"})
        if "slaves" in settings:
            node["type"] = "bond"
            node["bond"] = {"member": {m: {} for m in settings["slaves"]}}
            if settings["mode"]:
                node["bond"]["mode"] = "static"
        if settings["alias"]:
            node["description"] = settings["alias"]
        link = node.setdefault("link", {})
        for key, field in (("mtu", "mtu"), ("fec", "fec"), ("autoneg", "auto-negotiate")):
            if settings[key] is not None:
                link[field] = settings[key]
        if settings["speed"] is not None:
            link["speed"] = model.speed_text(settings["speed"])
        if settings["admin_down"]:
            link["state"] = {"down": {}}
        if not link:
            del node["link"]
        if settings["bridge"]:
            domain: dict[str, Any] = {}
            if settings["access"] is not None:
                domain["access"] = settings["access"]
            if settings["trunk_vlans"]:
                domain["vlan"] = {str(v): {} for v in settings["trunk_vlans"]}
            node["bridge"] = {"domain": {DOMAIN: domain}}
    for vlan, svi in config["vlans"].items():
        interfaces[f"vlan{vlan}"] = {
            "ip": {"address": {a: {} for a in svi["addresses"]}},
            "type": "svi",
            "vlan": int(vlan),
        }
    tree: dict[str, Any] = {}
    if interfaces:
        tree["interface"] = interfaces
    bridge = config["bridge"]
    if bridge["vids"] or bridge["pvid"] is not None:
        domain = {}
        if bridge["pvid"] is not None:
            domain["untagged"] = bridge["pvid"]
        if bridge["vids"]:
            domain["vlan"] = {str(v): {} for v in bridge["vids"]}
        tree["bridge"] = {"domain": {DOMAIN: domain}}
    tree["system"] = {"hostname": config["hostname"]}
    return tree


def leaves(tree: dict[str, Any], path: tuple[str, ...] = ()) -> dict[tuple[str, ...], Any]:
    """path -> value of every leaf; an empty object ({}) is a leaf too (`vlan: {10: {}}`)."""
    out: dict[tuple[str, ...], Any] = {}
    for key, value in tree.items():
        if isinstance(value, dict) and value:
            out.update(leaves(value, (*path, str(key))))
        else:
            out[(*path, str(key))] = value
    return out


def nest(flat: dict[tuple[str, ...], Any]) -> dict[str, Any]:
    tree: dict[str, Any] = {}
    for path, value in flat.items():
        node = tree
        for key in path[:-1]:
            node = node.setdefault(key, {})
        node[path[-1]] = value
    return tree


def yaml(value: Any, indent: int = 0) -> list[str]:
    """A small YAML writer for NVUE's trees (sorted keys, `{}` for empty objects)."""
    lines = []
    pad = " " * indent
    for key in sorted(value, key=model.sort_key):
        item = value[key]
        if isinstance(item, dict) and item:
            lines += [f"{pad}{key}:", *yaml(item, indent + 2)]
        else:
            text = "{}" if isinstance(item, dict) else item
            if isinstance(text, str) and (" " in text or text == ""):
                text = f"'{text}'"
            lines.append(f"{pad}{key}: {text}")
    return lines


def command_lines(flat: dict[tuple[str, ...], Any], verb: str) -> list[str]:
    """`nv set ...` lines, interfaces with the same setting folded into a range
    (`nv set interface swp1-2,32 type swp` [NVUE transcripts])."""
    by_suffix: dict[tuple[str, ...], list[str]] = {}
    others = []
    for path, value in flat.items():
        words = list(path) if value == {} or verb == "unset" else [*path, str(value)]
        if words[0] == "interface" and len(words) > 1:
            by_suffix.setdefault(tuple(words[2:]), []).append(words[1])
        else:
            others.append(f"nv {verb} " + " ".join(_quote(w) for w in words))
    folded = [
        f"nv {verb} interface {model.compress(names)} " + " ".join(_quote(w) for w in suffix)
        for suffix, names in by_suffix.items()
    ]
    return sorted(line.rstrip() for line in folded + others)


def _quote(word: str) -> str:
    return f"'{word}'" if " " in word else word


# ---- revisions: what the CLI and the REST API share -------------------------------------

# revision states [NVUE API guide; applied_and_saved, confirm, confirm_fail: see Revisions]
REV_PENDING, REV_INVALID, REV_AYS_FAIL = "pending", "invalid", "ays_fail"
REV_APPLIED, REV_SAVED = "applied", "applied_and_saved"
REV_CONFIRM, REV_CONFIRM_FAIL = "confirm", "confirm_fail"
# a failed apply is fixed and retried [NVUE API guide]
EDITABLE = (REV_PENDING, REV_INVALID, REV_AYS_FAIL)
DEFAULT_CONFIRM = 600  # `--confirm` without a time: ten minutes [NVUE reference]
# Wall-clock seconds per second of a confirm time: the tests shrink it to roll back quickly.
SECOND = 1.0
AYS_ISSUE = {
    "code": "client_timeout",
    "data": {},
    "message": "Timeout while waiting for client response",
    "severity": "error",
}  # [NVUE API guide]


def staged(base: dict[str, Any], edits: list[tuple[bool, list[str]]]) -> dict[str, Any]:
    """A copy of `base` with `nv set` (True) / `nv unset` (False) lines applied, each as the
    words after the verb; the first refused line raises Invalid and nothing is kept."""
    candidate = copy.deepcopy(base)
    for add, words in edits:
        Change(candidate, add).apply(words)
    return candidate


def auto_saves(config: dict[str, Any]) -> bool:
    return model.release_of(config["release"])[:2] >= model.AUTO_SAVE_FROM


class Revisions:
    """NVUE's revisions on one switch, kept in the state's volatile part (a restart discards
    them, as it discards the running configuration): id -> configuration, state, transition.

    Ids are counted upward from 1 and shared by the CLI and the REST API. A revision holds a
    whole configuration, copied from the applied one when it starts (whether NVUE rebases an
    older revision on a newer applied one is **unverified**). The CLI edits the pending
    revision it started itself (`cli`) until it is applied or detached; a REST client names
    its revision in every request. Applying makes the revision's configuration the running
    one: `applied`, or `applied_and_saved` when the apply also saved (auto-save, 5.9 and
    later: the state NVIDIA's own REST client waits for [nv-config-manager, nvue_automation]),
    `invalid` with one issue per problem and `ays_fail` when a warning went unanswered [NVUE
    API guide]. A failed revision takes edits again and goes back to `pending` (the guide's
    "after you resolve the errors, retry").

    An apply with a confirm time opens a window: the revision waits in state `confirm`
    [gpncfg, napalm-cumulus NVUE fork] until confirmed (-> `applied` / `applied_and_saved`,
    saved then if the release auto-saves) or until the time runs out or it is refused, when
    the previous applied configuration comes back, and the startup one too if a save
    happened in the window; the revision ends `confirm_fail` (a state name from gpncfg's
    list; that a timed-out revision takes it is **unverified**). A timer thread rolls back
    when nobody is looking; every access checks the time as well.
    """

    def __init__(self, state: Any):
        self.state = state
        with state.lock:
            self.data: dict[str, Any] = state.volatile.setdefault(
                "nvue", {"revisions": {}, "next": 1, "applied": "0", "cli": None, "confirm": None}
            )
            self.expire()

    # -- reading ---------------------------------------------------------------------------

    def get(self, rev: str) -> dict[str, Any] | None:
        return self.data["revisions"].get(rev)

    @property
    def applied(self) -> str:
        return self.data["applied"]

    def record(self, rev: str) -> dict[str, Any]:
        """`{"state": ..., "transition": {"issue": ..., "progress": ...}}` [NVUE API guide]."""
        revision = self.data["revisions"][rev]
        issue, progress = copy.deepcopy(revision["issue"]), revision["progress"]
        return {"state": revision["state"], "transition": {"issue": issue, "progress": progress}}

    def listing(self) -> dict[str, Any]:
        return {rev: self.record(rev) for rev in self.data["revisions"]}

    def editable(self, rev: str) -> bool:
        revision = self.get(rev)
        return revision is not None and revision["state"] in EDITABLE

    def cli_revision(self) -> str | None:
        """The CLI's pending revision, while it still takes edits."""
        rev = self.data["cli"]
        return rev if rev is not None and self.editable(rev) else None

    def cli_config(self) -> dict[str, Any] | None:
        rev = self.cli_revision()
        return self.data["revisions"][rev]["config"] if rev else None

    # -- editing ---------------------------------------------------------------------------

    def create(self, config: dict[str, Any] | None = None, cli: bool = False) -> str:
        """A new pending revision: `config`, or a copy of the applied configuration; `cli`:
        it is the one the CLI edits from now on."""
        with self.state.lock:
            rev = str(self.data["next"])
            self.data["next"] += 1
            self.data["revisions"][rev] = {}
            self.put(rev, copy.deepcopy(self.state.running if config is None else config))
            if cli:
                self.data["cli"] = rev
        return rev

    def put(self, rev: str, config: dict[str, Any]) -> None:
        """Store an edited configuration: the revision is pending (again)."""
        revision = self.data["revisions"][rev]
        revision.update(config=config, state=REV_PENDING, issue={}, progress="")

    def detach_cli(self) -> None:
        """`nv config detach`: the CLI lets go of its revision, which stays, pending."""
        self.data["cli"] = None

    def detach(self, rev: str) -> None:
        """Forget a revision that was never applied."""
        with self.state.lock:
            del self.data["revisions"][rev]
            if self.data["cli"] == rev:
                self.data["cli"] = None

    # -- applying --------------------------------------------------------------------------

    def problems(self, rev: str) -> list[tuple[str, str]]:
        """(location, reason) of what makes the revision impossible [NVUE upgrade KB]."""
        config = self.data["revisions"][rev]["config"]
        return [(f"interface.{name}", why) for name, why in model.check(config)]

    def warnings(self, rev: str) -> list[str]:
        """What applying asks about first: a breakout change reloads switchd; a file NVUE
        would overwrite was modified locally (`overwrite all`, the default)."""
        found = []
        if self.data["revisions"][rev]["config"]["breakouts"] != self.state.running["breakouts"]:
            found.append(RELOAD_WARNING)
        if ifupdown.locally_modified(self.state):
            found.append(FILES_WARNING)
        return found

    def warns(self, rev: str) -> bool:
        return bool(self.warnings(rev))

    def fail(self, rev: str, state: str, issues: list[dict[str, Any]], progress: str) -> None:
        revision = self.data["revisions"][rev]
        revision.update(state=state, progress=progress)
        revision["issue"] = {str(n): issue for n, issue in enumerate(issues)}

    def invalid(self, rev: str, problems: list[tuple[str, str]]) -> None:
        issues = [
            {
                "code": "config_invalid",
                "data": {"location": where, "reason": why},
                "message": f"Config invalid at {where}: {why}",
                "severity": "error",
            }
            for where, why in problems
        ]
        self.fail(rev, REV_INVALID, issues, "Invalid config")  # [NVUE API guide]

    def commit(self, rev: str, confirm: float | None = None) -> None:
        """Make the revision's configuration the running one; with `confirm` (seconds) open
        the window in which it must be confirmed."""
        with self.state.lock:
            revision = self.data["revisions"][rev]
            config = copy.deepcopy(revision["config"])
            config["netedit"] = self.state.running["netedit"]  # /etc/group's, not NVUE's
            previous, previous_rev = self.state.running, self.data["applied"]
            self.state.running, self.data["applied"] = config, rev
            ifupdown.render_again(self.state)  # NVUE writes the files it manages
            if self.data["cli"] == rev:
                self.data["cli"] = None
            revision.update(issue={}, progress="")
            if confirm is None:
                self.settle(rev)
                return
            window = {"rev": rev, "previous": previous, "previous_rev": previous_rev,
                      "startup": copy.deepcopy(self.state.startup),
                      "deadline": time.monotonic() + confirm * SECOND}  # fmt: skip
            timer = threading.Timer(confirm * SECOND, self._time_up, args=(window,))
            timer.daemon = True
            window["timer"] = timer
            self.data["confirm"] = window
            revision["state"] = REV_CONFIRM
            timer.start()

    def settle(self, rev: str) -> None:
        """The revision stays applied: saved too where the release auto-saves."""
        revision = self.data["revisions"][rev]
        if auto_saves(self.state.running):
            self.state.save()
            revision["state"] = REV_SAVED
        else:
            revision["state"] = REV_APPLIED

    def save(self) -> None:
        """`nv config save` / the REST save: startup := running."""
        with self.state.lock:
            self.state.save()
            revision = self.get(self.data["applied"])
            if revision is not None and revision["state"] == REV_APPLIED:
                revision["state"] = REV_SAVED

    # -- the confirm window ----------------------------------------------------------------

    def confirming(self) -> str | None:
        """The revision waiting for its confirmation, if any."""
        window = self.data["confirm"]
        return window["rev"] if window else None

    def seconds_left(self) -> int:
        window = self.data["confirm"]
        return max(0, round((window["deadline"] - time.monotonic()) / SECOND))

    def confirm(self) -> str:
        """Keep the applied revision (`--confirm-yes`); returns its id."""
        with self.state.lock:
            window = self.data["confirm"]
            self.data["confirm"] = None
            window["timer"].cancel()
            self.settle(window["rev"])
            return window["rev"]

    def rollback(self) -> str:
        """Bring back the configuration the window's apply replaced; returns the revision."""
        with self.state.lock:
            window = self.data["confirm"]
            self.data["confirm"] = None
            window["timer"].cancel()
            previous = copy.deepcopy(window["previous"])
            previous["netedit"] = self.state.running["netedit"]
            self.state.running, self.data["applied"] = previous, window["previous_rev"]
            if self.state.startup != window["startup"]:  # saved in the window: undo that too
                self.state.startup = window["startup"]
                self.state._persist()  # SwitchState has no public call to write a given startup
            self.data["revisions"][window["rev"]]["state"] = REV_CONFIRM_FAIL
            return window["rev"]

    def expire(self) -> None:
        """Roll back a window whose time ran out (checked on every access)."""
        window = self.data["confirm"]
        if window and time.monotonic() >= window["deadline"]:
            self.rollback()

    def _time_up(self, window: dict[str, Any]) -> None:
        with self.state.lock:
            if self.data["confirm"] is window:
                self.rollback()


# ---- the command ---------------------------------------------------------------------------


class NVUE:
    """The `nv` command of one login session."""

    name = "nv"
    REJECTED = INVALID

    def __init__(self, session: Any):
        self.session = session
        self.state = session.state
        self.asking: _Confirm | None = None  # the question the session's next line answers

    @staticmethod
    def changes_config(words: list[str]) -> bool:
        return words[:1] == ["nv"] and words[1:2] in (["set"], ["unset"])

    @staticmethod
    def failed(output: str) -> bool:
        return output.startswith(("Error", "Invalid config")) or "command not found" in output

    @property
    def revisions(self) -> Revisions:
        """The switch's revisions, shared by every session and the REST API until restart."""
        return Revisions(self.state)

    def run(self, args: list[str]) -> str:
        self.revisions.expire()  # a confirm window whose time ran out rolls back first
        try:
            if args[:1] in (["set"], ["unset"]):
                return self._edit(args[0] == "set", args[1:])
            if args[:1] == ["config"]:
                return self._config(args[1:])
            if args[:1] == ["show"]:
                return self._show(args[1:])
            raise Invalid(_usage(args))
        except Invalid as err:
            return str(err)

    # -- nv set / unset ----------------------------------------------------------------------

    def _edit(self, add: bool, words: list[str]) -> str:
        with self.state.lock:
            revs = self.revisions
            rev, pending = revs.cli_revision(), revs.cli_config()
            candidate = staged(self.state.running if pending is None else pending, [(add, words)])
            if rev is None:  # the first accepted line starts the CLI's revision
                revs.create(candidate, cli=True)
            else:
                revs.put(rev, candidate)
        return ""

    # -- nv config -----------------------------------------------------------------------------

    def _config(self, args: list[str]) -> str:
        revs = self.revisions
        output = _option(args, "-o", "--output")
        if args[:1] == ["apply"]:
            return self._apply(args[1:])
        if args == ["save"]:
            revs.save()
            return "saved [rev_id: applied]"  # [NVUE transcripts]
        if args == ["detach"]:
            revs.detach_cli()
            return ""
        if args[:1] == ["diff"]:
            pending = revs.cli_config()
            if pending is None:
                return ""
            old = leaves(to_tree(self.state.running))
            new = leaves(to_tree(pending))
            sets = {p: v for p, v in new.items() if old.get(p, object()) != v}
            unsets = {p: v for p, v in old.items() if p not in new}
            if output == "commands":
                return "\n".join(command_lines(unsets, "unset") + command_lines(sets, "set"))
            lines = []
            if sets:
                lines += ["- set:", *yaml(nest(sets), 4)]
            if unsets:
                lines += ["- unset:", *yaml(nest(unsets), 4)]
            return "\n".join(lines)
        if args[:1] == ["show"]:
            tree = to_tree(self.state.running)
            if output == "commands":
                return "\n".join(command_lines(leaves(tree), "set"))
            if output == "json":
                return json.dumps([{"header": self._header()}, {"set": tree}], indent=2)
            header = ["- header:", *yaml(self._header(), 4)]
            return "\n".join([*header, "- set:", *yaml(tree, 4)])
        raise Invalid(_usage(["config", *args]))

    def _header(self) -> dict[str, Any]:
        # header keys of `nv config show` (**unverified**)
        return {
            "model": "SN3700",
            "nvue-api-version": "nvue_v1",
            "rev-id": f"{self.revisions.applied}.0",
            "version": f"Cumulus Linux {self.state.running['release']}",
        }

    def _apply(self, options: list[str]) -> str:
        """`nv config apply [<revision>] [-y|--assume-yes|--assume-no] [--confirm [<time>]]
        [-m <message>]`: check the whole revision (the CLI's pending one unless named), then
        make it the applied one [NVUE CLI guide, NVUE reference, NVUE upgrade KB].

        `--confirm [<time>]` applies and rolls back unless confirmed in time, ten minutes by
        default; `--confirm-status` shows the time left [NVUE reference]; `--confirm-yes`
        keeps the change and `--confirm-no` rolls it back at once (the confirming commands
        clients send: `nv config apply [<revision>] --confirm-yes|--confirm-no` [napalm-cumulus
        NVUE fork, NVUE lab guide]). The words these four print, and a second apply refused
        while one waits for its confirmation, are **unverified**."""
        with self.state.lock:  # checked and applied with no other session in between
            return self._apply_now(*_apply_options(options))

    def _apply_now(self, flags: set[str], rev: str | None, confirm: float | None) -> str:
        revs = self.revisions
        if flags & CONFIRM_FLAGS:
            return self._confirmation(revs, flags, rev)
        if revs.confirming() is not None:
            raise Invalid(_WAITING.format(rev=revs.confirming()))
        rev = rev or revs.cli_revision()
        if rev is None:
            return "Warning: Nothing to apply"  # **unverified**
        if revs.get(rev) is None:
            raise Invalid(f"Error: Revision {rev} does not exist")  # **unverified**
        problems = revs.problems(rev)
        if problems:
            revs.invalid(rev, problems)
            reasons = [f"  Config invalid at {where}: {why}" for where, why in problems]
            return "\n".join([f"Invalid config [rev_id: {rev}]", *reasons])
        warnings = "\n".join(revs.warnings(rev))
        if warnings:
            if "--assume-no" in flags:
                return f"{warnings}\n{CONFIRM_PROMPT}N\nDeclined apply after warnings"
            if not flags & {"-y", "--y", "--assume-yes"}:
                self.asking = self.session.confirm = _Confirm(
                    CONFIRM_PROMPT, lambda: self._commit(rev, confirm)
                )
                return warnings
        return self._commit(rev, confirm)

    def _confirmation(self, revs: Revisions, flags: set[str], rev: str | None) -> str:
        waiting = revs.confirming()
        if waiting is None or rev not in (None, waiting):
            raise Invalid("Error: No apply is waiting for a confirmation")  # **unverified**
        if "--confirm-status" in flags:
            return f"{revs.seconds_left()} seconds left to confirm [rev_id: {waiting}]"
        if "--confirm-yes" in flags:
            return f"applied [rev_id: {revs.confirm()}]"
        return f"rolled back [rev_id: {revs.rollback()}]"

    def confirmed(self, answer: str) -> str:
        asking, self.asking = self.asking, None
        if asking is None or answer.lower() not in ("y", "yes"):
            return "Declined apply after warnings"  # **unverified**
        try:
            return asking.then()
        except Invalid as err:
            return str(err)

    def _commit(self, rev: str, confirm: float | None) -> str:
        revs = self.revisions
        with self.state.lock:
            if revs.confirming() is not None:  # another apply got there while we asked
                raise Invalid(_WAITING.format(rev=revs.confirming()))
            revs.commit(rev, confirm)
        return f"applied [rev_id: {rev}]"  # [NVUE transcripts]

    # -- nv show -------------------------------------------------------------------------------

    def _show(self, args: list[str]) -> str:
        output = _option(args, "-o", "--output")
        if args == ["system"]:
            return self._system(output)
        if args == ["interface"]:
            return self._interfaces(output)
        if len(args) in (2, 3) and args[0] == "interface" and args[2:] in ([], ["link"]):
            return self._link(args[1], output)
        raise Invalid(_usage(["show", *args]))

    def _system(self, output: str | None) -> str:
        config = self.state.running
        uptime = time.strftime("%H:%M:%S", time.gmtime(time.time() - BOOTED))
        values = {
            "build": f"Cumulus Linux {config['release']}",
            "hostname": config["hostname"],
            "uptime": f"0:{uptime}",
        }
        if output == "json":  # the REST API's GET /system keys [NVUE API guide]
            return json.dumps(values, indent=2)
        return table(
            ["", "operational", "applied"],
            [
                ["hostname", config["hostname"], config["hostname"]],
                ["build", values["build"], ""],
                ["uptime", values["uptime"], ""],
            ],
        )

    def _interface_rows(self) -> dict[str, dict[str, Any]]:
        config = self.state.running
        names = model.physical_ports(config)
        names += sorted(
            (n for n in config["interfaces"] if n.startswith("bond")), key=model.sort_key
        )
        # eth0: the management port, up in the mgmt VRF on a factory switch [mgmt VRF guide]
        rows: dict[str, dict[str, Any]] = {
            "eth0": {"type": "eth", "description": "", "link": {
                "admin-status": "up", "oper-status": "up", "mtu": 1500, "speed": "1G",
                "state": {"up": {}}}},
        }  # fmt: skip
        for name in names:
            settings = config["interfaces"].get(name)
            up = model.link_up(self.state, config, name)
            speed = model.link_speed(self.state, config, name) if up else 0
            rows[name] = {
                "type": "bond" if name.startswith("bond") else "swp",
                "link": {
                    "admin-status": "up" if settings and not settings["admin_down"] else "down",
                    "oper-status": "up" if up else "down",
                    "mtu": (settings or {}).get("mtu")
                    or (model.DEFAULT_MTU if settings else model.DRIVER_MTU),
                    "speed": model.speed_text(speed) if speed else "",
                    "state": {"up" if settings and not settings["admin_down"] else "down": {}},
                },
                "description": (settings or {}).get("alias") or "",
            }
        for vlan in sorted(config["vlans"], key=int):
            rows[f"vlan{vlan}"] = {
                "type": "svi",
                "link": {
                    "admin-status": "up",
                    "oper-status": "up",
                    "mtu": model.DEFAULT_MTU,
                    "speed": "",
                    "state": {"up": {}},
                },
                "description": "",
            }
        return rows

    def _interfaces(self, output: str | None) -> str:
        """Summary of every interface; the columns changed between 5.x releases [nv show
        examples], the
        later `Admin Status / Oper Status` form is used (JSON shape **unverified**)."""
        rows = self._interface_rows()
        if output == "json":
            return json.dumps(rows, indent=2)
        return table(
            [
                "Interface",
                "Admin Status",
                "Oper Status",
                "Speed",
                "MTU",
                "Type",
                "Remote Host",
                "Remote Port",
                "Summary",
            ],
            [
                [
                    name,
                    r["link"]["admin-status"],
                    r["link"]["oper-status"],
                    r["link"]["speed"],
                    str(r["link"]["mtu"]),
                    r["type"],
                    "",
                    "",
                    "",
                ]
                for name, r in rows.items()
            ],
        )

    def _link(self, name: str, output: str | None) -> str:
        """`nv show interface swp1 link`: operational and applied columns, pending when a
        revision is staged [NVUE CLI guide, 5.10 port attributes]."""
        rows = self._interface_rows()
        if name not in rows:
            raise Invalid(
                f"Error: The requested item does not exist: interface {name}"
            )  # unverified
        link = rows[name]["link"]
        config = self.state.running
        applied = to_tree(config).get("interface", {}).get(name, {}).get("link", {})
        pending_config = self.revisions.cli_config()
        if output == "json":
            return json.dumps(link, indent=2)
        fields = ["auto-negotiate", "speed", "fec", "mtu", "state"]
        operational = {
            "auto-negotiate": "on" if link["oper-status"] == "up" else "off",
            "speed": link["speed"] or "N/A",
            "fec": "auto" if link["oper-status"] == "up" else "",
            "mtu": str(link["mtu"]),
            "state": next(iter(link["state"])),
        }
        defaults = {
            "auto-negotiate": "on",
            "speed": "auto",
            "fec": "auto",
            "mtu": str(model.DEFAULT_MTU),
            "state": "up",
        }
        headers = ["", "operational", "applied"]
        pending = None
        if pending_config is not None:
            pending = to_tree(pending_config).get("interface", {}).get(name, {}).get("link", {})
            headers.append("pending")
        rows_out = []
        for field in fields:
            row = [field, operational[field], _value(applied, field, defaults)]
            if pending is not None:
                row.append(_value(pending, field, defaults))
            rows_out.append(row)
        return table(headers, rows_out)


def _value(link: dict[str, Any], field: str, defaults: dict[str, str]) -> str:
    value = link.get(field, defaults[field])
    return next(iter(value)) if isinstance(value, dict) else str(value)


class _Confirm:
    """A question the next line answers, and what a yes does."""

    def __init__(self, prompt: str, then: Callable[[], str]):
        self.prompt = prompt
        self.then = then


# `nv config apply` while another apply waits for its confirmation (**unverified** wording)
_WAITING = "Error: Revision {rev} is waiting for its confirmation (nv config apply --confirm-yes)"
APPLY_FLAGS = {"-y", "--y", "--assume-yes", "--assume-no"}
CONFIRM_FLAGS = {"--confirm-status", "--confirm-yes", "--confirm-no"}
# `--confirm 300s`, `2m`, `1h` [napalm-cumulus NVUE fork, NVUE lab guide]; a bare number
# counts minutes (`--confirm 60` "requires you to confirm within one hour" [NVUE reference])
CONFIRM_TIME = re.compile(r"(\d+)([smh]?)")
TIME_UNITS = {"s": 1, "m": 60, "h": 3600, "": 60}


def _apply_options(options: list[str]) -> tuple[set[str], str | None, float | None]:
    """(flags, the revision named, the confirm time in seconds) of `nv config apply`."""
    flags: set[str] = set()
    rev: str | None = None
    confirm: float | None = None
    words = list(options)
    while words:
        word = words.pop(0)
        if word in ("-m", "--message"):
            if not words:
                raise invalid(f"option {word} requires an argument")
            words.pop(0)
        elif word == "--confirm":
            confirm = DEFAULT_CONFIRM
            match = CONFIRM_TIME.fullmatch(words[0]) if words else None
            if match:
                words.pop(0)
                confirm = int(match.group(1)) * TIME_UNITS[match.group(2)]
        elif word in APPLY_FLAGS | CONFIRM_FLAGS:
            flags.add(word)
        elif word.startswith("-"):
            raise invalid(f"unknown option {word}")
        elif rev is None and word.isdigit():
            rev = word
        else:
            raise Invalid(_usage(["config", "apply", *options]))
    return flags, rev, confirm


def _option(args: list[str], short: str, long: str) -> str | None:
    """Remove `-o X` / `--output X` from args; return X."""
    for flag in (short, long):
        if flag in args:
            index = args.index(flag)
            if index + 1 >= len(args):
                raise invalid(f"option {flag} requires an argument")
            value = args[index + 1]
            del args[index : index + 2]
            if value not in ("json", "yaml", "auto", "raw", "commands"):
                raise invalid(f"'{value}' is not a valid output format")
            return value
    return None


def _usage(args: list[str]) -> str:
    # NVUE's answer to an unknown command (**unverified** wording)
    return f"Error: Command not found: nv {' '.join(args)}".rstrip()


class Change:
    """One `nv set|unset` line applied to a candidate configuration."""

    def __init__(self, config: dict[str, Any], add: bool):
        self.config, self.add = config, add

    def apply(self, words: list[str]) -> None:
        if words[:1] == ["interface"] and len(words) >= 2:
            for name in self._names(words[1]):
                self._interface(name, words[2:])
        elif words[:3] == ["bridge", "domain", DOMAIN]:
            self._bridge(words[3:])
        elif words[:2] == ["system", "hostname"] and (len(words) == 3 or not self.add):
            self._hostname(words[2:])
        else:
            raise Invalid(_usage(["set" if self.add else "unset", *words]))

    def _names(self, text: str) -> list[str]:
        """Interface names NVUE accepts: swpN, swpNsM, bond*, vlanN; whether the port exists
        is checked when the revision is applied [NVUE upgrade KB]."""
        names = model.expand_range(text)
        for name in names:
            if not re.fullmatch(r"swp\d+(s\d+)?|bond[\w-]{0,11}|vlan\d+|eth0|lo", name):
                raise invalid(f"'{name}' is not a valid interface name")
            if (
                name.startswith("vlan")
                and not model.VLAN_RANGE[0] <= int(name[4:]) <= model.VLAN_RANGE[1]
            ):
                raise invalid(f"'{name}': VLAN must be in range 1 - 4094")
        return names

    def _settings(self, name: str) -> dict[str, Any]:
        interfaces = self.config["interfaces"]
        if name not in interfaces:
            interfaces[name] = model.new_interface("bond" if name.startswith("bond") else "swp")
        return interfaces[name]

    def _interface(self, name: str, words: list[str]) -> None:
        if name.startswith("vlan"):
            self._svi(name[4:], words)
            return
        if not words or words[:1] == ["type"]:
            if self.add:
                self._settings(name)
            else:
                self._remove(name)
            return
        if words[:2] == ["link", "breakout"]:
            self._breakout(name, words[2:])
            return
        settings = self._settings(name)
        head, value = words[0], words[1:]
        if head == "description":
            settings["alias"] = " ".join(value) if self.add else None
        elif head == "link" and value:
            self._link(settings, value[0], value[1:])
        elif words[:3] == ["bridge", "domain", DOMAIN]:
            self._port_bridge(settings, words[3:])
        elif head == "bond" and "slaves" in settings and value:
            self._bond(name, settings, value)
        else:
            raise Invalid(_usage(["set" if self.add else "unset", "interface", name, *words]))

    def _link(self, settings: dict[str, Any], field: str, value: list[str]) -> None:
        """`link mtu|speed|state|fec|auto-negotiate` with the types `?` shows [NVUE CLI
        guide, 5.10 port attributes]."""
        if not self.add:
            key = {
                "mtu": "mtu",
                "speed": "speed",
                "fec": "fec",
                "auto-negotiate": "autoneg",
                "state": "admin_down",
            }.get(field)
            if key is None:
                raise Invalid(_usage(["unset", "link", field]))
            settings[key] = False if key == "admin_down" else None
            return
        if len(value) != 1:
            raise invalid(f"link {field} takes one value")
        word = value[0]
        if field == "mtu":
            if not word.isdigit() or not model.MTU_RANGE[0] <= int(word) <= model.MTU_RANGE[1]:
                raise invalid(f"'{word}' is not in range integer:552 - 9216")
            settings["mtu"] = int(word)
        elif field == "speed":
            if word not in (*SPEEDS, "auto"):
                raise invalid(f"'{word}' is not one of {', '.join(SPEEDS)}, auto")
            settings["speed"] = None if word == "auto" else SPEEDS[word]
        elif field == "state":
            if word not in ("up", "down"):
                raise invalid(f"'{word}' is not one of up, down")
            settings["admin_down"] = word == "down"
        elif field == "fec" and word in ("auto", "baser", "off", "rs"):
            settings["fec"] = word
        elif field == "auto-negotiate" and word in ("on", "off"):
            settings["autoneg"] = word
        else:
            raise invalid(f"'{word}' is not a valid value for link {field}")

    def _breakout(self, name: str, value: list[str]) -> None:
        """`link breakout 1x|2x|4x|disabled` on a port [5.10 port attributes]; `nv unset
        ... link breakout` back to 1x. Settings of the interfaces a split replaces go with
        them (inferred)."""
        match = re.fullmatch(r"swp(\d+)", name)
        if not match:
            raise invalid(f"link breakout applies to a port, not {name}")
        if self.add and (len(value) != 1 or value[0] not in BREAKOUTS):
            raise invalid(f"'{' '.join(value)}' is not one of 1x, 2x, 4x, disabled")
        mode = BREAKOUTS[value[0]] if self.add else "1x"
        port = match.group(1)
        for old in [n for n in self.config["interfaces"] if model.port_number(n) == int(port)]:
            if old != name or mode != "1x":
                self._remove(old)
        if mode == "1x":
            self.config["breakouts"].pop(port, None)
        else:
            self.config["breakouts"][port] = mode

    def _port_bridge(self, settings: dict[str, Any], words: list[str]) -> None:
        """`bridge domain br_default [access N | vlan LIST]` on a port or bond [5.10 bridge
        guide, 5.x bond guides]."""
        if not words:
            settings["bridge"] = self.add
            if not self.add:
                settings["access"] = settings["trunk_vlans"] = None
            return
        settings["bridge"] = True
        if words[0] == "access" and len(words) <= 2:
            settings["access"] = _vlan(words[1:]) if self.add else None
        elif words[0] == "vlan" and len(words) <= 2:
            ids = _vlans(words[1:]) if self.add or len(words) == 2 else []
            keep = set(settings["trunk_vlans"] or [])
            new = keep | set(ids) if self.add else (keep - set(ids) if ids else set())
            settings["trunk_vlans"] = sorted(new) or None
        else:
            raise Invalid(_usage(["set", "bridge", "domain", DOMAIN, *words]))

    def _bond(self, name: str, settings: dict[str, Any], words: list[str]) -> None:
        """`bond member <ports>` / `bond mode lacp|static` [5.x bond guides]."""
        if words[0] == "member" and len(words) == 2:
            members = model.expand_range(words[1])
            for member in members:
                if not re.fullmatch(r"swp\d+(s\d+)?", member):
                    raise invalid(f"bond member '{member}' is not a switch port")
                other = model.bond_of(self.config, member)
                if self.add and other and other != name:
                    self.config["interfaces"][other]["slaves"].remove(member)
                if self.add and member not in settings["slaves"]:
                    settings["slaves"].append(member)
                    self._settings(member)
                elif not self.add and member in settings["slaves"]:
                    settings["slaves"].remove(member)
            settings["slaves"].sort(key=model.sort_key)
        elif words[0] == "mode" and len(words) <= 2:
            if self.add and (len(words) != 2 or words[1] not in BOND_MODES):
                raise invalid(f"'{' '.join(words[1:])}' is not one of lacp, static")
            settings["mode"] = BOND_MODES[words[1]] if self.add else None
        else:
            raise Invalid(_usage(["set", "interface", name, "bond", *words]))

    def _svi(self, vlan: str, words: list[str]) -> None:
        """`nv set interface vlan10 ip address 10.1.10.2/24` [5.10 bridge guide]; `vlan 10`,
        the SVI's VLAN (`nv set interface vlan10 vlan 10` [NVUE transcripts]), is the one its
        name gives here."""
        vlans = self.config["vlans"]
        if not words or words[:1] == ["type"]:
            if self.add:
                vlans.setdefault(vlan, {"addresses": []})
            else:
                vlans.pop(vlan, None)
            return
        if words[:1] == ["vlan"] and len(words) <= 2:
            if self.add and words[1:] != [vlan]:
                raise invalid(f"interface vlan{vlan} is VLAN {vlan}, not {' '.join(words[1:])}")
            if self.add:
                vlans.setdefault(vlan, {"addresses": []})
            return
        if words[:2] != ["ip", "address"] or len(words) != 3:
            raise Invalid(_usage(["set", "interface", f"vlan{vlan}", *words]))
        try:
            address = str(ipaddress.ip_interface(words[2]))
        except ValueError:
            raise invalid(f"'{words[2]}' is not a valid IP prefix") from None
        svi = vlans.setdefault(vlan, {"addresses": []})
        if self.add and address not in svi["addresses"]:
            svi["addresses"].append(address)
        elif not self.add and address in svi["addresses"]:
            svi["addresses"].remove(address)

    def _bridge(self, words: list[str]) -> None:
        """`nv set bridge domain br_default vlan 10,20` / `untagged 1` [5.10 bridge guide]."""
        bridge = self.config["bridge"]
        if words[:1] == ["vlan"] and len(words) <= 2:
            ids = _vlans(words[1:]) if self.add or len(words) == 2 else list(bridge["vids"])
            keep = set(bridge["vids"])
            bridge["vids"] = sorted(keep | set(ids) if self.add else keep - set(ids))
        elif words[:1] == ["untagged"] and len(words) <= 2:
            bridge["pvid"] = _vlan(words[1:]) if self.add else None
        else:
            raise Invalid(_usage(["set", "bridge", "domain", DOMAIN, *words]))

    def _hostname(self, words: list[str]) -> None:
        if not self.add:
            self.config["hostname"] = model.DEFAULT_HOSTNAME
            return
        if not re.fullmatch(r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?", words[0]):
            raise invalid(f"'{words[0]}' is not a valid hostname")
        self.config["hostname"] = words[0]

    def _remove(self, name: str) -> None:
        self.config["interfaces"].pop(name, None)
        for settings in self.config["interfaces"].values():
            if name in settings.get("slaves", []):
                settings["slaves"].remove(name)


def _vlan(words: list[str]) -> int:
    if len(words) != 1 or not words[0].isdigit() or not 1 <= int(words[0]) <= 4094:
        raise invalid(f"'{' '.join(words)}' is not in range integer:1 - 4094")
    return int(words[0])


def _vlans(words: list[str]) -> list[int]:
    ids = model.parse_vlans(words[0]) if len(words) == 1 else None
    if ids is None:
        raise invalid(f"'{' '.join(words)}' is not a VLAN list in range 1 - 4094")
    return ids
