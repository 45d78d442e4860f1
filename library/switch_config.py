#!/usr/bin/python
"""Push only what differs from the intended switch configuration, over SSH with netmiko."""

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
  platform:
    description:
      - A platform of the table C(PLATFORMS) in module_utils/switch_config.py, today
        C(dell_os10) or C(arista_eos) (named after their netmiko device types).
    type: str
    required: true
  host:
    description: Address of the switch's SSH server.
    type: str
    required: true
  port:
    description: SSH port.
    type: int
    default: 22
  username:
    description: Login name.
    type: str
    required: true
  password:
    description: Login password.
    type: str
    required: true
    no_log: true
  enable:
    description:
      - Enter privileged exec mode with C(enable) right after login. An Arista EOS user lands
        at C(>) unless the switch has C(aaa authorization exec default local) and the user a
        privilege of 2-15; nothing is sent to a user who is already at C(#).
    type: bool
    default: false
  enable_secret:
    description:
      - The password C(enable) asks for when the switch has an enable secret (netmiko's
        C(secret)). Without an enable secret on the switch, C(enable) asks for none.
    type: str
  host_key_checking:
    description: Refuse unknown or changed SSH host keys.
    type: bool
    default: true
  known_hosts:
    description: known_hosts file with the switch's key (default the user's ~/.ssh/known_hosts).
    type: path
  intended:
    description: Intended configuration of the owned sections, in the device's own format.
    type: str
    required: true
  owned_patterns:
    description:
      - Regular expressions for top-level lines the caller owns even when the intended
        text no longer has them, so that they are removed (for example a breakout map).
    type: list
    elements: str
    default: []
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
  timeout:
    description: Seconds to wait for the SSH connection and for each command's output.
    type: int
    default: 30
author: dlcluster
"""

EXAMPLES = r"""
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
  description: EOS C(show session-config diffs) output of the committed session.
  returned: when an EOS change was pushed
  type: str
saved:
  description: Whether the configuration was saved to startup.
  returned: always
  type: bool
"""

import contextlib
import os
import re
import time
import traceback

from ansible.module_utils.basic import AnsibleModule, missing_required_lib
from ansible.module_utils.switch_config import (
    HAS_HIER_CONFIG,
    HIER_CONFIG_IMPORT_ERROR,
    PLATFORMS,
    PushError,
    owned_text,
    remediation,
)

try:
    from netmiko import ConnectHandler

    HAS_NETMIKO = True
    NETMIKO_IMPORT_ERROR = None
except ImportError:
    HAS_NETMIKO = False
    NETMIKO_IMPORT_ERROR = traceback.format_exc()


def connect(params):
    known_hosts = params["known_hosts"]
    conn = ConnectHandler(
        device_type=PLATFORMS[params["platform"]].device_type,
        host=params["host"],
        port=params["port"],
        username=params["username"],
        password=params["password"],
        ssh_strict=params["host_key_checking"],
        system_host_keys=params["host_key_checking"] and not known_hosts,
        alt_host_keys=bool(params["host_key_checking"] and known_hosts),
        alt_key_file=known_hosts or "",
        conn_timeout=params["timeout"],
        auth_timeout=params["timeout"],
        banner_timeout=params["timeout"],
        read_timeout_override=params["timeout"],
        allow_agent=False,
        use_keys=False,
        fast_cli=False,
        secret=params["enable_secret"] or "",
    )
    if params["enable"] and PLATFORMS[params["platform"]].enable_mode:
        conn.enable()  # netmiko checks the prompt first: a no-op at `#`
    return conn


def read_running(conn, platform):
    command = PLATFORMS[platform].show_running
    output = conn.send_command(command, read_timeout=60)
    # An error is not a configuration: an EOS user at `>` gets `% Invalid input
    # (privileged mode required)`, which must not be taken for an empty switch.
    error = re.search(PLATFORMS[platform].error_pattern + r".*", output)
    if error:
        raise RuntimeError(
            f"the switch refused `{command}`: {error.group(0).strip()}"
            + PLATFORMS[platform].refusal_hint
        )
    return output


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
            "platform": {"type": "str", "required": True, "choices": list(PLATFORMS)},
            "host": {"type": "str", "required": True},
            "port": {"type": "int", "default": 22},
            "username": {"type": "str", "required": True},
            "password": {"type": "str", "required": True, "no_log": True},
            "enable": {"type": "bool", "default": False},
            "enable_secret": {"type": "str", "no_log": True},
            "host_key_checking": {"type": "bool", "default": True},
            "known_hosts": {"type": "path"},
            "intended": {"type": "str", "required": True},
            "owned_patterns": {"type": "list", "elements": "str", "default": []},
            "backup_dir": {"type": "path", "required": True},
            "backup_name": {"type": "str", "required": True},
            "save": {"type": "bool", "default": True},
            "transaction": {
                "type": "str",
                "default": "auto",
                "choices": ["auto", "always", "never"],
            },
            "session_name": {"type": "str", "default": "dlcluster"},
            "timeout": {"type": "int", "default": 30},
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
    intended = params["intended"]
    owned = params["owned_patterns"]
    result = {"changed": False, "commands": [], "saved": False}

    try:
        conn = connect(params)
    except Exception as exc:
        module.fail_json(
            msg=f"cannot open an SSH session to {params['host']}:{params['port']}: {exc}"
        )
    try:
        running = read_running(conn, platform)
        commands = remediation(platform, running, intended, owned)
        result["commands"] = commands
        if module._diff:
            # both sides normalised the same way (blocks without `!`), so only real
            # differences show
            result["diff"] = {
                "before": owned_text(running, intended, owned, platform),
                "after": owned_text(intended, intended, platform=platform),
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
                diff = PLATFORMS[platform].push(conn, commands, params)
                if diff is not None:
                    result["session_diff"] = diff
            except PushError as exc:
                module.fail_json(
                    msg=f"{params['backup_name']}: {exc}",
                    commands_sent=pushed + exc.applied,
                    commands=result["commands"],
                    backup_path=result["backup_path"],
                )
            pushed.extend(commands)
            running = read_running(conn, platform)
            commands = remediation(platform, running, intended, owned)
            if not commands:
                break
        result["changed"] = True
        result["commands"] = pushed
        if commands:
            module.fail_json(
                msg=f"{params['backup_name']}: the running config still differs after the push",
                remaining=commands,
                commands=pushed,
                backup_path=result["backup_path"],
            )
        if params["save"]:
            save = PLATFORMS[platform].save
            output = save(conn) if save is not None else conn.save_config()
            if re.search(PLATFORMS[platform].error_pattern, output or ""):
                module.fail_json(msg=f"saving to startup failed: {output.strip()}", **result)
            result["saved"] = True
    except Exception as exc:  # a session that drops outside a push, a timeout reading
        module.fail_json(
            msg=f"{params['backup_name']}: {exc}",
            commands=result.get("commands", []),
            backup_path=result.get("backup_path"),
        )
    finally:
        with contextlib.suppress(Exception):
            conn.disconnect()
    module.exit_json(**result)


if __name__ == "__main__":
    main()
