#!/usr/bin/env python3
"""Give each MPI process its own Isilon data mount, then exec the training command.

    mpirun ... round_robin_mpi.py [options] [--] python -u tf_cnn_benchmarks.py --model=resnet50

The papers spread their benchmark processes over several NFS mounts, each to a different
Isilon node, so no single mount (about 2.5 GB/s) or node limits the job. This launcher
reads the process's rank from the MPI launcher's environment, picks mount number
rank % N from the host's ordered mount list ($DLCLUSTER_DATA_MOUNTS, written by the
isilon_mounts role; the mounts themselves are /mnt/isilon1..N) and appends
`--data_dir=<mount>/<path>` to the command before exec'ing it, so the MPI process is the
training process itself (signals and exit codes pass straight through).

Standard library only: it runs inside the NGC containers' own Python.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence

# World rank first, as launchers export it: Open MPI, MPICH/Intel MPI (PMI), PMIx, Slurm.
WORLD_RANK_VARS = ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID")
LOCAL_RANK_VARS = ("OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID")


class LaunchError(Exception):
    """A problem the user must fix; printed as one line, exit status 2."""


def read_mounts(path: str) -> list[str]:
    """Mount points in order, one per line; blank lines and # comments are skipped."""
    try:
        with open(path, encoding="utf-8") as handle:
            lines = [line.split("#", 1)[0].strip() for line in handle]
    except OSError as exc:
        raise LaunchError(f"cannot read the data mount list {path}: {exc.strerror}") from exc
    mounts = [line for line in lines if line]
    if not mounts:
        raise LaunchError(f"the data mount list {path} names no mounts")
    return mounts


def find_rank(env: Mapping[str, str], names: Sequence[str]) -> tuple[str, int]:
    """The first rank variable set in `env`, as (name, value)."""
    for name in names:
        value = env.get(name)
        if value is None or value == "":
            continue
        try:
            rank = int(value)
        except ValueError as exc:
            raise LaunchError(f"{name}={value!r} is not an integer rank") from exc
        if rank < 0:
            raise LaunchError(f"{name}={rank} is negative")
        return name, rank
    raise LaunchError(
        f"no MPI rank in the environment (looked for {', '.join(names)}); run under mpirun/srun "
        "or pass --rank"
    )


def data_dir_for(mounts: Sequence[str], rank: int, subdir: str) -> str:
    """The data directory of this rank: mount rank % N joined with the path under it."""
    mount = mounts[rank % len(mounts)].rstrip("/") or "/"
    subdir = subdir.strip("/")
    return f"{mount}/{subdir}" if subdir else mount


def build_command(command: Sequence[str], flag: str, data_dir: str) -> list[str]:
    """The command with --flag=data_dir appended; refuses a command that already sets it."""
    if not command:
        raise LaunchError("no command to run (put it after the options, e.g. -- python ...)")
    option = "--" + flag.lstrip("-")
    for arg in command[1:]:
        if arg == option or arg.startswith(option + "="):
            raise LaunchError(f"the command already sets {option}; drop it or use --flag")
    return [*command, f"{option}={data_dir}"]


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Append --data_dir=<this rank's Isilon mount>/<path> and exec the command.",
    )
    parser.add_argument(
        "--mounts-file",
        default=os.environ.get("DLCLUSTER_DATA_MOUNTS", ""),
        help="ordered list of data mounts (default: $DLCLUSTER_DATA_MOUNTS, which the"
        " ngc_container role sets in the container)",
    )
    parser.add_argument("--mounts", help="comma-separated mount points, instead of the mounts file")
    parser.add_argument(
        "--path",
        default=os.environ.get("DLCLUSTER_DATA_PATH", ""),
        help="directory under each mount, e.g. data/imagenet-scratch/tfrecords",
    )
    parser.add_argument("--flag", default="data_dir", help="option name (default: %(default)s)")
    parser.add_argument(
        "--local-rank",
        action="store_true",
        help="pick by the rank on this host instead of the world rank",
    )
    parser.add_argument("--rank", type=int, help="use this rank instead of the environment's")
    parser.add_argument(
        "--print", action="store_true", help="print the command instead of running it"
    )
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command to run")
    args = parser.parse_args(argv)
    if args.command and args.command[0] == "--":
        args.command = args.command[1:]
    return args


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    env = os.environ if env is None else env
    try:
        if args.mounts:
            mounts = [m.strip() for m in args.mounts.split(",") if m.strip()]
            if not mounts:
                raise LaunchError("--mounts names no mounts")
        else:
            if not args.mounts_file:
                raise LaunchError(
                    "no data mount list: pass --mounts-file or --mounts,"
                    " or set DLCLUSTER_DATA_MOUNTS"
                )
            mounts = read_mounts(args.mounts_file)
        if args.rank is not None:
            if args.rank < 0:
                raise LaunchError(f"--rank {args.rank} is negative")
            rank = args.rank
        else:
            _, rank = find_rank(env, LOCAL_RANK_VARS if args.local_rank else WORLD_RANK_VARS)
        command = build_command(args.command, args.flag, data_dir_for(mounts, rank, args.path))
    except LaunchError as exc:
        print(f"round_robin_mpi: {exc}", file=sys.stderr)
        return 2
    if args.print:
        print(" ".join(command))
        return 0
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        print(f"round_robin_mpi: cannot run {command[0]}: {exc.strerror}", file=sys.stderr)
        return 127
    return 0  # not reached: exec replaced this process


if __name__ == "__main__":
    sys.exit(main())
