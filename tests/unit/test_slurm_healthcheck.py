"""The GPU servers' health check (roles/slurm/templates/dlcluster-healthcheck.j2), rendered
as the slurm role renders it and run with stand-ins for Slurm's commands: what it drains,
with which reason, and what it resumes. The lab runs it on a real slurmd
(tests/lab/test_slurm.py)."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
from pathlib import Path

import pytest
import yaml
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

ROLE = Path(__file__).resolve().parents[2] / "roles" / "slurm"

# sinfo answers with the node's state (%T) and reason (%E) from two files; scontrol
# records its arguments
STUBS = {
    "sinfo": (
        '#!/bin/sh\ncase "$*" in\n*%30T*) cat "$LAB/state";;\n*%200E*) cat "$LAB/reason";;\nesac\n'
    ),
    "scontrol": '#!/bin/sh\necho "$*" >> "$LAB/scontrol.log"\n',
}


@pytest.fixture
def node(tmp_path):
    """The rendered check, GPU device files in tmp_path/dev, four declared GPUs."""
    devices = tmp_path / "dev"
    devices.mkdir()
    for index in range(4):
        (devices / f"nvidia{index}").touch()
    mounts = tmp_path / "data_mounts"
    _render(tmp_path, {})
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, body in STUBS.items():
        (bin_dir / name).write_text(body)
        (bin_dir / name).chmod(0o755)
    (tmp_path / "state").write_text("idle\n")
    (tmp_path / "reason").write_text("none\n")
    mounts.write_text("")
    return tmp_path


# the role's own value of the reasons' leader (vars/main.yml), as report.yml reads it
ROLE_VARS = yaml.safe_load((ROLE / "vars" / "main.yml").read_text())


def _render(node: Path, overrides: dict) -> None:
    """Render the check into node/healthcheck as the role renders it for gpu-1."""
    variables = {
        **yaml.safe_load((ROLE / "defaults" / "main.yml").read_text()),
        "ansible_managed": "managed by dlcluster",
        "inventory_hostname": "gpu-1",
        "slurm_node": {"hardware": {"NodeName": "gpu-1"}, "gpu_files": ["a", "b", "c", "d"]},
        "_slurm_health_gpu_glob": f"{node / 'dev'}/nvidia[0-9]*",
        "_slurm_health_leader": ROLE_VARS["_slurm_health_leader"],
        "cluster_data_mounts_file": str(node / "data_mounts"),
        "slurm_health_check_mounts": True,
        **overrides,
    }
    text = (ROLE / "templates" / "dlcluster-healthcheck.j2").read_text()
    (node / "healthcheck").write_text(Templar(loader=DataLoader(), variables=variables).template(
        trust_as_template(text)))  # fmt: skip


def _run(node: Path) -> tuple[int, list[str]]:
    env = {**os.environ, "LAB": str(node), "PATH": f"{node / 'bin'}:{os.environ['PATH']}"}
    result = subprocess.run(["bash", str(node / "healthcheck")], env=env, capture_output=True,
                            text=True, timeout=30, check=False)  # fmt: skip
    log = node / "scontrol.log"
    return result.returncode, log.read_text().splitlines() if log.exists() else []


def test_a_healthy_node_is_left_alone(node):
    assert _run(node) == (0, [])


def test_a_missing_gpu_drains_the_node_with_a_reason_that_names_it(node):
    (node / "dev" / "nvidia3").unlink()
    status, calls = _run(node)
    assert status == 1
    assert calls == [
        "update NodeName=gpu-1 State=DRAIN Reason=dlcluster-health: 3 of 4 GPU device files"
    ]


def test_an_unmounted_data_mount_drains_the_node(node):
    (node / "data_mounts").write_text(f"{node}/not-a-mount\n")
    status, calls = _run(node)
    assert status == 1
    assert calls == [
        f"update NodeName=gpu-1 State=DRAIN Reason=dlcluster-health: {node}/not-a-mount not"
        " mounted or not readable"
    ]


def test_the_checks_own_drain_is_resumed_once_all_is_well(node):
    (node / "state").write_text("drained\n")
    (node / "reason").write_text("dlcluster-health: 3 of 4 GPU device files\n")
    assert _run(node) == (0, ["update NodeName=gpu-1 State=RESUME"])


def test_an_admins_drain_is_never_resumed_nor_its_reason_replaced(node):
    (node / "state").write_text("drained\n")
    (node / "reason").write_text("replacing a fan\n")
    assert _run(node) == (0, [])
    (node / "dev" / "nvidia0").unlink()
    assert _run(node) == (0, [])  # still failing, but the admin's reason stays


def test_a_drain_already_given_for_the_same_problem_is_not_repeated(node):
    (node / "dev" / "nvidia3").unlink()
    (node / "state").write_text("drained\n")
    (node / "reason").write_text("dlcluster-health: 3 of 4 GPU device files\n")
    assert _run(node) == (1, [])


@pytest.fixture
def listener():
    """A loopback TCP service that sends `greeting` to every connection: (port, set greeting)."""
    server = socket.create_server(("127.0.0.1", 0))
    greeting = [b"SSH-2.0-OpenSSH_9.2p1\r\n"]

    def serve() -> None:
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            with connection:
                connection.sendall(greeting[0])

    threading.Thread(target=serve, daemon=True).start()
    yield server.getsockname()[1], greeting
    server.close()


def _closed_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        return probe.getsockname()[1]


SSHD = "the NGC container's sshd"


def test_a_service_that_answers_with_its_banner_passes(node, listener):
    port, _ = listener
    _render(node, {"slurm_health_check_services": [{"name": SSHD, "port": port, "banner": "SSH-"}]})
    assert _run(node) == (0, [])


def test_a_service_that_does_not_listen_drains_the_node_naming_it(node):
    port = _closed_port()
    _render(node, {"slurm_health_check_services": [{"name": SSHD, "port": port, "banner": "SSH-"}]})
    status, calls = _run(node)
    assert status == 1
    assert calls == [
        f"update NodeName=gpu-1 State=DRAIN Reason=dlcluster-health: {SSHD} (port {port})"
        " does not answer"
    ]


def test_a_service_that_answers_something_else_drains_the_node(node, listener):
    port, greeting = listener
    greeting[0] = b"HTTP/1.1 400 Bad Request\r\n\r\n"
    _render(node, {"slurm_health_check_services": [{"name": SSHD, "port": port, "banner": "SSH-"}]})
    assert _run(node)[0] == 1
    # without a banner, a connection is enough
    (node / "scontrol.log").unlink()
    _render(node, {"slurm_health_check_services": [{"name": "a web service", "port": port}]})
    assert _run(node) == (0, [])


def test_a_service_name_is_text_in_the_reason_never_shell(node, tmp_path):
    name = "sshd; touch $LAB/pwned `id`"
    port = _closed_port()
    _render(node, {"slurm_health_check_services": [{"name": name, "port": port}]})
    status, calls = _run(node)
    assert status == 1 and not (node / "pwned").exists()
    assert calls[0].endswith(f"Reason=dlcluster-health: {name} (port {port}) does not answer")
