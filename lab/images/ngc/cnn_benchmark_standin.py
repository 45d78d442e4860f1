#!/usr/bin/env python3
"""Lab stand-in for tf_cnn_benchmarks: the papers' launch path without TensorFlow or GPUs.

Started by mpirun through round_robin_mpi.py exactly as the papers' training command is,
it takes the same options (unknown ones are accepted and ignored), reads
--num_batches x --batch_size "images" from the shards under --data_dir (this rank's data
mount), counting each --image_bytes read as one image, and ends as tf_cnn_benchmarks does
with "total images/sec: N", where N is this rank's rate times the number of ranks (under
Horovod every rank reports the whole job's rate).

Reading: when --data_dir is a directory (a kernel NFS mount) the files are read from it;
the lab's kernel has no NFS client, so otherwise the mount is looked up in the host's
data mount list ($DLCLUSTER_DATA_MOUNTS, where isilon_mounts writes each mount's
address and export after it) and the shards are read with libnfs's nfs-cat from that
address. The first line it prints says that it is a stand-in.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

# Seed 001: "the original JPEG images from the ImageNet dataset, with an average size
# of 115 KB".
IMAGE_BYTES = 115_000


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data_dir", required=True)
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--num_batches", type=int, default=10)
    parser.add_argument("--image_bytes", type=int, default=IMAGE_BYTES)
    args, _ignored = parser.parse_known_args(argv)
    return args


def nfs_source(mounts_file: str, data_dir: str) -> tuple[str, str]:
    """(nfs://address/export, path under the mount) of the mount data_dir lies under,
    from the lines "<mount>  # <address>:<export>" of the data mount list."""
    with open(mounts_file, encoding="utf-8") as handle:
        for line in handle:
            mount, _, comment = line.partition("#")
            mount, comment = mount.strip().rstrip("/"), comment.strip()
            if not mount or ":" not in comment:
                continue
            if data_dir == mount or data_dir.startswith(mount + "/"):
                address, export = comment.split(":", 1)
                return f"nfs://{address}{export}", data_dir[len(mount) :].strip("/")
    raise SystemExit(f"stand-in: {data_dir} is under no mount of {mounts_file}")


def shards_nfs(url: str) -> list[str]:
    listing = subprocess.run(
        ["nfs-ls", url], capture_output=True, text=True, timeout=120, check=True
    )
    names = [line.split()[-1] for line in listing.stdout.splitlines() if line.startswith("-")]
    return [f"{url}/{name}" for name in sorted(names) if name.startswith("train-")]


def read_nfs(url: str) -> int:
    return len(
        subprocess.run(["nfs-cat", url], capture_output=True, timeout=300, check=True).stdout
    )


def read_local(path: str) -> int:
    total = 0
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            total += len(chunk)
    return total


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", "0"))
    ranks = int(os.environ.get("OMPI_COMM_WORLD_SIZE", "1"))
    if os.path.isdir(args.data_dir):
        how = f"reads {args.data_dir}"
        shards = sorted(
            os.path.join(args.data_dir, n)
            for n in os.listdir(args.data_dir)
            if n.startswith("train-")
        )
        read = read_local
    else:
        base, sub = nfs_source(os.environ.get("DLCLUSTER_DATA_MOUNTS", ""), args.data_dir)
        url = f"{base}/{sub}" if sub else base
        how = f"reads {url} with nfs-cat (no kernel NFS client)"
        shards = shards_nfs(url)
        read = read_nfs
    if not shards:
        raise SystemExit(f"stand-in: no train-* shards under {args.data_dir}")
    if rank == 0:
        print(
            "stand-in workload: not TensorFlow and no GPU; each rank counts "
            f"{args.image_bytes} bytes read from its data mount as one image",
            flush=True,
        )
    wanted = args.num_batches * args.batch_size * args.image_bytes
    done = 0
    start = time.monotonic()
    # start at a rank-dependent shard so ranks on one mount do not read in lockstep
    index = rank
    while done < wanted:
        done += read(shards[index % len(shards)])
        index += 1
    elapsed = max(time.monotonic() - start, 1e-6)
    images = done / args.image_bytes
    print(f"rank {rank}: {how}: {done} bytes, {images:.0f} images in {elapsed:.2f} s", flush=True)
    print("-" * 64)
    print(f"total images/sec: {images / elapsed * ranks:.2f}")
    print("-" * 64, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
