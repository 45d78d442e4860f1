"""library/host_state.py: what counts as a difference between a host and a role's intent."""

from __future__ import annotations

import grp
import hashlib
import importlib.util
import json
import os
import pwd
import subprocess
import sys
from pathlib import Path

import pytest
from ansible.module_utils.testing import patch_module_args

_PATH = Path(__file__).resolve().parents[2] / "library" / "host_state.py"
_SPEC = importlib.util.spec_from_file_location("host_state", _PATH)
host_state = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(host_state)

ME = pwd.getpwuid(os.getuid()).pw_name
MY_GROUP = grp.getgrgid(os.getgid()).gr_name


def _file(tmp_path: Path, content: str = "slurmctld=head\n", mode: int = 0o644) -> Path:
    path = tmp_path / "slurmd"
    path.write_text(content)
    path.chmod(mode)
    return path


def test_a_file_as_intended_has_no_difference(tmp_path):
    path = _file(tmp_path)
    spec = {"path": str(path), "content": "slurmctld=head\n", "owner": ME, "group": MY_GROUP,
            "mode": "0644"}  # fmt: skip
    assert host_state.file_differences(spec) == []


def test_content_owner_group_and_mode_each_differ(tmp_path):
    path = _file(tmp_path, "slurmctld=old\n", 0o600)
    spec = {"path": str(path), "content": "slurmctld=head\n", "owner": "nobody-here",
            "group": "nogroup-here", "mode": "0644"}  # fmt: skip
    assert host_state.file_differences(spec) == [
        f"{path}: content",
        f"{path}: owner",
        f"{path}: group",
        f"{path}: mode",
    ]


def test_a_hand_edit_of_one_byte_is_a_difference(tmp_path):
    path = _file(tmp_path, "slurmctld=head\n\n")  # a blank line added by hand
    assert host_state.file_differences({"path": str(path), "content": "slurmctld=head\n"}) == [
        f"{path}: content"
    ]


def test_a_secret_is_compared_by_its_checksum(tmp_path):
    path = _file(tmp_path, "key material")
    good = hashlib.sha1(b"key material").hexdigest()
    assert host_state.file_differences({"path": str(path), "checksum": good}) == []
    bad = hashlib.sha1(b"another key").hexdigest()
    assert host_state.file_differences({"path": str(path), "checksum": bad}) == [f"{path}: content"]


def test_missing_present_and_wrong_kinds(tmp_path):
    missing = tmp_path / "nowhere"
    assert host_state.file_differences({"path": str(missing)}) == [f"{missing}: missing"]
    assert host_state.file_differences({"path": str(missing), "state": "absent"}) == []
    path = _file(tmp_path)
    assert host_state.file_differences({"path": str(path), "state": "absent"}) == [
        f"{path}: present, wanted absent"
    ]
    assert host_state.file_differences({"path": str(path), "state": "directory"}) == [
        f"{path}: not a directory"
    ]
    mode = oct(tmp_path.stat().st_mode & 0o7777)
    assert (
        host_state.file_differences({"path": str(tmp_path), "state": "directory", "mode": mode})
        == []
    )


def test_a_link_is_compared_by_its_target_not_followed(tmp_path):
    link = tmp_path / "isilon"
    link.symlink_to("/mnt/isilon")
    here, elsewhere = "/mnt/isilon", "/ifs/data"
    assert host_state.file_differences({"path": str(link), "state": "link", "src": here}) == []
    assert host_state.file_differences({"path": str(link), "state": "link", "src": elsewhere}) == [
        f"{link}: points elsewhere"
    ]
    assert host_state.file_differences({"path": str(link)}) == [f"{link}: not a file"]


SHOWN = """Id=munge.service
ActiveState=active
UnitFileState=enabled

Id=slurmd.service
ActiveState=failed
UnitFileState=disabled

Id=systemd-journald.service
ActiveState=active
UnitFileState=static
"""


def test_systemctl_show_is_read_per_unit():
    shown = host_state.parse_systemctl_show(SHOWN)
    assert set(shown) == {"munge.service", "slurmd.service", "systemd-journald.service"}
    assert shown["slurmd.service"]["ActiveState"] == "failed"


def test_services_differ_by_state_and_by_enablement():
    shown = host_state.parse_systemctl_show(SHOWN)
    specs = [
        {"name": "munge", "state": "started", "enabled": True},
        {"name": "slurmd", "state": "started", "enabled": True},
        {"name": "systemd-journald.service", "state": "started", "enabled": True},
        {"name": "absent-unit", "state": "stopped", "enabled": False},
    ]
    assert host_state.service_differences(specs, shown) == [
        "slurmd: failed, wanted started",
        "slurmd: not enabled, wanted enabled",
    ]
    assert host_state.service_differences([{"name": "munge", "state": "stopped"}], shown) == [
        "munge: active, wanted stopped"
    ]


def test_a_unit_started_before_its_settings_changed_is_stale(tmp_path):
    """A run that wrote slurmd's settings and was interrupted before the restart: the
    file is as intended and slurmd active, on its old settings. Its start (monotonic
    clock) before the file's last change (wall clock) says so."""
    settings = _file(tmp_path)
    os.utime(settings, (1_000_000, 1_000_000))  # last changed at wall time 1,000,000
    wall, monotonic = 1_000_100.0, 500.0  # now: 100 s after the change, 500 s after boot
    shown = {
        # active since 50 s after boot: 450 s ago, before the change (100 s ago)
        "slurmd.service": {"ActiveState": "active", "ActiveEnterTimestampMonotonic": "50000000"},
        # restarted 10 s ago, after the change
        "munge.service": {"ActiveState": "active", "ActiveEnterTimestampMonotonic": "490000000"},
        # not running: its state is the difference, not its settings
        "slurmctld.service": {"ActiveState": "inactive", "ActiveEnterTimestampMonotonic": "0"},
    }
    specs = [
        {"name": "slurmd", "reads": [str(tmp_path / "gone"), str(settings)]},
        {"name": "munge", "reads": [str(settings)]},
        {"name": "slurmctld", "reads": [str(settings)]},
        {"name": "sshd.service", "reads": [str(settings)]},  # not shown: unknown, skipped
    ]
    assert host_state.stale_services(specs, shown, monotonic, wall) == [("slurmd", str(settings))]
    assert host_state.stale_services([{"name": "slurmd"}], shown, monotonic, wall) == []


def test_the_module_reads_only_and_says_what_differs(tmp_path, capsys):
    path = _file(tmp_path)
    args = {
        "files": [
            {"path": str(path), "content": "slurmctld=head\n"},
            {"path": str(tmp_path / "gone"), "state": "absent"},
            {"path": str(tmp_path / "new.conf"), "content": "x"},
        ],
        "_ansible_check_mode": True,
    }
    with patch_module_args(args), pytest.raises(SystemExit):
        host_state.main()
    result = json.loads(capsys.readouterr().out)
    assert result["changed"] is False
    assert result["differs"] is True
    assert result["differences"] == [f"{tmp_path / 'new.conf'}: missing"]
    assert path.read_text() == "slurmctld=head\n" and not (tmp_path / "new.conf").exists()


def test_the_action_plugin_renders_templates_and_reads_role_files_as_written(tmp_path):
    """host_state's controller side, run by ansible-playbook on this host: a template
    rendered with a loop's item and a role directory read as copy reads it compare equal
    to what template and copy wrote; a line added by hand, and they differ."""
    root = Path(__file__).resolve().parents[2]
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "motd.j2").write_text(
        "# {{ ansible_managed }} from {{ template_path | basename }}\n"
        "{% if item.name %}\n{{ item.name }} on {{ inventory_hostname }}\n{% endif %}\n"
        '{% include "motd.footer.j2" %}'
    )
    (tmp_path / "templates" / "motd.footer.j2").write_text("-- {{ template_destpath }}\n")
    (tmp_path / "files" / "notes").mkdir(parents=True)
    (tmp_path / "files" / "notes" / "a.txt").write_text("first\n")
    target, result = tmp_path / "target", tmp_path / "state.json"
    header = "- hosts: localhost\n  connection: local\n  gather_facts: false\n  tasks:\n"
    (tmp_path / "write.yml").write_text(
        header
        + f"    - ansible.builtin.file: {{path: '{target}', state: directory}}\n"
        + f"    - ansible.builtin.template: {{src: motd.j2, dest: '{target}/motd'}}\n"
        + "      vars: {item: {name: openmpi}}\n"
        + f"    - ansible.builtin.copy: {{src: notes/, dest: '{target}/notes/'}}\n"
    )
    (tmp_path / "read.yml").write_text(
        header
        + "    - host_state:\n        files:\n"
        + f"          - {{path: '{target}/motd', template: motd.j2,"
        + " template_vars: {item: {name: openmpi}}}\n"
        + f"          - {{path: '{target}/notes/', source: notes/}}\n"
        + "      register: state\n"
        + "    - ansible.builtin.copy: {content: '{{ state | to_json }}',"
        + f" dest: '{result}'}}\n"
    )
    env = {**os.environ, "ANSIBLE_CONFIG": str(root / "ansible.cfg"), "ANSIBLE_NOCOLOR": "1"}

    def play(name: str) -> None:
        done = subprocess.run(
            [str(Path(sys.executable).parent / "ansible-playbook"), str(tmp_path / name)],
            cwd=root, env=env, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]

    play("write.yml")
    play("read.yml")
    assert json.loads(result.read_text())["differs"] is False
    with open(target / "notes" / "a.txt", "a") as handle:
        handle.write("a line added by hand\n")
    play("read.yml")
    assert json.loads(result.read_text())["differences"] == [f"{target}/notes/a.txt: content"]
