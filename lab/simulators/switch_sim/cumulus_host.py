"""The Cumulus Linux simulator as the Debian host the switch is (`--linux-host`).

A Cumulus switch is a Linux host: OpenSSH answers logins and exec requests with bash, and
its admins run Ansible against it like any Debian server (`command`, `template` of
/etc/network/interfaces, then `sudo ifreload -a`) [4.2 interfaces guide]. In this mode the
container is such a host: the real sshd, bash, sudo, Python and files of the image, with
the switch's own tools (`net` on 4.x, `nv` on 5.x, and `ifreload`) installed as commands
that hand their arguments to this process, which runs them on the device model
(cumulus_tool.py is that command; cumulus.py's session runs the line). The model stays the
one truth the CLI, the NVUE REST API and the files share:

- /etc/network/interfaces is a real file. An edit (any writer: tee, an editor, Ansible's
  template) is the model's local edit (cumulus_ifupdown.write_interfaces) until `ifreload
  -a` applies it; `net commit` / `nv config apply` write the file again. /etc/hostname,
  /etc/lsb-release, /etc/os-release and /etc/cumulus/ports.conf are written from the model
  (an edit of them is replaced: the model does not read them back).
- The accounts are the users file's: each a Linux account with its password, in group
  `sudo` (every lab account may sudo, as the factory `cumulus` account does [4.2 quick
  start]) and in `netedit` where the model says so (day-0 `adduser USER netedit`); a
  membership given on the host with `adduser` is read back before each tool runs.
- Who runs a tool is the kernel's word (SO_PEERCRED on the command socket), not the
  tool's; run under sudo it runs as root for the login in SUDO_USER.

What differs from a switch, on purpose: the kernel hostname is the container's (the lab
names each container as the inventory names the switch; a container may not call
sethostname), so `net add hostname` changes /etc/hostname and the tools' answers, not the
kernel's name; ports, links and counters exist only in the model (no swp devices).
Whether a user's PATH holds /sbin on a real switch is **unverified**; the image gives it to
every login and exec session, so `ifreload` without sudo answers ifupdown2's `must be
root`, as the modelled bash does.

Sources: the Cumulus Linux guides named in cumulus.py's docstring; /etc/os-release as the
Cumulus Linux Command Reference Guide (NVIDIA networking knowledge base, "Common System
Commands") shows it for 4.2.0, whose NAME, VERSION_ID and VERSION are what Ansible's
distribution facts read for Cumulus (ansible-core module_utils/facts/system/
distribution.py); that 5.x writes the same fields is **unverified**.
"""

from __future__ import annotations

import contextlib
import grp
import json
import pwd
import shlex
import socket
import socketserver
import struct
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import cumulus_ifupdown as ifupdown
from .cumulus_model import is_nvue, lsb_release, render_ports_conf
from .state import SwitchState

SOCKET = "/run/switch-sim/cli.sock"  # cumulus_tool.py's default
TOOL = Path(__file__).with_name("cumulus_tool.py")
# where each command is installed, as on the switch (ifupdown2 installs /sbin/ifreload)
TOOL_PATHS = {"net": "usr/bin/net", "nv": "usr/bin/nv", "ifreload": "usr/sbin/ifreload"}
SYNC_SECONDS = 0.5  # how often a file written by someone else is read back


def os_release(config: dict[str, Any]) -> str:
    """/etc/os-release as the Command Reference Guide shows it (4.2.0)."""
    release = config["release"]
    return (
        'NAME="Cumulus Linux"\n'
        f"VERSION_ID={release}\n"
        f'VERSION="Cumulus Linux {release}"\n'
        'PRETTY_NAME="Cumulus Linux"\n'
        "ID=cumulus-linux\n"
        "ID_LIKE=debian\n"
        f"CPE_NAME=cpe:/o:cumulusnetworks:cumulus_linux:{release}\n"
        'HOME_URL="http://www.nvidia.com/"\n'
        'SUPPORT_URL="https://enterprise-support.nvidia.com/s/"\n'
    )


# the files written from the model: path -> text
MODEL_FILES: dict[str, Callable[[SwitchState], str]] = {
    ifupdown.INTERFACES: ifupdown.interfaces_text,
    "/etc/hostname": lambda state: state.running["hostname"] + "\n",
    "/etc/lsb-release": lambda state: lsb_release(state.running) + "\n",
    "/etc/os-release": lambda state: os_release(state.running),
    "/etc/cumulus/ports.conf": lambda state: render_ports_conf(state.running),
}


class LinuxHost:
    """The host side of one Cumulus switch: its files, accounts, commands and sshd.

    `root` is where the host's / is (a temporary directory in tests)."""

    def __init__(
        self, state: SwitchState, session_cls: Any, users: dict[str, str], root: str = "/"
    ):
        self.state = state
        self.session_cls = session_cls
        self.users = users
        self.root = Path(root)
        self.lock = threading.RLock()
        self.written: dict[str, str | None] = {}  # what each file held when last synced
        self.stopping = threading.Event()
        self.server: socketserver.UnixStreamServer | None = None
        self.accounts = False  # the host's accounts are the users file's (provisioned)

    def path(self, name: str) -> Path:
        return self.root / name.lstrip("/")

    # -- the files -------------------------------------------------------------------------

    def _read(self, name: str) -> str | None:
        try:
            return self.path(name).read_text()
        except (FileNotFoundError, IsADirectoryError):
            return None

    def _write(self, name: str, text: str) -> None:
        """In place: /etc/hostname is a file Docker mounts, which rename cannot replace."""
        target = self.path(name)
        if target.is_symlink():  # Debian's /etc/os-release points into /usr/lib
            target.unlink()
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "w", encoding="utf-8") as handle:
            handle.write(text)

    def sync(self) -> None:
        """A file changed since the last sync was written by someone else: the interfaces
        file becomes the model's local edit (the others are the model's alone); then each
        file is written where the model holds something else."""
        with self.lock:
            for name, render in MODEL_FILES.items():
                current = self._read(name)
                edited = name in self.written and current != self.written[name]
                if edited and name == ifupdown.INTERFACES:
                    ifupdown.write_interfaces(self.state, current or "")
                wanted = render(self.state)
                if wanted != current:
                    self._write(name, wanted)
                self.written[name] = wanted

    def _sync_loop(self) -> None:
        while not self.stopping.wait(SYNC_SECONDS):
            with contextlib.suppress(OSError):
                self.sync()

    # -- the accounts ----------------------------------------------------------------------

    def provision_accounts(self) -> None:
        """Create the users file's accounts (home, bash, password, groups sudo and
        netedit as the model has them). Needs the container's root."""
        subprocess.run(["groupadd", "-f", "netedit"], check=True)
        for user, password in self.users.items():
            try:
                pwd.getpwnam(user)
            except KeyError:
                subprocess.run(["useradd", "-m", "-s", "/bin/bash", "-G", "sudo", user], check=True)
            subprocess.run(["chpasswd"], input=f"{user}:{password}\n", text=True, check=True)
            if user in self.state.running["netedit"]:
                subprocess.run(["usermod", "-a", "-G", "netedit", user], check=True)
        self.accounts = True

    def read_netedit(self) -> None:
        """The netedit group's members as the host has them (`adduser USER netedit`), which
        the model reads for NCLU's authorization; written at once, as adduser does."""
        try:
            members = sorted(grp.getgrnam("netedit").gr_mem)
        except KeyError:
            return
        with self.state.lock:
            if sorted(self.state.running["netedit"]) == members:
                return
            for config in (self.state.running, self.state.startup):
                config["netedit"] = list(members)
            if self.state.running == self.state.startup:
                self.state.save()

    # -- one command -----------------------------------------------------------------------

    def run(
        self, argv: list[str], user: str, login: str, ask: Callable[[str], str | None]
    ) -> tuple[int, str, str]:
        """Run `net|nv|ifreload ARGS` as `user` (root under sudo: `login` is then the sudo
        user); `ask(prompt)` reads the answer to a question (NVUE's `Are you sure?`), None
        at the end of the input. Returns (exit status, stdout, stderr) as bash would."""
        session = self.session_cls(self.state)
        session.login(login)
        if user == "root" and login != "root":
            session.shells.append("root")
        line = shlex.join(argv)
        with self.lock:
            if self.accounts:
                self.read_netedit()
            self.sync()
            output = session.execute(line)
            self.sync()
        while session.confirm is not None:  # what was printed, then the question
            answer = ask((output + "\n" if output else "") + session.prompt())
            with self.lock:
                output = session.execute(answer or "")
                self.sync()
        status = session.exec_status(line, output)
        text = output + "\n" if output else ""
        return (status, "", text) if status else (0, text, "")

    # -- the command socket ----------------------------------------------------------------

    def serve(self, path: str = SOCKET) -> None:
        """Answer cumulus_tool.py on a Unix socket, in the background."""
        host = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                host.handle(self.request, self.rfile, self.wfile)

        socket_path = Path(path)
        socket_path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            socket_path.unlink()
        self.server = socketserver.ThreadingUnixStreamServer(str(socket_path), Handler)
        self.server.daemon_threads = True
        socket_path.chmod(0o666)  # every account runs the tools; who is asked of the kernel
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        threading.Thread(target=self._sync_loop, daemon=True).start()

    def stop(self) -> None:
        self.stopping.set()
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()

    def handle(self, connection: socket.socket, rfile: Any, wfile: Any) -> None:
        """One tool run: a JSON line {"argv": [...], "sudo_user": ...} in; JSON lines
        {"ask": prompt} (answered by {"answer": line|null}) and then {"status", "stdout",
        "stderr"} out."""
        uid = struct.unpack("3i", connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))[
            1
        ]
        try:
            user = pwd.getpwuid(uid).pw_name
        except KeyError:
            user = str(uid)
        request = json.loads(rfile.readline() or "{}")
        argv = [str(a) for a in request.get("argv", [])]
        login = str(request.get("sudo_user") or user) if user == "root" else user

        def ask(prompt: str) -> str | None:
            wfile.write((json.dumps({"ask": prompt}) + "\n").encode())
            wfile.flush()
            reply = json.loads(rfile.readline() or "{}")
            return reply.get("answer")

        if not argv or argv[0] not in TOOL_PATHS:
            status, out, err = 127, "", f"unknown command {argv[:1]}\n"
        else:
            status, out, err = self.run(argv, user, login, ask)
        wfile.write((json.dumps({"status": status, "stdout": out, "stderr": err}) + "\n").encode())
        wfile.flush()

    # -- the commands and sshd -------------------------------------------------------------

    def install_tools(self) -> None:
        """The release's configuration tool (`net` on 4.x, `nv` on 5.x: the other is absent,
        as on the switch) and `ifreload`, each a link to cumulus_tool.py."""
        tool = "nv" if is_nvue(self.state.running) else "net"
        for name in (tool, "ifreload"):
            link = self.path(TOOL_PATHS[name])
            link.parent.mkdir(parents=True, exist_ok=True)
            with contextlib.suppress(FileNotFoundError):
                link.unlink()
            link.symlink_to(TOOL)

    def sshd_config(self, host_key: str, listen: str) -> str:
        address, _, port = listen.rpartition(":")
        return "\n".join(
            [
                f"ListenAddress {address or '0.0.0.0'}:{port}",
                f"HostKey {host_key}",
                "PasswordAuthentication yes",
                "KbdInteractiveAuthentication no",
                # PAM's session modules (pam_loginuid) need capabilities a container lacks;
                # sshd checks the password against /etc/shadow itself
                "UsePAM no",
                "PermitRootLogin no",
                "PrintMotd no",
                "PrintLastLog no",
                "Subsystem sftp internal-sftp",  # Ansible's file transfer
                "SetEnv PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                "AcceptEnv LANG LC_*",
                "",
            ]
        )

    def start_sshd(self, host_key: str, listen: str) -> subprocess.Popen[bytes]:
        config = self.path("/run/switch-sim/sshd_config")
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(self.sshd_config(host_key, listen))
        self.path("/run/sshd").mkdir(parents=True, exist_ok=True)  # privilege separation
        return subprocess.Popen(["/usr/sbin/sshd", "-D", "-e", "-f", str(config)])
