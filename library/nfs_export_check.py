#!/usr/bin/python
"""Prove that NFS servers serve their exports to this host, through its mounts or libnfs."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: nfs_export_check
short_description: Prove that every planned NFS address serves its export to this host
description:
  - For each entry of O(mounts), checks that the NFS client this host has reaches the
    export at the address the plan gave it, and fails naming every address that does not.
  - With O(method=mount), the mount point must be mounted from C(address:export) (as
    C(findmnt) shows it) and list; with O(method=libnfs) (hosts whose kernel has no NFS
    client) the export is listed at C(nfs://address/export) with the user-space client
    (C(nfs-ls) from libnfs-utils), which also proves that the server lets this host in.
  - With C(probe), that file (relative to the export) is read in full through the mount
    or with C(nfs-cat).
  - Reads only; supports check mode, where it reads as in a normal run.
version_added: "1.0.0"
options:
  method:
    description: How to reach the exports.
    type: str
    choices: [mount, libnfs]
    required: true
  mounts:
    description: The mounts to prove.
    type: list
    elements: dict
    required: true
    suboptions:
      path:
        description: The mount point (with O(method=libnfs), only named in the results).
        type: str
        required: true
      address:
        description: The server address the mount is planned on.
        type: str
        required: true
      export:
        description: The exported path on the server.
        type: str
        required: true
      probe:
        description: A file under the export to read in full; empty reads none.
        type: str
        default: ""
  timeout:
    description: Seconds each client command may take.
    type: int
    default: 60
author: dlcluster
"""

EXAMPLES = r"""
- name: Read through every Isilon address this server mounts
  nfs_export_check:
    method: mount
    mounts:
      - {path: /mnt/isilon1, address: 10.0.0.11, export: /ifs, probe: data/train-0}
"""

RETURN = r"""
results:
  description: One line per mount, C(ok) or C(FAIL) with the reason.
  returned: always
  type: list
  elements: str
  sample: ["ok  /mnt/isilon1  10.0.0.11:/ifs"]
unreachable:
  description: The addresses (with their mount points) that failed.
  returned: always
  type: list
  elements: str
"""

import subprocess
from pathlib import Path

from ansible.module_utils.basic import AnsibleModule


def _run(argv: list[str], timeout: int) -> tuple[int, bytes, str]:
    try:
        done = subprocess.run(argv, capture_output=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return 1, b"", str(exc)
    return done.returncode, done.stdout, done.stderr.decode(errors="replace").strip()


def check_mounted(mount: dict, timeout: int) -> str | None:
    """Why the mount point does not serve address:export, or None when it does."""
    path, want = mount["path"], f"{mount['address']}:{mount['export']}"
    rc, out, err = _run(["findmnt", "-n", "-o", "SOURCE", "--mountpoint", path], timeout)
    source = out.decode().strip()
    if rc != 0:
        return f"{path} is not mounted ({err or 'findmnt found nothing'})"
    if source != want:
        return f"{path} is mounted from {source}, not {want}"
    try:
        next(iter(Path(path).iterdir()), None)
        if mount["probe"]:
            with open(Path(path) / mount["probe"], "rb") as handle:
                while handle.read(1 << 20):
                    pass
    except OSError as exc:
        return f"{path} ({mount['address']}): {exc}"
    return None


def check_libnfs(mount: dict, timeout: int) -> str | None:
    """Why nfs://address/export cannot be listed or read, or None when it can."""
    url = f"nfs://{mount['address']}{mount['export']}"
    rc, _, err = _run(["nfs-ls", url], timeout)
    if rc != 0:
        return f"{url}: nfs-ls failed: {err or 'exit ' + str(rc)}"
    if mount["probe"]:
        rc, data, err = _run(["nfs-cat", f"{url}/{mount['probe']}"], timeout)
        if rc != 0 or not data:
            return f"{url}/{mount['probe']}: nfs-cat failed: {err or 'empty read'}"
    return None


def check(method: str, mounts: list[dict], timeout: int) -> tuple[list[str], list[str]]:
    """One result line per mount and the failed addresses."""
    results, unreachable = [], []
    checker = check_mounted if method == "mount" else check_libnfs
    for mount in mounts:
        problem = checker(mount, timeout)
        where = f"{mount['address']}:{mount['export']}"
        results.append(
            f"{'FAIL' if problem else 'ok'}  {mount['path']}  {where}"
            + (f"  {problem}" if problem else "")
        )
        if problem:
            unreachable.append(f"{mount['address']} ({mount['path']})")
    return results, unreachable


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "method": {"type": "str", "choices": ["mount", "libnfs"], "required": True},
            "mounts": {
                "type": "list",
                "elements": "dict",
                "required": True,
                "options": {
                    "path": {"type": "str", "required": True},
                    "address": {"type": "str", "required": True},
                    "export": {"type": "str", "required": True},
                    "probe": {"type": "str", "default": ""},
                },
            },
            "timeout": {"type": "int", "default": 60},
        },
        supports_check_mode=True,
    )
    results, unreachable = check(
        module.params["method"], module.params["mounts"], module.params["timeout"]
    )
    if unreachable:
        module.fail_json(
            msg="unreachable: " + ", ".join(unreachable),
            results=results,
            unreachable=unreachable,
            changed=False,
        )
    module.exit_json(changed=False, results=results, unreachable=[])


if __name__ == "__main__":
    main()
