"""Connection options shared by switch_config and switch_command (module_utils/switch_config.py
connect(): one netmiko session per task)."""

from __future__ import annotations


class ModuleDocFragment:
    DOCUMENTATION = r"""
options:
  platform:
    description:
      - A platform of the table C(PLATFORMS) in module_utils/switch_config.py (named after
        their netmiko device types).
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
  timeout:
    description: Seconds to wait for the SSH connection and for each command's output.
    type: int
    default: 30
"""
