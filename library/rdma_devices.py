#!/usr/bin/python
"""Find a host's RDMA devices in sysfs and set ConnectX port types (IB or Ethernet)."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: rdma_devices
short_description: Read the host's RDMA devices from sysfs and set ConnectX port types
description:
  - Lists the RDMA devices under O(sysfs) (C(/sys/class/infiniband)); name, PCI address,
    firmware, node GUID and, per port, link layer, state, physical state, rate and the
    network interface sysfs shows for it. A host without RDMA devices (or without the
    RDMA kernel modules, where the directory does not exist) gives an empty list; that
    is not an error.
  - Returns them as the fact C(rdma_devices).
  - For each O(port_types) entry whose device and port exist, reads the card's
    C(LINK_TYPE_P<n>) with C(mstconfig -d <pci> query) and, only when it differs, sets it
    with C(mstconfig -y -d <pci> set LINK_TYPE_P<n>=1|2) (1 InfiniBand, 2 Ethernet). The
    card's port number is the PCI function plus the RDMA port (a dual-port ConnectX-6 shows
    two PCI functions with one RDMA port each; function 1 is the card's port 2).
  - Entries whose device or port is absent are skipped with the reason, never touched;
    with O(require_devices) the module fails instead.
  - A new port type takes effect after a reboot (or C(mlxfwreset)). The fact
    C(rdma_reboot_required) is true while a configured port's running link layer (sysfs)
    differs from the one asked for, whether the change was made in this run or an
    earlier one.
version_added: "1.0.0"
options:
  sysfs:
    description: The RDMA device class directory.
    type: path
    default: /sys/class/infiniband
  port_types:
    description: Port types to set.
    type: list
    elements: dict
    default: []
    suboptions:
      device:
        description: RDMA device name, for example C(mlx5_4).
        type: str
        required: true
      port:
        description: RDMA port of the device.
        type: int
        default: 1
      type:
        description: C(ib) (InfiniBand, LINK_TYPE 1) or C(eth) (Ethernet, LINK_TYPE 2).
        type: str
        required: true
        choices: [eth, ib]
  expected_devices:
    description:
      - Devices other settings rely on (the NCCL compute HCAs); those absent are returned
        as RV(missing), and fail the module with O(require_devices).
    type: list
    elements: str
    default: []
  require_devices:
    description: Fail when a device or port named in O(port_types) or O(expected_devices) is absent.
    type: bool
    default: false
author: dlcluster
"""

EXAMPLES = r"""
- name: Put the storage card's first port in Ethernet mode
  rdma_devices:
    port_types:
      - {device: mlx5_4, port: 1, type: eth}
"""

RETURN = r"""
ansible_facts:
  description: The facts the module sets.
  returned: always
  type: dict
  contains:
    rdma_devices:
      description: The host's RDMA devices, sorted by name; empty where there is none.
      type: list
      elements: dict
      sample:
        - name: mlx5_0
          pci: "0000:0c:00.0"
          hca_type: MT4123
          fw_ver: 20.28.1002
          node_guid: "b859:9f03:00a1:2b3c"
          ports:
            - {port: 1, link_layer: InfiniBand, state: ACTIVE, phys_state: LinkUp,
               rate: "200 Gb/sec (4X HDR)", netdev: ibp12s0}
    rdma_port_type_results:
      description: One result per O(port_types) entry.
      type: list
      elements: dict
      sample:
        - {device: mlx5_4, port: 1, type: eth, status: skipped,
           reason: "no RDMA device mlx5_4 on this host"}
        - {device: mlx5_5, port: 1, type: eth, pci: "0000:61:00.1", field: LINK_TYPE_P2,
           before: 1, after: 2, status: changed, reboot_required: true}
    rdma_reboot_required:
      description: Whether a configured port runs another link layer than asked for until a reboot.
      type: bool
missing:
  description: Devices of O(expected_devices) this host does not have.
  returned: always
  type: list
  elements: str
commands:
  description: The mstconfig set commands run (or that would run in check mode).
  returned: always
  type: list
  elements: str
"""

import os
import re

from ansible.module_utils.basic import AnsibleModule

# mstconfig's LINK_TYPE values (ConnectX VPI): 1 InfiniBand, 2 Ethernet (3, VPI
# auto-sensing, exists on older cards and is never asked for here).
LINK_TYPES = {"ib": 1, "eth": 2}
# The sysfs link layer each type runs once it is in effect.
LINK_LAYERS = {"ib": "InfiniBand", "eth": "Ethernet"}
_LINK_TYPE_LINE = re.compile(r"^\s*LINK_TYPE_P(\d+)\s+(.*)$")
_VALUE = re.compile(r"\((\d+)\)")


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read().strip()
    except OSError:
        return ""


def _after_colon(text: str) -> str:
    """`4: ACTIVE` -> `ACTIVE` (sysfs state files give the number and the name)."""
    return text.split(":", 1)[1].strip() if ":" in text else text


def _port_netdevs(device_dir: str, ports: list[int]) -> dict[int, str]:
    """The network interface of each port, from the device's PCI function.

    One port (every mlx5 function): all its netdevs belong to it, the first by name is
    taken (the IPoIB or Ethernet interface; child interfaces sort after it). Two ports
    on one function (mlx4): the netdev's dev_port (0-based) says which.
    """
    net = os.path.join(device_dir, "device", "net")
    names = sorted(os.listdir(net)) if os.path.isdir(net) else []
    found: dict[int, str] = {}
    for name in names:
        if len(ports) == 1:
            port = ports[0]
        else:
            raw = _read(os.path.join(net, name, "dev_port")) or "0"
            try:
                port = int(raw, 0) + 1
            except ValueError:
                continue
        found.setdefault(port, name)
    return found


def read_devices(sysfs: str = "/sys/class/infiniband") -> list[dict]:
    """The RDMA devices under `sysfs`, sorted by name; [] where the directory is absent."""
    if not os.path.isdir(sysfs):
        return []
    devices = []
    for name in sorted(os.listdir(sysfs)):
        base = os.path.join(sysfs, name)
        ports_dir = os.path.join(base, "ports")
        numbers = sorted(
            int(entry)
            for entry in (os.listdir(ports_dir) if os.path.isdir(ports_dir) else [])
            if entry.isdigit()
        )
        netdevs = _port_netdevs(base, numbers)
        device_link = os.path.join(base, "device")
        pci = os.path.basename(os.path.realpath(device_link)) if os.path.exists(device_link) else ""
        ports = []
        for number in numbers:
            port_dir = os.path.join(ports_dir, str(number))
            ports.append(
                {
                    "port": number,
                    "link_layer": _read(os.path.join(port_dir, "link_layer")),
                    "state": _after_colon(_read(os.path.join(port_dir, "state"))),
                    "phys_state": _after_colon(_read(os.path.join(port_dir, "phys_state"))),
                    "rate": _read(os.path.join(port_dir, "rate")),
                    "netdev": netdevs.get(number, ""),
                }
            )
        devices.append(
            {
                "name": name,
                "pci": pci,
                "hca_type": _read(os.path.join(base, "hca_type")),
                "fw_ver": _read(os.path.join(base, "fw_ver")),
                "node_guid": _read(os.path.join(base, "node_guid")),
                "ports": ports,
            }
        )
    return devices


def parse_link_types(text: str) -> dict[int, int]:
    """LINK_TYPE_P<n> values from `mstconfig query` output: {card port: value}.

    A line reads `LINK_TYPE_P1                                IB(1)`; with more than
    one column (default, current, next boot) the last one, the next boot's, counts.
    """
    values = {}
    for line in text.splitlines():
        match = _LINK_TYPE_LINE.match(line)
        if not match:
            continue
        found = _VALUE.findall(match.group(2))
        if found:
            values[int(match.group(1))] = int(found[-1])
    return values


def card_port(pci: str, port: int) -> int:
    """The card's port number (LINK_TYPE_P<n>) of an RDMA port on a PCI function.

    mlx5 gives each physical port its own PCI function with RDMA port 1 (function .1 is
    the card's port 2); mlx4 gives one function two RDMA ports. Function plus port covers
    both.
    """
    try:
        function = int(pci.rsplit(".", 1)[1], 16)
    except (IndexError, ValueError):
        function = 0
    return function + int(port)


def resolve(devices: list[dict], port_types: list[dict]) -> list[dict]:
    """Each wanted port type with its PCI address and card port, or skipped with the reason."""
    by_name = {device["name"]: device for device in devices}
    results = []
    for entry in port_types:
        result = {"device": entry["device"], "port": int(entry["port"]), "type": entry["type"]}
        device = by_name.get(entry["device"])
        port = next(
            (p for p in (device or {}).get("ports", []) if p["port"] == result["port"]), None
        )
        if device is None:
            result.update(status="skipped", reason=f"no RDMA device {entry['device']} on this host")
        elif port is None:
            result.update(
                status="skipped", reason=f"{entry['device']} has no port {result['port']}"
            )
        elif not device["pci"]:
            result.update(
                status="skipped",
                reason=f"{entry['device']} is not a PCI device (no firmware to set)",
            )
        else:
            result.update(
                pci=device["pci"],
                field=f"LINK_TYPE_P{card_port(device['pci'], result['port'])}",
                running=port["link_layer"],
            )
        results.append(result)
    return results


def decide(results: list[dict], queried: dict[str, dict[int, int]]) -> dict[str, list[str]]:
    """Fill in each resolved result's before/after and status; the settings per PCI address.

    `queried` holds each PCI address's LINK_TYPE values from mstconfig. A port whose card
    shows no such field has a fixed port type: skipped, with the reason.
    """
    settings: dict[str, list[str]] = {}
    for result in results:
        if result.get("status") == "skipped":
            continue
        values = queried.get(result["pci"], {})
        number = int(result["field"].rsplit("P", 1)[1])
        wanted = LINK_TYPES[result["type"]]
        if number not in values:
            result.update(
                status="skipped",
                reason=f"mstconfig shows no {result['field']} for {result['pci']}: "
                "the adapter's port type cannot be set",
            )
            continue
        result.update(before=values[number], after=wanted)
        result["status"] = "ok" if values[number] == wanted else "changed"
        if values[number] != wanted:
            setting = f"{result['field']}={wanted}"
            if setting not in settings.setdefault(result["pci"], []):
                settings[result["pci"]].append(setting)
        result["reboot_required"] = result.pop("running") != LINK_LAYERS[result["type"]]
    for result in results:
        result.pop("running", None)
    return settings


def missing_devices(devices: list[dict], expected: list[str]) -> list[str]:
    """Expected device names this host does not have, in the order given."""
    names = {device["name"] for device in devices}
    return [name for name in dict.fromkeys(expected) if name not in names]


def _mstconfig(module: AnsibleModule, binary: str, args: list[str]) -> str:
    rc, out, err = module.run_command([binary, *args], check_rc=False)
    if rc != 0:
        module.fail_json(msg=f"mstconfig {' '.join(args)} failed (rc {rc}): {(err or out).strip()}")
    return out


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "sysfs": {"type": "path", "default": "/sys/class/infiniband"},
            "port_types": {
                "type": "list",
                "elements": "dict",
                "default": [],
                "options": {
                    "device": {"type": "str", "required": True},
                    "port": {"type": "int", "default": 1},
                    "type": {"type": "str", "required": True, "choices": ["eth", "ib"]},
                },
            },
            "expected_devices": {"type": "list", "elements": "str", "default": []},
            "require_devices": {"type": "bool", "default": False},
        },
        supports_check_mode=True,
    )
    params = module.params
    devices = read_devices(params["sysfs"])
    results = resolve(devices, params["port_types"])
    missing = missing_devices(devices, params["expected_devices"])
    absent = [r["reason"] for r in results if r.get("status") == "skipped"] + [
        f"no RDMA device {name} on this host" for name in missing
    ]
    if absent and params["require_devices"]:
        module.fail_json(
            msg="rdma: " + "; ".join(dict.fromkeys(absent)) + " (rdma_require_devices is true)",
            ansible_facts={"rdma_devices": devices},
        )

    pending = [r for r in results if r.get("status") != "skipped"]
    binary = module.get_bin_path("mstconfig") if pending else None
    if pending and binary is None:
        if not module.check_mode:
            module.fail_json(msg="mstconfig not found: the mstflint package provides it")
        for result in pending:  # check mode before the packages are installed
            result.update(status="skipped", reason="mstconfig is not installed yet (check mode)")
            result.pop("running", None)
        pending = []
    queried = {
        pci: parse_link_types(_mstconfig(module, binary, ["-d", pci, "query"]))
        for pci in dict.fromkeys(r["pci"] for r in pending)
    }
    settings = decide(results, queried)
    commands = [["-y", "-d", pci, "set", *values] for pci, values in settings.items()]
    if not module.check_mode:
        for args in commands:
            _mstconfig(module, binary, args)

    outcome = {
        "changed": bool(commands),
        "commands": [" ".join(["mstconfig", *args]) for args in commands],
        "missing": missing,
        "ansible_facts": {
            "rdma_devices": devices,
            "rdma_port_type_results": results,
            "rdma_reboot_required": any(r.get("reboot_required") for r in results),
        },
    }
    if module._diff:
        managed = [r for r in results if "before" in r]
        outcome["diff"] = {
            "before": "".join(f"{r['pci']} {r['field']}={r['before']}\n" for r in managed),
            "after": "".join(f"{r['pci']} {r['field']}={r['after']}\n" for r in managed),
        }
    module.exit_json(**outcome)


if __name__ == "__main__":
    main()
