"""The forced driver install on lab-compute-1 (molecule/nvidia_driver)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import testinfra

ROOT = Path(__file__).resolve().parents[3]
HOST = testinfra.get_host("docker://lab-compute-1")


def test_the_pinned_branch_is_installed_from_debian_non_free():
    driver = HOST.package("nvidia-driver")
    assert driver.is_installed
    assert driver.version.split(".")[0] == "535"
    sources = HOST.file("/etc/apt/sources.list.d/dlcluster-debian-nonfree.sources")
    assert "Components: non-free non-free-firmware" in sources.content_string


def test_nouveau_is_blacklisted():
    conf = HOST.file("/etc/modprobe.d/blacklist-nouveau.conf").content_string
    assert "blacklist nouveau" in conf.splitlines()
    assert "options nouveau modeset=0" in conf.splitlines()


def test_persistenced_is_enabled_but_not_started_without_a_module():
    service = HOST.service("nvidia-persistenced")
    assert service.is_enabled
    assert not HOST.file("/sys/module/nvidia").exists


def test_a_rerun_reports_the_module_is_not_loaded_and_does_not_reboot():
    venv = Path(os.environ.get("VIRTUAL_ENV", ROOT / ".venv"))
    boot_before = HOST.check_output("cat /proc/1/stat | cut -d' ' -f22")
    result = subprocess.run(
        [
            str(venv / "bin" / "ansible-playbook"),
            "-i",
            "inventories/lab",
            "molecule/nvidia_driver/converge.yml",
        ],
        cwd=ROOT,
        env={
            # Molecule forces colour; the assertions read plain text
            **{
                k: v for k, v in os.environ.items() if k not in ("ANSIBLE_FORCE_COLOR", "PY_COLORS")
            },
            "ANSIBLE_NOCOLOR": "1",
            "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"),
            "DLCLUSTER_LAB_STATE": str(ROOT / "lab" / ".state"),
        },
        capture_output=True,
        text=True,
        check=False,
    )
    output = " ".join(result.stdout.split())
    assert result.returncode == 0, result.stdout[-3000:]
    assert "running module: not loaded; not rebooting: no NVIDIA GPU on this host" in output
    assert "changed=0" in output
    assert HOST.check_output("cat /proc/1/stat | cut -d' ' -f22") == boot_before
