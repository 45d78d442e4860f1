#!/usr/bin/env python3
"""Storage-only reader, like the papers' storage_benchmark: read the dataset through each
data mount, count the bytes, and report MB/s per mount as JSON.

--method mount reads the files under each mounted /mnt/isilonN/<path>; --method libnfs
(hosts without a kernel NFS client) reads nfs://<address>/<export>/<path>/<file> with
nfs-cat for each mount's planned address. Runs on the host through ansible's script
module; standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time


def read_mounted(mount: str, path: str) -> tuple[int, int]:
    files = total = 0
    root = os.path.join(mount, path)
    for name in sorted(os.listdir(root)):
        full = os.path.join(root, name)
        if not os.path.isfile(full):
            continue
        with open(full, "rb") as handle:
            while chunk := handle.read(1 << 20):
                total += len(chunk)
        files += 1
    return files, total


def read_libnfs(address: str, export: str, path: str) -> tuple[int, int]:
    url = f"nfs://{address}{export}/{path}"
    listing = subprocess.run(
        ["nfs-ls", url], capture_output=True, text=True, timeout=120, check=True
    )
    files = total = 0
    for line in listing.stdout.splitlines():
        name = line.split()[-1] if line.strip() else ""
        if not line.startswith("-") or not name:
            continue  # regular files only
        data = subprocess.run(
            ["nfs-cat", f"{url}/{name}"], capture_output=True, timeout=300, check=True
        )
        total += len(data.stdout)
        files += 1
    return files, total


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--method", choices=["mount", "libnfs"], default="mount")
    parser.add_argument("--export", default="/ifs")
    parser.add_argument("--path", required=True)
    parser.add_argument("--mounts-file", required=True, help="the host's ordered data mount list")
    parser.add_argument("--plan", default="{}", help="JSON {mount: address}")
    args = parser.parse_args()
    plan = json.loads(args.plan)
    with open(args.mounts_file, encoding="utf-8") as handle:
        # one mount per line, each may be followed by a "# <address>:<export>" comment
        mounts = [m for m in (line.split("#", 1)[0].strip() for line in handle) if m]
    results = []
    for mount in mounts:
        address = plan.get(mount, "")
        started = time.monotonic()
        try:
            if args.method == "libnfs":
                files, total = read_libnfs(address, args.export, args.path)
            else:
                files, total = read_mounted(mount, args.path)
        except subprocess.CalledProcessError as exc:
            stderr = exc.stderr or b""
            if isinstance(stderr, bytes):
                stderr = stderr.decode(errors="replace")
            why = stderr.strip() or f"exit status {exc.returncode}"
            error = f"{exc.cmd[0]} {exc.cmd[-1]}: {why}"
            results.append({"mount": mount, "address": address, "error": error[-300:]})
            continue
        except (OSError, subprocess.SubprocessError) as exc:
            results.append({"mount": mount, "address": address, "error": str(exc)[-300:]})
            continue
        seconds = max(time.monotonic() - started, 1e-6)
        results.append(
            {
                "mount": mount,
                "address": address,
                "files": files,
                "bytes": total,
                "seconds": round(seconds, 3),
                "mbps": round(total / seconds / 1e6, 1),
            }
        )
        print(f"{mount}: {total} bytes in {seconds:.1f} s", file=sys.stderr)
    total_bytes = sum(r.get("bytes", 0) for r in results)
    total_seconds = sum(r.get("seconds", 0) for r in results) or 1e-6
    print(
        json.dumps(
            {
                "method": args.method,
                "mounts": results,
                "total_mbps": round(total_bytes / total_seconds / 1e6, 1),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
