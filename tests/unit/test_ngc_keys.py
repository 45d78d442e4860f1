"""The ngc_container role's SSH keys and client files (roles/ngc_container/tasks/keys.yml),
run on this machine as a one-server inventory whose directories are temporary ones."""

from __future__ import annotations

import json
from pathlib import Path

from playbook import ROOT, local_host, run_playbook

PLAYBOOK = ROOT / "tests" / "unit" / "playbooks" / "ngc_keys.yml"
FILES = ["authorized_keys", "id_ed25519", "known_hosts", "ssh_config", "ssh_host_ed25519_key"]


def _run(tmp_path: Path) -> tuple[int, str]:
    inventory = tmp_path / "inventory.json"
    server = local_host(cluster_data_address="10.0.0.1")
    inventory.write_text(
        json.dumps({"all": {"children": {"compute": {"hosts": {"gpu-1": server}}}}})
    )
    variables = {
        "ngc_container_host_dir": str(tmp_path / "server" / "ngc"),
        "ngc_container_key_dir": str(tmp_path / "control" / "ngc-ssh"),
    }
    result = run_playbook(inventory, PLAYBOOK, variables)
    return result.returncode, result.stdout + result.stderr


def test_a_directory_docker_made_where_a_file_belongs_is_replaced(tmp_path):
    """A container started before its files existed: Docker made its bind-mount source
    ssh_config an empty directory. The run replaces it with the file (and so the
    container's keys change, which restarts it); the next run reads and changes nothing."""
    host_dir = tmp_path / "server" / "ngc"
    (host_dir / "ssh_config").mkdir(parents=True)
    rc, output = _run(tmp_path)
    assert rc == 0, output[-3000:]
    assert "ssh_config: not a file" in output  # named by the read, removed by the apply
    assert set(FILES) <= {p.name for p in host_dir.iterdir() if p.is_file()}
    assert "Host " in (host_dir / "ssh_config").read_text()
    rc, output = _run(tmp_path)
    assert rc == 0, output[-3000:]
    assert "changed=0" in output and "Remove the directories" not in output, output[-3000:]
