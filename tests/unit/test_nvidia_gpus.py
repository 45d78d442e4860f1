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


def test_device_files_are_the_gpu_character_devices_in_index_order(tmp_path, monkeypatch):
    """Only /dev/nvidia<N> character devices of major 195 count, sorted by N (not by name)."""
    for name in ["nvidia10", "nvidia2", "nvidiactl", "nvidia-uvm", "nvidia3", "nvidiafoo"]:
        (tmp_path / name).write_text("")
    devices = {"nvidia10": (195, 10), "nvidia2": (195, 2), "nvidiactl": (195, 255)}
    real_stat = nvidia_gpus.os.stat

    class _Info:
        def __init__(self, major, minor):
            self.st_mode = 0o020666  # S_IFCHR
            self.st_rdev = nvidia_gpus.os.makedev(major, minor)

    def fake_stat(path, *args, **kwargs):
        name = Path(path).name
        if name in devices:
            return _Info(*devices[name])
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(nvidia_gpus.os, "stat", fake_stat)
    # nvidia3 is a plain file: Slurm would refuse it, so it is no GPU device
    assert nvidia_gpus.find_device_files(str(tmp_path)) == [
        str(tmp_path / "nvidia2"),
        str(tmp_path / "nvidia10"),
    ]


def test_another_major_number_is_not_an_nvidia_gpu(tmp_path, monkeypatch):
    (tmp_path / "nvidia0").write_text("")

    class _Info:
        st_mode = 0o020666
        st_rdev = nvidia_gpus.os.makedev(10, 0)

    monkeypatch.setattr(nvidia_gpus.os, "stat", lambda *a, **k: _Info())
    assert nvidia_gpus.find_device_files(str(tmp_path)) == []
    assert nvidia_gpus.find_device_files(str(tmp_path / "absent")) == []
