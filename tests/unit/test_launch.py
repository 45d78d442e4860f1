"""The training launch's output (filter_plugins/ngc_container.py) and the lab's stand-in workload
(lab/images/ngc/cnn_benchmark_standin.py) that the launch runs in the lab."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location(
    "launch", ROOT / "filter_plugins" / "ngc_container.py"
)
launch = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(launch)
STAND_IN = ROOT / "lab/images/ngc/cnn_benchmark_standin.py"
ROUND_ROBIN = ROOT / "roles/ngc_container/files/round_robin_mpi.py"


def test_every_total_rate_is_read_and_averaged_never_summed():
    output = (
        "Step\tImg/sec\ttotal_loss\n1\timages/sec: 700.1 +/- 0.0 (jitter = 0.0)\t7.9\n"
        "----------------------------------------------------------------\n"
        "[1,0]<stdout>:total images/sec: 5,731.20\n"
        "[1,1]<stdout>:total images/sec: 5729.00\n"
    )
    parsed = launch.launch_images_per_sec(output)
    assert parsed == {"rates": [5731.2, 5729.0], "images_per_sec": 5730.1, "stand_in": ""}
    assert launch.launch_images_per_sec("mpirun: command not found")["images_per_sec"] is None


def _stand_in(tmp_path, data_dir, env_extra):
    env = {**os.environ, "OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "4", **env_extra}
    return subprocess.run(
        [sys.executable, str(STAND_IN), "--model=resnet50", "--batch_size=4",
         "--num_batches=2", "--image_bytes=1000", f"--data_dir={data_dir}"],
        env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip


def test_the_stand_in_reads_a_mounted_directory_and_reports_as_tf_cnn_benchmarks(tmp_path):
    shards = tmp_path / "tfrecords"
    shards.mkdir()
    for n in range(3):
        (shards / f"train-0000{n}-of-00003").write_bytes(b"x" * 3000)
    (shards / "MANIFEST.sha256").write_text("not a shard\n")
    result = _stand_in(tmp_path, shards, {})
    assert result.returncode == 0, result.stderr
    parsed = launch.launch_images_per_sec(result.stdout)
    assert parsed["stand_in"].startswith("stand-in workload: not TensorFlow")
    assert parsed["images_per_sec"] and parsed["images_per_sec"] > 0
    # 4 x 2 images of 1000 bytes wanted: three 3000-byte shards are read (9 images)
    assert f"reads {shards}: 9000 bytes, 9 images" in result.stdout


def test_without_a_mount_the_stand_in_reads_the_mounts_address_with_libnfs(tmp_path):
    """The lab: no kernel NFS client, so /mnt/isilon2 is not mounted; the data mount list
    names its address and export, and nfs-ls/nfs-cat read from there."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "urls"
    (bin_dir / "nfs-ls").write_text(
        f'#!/bin/sh\necho "$1" >> {log}\n'
        'echo "-rw-r--r--  1  0  0  4194304 train-00000-of-00002"\n'
        'echo "-rw-r--r--  1  0  0  4194304 train-00001-of-00002"\n'
        'echo "drwxr-xr-x  2  0  0  4096 sub"\n'
    )
    (bin_dir / "nfs-cat").write_text(f'#!/bin/sh\necho "$1" >> {log}\nhead -c 2500 /dev/zero\n')
    for tool in ("nfs-ls", "nfs-cat"):
        (bin_dir / tool).chmod(0o755)
    mounts = tmp_path / "data_mounts"
    mounts.write_text(
        "# managed by dlcluster: isilon_mounts\n# default mount: /mnt/isilon\n"
        "/mnt/isilon1  # 10.201.1.21:/ifs\n/mnt/isilon2  # 10.201.1.22:/ifs\n"
    )
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "DLCLUSTER_DATA_MOUNTS": str(mounts)}
    result = _stand_in(tmp_path, "/mnt/isilon2/data/imagenet-scratch/tfrecords", env)
    assert result.returncode == 0, result.stderr
    url = "nfs://10.201.1.22/ifs/data/imagenet-scratch/tfrecords"
    assert log.read_text().splitlines() == [url, f"{url}/train-00000-of-00002",
                                            f"{url}/train-00001-of-00002",
                                            f"{url}/train-00000-of-00002",
                                            f"{url}/train-00001-of-00002"]  # fmt: skip
    assert launch.launch_images_per_sec(result.stdout)["images_per_sec"] > 0
    outside = _stand_in(tmp_path, "/scratch/tfrecords", env)
    assert outside.returncode != 0 and "under no mount" in outside.stderr


def test_round_robin_reads_the_mount_list_with_its_address_comments(tmp_path):
    mounts = tmp_path / "data_mounts"
    mounts.write_text("/mnt/isilon1  # 10.201.1.21:/ifs\n/mnt/isilon2  # 10.201.1.22:/ifs\n")
    result = subprocess.run(
        [sys.executable, str(ROUND_ROBIN), "--mounts-file", str(mounts), "--rank", "3",
         "--path", "data/imagenet-scratch/tfrecords", "--print", "--", "python", "-u", "x.py"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert result.stdout.split() == [
        "python", "-u", "x.py", "--data_dir=/mnt/isilon2/data/imagenet-scratch/tfrecords"
    ]  # fmt: skip


def test_docker_run_passes_the_rdma_devices_and_memory_locking_where_asked():
    settings = {"name": "tf", "image": "img", "command": ["sshd"]}
    argv = launch.docker_run_argv(
        {**settings, "devices": ["/dev/infiniband:/dev/infiniband"], "capabilities": ["IPC_LOCK"]}
    )
    joined = " ".join(argv)
    assert "--device /dev/infiniband:/dev/infiniband --cap-add IPC_LOCK img sshd" in joined
    plain = " ".join(launch.docker_run_argv({**settings, "devices": [], "capabilities": []}))
    assert "--device" not in plain and "--cap-add" not in plain


def test_the_mpi_check_names_are_the_lines_after_its_marker():
    lines = ["ssh lab-compute-2 0 lab-compute-2", "== mpirun", " lab-compute-1", "lab-compute-2 "]
    assert launch.ngc_container_mpi_lines(lines) == ["lab-compute-1", "lab-compute-2"]
    assert launch.ngc_container_mpi_lines(["ssh lab-compute-2 255 Permission denied"]) == []
    assert launch.ngc_container_mpi_lines(None) == []
