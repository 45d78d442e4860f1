#!/usr/bin/python
"""Named file pool policies: create, change in place, delete."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: onefs_filepool_policy
short_description: Create, modify in place or delete a OneFS file pool policy
description:
  - File matching criteria in the form of Dell's dellemc.powerscale collection (type,
    condition, value, relative_datetime_count, size_info) are translated to the API's
    (C(accessed) older than 30 days becomes C(accessed_time > 2592000) with relative
    time); criteria already in the API's form (with C(operator)) pass through.
  - An existing policy is changed in place with one PUT holding only the fields that
    differ - Dell's collection cannot modify a policy, which re-running to reconfigure
    tiers needs.
version_added: "1.0.0"
extends_documentation_fragment: [onefs, onefs.actions]
options:
  policy_name:
    description: Policy name.
    type: str
    required: true
  description:
    description: Policy description.
    type: str
  apply_order:
    description: Position among the policies (1 first).
    type: int
  file_matching_pattern:
    description: "C({or_criteria: [{and_criteria: [criterion, ...]}, ...]})."
    type: dict
  state:
    description: C(absent) deletes the policy.
    type: str
    default: present
    choices: [present, absent]
author: dlcluster
"""

EXAMPLES = r"""
- name: Move files not accessed for 30 days to the cold tier (the papers' policy)
  onefs_filepool_policy:
    onefs_host: isilon.example
    api_user: admin
    api_password: "{{ vault_onefs_password }}"
    policy_name: Idle data to cold tier
    apply_order: 1
    file_matching_pattern:
      or_criteria:
        - and_criteria:
            - type: accessed
              condition: is_older_than
              relative_datetime_count: {time_value: 30, time_unit: days}
    apply_data_storage_policy: {storagepool: cold-tier, ssd_strategy: metadata}
    apply_snapshot_storage_policy: {storagepool: cold-tier, ssd_strategy: metadata}
"""

RETURN = r"""
policy:
  description: The policy after the task (empty when deleted).
  returned: always
  type: dict
changes:
  description: The fields sent in the PUT (or POST) body.
  returned: always
  type: dict
"""

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.onefs import (
    OneFSError,
    desired_actions,
    onefs_argument_spec,
    policy_action_spec,
    policy_change,
    ref,
    run,
    to_papi_pattern,
)

# API versions of the policy resource (v1, v4, v12: the PAPI schemas of github
# Isilon/isilon_sdk, isilon-sdk 0.7.0); the newest served is used.
POLICIES = ("filepool/policies", (4, 12))


def main():
    spec = onefs_argument_spec()
    spec.update(policy_action_spec())
    spec.update(
        policy_name={"type": "str", "required": True},
        description={"type": "str"},
        apply_order={"type": "int"},
        file_matching_pattern={"type": "dict"},
        state={"type": "str", "default": "present", "choices": ["present", "absent"]},
    )
    module = AnsibleModule(argument_spec=spec, supports_check_mode=True)
    params = module.params
    name = params["policy_name"]
    try:
        pattern = to_papi_pattern(params["file_matching_pattern"])
    except ValueError as err:
        module.fail_json(msg=f"file_matching_pattern: {err}")
    if params["apply_order"] is not None and params["apply_order"] < 1:
        module.fail_json(msg=f"apply_order must be 1 or more, got {params['apply_order']}")
    wanted_actions = desired_actions(params)

    def work(client):
        api_path = client.path(*POLICIES)
        try:
            current = client.get(f"{api_path}/{ref(name)}")["policies"][0]
        except OneFSError as err:
            if err.status != 404:
                raise
            current = None
        if params["state"] == "absent":
            if current and not module.check_mode:
                client.delete(f"{api_path}/{ref(name)}")
            return _result(module, bool(current), current, None, {})
        if current is None:
            if pattern is None:
                module.fail_json(msg=f"creating {name!r} needs file_matching_pattern")
            body = {"name": name, "file_matching_pattern": pattern, "actions": wanted_actions}
            for key in ("description", "apply_order"):
                if params[key] is not None:
                    body[key] = params[key]
            if not module.check_mode:
                client.post(api_path, body)
            return _result(module, True, None, body, body)
        change = policy_change(current, params, pattern, wanted_actions)
        if change and not module.check_mode:
            client.put(f"{api_path}/{ref(name)}", change)
        return _result(module, bool(change), current, {**current, **change}, change)

    module.exit_json(**run(module, work))


def _result(module, changed, before, after, change):
    result = {"changed": changed, "policy": after or {}, "changes": change}
    if module._diff:
        result["diff"] = {"before": before or {}, "after": after or {}}
    return result


if __name__ == "__main__":
    main()
