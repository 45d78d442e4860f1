#!/usr/bin/env python3
"""Prove that every planned Isilon address serves the export to this host.

Runs on the NFS client (through ansible.builtin.script, so nothing is left behind).
Each argument is MOUNT_POINT=ADDRESS. With --method mount the mount point must be
mounted from ADDRESS:EXPORT and list; with --method libnfs (hosts whose kernel has no
NFS client) the export is listed at nfs://ADDRESS/EXPORT with the user-space client.
With --probe, that file (relative to the export) is read in full through each address.
Prints one line per mount and exits 1 naming every address that failed.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

TIMEOUT = 60


def _run(argv: list[str]) -> tuple[int, bytes, str]:
    try:
        done = subprocess.run(argv, capture_output=True, timeout=TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return 1, b"", str(exc)
    return done.returncode, done.stdout, done.stderr.decode(errors="replace").strip()


def check_mounted(mount: str, address: str, export: str, probe: str) -> str | None:
    """Return why `mount` does not serve `address:export`, or None when it does."""
    rc, out, err = _run(["findmnt", "-n", "-o", "SOURCE", "--mountpoint", mount])
    source = out.decode().strip()
    if rc != 0:
        return f"{mount} is not mounted ({err or 'findmnt found nothing'})"
    if source != f"{address}:{export}":
        return f"{mount} is mounted from {source}, not {address}:{export}"
    try:
        next(iter(Path(mount).iterdir()), None)
        if probe:
            with open(Path(mount) / probe, "rb") as handle:
                while handle.read(1 << 20):
                    pass
    except OSError as exc:
        return f"{mount} ({address}): {exc}"
    return None


def check_libnfs(address: str, export: str, probe: str) -> str | None:
    """Return why nfs://address/export cannot be listed or read, or None when it can."""
    url = f"nfs://{address}{export}"
    rc, _, err = _run(["nfs-ls", url])
    if rc != 0:
        return f"{url}: nfs-ls failed: {err}"
    if probe:
        rc, data, err = _run(["nfs-cat", f"{url}/{probe}"])
        if rc != 0 or not data:
            return f"{url}/{probe}: nfs-cat failed: {err or 'empty read'}"
    return None


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--method", choices=["mount", "libnfs"], required=True)
    parser.add_argument("--export", required=True)
    parser.add_argument("--probe", default="")
    parser.add_argument("mounts", nargs="+", metavar="MOUNT_POINT=ADDRESS")
    args = parser.parse_args(argv)

    failures = []
    for pair in args.mounts:
        mount, _, address = pair.partition("=")
        if args.method == "mount":
            problem = check_mounted(mount, address, args.export, args.probe)
        else:
            problem = check_libnfs(address, args.export, args.probe)
        print(
            f"{'FAIL' if problem else 'ok'}  {mount}  {address}:{args.export}"
            + (f"  {problem}" if problem else "")
        )
        if problem:
            failures.append(f"{address} ({mount})")
    if failures:
        print("unreachable: " + ", ".join(failures), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
