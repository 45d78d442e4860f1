#!/usr/bin/python
"""Start a OneFS job (SmartPools by default) and optionally wait for it."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: onefs_job
short_description: Start a OneFS job such as SmartPools and wait for its result
description:
  - Does not start a job when one of the same type is already running or paused; it
    reports that job instead (changed=false), as Dell's collection does.
  - With O(wait), polls the job until it reaches a final state; a failed or cancelled
    job fails the task.
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
    description: Wait for the job to finish.
    type: bool
    default: false
  wait_timeout:
    description: Seconds to wait.
    type: int
    default: 3600
  wait_interval:
    description: Seconds between polls.
    type: int
    default: 5
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
"""

import time

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.onefs import OneFSError, onefs_argument_spec, run

FINAL_OK = {"succeeded"}
FINAL_BAD = {"failed", "failed_not_retried", "cancelled_user", "cancelled_system"}


def main():
    spec = onefs_argument_spec()
    spec.update(
        job_type={"type": "str", "default": "SmartPools"},
        policy={"type": "str", "choices": ["LOW", "MEDIUM", "HIGH", "OFF_HOURS"]},
        priority={"type": "int"},
        paths={"type": "list", "elements": "str"},
        wait={"type": "bool", "default": False},
        wait_timeout={"type": "int", "default": 3600},
        wait_interval={"type": "int", "default": 5},
    )
    module = AnsibleModule(argument_spec=spec, supports_check_mode=True)
    params = module.params

    def read_job(client, job_id):
        try:
            return client.get(f"3/job/jobs/{job_id}")["jobs"][0]
        except OneFSError as err:
            if err.status != 404:
                raise
            # Spec section 12: finished jobs may leave /job/jobs; look in the recent ones.
            recent = client.get("3/job/recent")["recent_jobs"]
            return next(
                (j for j in recent if j["id"] == job_id), {"id": job_id, "state": "unknown"}
            )

    def work(client):
        running = [j for j in client.get("3/job/jobs")["jobs"] if j["type"] == params["job_type"]]
        if running:
            return {
                "changed": False,
                "job": running[0],
                "msg": "a job of this type is already active",
            }
        if module.check_mode:
            return {"changed": True, "job": {"type": params["job_type"], "state": "would start"}}
        body = {"type": params["job_type"]}
        for key in ("policy", "priority", "paths"):
            if params[key] is not None:
                body[key] = params[key]
        job_id = client.post("3/job/jobs", body)["id"]
        job = {"id": job_id, "type": params["job_type"], "state": "running"}
        deadline = time.monotonic() + params["wait_timeout"]
        while params["wait"]:
            job = read_job(client, job_id)
            if job["state"] in FINAL_OK:
                break
            if job["state"] in FINAL_BAD:
                module.fail_json(
                    msg=f"{params['job_type']} job {job_id} ended {job['state']}", job=job
                )
            if time.monotonic() > deadline:
                module.fail_json(
                    msg=f"{params['job_type']} job {job_id} still {job['state']} after "
                    f"{params['wait_timeout']} s",
                    job=job,
                )
            time.sleep(params["wait_interval"])
        return {"changed": True, "job": job}

    module.exit_json(**run(module, work))


if __name__ == "__main__":
    main()
