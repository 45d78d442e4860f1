"""library/nvidia_gpus.py: which PCI functions count as NVIDIA GPUs."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_PATH = Path(__file__).resolve().parents[2] / "library" / "nvidia_gpus.py"
_SPEC = importlib.util.spec_from_file_location("nvidia_gpus", _PATH)
nvidia_gpus = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(nvidia_gpus)


def _function(root: Path, address: str, vendor: str, pci_class: str) -> None:
    device = root / address
    device.mkdir(parents=True)
    (device / "vendor").write_text(f"{vendor}\n")
    (device / "class").write_text(f"{pci_class}\n")


def test_gpus_are_nvidia_vga_and_3d_controllers_only(tmp_path):
    _function(tmp_path, "0000:5e:00.0", "0x10de", "0x030200")  # V100: 3D controller
    _function(tmp_path, "0000:3b:00.0", "0x10de", "0x030000")  # VGA-compatible
    _function(tmp_path, "0000:3b:00.1", "0x10de", "0x040300")  # the same card's audio
    _function(tmp_path, "0000:c1:00.0", "0x10de", "0x068000")  # NVSwitch (bridge class)
    _function(tmp_path, "0000:00:02.0", "0x1a03", "0x030000")  # BMC's VGA (ASPEED)
    _function(tmp_path, "0000:18:00.0", "0x15b3", "0x020000")  # ConnectX NIC
    assert nvidia_gpus.find_gpus(str(tmp_path)) == ["0000:3b:00.0", "0000:5e:00.0"]


def test_a_host_without_nvidia_devices_has_no_gpu(tmp_path):
    _function(tmp_path, "0000:00:00.0", "0x8086", "0x060000")
    assert nvidia_gpus.find_gpus(str(tmp_path)) == []


def test_a_host_without_a_pci_bus_in_sysfs_has_no_gpu(tmp_path):
    assert nvidia_gpus.find_gpus(str(tmp_path / "absent")) == []


def test_unreadable_or_garbled_ids_are_not_gpus(tmp_path):
    _function(tmp_path, "0000:01:00.0", "0x10de", "garbage")
    (tmp_path / "0000:02:00.0").mkdir()
    assert nvidia_gpus.find_gpus(str(tmp_path)) == []
