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
  - Before anything is touched it refuses a change to the interface the controller's
    connection arrives on (found from C(SSH_CONNECTION), read from the module's own
    process or its ancestors, else the default route) unless O(allow_management_changes).
  - Before a change it saves the interfaces' previous state to O(state_file). After the
    change every O(interfaces[].check) address must answer through its interface and the
    management interface must keep its addresses and default route; otherwise the
    previous state is restored and the module fails. O(rollback=true) restores the saved
    state on its own (used when a later step fails).
  - An interface this host does not have fails the module, except an IPoIB one
    (O(interfaces[].type=ipoib)); its InfiniBand port may be absent, in Ethernet mode or
    without the C(ib_ipoib) module loaded, so it is left alone with a warning and
    returned in RV(absent); the persistent configuration still describes it.
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
        description:
          - MTU to set; left alone when omitted. 576-9216 for Ethernet; for IPoIB at most
            4092 in datagram mode, 65520 in connected mode.
        type: int
      type:
        description: C(ethernet) or C(ipoib) (IP over InfiniBand).
        type: str
        choices: [ethernet, ipoib]
        default: ethernet
      ipoib_mode:
        description:
          - IPoIB transport mode, set with C(ip link set dev <name> type ipoib mode <mode>)
            where C(/sys/class/net/<name>/mode) differs; left alone when omitted.
        type: str
        choices: [datagram, connected]
      gateway:
        description: Default gateway reached through this interface.
        type: str
      check:
        description: Addresses that must answer C(ping) through the interface after a change.
        type: list
        elements: str
        default: []
  apply:
    description:
      - Change the running kernel. With V(false) the module only refuses management
        changes, detects the renderer and reports what it would change.
    type: bool
    default: true
  check_timeout:
    description: Seconds each reachability check may take before the change is rolled back.
    type: int
    default: 5
  allow_management_changes:
    description:
      - Allow changes to the interface the controller's connection arrives on, or to the
        default route behind it. Otherwise the module fails before touching anything.
    type: bool
    default: false
  connection:
    description:
      - The Ansible connection plugin in use; C(local) and container connections have no
        management interface to protect.
    type: str
    default: ssh
  renderer:
    description:
      - Which tool keeps the configuration across reboots. V(auto) chooses from
        C(/etc/os-release) (netplan on Ubuntu, NetworkManager on the RHEL family,
        ifupdown otherwise); the choice is returned as RV(renderer).
    type: str
    choices: [auto, ifupdown, netplan, networkmanager]
    default: auto
  ifupdown_dir:
    description:
      - With the ifupdown renderer, the directory of the role's C(60-dlcluster-<name>)
        stanzas. After a successful change the module records the interfaces as up in
        ifupdown's state (C(/run/network/ifstate)), removes the stanzas of interfaces
        no longer listed, and makes C(/etc/network/interfaces) read the directory.
    type: path
  roce:
    description: Return the RDMA ports, their link layer and network interfaces as RV(roce).
    type: bool
    default: false
  purge_addresses:
    description: Remove other global IPv4 addresses from the managed interfaces.
    type: bool
    default: true
  state_file:
    description: Where the previous state is kept for O(rollback) (the role; the state directory).
    type: path
    required: true
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
renderer:
  description: The renderer chosen (O(renderer), or the one O(renderer=auto) found).
  returned: always
  type: str
  sample: netplan
os_family:
  description: C(Debian) or C(RedHat), from C(/etc/os-release).
  returned: always
  type: str
management_interface:
  description: The interface the controller's connection arrives on ("" when none).
  returned: always
  type: str
roce:
  description: RDMA ports, with O(roce=true).
  returned: when O(roce=true)
  type: list
  elements: dict
  sample: [{"device": "mlx5_0", "port": "1", "link_layer": "Ethernet", "netdevs": ["enp5s0"]}]
absent:
  description: IPoIB interfaces of O(interfaces) this host does not have, left alone.
  returned: always
  type: list
  elements: str
changes:
  description: The iproute2 commands run (or that would run in check mode).
  returned: always
  type: list
  elements: str
  sample: ["ip link set dev enp31s0f0 mtu 9000", "ip addr add 172.16.1.1/24 dev enp31s0f0"]
"""

import glob
import ipaddress
import json
import os

from ansible.module_utils.basic import AnsibleModule


def _ip_json(module, *args):
    rc, out, err = module.run_command(["ip", "-j", *args], check_rc=False)
    if rc != 0:
        module.fail_json(msg=f"ip -j {' '.join(args)} failed: {err.strip()}")
    return json.loads(out or "[]")


def link_state(links, routes, name):
    """MTU, global IPv4 addresses, default gateway and up flag of one `ip -j addr` link."""
    link = links[name]
    addresses = [
        f"{a['local']}/{a['prefixlen']}"
        for a in link.get("addr_info", [])
        if a.get("family") == "inet" and a.get("scope") == "global"
    ]
    gateways = [r["gateway"] for r in routes if r.get("dev") == name and "gateway" in r]
    return {
        "mtu": link.get("mtu"),
        "addresses": addresses,
        "gateway": gateways[0] if gateways else None,
        "up": "UP" in link.get("flags", []),
    }


def read_links(module):
    """Every link by name, and the IPv4 default routes."""
    links = {link["ifname"]: link for link in _ip_json(module, "addr", "show")}
    return links, _ip_json(module, "-4", "route", "show", "default")


IPOIB_MAX_MTU = {"datagram": 4092, "connected": 65520}


def ipoib_mode(name, sysfs="/sys/class/net"):
    """The IPoIB transport mode the kernel runs (`datagram`/`connected`), or None."""
    return _read(os.path.join(sysfs, name, "mode")).strip() or None


def read_state(module, names, optional=(), ipoib=()):
    """Current MTU, global IPv4 addresses and default gateway of each interface.

    Names in `optional` the host lacks are left out instead of failing; those in `ipoib`
    also get their transport `mode`.
    """
    links, routes = read_links(module)
    for name in names:
        if name not in links and name not in optional:
            module.fail_json(
                msg=f"nics_interfaces names {name}, which this host does not have "
                f"(it has: {', '.join(sorted(links))})"
            )
    state = {}
    for name in names:
        if name in links:
            state[name] = link_state(links, routes, name)
            if name in ipoib:
                state[name]["mode"] = ipoib_mode(name)
    return state


def _mode_command(name, mode):
    return ["ip", "link", "set", "dev", name, "type", "ipoib", "mode", mode]


def plan(current, wanted, purge):
    """The iproute2 commands that turn `current` into `wanted`, in a safe order."""
    commands = []
    for nic in wanted:
        if nic["name"] not in current:
            continue  # an absent IPoIB interface (read_state's `optional`)
        name, now = nic["name"], current[nic["name"]]
        # The mode first: the kernel resets an IPoIB MTU when the mode changes.
        mode = nic.get("ipoib_mode")
        mode_changes = bool(mode and now.get("mode") and now["mode"] != mode)
        if mode_changes:
            commands.append(_mode_command(name, mode))
        if nic.get("mtu") and (mode_changes or now["mtu"] != nic["mtu"]):
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
        mode_changes = bool(then.get("mode") and now.get("mode") and now["mode"] != then["mode"])
        if mode_changes:
            commands.append(_mode_command(name, then["mode"]))
        if then["mtu"] and (mode_changes or now["mtu"] != then["mtu"]):
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


def ssh_server_address(environs):
    """The server address of the first SSH_CONNECTION found, or "".

    `environs` are environments from this process outwards: sudo drops SSH_CONNECTION,
    but the shell that sshd started (an ancestor) still has it.
    """
    for environ in environs:
        fields = str(environ.get("SSH_CONNECTION", "")).split()
        if len(fields) == 4:
            return fields[2]
    return ""


def _ancestor_environs():
    """This process's environment, then each ancestor's (as far as /proc lets us read)."""
    yield dict(os.environ)
    pid = os.getppid()
    while pid > 1:
        try:
            with open(f"/proc/{pid}/environ", "rb") as handle:
                raw = handle.read()
            with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
                stat = handle.read()
        except OSError:
            return
        pairs = (item.split(b"=", 1) for item in raw.split(b"\0") if b"=" in item)
        yield {k.decode(errors="replace"): v.decode(errors="replace") for k, v in pairs}
        pid = int(stat.rsplit(")", 1)[1].split()[1])


def management_interface(links, routes, server_address):
    """The interface holding the SSH server address, else the default route's, else ""."""
    if server_address:
        for name, link in links.items():
            for info in link.get("addr_info", []):
                if info.get("local") == server_address:
                    return name
    for route in routes:
        if route.get("dev"):
            return route["dev"]
    return ""


def management_problems(interfaces, management, routes):
    """Why applying `interfaces` could cut the management connection (empty: it cannot)."""
    if not management:
        return []
    default = next((r for r in routes if r.get("dev")), {})
    problems = []
    for nic in interfaces:
        if nic["name"] == management:
            problems.append(f"{nic['name']} carries the management connection")
        gateway = nic.get("gateway")
        if gateway and default.get("dev") == management and default.get("gateway") != gateway:
            problems.append(
                f"{nic['name']}: gateway {gateway} would replace the default route via "
                f"{default.get('gateway')} on the management interface {management}"
            )
    return problems


def os_release(text):
    """The OS family and the renderer `auto` means, from /etc/os-release."""
    fields = dict(
        line.split("=", 1) for line in text.splitlines() if "=" in line and not line.startswith("#")
    )
    ids = " ".join(fields.get(k, "").strip("\"'") for k in ("ID", "ID_LIKE")).lower().split()
    if "ubuntu" in ids:
        return "Debian", "netplan"
    if {"rhel", "fedora", "centos"} & set(ids):
        return "RedHat", "networkmanager"
    return "Debian", "ifupdown"


def roce_ports(sysfs="/sys/class/infiniband"):
    """RDMA ports with their link layer (Ethernet: RoCE) and the network interfaces behind."""
    ports = []
    for device in sorted(glob.glob(os.path.join(sysfs, "*"))):
        net = os.path.join(device, "device", "net")
        netdevs = sorted(os.listdir(net)) if os.path.isdir(net) else []
        for port in sorted(glob.glob(os.path.join(device, "ports", "*"))):
            with open(os.path.join(port, "link_layer"), encoding="utf-8") as handle:
                layer = handle.read().strip()
            ports.append(
                {
                    "device": os.path.basename(device),
                    "port": os.path.basename(port),
                    "link_layer": layer,
                    "netdevs": netdevs,
                }
            )
    return ports


def ifupdown_plan(names, directory, interfaces_text, ifstate, stanzas, absent=()):
    """What ifupdown needs besides the stanzas, as (description, action) pairs.

    The running interfaces were configured here, not by ifup, so ifupdown would think
    them down and its next `ifup -a` would fail on the existing address: they are
    recorded as up exactly as ifup records them (not those `absent`, which were not
    configured; their stanzas stay). Stanzas of interfaces that left the inventory go,
    and /etc/network/interfaces must read the directory.
    """
    actions = []
    sources = {f"source {directory}/*", f"source-directory {directory}"}
    if not sources & {line.strip() for line in interfaces_text.splitlines()}:
        actions.append((f"add 'source {directory}/*' to /etc/network/interfaces", "source"))
    for name in names:
        if name not in absent and f"{name}={name}" not in ifstate.splitlines():
            actions.append((f"record {name} as up in /run/network/ifstate", ("ifstate", name)))
    wanted = {f"60-dlcluster-{name}" for name in names}
    for stanza in sorted(stanzas):
        if os.path.basename(stanza) not in wanted:
            actions.append((f"remove {stanza}", ("remove", stanza)))
    return actions


def _read(path):
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except FileNotFoundError:
        return ""


def _append(path, line):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    text = _read(path)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(("" if not text or text.endswith("\n") else "\n") + line + "\n")
    os.chmod(path, 0o644)


def run_ifupdown(actions, directory):
    for _, action in actions:
        if action == "source":
            _append("/etc/network/interfaces", f"source {directory}/*")
        elif action[0] == "ifstate":
            name = action[1]
            _append("/run/network/ifstate", f"{name}={name}")
            with open(f"/run/network/ifstate.{name}", "w", encoding="utf-8") as handle:
                handle.write(f"{name}\n")
        else:
            os.remove(action[1])


def unreachable(module, interfaces, timeout):
    """The first `check` address that does not answer through its interface, or None."""
    for nic in interfaces:
        for address in nic.get("check") or []:
            argv = ["ping", "-c", "2", "-W", str(timeout), "-I", nic["name"], address]
            rc, out, err = module.run_command(argv, check_rc=False)
            if rc != 0:
                return f"{nic['name']} cannot reach {address} ({(out + err).strip()[-200:]})"
    return None


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
        high = (
            IPOIB_MAX_MTU[nic.get("ipoib_mode") or "datagram"]
            if nic.get("type") == "ipoib"
            else 9216
        )
        if nic.get("mtu") is not None and not 576 <= nic["mtu"] <= high:
            module.fail_json(msg=f"{nic['name']}: mtu {nic['mtu']} is outside 576-{high}")


def _run_all(module, commands):
    for command in commands:
        module.run_command(command, check_rc=True)


def rollback(module, state_file):
    """Put the interfaces back as they were saved; the commands run."""
    if not os.path.exists(state_file):
        return []
    with open(state_file, encoding="utf-8") as handle:
        saved = json.load(handle)
    ipoib = [name for name, state in saved.items() if "mode" in state]
    commands = restore_commands(saved, read_state(module, list(saved), optional=ipoib, ipoib=ipoib))
    if not module.check_mode:
        _run_all(module, commands)
    return commands


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
                    "check": {"type": "list", "elements": "str", "default": []},
                    "type": {
                        "type": "str",
                        "default": "ethernet",
                        "choices": ["ethernet", "ipoib"],
                    },
                    "ipoib_mode": {"type": "str", "choices": ["datagram", "connected"]},
                },
            },
            "apply": {"type": "bool", "default": True},
            "check_timeout": {"type": "int", "default": 5},
            "allow_management_changes": {"type": "bool", "default": False},
            "connection": {"type": "str", "default": "ssh"},
            "renderer": {
                "type": "str",
                "default": "auto",
                "choices": ["auto", "ifupdown", "netplan", "networkmanager"],
            },
            "ifupdown_dir": {"type": "path"},
            "roce": {"type": "bool", "default": False},
            "purge_addresses": {"type": "bool", "default": True},
            "state_file": {"type": "path", "required": True},
            "rollback": {"type": "bool", "default": False},
        },
        supports_check_mode=True,
    )
    params = module.params
    if params["rollback"]:
        commands = rollback(module, params["state_file"])
        module.exit_json(changed=bool(commands), changes=[" ".join(c) for c in commands])

    os_family, renderer = os_release(_read("/etc/os-release"))
    if params["renderer"] != "auto":
        renderer = params["renderer"]
    result = {"renderer": renderer, "os_family": os_family}
    if params["roce"]:
        result["roce"] = roce_ports()

    interfaces = params["interfaces"]
    validate(module, interfaces)
    links, routes = read_links(module)
    local = params["connection"] in ("local", "community.docker.docker", "docker")
    management = (
        ""
        if local
        else management_interface(links, routes, ssh_server_address(_ancestor_environs()))
    )
    result["management_interface"] = management
    problems = management_problems(interfaces, management, routes)
    if problems and not params["allow_management_changes"]:
        module.fail_json(
            msg=f"nics: {'; '.join(problems)}. Nothing was changed; set "
            "nics_allow_management_changes=true if this is intended.",
            **result,
        )

    ipoib = [nic["name"] for nic in interfaces if nic["type"] == "ipoib"]
    current = read_state(module, [nic["name"] for nic in interfaces], optional=ipoib, ipoib=ipoib)
    absent = [name for name in ipoib if name not in current]
    for name in absent:
        module.warn(
            f"nics: IPoIB interface {name} is not on this host (no InfiniBand port, port in "
            "Ethernet mode, or ib_ipoib not loaded): left alone now; its persistent "
            "configuration is written where the renderer takes it without the device"
        )
    result["absent"] = absent
    present = [nic for nic in interfaces if nic["name"] in current]
    commands = plan(current, present, params["purge_addresses"]) if params["apply"] else []
    if commands and not module.check_mode:
        os.makedirs(os.path.dirname(params["state_file"]), mode=0o700, exist_ok=True)
        with open(params["state_file"], "w", encoding="utf-8") as handle:
            json.dump(current, handle, indent=2)
        before = link_state(links, routes, management) if management in links else None
        _run_all(module, commands)
        failure = unreachable(module, present, params["check_timeout"])
        if failure is None and before is not None:
            after_links, after_routes = read_links(module)
            if link_state(after_links, after_routes, management) != before:
                failure = f"the management interface {management} changed"
        if failure is not None:
            rollback(module, params["state_file"])
            module.fail_json(
                msg=f"nics: the change was rolled back because {failure}; "
                "the persistent configuration was not changed",
                changes=[" ".join(c) for c in commands],
                **result,
            )

    bookkeeping = []
    if params["apply"] and renderer == "ifupdown" and params["ifupdown_dir"]:
        directory = params["ifupdown_dir"].rstrip("/")
        bookkeeping = ifupdown_plan(
            [nic["name"] for nic in interfaces],
            directory,
            _read("/etc/network/interfaces"),
            _read("/run/network/ifstate"),
            glob.glob(os.path.join(directory, "60-dlcluster-*")),
            absent=absent,
        )
        if bookkeeping and not module.check_mode:
            run_ifupdown(bookkeeping, directory)

    changes = [" ".join(c) for c in commands] + [text for text, _ in bookkeeping]
    result.update(changed=bool(changes), changes=changes)
    if module._diff:
        result["diff"] = {
            "before": json.dumps(current, indent=2, sort_keys=True) + "\n",
            "after": json.dumps(
                {
                    n["name"]: {k: n.get(k) for k in ("address", "mtu", "gateway")}
                    for n in interfaces
                },
                indent=2,
                sort_keys=True,
            )
            + "\n",
        }
    module.exit_json(**result)


if __name__ == "__main__":
    main()
