#!/usr/bin/env python3
"""Benchmark site.yml on the lab with N compute nodes.

For each N (default 2, 8 and 16) the bench:

1. tears the lab down and brings it up with N compute nodes (lab-up);
2. runs site.yml from scratch (converge);
3. runs it again, which must change nothing (noop);
4. runs the same no-op pass with ansible-core's defaults instead of the project's
   ansible.cfg tuning (noop-defaults), so the gain is a ratio measured side by side;
5. runs a bare playbook with, per host, as many trivial tasks (ansible.builtin.ping)
   as the no-op pass executed there, every host at once (floor);
6. runs site.yml's plays in their order with, per host and play, as many trivial tasks
   as the no-op pass executed there (same-plays floor): what a no-op with these plays
   and this many tasks cannot beat.

7. changes the tiers as an admin does most often, `site.yml --tags onefs` with one
   file pool policy's idle days edited (tier-change), then put back (both are changes),
   and runs the same command with nothing to change (tier-rerun, which must change
   nothing). The SmartPools job's own run time (the role waits for it) is reported
   apart from the rest of the run.

Steps 3, 5, 6 and 7 run --repeat times (default 3) and keep the median run (the
tier change: of the edits and the put-backs together).

Per run it records wall time, task executions, skips, changes and time per host
(bench/callback_plugins/bench_stats.py). Results go to bench/results.json and the table
in docs/benchmarks.md. The lab is torn down at the end unless --keep-lab is given.

    make bench                       # N = 2, 8, 16
    make bench BENCH_NODES="2 4"     # any N
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / ".cache" / "bench"
STATE = ROOT / "lab" / ".state"
RESULTS = ROOT / "bench" / "results.json"
DOC = ROOT / "docs" / "benchmarks.md"
VENV_BIN = ROOT / ".venv" / "bin"
# the onefs_tiering task that starts the SmartPools job and waits for it to end
TIER_EDIT_IDLE_DAYS = 31
TIER_JOB_TASK = "Start a SmartPools job when placement rules changed (or when asked)"
TABLE_START = "<!-- bench:table:start -->"
TABLE_END = "<!-- bench:table:end -->"


def progress(message: str, started: float) -> None:
    print(f"[bench {time.monotonic() - started:7.1f}s] {message}", flush=True)


def compute_host(index: int) -> tuple[str, dict[str, Any]]:
    """The lab's compute node `index` (1-based): ports and addresses that clash with nothing.

    The first nine keep the lab's own numbering (.11-.19); later ones move to .101 and up,
    clear of the Isilon (.21-.24) and switch (.31-.32) addresses.
    """
    octet = 10 + index if index <= 9 else 100 + index
    return f"lab-compute-{index}", {
        "ansible_port": 22210 + index,
        "lab_mgmt_address": f"10.201.0.{octet}",
        "lab_data_address": f"10.201.1.{octet}",
    }


_FRONT_PANEL = re.compile(r"^(?P<prefix>\D*(?:\d+/)?)(?P<n>\d+)(?:[s/]\d+)?$")


def _front_panel(port: str) -> tuple[str, int]:
    """`swp9s0` -> ("swp", 9), `1/40/2` -> ("1/", 40): the name's prefix and the
    front-panel number (a sub-port counts as its port)."""
    match = _FRONT_PANEL.match(str(port))
    if match is None:
        raise ValueError(f"bench: cannot read the front-panel port of {port!r}")
    return match["prefix"], int(match["n"])


def _model_ports(model: str) -> range:
    """The front-panel numbers of a switch model, from the project's port model table."""
    name = "_bench_switch_config"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            name, ROOT / "module_utils" / "switch_config.py"
        )
        sys.modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[name])
    groups = sys.modules[name].MODELS[model].groups
    return range(min(g.first for g in groups), max(g.last for g in groups) + 1)


def cable_compute_nodes(inventory: dict[str, Any], compute: list[str]) -> None:
    """Cable the fabrics for these compute nodes: each fabric switch (storage_fabric,
    ib_fabric) drops its links to lab compute nodes the bench does not run and gains one
    for each new node, on the next front-panel port no other link or split uses, shaped
    like the lab's first compute link there (same fields, e.g. the HCA); the switch's
    lab cabling follows, so the new links come up and the dropped ports go dark."""
    switches = inventory["all"]["children"]["switches"]
    fabrics = {"storage_fabric": "storage_fabric_links", "ib_fabric": "ib_fabric_links"}
    for group, key in fabrics.items():
        for name, settings in ((switches["children"].get(group) or {}).get("hosts") or {}).items():
            links = settings.get(key) or []
            ours = [link for link in links if str(link["host"]).startswith("lab-compute-")]
            if not ours:
                continue
            device = switches["hosts"][name]
            prefix, _ = _front_panel(ours[0]["port"])
            kept = [link for link in links if link not in ours or link["host"] in compute]
            dropped = {_front_panel(link["port"])[1] for link in links if link not in kept}
            used = {_front_panel(link["port"])[1] for link in kept}
            used |= {_front_panel(port)[1] for port in settings.get("ib_fabric_split_ports", [])}
            free = iter(n for n in _model_ports(device["switches_model"]) if n not in used)
            linked = {link["host"] for link in kept}
            added = []
            for host in compute:
                if host not in linked:
                    number = next(free, None)
                    if number is None:
                        raise ValueError(f"bench: {name} has no free port for {host}")
                    added.append({**ours[0], "port": f"{prefix}{number}", "host": host})
            settings[key] = kept + added
            cabled = set(device.get("lab_switch_cabling") or []) - (dropped - used)
            device["lab_switch_cabling"] = sorted(
                cabled | {_front_panel(link["port"])[1] for link in added}
            )


def write_inventory(nodes: int) -> Path:
    """inventories/lab with N compute nodes, in .cache/bench/inventory-N.

    Nodes the lab defines keep their own settings (each lab node runs another NIC
    renderer); the others take the renderer the role picks for the OS.
    """
    inventory = yaml.safe_load((ROOT / "inventories" / "lab" / "hosts.yml").read_text())
    lab_hosts = inventory["all"]["children"]["compute"]["hosts"]
    hosts = {}
    for index in range(1, nodes + 1):
        name, settings = compute_host(index)
        hosts[name] = {**(lab_hosts.get(name) or {}), **settings}
    inventory["all"]["children"]["compute"]["hosts"] = hosts
    cable_compute_nodes(inventory, list(hosts))
    directory = WORK / f"inventory-{nodes}"
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "hosts.yml").write_text(yaml.safe_dump(inventory, sort_keys=False))
    group_vars = directory / "group_vars"
    if group_vars.is_symlink() or group_vars.exists():
        group_vars.unlink()
    group_vars.symlink_to(ROOT / "inventories" / "lab" / "group_vars")
    return directory


def defaults_config() -> Path:
    """An ansible.cfg with only the paths the project needs: ansible-core's defaults
    for everything else (no pipelining, 5 forks, no fact cache, implicit gathering)."""
    WORK.mkdir(parents=True, exist_ok=True)
    path = WORK / "ansible-defaults.cfg"
    path.write_text(
        "[defaults]\n"
        f"roles_path = {ROOT / 'roles'}\n"
        f"library = {ROOT / 'library'}\n"
        f"module_utils = {ROOT / 'module_utils'}\n"
        f"filter_plugins = {ROOT / 'filter_plugins'}\n"
        f"doc_fragment_plugins = {ROOT / 'doc_fragments'}\n"
        f"collections_path = {ROOT / '.cache' / 'collections'}\n"
        "inventory = /dev/null\n"
    )
    return path


def _ping_play(name: str, counts: dict[str, int]) -> dict[str, Any]:
    """One play: per host, `counts[host]` ping tasks (a host with fewer skips the rest)."""
    return {
        "name": name,
        "hosts": ",".join(sorted(counts)),
        "gather_facts": False,
        "vars": {"bench_floor_counts": counts},
        "tasks": [
            {
                "name": f"Trivial task {i}",
                "ansible.builtin.ping": None,
                "when": f"bench_floor_counts[inventory_hostname] >= {i}",
            }
            for i in range(1, max(counts.values(), default=0) + 1)
        ],
    }


def floor_playbook(hosts: dict[str, dict[str, Any]]) -> Path:
    """The bare floor: per host, as many ping tasks as it executed in the no-op pass.

    One play over every host, so every host runs its tasks at the same time: the switches'
    and the Isilon's tasks overlap the servers' here, while site.yml runs them in plays
    one after the other (network before compute, the OneFS API before the mounts).
    """
    counts = {host: int(stats["executed"]) for host, stats in hosts.items() if stats["executed"]}
    play = _ping_play("Trivial tasks, as many per host as the no-op pass executed there", counts)
    path = WORK / "floor.yml"
    path.write_text(yaml.safe_dump([play], sort_keys=False))
    return path


def plays_floor_playbook(plays: list[dict[str, Any]]) -> Path:
    """The same-plays floor: site.yml's plays in their order, over the same hosts, each
    host running as many ping tasks in each play as it executed there in the no-op pass.

    It keeps the order the layers depend on (one play after the other) and replaces
    every task by the cheapest there is, so it is what a no-op with these plays and this
    many tasks cannot beat; what the no-op spends above it is the tasks' own cost and
    the rounds in which every host skips.
    """
    playbook = [
        _ping_play(f"Trivial tasks for: {play['name']}", dict(play["executed"]))
        for play in plays
        if play["executed"]
    ]
    path = WORK / "floor-plays.yml"
    path.write_text(yaml.safe_dump(playbook, sort_keys=False))
    return path


class Runner:
    def __init__(self, started: float, log_dir: Path) -> None:
        self.started = started
        self.log_dir = log_dir

    def run(
        self,
        label: str,
        argv: list[str],
        inventory: Path,
        config: Path | None = None,
        stats: bool = True,
    ) -> dict[str, Any]:
        log = self.log_dir / f"{label}.log"
        stats_file = self.log_dir / f"{label}.json"
        env = {
            **os.environ,
            "PATH": f"{VENV_BIN}:{os.environ.get('PATH', '')}",
            "ANSIBLE_CONFIG": str(config or ROOT / "ansible.cfg"),
            "ANSIBLE_NOCOLOR": "1",
            "DLCLUSTER_LAB_STATE": str(STATE),
            "DLCLUSTER_LAB_INVENTORY": str(inventory),
        }
        if stats:
            enabled = "bench_stats" if config else "ansible.posix.profile_tasks,bench_stats"
            env.update(
                ANSIBLE_CALLBACK_PLUGINS=str(ROOT / "bench" / "callback_plugins"),
                ANSIBLE_CALLBACKS_ENABLED=enabled,
                DLCLUSTER_BENCH_STATS=str(stats_file),
            )
        progress(f"{label}: {' '.join(argv)} (log: {log.relative_to(ROOT)})", self.started)
        began = time.monotonic()
        with log.open("w") as out:
            code = subprocess.call(argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        wall = round(time.monotonic() - began, 1)
        if code != 0:
            tail = "".join(log.read_text().splitlines(keepends=True)[-30:])
            raise SystemExit(f"bench: {label} failed (exit {code}) after {wall}s:\n{tail}")
        result: dict[str, Any] = {"wall_seconds": wall}
        if stats:
            recorded = json.loads(stats_file.read_text())
            result.update(summarise(recorded["hosts"]))
            result["hosts"] = recorded["hosts"]
            result["slowest_tasks"] = recorded["slowest_tasks"]
            result["ran_tasks"] = recorded.get("ran_tasks", [])
            result["plays"] = recorded.get("plays", [])
        progress(f"{label}: done in {wall}s", self.started)
        return result


def summarise(hosts: dict[str, dict[str, Any]]) -> dict[str, Any]:
    compute = {h: s for h, s in hosts.items() if h.startswith("lab-compute-")}
    count = max(len(compute), 1)
    return {
        "task_executions": sum(s["executed"] for s in hosts.values()),
        "skipped": sum(s["skipped"] for s in hosts.values()),
        "changed": sum(s["changed"] for s in hosts.values()),
        "failed": sum(s["failed"] + s["unreachable"] for s in hosts.values()),
        "executions_per_compute_host": round(
            sum(s["executed"] for s in compute.values()) / count, 1
        ),
        "max_executions_on_a_compute_host": max(
            (s["executed"] for s in compute.values()), default=0
        ),
        "seconds_per_compute_host": round(sum(s["seconds"] for s in compute.values()) / count, 1),
    }


def edited_policies(idle_days: int) -> str:
    """`-e` for the lab's file pool policies (the onefs_tiering role's defaults) with the
    first one's idle days set to `idle_days`: an admin's most common edit."""
    defaults = yaml.safe_load(
        (ROOT / "roles" / "onefs_tiering" / "defaults" / "main.yml").read_text()
    )
    policies = [dict(policy) for policy in defaults["onefs_tiering_policies"]]
    policies[0]["idle_days"] = idle_days
    return json.dumps({"onefs_tiering_policies": policies})


def job_seconds(run: dict[str, Any]) -> float:
    """Seconds of the SmartPools job task in a run (0 when it did not run: a skip of it
    takes some hundredths too, and a lean run lists it among its slowest tasks)."""
    if not any(name.endswith(TIER_JOB_TASK) for name in run.get("ran_tasks", [])):
        return 0.0
    return next(
        (seconds for name, seconds in run.get("slowest_tasks", {}).items()
         if name.endswith(TIER_JOB_TASK)),
        0.0,
    )  # fmt: skip


def median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Of repeated runs of one phase, the one with the median wall time, with every
    run's wall time (in the order they ran) under `wall_seconds_all`."""
    chosen = dict(sorted(runs, key=lambda run: run["wall_seconds"])[len(runs) // 2])
    chosen["wall_seconds_all"] = [run["wall_seconds"] for run in runs]
    return chosen


def bench(nodes: int, runner: Runner, keep_lab: bool, repeat: int = 1) -> dict[str, Any]:
    """One N: lab up, converge, then the no-op and both floors `repeat` times each (the
    median run is kept: the floors of two runs of the same code differed by a third)."""
    inventory = write_inventory(nodes)
    lab = [str(ROOT / "lab" / "bin" / "lab")]
    playbook = [str(VENV_BIN / "ansible-playbook"), "-i", str(inventory)]
    site = [*playbook, "site.yml"]

    runner.run(f"n{nodes}-lab-down", [*lab, "down"], inventory, stats=False)
    shutil.rmtree(ROOT / ".cache" / "facts", ignore_errors=True)
    lab_up = runner.run(f"n{nodes}-lab-up", [*lab, "up"], inventory, stats=False)

    def repeated(label: str, argv: list[str]) -> list[dict[str, Any]]:
        return [
            runner.run(label if i == 0 else f"{label}-{i + 1}", argv, inventory)
            for i in range(repeat)
        ]

    converge = runner.run(f"n{nodes}-converge", site, inventory)
    noops = repeated(f"n{nodes}-noop", site)
    runs = {
        "lab_up": lab_up,
        "converge": converge,
        "noop": median_run(noops),
        "noop_defaults": runner.run(f"n{nodes}-noop-defaults", site, inventory, defaults_config()),
    }
    changed = [run for run in [*noops, runs["noop_defaults"]] if run["changed"]]
    if changed:
        raise SystemExit(f"bench: a no-op pass at N={nodes} changed something")
    tier = [*site, "--tags", "onefs"]
    changes = []
    for i in range(repeat):
        suffix = "" if i == 0 else f"-{i + 1}"
        edit = [*tier, "-e", edited_policies(TIER_EDIT_IDLE_DAYS)]
        changes.append(runner.run(f"n{nodes}-tier-change{suffix}", edit, inventory))
        changes.append(runner.run(f"n{nodes}-tier-back{suffix}", tier, inventory))
    if any(not run["changed"] or not job_seconds(run) for run in changes):
        raise SystemExit(f"bench: a tier edit at N={nodes} changed nothing or ran no job")
    for run in changes:
        run["job_seconds"] = job_seconds(run)
        run["without_job_seconds"] = round(run["wall_seconds"] - run["job_seconds"], 1)
    runs["tier_change"] = median_run(changes)
    runs["tier_rerun"] = median_run(repeated(f"n{nodes}-tier-rerun", tier))
    if runs["tier_rerun"]["changed"] or job_seconds(runs["tier_rerun"]):
        raise SystemExit(f"bench: `--tags onefs` at N={nodes} with no edit changed something")
    floor = floor_playbook(runs["noop"]["hosts"])
    runs["floor"] = median_run(repeated(f"n{nodes}-floor", [*playbook, str(floor)]))
    plays_floor = plays_floor_playbook(runs["noop"]["plays"])
    runs["floor_plays"] = median_run(
        repeated(f"n{nodes}-floor-plays", [*playbook, str(plays_floor)])
    )
    if not keep_lab:
        runner.run(f"n{nodes}-lab-down-end", [*lab, "down"], inventory, stats=False)
    return {
        "nodes": nodes,
        "runs": runs,
        "tuned_over_defaults": round(
            runs["noop"]["wall_seconds"] / runs["noop_defaults"]["wall_seconds"], 2
        ),
        "noop_over_floor": round(runs["noop"]["wall_seconds"] / runs["floor"]["wall_seconds"], 2),
        "noop_over_plays_floor": round(
            runs["noop"]["wall_seconds"] / runs["floor_plays"]["wall_seconds"], 2
        ),
    }


def commit() -> str:
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return f"{head}-dirty" if dirty else head


def ansible_core_version() -> str:
    out = subprocess.run(
        [str(VENV_BIN / "ansible-playbook"), "--version"], capture_output=True, text=True
    ).stdout
    match = re.search(r"core ([\d.]+)", out)
    return match.group(1) if match else "unknown"


def seconds(run: dict[str, Any]) -> str:
    """A phase's wall time; for repeated runs the median and, after it, the range."""
    spread = run.get("wall_seconds_all") or []
    text = f"{run['wall_seconds']:.1f} s"
    if len(spread) > 1:
        text += f" ({min(spread):.1f} to {max(spread):.1f})"
    return text


def table(results: dict[str, Any]) -> str:
    repeat = results.get("repeat", 1)
    lines = [
        f"Commit `{results['commit']}`, {results['date']}, {results['cores']} cores, "
        f"ansible-core {results['ansible_core']}, Python {results['python']}."
        + (f" No-op and floors: median of {repeat} runs, range in brackets." if repeat > 1 else ""),
        "",
        "| compute nodes | lab up | converge | converge changed | no-op | no-op, core defaults "
        "| tuned / defaults | tasks per compute host (no-op) | time per compute host (no-op) "
        "| bare floor | no-op / floor | same-plays floor | no-op / same-plays floor |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for entry in results["nodes"]:
        runs = entry["runs"]
        lines.append(
            f"| {entry['nodes']} | {runs['lab_up']['wall_seconds']:.0f} s "
            f"| {runs['converge']['wall_seconds']:.0f} s | {runs['converge']['changed']} "
            f"| {seconds(runs['noop'])} "
            f"| {runs['noop_defaults']['wall_seconds']:.1f} s "
            f"| {entry['tuned_over_defaults']:.2f} "
            f"| {runs['noop']['executions_per_compute_host']:.0f} "
            f"(most {runs['noop'].get('max_executions_on_a_compute_host', '?')}; "
            f"+{runs['noop']['skipped']} skips in all) "
            f"| {runs['noop']['seconds_per_compute_host']:.1f} s "
            f"| {seconds(runs['floor'])} | {entry['noop_over_floor']:.2f} "
            f"| {seconds(runs['floor_plays'])} "
            f"| {entry['noop_over_plays_floor']:.2f} |"
        )
    return "\n".join(lines)


def tier_table(results: dict[str, Any]) -> str:
    """The tier change end to end, the SmartPools job apart, and the same command with
    nothing to change."""
    lines = [
        "The tier change, `site.yml --tags onefs` after editing a file pool policy's idle"
        " days (median of the edits and the put-backs; the SmartPools job's run time,"
        " which the role waits for, apart), and the same command with nothing to change:",
        "",
        "| compute nodes | tier change | of which the SmartPools job | tier change without the"
        " job | tasks (all hosts) | nothing to change |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for entry in results["nodes"]:
        change, rerun = entry["runs"].get("tier_change"), entry["runs"].get("tier_rerun")
        if not change or not rerun:
            continue
        lines.append(
            f"| {entry['nodes']} | {seconds(change)} | {change['job_seconds']:.1f} s "
            f"| {change['without_job_seconds']:.1f} s | {change['task_executions']} "
            f"| {seconds(rerun)} |"
        )
    return "\n".join(lines)


def plays_table(entry: dict[str, Any]) -> str:
    """Where one N's no-op goes, play by play: its wall time, the task executions on the
    compute hosts (the first, which runs the once-for-all tasks, and the most on any
    other), on the other hosts, and the skips, so that a regression names its play."""
    lines = [
        f"No-op at {entry['nodes']} compute nodes, play by play:",
        "",
        "| play | seconds | tasks, first compute host | tasks, other compute hosts (most) "
        "| tasks, other hosts | skips |",
        "|---|---:|---:|---:|---|---:|",
    ]
    for play in entry["runs"]["noop"].get("plays", []):
        executed = play["executed"]
        compute = sorted((h for h in executed if h.startswith("lab-compute-")),
                         key=lambda h: int(h.rsplit("-", 1)[1]))  # fmt: skip
        first = executed[compute[0]] if compute else 0
        others = max((executed[h] for h in compute[1:]), default=0)
        rest = ", ".join(
            f"{h} {n}" for h, n in executed.items() if not h.startswith("lab-compute-")
        )
        lines.append(
            f"| {play['name']} | {play.get('wall_seconds', 0):.1f} | {first if compute else ''} "
            f"| {others if len(compute) > 1 else ''} | {rest} "
            f"| {sum(play.get('skipped', {}).values())} |"
        )
    return "\n".join(lines)


def write_doc(results: dict[str, Any]) -> None:
    text = DOC.read_text()
    start, end = text.index(TABLE_START), text.index(TABLE_END)
    body = "\n\n".join(
        [table(results), tier_table(results), *(plays_table(e) for e in results["nodes"])]
    )
    DOC.write_text(text[: start + len(TABLE_START)] + "\n" + body + "\n" + text[end:])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("nodes", nargs="*", type=int, default=[2, 8, 16])
    parser.add_argument("--keep-lab", action="store_true", help="leave the last lab up")
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--no-doc", action="store_true", help="do not rewrite docs/benchmarks.md")
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="runs of the no-op and of each floor per N; the median is kept (default 3)",
    )
    args = parser.parse_args()
    if any(n < 1 for n in args.nodes):
        parser.error("N must be at least 1")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")

    started = time.monotonic()
    log_dir = WORK / "logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    runner = Runner(started, log_dir)
    results: dict[str, Any] = {
        "commit": commit(),
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cores": os.cpu_count(),
        "ansible_core": ansible_core_version(),
        "python": platform.python_version(),
        "repeat": args.repeat,
        "nodes": [],
    }
    for index, nodes in enumerate(args.nodes):
        keep = args.keep_lab and index == len(args.nodes) - 1
        progress(f"N={nodes}: start", started)
        results["nodes"].append(bench(nodes, runner, keep, args.repeat))
        args.results.write_text(json.dumps(results, indent=2) + "\n")
    if not args.no_doc:
        write_doc(results)
    print(table(results))
    print()
    print(tier_table(results))
    for entry in results["nodes"]:
        print()
        print(plays_table(entry))
    return 0


if __name__ == "__main__":
    sys.exit(main())
