"""The lab's stand-ins for storage, switches and the registry behave like the real thing."""

from __future__ import annotations

import json
import secrets
import subprocess

import pytest
import requests
from conftest import docker_host


def _inspect(name: str) -> dict:
    out = subprocess.run(["docker", "inspect", name], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)[0]


def test_every_isilon_node_serves_one_namespace(lab_groups):
    names = sorted(lab_groups["isilon"])
    marker = f"/ifs/.dlcluster-verify-{secrets.token_hex(4)}"
    writer = docker_host(names[0])
    assert writer.run(f"echo shared > {marker}").rc == 0
    try:
        for name in names[1:]:
            assert docker_host(name).file(marker).content_string == "shared\n", name
    finally:
        writer.run(f"rm -f {marker}")


def test_lab_ports_are_published_on_loopback_only(lab_groups):
    published = set()
    for name in lab_groups["all"]:
        bindings = _inspect(name)["HostConfig"]["PortBindings"] or {}
        if bindings:
            published.add(name)
        for port, targets in bindings.items():
            for target in targets:
                assert target["HostIp"] == "127.0.0.1", f"{name} publishes {port} on {target}"
    # every host the control host reaches has its ports published: SSH, APIs, the registry
    reached = {
        name
        for name, hvars in lab_groups["all"].items()
        if {"lab_ssh_port", "lab_papi_port", "lab_portal_port", "lab_registry_port",
            "lab_api_port", "ansible_port"} & set(hvars)
    }  # fmt: skip
    assert reached and reached <= published, sorted(reached - published)


def test_data_network_is_internal_and_jumbo():
    network = json.loads(
        subprocess.run(
            ["docker", "network", "inspect", "lab-data"], check=True, capture_output=True, text=True
        ).stdout
    )[0]
    assert network["Internal"] is True
    assert network["Options"]["com.docker.network.driver.mtu"] == "9000"


@pytest.fixture(scope="module")
def registry(lab_groups, lab_state_dir):
    hvars = next(iter(lab_groups["registry"].values()))
    password = (lab_state_dir / "secrets" / "registry").read_text().split()[0]
    return f"http://127.0.0.1:{hvars['lab_registry_port']}", password


def test_registry_refuses_anonymous_access(registry):
    url, _ = registry
    response = requests.get(f"{url}/v2/", timeout=10)
    assert response.status_code == 401
    assert "Basic" in response.headers.get("WWW-Authenticate", "")


def test_registry_accepts_the_ngc_style_login(registry):
    url, password = registry
    response = requests.get(f"{url}/v2/", auth=("$oauthtoken", password), timeout=10)
    assert response.status_code == 200
    wrong = requests.get(f"{url}/v2/", auth=("$oauthtoken", password + "x"), timeout=10)
    assert wrong.status_code == 401
