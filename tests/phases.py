#!/usr/bin/env python3
"""Time `make test` phase by phase and print where the minutes went.

`make test` runs each of its steps through this script, which appends one line per phase
to .cache/test-phases/phases.jsonl, and ends with `report`: a table of the phases with
their minutes against the budget of tests/budget.yml, and the slowest tests of the unit
and lab suites (from the JUnit XML files pytest writes into .cache/test-phases/).

    phases.py start                        forget the phases of a previous `make test`
    phases.py run NAME -- COMMAND...       run COMMAND as phase NAME
    phases.py molecule -- COMMAND...       run `molecule test`, one phase per Molecule step
    phases.py report                       the table, the slowest tests, the budget's verdict

It needs nothing but the standard library: the first phase makes the venv.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DIR = ROOT / ".cache" / "test-phases"
PHASES = DIR / "phases.jsonl"
BUDGET = ROOT / "tests" / "budget.yml"
# Molecule announces each step: "INFO     default ➜ converge: Executing"
MOLECULE_STEP = re.compile(r"➜ (\w+): Executing")
# ... and how it ended: "INFO     default ➜ verify: Executed: Failed (Verifier tests failed)"
MOLECULE_RESULT = re.compile(r"➜ (\w+): Executed: (\w+)")
ANSI = re.compile(r"\x1b\[[0-9;]*m")
SLOWEST = 20
FAILURE_LINES = 6


def _record(name: str, started: float, ended: float, rc: int | None) -> None:
    DIR.mkdir(parents=True, exist_ok=True)
    with PHASES.open("a", encoding="utf-8") as out:
        out.write(json.dumps({"phase": name, "seconds": round(ended - started, 1), "rc": rc}))
        out.write("\n")


def start() -> int:
    DIR.mkdir(parents=True, exist_ok=True)
    for stale in [PHASES, *DIR.glob("*.xml")]:
        stale.unlink(missing_ok=True)
    return 0


def run(name: str, command: list[str]) -> int:
    started = time.monotonic()
    rc = subprocess.call(command)
    _record(name, started, time.monotonic(), rc)
    return rc


def molecule(command: list[str]) -> int:
    """Run Molecule, passing its output through, and time each step it announces, with
    the result Molecule gives it. The scenario's first destroy (of a lab left over) is
    recorded as `destroy (before)`; a step announced twice in a row is one phase."""
    started = time.monotonic()
    step, step_started, seen, failed = "molecule", started, set(), set()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert process.stdout is not None

    def close(now: float) -> None:
        if step != "molecule" or now - step_started > 1:
            _record(step, step_started, now, 1 if step in failed else 0)

    for raw in process.stdout:
        sys.stdout.buffer.write(raw)
        sys.stdout.buffer.flush()
        line = ANSI.sub("", raw.decode(errors="replace"))
        ended = MOLECULE_RESULT.search(line)
        if ended and ended.group(2) == "Failed":  # live, or in Molecule's closing summary
            failed.add(step if step.startswith(ended.group(1)) else ended.group(1))
        found = MOLECULE_STEP.search(line)
        if not found:
            continue
        name = found.group(1)
        named = f"{name} (before)" if name == "destroy" and not seen else name
        seen.add(name)
        if named == step:
            continue
        now = time.monotonic()
        close(now)
        step, step_started = named, now
    rc = process.wait()
    if rc != 0 and not failed:
        failed.add(step)
    close(time.monotonic())
    return rc


def _budget() -> dict:
    """tests/budget.yml's `make_test` section (read without PyYAML: flat `key: number`)."""
    values: dict[str, float] = {}
    section = False
    for line in BUDGET.read_text(encoding="utf-8").splitlines():
        if re.match(r"^make_test:", line):
            section = True
            continue
        if section and re.match(r"^\S", line):
            break
        match = re.match(r"^\s+(\w+):\s*([\d.]+)", line)
        if section and match:
            values[match.group(1)] = float(match.group(2))
    return values


def _cases():
    """(suite, test case) of every JUnit file pytest wrote into .cache/test-phases/."""
    for path in sorted(DIR.glob("*.xml")):
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError:
            continue
        for case in root.iter("testcase"):
            yield path.stem, case


def _name(suite: str, case: ET.Element) -> str:
    return f"{suite}: {case.get('classname', '')}::{case.get('name', '')}"


def _slowest() -> list[tuple[float, str]]:
    tests = [(float(case.get("time") or 0), _name(suite, case)) for suite, case in _cases()]
    return sorted(tests, reverse=True)[:SLOWEST]


def _failures() -> list[tuple[str, str]]:
    """Every failed or erroring test with the first lines of what pytest said."""
    found = []
    for suite, case in _cases():
        for outcome in ("failure", "error"):
            element = case.find(outcome)
            if element is not None:
                message = (element.get("message") or element.text or "").strip()
                lines = message.splitlines()[:FAILURE_LINES]
                found.append((_name(suite, case), "\n".join(lines)))
    return found


def report() -> int:
    if not PHASES.exists():
        print("phases: nothing was timed")
        return 0
    phases = [json.loads(line) for line in PHASES.read_text().splitlines() if line.strip()]
    total = sum(p["seconds"] for p in phases)
    budget = _budget()
    print("\n==== make test: where the time went " + "=" * 44)
    print(f"{'phase':<20}{'minutes':>9}  result")
    for p in phases:
        result = "ok" if p["rc"] == 0 else f"failed (exit {p['rc']})"
        print(f"{p['phase']:<20}{p['seconds'] / 60:>9.1f}  {result}")
    print(f"{'total':<20}{total / 60:>9.1f}")
    slowest = _slowest()
    if slowest:
        print(f"\nthe {len(slowest)} slowest tests (seconds, setup included):")
        for seconds, name in slowest:
            print(f"{seconds:>8.1f}  {name}")
    failures = _failures()
    if failures:
        print(f"\nthe {len(failures)} failed tests:")
        for name, message in failures:
            print(f"  FAILED {name}")
            for line in message.splitlines():
                print(f"      {line[:200]}")
    ceiling = budget.get("quiet_minutes")
    if ceiling and total / 60 > ceiling:
        print(
            f"\n!!!! OVER BUDGET: make test took {total / 60:.1f} min, the budget is"
            f" {ceiling:g} min on a quiet machine with the Docker layer cache"
            f" ({budget.get('bare_minutes', 0):g} min on a bare one): tests/budget.yml,"
            " docs/testing.md. A change that adds time takes it back elsewhere. !!!!"
        )
    elif ceiling:
        print(f"\nwithin the budget of {ceiling:g} min (tests/budget.yml)")
    return 0


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    verb, rest = argv[0], argv[1:]
    command = rest[rest.index("--") + 1 :] if "--" in rest else []
    if verb == "start":
        return start()
    if verb == "run" and rest and command:
        return run(rest[0], command)
    if verb == "molecule" and command:
        return molecule(command)
    if verb == "report":
        return report()
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
