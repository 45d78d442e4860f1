"""Running ansible-playbook from a unit test, as a user runs it from the project root."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def local_host(**host_vars: Any) -> dict[str, Any]:
    """An inventory host that is this machine, with this test run's Python."""
    return {
        "ansible_connection": "local",
        "ansible_python_interpreter": sys.executable,
        **host_vars,
    }


def run_playbook(
    inventory: Path, playbook: Path, variables: dict[str, Any] | None = None, timeout: int = 180
) -> subprocess.CompletedProcess:
    """ansible-playbook with the project's ansible.cfg, plain output (no colour, the default
    callback), `variables` as extra vars."""
    env = {
        **os.environ,
        "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"),
        "ANSIBLE_NOCOLOR": "1",
        "ANSIBLE_STDOUT_CALLBACK": "default",
    }
    command = [str(BIN / "ansible-playbook"), "-i", str(inventory), str(playbook)]
    if variables:
        command += ["-e", json.dumps(variables)]
    return subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
