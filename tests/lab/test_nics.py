"""The compute nodes' data NICs (roles/nics): configured for real, never cut off.

Each lab compute node keeps its data NIC with another renderer (`nics_renderer` in
inventories/lab/hosts.yml); the persistent state is checked in each renderer's own terms.
"""

from __future__ import annotations

import json
import re

import yaml
from conftest import docker_host, load_lab_groups, run_playbook

NETPLAN_FILE = "/etc/netplan/60-dlcluster.yaml"


def _host_with(renderer: str) -> str:
    """The lab compute node whose data NIC persists through `renderer`."""
    hosts = [
        name
        for name, hvars in load_lab_groups()["compute"].items()
        if hvars.get("nics_renderer") == renderer
    ]
    assert len(hosts) == 1, f"the lab inventory has no single {renderer} node: {hosts}"
    return hosts[0]


def _data_address(name: str) -> str:
    return load_lab_groups()["compute"][name]["lab_data_address"]


def _eth1(host) -> dict:
    return json.loads(host.check_output("ip -j addr show dev eth1"))[0]


def _addresses(link: dict) -> list[str]:
    return [
        f"{a['local']}/{a['prefixlen']}"
        for a in link["addr_info"]
        if a["family"] == "inet" and a.get("scope") == "global"
    ]


def test_every_renderer_has_a_lab_node():
    assert sorted(h.get("nics_renderer") for h in load_lab_groups()["compute"].values()) == [
        "ifupdown",
        "netplan",
        "networkmanager",
    ]


def test_data_nic_has_its_planned_address_at_mtu_9000(compute_name):
    link = _eth1(docker_host(compute_name))
    assert link["mtu"] == 9000
    assert _addresses(link) == [f"{_data_address(compute_name)}/24"]  # Docker's own is gone


def test_hosts_file_names_every_cluster_host_by_data_address(compute_name, lab_groups):
    hosts = docker_host(compute_name).file("/etc/hosts").content_string
    for group in ("compute", "isilon"):
        for name, hvars in lab_groups[group].items():
            assert f"\n{hvars['lab_data_address']} {name}\n" in hosts


def test_jumbo_frames_cross_the_data_network(compute_name, lab_groups):
    target = lab_groups["isilon"]["lab-isilon-1"]["lab_data_address"]
    ping = docker_host(compute_name).run(f"ping -c 1 -W 2 -M do -s 8972 {target}")
    assert ping.rc == 0, ping.stdout + ping.stderr


def test_ifupdown_persists_the_nic_as_a_stanza():
    name = _host_with("ifupdown")
    stanza = docker_host(name).file("/etc/network/interfaces.d/60-dlcluster-eth1")
    assert stanza.content_string.splitlines()[1:] == [
        "auto eth1",
        "iface eth1 inet static",
        f"    address {_data_address(name)}",
        "    netmask 255.255.255.0",
        "    mtu 9000",
    ]
    assert docker_host(name).run("ifquery eth1").stdout.splitlines() == [
        f"address: {_data_address(name)}",
        "netmask: 255.255.255.0",
        "mtu: 9000",
        f"broadcast: {_data_address(name).rsplit('.', 1)[0]}.255",  # ifupdown derives it
    ]


def test_ifupdown_knows_the_interface_is_up_so_networking_restarts_cleanly():
    host = docker_host(_host_with("ifupdown"))
    assert host.check_output("ifquery --state eth1") == "eth1=eth1"
    restart = host.run("systemctl restart networking")
    assert restart.rc == 0, restart.stderr
    assert host.check_output("systemctl is-active networking") == "active"


def test_netplan_persists_the_nic_and_generates_networkd_configuration():
    name = _host_with("netplan")
    host = docker_host(name)
    document = yaml.safe_load(host.file(NETPLAN_FILE).content_string)
    assert document["network"]["ethernets"] == {
        "eth1": {"addresses": [f"{_data_address(name)}/24"], "mtu": 9000}
    }
    assert host.file(NETPLAN_FILE).mode == 0o600
    # netplan's own reading of its configuration, merged from every file
    merged = yaml.safe_load(host.check_output("netplan get ethernets.eth1"))
    assert merged == {"addresses": [f"{_data_address(name)}/24"], "mtu": 9000}
    generate = host.run("netplan generate")
    assert generate.rc == 0, generate.stderr
    network = host.file("/run/systemd/network/10-netplan-eth1.network").content_string
    assert "Name=eth1" in network
    assert f"Address={_data_address(name)}/24" in network
    link = host.file("/run/systemd/network/10-netplan-eth1.link").content_string
    assert "MTUBytes=9000" in link
    assert not host.file("/etc/network/interfaces.d/60-dlcluster-eth1").exists


def test_networkmanager_persists_the_nic_as_an_active_connection():
    name = _host_with("networkmanager")
    host = docker_host(name)
    fields = host.check_output(
        "nmcli -g connection.interface-name,ipv4.method,ipv4.addresses,802-3-ethernet.mtu,"
        "connection.autoconnect connection show dlcluster-eth1"
    ).splitlines()
    assert fields == ["eth1", "manual", f"{_data_address(name)}/24", "9000", "yes"]
    assert host.check_output("nmcli -g GENERAL.CONNECTION device show eth1") == "dlcluster-eth1"
    assert host.check_output("nmcli -g GENERAL.STATE connection show dlcluster-eth1") == (
        "activated"
    )
    # Docker's management NIC stays Docker's: NetworkManager does not take it over
    assert "unmanaged" in host.check_output("nmcli -g GENERAL.STATE device show eth0")
    assert not host.file("/etc/network/interfaces.d/60-dlcluster-eth1").exists


def _persistent_state(host, renderer: str) -> str:
    if renderer == "netplan":
        return host.file(NETPLAN_FILE).content_string
    if renderer == "networkmanager":
        return host.check_output(
            "nmcli -g ipv4.addresses,802-3-ethernet.mtu con show dlcluster-eth1"
        )
    return host.file("/etc/network/interfaces.d/60-dlcluster-eth1").content_string


def test_an_unreachable_change_is_rolled_back_by_every_renderer():
    """One compute.yml run over the three nodes, one renderer each: every node moves its
    data NIC to an address of its own whose check target never answers, and each rolls
    the change back, its live and persistent state as before."""
    renderers = ("ifupdown", "netplan", "networkmanager")
    names = {renderer: _host_with(renderer) for renderer in renderers}
    hosts = {renderer: docker_host(name) for renderer, name in names.items()}
    before = {renderer: _eth1(host) for renderer, host in hosts.items()}
    persistent = {renderer: _persistent_state(host, renderer) for renderer, host in hosts.items()}
    # extra vars are templated per host: each node gets 10.201.1.5x, x its place
    change = {
        "nics_interfaces": [{
            "name": "eth1", "mtu": 9000, "check": ["10.201.1.250"],
            "address": "10.201.1.{{ 51 + groups['compute'].index(inventory_hostname) }}/24",
        }],
        "nics_check_timeout": 1,
    }  # fmt: skip
    result = run_playbook(
        "playbooks/compute.yml", "--limit", ",".join(names.values()), "-e", json.dumps(change)
    )
    assert result.returncode != 0
    output = " ".join(result.stdout.split())
    for renderer, host in hosts.items():
        recap = rf"{names[renderer]}\s+: ok=\d+\s+changed=\d+\s+unreachable=0\s+failed=1"
        failed = re.search(recap, result.stdout)
        assert failed, (renderer, result.stdout[-3000:])
        after = _eth1(host)
        assert _addresses(after) == _addresses(before[renderer]), renderer
        assert after["mtu"] == before[renderer]["mtu"], renderer
        assert _persistent_state(host, renderer) == persistent[renderer], renderer
    assert output.count("nics: the change was rolled back") >= len(renderers), output[-4000:]


def test_the_management_interface_is_refused_untouched():
    name = _host_with("ifupdown")
    host = docker_host(name)
    before = host.check_output("ip -br addr show dev eth0")
    change = {"nics_interfaces": [{"name": "eth0", "address": "10.201.0.99/24"}]}
    result = run_playbook("playbooks/compute.yml", "--limit", name, "-e", json.dumps(change))
    assert result.returncode != 0
    assert "eth0 carries the management connection" in " ".join(result.stdout.split())
    assert host.check_output("ip -br addr show dev eth0") == before
    assert not host.file("/etc/network/interfaces.d/60-dlcluster-eth0").exists
