"""The compute nodes' data NICs (roles/nics): configured for real, never cut off."""

from __future__ import annotations

import json

from conftest import docker_host, run_playbook


def _eth1(host) -> dict:
    return json.loads(host.check_output("ip -j addr show dev eth1"))[0]


def _addresses(link: dict) -> list[str]:
    return [
        f"{a['local']}/{a['prefixlen']}"
        for a in link["addr_info"]
        if a["family"] == "inet" and a.get("scope") == "global"
    ]


def test_data_nic_has_its_planned_address_at_mtu_9000(compute_name, lab_groups):
    link = _eth1(docker_host(compute_name))
    expected = lab_groups["compute"][compute_name]["lab_data_address"]
    assert link["mtu"] == 9000
    assert _addresses(link) == [f"{expected}/24"]  # Docker's own address is gone


def test_configuration_persists_as_an_ifupdown_stanza(compute_name, lab_groups):
    stanza = docker_host(compute_name).file("/etc/network/interfaces.d/60-dlcluster-eth1")
    address = lab_groups["compute"][compute_name]["lab_data_address"]
    assert stanza.content_string.splitlines()[1:] == [
        "auto eth1",
        "iface eth1 inet static",
        f"    address {address}",
        "    netmask 255.255.255.0",
        "    mtu 9000",
    ]


def test_hosts_file_names_every_cluster_host_by_data_address(compute_name, lab_groups):
    hosts = docker_host(compute_name).file("/etc/hosts").content_string
    for group in ("compute", "isilon"):
        for name, hvars in lab_groups[group].items():
            assert f"\n{hvars['lab_data_address']} {name}\n" in hosts


def test_jumbo_frames_cross_the_data_network(compute_name, lab_groups):
    target = lab_groups["isilon"]["lab-isilon-1"]["lab_data_address"]
    ping = docker_host(compute_name).run(f"ping -c 1 -W 2 -M do -s 8972 {target}")
    assert ping.rc == 0, ping.stdout + ping.stderr


def test_an_unreachable_change_is_rolled_back():
    host = docker_host("lab-compute-2")
    before = _eth1(host)
    stanza = host.file("/etc/network/interfaces.d/60-dlcluster-eth1").content_string
    change = {
        "nics_interfaces": [
            {"name": "eth1", "address": "10.201.1.52/24", "mtu": 9000, "check": ["10.201.1.250"]}
        ],
        "nics_check_timeout": 1,
    }
    result = run_playbook(
        "playbooks/compute.yml", "--limit", "lab-compute-2", "-e", json.dumps(change)
    )
    assert result.returncode != 0
    assert "nics: the change was rolled back" in " ".join(result.stdout.split())
    after = _eth1(host)
    assert _addresses(after) == _addresses(before)
    assert after["mtu"] == before["mtu"]
    assert host.file("/etc/network/interfaces.d/60-dlcluster-eth1").content_string == stanza


def test_the_management_interface_is_refused_untouched():
    host = docker_host("lab-compute-2")
    before = host.check_output("ip -br addr show dev eth0")
    change = {"nics_interfaces": [{"name": "eth0", "address": "10.201.0.99/24"}]}
    result = run_playbook(
        "playbooks/compute.yml", "--limit", "lab-compute-2", "-e", json.dumps(change)
    )
    assert result.returncode != 0
    assert "eth0 carries the management connection" in " ".join(result.stdout.split())
    assert host.check_output("ip -br addr show dev eth0") == before
    assert not host.file("/etc/network/interfaces.d/60-dlcluster-eth0").exists


def test_ifupdown_knows_the_interface_is_up_so_networking_restarts_cleanly(compute_name):
    host = docker_host(compute_name)
    assert host.check_output("ifquery --state eth1") == "eth1=eth1"
    restart = host.run("systemctl restart networking")
    assert restart.rc == 0, restart.stderr
    assert host.check_output("systemctl is-active networking") == "active"
