#!/usr/bin/python
"""Find the NVIDIA GPUs on a host's PCI bus, from sysfs, as a host fact."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: nvidia_gpus
short_description: Find the NVIDIA GPUs on the PCI bus and record them as a host fact
description:
  - Lists the PCI functions under O(sysfs) whose vendor is NVIDIA (C(0x10de)) and whose
    class is a VGA-compatible (C(0x0300)) or 3D (C(0x0302)) controller, the devices
    C(lspci -d 10de:) shows as GPUs. NVSwitches, audio functions and USB-C controllers of
    the same vendor are not GPUs and are left out.
  - Reads sysfs itself, so it needs neither C(pciutils) nor a driver: it runs before the
    base role installs anything and before the NVIDIA driver exists.
  - Returns the fact C(nvidia_gpu_pci_addresses) (sorted domain:bus:device.function
    addresses; empty where there is no NVIDIA GPU), which decides whether the driver, the
    NVIDIA Container Toolkit and C(--gpus) belong on the host. It reads only, and
    supports check mode.
version_added: "1.0.0"
options:
  sysfs:
    description: Directory of the PCI devices (one sub-directory per function).
    type: path
    default: /sys/bus/pci/devices
author: dlcluster
"""

EXAMPLES = r"""
- name: Find the NVIDIA GPUs on the PCI bus
  nvidia_gpus:

- name: Say how many there are
  ansible.builtin.debug:
    msg: "{{ ansible_facts.nvidia_gpu_pci_addresses | length }} NVIDIA GPU(s)"
"""

RETURN = r"""
ansible_facts:
  description: The facts the module sets.
  returned: always
  type: dict
  contains:
    nvidia_gpu_pci_addresses:
      description: PCI addresses of the host's NVIDIA GPUs, sorted.
      type: list
      elements: str
      sample: ["0000:3b:00.0", "0000:5e:00.0"]
"""

import os

from ansible.module_utils.basic import AnsibleModule

NVIDIA_VENDOR = 0x10DE
# PCI base class 03 (display), subclasses 00 (VGA-compatible) and 02 (3D controller)
GPU_CLASSES = (0x0300, 0x0302)


def _read_hex(path: str) -> int | None:
    try:
        with open(path, encoding="ascii") as handle:
            return int(handle.read().strip(), 16)
    except (OSError, ValueError):
        return None


def find_gpus(sysfs: str) -> list[str]:
    """The PCI addresses under `sysfs` of NVIDIA VGA or 3D controllers, sorted."""
    try:
        functions = os.listdir(sysfs)
    except FileNotFoundError:
        return []  # no PCI bus exposed (some containers): no GPU
    found = []
    for function in functions:
        device = os.path.join(sysfs, function)
        if _read_hex(os.path.join(device, "vendor")) != NVIDIA_VENDOR:
            continue
        pci_class = _read_hex(os.path.join(device, "class"))
        # the class file holds class, subclass and programming interface (0x030000)
        if pci_class is not None and (pci_class >> 8) in GPU_CLASSES:
            found.append(function)
    return sorted(found)


def main() -> None:
    module = AnsibleModule(
        argument_spec={"sysfs": {"type": "path", "default": "/sys/bus/pci/devices"}},
        supports_check_mode=True,
    )
    try:
        gpus = find_gpus(module.params["sysfs"])
    except OSError as err:
        module.fail_json(msg=f"could not read {module.params['sysfs']}: {err}")
    module.exit_json(changed=False, ansible_facts={"nvidia_gpu_pci_addresses": gpus})


if __name__ == "__main__":
    main()
