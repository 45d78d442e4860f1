"""No secret value in a -vvv run of site.yml, nor in any file that run writes."""

from __future__ import annotations

from pathlib import Path

from conftest import ROOT, docker_host, lab_password, run_playbook

STATE = ROOT / "lab" / ".state"


def _written_files() -> list[Path]:
    """Reports, switch backups and the fact cache: what a run leaves on the control host."""
    places = [STATE / "reports", STATE / "backups", ROOT / ".cache" / "facts"]
    return [p for place in places if place.exists() for p in place.rglob("*") if p.is_file()]


def test_a_verbose_run_and_its_files_never_show_a_secret():
    secrets = {name: lab_password(name) for name in ("onefs", "switch", "registry")}
    # the cluster's munge key, which the slurm role makes on the head node
    secrets["munge"] = docker_host("lab-head").check_output("cat /etc/munge/munge.key")
    assert all(len(value) >= 16 for value in secrets.values())
    result = run_playbook("site.yml", "-vvv")
    assert result.returncode == 0, result.stdout[-2000:]
    output = result.stdout + result.stderr
    # it did run -vvv: every task's arguments are printed, the OneFS and switch ones too
    assert "lab-s5232" in output and "module_args:" in output and "filepool" in output
    assert "Write the cluster's munge key" in output  # its tasks ran, never showing it
    for name, value in secrets.items():
        assert value not in output, f"the {name} password appears in the -vvv output"
    files = _written_files()
    assert any(p.suffix == ".cfg" for p in files)  # switch backups exist to be checked
    for path in files:
        text = path.read_text(errors="replace")
        for name, value in secrets.items():
            assert value not in text, f"the {name} password appears in {path}"
