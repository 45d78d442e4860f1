"""library/cluster_host.py: which PCI functions count as NVIDIA GPUs, the package listing,
and dlcluster's directories."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

_PATH = Path(__file__).resolve().parents[2] / "library" / "cluster_host.py"
_SPEC = importlib.util.spec_from_file_location("cluster_host", _PATH)
cluster_host = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(cluster_host)


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
    assert cluster_host.find_gpus(str(tmp_path)) == ["0000:3b:00.0", "0000:5e:00.0"]


def test_a_host_without_nvidia_devices_has_no_gpu(tmp_path):
    _function(tmp_path, "0000:00:00.0", "0x8086", "0x060000")
    assert cluster_host.find_gpus(str(tmp_path)) == []


def test_a_host_without_a_pci_bus_in_sysfs_has_no_gpu(tmp_path):
    assert cluster_host.find_gpus(str(tmp_path / "absent")) == []


def test_unreadable_or_garbled_ids_are_not_gpus(tmp_path):
    _function(tmp_path, "0000:01:00.0", "0x10de", "garbage")
    (tmp_path / "0000:02:00.0").mkdir()
    assert cluster_host.find_gpus(str(tmp_path)) == []


def test_device_files_are_the_gpu_character_devices_in_index_order(tmp_path, monkeypatch):
    """Only /dev/nvidia<N> character devices of major 195 count, sorted by N (not by name)."""
    for name in ["nvidia10", "nvidia2", "nvidiactl", "nvidia-uvm", "nvidia3", "nvidiafoo"]:
        (tmp_path / name).write_text("")
    devices = {"nvidia10": (195, 10), "nvidia2": (195, 2), "nvidiactl": (195, 255)}
    real_stat = cluster_host.os.stat

    class _Info:
        def __init__(self, major, minor):
            self.st_mode = 0o020666  # S_IFCHR
            self.st_rdev = cluster_host.os.makedev(major, minor)

    def fake_stat(path, *args, **kwargs):
        name = Path(path).name
        if name in devices:
            return _Info(*devices[name])
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(cluster_host.os, "stat", fake_stat)
    # nvidia3 is a plain file: Slurm would refuse it, so it is no GPU device
    assert cluster_host.find_device_files(str(tmp_path)) == [
        str(tmp_path / "nvidia2"),
        str(tmp_path / "nvidia10"),
    ]


def test_another_major_number_is_not_an_nvidia_gpu(tmp_path, monkeypatch):
    (tmp_path / "nvidia0").write_text("")

    class _Info:
        st_mode = 0o020666
        st_rdev = cluster_host.os.makedev(10, 0)

    monkeypatch.setattr(cluster_host.os, "stat", lambda *a, **k: _Info())
    assert cluster_host.find_device_files(str(tmp_path)) == []
    assert cluster_host.find_device_files(str(tmp_path / "absent")) == []


def _run_module(args: dict, capsys) -> dict:
    import json

    import pytest
    from ansible.module_utils.testing import patch_module_args

    with patch_module_args(args), pytest.raises(SystemExit):
        cluster_host.main()
    return json.loads(capsys.readouterr().out)


def test_one_call_lists_the_packages_finds_the_gpus_and_makes_the_directories(tmp_path, capsys):
    sysfs = tmp_path / "sys"
    _function(sysfs, "0000:5e:00.0", "0x10de", "0x030200")
    made, kept = tmp_path / "etc-dlcluster", tmp_path / "var-dlcluster"
    kept.mkdir(mode=0o700)  # there, but not root:root 0755 as the role makes it
    args = {
        "package_query": ["printf", "ii |munge|0.5.15-2\\n"],
        "directories": [str(made), str(kept)],
        "sysfs": str(sysfs),
        "dev": str(tmp_path / "dev"),
        "_ansible_check_mode": True,
    }
    checked = _run_module(args, capsys)
    assert checked["changed"] is True and checked["created"] == [str(made), str(kept)]
    assert not made.exists() and (kept.stat().st_mode & 0o777) == 0o700  # check mode
    result = _run_module({**args, "_ansible_check_mode": False}, capsys)
    assert result["stdout"] == "ii |munge|0.5.15-2\n"
    assert result["ansible_facts"]["nvidia_gpu_pci_addresses"] == ["0000:5e:00.0"]
    if os.geteuid() == 0:  # the role runs as root: root:root 0755
        assert result["changed"] is True
        assert all((p.stat().st_mode & 0o777) == 0o755 for p in (made, kept))
        assert _run_module({**args, "_ansible_check_mode": False}, capsys)["changed"] is False


def test_a_package_listing_that_fails_fails_the_read(tmp_path, capsys):
    result = _run_module({"package_query": ["false"], "sysfs": str(tmp_path)}, capsys)
    assert result["failed"] is True and "could not list the installed packages" in result["msg"]
