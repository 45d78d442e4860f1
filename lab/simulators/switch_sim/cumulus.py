"""NVIDIA SN3700 running Cumulus Linux: its bash login shell (the device model is
cumulus_model.py).

One model serves two releases: Cumulus Linux 4.x configures the switch with NCLU (`net
...`, cumulus_nclu.py) and 5.x with NVUE (`nv ...`, cumulus_nvue.py); the other tool is
absent from the shell. Both edit the same configuration (ports, bridge, bonds, SVIs,
hostname) kept in the switch state; each keeps its own staging (NCLU's pending commands,
NVUE's pending revision) in the state's volatile part, so a restart discards it.

The switch is also a Debian host, managed the Linux way [4.2 interfaces guide]: an admin
writes /etc/network/interfaces (`ssh cumulus@sw "sudo -S tee /etc/network/interfaces" <
file`, the password on the first line of the input, as sudo -S reads it) and applies it
with `sudo ifreload -a` (`-s` checks only); NCLU and NVUE read what ifreload applied and
write the file again on `net commit` / `nv config apply` (cumulus_ifupdown.py). Commands of
the shell: SHELL_COMMANDS plus the configuration tool; one command per line, no pipes.
This modelled bash is what the simulator's own SSH server offers (the in-process tests);
the lab runs the switch as a Debian host instead, with real sshd, bash and sudo, where this
session only runs the `net`/`nv`/`ifreload` lines (cumulus_host.py).

Sources (named in brackets here and in cumulus_nclu.py / cumulus_nvue.py): the Cumulus
Linux user guides, github CumulusNetworks/docs (published under
docs.nvidia.com/networking-ethernet-software/):
- 4.2 NCLU guide: cumulus-linux-42 "Network Command Line Utility - NCLU";
- 4.2 quick start: cumulus-linux-42 "Quick Start Guide";
- 4.2 / 5.10 port attributes: "Switch Port Attributes" of cumulus-linux-42 / -510;
- 4.2 bonding: cumulus-linux-42 "Bonding - Link Aggregation";
- bridge guides: the 3.x-4.x "VLAN-aware Bridge Mode" and "Ethernet Bridging" pages;
- NVUE CLI guide / NVUE API guide: cumulus-linux-510 "NVUE CLI" / "NVUE API";
- 5.10 bridge guide: cumulus-linux-510 "VLAN-aware Bridge Mode";
- NVUE reference: nvue-reference "Config Commands";
- mgmt VRF guide: the "Management VRF" pages (4.x: on by default);
- 4.2 interfaces guide: cumulus-linux-42 "Interface Configuration and Management";
- sudo(8) / tee(1): the manual pages of sudo 1.8 (Debian 10) and GNU coreutils;
and netmiko (github ktbyers/netmiko 4.6.0, netmiko/cumulus/cumulus_linux_ssh.py),
generic-switch (github openstack/networking-generic-switch,
devices/netmiko_devices/cumulus.py), NCLU transcripts / NVUE transcripts (public 3rd-party
transcripts: NCLU sessions of 2019-2021; `nv config show -o commands` output), and seed
002 (Cumulus Linux 4.2.1, NCLU 1.0-cl4.2.1u1, SN3700). What no source shows is marked
"unverified".
"""

from __future__ import annotations

import shlex
from typing import Any, BinaryIO

from . import cumulus_ifupdown as ifupdown
from . import cumulus_model as model
from .cumulus_model import is_nvue, lsb_release, render_ports_conf, uname
from .cumulus_nclu import NCLU
from .cumulus_nvue import NVUE
from .state import SessionEnd, SwitchState

# what server.py reads of a platform module
DEFAULT_HOSTNAME = model.DEFAULT_HOSTNAME
factory = model.factory

# Commands of the shell besides the configuration tool (`net` or `nv`)
SHELL_COMMANDS = ("hostname", "whoami", "uname", "cat", "adduser", "sudo", "tee", "ifreload")
# How the errors of the shell, sudo, tee, adduser and ifreload start: a line answered so
# failed (the tools' own errors: their failed()).
ERRORS = ("-bash:", "sudo:", "Sorry, try again.", "adduser:", "tee:", *ifupdown.FAILURES)


# ---- the login shell --------------------------------------------------------------------


class CumulusSession:
    """A bash login on the switch: the user's shell, `sudo -s` for root, then `net` or `nv`.

    Without login() (the model driven in-process, or the first-boot console) the session
    is root's console login.
    """

    platform = "cumulus"

    def __init__(self, state: SwitchState):
        self.state = state
        self.shells = ["root"]  # user of each nested shell: login, then `sudo -s`
        self.password = ""
        self.sudo_cached = False  # sudo asks once per terminal, then caches [sudo(8)]
        self.awaiting: str | None = None  # the command waiting for the sudo password
        self.sudo_tries = 0
        self.confirm: Any = None  # NVUE's `Are you sure? [y/N]` continuation
        self.stdin: BinaryIO | None = None  # an exec request's input, while a line runs
        self.tool: NCLU | NVUE = NVUE(self) if is_nvue(state.running) else NCLU(self)

    # -- login and prompt ------------------------------------------------------------------

    def login(self, username: str, password: str = "") -> None:
        """The SSH user's login shell; the password is what sudo asks for again."""
        self.shells = [username]
        self.password = password

    @property
    def user(self) -> str:
        return self.shells[-1]

    @property
    def login_user(self) -> str:
        return self.shells[0]

    @property
    def echo(self) -> bool:
        """sudo reads the password without echo."""
        return self.awaiting is None

    @property
    def in_config(self) -> bool:
        """netmiko's "config mode" is a root shell (`#`) [netmiko]."""
        return self.user == "root"

    @property
    def REJECTED(self) -> str:
        return self.tool.REJECTED

    def prompt(self) -> str:
        """`cumulus@leaf01:mgmt:~$ ` (logins land in the mgmt VRF [mgmt VRF
        guide, NCLU transcripts]); root `# `.

        The root prompt after `sudo -s` keeps the login's directory; its exact text
        (`~` or `/home/<user>`) is **unverified**: only the trailing `# ` matters to clients.
        """
        if self.awaiting is not None:
            return f"[sudo] password for {self.login_user}: "
        if self.confirm is not None:
            return self.confirm.prompt
        host = self.state.running["hostname"]
        return f"{self.user}@{host}:mgmt:~{'#' if self.user == 'root' else '$'} "

    def refused(self, output: str) -> bool:
        """Whether a line's output is an error of the shell, sudo, `net` or `nv`: what a
        first-boot loader should stop on (this platform's errors do not start with `%`)."""
        return output.startswith(ERRORS) or self.tool.failed(output)

    # -- SSH exec (`ssh cumulus@leaf01 "nv show interface"`, Ansible's raw) ---------------

    EXEC_ERRORS_ON_STDERR = True  # bash's, sudo's and the tools' errors go to stderr
    # sudo(8) without a terminal to read the password from (an exec channel)
    NO_TERMINAL = (
        "sudo: a terminal is required to read the password; either use the -S option to"
        " read from standard input or configure an askpass helper"
    )

    def execute_input(self, line: str, stdin: BinaryIO) -> str:
        """execute() on an exec channel, whose standard input the line's command may read:
        `sudo -S` a password line, `tee` everything up to the client's EOF."""
        self.stdin = stdin
        try:
            return self.execute(line)
        finally:
            self.stdin = None

    def exec_lines(self, command: str) -> list[str]:
        """The command as bash -c runs it: one command line (the simulator's shell does
        not emulate `;`, `&&` or pipes)."""
        return [command]

    def exec_status(self, line: str, output: str) -> int:
        """bash's exit status: 127 for a command it does not find, 1 for another error
        (the tools' own codes are unverified), 0 otherwise."""
        if output.startswith("-bash:") and output.endswith("command not found"):
            return 127
        return 1 if self.refused(output) else 0

    def counts_as_config(self, line: str, output: str) -> bool:
        """Accepted `net add|del` / `nv set|unset` lines, for the dropped-session fault."""
        words = line.split()
        if words[:1] == ["sudo"]:
            words = words[1:]
        return self.tool.changes_config(words) and not self.tool.failed(output)

    # -- dispatch --------------------------------------------------------------------------

    def execute(self, line: str) -> str:
        """Run one command line as bash would; returns what it prints."""
        if self.awaiting is not None:
            return self._sudo_password(line)
        if self.confirm is not None:
            answer, self.confirm = line.strip(), None
            return self.tool.confirmed(answer)
        try:
            words = shlex.split(line)
        except ValueError:
            return "-bash: unexpected EOF while looking for matching quote"
        if not words:
            return ""
        return self.run(words)

    def run(self, words: list[str]) -> str:
        command = words[0]
        if command in ("exit", "logout"):
            self.shells.pop()
            if not self.shells:
                raise SessionEnd
            return ""
        if command == "sudo":
            return self._sudo(words[1:])
        handler = {
            "hostname": lambda: self.state.running["hostname"],
            "whoami": lambda: self.user,
            "uname": lambda: self._uname(words[1:]),
            "cat": lambda: self._cat(words[1:]),
            "adduser": lambda: self._adduser(words[1:]),
            "tee": lambda: self._tee(words[1:]),
            "ifreload": lambda: ifupdown.ifreload(self.state, words[1:], self.user == "root"),
        }.get(command)
        if handler:
            return handler()
        if command == self.tool.name:
            return self.tool.run(words[1:])
        return f"-bash: {command}: command not found"

    def _uname(self, args: list[str]) -> str:
        if args == ["-a"]:
            return uname(self.state.running)
        if not args or args == ["-s"]:
            return "Linux"
        if args == ["-n"]:
            return self.state.running["hostname"]
        return f"uname: invalid option -- '{args[0].lstrip('-')[:1]}'"

    def _cat(self, paths: list[str]) -> str:
        """The files an admin reads to check what NCLU or NVUE wrote."""
        config = self.state.running
        files = {
            "/etc/lsb-release": lambda: lsb_release(config),
            "/etc/hostname": lambda: config["hostname"],
            ifupdown.INTERFACES: lambda: ifupdown.interfaces_text(self.state),
            "/etc/cumulus/ports.conf": lambda: render_ports_conf(config),
        }
        outputs = []
        for path in paths:
            reader = files.get(path)
            outputs.append(reader() if reader else f"cat: {path}: No such file or directory")
        return "\n".join(outputs)

    def _tee(self, args: list[str]) -> str:
        """`tee [-a] FILE...` copies its input to each file and to its output [tee(1)]; the
        one file modelled is /etc/network/interfaces, root's to write (a local edit until
        `ifreload -a`). Where tee fails for a file, only its error is shown here (tee would
        also copy the input to its output). The input is an exec request's: a terminal's,
        up to Ctrl-D, is not modelled."""
        append = any(a in ("-a", "--append") for a in args)
        paths = [a for a in args if a not in ("-a", "--append")]
        option = next((p for p in paths if p.startswith("-") and p != "-"), None)
        if option:
            return f"tee: invalid option -- '{option.lstrip('-')[:1]}'"  # GNU tee's wording
        if self.stdin is None:
            return "-bash: tee: reading the terminal is not modelled (send the file as input)"
        data = self.stdin.read().decode(errors="replace")
        for path in paths:
            if path != ifupdown.INTERFACES:
                return f"tee: {path}: not modelled by this simulator"
            if self.user != "root":
                return f"tee: {path}: Permission denied"
            old = ifupdown.interfaces_text(self.state) if append else ""
            ifupdown.write_interfaces(self.state, old + data)
        return data

    def _adduser(self, args: list[str]) -> str:
        """`adduser USER netedit`: the way the 4.2 NCLU guide gives a user edit rights (group
        netedit in netd.conf). /etc/group is written at once, so the membership survives a
        restart without `net commit`. Messages are Debian adduser's."""
        if self.user != "root":
            return "adduser: Only root may add a user or group to the system."
        if len(args) != 2 or args[1] != "netedit":
            return "adduser: Only the netedit group is modelled on this switch."  # model limit
        user = args[0]
        with self.state.lock:
            for config in (self.state.running, self.state.startup):
                if user not in config["netedit"]:
                    config["netedit"].append(user)
            if self.state.running == self.state.startup:
                self.state.save()
        return (
            f"Adding user `{user}' to group `netedit' ...\n"
            f"Adding user {user} to group netedit\nDone."
        )

    # -- sudo ------------------------------------------------------------------------------

    def _sudo(self, args: list[str]) -> str:
        """`sudo -s` opens a root shell, `sudo CMD` runs one command as root; either asks
        for the login password first (`[sudo] password for <user>: `, netmiko waits for
        `ssword` [netmiko]) unless already root or cached. Every lab account may sudo, as the
        factory `cumulus` account does [4.2 quick start]. `sudo -S` reads the password from
        the standard input instead, one line [sudo(8)]: on an exec channel that is the
        request's input; in the interactive shell it is the terminal, as without -S."""
        read_password = args[:1] == ["-S"]
        args = args[1:] if read_password else args
        if not args:
            return "usage: sudo -h | -K | -k | -V"
        if self.user == "root" or self.sudo_cached:
            return self._as_root(args)
        if read_password and self.stdin is not None:
            return self._sudo_stdin(args)
        self.awaiting = " ".join(shlex.quote(a) for a in args)
        self.sudo_tries = 0
        return ""

    def _sudo_stdin(self, args: list[str]) -> str:
        """`sudo -S`: a password per input line, three tries [sudo(8)]. sudo writes its
        prompt and `Sorry, try again.` to stderr; once a password is right, the line's one
        output here holds only the command's. The lines when the input ends first are sudo
        1.8's (**unverified**)."""
        assert self.stdin is not None
        wrong = 0
        while wrong < 3:  # sudo's default passwd_tries
            line = self.stdin.readline()
            if not line:
                break
            if line.decode(errors="replace").rstrip("\r\n") == self.password:
                self.sudo_cached = True
                return self._as_root(args)
            wrong += 1
        if wrong == 3:
            return "Sorry, try again.\nSorry, try again.\nsudo: 3 incorrect password attempts"
        said = ["Sorry, try again."] * wrong + ["sudo: no password was provided"]
        if wrong:
            said.append(f"sudo: {wrong} incorrect password attempt{'s' if wrong > 1 else ''}")
        return "\n".join(said)

    def _sudo_password(self, password: str) -> str:
        command = self.awaiting or ""
        if password != self.password:
            self.sudo_tries += 1
            if self.sudo_tries >= 3:  # sudo's default passwd_tries
                self.awaiting = None
                return "Sorry, try again.\nsudo: 3 incorrect password attempts"
            return "Sorry, try again."
        self.awaiting = None
        self.sudo_cached = True
        return self._as_root(shlex.split(command))

    def _as_root(self, args: list[str]) -> str:
        if args in (["-s"], ["-i"], ["su"], ["bash"]):
            self.shells.append("root")
            return ""
        if args[0] not in SHELL_COMMANDS and args[0] != self.tool.name:
            return f"sudo: {args[0]}: command not found"  # sudo's own wording for a builtin too
        self.shells.append("root")
        try:
            return self.run(args)
        finally:
            if self.shells and self.shells[-1] == "root" and len(self.shells) > 1:
                self.shells.pop()
