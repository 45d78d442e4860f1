#!/usr/bin/python
"""SmartPools tiers built from node pools: create, change membership in place, delete."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: onefs_storagepool_tier
short_description: Create, change or delete a OneFS SmartPools tier
description:
  - A tier groups node pools (the papers' hot-tier = the F800 pool, cold-tier = the H500
    pool). Unlike Dell's collection, a membership change is made in place with one PUT.
version_added: "1.0.0"
extends_documentation_fragment: [onefs]
options:
  tier_name:
    description: Tier name.
    type: str
    required: true
  nodepools:
    description: Node pool names the tier holds (compared as a set).
    type: list
    elements: str
  state:
    description: C(absent) deletes the tier.
    type: str
    default: present
    choices: [present, absent]
author: dlcluster
"""

EXAMPLES = r"""
- name: Build the cold tier from the H500 node pool
  onefs_storagepool_tier:
    onefs_host: isilon.example
    api_user: admin
    api_password: "{{ vault_onefs_password }}"
    tier_name: cold-tier
    nodepools: [h500_60tb_3.2tb-ssd_128gb]
"""

RETURN = r"""
tier:
  description: The tier after the task (absent when deleted).
  returned: always
  type: dict
"""

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.onefs import find_tier, onefs_argument_spec, run, tier_action

# API versions of the tier resource (v1, v16: the PAPI schemas of github Isilon/isilon_sdk,
# isilon-sdk 0.7.0); the newest the cluster serves is used.
TIERS = ("storagepool/tiers", (1, 16))


def main():
    spec = onefs_argument_spec()
    spec.update(
        tier_name={"type": "str", "required": True},
        nodepools={"type": "list", "elements": "str"},
        state={"type": "str", "default": "present", "choices": ["present", "absent"]},
    )
    module = AnsibleModule(argument_spec=spec, supports_check_mode=True)
    name, pools, state = (module.params[k] for k in ("tier_name", "nodepools", "state"))

    def work(client):
        api_path = client.path(*TIERS)
        # Whether the item path takes a name is unverified, so the id is used.
        tier = find_tier(client.get(api_path)["tiers"], name)
        before = {"name": name, "nodepools": sorted(tier["children"])} if tier else {}
        action = tier_action(tier, pools, state)
        if state == "absent":
            if action and not module.check_mode:
                client.delete(f"{api_path}/{tier['id']}")
            return _result(module, bool(action), before, {}, None)
        if action == "create":
            after = {"name": name, "nodepools": sorted(pools or [])}
            if not module.check_mode:
                created = client.post(api_path, {"name": name, "children": pools or []})
                tier = {"id": created["id"], "name": name, "children": pools or []}
            return _result(module, True, before, after, tier)
        if action == "modify":
            if not module.check_mode:
                client.put(f"{api_path}/{tier['id']}", {"children": pools})
            tier = {**tier, "children": pools}
            return _result(module, True, before, {"name": name, "nodepools": sorted(pools)}, tier)
        return _result(module, False, before, before, tier)

    module.exit_json(**run(module, work))


def _result(module, changed, before, after, tier):
    result = {"changed": changed, "tier": tier or {}}
    if module._diff:
        result["diff"] = {"before": before, "after": after}
    return result


if __name__ == "__main__":
    main()
