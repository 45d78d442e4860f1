"""Faults on the running lab: each one fails clearly, loses nothing, and the next run
converges. An Isilon node's NFS server down, a compute node stopped in the middle of a
run, the registry down when a server needs to pull.
"""

from __future__ import annotations

import json
import re
import subprocess
import time

from conftest import ROOT, load_lab_groups, playbook_command, run_playbook

COMPUTE = sorted(load_lab_groups()["compute"])
IMAGE = "lab-registry:5000/dlcluster/tensorflow:19.03-py3-ssh"


def docker(*args: str, check: bool = True) -> str:
    return subprocess.run(
        ["docker", *args], capture_output=True, text=True, check=check, timeout=120
    ).stdout.strip()


def fstab(host: str) -> list[str]:
    return docker("exec", host, "cat", "/etc/fstab").splitlines()


def recap(output: str, host: str) -> dict[str, int]:
    match = re.search(rf"^{re.escape(host)}\s*:\s*(.*)$", output.split("PLAY RECAP")[-1], re.M)
    assert match, f"{host} is missing from the recap"
    return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", match.group(1))}


def wait_until(check, what: str, seconds: int = 90) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(2)
    raise AssertionError(f"timed out waiting for {what}")


def _ganesha_serves(address: str) -> bool:
    probe = subprocess.run(
        ["docker", "exec", COMPUTE[0], "nfs-ls", f"nfs://{address}/ifs"],
        capture_output=True,
        timeout=60,
        check=False,
    )
    return probe.returncode == 0


def test_an_isilon_nfs_server_down_is_named_and_planned_around():
    node, address = "lab-isilon-3", "10.201.1.23"
    before = {host: fstab(host) for host in COMPUTE}
    on_it = sorted(
        f"{host} ({line.split()[1]})"
        for host, lines in before.items()
        for line in lines
        if line.startswith(f"{address}:/ifs ") and line.split()[1] != "/mnt/isilon"
    )
    assert on_it, f"the plan puts no data mount on {address}"
    storage_only = {"validate_checks": ["storage"]}
    around = {"isilon_mounts_unavailable_addresses": [address]}

    docker("exec", node, "systemctl", "stop", "nfs-ganesha")
    try:
        failed = run_playbook("playbooks/validate.yml", "-e", json.dumps(storage_only))
        assert failed.returncode != 0
        assert (
            f"Isilon address {address} did not serve the export to {', '.join(on_it)}"
            in " ".join(failed.stdout.split())
        ), failed.stdout[-3000:]

        replanned = run_playbook(
            "playbooks/storage.yml", "--tags", "mounts", "-e", json.dumps(around)
        )
        assert replanned.returncode == 0, replanned.stdout[-3000:]
        for host in COMPUTE:
            after = fstab(host)
            assert len(after) == len(before[host])
            assert not [line for line in after if line.startswith(f"{address}:")]
            # every line that did not use the dead address is exactly as it was
            kept = [line for line in before[host] if not line.startswith(f"{address}:")]
            assert [line for line in after if line in kept] == kept

        passed = run_playbook(
            "playbooks/validate.yml", "-e", json.dumps({**storage_only, **around})
        )
        assert passed.returncode == 0, passed.stdout[-3000:]
    finally:
        docker("exec", node, "systemctl", "start", "nfs-ganesha")
    wait_until(lambda: _ganesha_serves(address), f"NFS on {address}")
    restored = run_playbook("playbooks/storage.yml", "--tags", "mounts")
    assert restored.returncode == 0, restored.stdout[-3000:]
    assert {host: fstab(host) for host in COMPUTE} == before


def test_a_compute_node_stopped_mid_run_is_listed_and_the_next_run_completes_it():
    """The stop comes in the containers layer (playbooks/containers.yml), while the other
    servers go on to MPI across those still up; the next run is a whole site.yml (the lab
    suite's one fault run), as an admin would run it after the server is back."""
    argv, env = playbook_command("playbooks/containers.yml")
    run = subprocess.Popen(
        argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    seen: list[str] = []
    try:
        assert run.stdout is not None
        for line in run.stdout:
            seen.append(line)
            if line.startswith("TASK [ngc_container"):
                docker("stop", "--time", "1", "lab-compute-2")
                break
        rest, _ = run.communicate(timeout=900)
    finally:
        if run.poll() is None:
            run.kill()
        docker("start", "lab-compute-2")
    output = "".join(seen) + rest
    assert any(line.startswith("TASK [ngc_container") for line in seen), output[-3000:]
    assert run.returncode != 0
    stopped, other = recap(output, "lab-compute-2"), recap(output, "lab-compute-1")
    assert stopped["unreachable"] + stopped["failed"] >= 1
    assert other["unreachable"] == 0 and other["failed"] == 0
    # the other servers went on to the end: their containers, and MPI across the live
    # servers (mpirun prints the hosts in the order their ranks answer)
    reached = re.search(r"mpirun reached (.*)", output)
    assert reached, output[-3000:]
    assert sorted(reached.group(1).strip().split(", ")) == [
        h for h in COMPUTE if h != "lab-compute-2"
    ]

    wait_until(
        lambda: (
            docker("exec", "lab-compute-2", "systemctl", "is-active", "ssh", check=False)
            == "active"
        ),
        "sshd on lab-compute-2",
    )
    # Booting, the node tried to mount its fstab's NFS lines (the Isilon's and the head
    # node's share), which this lab's kernel cannot do (a real server mounts them): those
    # units, and only those, failed.
    nfs_units = {
        docker("exec", "lab-compute-2", "systemd-escape", "--path", "--suffix=mount", path)
        for path in docker(
            "exec", "lab-compute-2", "awk", '$3 == "nfs" {print $2}', "/etc/fstab"
        ).split()
    }
    failed_units = docker(
        "exec", "lab-compute-2", "systemctl", "--failed", "--no-legend", "--plain", check=False
    ).splitlines()
    assert nfs_units and {unit.split()[0] for unit in failed_units} <= nfs_units, failed_units
    docker("exec", "lab-compute-2", "systemctl", "reset-failed")
    # Booting, slurmd ran the node's health check, which drains it while the NGC
    # container's sshd does not answer yet (the run starts the container again).
    booted = _slurm_node("lab-compute-2")
    completed = run_playbook("site.yml")
    assert completed.returncode == 0, completed.stdout[-3000:]
    reached = re.search(r"mpirun reached (.*)", completed.stdout)
    assert reached and sorted(reached.group(1).strip().split(", ")) == COMPUTE
    assert recap(completed.stdout, "lab-compute-2")["failed"] == 0
    # The run's report ran the check again on the node it drained, which resumed it: the
    # node takes jobs now, not at the check's next pass (slurm_health_check_interval).
    rerun = re.search(
        r"TASK \[slurm : Run the health check again on the servers it drained\][^\n]*\n"
        r"[^\n]*\nchanged: \[lab-head -> lab-compute-2",
        completed.stdout,
    )
    assert rerun or "dlcluster-health:" not in booted, (booted, completed.stdout[-3000:])
    assert _slurm_node("lab-compute-2") == "idle|none"


def _slurm_node(node: str) -> str:
    """The node's state and reason as slurmctld has them (one line per partition)."""
    lines = docker(
        "exec", "lab-head", "sinfo", "--noheader", "--Node", "--nodes", node, "--format=%T|%E"
    )
    return "\n".join(sorted(set(lines.splitlines())))


def _container(host: str) -> str:
    return docker("exec", host, "docker", "inspect", "-f", "{{.Id}} {{.State.StartedAt}}", "tf")


def test_registry_down_when_a_server_must_pull_fails_clearly_and_leaves_containers_running():
    before = {host: _container(host) for host in COMPUTE}
    docker("exec", "lab-compute-2", "docker", "rmi", "--force", IMAGE)  # the server lacks it
    docker("stop", "lab-registry")
    try:
        failed = run_playbook("playbooks/containers.yml")
    finally:
        docker("start", "lab-registry")
    assert failed.returncode != 0
    out = " ".join(failed.stdout.split())
    assert (
        f"lab-compute-2: could not build, push or pull the image {IMAGE} "
        "(registry lab-registry:5000)" in out
    ), failed.stdout[-3000:]
    assert "The container tf was not touched" in out
    # nothing was stopped or recreated while the registry was away
    for host in COMPUTE:
        assert _container(host) == before[host]
        assert docker("exec", host, "docker", "inspect", "-f", "{{.State.Running}}", "tf") == "true"

    wait_until(
        lambda: (
            subprocess.run(
                ["docker", "exec", "lab-compute-2", "getent", "hosts", "lab-registry"],
                capture_output=True,
                check=False,
            ).returncode
            == 0
        ),
        "the registry's name on the lab network",
    )
    converged = run_playbook("playbooks/containers.yml")
    assert converged.returncode == 0, converged.stdout[-3000:]
    # the pulled image is the build the container already runs: it is not recreated
    assert {host: _container(host) for host in COMPUTE} == before
