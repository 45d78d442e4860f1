"""The compute nodes are in the state site.yml promises."""

from __future__ import annotations

import yaml
from conftest import docker_host

BASE_PACKAGES = [
    "ca-certificates",
    "curl",
    "ethtool",
    "iproute2",
    "iputils-ping",
    "numactl",
    "pciutils",
    "rsync",
]


def test_systemd_runs_without_failed_units(compute_name):
    host = docker_host(compute_name)
    state = host.run("systemctl is-system-running").stdout.strip()
    failed = host.run("systemctl --failed --no-legend --plain").stdout.strip()
    assert state == "running", f"{compute_name}: systemd is {state!r}; failed units: {failed}"


def test_sshd_is_running_with_key_only_login(compute_name):
    host = docker_host(compute_name)
    assert host.service("ssh").is_running
    config = host.run("sshd -T").stdout
    assert "passwordauthentication no" in config
    assert "permitrootlogin without-password" in config


def test_base_packages_are_installed(compute_name):
    host = docker_host(compute_name)
    missing = [name for name in BASE_PACKAGES if not host.package(name).is_installed]
    assert not missing, f"{compute_name}: missing packages {missing}"


def test_cluster_identity_file_names_this_host(compute_name, lab_groups):
    host = docker_host(compute_name)
    identity = host.file("/etc/dlcluster/cluster.yml")
    assert identity.exists and identity.user == "root" and identity.mode == 0o644
    data = yaml.safe_load(identity.content_string)
    assert data["host"] == compute_name
    assert data["data_address"] == lab_groups["compute"][compute_name]["lab_data_address"]
    assert data["data_mtu"] == 9000
    assert "compute" in data["groups"]


def test_data_interface_has_its_address_at_mtu_9000(compute_name, lab_groups):
    host = docker_host(compute_name)
    address = lab_groups["compute"][compute_name]["lab_data_address"]
    shown = host.run("ip -o -4 addr show").stdout
    line = next((entry for entry in shown.splitlines() if f" {address}/" in entry), None)
    assert line, f"{compute_name}: no interface holds {address}:\n{shown}"
    interface = line.split()[1]
    mtu = host.file(f"/sys/class/net/{interface}/mtu").content_string.strip()
    assert mtu == "9000", f"{compute_name}: {interface} has MTU {mtu}"


def test_jumbo_frames_reach_every_other_data_address(compute_name, lab_groups):
    host = docker_host(compute_name)
    peers = [
        hvars["lab_data_address"]
        for group in ("compute", "isilon")
        for name, hvars in lab_groups[group].items()
        if name != compute_name
    ]
    for peer in peers:
        result = host.run(f"ping -c1 -W2 -M do -s 8972 {peer}")
        assert result.rc == 0, f"{compute_name} -> {peer}: {result.stdout}{result.stderr}"


def test_no_two_nodes_share_an_ssh_host_key(lab_groups):
    fingerprints = {}
    for name in lab_groups["compute"]:
        key = docker_host(name).file("/etc/ssh/ssh_host_ed25519_key.pub").content_string.split()[1]
        fingerprints.setdefault(key, []).append(name)
    shared = [names for names in fingerprints.values() if len(names) > 1]
    assert not shared, f"host keys shared by {shared}: they came from an image layer"
