"""The ngc_container role's proof (tasks/verify.yml), its NCCL part: all-reduce across the
servers' NGC containers, as proof records the validate role's report reads.

nccl-tests' `all_reduce_perf -b 8 -e 4G -f 2 -g 1`, one rank per GPU, launched with the
ngc_container role's mpirun line (filter_plugins/ngc_container.py). What it prints, as the
sources give it (not run here; unverified against a real run):

- nccl-tests src/common.cu ends with `PRINT("# Out of bounds values : %d %s\\n", ...)` and
  `PRINT("# Avg bus bandwidth    : %g %s\\n", bw, "" | "OK" | "FAILED")` (older releases
  print the same lines without the `#`); bandwidths are GB/s (its doc/PERFORMANCE.md).
  Each table row is `size count type redop root time algbw busbw #wrong` out of place,
  then `time algbw busbw #wrong` in place (older releases have no root column: the
  busbw columns are read from the end of the row).
- NCCL's INFO lines read `<host>:<pid>:<tid> [<dev>] NCCL INFO <message>` (src/debug.cc);
  src/init.cc logs `Using network IB` or `Using network Socket`, and the IB transport
  (src/transport/net_ib) `NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ib0:<addr>`
  (`/RoCE` on Ethernet link layer) or `NET/IB : No device found.` (NVIDIA/nccl 2.21.5).

A run that fell back to sockets fails whatever its bandwidth: the InfiniBand fabric it
was meant to prove was not used. Pure functions, unit-tested.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

_AVG_BUSBW = re.compile(
    r"^\s*#?\s*Avg bus bandwidth\s*:\s*(?P<value>[0-9.]+(?:[eE][-+]?\d+)?)", re.M
)
_WRONG = re.compile(r"^\s*#?\s*Out of bounds values\s*:\s*(?P<count>\d+)", re.M)
_NETWORK = re.compile(
    r"(?:(?P<host>[^\s:\[\]]+):\d+:\d+ \[\d+\] )?NCCL INFO Using network (?P<name>\S+)"
)
_IB_USING = re.compile(r"NET/IB : Using(?P<devices>.*?)(?:;|$)", re.M)
_IB_DEVICE = re.compile(r"(?P<dev>[\w.-]+):(?P<port>\d+)/(?P<layer>IB|RoCE)")
_NO_EXECUTABLE = "unable to find the specified executable"


def _record(check: str, host: str, target: str, **fields: Any) -> dict[str, Any]:
    return {
        "check": check,
        "host": host,
        "target": target,
        "value": None,
        "unit": "",
        "threshold": None,
        "status": "info",
        "reason": "",
        **fields,
    }


def _largest_busbw(output: str) -> tuple[float, int] | None:
    """The largest bus bandwidth of any row (out of or in place) and its size in bytes:
    seed 002's Figure 7 plots the maximum, the average line the mean of every size."""
    best: tuple[float, int] | None = None
    for line in output.splitlines():
        fields = line.split()
        if len(fields) < 12 or not fields[0].isdigit() or not fields[1].isdigit():
            continue
        try:
            values = [float(fields[-6]), float(fields[-2])]
        except ValueError:
            continue
        for value in values:
            if best is None or value > best[0]:
                best = (value, int(fields[0]))
    return best


def ngc_container_nccl_parse(output: str) -> dict[str, Any]:
    """What an all_reduce_perf run printed: the average bus bandwidth (GB/s, the last
    such line), the wrong values, the largest bus bandwidth and its size, the network
    each host's ranks used and the IB devices NCCL listed."""
    averages = _AVG_BUSBW.findall(output)
    wrong = _WRONG.findall(output)
    networks: dict[str, list[str]] = {}
    for match in _NETWORK.finditer(output):
        names = networks.setdefault(match["host"] or "?", [])
        if match["name"] not in names:
            names.append(match["name"])
    devices: list[str] = []
    for using in _IB_USING.finditer(output):
        for device in _IB_DEVICE.finditer(using["devices"]):
            name = f"{device['dev']}:{device['port']}/{device['layer']}"
            if name not in devices:
                devices.append(name)
    largest = _largest_busbw(output)
    return {
        "avg_busbw": float(averages[-1]) if averages else None,
        "wrong": int(wrong[-1]) if wrong else None,
        "largest_busbw": largest[0] if largest else None,
        "largest_size": largest[1] if largest else None,
        "networks": networks,
        "ib_devices": devices,
        "no_ib_device": "NET/IB : No device found." in output,
    }


def ngc_container_nccl_plan(
    servers: Sequence[str], hostvars: Mapping[str, Any], gpus_per_server: int = 0
) -> dict[str, Any]:
    """Whether the all-reduce can run, from what each server's own check found: its GPUs
    (ansible_facts.nvidia_gpu_pci_addresses, as the gpus check reads them) and its RDMA
    devices (the registered `ls /sys/class/infiniband`, _ngc_container_verify_rdma).

    No server with a GPU, or none with an HCA (the lab): skipped with the reason. Some
    servers without: failed, naming them (a rank per GPU cannot span them). Ranks per
    server: gpus_per_server, or 0 for the fewest GPUs any server has."""
    if not servers:
        return {
            "run": False,
            "status": "skipped",
            "reason": "no compute server in this run",
            "ranks_per_server": 0,
        }
    gpus: dict[str, int] = {}
    hcas: dict[str, list[str]] = {}
    for name in servers:
        facts = hostvars[name].get("ansible_facts") or {}
        gpus[name] = len(facts.get("nvidia_gpu_pci_addresses") or [])
        listing = hostvars[name].get("_ngc_container_verify_rdma") or {}
        hcas[name] = [line.strip() for line in listing.get("stdout_lines") or [] if line.strip()]
    no_gpu = [name for name in servers if gpus[name] == 0]
    no_hca = [name for name in servers if not hcas[name]]
    missing = []
    if no_gpu:
        missing.append(f"no GPU on {', '.join(no_gpu)} (no NVIDIA PCI device, vendor 0x10de)")
    if no_hca:
        missing.append(
            f"no InfiniBand HCA on {', '.join(no_hca)} (nothing in /sys/class/infiniband)"
        )
    if missing:
        nowhere = len(no_gpu) == len(servers) or len(no_hca) == len(servers)
        return {
            "run": False,
            "status": "skipped" if nowhere else "fail",
            "reason": "; ".join(missing) + ": NCCL all-reduce not run",
            "ranks_per_server": 0,
        }
    ranks = int(gpus_per_server) or min(gpus.values())
    return {"run": True, "status": "", "reason": "", "ranks_per_server": ranks}


def ngc_container_nccl_records(
    run: Mapping[str, Any],
    plan: Mapping[str, Any],
    servers: Sequence[str],
    host: str,
    min_busbw: float,
) -> list[dict[str, Any]]:
    """The NCCL section: one record for the all-reduce across the servers (average bus
    bandwidth in GB/s against min_busbw), or why it did not run or failed."""
    ranks = plan.get("ranks_per_server", 0)
    target = f"all_reduce_perf, {ranks} rank(s) on each of {len(servers)} server(s)"
    if not plan.get("run"):
        status = plan.get("status") or "skipped"
        reason = plan.get("reason", "")
        return [
            _record("nccl", host, "all-reduce across the servers", status=status, reason=reason)
        ]
    if run.get("skipped") or "rc" not in run:
        return [_record("nccl", host, target, status="skipped", reason="not run in check mode")]
    output = f"{run.get('stdout') or ''}\n{run.get('stderr') or ''}"
    parsed = ngc_container_nccl_parse(output)
    minimum = float(min_busbw)
    problems: list[str] = []
    rc = int(run.get("rc", -1))
    if _NO_EXECUTABLE in output:
        problems.append(
            "all_reduce_perf is not in the container (mpirun: unable to find the specified"
            " executable): build nccl-tests into the image or set ngc_container_verify_nccl_command"
        )
    elif rc != 0:
        stopped = " (stopped by ngc_container_verify_nccl_timeout)" if rc == 124 else ""
        tail = " / ".join(line.strip() for line in output.strip().splitlines()[-3:])
        problems.append(f"the launch exited {rc}{stopped}: {tail[-300:]}")
    sockets = sorted(h for h, names in parsed["networks"].items() if "Socket" in names)
    if sockets:
        why = " (NET/IB : No device found.)" if parsed["no_ib_device"] else ""
        on = ", ".join(sockets)
        problems.insert(0, f"NCCL fell back to sockets (Using network Socket on {on}){why}")
    elif not parsed["networks"] and rc == 0:
        problems.append("NCCL logged no 'Using network' line (NCCL_DEBUG=INFO): transport unknown")
    if parsed["wrong"]:
        problems.append(f"{parsed['wrong']} wrong values (Out of bounds values)")
    busbw = parsed["avg_busbw"]
    if busbw is None and rc == 0:
        problems.append("no '# Avg bus bandwidth' line in the output")
    elif busbw is not None and busbw < minimum:
        problems.append(f"average bus bandwidth {busbw:g} GB/s, below {minimum:g}")
    notes = []
    if parsed["ib_devices"]:
        notes.append("NET/IB: " + ", ".join(parsed["ib_devices"]))
    if parsed["largest_busbw"] is not None:
        notes.append(f"largest {parsed['largest_busbw']:g} GB/s at {parsed['largest_size']} bytes")
    if len(servers) == 1:
        notes.append("one server: the network is not crossed")
    return [
        _record(
            "nccl",
            host,
            target,
            value=busbw,
            unit="GB/s bus bandwidth (average)",
            threshold=minimum,
            status="fail" if problems else "pass",
            reason="; ".join(problems + notes),
        )
    ]


class FilterModule:
    """The ngc_container role's proof, its NCCL part."""

    def filters(self) -> dict[str, Any]:
        return {
            "ngc_container_nccl_parse": ngc_container_nccl_parse,
            "ngc_container_nccl_plan": ngc_container_nccl_plan,
            "ngc_container_nccl_records": ngc_container_nccl_records,
        }
