"""Command lines of the container layer, for the offline plan and the benchmark launch.

`docker_run_argv` is the `docker run` that matches what ngc_container's
community.docker.docker_container task asks the engine for (an admin's way to read and
repeat it); `mpi_launch_argv` is the papers' mpirun launch through round_robin_mpi.py
(seed 000 §"Benchmark methodology", seed 001 the same with 72 GPUs).
"""

from __future__ import annotations

import re
from typing import Any

# tf_cnn_benchmarks ends a run with "total images/sec: 1234.56" between two rules of
# dashes. Under Horovod it counts the whole job (its own steps x the number of workers)
# and every rank that logs prints it [tensorflow/benchmarks benchmark_cnn.py]; mpirun may
# prefix a line with "[1,0]<stdout>:" (--tag-output).
_TOTAL_RATE = re.compile(r"total images/sec:\s*([0-9][0-9.,]*)")
# The lab's stand-in workload says what it is on a line of its own.
_STAND_IN = re.compile(r"^(?:\[[0-9,]+\]<stdout>:)?\s*(stand-in workload: .*)$", re.MULTILINE)


def docker_run_argv(settings: dict[str, Any]) -> list[str]:
    """`docker run -d ...` for a container described by the keys the role passes to
    docker_container: name, image, command, network_mode, shm_size, ulimits
    ("name:soft:hard"), privileged, restart_policy, volumes, devices, capabilities, env,
    gpus (bool), labels."""
    argv = ["docker", "run", "-d", "--name", str(settings["name"])]
    if settings.get("restart_policy"):
        argv += ["--restart", str(settings["restart_policy"])]
    if settings.get("network_mode"):
        argv += ["--network", str(settings["network_mode"])]
    if settings.get("shm_size"):
        argv += ["--shm-size", str(settings["shm_size"])]
    for ulimit in settings.get("ulimits") or []:
        name, soft, hard = str(ulimit).split(":")
        argv += ["--ulimit", f"{name}={soft}" if soft == hard else f"{name}={soft}:{hard}"]
    if settings.get("privileged"):
        argv.append("--privileged")
    if settings.get("gpus"):
        argv += ["--gpus", "all"]
    for device in settings.get("devices") or []:
        argv += ["--device", str(device)]
    for capability in settings.get("capabilities") or []:
        argv += ["--cap-add", str(capability)]
    for volume in settings.get("volumes") or []:
        argv += ["-v", str(volume)]
    for key, value in sorted((settings.get("env") or {}).items()):
        argv += ["-e", f"{key}={value}"]
    for key, value in sorted((settings.get("labels") or {}).items()):
        argv += ["--label", f"{key}={value}"]
    return argv + [str(settings["image"])] + [str(word) for word in settings.get("command") or []]


def mpi_launch_argv(
    hosts: list[str],
    slots: int,
    options: list[Any],
    env: dict[str, Any],
    launcher: str,
    command: list[Any],
) -> list[str]:
    """The papers' launch: `mpirun --n N --allow-run-as-root --host h1:S,h2:S <options>
    -x K=V ... <launcher> <command>`; N is every slot of every host."""
    if not hosts:
        raise ValueError("mpi_launch_argv: no hosts to launch on")
    if int(slots) < 1:
        raise ValueError(f"mpi_launch_argv: slots per host must be 1 or more, got {slots!r}")
    argv = ["mpirun", "--n", str(len(hosts) * int(slots)), "--allow-run-as-root"]
    argv += ["--host", ",".join(f"{host}:{int(slots)}" for host in hosts)]
    argv += [str(option) for option in options]
    for key, value in env.items():
        argv += ["-x", f"{key}={value}"]
    return argv + [str(launcher)] + [str(word) for word in command]


def launch_images_per_sec(output: str) -> dict[str, Any]:
    """What a training launch printed: every "total images/sec" figure in order, their
    mean (each rank's figure is the whole job's, so they are averaged, never summed), and
    the stand-in workload's own description when the lab's stand-in ran instead of
    TensorFlow."""
    rates = [float(m.replace(",", "")) for m in _TOTAL_RATE.findall(output or "")]
    stand_in = _STAND_IN.search(output or "")
    return {
        "rates": rates,
        "images_per_sec": round(sum(rates) / len(rates), 1) if rates else None,
        "stand_in": stand_in.group(1).strip() if stand_in else "",
    }


def ngc_container_mpi_lines(lines: list[str] | None) -> list[str]:
    """The host names mpirun printed in the MPI check's output (tasks/check.yml): the
    lines after its "== mpirun" marker, trimmed; none where the check did not get there."""
    lines = list(lines or [])
    if "== mpirun" not in lines:
        return []
    return [line.strip() for line in lines[lines.index("== mpirun") + 1 :] if line.strip()]


class FilterModule:
    def filters(self) -> dict[str, Any]:
        return {
            "docker_run_argv": docker_run_argv,
            "mpi_launch_argv": mpi_launch_argv,
            "launch_images_per_sec": launch_images_per_sec,
            "ngc_container_mpi_lines": ngc_container_mpi_lines,
        }
