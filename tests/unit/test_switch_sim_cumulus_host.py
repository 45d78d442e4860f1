"""The Cumulus Linux simulator as a Debian host (lab/simulators/switch_sim/cumulus_host.py):
the switch's files on disk in step with the model (an edit of /etc/network/interfaces is the
model's local edit until `ifreload -a`; `net commit` / `nv config apply` write it again), the
tools as commands that run as the kernel says the caller is, through the command socket and
the `net`/`nv`/`ifreload` command itself. The lab runs it with real sshd, bash and sudo
(tests/lab/test_fabric_storage.py drives it with Ansible over plain SSH); here the host's /
is a temporary directory.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "lab" / "simulators"))
from switch_sim import cumulus, cumulus_host  # noqa: E402
from switch_sim.cumulus_ifupdown import INTERFACES, locally_modified  # noqa: E402
from switch_sim.cumulus_model import render_interfaces  # noqa: E402
from switch_sim.cumulus_nvue import FILES_WARNING  # noqa: E402
from switch_sim.state import SwitchState  # noqa: E402

BY_HAND = "# added by hand\nauto swp9\niface swp9\n    mtu 9000\n    alias by hand\n"


def make_host(tmp_path: Path, monkeypatch, release: str = "4.2.1") -> cumulus_host.LinuxHost:
    monkeypatch.setenv("CUMULUS_SIM_RELEASE", release)
    state = SwitchState(tmp_path / "state.json", cumulus.factory("sw1"))
    state.cabled_ports = frozenset({1, 9})
    host = cumulus_host.LinuxHost(
        state, cumulus.CumulusSession, {"admin": "pw"}, str(tmp_path / "root")
    )
    host.sync()
    return host


def never(prompt: str) -> str | None:
    raise AssertionError(f"asked: {prompt!r}")


def file(host: cumulus_host.LinuxHost, name: str) -> str:
    return host.path(name).read_text()


def test_the_switch_files_are_written_from_the_model(tmp_path, monkeypatch):
    host = make_host(tmp_path, monkeypatch)
    assert file(host, INTERFACES) == render_interfaces(host.state.running)
    assert file(host, "/etc/hostname") == "sw1\n"
    assert "DISTRIB_RELEASE=4.2.1" in file(host, "/etc/lsb-release")
    os_release = file(host, "/etc/os-release")  # what Ansible's distribution facts read
    assert 'NAME="Cumulus Linux"' in os_release and "\nVERSION_ID=4.2.1\n" in os_release
    assert file(host, "/etc/cumulus/ports.conf")


def test_an_edited_file_is_a_local_edit_until_ifreload_applies_it(tmp_path, monkeypatch):
    host = make_host(tmp_path, monkeypatch)
    before = json.dumps(host.state.running, sort_keys=True)
    text = render_interfaces(host.state.running) + BY_HAND
    host.path(INTERFACES).write_text(text)  # Ansible's template, tee, an editor
    host.sync()
    assert locally_modified(host.state) and file(host, INTERFACES) == text
    assert json.dumps(host.state.running, sort_keys=True) == before
    # not root: ifreload refuses, as ifupdown2 does
    assert host.run(["ifreload", "-a"], "admin", "admin", never) == (
        1, "", "must be root to run this command\n")  # fmt: skip
    assert host.run(["ifreload", "-s", "-a"], "root", "admin", never) == (0, "", "")
    assert "swp9" not in host.state.running["interfaces"]
    assert host.run(["ifreload", "-a"], "root", "admin", never) == (0, "", "")
    assert host.state.running["interfaces"]["swp9"]["alias"] == "by hand"
    assert file(host, INTERFACES) == text  # the file as written stays
    status, out, _ = host.run(["net", "show", "configuration", "commands"], "admin", "admin", never)
    assert status == 0 and "net add interface swp9 alias by hand" in out.splitlines()


def test_a_broken_file_is_refused_by_ifreload_and_changes_nothing(tmp_path, monkeypatch):
    host = make_host(tmp_path, monkeypatch)
    before = json.dumps(host.state.running, sort_keys=True)
    host.path(INTERFACES).write_text("auto swp1\niface swp1\n    bridge-stp on\n")
    status, out, err = host.run(["ifreload", "-a"], "root", "root", never)
    assert (status, out) == (1, "") and "unsupported keyword (bridge-stp)" in err
    assert json.dumps(host.state.running, sort_keys=True) == before


def test_nclu_runs_as_the_caller_and_commit_writes_the_files_again(tmp_path, monkeypatch):
    host = make_host(tmp_path, monkeypatch)
    host.path(INTERFACES).write_text("# never applied\n")
    status, _, err = host.run(
        ["net", "add", "interface", "swp1", "mtu", "9000"], "admin", "admin", never
    )
    assert status == 1 and "permission" in err.lower()  # admin is not in netedit
    host.state.running["netedit"].append("admin")
    assert (
        host.run(["net", "add", "interface", "swp1", "mtu", "9000"], "admin", "admin", never)[0]
        == 0
    )
    assert host.run(["net", "add", "hostname", "sw9"], "admin", "admin", never)[0] == 0
    assert file(host, "/etc/hostname") == "sw1\n"  # staged, not committed
    assert host.run(["net", "commit"], "admin", "admin", never)[0] == 0
    assert file(host, INTERFACES) == render_interfaces(host.state.running)
    assert "iface swp1\n    mtu 9000" in file(host, INTERFACES)
    assert file(host, "/etc/hostname") == "sw9\n"


def test_nv_asks_before_overwriting_a_local_edit_and_reads_the_answer(tmp_path, monkeypatch):
    host = make_host(tmp_path, monkeypatch, release="5.10.0")
    host.path(INTERFACES).write_text(render_interfaces(host.state.running) + BY_HAND)
    assert host.run(["ifreload", "-a"], "root", "admin", never) == (0, "", "")
    assert (
        host.run(
            ["nv", "set", "interface", "swp1", "link", "mtu", "9000"], "admin", "admin", never
        )[0]
        == 0
    )
    asked = []
    declined = host.run(
        ["nv", "config", "apply"], "admin", "admin", lambda p: asked.append(p) or "n"
    )
    assert "Declined apply after warnings" in declined[1] + declined[2]
    assert asked == [FILES_WARNING + "\nAre you sure? [y/N] "]
    assert "# added by hand" in file(host, INTERFACES)
    assert host.run(["nv", "config", "apply"], "admin", "admin", lambda p: "y") == (
        0, "applied [rev_id: 1]\n", "")  # fmt: skip
    text = file(host, INTERFACES)
    assert text == render_interfaces(host.state.running) and "# added by hand" not in text
    assert "iface swp1\n    mtu 9000" in text


def test_a_change_made_through_the_model_elsewhere_reaches_the_files(tmp_path, monkeypatch):
    """NVUE's REST API edits the model without a command: the next sync writes the files."""
    host = make_host(tmp_path, monkeypatch, release="5.10.0")
    session = cumulus.CumulusSession(host.state)
    session.execute("nv set system hostname sw7")
    session.execute("nv config apply -y")
    host.sync()
    assert file(host, "/etc/hostname") == "sw7\n"


def test_each_release_installs_its_own_tool(tmp_path, monkeypatch):
    for release, present, absent in (("4.2.1", "net", "nv"), ("5.10.0", "nv", "net")):
        host = make_host(tmp_path / release, monkeypatch, release=release)
        host.install_tools()
        assert host.path(f"/usr/bin/{present}").resolve() == cumulus_host.TOOL.resolve()
        assert not host.path(f"/usr/bin/{absent}").exists()
        assert host.path("/usr/sbin/ifreload").resolve() == cumulus_host.TOOL.resolve()


def test_a_netedit_membership_given_on_the_host_reaches_the_model(tmp_path, monkeypatch):
    host = make_host(tmp_path, monkeypatch)

    class Group:
        gr_mem = ["admin"]

    monkeypatch.setattr(cumulus_host.grp, "getgrnam", lambda name: Group)
    host.read_netedit()
    assert host.state.running["netedit"] == ["admin"] == host.state.startup["netedit"]
    assert (
        host.run(["net", "add", "interface", "swp1", "mtu", "9000"], "admin", "admin", never)[0]
        == 0
    )


@pytest.fixture
def served(tmp_path, monkeypatch):
    host = make_host(tmp_path, monkeypatch)
    sock = str(tmp_path / "cli.sock")
    host.serve(sock)
    links = tmp_path / "bin"
    links.mkdir()
    for name in ("net", "ifreload", "nonsense"):
        (links / name).symlink_to(cumulus_host.TOOL)
    yield host, links, sock
    host.stop()


def tool(links: Path, sock: str, *argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CUMULUS_SIM_SOCKET": sock}
    env.pop("SUDO_USER", None)
    return subprocess.run(
        [str(links / argv[0]), *argv[1:]],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
    )


def test_the_command_runs_on_the_model_as_the_kernel_says_the_caller_is(served):
    """The caller is whoever the socket's peer credentials name; this suite runs as root."""
    host, links, sock = served
    user = __import__("pwd").getpwuid(os.getuid()).pw_name
    done = tool(links, sock, "net", "add", "interface", "swp1", "mtu", "9000")
    if user == "root":
        assert done.returncode == 0, done
        assert tool(links, sock, "net", "commit").returncode == 0
        assert "iface swp1\n    mtu 9000" in file(host, INTERFACES)
    else:
        assert done.returncode == 1 and "permission" in done.stderr.lower()
    shown = tool(links, sock, "net", "show", "configuration", "commands")
    assert shown.returncode == 0 and "net add hostname sw1" in shown.stdout
    wrong = tool(links, sock, "net", "nonsense")
    assert wrong.returncode == 1 and wrong.stdout == "" and wrong.stderr
    unknown = tool(links, sock, "nonsense")
    assert unknown.returncode == 127


def test_the_command_says_so_when_the_service_is_down(tmp_path):
    (tmp_path / "net").symlink_to(cumulus_host.TOOL)
    done = tool(tmp_path, str(tmp_path / "absent.sock"), "net", "show", "version")
    assert done.returncode == 1 and "not running" in done.stderr


def test_sshd_serves_passwords_sftp_and_the_sbin_path(tmp_path, monkeypatch):
    config = make_host(tmp_path, monkeypatch).sshd_config(
        "/var/lib/switch-sim/host_key", "0.0.0.0:22"
    )
    lines = config.splitlines()
    for line in ("ListenAddress 0.0.0.0:22", "HostKey /var/lib/switch-sim/host_key",
                 "PasswordAuthentication yes", "Subsystem sftp internal-sftp"):  # fmt: skip
        assert line in lines
    assert any(line.startswith("SetEnv PATH=") and "/usr/sbin" in line for line in lines)
