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

# subset -> (resource, the API versions it was written against, the answer's key); the
# newest version the cluster serves is used (versions: the PAPI schemas of github
# Isilon/isilon_sdk and Dell's generated SDKs, isi-sdk-9-1-0 and isilon-sdk 0.7.0).
SUBSETS = {
    "nodepools": ("storagepool/nodepools", (3, 16), "nodepools"),
    "tiers": ("storagepool/tiers", (1, 16), "tiers"),
    "filepool_policies": ("filepool/policies", (4, 12), "policies"),
    "default_policy": ("filepool/default-policy", (4,), "default-policy"),
    "access_time": ("filesystem/settings/access-time", (1,), "settings"),
    "nfs_exports": ("protocols/nfs/exports", (4, 20), "exports"),
}
CONFIG = ("cluster/config", (3, 17))


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
                config = client.get(client.path(*CONFIG))
                facts["version"] = {
                    "release": config["onefs_version"]["release"],
                    "api_latest": str(client.latest()),
                    "name": config.get("name"),
                }
            else:
                resource, versions, key = SUBSETS[subset]
                facts[subset] = client.get(client.path(resource, versions))[key]
        return {"changed": False, "onefs": facts}

    module.exit_json(**run(module, work))


if __name__ == "__main__":
    main()
