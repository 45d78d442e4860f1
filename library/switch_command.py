#!/usr/bin/python
"""Run read-only show commands on a switch over SSH with netmiko."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: switch_command
short_description: Run show commands on a switch and return their output
description:
  - Opens one SSH session to the switch (netmiko, the device type of the platform table
    C(PLATFORMS) in module_utils/switch_config.py), runs each command and returns its
    output. It changes nothing, so it runs in check mode too.
  - A command the switch refuses (its CLI's error line, as switch_config recognises it)
    fails the task with the command and the line; a refused C(show) is never taken for an
    empty answer.
  - Only commands that start with C(show) (or C(net show) / C(nv show) on Cumulus Linux)
    are accepted.
  - With O(counters), it also reads the named interfaces' packet and octet counters with
    the platform's structured command (C(show interfaces | json) on arista_eos, the
    platforms of C(COUNTER_COMMANDS) in module_utils/switch_config.py) and returns them
    in RV(counters); an interface the switch does not have fails the task.
options:
  commands:
    description: The show commands, run in this order.
    type: list
    elements: str
    default: []
  counters:
    description: Interfaces whose counters to read (after O(commands)).
    type: list
    elements: str
    default: []
extends_documentation_fragment: [switch_connection]
"""

EXAMPLES = r"""
- name: Read the InfiniBand ports' states
  switch_command:
    platform: mellanox_mlnxos
    host: "{{ switches_host }}"
    username: "{{ cluster_switch_username }}"
    password: "{{ cluster_switch_password }}"
    enable: true
    commands: [show interfaces ib status]
  register: status
"""

RETURN = r"""
stdout:
  description: The output of each command, in the order of O(commands).
  returned: success
  type: list
  elements: str
stdout_lines:
  description: The output of each command split into lines.
  returned: success
  type: list
  elements: list
counters:
  description:
    - Per interface of O(counters), C(in_packets) and C(out_packets) (unicast, multicast
      and broadcast together) and C(in_octets), C(out_octets).
  returned: success
  type: dict
  sample:
    Ethernet31/1: {in_packets: 1000, in_octets: 64000, out_packets: 900, out_octets: 57600}
"""

import re
import traceback

from ansible.module_utils.basic import AnsibleModule, missing_required_lib
from ansible.module_utils.switch_config import (
    CONNECTION_ARGUMENT_SPEC,
    COUNTER_COMMANDS,
    HAS_NETMIKO,
    NETMIKO_IMPORT_ERROR,
    PLATFORMS,
    connect,
    interface_counters,
)

READ_ONLY = re.compile(r"^(?:show|net show|nv show)\s")


def _lines(outputs):
    # given with stdout (a list here), so that Ansible does not split stdout itself
    return [output.splitlines() for output in outputs]


def main():
    module = AnsibleModule(
        argument_spec={
            **CONNECTION_ARGUMENT_SPEC,
            "commands": {"type": "list", "elements": "str", "default": []},
            "counters": {"type": "list", "elements": "str", "default": []},
        },
        supports_check_mode=True,
    )
    params = module.params
    if not HAS_NETMIKO:
        module.fail_json(msg=missing_required_lib("netmiko"), exception=NETMIKO_IMPORT_ERROR)
    writes = [c for c in params["commands"] if not READ_ONLY.match(c.strip() + " ")]
    if writes:
        module.fail_json(msg=f"switch_command runs show commands only; refused: {writes}")
    platform = PLATFORMS[params["platform"]]
    if params["counters"] and params["platform"] not in COUNTER_COMMANDS:
        module.fail_json(
            msg=f"no interface counters are read on {params['platform']} (only on "
            f"{', '.join(COUNTER_COMMANDS)})"
        )
    try:
        conn = connect(params)
    except Exception as exc:
        module.fail_json(msg=f"cannot open a session to {params['host']}: {exc}")
    outputs = []
    try:
        for command in params["commands"]:
            output = conn.send_command(command, read_timeout=params["timeout"])
            refused = re.search(platform.error_pattern + r".*", output)
            if refused:
                module.fail_json(
                    msg=f"the switch refused `{command}`: {refused.group(0).strip()}",
                    stdout=outputs,
                    stdout_lines=_lines(outputs),
                )
            outputs.append(output)
        counters = {}
        if params["counters"]:
            command = COUNTER_COMMANDS[params["platform"]]
            output = conn.send_command(command, read_timeout=params["timeout"])
            try:
                counters = interface_counters(output, params["counters"])
            except ValueError as exc:
                module.fail_json(msg=f"`{command}`: {exc}", stdout=outputs,
                                 stdout_lines=_lines(outputs))  # fmt: skip
    except Exception as exc:
        module.fail_json(
            msg=f"{exc}",
            stdout=outputs,
            stdout_lines=_lines(outputs),
            exception=traceback.format_exc(),
        )
    finally:
        conn.disconnect()
    module.exit_json(changed=False, stdout=outputs, stdout_lines=_lines(outputs), counters=counters)


if __name__ == "__main__":
    main()
