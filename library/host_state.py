#!/usr/bin/python
"""Read, in one call, whether a host's files, directories and services are as a role
intends them; change nothing."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: host_state
short_description: Say whether files, directories, links and services are as intended
description:
  - The read and the decision of a role's converged run in one task. A role lists what
    its apply tasks would write or start; this module compares each with the host and
    returns whether anything differs, and what. The role then runs its apply tasks only
    where RV(differs) is true, so a converged layer costs one task execution per host
    instead of one per file and service, and a hand edit is still found (its file's
    content, owner or mode differs, its service is stopped) and repaired by the apply.
  - It reads only, always; it runs in check mode too and reports C(changed=false). In
    check mode the apply tasks, run because something differs, show each difference with
    C(--diff) as they always have.
  - A file's O(files[].content) (or the rendering of its O(files[].template), or its
    role file O(files[].source)) is compared by its SHA-1 with the file's bytes, exactly as
    M(ansible.builtin.copy) and M(ansible.builtin.template) would write it; a secret is
    given by its O(files[].checksum) instead (the content never leaves the controller).
  - Services are read from systemd with one C(systemctl show) for all of them.
version_added: "1.0.0"
options:
  files:
    description: Files, directories and links, each as its apply task would leave it.
    type: list
    elements: dict
    default: []
    suboptions:
      path:
        description: Absolute path on the host.
        type: path
        required: true
      state:
        description: What the path must be (C(absent) means it must not exist).
        type: str
        choices: [file, directory, link, absent]
        default: file
      content:
        description: The file's whole content as the apply task writes it.
        type: str
      template:
        description:
          - A template of the role, rendered on the controller (by the module's action
            plugin, as M(ansible.builtin.template) renders it) into O(files[].content).
        type: str
      template_vars:
        description: Variables for O(files[].template) only (such as the C(item) of a loop).
        type: dict
      source:
        description:
          - A file of the role's C(files/), read on the controller into
            O(files[].content) as M(ansible.builtin.copy) would copy it; a directory
            stands for every file below it (with a trailing slash, as copy's O(files[].path)
            receives its contents).
        type: str
      checksum:
        description: SHA-1 (hex) of the file's content, where the content is a secret.
        type: str
      src:
        description: The target of a link (O(files[].state=link)).
        type: str
      owner:
        description: Owning user's name; not compared when omitted.
        type: str
      group:
        description: Owning group's name; not compared when omitted.
        type: str
      mode:
        description: Permissions as an octal string (C("0644")); not compared when omitted.
        type: str
  read:
    description:
      - Files whose content the role needs to work out what it wants (a file it merges
        into, such as Docker's daemon.json), returned in RV(contents); not secrets.
    type: list
    elements: path
    default: []
  services:
    description: systemd units and the state the apply task leaves them in.
    type: list
    elements: dict
    default: []
    suboptions:
      name:
        description: The unit (C(munge), C(slurmd.service)).
        type: str
        required: true
      state:
        description: C(started) (active) or C(stopped) (inactive); not compared when omitted.
        type: str
        choices: [started, stopped]
      enabled:
        description: Whether the unit starts at boot; not compared when omitted.
        type: bool
      reads:
        description:
          - "Files the unit reads when it starts (its configuration). An active unit that
            became active before one of them last changed runs on the old settings; it
            differs (C(slurmd: started before /etc/default/slurmd changed)) and is named
            in RV(stale), so that the apply restarts it. This finds the restart a run
            lost (interrupted between writing a file and restarting its service), which
            the files' and the unit's states alone do not show. Only for units the role
            restarts (not reloads) after a change; a missing file is not compared."
        type: list
        elements: path
        default: []
author: dlcluster
"""

EXAMPLES = r"""
- name: Read whether slurmd's configuration and services are as intended
  host_state:
    files:
      - path: /etc/default/slurmd
        content: "{{ lookup('ansible.builtin.template', 'slurmd.default.j2') }}"
        owner: root
        group: root
        mode: "0644"
      - path: /etc/munge/munge.key
        checksum: "{{ _munge_key_sha1 }}"
        owner: munge
        mode: "0400"
    services:
      - {name: munge, state: started, enabled: true}
      - {name: slurmd, state: started, enabled: true}
  register: _state

- name: Join the node
  ansible.builtin.include_tasks: join.yml
  when: _state.differs
"""

RETURN = r"""
differs:
  description: Whether anything listed is not as intended.
  returned: always
  type: bool
contents:
  description: The text of each O(read) file, C(null) where it does not exist.
  returned: always
  type: dict
differences:
  description: What differs, one line each (a path or unit, then what).
  returned: always
  type: list
  elements: str
  sample: ["/etc/default/slurmd: content", "slurmd: inactive, wanted started"]
stale:
  description:
    - The O(services[].name) of each active unit that started before one of its
      O(services[].reads) files last changed (the apply restarts them).
  returned: always
  type: list
  elements: str
  sample: [slurmd]
"""

import grp
import hashlib
import os
import pwd
import stat
import time

from ansible.module_utils.basic import AnsibleModule

TYPES = {"file": stat.S_ISREG, "directory": stat.S_ISDIR, "link": stat.S_ISLNK}


def _sha1(path: str) -> str:
    digest = hashlib.sha1()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def _name(lookup, ident: int) -> str:
    try:
        return lookup(ident)[0]
    except KeyError:
        return str(ident)


def file_differences(spec: dict) -> list[str]:
    """What differs between the path on this host and `spec`; [] when it is as intended."""
    path, wanted = spec["path"], spec.get("state") or "file"
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return [] if wanted == "absent" else [f"{path}: missing"]
    if wanted == "absent":
        return [f"{path}: present, wanted absent"]
    if not TYPES[wanted](found.st_mode):
        return [f"{path}: not a {wanted}"]
    problems = []
    if wanted == "link" and spec.get("src") is not None and os.readlink(path) != spec["src"]:
        problems.append(f"{path}: points elsewhere")
    if wanted == "file":
        if spec.get("content") is not None:
            expected = hashlib.sha1(spec["content"].encode()).hexdigest()
            if _sha1(path) != expected:
                problems.append(f"{path}: content")
        elif spec.get("checksum") and _sha1(path) != spec["checksum"]:
            problems.append(f"{path}: content")
    if wanted != "link":
        if spec.get("owner") and _name(pwd.getpwuid, found.st_uid) != spec["owner"]:
            problems.append(f"{path}: owner")
        if spec.get("group") and _name(grp.getgrgid, found.st_gid) != spec["group"]:
            problems.append(f"{path}: group")
        if spec.get("mode") and stat.S_IMODE(found.st_mode) != int(str(spec["mode"]), 8):
            problems.append(f"{path}: mode")
    return problems


def parse_systemctl_show(output: str) -> dict[str, dict[str, str]]:
    """`systemctl show -p Id,ActiveState,UnitFileState A B`: blocks separated by a blank
    line, one per unit, in the order asked."""
    units, current = [], {}
    for line in [*output.splitlines(), ""]:
        if not line.strip():
            if current:
                units.append(current)
            current = {}
            continue
        key, _, value = line.partition("=")
        current[key] = value
    return {unit.get("Id", ""): unit for unit in units}


def _unit(name: str) -> str:
    return name if "." in name else f"{name}.service"


def stale_services(
    specs: list[dict], shown: dict[str, dict[str, str]], monotonic: float, wall: float
) -> list[tuple[str, str]]:
    """(name, file) of each active unit that became active before one of its `reads`
    files last changed. systemd gives the start on CLOCK_MONOTONIC (microseconds), the
    file system on the wall clock: `monotonic` and `wall` are both clocks read now."""
    stale = []
    for spec in specs:
        unit = shown.get(_unit(spec["name"]), {})
        entered = unit.get("ActiveEnterTimestampMonotonic", "0")
        if unit.get("ActiveState") != "active" or not entered.isdigit() or int(entered) == 0:
            continue
        started = wall - (monotonic - int(entered) / 1e6)
        for path in spec.get("reads") or []:
            try:
                changed = os.stat(path).st_mtime
            except FileNotFoundError:
                continue
            if changed > started:
                stale.append((spec["name"], path))
                break
    return stale


def service_differences(specs: list[dict], shown: dict[str, dict[str, str]]) -> list[str]:
    problems = []
    for spec in specs:
        unit = shown.get(_unit(spec["name"]), {})
        active = unit.get("ActiveState", "unknown")
        if spec.get("state") == "started" and active != "active":
            problems.append(f"{spec['name']}: {active}, wanted started")
        if spec.get("state") == "stopped" and active in ("active", "activating", "reloading"):
            problems.append(f"{spec['name']}: {active}, wanted stopped")
        if spec.get("enabled") is not None:
            enabled = unit.get("UnitFileState", "") in ("enabled", "enabled-runtime", "static",
                                                         "alias", "indirect")  # fmt: skip
            if enabled != spec["enabled"]:
                problems.append(
                    f"{spec['name']}: {'enabled' if enabled else 'not enabled'},"
                    f" wanted {'enabled' if spec['enabled'] else 'disabled'}"
                )
    return problems


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "files": {
                "type": "list",
                "elements": "dict",
                "default": [],
                "options": {
                    "path": {"type": "path", "required": True},
                    "state": {
                        "type": "str",
                        "default": "file",
                        "choices": ["file", "directory", "link", "absent"],
                    },
                    "content": {"type": "str", "no_log": False},
                    "template": {"type": "str"},
                    "template_vars": {"type": "dict"},
                    "source": {"type": "str"},
                    "checksum": {"type": "str", "no_log": False},
                    "src": {"type": "str"},
                    "owner": {"type": "str"},
                    "group": {"type": "str"},
                    "mode": {"type": "str"},
                },
            },
            "read": {"type": "list", "elements": "path", "default": []},
            "services": {
                "type": "list",
                "elements": "dict",
                "default": [],
                "options": {
                    "name": {"type": "str", "required": True},
                    "state": {"type": "str", "choices": ["started", "stopped"]},
                    "enabled": {"type": "bool"},
                    "reads": {"type": "list", "elements": "path", "default": []},
                },
            },
        },
        supports_check_mode=True,
    )
    differences: list[str] = []
    stale: list[str] = []
    for spec in module.params["files"]:
        differences += file_differences(spec)
    services = module.params["services"]
    if services:
        systemctl = module.get_bin_path("systemctl", required=True)
        rc, out, err = module.run_command(
            [
                systemctl,
                "show",
                "-p",
                "Id,ActiveState,UnitFileState,ActiveEnterTimestampMonotonic",
                *[_unit(s["name"]) for s in services],
            ]
        )
        if rc != 0:
            module.fail_json(msg=f"systemctl show failed: {err.strip() or out.strip()}")
        shown = parse_systemctl_show(out)
        differences += service_differences(services, shown)
        found = stale_services(services, shown, time.monotonic(), time.time())
        differences += [f"{name}: started before {path} changed" for name, path in found]
        stale = [name for name, _ in found]
    contents = {}
    for path in module.params["read"]:
        try:
            with open(path, encoding="utf-8") as handle:
                contents[path] = handle.read()
        except FileNotFoundError:
            contents[path] = None
    module.exit_json(
        changed=False,
        differs=bool(differences),
        differences=differences,
        contents=contents,
        stale=stale,
    )


if __name__ == "__main__":
    main()
