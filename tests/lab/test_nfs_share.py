"""The head node's NFS share on the lab (seed 004 §2.1): RAID 50 plan, XFS geometry, exports.

The lab plans the RAID 50 volume over twelve disk names and proves the XFS geometry on an
image file (no md arrays or loop devices on this kernel); nfs-ganesha serves /srv/nfs/home
and /srv/nfs/shared from the head node's data address to the compute nodes only. The
compute nodes' kernel has no NFS client, so their mounts are fstab lines and the exports
are read and written with the user-space client (libnfs-utils: nfs-ls, nfs-cat, nfs-cp).
"""

from __future__ import annotations

import json
import shlex
import uuid

import pytest
from conftest import docker_host, load_lab_groups, run_playbook

HEAD = sorted(load_lab_groups()["head"])[0]
HEAD_ADDRESS = load_lab_groups()["head"][HEAD]["lab_data_address"]
EXPORTS = {"home": "/home", "shared": "/cm/shared"}
IMAGE = "/var/lib/dlcluster/nfs_share-geometry.img"
GEOMETRY = "xfs_db -r -c 'sb 0' -c 'print blocksize unit width' " + IMAGE


def _run_share(**extra_vars):
    """The head node's share play alone (storage.yml, tag nfs_share), with extra vars."""
    extra = ["-e", json.dumps(extra_vars)] if extra_vars else []
    return run_playbook("playbooks/storage.yml", "--tags", "nfs_share", "--limit", HEAD, *extra)


def _geometry(host) -> dict[str, int]:
    out = host.check_output(GEOMETRY)
    values = dict(line.replace(" ", "").split("=") for line in out.splitlines() if "=" in line)
    return {key: int(value) for key, value in values.items()}


def test_the_image_has_the_raid_50_stripe_geometry():
    """Twelve disks in two RAID 5 spans of six, 512 KiB chunks: su=512k, sw=10."""
    geometry = _geometry(docker_host(HEAD))
    assert geometry["unit"] * geometry["blocksize"] == 512 * 1024
    assert geometry["width"] == 10 * geometry["unit"]


def test_ganesha_exports_home_and_shared_to_the_compute_nodes_only():
    head = docker_host(HEAD)
    assert head.service("nfs-ganesha").is_running
    conf = head.file("/etc/ganesha/ganesha.conf").content_string
    clients = sorted(h["lab_data_address"] for h in load_lab_groups()["compute"].values())
    assert conf.count(f"Clients = {', '.join(clients)};") == 2
    for name in EXPORTS:
        assert f"Path = /srv/nfs/{name};" in conf


def test_the_head_node_sees_the_exports_where_the_compute_nodes_mount_them():
    head = docker_host(HEAD)
    for name, mount_point in EXPORTS.items():
        assert head.file(f"/srv/nfs/{name}").is_directory
        # A bind mount: the same directory, so a file written at one place is at the other.
        marker = f"{mount_point}/.bind-{uuid.uuid4().hex}"
        head.check_output(f"touch {marker}")
        try:
            assert head.file(f"/srv/nfs/{name}/{marker.rsplit('/', 1)[1]}").exists
        finally:
            head.check_output(f"rm -f {marker}")
        assert mount_point in head.check_output(f"findmnt -n -o TARGET --mountpoint {mount_point}")


def test_compute_nodes_have_the_mounts_in_fstab(compute_name):
    fstab = docker_host(compute_name).file("/etc/fstab").content_string
    for name, mount_point in EXPORTS.items():
        line = f"{HEAD_ADDRESS}:/srv/nfs/{name} {mount_point} nfs "
        assert line in fstab, fstab
    assert "hard" in fstab and "_netdev" in fstab


def test_a_file_written_on_the_head_node_reads_the_same_on_every_compute_node():
    head = docker_host(HEAD)
    name = f"dlcluster-share-{uuid.uuid4().hex}"
    text = f"seed 004 shared data {name}"
    head.check_output(f"printf %s {shlex.quote(text)} > /home/{name}")
    try:
        for compute in sorted(load_lab_groups()["compute"]):
            out = docker_host(compute).check_output(
                f"nfs-cat nfs://{HEAD_ADDRESS}/srv/nfs/home/{name}"
            )
            assert out == text, compute
    finally:
        head.check_output(f"rm -f /home/{name}")


def test_a_compute_node_writes_to_shared_as_root_without_squashing():
    compute = docker_host("lab-compute-1")
    head = docker_host(HEAD)
    name = f"dlcluster-write-{uuid.uuid4().hex}"
    compute.check_output(f"echo written-by-compute > /tmp/{name}")
    try:
        compute.check_output(f"nfs-cp /tmp/{name} nfs://{HEAD_ADDRESS}/srv/nfs/shared/{name}")
        written = head.file(f"/cm/shared/{name}")
        assert written.content_string == "written-by-compute\n"
        assert written.user == "root"  # no_root_squash: the cluster's root stays root
    finally:
        head.check_output(f"rm -f /srv/nfs/shared/{name}")
        compute.check_output(f"rm -f /tmp/{name}")


def test_a_host_that_is_not_a_client_is_refused():
    """The head node's own data address is not among the clients: ganesha refuses it."""
    head = docker_host(HEAD)
    # The user-space client is not part of the server's packages; the test brings it.
    head.check_output(
        "command -v nfs-ls || DEBIAN_FRONTEND=noninteractive apt-get install -y libnfs-utils"
    )
    refused = head.run(f"nfs-ls nfs://{HEAD_ADDRESS}/srv/nfs/home")
    assert refused.rc != 0, refused.stdout
    allowed = docker_host("lab-compute-1").run(f"nfs-ls nfs://{HEAD_ADDRESS}/srv/nfs/home")
    assert allowed.rc == 0, allowed.stderr


@pytest.fixture
def restore_share():
    yield
    result = _run_share()
    assert result.returncode == 0, result.stdout[-3000:]


def test_a_changed_raid_plan_remakes_the_image_and_a_bad_one_touches_nothing(restore_share):
    head = docker_host(HEAD)
    raid = {
        "method": "md",
        "level": 50,
        "spans": 2,
        "chunk_kib": 256,
        "devices": [f"/dev/disk/by-id/lab-nl-sas-{i}" for i in range(1, 13)],
    }
    result = _run_share(nfs_share_raid=raid)
    assert result.returncode == 0, result.stdout[-3000:]
    geometry = _geometry(head)
    assert geometry["unit"] * geometry["blocksize"] == 256 * 1024
    assert geometry["width"] == 10 * geometry["unit"]

    # Eleven disks do not split into two spans: preflight stops the run before any play.
    before = head.check_output(f"stat -c %Y {IMAGE}")
    bad = {**raid, "devices": raid["devices"][:11]}
    result = run_playbook(
        "site.yml", "--limit", f"{HEAD},localhost", "-e", json.dumps({"nfs_share_raid": bad})
    )
    assert result.returncode != 0
    assert "Inventory problems (nothing was changed)" in result.stdout
    assert "11 disks do not split into 2 equal spans" in result.stdout
    assert "Serve the head node's NFS share" not in result.stdout
    assert head.check_output(f"stat -c %Y {IMAGE}") == before


def test_an_export_whose_mount_point_holds_files_is_refused_before_any_change():
    """Binding a new export over a directory with files would hide them: the run stops
    before it writes anything (no export directory, ganesha.conf as it was)."""
    head = docker_host(HEAD)
    head.check_output("mkdir -p /opt/scratch && echo keep > /opt/scratch/results.txt")
    conf_before = head.file("/etc/ganesha/ganesha.conf").content_string
    exports = [
        {"name": "home", "mount_point": "/home"},
        {"name": "shared", "mount_point": "/cm/shared"},
        {"name": "scratch", "mount_point": "/opt/scratch"},
    ]
    try:
        result = _run_share(nfs_share_exports=exports)
        assert result.returncode != 0
        assert "would hide 1 file(s) under /opt/scratch" in " ".join(result.stdout.split())
        assert not head.file("/srv/nfs/scratch").exists
        assert head.file("/etc/ganesha/ganesha.conf").content_string == conf_before
        assert head.file("/opt/scratch/results.txt").content_string == "keep\n"
    finally:
        head.check_output("rm -rf /opt/scratch")
