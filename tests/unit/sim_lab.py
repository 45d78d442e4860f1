"""A switch simulator (lab/simulators/switch_sim) on an ephemeral 127.0.0.1 port, its
files in a temporary directory, and a netmiko session to it with the platform's own
driver, and SSH exec requests with paramiko's client: what the simulator tests of every
platform share."""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from typing import Any

import paramiko
from netmiko import ConnectHandler

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "lab" / "simulators"))
from switch_sim.server import Switch, load_host_key  # noqa: E402

# simulator platform -> netmiko device type
DEVICE_TYPES = {
    "os10": "dell_os10",
    "eos": "arista_eos",
    "mlnxos": "mellanox_mlnxos",
    "cumulus": "cumulus_linux",
}


class SimLab:
    """One simulated switch; `restart()` keeps its state file, as a reboot keeps startup."""

    def __init__(
        self,
        tmp_path: Path,
        platform: str,
        username: str = "admin",
        password: str = "pw",
        hostname: str = "lab-sw",
        cabled: list[int] | None = None,
        **connect_options: Any,
    ):
        self.tmp_path, self.platform = tmp_path, platform
        self.username, self.password, self.hostname = username, password, hostname
        self.connect_options = connect_options
        self.faults = tmp_path / "faults.json"
        self.cabling = None
        if cabled is not None:
            self.cabling = tmp_path / "cabling.json"
            self.cabling.write_text(json.dumps({"ports": cabled}))
        self.start()

    def start(self) -> None:
        self.switch = Switch(
            self.platform,
            str(self.tmp_path / "state.json"),
            {self.username: self.password},
            load_host_key(str(self.tmp_path / "host_key")),
            self.hostname,
            str(self.faults),
            str(self.cabling) if self.cabling else None,
        )
        self.port = self.switch.listen("127.0.0.1", 0)
        threading.Thread(target=self.switch.serve_forever, daemon=True).start()

    def restart(self) -> None:
        self.switch.stop()
        self.start()

    def stop(self) -> None:
        self.switch.stop()

    def connect(self, read_timeout: float = 10, **options: Any):
        return ConnectHandler(
            device_type=DEVICE_TYPES[self.platform],
            host="127.0.0.1",
            port=self.port,
            username=self.username,
            password=self.password,
            conn_timeout=10,
            read_timeout_override=read_timeout,
            **{**self.connect_options, **options},
        )

    def exec(
        self, command: str, stdin: bytes = b"", password: str | None = None
    ) -> tuple[int, str, str]:
        """`ssh user@switch "command" < stdin`: (exit status, stdout, stderr). The input is
        sent, then its end (EOF), as ssh does with a redirected file."""
        client = paramiko.SSHClient()
        client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
        client.connect(
            "127.0.0.1", port=self.port, username=self.username,
            password=self.password if password is None else password,
            look_for_keys=False, allow_agent=False, timeout=10,
        )  # fmt: skip
        try:
            channel_in, stdout, stderr = client.exec_command(command, timeout=10)
            if stdin:
                channel_in.write(stdin)
            channel_in.channel.shutdown_write()
            out, err = stdout.read().decode(), stderr.read().decode()
            return stdout.channel.recv_exit_status(), out, err
        finally:
            client.close()
