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
from ansible.module_utils.onefs import info_argument_spec, read_info, run

# Where the task runs on the control host as its own user and environment (the
# onefs_tiering role's delegate_to: localhost), the controller side,
# action_plugins/onefs_info.py, reads the cluster itself with the same code
# (module_utils/onefs.py: read_info); this module runs everywhere else (another host,
# become, a task environment such as a proxy).


def main():
    module = AnsibleModule(argument_spec=info_argument_spec(), supports_check_mode=True)
    module.exit_json(
        **run(module, lambda client: read_info(client, module.params["gather_subset"]))
    )


if __name__ == "__main__":
    main()
