"""The NGC containers on the lab's compute nodes (roles/ngc_container)."""

from __future__ import annotations

import json

from conftest import docker_host, run_playbook

IMAGE = "lab-registry:5000/dlcluster/tensorflow:19.03-py3-ssh"

# Scans every layer of an image for key material: sshd host keys, client keys, PEM blocks.
# The layers are those manifest.json names, whatever `docker save` wrote: the legacy
# `<id>/layer.tar` layout or the OCI one (`blobs/sha256/<digest>`, maybe compressed).
LAYER_SCAN = r"""
import io, json, sys, tarfile
outer = tarfile.open(sys.argv[1])
manifest = json.load(outer.extractfile("manifest.json"))
layers = [path for image in manifest for path in image["Layers"]]
found = []
for path in layers:
    layer = tarfile.open(fileobj=io.BytesIO(outer.extractfile(path).read()), mode="r:*")
    for entry in layer.getmembers():
        name = entry.name.rsplit("/", 1)[-1]
        if name.startswith("ssh_host_") or name in ("id_rsa", "id_ed25519", "id_ecdsa"):
            found.append(entry.name)
        elif entry.isfile() and entry.size < 1 << 20:
            data = layer.extractfile(entry).read()
            if b"PRIVATE KEY-----" in data and not entry.name.startswith("usr/"):
                found.append(entry.name)
print(json.dumps({"layers": len(layers), "found": found}))
"""


def _inspect(host) -> dict:
    return json.loads(host.check_output("docker inspect tf"))[0]


def test_one_container_per_server_with_the_papers_settings(compute_name):
    info = _inspect(docker_host(compute_name))
    config = info["HostConfig"]
    assert info["State"]["Running"]
    assert info["Config"]["Image"] == IMAGE
    assert config["NetworkMode"] == "host"
    assert config["ShmSize"] == 1024**3
    assert {u["Name"]: u["Hard"] for u in config["Ulimits"]} == {
        "memlock": 8 * 1024 * 1024,  # the lab's cap; real sites get -1
        "stack": 67108864,
    }
    assert config["Privileged"] is False
    assert config["RestartPolicy"]["Name"] == "unless-stopped"
    binds = set(config["Binds"])
    assert "/mnt:/mnt:rw" in binds
    assert "/etc/dlcluster:/etc/dlcluster:ro" in binds
    # round_robin_mpi.py finds the host's data mount list through the config dir's path
    assert "DLCLUSTER_DATA_MOUNTS=/etc/dlcluster/data_mounts" in info["Config"]["Env"]


def test_sshd_listens_on_2222_with_keys_only(compute_name):
    host = docker_host(compute_name)
    settings = host.check_output("docker exec tf /usr/sbin/sshd -T").splitlines()
    assert "port 2222" in settings
    assert "passwordauthentication no" in settings
    assert "hostkey /etc/dlcluster/ngc/ssh_host_ed25519_key" in settings
    assert host.socket("tcp://0.0.0.0:2222").is_listening


def test_keys_are_private_on_the_host_and_pinned(compute_name, lab_groups):
    host = docker_host(compute_name)
    for name in ("id_ed25519", "ssh_host_ed25519_key"):
        key = host.file(f"/etc/dlcluster/ngc/{name}")
        assert key.mode == 0o600 and key.user == "root", name
    known = host.file("/etc/dlcluster/ngc/known_hosts").content_string
    for peer, hvars in lab_groups["compute"].items():
        assert f"[{peer}]:2222,[{hvars['lab_data_address']}]:2222 ssh-ed25519 " in known


def test_no_key_material_in_any_image_layer():
    host = docker_host("lab-compute-1")
    host.check_output(f"docker save {IMAGE} -o /tmp/ngc-image.tar")
    try:
        script = LAYER_SCAN.replace("'", "'\\''")
        scan = host.run(f"python3 -c '{script}' /tmp/ngc-image.tar")
        assert scan.rc == 0, scan.stderr
        result = json.loads(scan.stdout)
        # the image is FROM a base image plus the role's own steps: several layers read
        assert result["layers"] >= 2, result
        assert result["found"] == []
    finally:
        host.run("rm -f /tmp/ngc-image.tar")


def test_ssh_between_containers_checks_host_keys(lab_groups):
    host = docker_host("lab-compute-1")
    result = host.run("docker exec tf ssh lab-compute-2 hostname")
    assert result.rc == 0 and result.stdout.strip() == "lab-compute-2", result.stderr
    # A host whose key is not pinned is refused rather than trusted on first use.
    unknown = host.run("docker exec tf ssh -o HostKeyAlias=stranger lab-compute-2 true")
    assert unknown.rc != 0
    assert (
        "No ED25519 host key is known" in unknown.stderr or "verification failed" in unknown.stderr
    )


def test_mpirun_spans_every_server(lab_groups):
    hosts = sorted(lab_groups["compute"])
    result = docker_host(hosts[0]).run(
        f"docker exec tf mpirun --allow-run-as-root -np {len(hosts)} -H {','.join(hosts)} "
        "--map-by node --mca oob_tcp_if_exclude lo,docker0 --mca btl_tcp_if_exclude lo,docker0 "
        "hostname"
    )
    assert result.rc == 0, result.stderr
    assert sorted(result.stdout.split()) == hosts


def test_launcher_in_the_container_picks_this_hosts_mounts(compute_name):
    host = docker_host(compute_name)
    printed = host.check_output(
        "docker exec -e OMPI_COMM_WORLD_RANK=5 tf round_robin_mpi.py --print "
        "--path data/imagenet-scratch/tfrecords -- python3 train.py"
    )
    assert printed == "python3 train.py --data_dir=/mnt/isilon2/data/imagenet-scratch/tfrecords"


def test_changing_the_image_tag_recreates_the_containers(lab_groups):
    hosts = sorted(lab_groups["compute"])
    before = {h: _inspect(docker_host(h))["Id"] for h in hosts}
    changed = run_playbook(
        "playbooks/containers.yml", "-e", "ngc_container_image_tag=19.03-py3-ssh-retag"
    )
    try:
        assert changed.returncode == 0, changed.stdout[-3000:]
        for h in hosts:
            info = _inspect(docker_host(h))
            assert info["Config"]["Image"].endswith(":19.03-py3-ssh-retag")
            assert info["Id"] != before[h]
    finally:
        restored = run_playbook("playbooks/containers.yml")
        assert restored.returncode == 0, restored.stdout[-3000:]
    for h in hosts:
        assert _inspect(docker_host(h))["Config"]["Image"] == IMAGE
