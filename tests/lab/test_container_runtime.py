"""Docker on the lab's compute nodes (roles/container_runtime)."""

from __future__ import annotations

import json

from conftest import docker_host


def test_nested_docker_engine_runs(compute_name):
    host = docker_host(compute_name)
    assert host.service("docker").is_running
    assert host.service("docker").is_enabled
    info = json.loads(host.run("docker info --format '{{json .}}'").stdout)
    assert info["ServerVersion"]


def test_daemon_json_trusts_the_lab_registry_and_sets_log_rotation(compute_name):
    host = docker_host(compute_name)
    settings = json.loads(host.file("/etc/docker/daemon.json").content_string)
    assert settings["insecure-registries"] == ["lab-registry:5000"]
    assert settings["log-opts"] == {"max-size": "100m", "max-file": "3"}
    info = json.loads(host.run("docker info --format '{{json .RegistryConfig}}'").stdout)
    assert "lab-registry:5000" in info["IndexConfigs"]
    assert info["IndexConfigs"]["lab-registry:5000"]["Secure"] is False


def test_no_nvidia_runtime_without_a_gpu(compute_name):
    host = docker_host(compute_name)
    settings = json.loads(host.file("/etc/docker/daemon.json").content_string)
    assert "runtimes" not in settings and "default-runtime" not in settings
    assert not host.package("nvidia-container-toolkit").is_installed


def test_logged_in_to_the_registry(compute_name):
    host = docker_host(compute_name)
    config = json.loads(host.file("/root/.docker/config.json").content_string)
    assert "lab-registry:5000" in config["auths"]
    # an authenticated request reaches the registry: an unknown image is "not found",
    # not "unauthorized"
    pull = host.run("docker pull lab-registry:5000/dlcluster/absent:0")
    assert "manifest unknown" in pull.stderr or "not found" in pull.stderr, pull.stderr
    assert "unauthorized" not in pull.stderr.lower()
