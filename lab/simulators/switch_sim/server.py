"""SSH side of the switch simulator: paramiko server, the interactive shell, SSH exec
requests, fault injection.

Each accepted connection gets a session object of the device model (one module per
platform, listed in PLATFORMS: os10, eos, cumulus, mlnxos); the
shell echoes what it receives, ends lines with CRLF, runs each line and prints the
output and the prompt. An exec request (`ssh user@switch "show version"`, Ansible's
`raw`) runs its command's lines in a session of the same account, as the interactive
login would, and answers with their output and an exit status; a model may let a line read
the request's standard input (`ssh sw "sudo -S tee FILE" < file`, execute_input). Faults
are read from a JSON file at every new session, so a test can change them without
restarting the simulator (exec requests honour delay_seconds, slow_commands and reject_commands):
{"drop_after_config_commands": N, "delay_seconds": F, "reject_commands": ["regex", ...],
"slow_commands": ["regex", ...], "slow_seconds": F}. delay_seconds slows every reply;
slow_commands slows only the replies to matching commands, by slow_seconds.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import re
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO, Protocol

import paramiko

from .state import SessionEnd, SwitchState


class Session(Protocol):
    """One CLI session of a device model, as the shell below drives it.

    The platform's session class is called with the switch's state (SessionFactory) once
    per SSH connection, and once for the first-boot lines (apply_initial_config). Besides
    these members, the server looks up the hooks of OptionalSessionHooks by name, with a
    default for a model that has none.
    """

    @property
    def in_config(self) -> bool:
        """Whether the session is in a configuration mode, read before each line runs: on
        a model without counts_as_config, a line typed there that is not answered with a
        `%` error counts for the fault drop_after_config_commands."""

    def prompt(self) -> str:
        """The prompt to print: after connecting and after each line's output."""

    def execute(self, line: str) -> str:
        """Run one line as typed (without its line ending); return what the device prints,
        its errors included. Raises SessionEnd when the user logs out."""


class OptionalSessionHooks(Protocol):
    """What a session may also have; server.py reads each with getattr or hasattr."""

    @property
    def echo(self) -> bool:
        """False while the typed characters must not be echoed (a password); default True."""

    @property
    def REJECTED(self) -> str:
        """The error line the device prints for a command refused by the fault
        reject_commands; default `% Invalid input`."""

    def login(self, username: str, password: str = "") -> None:
        """Called once after an SSH login, with the account that logged in, for models whose
        landing mode or sudo depend on it."""

    def refused(self, output: str) -> bool:
        """Whether a line's output is a refusal, for models without a configuration mode
        whose errors do not start with `%`: the first-boot lines are then typed at the
        shell instead of in `configure terminal`."""

    def counts_as_config(self, line: str, output: str) -> bool:
        """Whether an accepted line counts for the fault drop_after_config_commands, on
        models that have no configuration mode (in_config is then not used for it)."""

    def execute_input(self, line: str, stdin: BinaryIO) -> str:
        """execute() for a line of an SSH exec request, with the request's standard input
        as a binary file (readline(); read() returns all up to the client's EOF): the
        line's command reads what it needs, when it needs it. Without this hook an exec
        line runs with execute() and its input is never read."""

    def exec_lines(self, command: str) -> list[str]:
        """The lines an SSH exec request's command runs, in order; default: each line of
        the command (MLNX-OS: the arguments of `cli "..." "..."`)."""

    def exec_status(self, line: str, output: str) -> int:
        """The exit status of an exec request whose line failed; default 1 for a line
        answered with a `%` error. Running stops at the first failure."""

    @property
    def EXEC_ERRORS_ON_STDERR(self) -> bool:
        """Whether a failed line's output goes to stderr (a Linux shell); default False:
        a network CLI prints its errors where it prints everything."""

    @property
    def NO_TERMINAL(self) -> str:
        """What the device says when a line waits for a password (echo off) on an exec
        channel, which has no terminal to read it from."""


SessionFactory = Callable[[SwitchState], Session]  # a platform's session class

# platform -> (module, session class). Each module has `factory(hostname) -> dict` (the
# configuration out of the box) and DEFAULT_HOSTNAME; its session class is a
# SessionFactory (and also names its `platform`, which the server does not read).
PLATFORMS = {
    "os10": ("os10", "OS10Session"),
    "eos": ("eos", "EOSSession"),
    "cumulus": ("cumulus", "CumulusSession"),
    "mlnxos": ("mlnxos", "MLNXOSSession"),
}


def platform_model(platform: str) -> tuple[SessionFactory, Any]:
    """(session class, module) of one platform."""
    module_name, class_name = PLATFORMS[platform]
    module = importlib.import_module(f"{__package__}.{module_name}")
    return getattr(module, class_name), module


class _Auth(paramiko.ServerInterface):
    def __init__(self, users: dict[str, str]):
        self.users = users
        self.username = ""
        self.password = ""
        self.command: str | None = None  # an exec request's command; None for a shell
        self.shell = threading.Event()  # a shell or an exec request was made

    def check_auth_password(self, username: str, password: str) -> int:
        if self.users.get(username) == password:
            self.username, self.password = username, password
            return paramiko.AUTH_SUCCESSFUL
        return paramiko.AUTH_FAILED

    def get_allowed_auths(self, username: str) -> str:
        return "password"

    def check_channel_request(self, kind: str, chanid: int) -> int:
        if kind == "session":
            return paramiko.OPEN_SUCCEEDED
        return paramiko.OPEN_FAILED_ADMINISTRATIVELY_PROHIBITED

    def check_channel_pty_request(self, *args: Any) -> bool:
        return True

    def check_channel_shell_request(self, channel: Any) -> bool:
        self.shell.set()
        return True

    def check_channel_exec_request(self, channel: Any, command: bytes) -> bool:
        self.command = command.decode(errors="replace")
        self.shell.set()
        return True


class Switch:
    """One simulated switch: its state, users, host key and fault file."""

    def __init__(
        self,
        platform: str,
        state_path: str,
        users: dict[str, str],
        host_key: paramiko.PKey,
        hostname: str,
        faults_path: str | None = None,
        cabling_path: str | None = None,
        initial_config_path: str | None = None,
    ):
        session_cls, module = platform_model(platform)
        self.session_cls: SessionFactory = session_cls
        self.state = SwitchState(state_path, module.factory(hostname))
        self.state.cabled_ports = read_cabling(cabling_path)
        if initial_config_path and not Path(state_path).exists():
            apply_initial_config(self.state, session_cls, Path(initial_config_path))
        self.users = users
        self.host_key = host_key
        self.faults_path = Path(faults_path) if faults_path else None
        # the fault file's `interface_counters` (counters a test sets: a lab switch
        # forwards no traffic of its own), read afresh at every show
        self.state.interface_counters = lambda: self.faults().get("interface_counters") or {}
        self.sock: socket.socket | None = None
        self.stopping = threading.Event()
        self.serving = threading.Event()  # serve_forever() has begun
        self.served = threading.Event()  # serve_forever() has returned

    def faults(self) -> dict[str, Any]:
        if self.faults_path and self.faults_path.exists():
            try:
                return json.loads(self.faults_path.read_text() or "{}")
            except ValueError:
                return {}
        return {}

    def listen(self, host: str, port: int) -> int:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((host, port))
        self.sock.listen(20)
        return self.sock.getsockname()[1]

    def serve_forever(self) -> None:
        assert self.sock is not None
        self.serving.set()
        try:
            while not self.stopping.is_set():
                try:
                    client, _ = self.sock.accept()
                except OSError:
                    break
                if self.stopping.is_set():
                    client.close()
                    break
                threading.Thread(target=self._connection, args=(client,), daemon=True).start()
        finally:
            self.served.set()

    def stop(self) -> None:
        """Stop listening and end the accept loop before the socket is closed.

        close() alone does not wake a thread blocked in accept() on Linux: that thread
        keeps the listening socket alive under a file descriptor number the process may
        already have given to another socket, and goes on answering on the old port.
        shutdown() wakes it (accept fails), and the socket is closed once the loop has
        returned."""
        self.stopping.set()
        if self.sock is None:
            return
        # a listening socket may report "not connected": accept is woken all the same
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        if self.serving.is_set():
            self.served.wait(5)
        self.sock.close()

    def _connection(self, client: socket.socket) -> None:
        transport = paramiko.Transport(client)
        transport.add_server_key(self.host_key)
        auth = _Auth(self.users)
        try:
            transport.start_server(server=auth)
            channel = transport.accept(30)
            if channel is None or not auth.shell.wait(10):
                return
            session = self.session_cls(self.state)
            if hasattr(session, "login"):  # models whose landing mode depends on the user
                session.login(auth.username, auth.password)
            if auth.command is None:
                Shell(channel, session, self.faults()).run()
            else:
                Exec(channel, session, self.faults()).run(auth.command)
                # the client reads the output and the exit status, then closes
                deadline = time.monotonic() + 5
                while transport.is_active() and time.monotonic() < deadline:
                    time.sleep(0.02)
        except (paramiko.SSHException, EOFError, OSError):
            pass
        finally:
            transport.close()


class Shell:
    """The interactive CLI on one channel."""

    def __init__(self, channel: Any, session: Session, faults: dict[str, Any]):
        self.channel = channel
        self.session = session
        self.delay = float(faults.get("delay_seconds", 0))
        self.drop_after = faults.get("drop_after_config_commands")
        self.reject = [re.compile(p) for p in faults.get("reject_commands", [])]
        self.slow = [re.compile(p) for p in faults.get("slow_commands", [])]
        self.slow_seconds = float(faults.get("slow_seconds", 0))
        self.config_commands = 0

    def write(self, text: str) -> None:
        self.channel.sendall(text.replace("\r\n", "\n").replace("\n", "\r\n").encode())

    def run(self) -> None:
        self.write(self.session.prompt())
        buffer = ""
        while True:
            data = self.channel.recv(4096)
            if not data:
                return
            for char in data.decode(errors="replace"):
                if char in "\r\n":
                    if char == "\n" and buffer == "" and getattr(self, "_last_cr", False):
                        self._last_cr = False
                        continue  # the LF of a CRLF
                    self._last_cr = char == "\r"
                    self.write("\r\n")
                    if not self.line(buffer):
                        return
                    buffer = ""
                elif char in ("\x7f", "\x08"):
                    if buffer:
                        buffer = buffer[:-1]
                        self.write("\b \b")
                else:
                    self._last_cr = False
                    buffer += char
                    if getattr(self.session, "echo", True):  # no echo of a password
                        self.write(char)

    def line(self, text: str) -> bool:
        """Run one line; False ends the session."""
        if self.delay:
            time.sleep(self.delay)
        if self.slow_seconds and text.strip() and any(p.search(text.strip()) for p in self.slow):
            time.sleep(self.slow_seconds)
        in_config = self.session.in_config
        if any(p.search(text.strip()) for p in self.reject) and text.strip():
            error = getattr(self.session, "REJECTED", "% Invalid input")
            self.write(error + "\n" + self.session.prompt())
            return True
        try:
            output = self.session.execute(text)
        except SessionEnd:
            return False
        if output:
            self.write(output + "\n")
        if hasattr(self.session, "counts_as_config"):  # models without a config mode
            counted = self.session.counts_as_config(text, output)
        else:
            counted = in_config and text.strip() and not output.startswith("%")
        if counted:
            self.config_commands += 1
            if self.drop_after is not None and self.config_commands >= int(self.drop_after):
                self.channel.close()  # the fault: the session dies after this command
                return False
        self.write(self.session.prompt())
        return True


class Exec:
    """One SSH exec request: the command's lines run in order at the account's landing
    mode, their output sent back (LF line ends: no terminal), then the exit status: 0, or
    the failing line's (exec_status) after which nothing more runs. Whether EOS, OS10 and
    MLNX-OS stop at the first failing line, and their exit codes, are unverified; Cumulus
    answers as bash does."""

    def __init__(self, channel: Any, session: Session, faults: dict[str, Any]):
        self.channel = channel
        self.session = session
        self.delay = float(faults.get("delay_seconds", 0))
        self.reject = [re.compile(p) for p in faults.get("reject_commands", [])]
        self.slow = [re.compile(p) for p in faults.get("slow_commands", [])]
        self.slow_seconds = float(faults.get("slow_seconds", 0))

    def _lines(self, command: str) -> list[str]:
        if hasattr(self.session, "exec_lines"):
            return self.session.exec_lines(command)
        return [line for line in command.splitlines() if line.strip()]

    def _failed(self, line: str, output: str) -> int:
        if hasattr(self.session, "exec_status"):
            return self.session.exec_status(line, output)
        return 1 if output.lstrip("\x07").startswith("%") else 0

    def _execute(self, line: str, stdin: BinaryIO) -> str:
        with_input = getattr(self.session, "execute_input", None)
        return with_input(line, stdin) if with_input else self.session.execute(line)

    def _send(self, text: str, error: bool = False) -> None:
        if not text:
            return
        data = (text if text.endswith("\n") else text + "\n").encode()
        if error and getattr(self.session, "EXEC_ERRORS_ON_STDERR", False):
            self.channel.sendall_stderr(data)
        else:
            self.channel.sendall(data)

    def run(self, command: str) -> None:
        status = 0
        stdin = self.channel.makefile("rb")  # read only when a line asks
        for line in self._lines(command):
            if self.delay:
                time.sleep(self.delay)
            if self.slow_seconds and any(p.search(line.strip()) for p in self.slow):
                time.sleep(self.slow_seconds)
            if any(p.search(line.strip()) for p in self.reject):
                self._send(getattr(self.session, "REJECTED", "% Invalid input"), error=True)
                status = 1
                break
            try:
                output = self._execute(line, stdin)
            except SessionEnd:
                break
            if not getattr(self.session, "echo", True):  # it waits for a password
                self._send(getattr(self.session, "NO_TERMINAL", "% No terminal"), error=True)
                status = 1
                break
            status = self._failed(line, output)
            self._send(output, error=status != 0)
            if status:
                break
        self.channel.send_exit_status(status)
        self.channel.close()


def read_users(path: str) -> dict[str, str]:
    users = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if ":" in line and not line.startswith("#"):
                user, password = line.rstrip("\n").split(":", 1)
                users[user] = password
    return users


def read_cabling(path: str | None) -> frozenset[int]:
    """Front-panel ports with a cable, from `{"ports": [1, 2, 21, ...]}`; none without a file.

    A switch out of the box has nothing plugged in, so every port is down until the lab's
    wiring says otherwise.
    """
    if not path:
        return frozenset()
    ports = json.loads(Path(path).read_text())["ports"]
    if not all(isinstance(p, int) and not isinstance(p, bool) and p > 0 for p in ports):
        raise ValueError(f"{path}: ports must be positive port numbers, got {ports!r}")
    return frozenset(ports)


def apply_initial_config(state: SwitchState, session_cls: SessionFactory, path: Path) -> None:
    """Type the lines of `path` in configuration mode at the console and save them to
    startup: the switch's first boot, before anyone reaches it over SSH."""
    session = session_cls(state)
    # A model without a configuration mode (a Linux shell, as on Cumulus) says itself
    # which output is a refusal; the others refuse with a line starting with `%`.
    refused = getattr(session, "refused", None)
    if refused is None:
        session.execute("configure terminal")
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if line.strip() and not line.lstrip().startswith(("!", "#")):
            output = session.execute(line)
            if refused(output) if refused else output.lstrip("\x07").startswith("%"):
                # the line is not shown: day-0 lines carry account secrets
                raise ValueError(f"{path}:{number}: the switch refused the line: {output}")
    if refused is None:
        session.execute("end")
    state.save()


def load_host_key(path: str) -> paramiko.PKey:
    """The switch's host key, created on first start and kept on the state volume."""
    key_path = Path(path)
    if key_path.exists():
        return paramiko.RSAKey.from_private_key_file(str(key_path))
    key = paramiko.RSAKey.generate(2048)
    key_path.parent.mkdir(parents=True, exist_ok=True)
    key.write_private_key_file(str(key_path))
    key_path.chmod(0o600)
    return key
