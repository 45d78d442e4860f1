#!/usr/bin/python
"""Push only what differs from the intended switch configuration, over SSH with netmiko
(or the platform's HTTP API)."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: switch_config
short_description: Bring the owned sections of a switch's config to an intended text
description:
  - Reads the running configuration over SSH (netmiko), keeps the top-level sections the
    intended configuration owns (and any matching O(owned_patterns)), computes the
    remediation with hier_config and pushes only that.
  - Each platform's behaviour (netmiko device type, the command that prints the running
    configuration, how a change is pushed, the hier_config driver) comes from the
    platform table C(PLATFORMS) in module_utils/switch_config.py.
  - Arista EOS changes go through a named configuration session whose diff is read before
    it is committed (aborted on any error). Dell OS10 changes go through a transaction
    (C(start transaction) ... C(commit), C(discard) on error) where the switch has them,
    otherwise line by line.
  - Every command's output is checked for C(% Error) / C(% Invalid) lines (also when a BEL
    or terminal escape sequences open the line, as OS10 may print them); the first one
    fails the task with the command, the commands applied so far and the backup path.
  - Cumulus Linux (C(cumulus_linux)) speaks NCLU on 4.x and NVUE on 5.x. The module reads
    the release when it connects (C(cat /etc/lsb-release), else C(nv show system -o json))
    and drives that release's CLI; the result says which (RV(dialect), RV(release)). NCLU
    lines are staged, read back with C(net pending) and committed (C(net abort) on error).
    NVUE lines go into a pending revision (C(nv set) / C(nv unset), the removals first, most
    specific first), whose C(nv config diff) is returned before C(nv config apply -y); on
    any error C(nv config detach) leaves the applied revision as it was. The running
    configuration is C(nv config show -o commands), compared one setting per line. The
    save is C(nv config save); from 5.9 apply also saves (NVUE's auto-save, on by default).
  - Dell OS10 breakouts are planned as the switch takes them. A port at its native map
    (C(100g-1x) on a QSFP28 port, which every factory port carries) takes a new map in one
    command; a split port is un-split (C(no interface breakout)) before a new map.
  - The running configuration is backed up on the control host before any change, and
    saved to the startup configuration only once a re-read shows nothing left to change.
  - Check mode computes and returns the remediation without changing anything. Diff mode
    shows the owned sections before and the intended text after.
version_added: "1.0.0"
requirements: [netmiko, hier_config]
options:
  intended:
    description:
      - Intended configuration of the owned sections, in the device's own format. On a
        platform with several dialects, in its first one (C(cumulus_linux) NCLU, the C(net
        add) lines of Cumulus Linux 4.x).
    type: str
    required: true
  intended_by_dialect:
    description:
      - Intended configuration per dialect, for a platform whose releases speak different
        CLIs; on a switch found speaking a dialect named here, its text replaces
        O(intended). C(cumulus_linux) needs C(nvue) (C(nv set) lines) for a 5.x switch.
    type: dict
    default: {}
  owned_patterns:
    description:
      - Regular expressions for top-level lines the caller owns even when the intended
        text no longer has them, so that they are removed (for example a breakout map).
    type: list
    elements: str
    default: []
  owned_patterns_by_dialect:
    description:
      - O(owned_patterns) per dialect (a dict of lists); on a switch found speaking a
        dialect named here, its list replaces O(owned_patterns).
    type: dict
    default: {}
  backup_dir:
    description: Directory on the control host for running-config backups.
    type: path
    required: true
  backup_name:
    description: File name prefix of the backups (usually the inventory host name).
    type: str
    required: true
  save:
    description: Save the running configuration to startup after a verified change.
    type: bool
    default: true
  transaction:
    description:
      - OS10 transactions; C(auto) uses them when the switch accepts C(start transaction).
        Other platforms ignore it.
    type: str
    choices: [auto, always, never]
    default: auto
  session_name:
    description: Prefix of the EOS configuration session name (other platforms ignore it).
    type: str
    default: dlcluster
  transport:
    description:
      - C(cli) drives the switch's CLI over SSH (netmiko). C(api) drives the platform's HTTP
        API instead, where it has one - C(arista_eos) eAPI over HTTPS (the same
        configuration session, diff, commit and C(write memory) as the CLI path);
        C(cumulus_linux) 5.x NVUE's REST API (a revision, its edits, apply with a confirm
        window of O(api_confirm) seconds, confirmed after the re-read). The running
        configuration, the remediation and the backup are the same either way.
    type: str
    choices: [cli, api]
    default: cli
  api_port:
    description: Port of the HTTP API (default the platform's - eAPI 443, NVUE 8765).
    type: int
  api_confirm:
    description:
      - Where the API applies with a confirm window (NVUE), seconds the switch waits for
        the confirmation before it rolls the change back by itself. The module confirms
        once a re-read shows nothing left to change, and rolls back at once when it does
        not; a change that cuts the control host off the switch undoes itself. 0 applies
        without a window.
    type: int
    default: 300
  ca_path:
    description:
      - CA certificate(s) to verify the API's HTTPS certificate with (default the control
        host's trusted CAs).
    type: path
  validate_certs:
    description: Verify the API's certificate. Only for a lab switch with a self-signed one.
    type: bool
    default: true
author: dlcluster
extends_documentation_fragment: [switch_connection]
"""

EXAMPLES = r"""
- name: Configure an SN3700 on Cumulus Linux 4.x (NCLU) or 5.x (NVUE), whichever it runs
  switch_config:
    platform: cumulus_linux
    host: "{{ switches_host }}"
    username: "{{ cluster_switch_username }}"
    password: "{{ cluster_switch_password }}"
    intended: "{{ lookup('ansible.builtin.template', 'cumulus_linux.cfg.j2') }}"
    owned_patterns: ['^net add (interface|bond|bridge) ']
    intended_by_dialect:
      nvue: "{{ lookup('ansible.builtin.template', 'cumulus_linux.nvue.cfg.j2') }}"
    owned_patterns_by_dialect:
      nvue: ['^nv set interface (swp|bond)', '^nv set bridge domain br_default ']
    backup_dir: "{{ playbook_dir }}/../backups/switches"
    backup_name: "{{ inventory_hostname }}"

- name: Configure the S5232's breakouts and ports
  switch_config:
    platform: dell_os10
    host: "{{ switches_host }}"
    port: "{{ switches_port }}"
    username: "{{ cluster_switch_username }}"
    password: "{{ cluster_switch_password }}"
    intended: "{{ lookup('ansible.builtin.template', 'dell_os10.cfg.j2') }}"
    owned_patterns: ['^interface breakout 1/1/(2[1-9]|3[0-2]) ']
    backup_dir: "{{ playbook_dir }}/../backups/switches"
    backup_name: "{{ inventory_hostname }}"
"""

RETURN = r"""
commands:
  description: Commands pushed (or, in check mode, that would be pushed).
  returned: always
  type: list
  elements: str
  sample: ["no interface breakout 1/1/24", "interface breakout 1/1/24 map 10g-4x"]
backup_path:
  description: Where the running configuration was saved before the change.
  returned: when a change was pushed
  type: str
session_diff:
  description:
    - The change as the switch shows it before committing it - EOS C(show session-config
      diffs), Cumulus NCLU C(net pending), Cumulus NVUE C(nv config diff).
  returned: when an EOS or Cumulus change was pushed
  type: str
dialect:
  description: The CLI the switch was found to speak (C(cumulus_linux) - C(nclu) or C(nvue)).
  returned: on platforms with several dialects, once the switch answered
  type: str
  sample: nvue
release:
  description: The switch's software release the dialect was chosen by.
  returned: on platforms with several dialects, once the switch answered
  type: str
  sample: 5.10.0
transport:
  description: How the switch was driven - C(cli) (SSH) or C(api) (its HTTP API).
  returned: always
  type: str
  sample: api
saved:
  description: Whether the configuration was saved to startup.
  returned: always
  type: bool
"""

import contextlib
import os
import re
import time
from dataclasses import replace

from ansible.module_utils.basic import AnsibleModule, missing_required_lib
from ansible.module_utils.switch_config import (
    API_ARGUMENT_SPEC,
    API_TRANSPORTS,
    CONNECTION_ARGUMENT_SPEC,
    HAS_HIER_CONFIG,
    HAS_NETMIKO,
    HIER_CONFIG_IMPORT_ERROR,
    NETMIKO_IMPORT_ERROR,
    PLATFORMS,
    PushError,
    connect,
    owned_text,
    remediation,
)


def read_running(conn, entry):
    command = entry.show_running
    output = conn.send_command(command, read_timeout=60)
    # An error is not a configuration: an EOS user at `>` gets `% Invalid input
    # (privileged mode required)`, which must not be taken for an empty switch.
    error = re.search(entry.error_pattern + r".*", output)
    if error:
        raise RuntimeError(
            f"the switch refused `{command}`: {error.group(0).strip()}" + entry.refusal_hint
        )
    return output


def for_dialect(params, entry):
    """The intended text and owned patterns of the dialect `entry` speaks."""
    intended = params["intended_by_dialect"].get(entry.dialect)
    owned = params["owned_patterns_by_dialect"].get(entry.dialect, params["owned_patterns"])
    if intended is None:
        if entry.dialects and entry.dialect != PLATFORMS[params["platform"]].dialect:
            given = ", ".join(params["intended_by_dialect"]) or "none"
            raise ValueError(
                f"the switch speaks {entry.dialect}, and intended_by_dialect has no "
                f"{entry.dialect} text (it has: {given})"
            )
        intended = params["intended"]
    if not isinstance(intended, str) or not isinstance(owned, list):
        raise ValueError(
            f"intended_by_dialect.{entry.dialect} must be a text and "
            f"owned_patterns_by_dialect.{entry.dialect} a list"
        )
    return intended, [str(pattern) for pattern in owned]


def write_backup(directory, name, running):
    os.makedirs(directory, mode=0o750, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    path = os.path.join(directory, f"{name}-{stamp}.cfg")
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o640), "w") as handle:
        handle.write(running)
    return path


def main():
    module = AnsibleModule(
        argument_spec={
            **CONNECTION_ARGUMENT_SPEC,
            **API_ARGUMENT_SPEC,
            "intended": {"type": "str", "required": True},
            "owned_patterns": {"type": "list", "elements": "str", "default": []},
            "intended_by_dialect": {"type": "dict", "default": {}},
            "owned_patterns_by_dialect": {"type": "dict", "default": {}},
            "backup_dir": {"type": "path", "required": True},
            "backup_name": {"type": "str", "required": True},
            "save": {"type": "bool", "default": True},
            "transaction": {
                "type": "str",
                "default": "auto",
                "choices": ["auto", "always", "never"],
            },
            "session_name": {"type": "str", "default": "dlcluster"},
        },
        supports_check_mode=True,
    )
    if not HAS_NETMIKO:
        module.fail_json(msg=missing_required_lib("netmiko"), exception=NETMIKO_IMPORT_ERROR)
    if not HAS_HIER_CONFIG:
        module.fail_json(
            msg=missing_required_lib("hier_config"), exception=str(HIER_CONFIG_IMPORT_ERROR)
        )
    params = module.params
    platform = params["platform"]
    entry = PLATFORMS[platform]
    result = {"changed": False, "commands": [], "saved": False, "transport": params["transport"]}
    found = {}  # the dialect and release the switch was found with, in every result

    api = None
    if params["transport"] == "api":
        api = API_TRANSPORTS.get(platform)
        if api is None:
            module.fail_json(
                msg=f"{platform} has no API transport here (transport: api is for "
                f"{', '.join(API_TRANSPORTS)}); use transport: cli"
            )
    try:
        conn = api.connect(params) if api else connect(params)
    except Exception as exc:
        module.fail_json(
            msg=f"cannot open an SSH session to {params['host']}:{params['port']}: {exc}"
        )
    try:
        detect = api.detect if api and api.detect else entry.detect
        if detect is not None:
            found["dialect"], found["release"] = detect(conn)
            result.update(found)
            if api and api.dialect and found["dialect"] != api.dialect:
                raise RuntimeError(
                    f"the switch runs {found['release']} ({found['dialect']}), which has no "
                    f"{api.name}; use transport: cli"
                )
            entry = entry.speaking(found["dialect"])
        if api:  # the API's push and save over the platform's (or its dialect's) CLI ones
            entry = replace(entry, push=api.push, save=api.save)
        dialect = entry.dialect
        intended, owned = for_dialect(params, entry)
        running = read_running(conn, entry)
        commands = remediation(platform, running, intended, owned, dialect)
        result["commands"] = commands
        if module._diff:
            # both sides normalised the same way (blocks without `!`), so only real
            # differences show
            result["diff"] = {
                "before": owned_text(running, intended, owned, platform, dialect),
                "after": owned_text(intended, intended, platform=platform, dialect=dialect),
            }
        if not commands or module.check_mode:
            result["changed"] = bool(commands)
            module.exit_json(**result)

        result["backup_path"] = write_backup(params["backup_dir"], params["backup_name"], running)
        pushed = []
        # A second pass covers devices that clear a port's sub-interfaces when its
        # breakout changes: their settings only show up as missing after the first.
        for _ in range(2):
            try:
                diff = entry.push(conn, commands, params)
                if diff is not None:
                    result["session_diff"] = diff
            except PushError as exc:
                module.fail_json(
                    msg=f"{params['backup_name']}: {exc}",
                    commands_sent=pushed + exc.applied,
                    commands=result["commands"],
                    backup_path=result["backup_path"],
                    **found,
                )
            pushed.extend(commands)
            running = read_running(conn, entry)
            commands = remediation(platform, running, intended, owned, dialect)
            if not commands:
                break
        result["changed"] = True
        result["commands"] = pushed
        if api and api.rollback and commands:
            api.rollback(conn)  # the apply waits for a confirmation it will not get
        elif api and api.confirm:
            api.confirm(conn)
        if commands:
            module.fail_json(
                msg=f"{params['backup_name']}: the running config still differs after the push",
                remaining=commands,
                commands=pushed,
                backup_path=result["backup_path"],
                **found,
            )
        if params["save"]:
            output = entry.save(conn) if entry.save is not None else conn.save_config()
            if re.search(entry.error_pattern, output or ""):
                module.fail_json(msg=f"saving to startup failed: {output.strip()}", **result)
            result["saved"] = True
    except Exception as exc:  # a session that drops outside a push, a timeout reading
        if api and api.rollback:
            with contextlib.suppress(Exception):
                api.rollback(conn)
        module.fail_json(
            msg=f"{params['backup_name']}: {exc}",
            commands=result.get("commands", []),
            backup_path=result.get("backup_path"),
            **found,
        )
    finally:
        with contextlib.suppress(Exception):
            conn.disconnect()
    module.exit_json(**result)


if __name__ == "__main__":
    main()
