#!/usr/bin/python
"""The default file pool policy: where files no other policy matches are stored."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: onefs_filepool_default_policy
short_description: Set the storage targets and I/O settings of OneFS's default file pool policy
description:
  - Compares only the actions given; actions the task does not name are kept as they
    are in the one PUT it sends when something differs.
version_added: "1.0.0"
extends_documentation_fragment: [onefs, onefs.actions]
author: dlcluster
"""

EXAMPLES = r"""
- name: Keep everything not matched elsewhere on the hot tier, data and metadata on SSD
  onefs_filepool_default_policy:
    onefs_host: isilon.example
    api_user: admin
    api_password: "{{ vault_onefs_password }}"
    apply_data_storage_policy: {storagepool: hot-tier, ssd_strategy: data}
    apply_snapshot_storage_policy: {storagepool: hot-tier, ssd_strategy: data}
    set_data_access_pattern: concurrency
    enable_coalescer: true
"""

RETURN = r"""
actions:
  description: The default policy's actions after the task.
  returned: always
  type: list
  elements: dict
"""

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.onefs import (
    desired_actions,
    merge_actions,
    onefs_argument_spec,
    policy_action_spec,
    run,
)

DEFAULT_POLICY = ("filepool/default-policy", (4,))  # /4 in every release (isilon-sdk 0.7.0)


def main():
    spec = onefs_argument_spec()
    spec.update(policy_action_spec())
    module = AnsibleModule(argument_spec=spec, supports_check_mode=True)
    wanted = desired_actions(module.params)

    def work(client):
        api_path = client.path(*DEFAULT_POLICY)
        current = client.get(api_path)["default-policy"]["actions"]
        merged, changed = merge_actions(current, wanted)
        if changed and not module.check_mode:
            client.put(api_path, {"actions": merged})
        result = {"changed": changed, "actions": merged}
        if module._diff:
            result["diff"] = {"before": {"actions": current}, "after": {"actions": merged}}
        return result

    module.exit_json(**run(module, work))


if __name__ == "__main__":
    main()
