#!/usr/bin/python
"""Apply data-NIC addresses, MTU and default gateway to the running kernel, with rollback."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: nic_runtime
short_description: Bring data NICs to their static address, MTU and gateway now, with rollback
description:
  - Compares the running state of each listed interface (C(ip -j addr)) with the wanted
    IPv4 address, MTU and default gateway and changes only what differs, with iproute2.
  - The persistent configuration (netplan, ifupdown, NetworkManager) is written by the
    C(nics) role; this module makes the running kernel match it without restarting the
    network service, which would also bounce the management interface.
  - Before a change it saves the interfaces' previous state to O(state_file); with
    O(rollback=true) it restores that state (used when the reachability check after an
    apply fails).
version_added: "1.0.0"
options:
  interfaces:
    description: Interfaces to manage.
    type: list
    elements: dict
    default: []
    suboptions:
      name:
        description: Kernel interface name.
        type: str
        required: true
      address:
        description: IPv4 address with prefix length, for example C(172.16.1.1/24).
        type: str
        required: true
      mtu:
        description: MTU to set; left alone when omitted.
        type: int
      gateway:
        description: Default gateway reached through this interface.
        type: str
  purge_addresses:
    description: Remove other global IPv4 addresses from the managed interfaces.
    type: bool
    default: true
  state_file:
    description: Where the previous state is kept for O(rollback).
    type: path
    default: /var/lib/dlcluster/nics.rollback.json
  rollback:
    description: Restore the state saved by the last change instead of applying.
    type: bool
    default: false
author: dlcluster
"""

EXAMPLES = r"""
- name: Bring the data NICs to their addresses and MTU 9000
  nic_runtime:
    interfaces:
      - {name: enp31s0f0, address: 172.16.1.1/24, mtu: 9000}
      - {name: enp31s0f1, address: 172.16.1.2/24, mtu: 9000}
"""

RETURN = r"""
changes:
  description: The iproute2 commands run (or that would run in check mode).
  returned: always
  type: list
  elements: str
  sample: ["ip link set dev enp31s0f0 mtu 9000", "ip addr add 172.16.1.1/24 dev enp31s0f0"]
"""

import ipaddress
import json
import os

from ansible.module_utils.basic import AnsibleModule


def _ip_json(module, *args):
    rc, out, err = module.run_command(["ip", "-j", *args], check_rc=False)
    if rc != 0:
        module.fail_json(msg=f"ip -j {' '.join(args)} failed: {err.strip()}")
    return json.loads(out or "[]")


def read_state(module, names):
    """Current MTU, global IPv4 addresses and default gateway of each interface."""
    links = {link["ifname"]: link for link in _ip_json(module, "addr", "show")}
    routes = _ip_json(module, "-4", "route", "show", "default")
    state = {}
    for name in names:
        if name not in links:
            module.fail_json(
                msg=f"nics_interfaces names {name}, which this host does not have "
                f"(it has: {', '.join(sorted(links))})"
            )
        link = links[name]
        addresses = [
            f"{a['local']}/{a['prefixlen']}"
            for a in link.get("addr_info", [])
            if a.get("family") == "inet" and a.get("scope") == "global"
        ]
        gateways = [r["gateway"] for r in routes if r.get("dev") == name and "gateway" in r]
        state[name] = {
            "mtu": link.get("mtu"),
            "addresses": addresses,
            "gateway": gateways[0] if gateways else None,
            "up": "UP" in link.get("flags", []),
        }
    return state


def plan(current, wanted, purge):
    """The iproute2 commands that turn `current` into `wanted`, in a safe order."""
    commands = []
    for nic in wanted:
        name, now = nic["name"], current[nic["name"]]
        if nic.get("mtu") and now["mtu"] != nic["mtu"]:
            commands.append(["ip", "link", "set", "dev", name, "mtu", str(nic["mtu"])])
        if not now["up"]:
            commands.append(["ip", "link", "set", "dev", name, "up"])
        # Strays go first: deleting a primary address also deletes the secondaries of its
        # subnet (promote_secondaries is off by default), so the wanted address is
        # (re)added after them with `replace`, which never fails on an existing address.
        strays = [a for a in now["addresses"] if a != nic["address"]] if purge else []
        for address in strays:
            commands.append(["ip", "addr", "del", address, "dev", name])
        primary = now["addresses"][:1] == [nic["address"]]
        if nic["address"] not in now["addresses"] or (strays and not primary):
            commands.append(["ip", "addr", "replace", nic["address"], "dev", name])
        if nic.get("gateway") and now["gateway"] != nic["gateway"]:
            commands.append(
                ["ip", "route", "replace", "default", "via", nic["gateway"], "dev", name]
            )
    return commands


def restore_commands(saved, current):
    """Commands that put each interface back as it was saved."""
    commands = []
    for name, then in saved.items():
        now = current.get(name)
        if now is None:
            continue
        if then["mtu"] and now["mtu"] != then["mtu"]:
            commands.append(["ip", "link", "set", "dev", name, "mtu", str(then["mtu"])])
        extra = [a for a in now["addresses"] if a not in then["addresses"]]
        for address in extra:
            commands.append(["ip", "addr", "del", address, "dev", name])
        for address in then["addresses"]:
            if address not in now["addresses"] or extra:
                commands.append(["ip", "addr", "replace", address, "dev", name])
        if then["gateway"] and now["gateway"] != then["gateway"]:
            commands.append(
                ["ip", "route", "replace", "default", "via", then["gateway"], "dev", name]
            )
    return commands


def validate(module, interfaces):
    for nic in interfaces:
        try:
            iface = ipaddress.IPv4Interface(nic["address"])
        except ValueError as exc:
            module.fail_json(
                msg=f"{nic['name']}: address {nic['address']!r} is not IPv4/prefix: {exc}"
            )
        if iface.network.prefixlen == 32 and "/" not in nic["address"]:
            module.fail_json(msg=f"{nic['name']}: address {nic['address']} needs a prefix length")
        nic["address"] = f"{iface.ip}/{iface.network.prefixlen}"
        if nic.get("mtu") is not None and not 576 <= nic["mtu"] <= 9216:
            module.fail_json(msg=f"{nic['name']}: mtu {nic['mtu']} is outside 576-9216")


def main():
    module = AnsibleModule(
        argument_spec={
            "interfaces": {
                "type": "list",
                "elements": "dict",
                "default": [],
                "options": {
                    "name": {"type": "str", "required": True},
                    "address": {"type": "str", "required": True},
                    "mtu": {"type": "int"},
                    "gateway": {"type": "str"},
                },
            },
            "purge_addresses": {"type": "bool", "default": True},
            "state_file": {"type": "path", "default": "/var/lib/dlcluster/nics.rollback.json"},
            "rollback": {"type": "bool", "default": False},
        },
        supports_check_mode=True,
    )
    params = module.params
    if params["rollback"]:
        if not os.path.exists(params["state_file"]):
            module.exit_json(changed=False, changes=[], msg="nothing saved to roll back to")
        with open(params["state_file"], encoding="utf-8") as handle:
            saved = json.load(handle)
        commands = restore_commands(saved, read_state(module, list(saved)))
    else:
        validate(module, params["interfaces"])
        names = [nic["name"] for nic in params["interfaces"]]
        current = read_state(module, names)
        commands = plan(current, params["interfaces"], params["purge_addresses"])
        if commands and not module.check_mode:
            os.makedirs(os.path.dirname(params["state_file"]), mode=0o700, exist_ok=True)
            with open(params["state_file"], "w", encoding="utf-8") as handle:
                json.dump(current, handle, indent=2)
    if commands and not module.check_mode:
        for command in commands:
            module.run_command(command, check_rc=True)
    result = {"changed": bool(commands), "changes": [" ".join(c) for c in commands]}
    if module._diff and not params["rollback"]:
        result["diff"] = {
            "before": json.dumps(current, indent=2, sort_keys=True) + "\n",
            "after": json.dumps(
                {
                    n["name"]: {k: n.get(k) for k in ("address", "mtu", "gateway")}
                    for n in params["interfaces"]
                },
                indent=2,
                sort_keys=True,
            )
            + "\n",
        }
    module.exit_json(**result)


if __name__ == "__main__":
    main()
