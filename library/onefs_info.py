#!/usr/bin/python
"""Facts about a OneFS cluster: version, node pools, tiers, policies, settings, exports."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: onefs_info
short_description: Read a OneFS cluster's version, node pools, tiers, file pool policies and exports
description:
  - Read-only; one GET per subset, from the control host.
version_added: "1.0.0"
extends_documentation_fragment: [onefs]
options:
  gather_subset:
    description: What to read.
    type: list
    elements: str
    default: [version, nodepools, tiers, filepool_policies, default_policy, access_time,
              nfs_exports]
    choices: [version, nodepools, tiers, filepool_policies, default_policy, access_time,
              nfs_exports]
author: dlcluster
"""

EXAMPLES = r"""
- name: Read the node pools and tiers
  onefs_info:
    onefs_host: isilon.example
    api_user: admin
    api_password: "{{ vault_onefs_password }}"
    gather_subset: [nodepools, tiers]
  register: cluster
"""

RETURN = r"""
onefs:
  description: One key per subset gathered.
  returned: always
  type: dict
"""

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.onefs import onefs_argument_spec, run

SUBSETS = {
    "nodepools": ("3/storagepool/nodepools", "nodepools"),
    "tiers": ("1/storagepool/tiers", "tiers"),
    "filepool_policies": ("4/filepool/policies", "policies"),
    "default_policy": ("4/filepool/default-policy", "default-policy"),
    "access_time": ("1/filesystem/settings/access-time", "settings"),
    "nfs_exports": ("4/protocols/nfs/exports", "exports"),
}


def main():
    spec = onefs_argument_spec()
    choices = ["version", *SUBSETS]
    spec["gather_subset"] = {
        "type": "list",
        "elements": "str",
        "default": choices,
        "choices": choices,
    }
    module = AnsibleModule(argument_spec=spec, supports_check_mode=True)

    def work(client):
        facts = {}
        for subset in module.params["gather_subset"]:
            if subset == "version":
                config = client.get("1/cluster/config")
                facts["version"] = {
                    "release": config["onefs_version"]["release"],
                    "api_latest": client.get("latest")["latest"],
                    "name": config.get("name"),
                }
            else:
                path, key = SUBSETS[subset]
                facts[subset] = client.get(path)[key]
        return {"changed": False, "onefs": facts}

    module.exit_json(**run(module, work))


if __name__ == "__main__":
    main()
