#!/usr/bin/python3
"""`net`, `nv` and `ifreload` on the Cumulus Linux simulator's host (cumulus_host.py): each
is a link to this file, which hands its name and arguments to the simulator over the
command socket and prints what the device model answers, on stdout or stderr, with its
exit status. A question the tool asks (NVUE's `Are you sure? [y/N]`) is printed and
answered from this process's standard input. Self-contained: sshd's sessions do not carry
the simulator's PYTHONPATH.
"""

from __future__ import annotations

import json
import os
import socket
import sys

SOCKET = os.environ.get("CUMULUS_SIM_SOCKET", "/run/switch-sim/cli.sock")


def main(argv: list[str]) -> int:
    name = os.path.basename(argv[0])
    request = {"argv": [name, *argv[1:]], "sudo_user": os.environ.get("SUDO_USER")}
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        try:
            connection.connect(SOCKET)
        except OSError as err:
            print(
                f"{name}: the switch's configuration service is not running ({err})",
                file=sys.stderr,
            )
            return 1
        stream = connection.makefile("rwb")
        stream.write((json.dumps(request) + "\n").encode())
        stream.flush()
        while True:
            line = stream.readline()
            if not line:
                print(
                    f"{name}: the switch's configuration service closed the connection",
                    file=sys.stderr,
                )
                return 1
            reply = json.loads(line)
            if "ask" in reply:
                sys.stdout.write(reply["ask"])
                sys.stdout.flush()
                answer = sys.stdin.readline()
                stream.write(
                    (
                        json.dumps({"answer": answer.rstrip("\n") if answer else None}) + "\n"
                    ).encode()
                )
                stream.flush()
                continue
            sys.stdout.write(reply["stdout"])
            sys.stderr.write(reply["stderr"])
            return int(reply["status"])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
