#!/usr/bin/python
"""Start a OneFS job (SmartPools by default) and optionally wait for it."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: onefs_job
short_description: Start a OneFS job such as SmartPools and wait for its result
description:
  - Does not start a job when one of the same type is already running or paused; it
    reports that job instead (changed=false), as Dell's collection does. With O(wait)
    it waits for that job rather than starting a second one.
  - With O(wait), polls the job until it reaches a final state and returns each
    progress line seen; a failed or cancelled job fails the task, and a job still
    running (or paused) after O(wait_timeout) fails it with a message that says which
    job, its state, phase and progress.
  - Uses the newest job API version the cluster serves (GET /platform/latest).
version_added: "1.0.0"
extends_documentation_fragment: [onefs]
options:
  job_type:
    description: Job type.
    type: str
    default: SmartPools
  policy:
    description: Impact policy.
    type: str
    choices: [LOW, MEDIUM, HIGH, OFF_HOURS]
  priority:
    description: Priority 1 (highest) to 10.
    type: int
  paths:
    description: Paths the job works on (types that take them).
    type: list
    elements: str
  wait:
    description: Wait for the job (the started one, or the one already running) to finish.
    type: bool
    default: false
  wait_timeout:
    description: Seconds to wait.
    type: int
    default: 3600
  wait_interval:
    description:
      - Longest time between polls, in seconds. The first poll comes after O(wait_first)
        and each wait doubles up to this, so a job of seconds is seen ending within a
        fraction of its run time and a job of hours is polled every O(wait_interval).
    type: float
    default: 5
  wait_first:
    description: Seconds before the first poll.
    type: float
    default: 0.5
author: dlcluster
"""

EXAMPLES = r"""
- name: Apply the file pool policies now and wait for the result
  onefs_job:
    onefs_host: isilon.example
    api_user: admin
    api_password: "{{ vault_onefs_password }}"
    job_type: SmartPools
    wait: true
"""

RETURN = r"""
job:
  description: The job started (or found running), with its id and state.
  returned: always
  type: dict
  sample: {id: 12, type: SmartPools, state: succeeded}
progress:
  description: The job's progress lines seen while waiting, oldest first.
  returned: when O(wait) is true
  type: list
  elements: str
  sample: ["running, phase 1/2: Processed 4 of 16 files", "succeeded, phase 2/2: Processed 16"]
"""

import time

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.onefs import OneFSError, onefs_argument_spec, run

FINAL_OK = {"succeeded"}
FINAL_BAD = {"failed", "failed_not_retried", "cancelled_user", "cancelled_system"}
# API versions of the job resources (Dell's SDKs, isi-sdk-9-1-0 and isilon-sdk 0.7.0, call
# /10 up to 9.7, /19 on 9.8-9.9 and /21 from 9.10)
JOBS = ("job/jobs", (3, 10, 21))
RECENT = ("job/recent", (3,))


def describe(job):
    """One progress line: state, phase and the engine's progress text."""
    phase = (
        f", phase {job['current_phase']}/{job['total_phases']}" if "current_phase" in job else ""
    )
    text = f": {job['progress']}" if job.get("progress") else ""
    return f"{job['state']}{phase}{text}"


def read_job(client, job_id):
    """A job by id; one that has left /job/jobs is looked up among the recent ones."""
    try:
        return client.get(f"{client.path(*JOBS)}/{job_id}")["jobs"][0]
    except OneFSError as err:
        if err.status != 404:
            raise
    # whether finished jobs stay at /job/jobs/{id} is unverified (dellemc.powerscale's job
    # module assumes they do)
    recent = client.get(client.path(*RECENT), query={"limit": 100})["recent_jobs"]
    return next((j for j in recent if j["id"] == job_id), {"id": job_id, "state": "unknown"})


def wait_for(module, client, job, sleep=time.sleep, clock=time.monotonic):
    """Poll until the job ends; (job, progress lines). Fails on a bad end or timeout."""
    params = module.params
    deadline = clock() + params["wait_timeout"]
    delay = min(params["wait_first"], params["wait_interval"])
    seen = []
    while True:
        job = read_job(client, job["id"])
        line = describe(job)
        if not seen or seen[-1] != line:
            seen.append(line)
        if job["state"] in FINAL_OK:
            return job, seen
        if job["state"] in FINAL_BAD:
            module.fail_json(
                msg=f"{job['type']} job {job['id']} ended {job['state']}", job=job, progress=seen
            )
        if clock() >= deadline:
            module.fail_json(
                msg=f"{job.get('type', params['job_type'])} job {job['id']} is still "
                f"{line} after {params['wait_timeout']} s; it keeps running on the cluster",
                job=job,
                progress=seen,
            )
        sleep(delay)
        delay = min(delay * 2, params["wait_interval"])


def main():
    spec = onefs_argument_spec()
    spec.update(
        job_type={"type": "str", "default": "SmartPools"},
        policy={"type": "str", "choices": ["LOW", "MEDIUM", "HIGH", "OFF_HOURS"]},
        priority={"type": "int"},
        paths={"type": "list", "elements": "str"},
        wait={"type": "bool", "default": False},
        wait_timeout={"type": "int", "default": 3600},
        wait_interval={"type": "float", "default": 5},
        wait_first={"type": "float", "default": 0.5},
    )
    module = AnsibleModule(argument_spec=spec, supports_check_mode=True)
    params = module.params
    if params["priority"] is not None and not 1 <= params["priority"] <= 10:
        module.fail_json(msg=f"priority must be from 1 to 10, got {params['priority']}")

    def work(client):
        jobs_path = client.path(*JOBS)
        active = [j for j in client.get(jobs_path)["jobs"] if j["type"] == params["job_type"]]
        if active:
            result = {
                "changed": False,
                "job": active[0],
                "msg": "a job of this type is already active",
            }
            if params["wait"] and not module.check_mode:
                result["job"], result["progress"] = wait_for(module, client, active[0])
            return result
        if module.check_mode:
            return {"changed": True, "job": {"type": params["job_type"], "state": "would start"}}
        body = {"type": params["job_type"]}
        for key in ("policy", "priority", "paths"):
            if params[key] is not None:
                body[key] = params[key]
        job_id = client.post(jobs_path, body)["id"]
        job = {"id": job_id, "type": params["job_type"], "state": "running"}
        if not params["wait"]:
            return {"changed": True, "job": job}
        job, progress = wait_for(module, client, job)
        return {"changed": True, "job": job, "progress": progress}

    module.exit_json(**run(module, work))


if __name__ == "__main__":
    main()
