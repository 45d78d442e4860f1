#!/usr/bin/python
"""Access-time tracking of a OneFS cluster (the papers: enabled, one-day precision)."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: onefs_access_time
short_description: Enable OneFS access-time tracking and set its precision
description:
  - Reads and, when it differs, writes C(/platform/1/filesystem/settings/access-time).
  - File pool policies that match on the accessed time (such as the papers' "idle for
    30 days to the cold tier") need it; Dell advises a precision of at least one day.
version_added: "1.0.0"
extends_documentation_fragment: [onefs]
options:
  enabled:
    description: Track access times.
    type: bool
    required: true
  precision:
    description: Precision in seconds (0-1576800000).
    type: int
  precision_days:
    description: Precision in days, instead of O(precision).
    type: int
author: dlcluster
"""

EXAMPLES = r"""
- name: Track access times with a one-day precision
  onefs_access_time:
    onefs_host: isilon.example
    api_user: admin
    api_password: "{{ vault_onefs_password }}"
    enabled: true
    precision_days: 1
"""

RETURN = r"""
settings:
  description: The access-time settings after the task.
  returned: always
  type: dict
  sample: {enabled: true, precision: 86400}
"""

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.onefs import (
    access_time_change,
    access_time_wanted,
    onefs_argument_spec,
    run,
)

# v1 only, OneFS 7.2 to 9.12 (the PAPI schemas of github Isilon/isilon_sdk; isilon-sdk 0.7.0)
ACCESS_TIME = ("filesystem/settings/access-time", (1,))


def main():
    spec = onefs_argument_spec()
    spec.update(
        enabled={"type": "bool", "required": True},
        precision={"type": "int"},
        precision_days={"type": "int"},
    )
    module = AnsibleModule(
        argument_spec=spec,
        mutually_exclusive=[["precision", "precision_days"]],
        supports_check_mode=True,
    )
    wanted = access_time_wanted(
        module.params["enabled"], module.params["precision"], module.params["precision_days"]
    )
    if wanted.get("precision", 0) < 0:
        module.fail_json(msg="precision must not be negative")

    def work(client):
        api_path = client.path(*ACCESS_TIME)
        current = client.get(api_path)["settings"]
        change = access_time_change(current, wanted)
        result = {"changed": bool(change), "settings": {**current, **change}}
        if module._diff:
            result["diff"] = {
                "before": {k: current.get(k) for k in wanted},
                "after": wanted,
            }
        if change and not module.check_mode:
            client.put(api_path, change)
        return result

    module.exit_json(**run(module, work))


if __name__ == "__main__":
    main()
