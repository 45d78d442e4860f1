"""The job engine: jobs that take time, pause, resume and cancel, over the shared state.

A job's progress is a function of the time it has spent running, so it needs no thread
of its own: every reader (any node's API, the isi command) calls `advance()` under the
state lock first, and a job whose run time has reached its duration finishes there.
That keeps jobs in the one state file the Isilon nodes share and across restarts.

Facts: isilon-sdk's job models (states, required fields, control through PUT {"state":
run|pause|cancel}) and dellemc.powerscale's job module (what each control leads to); the
sources in brackets are named in the package docstring (__init__.py). The job engine's
timing is a lab setting (cluster config "job_engine", or the environment), not a fact.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

# The SDK's state enum [isilon-sdk: JobJobExtended]; there is no "queued" (emitting it
# breaks the SDK), so a job waiting for another is `running` with `waiting_on` set.
FINAL_STATES = {"succeeded", "failed", "cancelled_user", "cancelled_system", "failed_not_retried"}
PAUSED_STATES = {"paused_user", "paused_system", "paused_policy", "paused_priority"}
IMPACT = {"LOW": "Low", "MEDIUM": "Medium", "HIGH": "High", "OFF_HOURS": "Low"}
POLICIES = set(IMPACT)
DEFAULT_TIMING = {"base_seconds": 3.0, "seconds_per_file": 0.02}

# Job types the lab cluster lists (GET /platform/1/job/types). Names, policies and
# priorities follow OneFS's documented defaults for these types; the descriptions are
# the simulator's own wording (unverified). exclusion_set is obsolete and always an empty
# string [isilon-sdk: JobTypeExtended].
JOB_TYPES = {
    "SmartPools": ("Enforce SmartPools file pool policies.", "LOW", 6, "every day at 22:00"),
    "SmartPoolsTree": ("Enforce SmartPools file pool policies on a subtree.", "MEDIUM", 5, None),
    "FilePolicy": ("File system policy enforcement.", "LOW", 6, None),
    "SetProtectPlus": ("Apply the default file policy.", "LOW", 6, None),
    "FlexProtect": ("Scan the file system after a device failure.", "MEDIUM", 1, None),
    "MultiScan": ("Perform AutoBalance and Collect jobs concurrently.", "LOW", 4, None),
    "AutoBalance": ("Balance free space in the cluster.", "LOW", 4, None),
    "TreeDelete": ("Delete a path in /ifs.", "MEDIUM", 4, None),
}


def initial_types() -> dict[str, dict[str, Any]]:
    """The job types of a fresh cluster (SmartPools runs daily at 22:00 by default: seed 000
    §"Storage Tiering", seed 001)."""
    types = {}
    for name, (description, policy, priority, schedule) in JOB_TYPES.items():
        types[name] = {
            "id": name,
            "description": description,
            "enabled": True,
            "policy": policy,
            "priority": priority,
            "allow_multiple_instances": False,
            "exclusion_set": "",
            "hidden": False,
        }
        if schedule:
            # The exact default schedule string is unverified.
            types[name]["schedule"] = schedule
    return types


def timing(config: dict[str, Any]) -> dict[str, float]:
    """How long jobs run: the environment wins over the cluster config's job_engine."""
    out = {**DEFAULT_TIMING, **(config.get("job_engine") or {})}
    for key, env in (
        ("base_seconds", "ONEFS_SIM_JOB_SECONDS"),
        ("seconds_per_file", "ONEFS_SIM_JOB_SECONDS_PER_FILE"),
    ):
        if os.environ.get(env):
            out[key] = float(os.environ[env])
    return out


def count_files(ifs_root: str) -> int:
    """Files a tree walk visits (SmartPools visits every file under /ifs)."""
    total = 0
    for _directory, dirs, names in os.walk(ifs_root):
        dirs[:] = [d for d in dirs if d != ".ifsvar"]
        total += len(names)
    return total


def create(
    state: dict[str, Any], body: dict[str, Any], files: int, clock: dict[str, float]
) -> dict[str, Any]:
    """A new job record; the caller has validated the body."""
    kind = body["type"]
    job_type = state["job_types"][kind]
    now = time.time()
    policy = body.get("policy", job_type["policy"])
    active = [j for j in state["jobs"] if j["type"] == kind and j["state"] not in FINAL_STATES]
    job = {
        "id": state["next_job_id"],
        "type": kind,
        "state": "running",
        "control_state": "running",
        "impact": IMPACT.get(policy, "Low"),
        "policy": policy,
        "priority": body.get("priority", job_type["priority"]),
        "current_phase": 1,
        "total_phases": 2 if kind == "SmartPools" else 1,
        "progress": "Waiting to start" if active else "Started",
        "create_time": int(now),
        "retries_remaining": 3,
        "participants": [n["lnn"] for n in state["cluster"]["nodes"]],
        "paths": body.get("paths") or ["/ifs"],
        "description": job_type["description"],
        "human_desc": job_type["description"],
        # the simulator's own bookkeeping (underscore keys are never shown)
        "_files": files,
        "_duration": clock["base_seconds"] + clock["seconds_per_file"] * files,
        "_ran": 0.0,
        "_since": None if active else now,
    }
    if active:
        job["waiting_on"] = active[-1]["id"]
    else:
        job["start_time"] = int(now)
    state["next_job_id"] += 1
    state["jobs"].append(job)
    _event(state, job, "Job started" if not active else "Job queued")
    return job


def advance(state: dict[str, Any], finish: Callable[[dict[str, Any], dict[str, Any]], str]) -> None:
    """Bring every job up to now: progress, start of waiting jobs, completion.

    `finish(state, job)` does the job's work when its time is up (SmartPools evaluates
    the file pool policies) and returns a progress line.
    """
    now = time.time()
    for job in state["jobs"]:
        if job["state"] in FINAL_STATES:
            continue
        waiting = job.get("waiting_on")
        if waiting is not None:
            blocker = next((j for j in state["jobs"] if j["id"] == waiting), None)
            if blocker is None or blocker["state"] in FINAL_STATES:
                job.pop("waiting_on")
                job.update(start_time=int(now), progress="Started", _since=now)
            continue
        if job["state"] != "running" or job.get("_since") is None:
            continue
        ran = job.get("_ran", 0.0) + (now - job["_since"])
        job["running_time"] = int(ran)
        job.setdefault("_files", 0)
        job.setdefault("_duration", 0.0)
        if ran >= job["_duration"]:
            progress = finish(state, job)
            job.update(
                state="succeeded",
                control_state="succeeded",
                current_phase=job["total_phases"],
                progress=progress,
                end_time=int(now),
                _ran=ran,
                _since=None,
            )
            _event(state, job, "Job succeeded")
            _report(state, job)
            continue
        share = ran / job["_duration"] if job["_duration"] else 1.0
        job["current_phase"] = min(job["total_phases"], 1 + int(share * job["total_phases"]))
        job["progress"] = f"Processed {int(share * job['_files'])} of {job['_files']} files"


def control(state: dict[str, Any], job: dict[str, Any], wanted: str) -> None:
    """PUT {"state": run|pause|cancel} (pause -> paused_user, run -> running, cancel ->
    cancelled_user [dellemc.powerscale: job.py's state_map])."""
    now = time.time()
    job.setdefault("_ran", 0.0)
    job.setdefault("_since", None)
    if wanted == "pause" and job["state"] == "running":
        if job.get("_since") is not None:
            job["_ran"] += now - job["_since"]
        job.update(state="paused_user", control_state="paused_user", _since=None)
        _event(state, job, "Job paused")
    elif wanted == "run" and job["state"] in PAUSED_STATES:
        job.update(state="running", control_state="running")
        if job.get("waiting_on") is None:
            job["_since"] = now
        _event(state, job, "Job resumed")
    elif wanted == "cancel":
        if job.get("_since") is not None:
            job["_ran"] += now - job["_since"]
        job.pop("waiting_on", None)
        job.update(
            state="cancelled_user", control_state="cancelled_user", end_time=int(now), _since=None
        )
        job["running_time"] = int(job["_ran"])
        _event(state, job, "Job cancelled")


def view(job: dict[str, Any]) -> dict[str, Any]:
    """The job as the API shows it: no bookkeeping keys and no nulls (the SDK's enum
    setters refuse None [isilon-sdk])."""
    return {k: v for k, v in job.items() if not k.startswith("_") and v is not None}


def _event(state: dict[str, Any], job: dict[str, Any], message: str) -> None:
    """One entry of GET /platform/3/job/events (fields [isilon-sdk models])."""
    events = state.setdefault("job_events", [])
    events.append(
        {
            "id": len(events) + 1,
            "job_id": job["id"],
            "job_type": job["type"],
            "phase": job.get("current_phase", 1),
            "time": int(time.time()),
            "flags": "none",  # the models require 1+ characters; the value is unverified
            "fmt_type": "string",
            "key": "state",
            "raw_type": 1,
            "value": message,
        }
    )


def _report(state: dict[str, Any], job: dict[str, Any]) -> None:
    """The phase report of a finished job (GET /platform/7/job/reports)."""
    reports = state.setdefault("job_reports", [])
    for phase in range(1, job["total_phases"] + 1):
        reports.append(
            {
                "id": len(reports) + 1,
                "job_id": job["id"],
                "job_type": job["type"],
                "phase": phase,
                "time": job.get("end_time", int(time.time())),
                "flags": "none",  # the models require 1+ characters; the value is unverified
                "fmt_type": "int",
                "key": "files_visited",
                "status": job["state"],
                "value": str(job["_files"]),
            }
        )
