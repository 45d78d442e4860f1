"""Loaded by every Python process of a guarded plan run (PYTHONPATH): any attempt to
open a network connection is written to $DLCLUSTER_PLAN_GUARD_LOG and refused. Local
(AF_UNIX) sockets stay allowed: they reach no device."""

import os
import socket

_LOG = os.environ.get("DLCLUSTER_PLAN_GUARD_LOG")
_connect, _connect_ex = socket.socket.connect, socket.socket.connect_ex


def _refuse(sock: socket.socket, address: object) -> None:
    if sock.family == socket.AF_UNIX:
        return
    if _LOG:
        with open(_LOG, "a", encoding="utf-8") as log:
            log.write(f"python connect {address!r} (pid {os.getpid()})\n")
    raise ConnectionRefusedError(f"plan guard: no connection may be opened ({address!r})")


def _guarded_connect(self: socket.socket, address: object) -> None:
    _refuse(self, address)
    return _connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: object) -> int:
    _refuse(self, address)
    return _connect_ex(self, address)


if _LOG:
    socket.socket.connect = _guarded_connect
    socket.socket.connect_ex = _guarded_connect_ex
