"""Running and startup configuration of a simulated switch, persisted as JSON.

The running configuration lives in memory and is lost on restart, as on a switch;
`write memory` copies it to startup, which is what a restart loads.
"""

from __future__ import annotations

import copy
import json
import os
import tempfile
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any


class SessionEnd(Exception):
    """The user logged out: the SSH layer closes the channel."""


class SwitchState:
    """Running config (shared by all sessions), startup config on disk."""

    def __init__(self, path: str | os.PathLike, factory: dict[str, Any]):
        self.path = Path(path)
        self.lock = threading.RLock()
        saved = self._load()
        self.startup = saved.get("startup") or copy.deepcopy(factory)
        self.running = copy.deepcopy(self.startup)
        # Other files on the switch's own storage (EOS's flash:, e.g. `copy startup-config
        # flash:rollback-0`): they survive a restart, as startup does.
        self.files: dict[str, Any] = saved.get("files", {})
        # Front-panel ports with a cable plugged in (none on a factory switch): a port
        # without one is down / notconnect.
        self.cabled_ports: frozenset[int] = frozenset()
        # The packet and octet counters of interfaces, by interface name ({"Ethernet31/1":
        # {"inUcastPkts": 12, ...}}): a lab switch forwards nothing, so every counter is 0
        # unless the lab's fault file gives numbers (server.Switch reads it), as a test
        # does to play traffic crossing a port.
        self.interface_counters: Callable[[], Mapping[str, Mapping[str, int]]] = dict
        # Device-wide state that lives in memory only, like the running configuration
        # (EOS keeps pending configuration sessions here; a restart discards them).
        self.volatile: dict[str, Any] = {}

    def _load(self) -> dict[str, Any]:
        if self.path.exists():
            return json.loads(self.path.read_text())
        return {}

    def save(self) -> None:
        """Copy running to startup and persist it atomically."""
        with self.lock:
            self.startup = copy.deepcopy(self.running)
            self._persist()

    def write_file(self, name: str, content: Any) -> None:
        """Keep a copy of `content` as the file `name` on the switch's storage, at once."""
        with self.lock:
            self.files[name] = copy.deepcopy(content)
            self._persist()

    def remove_file(self, name: str) -> None:
        """Delete the file `name` from the switch's storage, at once (no file: nothing)."""
        with self.lock:
            if self.files.pop(name, None) is not None:
                self._persist()

    def _persist(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".state-")
        with os.fdopen(fd, "w") as handle:
            saved = {"startup": self.startup, "files": self.files}
            json.dump(saved, handle, indent=1, sort_keys=True)
        os.replace(tmp, self.path)
