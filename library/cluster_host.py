#!/usr/bin/python
"""Read a server once per run: its installed packages and NVIDIA GPUs; and create
dlcluster's directories on it."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: cluster_host
short_description: Read a server's packages and NVIDIA GPUs, and create dlcluster's directories
description:
  - The cluster_host role's one task per server and run. It lists the installed packages
    with the command given in O(package_query) (the package database's own listing,
    C(dpkg-query) or C(rpm -qa), a fraction of a second where C(package_facts) loads the
    whole apt cache) and returns its output as RV(stdout); it finds the NVIDIA GPUs as
    below; and it makes the O(directories) C(root:root 0755), creating those that are
    missing and correcting the owner or mode of the others, reporting C(changed) only
    then (in check mode it says what it would do without doing it).
  - Lists the PCI functions under O(sysfs) whose vendor is NVIDIA (C(0x10de)) and whose
    class is a VGA-compatible (C(0x0300)) or 3D (C(0x0302)) controller, the devices
    C(lspci -d 10de:) shows as GPUs. NVSwitches, audio functions and USB-C controllers of
    the same vendor are not GPUs and are left out.
  - Reads sysfs itself, so it needs neither C(pciutils) nor a driver; it runs before the
    base role installs anything and before the NVIDIA driver exists.
  - Returns the fact C(nvidia_gpu_pci_addresses) (sorted domain:bus:device.function
    addresses; empty where there is no NVIDIA GPU), which decides whether the driver, the
    NVIDIA Container Toolkit and C(--gpus) belong on the host.
  - Also returns C(nvidia_gpu_device_files), the GPU character devices under O(dev)
    (C(/dev/nvidia0), C(/dev/nvidia1)... with NVIDIA's major number 195; not
    C(nvidiactl) or C(nvidia-uvm)), which the driver creates once loaded and which
    Slurm's C(gres.conf) names. On a host without the driver the list is empty.
version_added: "1.0.0"
options:
  package_query:
    description: The command (argv) that prints the installed packages, one a line.
    type: list
    elements: str
    required: true
  directories:
    description: Directories the server must have (created C(root:root 0755) when missing).
    type: list
    elements: path
    default: []
  sysfs:
    description: Directory of the PCI devices (one sub-directory per function).
    type: path
    default: /sys/bus/pci/devices
  dev:
    description: Directory of the device nodes.
    type: path
    default: /dev
author: dlcluster
"""

EXAMPLES = r"""
- name: Read the installed packages and the NVIDIA GPUs, create dlcluster's directories
  cluster_host:
    package_query: [dpkg-query, --show, "--showformat=${db:Status-Abbrev}|${Package}|${Version}\n"]
    directories: ["{{ cluster_config_dir }}", "{{ cluster_state_dir }}"]
  register: cluster_host_read

- name: Say how many there are
  ansible.builtin.debug:
    msg: "{{ ansible_facts.nvidia_gpu_pci_addresses | length }} NVIDIA GPU(s)"
"""

RETURN = r"""
stdout:
  description: What O(package_query) printed (filter installed_packages reads it).
  returned: always
  type: str
created:
  description: >-
    The directories that were missing or not C(root:root 0755) (made so, unless in
    check mode).
  returned: always
  type: list
  elements: str
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
    nvidia_gpu_device_files:
      description: The GPUs' character devices, in GPU index order.
      type: list
      elements: str
      sample: ["/dev/nvidia0", "/dev/nvidia1"]
"""

import os
import re
import stat

from ansible.module_utils.basic import AnsibleModule

NVIDIA_VENDOR = 0x10DE
# PCI base class 03 (display), subclasses 00 (VGA-compatible) and 02 (3D controller)
GPU_CLASSES = (0x0300, 0x0302)
# The major number of the NVIDIA driver's character devices (devices.txt: 195 "Nvidia
# graphics devices"); one /dev/nvidia<N> per GPU, minor N.
NVIDIA_MAJOR = 195
_GPU_DEVICE = re.compile(r"nvidia(\d+)")


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


def find_device_files(dev: str) -> list[str]:
    """The /dev/nvidia<N> character devices of NVIDIA's major number, by GPU index."""
    try:
        names = os.listdir(dev)
    except FileNotFoundError:
        return []
    found = []
    for name in names:
        match = _GPU_DEVICE.fullmatch(name)
        if not match:
            continue
        try:
            info = os.stat(os.path.join(dev, name))
        except OSError:
            continue
        # A plain file of that name is not a device; Slurm refuses it too (gres.conf File=).
        if stat.S_ISCHR(info.st_mode) and os.major(info.st_rdev) == NVIDIA_MAJOR:
            found.append((int(match.group(1)), os.path.join(dev, name)))
    return [path for _, path in sorted(found)]


def _is_ours(path: str) -> bool:
    """A directory owned by root:root with mode 0755, as the role makes them."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return False
    return (
        stat.S_ISDIR(info.st_mode)
        and (info.st_uid, info.st_gid) == (0, 0)
        and (stat.S_IMODE(info.st_mode) == 0o755)
    )


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "package_query": {"type": "list", "elements": "str", "required": True},
            "directories": {"type": "list", "elements": "path", "default": []},
            "sysfs": {"type": "path", "default": "/sys/bus/pci/devices"},
            "dev": {"type": "path", "default": "/dev"},
        },
        supports_check_mode=True,
    )
    try:
        gpus = find_gpus(module.params["sysfs"])
    except OSError as err:
        module.fail_json(msg=f"could not read {module.params['sysfs']}: {err}")
    facts = {
        "nvidia_gpu_pci_addresses": gpus,
        "nvidia_gpu_device_files": find_device_files(module.params["dev"]),
    }
    rc, listing, err = module.run_command(module.params["package_query"])
    if rc != 0:
        module.fail_json(msg=f"could not list the installed packages: {err.strip() or listing}")
    created = [path for path in module.params["directories"] if not _is_ours(path)]
    if not module.check_mode:
        for path in created:
            os.makedirs(path, mode=0o755, exist_ok=True)
            os.chown(path, 0, 0)
            os.chmod(path, 0o755)
    module.exit_json(changed=bool(created), created=created, stdout=listing, ansible_facts=facts)


if __name__ == "__main__":
    main()
