#!/usr/bin/python
"""The NFS export the GPU servers mount."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: onefs_nfs_export
short_description: Create, change or delete a OneFS NFS export
description:
  - The export is found by its path (in C(paths)) and access zone; only the fields given
    are compared and changed.
version_added: "1.0.0"
extends_documentation_fragment: [onefs]
options:
  path:
    description: Exported path, under /ifs.
    type: str
    required: true
  description:
    description: Export description.
    type: str
  clients:
    description: Clients allowed (empty allows all).
    type: list
    elements: str
  root_clients:
    description: Clients whose root is not mapped.
    type: list
    elements: str
  read_only:
    description: Export read-only.
    type: bool
  map_root:
    description: "Root mapping, e.g. C({enabled: true, user: nobody})."
    type: dict
    suboptions:
      enabled: {description: Map root., type: bool, default: true}
      user: {description: User root is mapped to., type: str, default: nobody}
  zone:
    description: Access zone.
    type: str
    default: System
  state:
    description: C(absent) deletes the export.
    type: str
    default: present
    choices: [present, absent]
author: dlcluster
"""

EXAMPLES = r"""
- name: Export /ifs to the GPU servers
  onefs_nfs_export:
    onefs_host: isilon.example
    api_user: admin
    api_password: "{{ vault_onefs_password }}"
    path: /ifs
    read_only: false
"""

RETURN = r"""
export:
  description: The export after the task (empty when deleted).
  returned: always
  type: dict
"""

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.onefs import (
    export_change,
    export_wanted,
    find_export,
    onefs_argument_spec,
    ref,
    run,
)

# API versions of the export resource (Dell's SDKs, isi-sdk-9-1-0 and isilon-sdk 0.7.0, call
# /4 up to 9.7 and /20 on 9.9-9.10).
EXPORTS = ("protocols/nfs/exports", (4, 20))


def main():
    spec = onefs_argument_spec()
    spec.update(
        path={"type": "str", "required": True},
        description={"type": "str"},
        clients={"type": "list", "elements": "str"},
        root_clients={"type": "list", "elements": "str"},
        read_only={"type": "bool"},
        map_root={
            "type": "dict",
            "options": {
                "enabled": {"type": "bool", "default": True},
                "user": {"type": "str", "default": "nobody"},
            },
        },
        zone={"type": "str", "default": "System"},
        state={"type": "str", "default": "present", "choices": ["present", "absent"]},
    )
    module = AnsibleModule(argument_spec=spec, supports_check_mode=True)
    params = module.params
    if not params["path"].startswith("/ifs"):
        module.fail_json(msg=f"path {params['path']} is not under /ifs")
    wanted = export_wanted(params)
    zone = {"zone": params["zone"]}

    def work(client):
        api_path = client.path(*EXPORTS)
        # `path` keeps the exports that name this path (isilon-sdk's list_nfs_exports); the
        # check below still matches it exactly, as clusters that ignore it return all
        exports = client.get(api_path, query={**zone, "path": params["path"]})["exports"]
        current = find_export(exports, params["path"])
        if params["state"] == "absent":
            if current and not module.check_mode:
                client.delete(_item(api_path, current))
            return _result(module, bool(current), current, {})
        if current is None:
            body = {"paths": [params["path"]], **wanted}
            if not module.check_mode:
                body["id"] = client.post(f"{api_path}?zone={ref(params['zone'])}", body)["id"]
            return _result(module, True, {}, body)
        change = export_change(current, wanted)
        if change and not module.check_mode:
            client.put(_item(api_path, current), change)
        return _result(module, bool(change), current, {**current, **change})

    module.exit_json(**run(module, work))


def _item(api_path, export):
    """An export's URL; one outside the System zone names its zone (the `zone` query of
    isilon-sdk's get/update/delete_nfs_export)."""
    zone = export.get("zone", "System")
    return f"{api_path}/{export['id']}" + ("" if zone == "System" else f"?zone={ref(zone)}")


def _result(module, changed, before, after):
    result = {"changed": changed, "export": after or {}}
    if module._diff:
        result["diff"] = {"before": before or {}, "after": after or {}}
    return result


if __name__ == "__main__":
    main()
