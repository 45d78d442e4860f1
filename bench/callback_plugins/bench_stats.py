"""Record what a playbook run cost, per host, for bench/run.py.

Enabled only by the bench (ANSIBLE_CALLBACKS_ENABLED=bench_stats); writes one JSON file
to $DLCLUSTER_BENCH_STATS when the run ends:

    {"wall_seconds": .., "hosts": {host: {"executed": .., "skipped": .., "changed": ..,
     "failed": .., "unreachable": .., "seconds": ..}}, "slowest_tasks": {task name: seconds},
     "ran_tasks": [names of the tasks that ran somewhere, not only skipped],
     "plays": [{"name": .., "wall_seconds": .., "executed": {host: ..}, "skipped": {host: ..},
                "seconds": {host: ..}}]}

`executed` counts task results that were not skipped (a loop is one execution, an
include is one); `seconds` sums, per host, the time from a task starting on that host
to its result. `plays` lists the plays in the order they ran, with each play's wall time
and the tasks each host executed, skipped and the seconds it spent in it (the bench's
per-play floor repeats the executions' shape with trivial tasks; its per-play table shows
where a no-op's time and tasks go, so a regression names its play).
"""

from __future__ import annotations

import json
import os
import time
from collections import defaultdict

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = """
name: bench_stats
type: aggregate
short_description: per-host task counts and times for the dlcluster bench
description:
  - Writes task executions, skips, changes and time per host to the JSON file named by
    the DLCLUSTER_BENCH_STATS environment variable when the playbook ends.
requirements:
  - enabled in callbacks_enabled
"""


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "bench_stats"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self) -> None:
        super().__init__()
        self._started = time.monotonic()
        self._task_start: dict[tuple[str, str], float] = {}
        self._hosts: dict[str, dict[str, float]] = defaultdict(
            lambda: {
                "executed": 0,
                "skipped": 0,
                "changed": 0,
                "failed": 0,
                "unreachable": 0,
                "seconds": 0.0,
            }
        )
        self._tasks: dict[str, float] = defaultdict(float)
        self._ran: set[str] = set()
        self._plays: list[dict] = []

    def _close_play(self) -> None:
        if self._plays and "wall_seconds" not in self._plays[-1]:
            self._plays[-1]["wall_seconds"] = round(time.monotonic() - self._plays[-1]["began"], 2)

    def v2_playbook_on_play_start(self, play) -> None:
        self._close_play()
        self._plays.append(
            {
                "name": play.get_name(),
                "began": time.monotonic(),
                "executed": defaultdict(int),
                "skipped": defaultdict(int),
                "seconds": defaultdict(float),
            }
        )

    def _key(self, result) -> tuple[str, str]:
        return (result._host.get_name(), result._task._uuid)

    def v2_runner_on_start(self, host, task) -> None:
        self._task_start[(host.get_name(), task._uuid)] = time.monotonic()

    def _record(self, result, outcome: str) -> None:
        host = result._host.get_name()
        stats = self._hosts[host]
        started = self._task_start.pop(self._key(result), None)
        spent = 0.0
        if started is not None:
            spent = time.monotonic() - started
            stats["seconds"] += spent
            self._tasks[result._task.get_name()] += spent
        if self._plays:
            self._plays[-1]["seconds"][host] += spent
        if outcome == "skipped":
            stats["skipped"] += 1
            if self._plays:
                self._plays[-1]["skipped"][host] += 1
            return
        self._ran.add(result._task.get_name())
        stats["executed"] += 1
        if self._plays:
            self._plays[-1]["executed"][host] += 1
        if outcome in ("failed", "unreachable"):
            stats[outcome] += 1
        elif result._result.get("changed"):
            stats["changed"] += 1

    def v2_runner_on_ok(self, result) -> None:
        self._record(result, "ok")

    def v2_runner_on_failed(self, result, ignore_errors=False) -> None:
        self._record(result, "failed")

    def v2_runner_on_skipped(self, result) -> None:
        self._record(result, "skipped")

    def v2_runner_on_unreachable(self, result) -> None:
        self._record(result, "unreachable")

    def v2_playbook_on_stats(self, stats) -> None:
        path = os.environ.get("DLCLUSTER_BENCH_STATS")
        if not path:
            return
        self._close_play()
        slowest = sorted(self._tasks.items(), key=lambda item: item[1], reverse=True)[:15]
        report = {
            "wall_seconds": round(time.monotonic() - self._started, 2),
            "hosts": {
                host: {k: round(v, 2) if isinstance(v, float) else v for k, v in s.items()}
                for host, s in sorted(self._hosts.items())
            },
            "slowest_tasks": {name: round(seconds, 2) for name, seconds in slowest},
            "ran_tasks": sorted(self._ran),
            "plays": [
                {
                    "name": play["name"],
                    "wall_seconds": play["wall_seconds"],
                    "executed": dict(sorted(play["executed"].items())),
                    "skipped": dict(sorted(play["skipped"].items())),
                    "seconds": {h: round(v, 2) for h, v in sorted(play["seconds"].items())},
                }
                for play in self._plays
                if play["executed"]
            ],
        }
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=2)
