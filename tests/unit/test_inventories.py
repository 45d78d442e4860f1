"""Every shipped inventory parses, passes syntax checks and the preflight checks.

These run only on the control host (preflight is a localhost play): nothing here
contacts the example sites' addresses.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
SITES = ["lab", "dss8440", "dgx1", "dgxa100", "readysolution"]
EXAMPLES = [site for site in SITES if site != "lab"]


# The example sites read their secrets from the environment; preflight refuses empty ones.
FAKE_SECRETS = {
    "DLCLUSTER_ONEFS_PASSWORD": "example-onefs",
    "DLCLUSTER_SWITCH_PASSWORD": "example-switch",
    "DLCLUSTER_NGC_API_KEY": "example-ngc",
    "DLCLUSTER_IDRAC_PASSWORD": "example-idrac",
    "DLCLUSTER_LDAP_ADMIN_PASSWORD": "example-ldap-admin",
    "DLCLUSTER_LDAP_BIND_PASSWORD": "example-ldap-bind",
}


def _run(*args: str, secrets: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"), "ANSIBLE_NOCOLOR": "1"}
    if args[0].endswith("ansible-playbook"):  # the example sites' clusters are never read
        args = (*args, "-e", "onefs_tiering_preflight_read_cluster=false")
    env.update(FAKE_SECRETS if secrets else {k: "" for k in FAKE_SECRETS})
    return subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def _inventory(site: str) -> dict:
    result = _run(str(BIN / "ansible-inventory"), "-i", f"inventories/{site}", "--list")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize("site", SITES)
def test_inventory_parses_with_the_groups_roles_expect(site):
    inventory = _inventory(site)
    for group in ("compute", "isilon", "switches"):
        assert group in inventory["all"]["children"], f"{site}: group {group} missing"
    assert inventory["compute"]["hosts"], f"{site}: no compute hosts"
    # the switches role reads each switch's platform and model from the inventory
    hostvars = inventory["_meta"]["hostvars"]
    for switch in inventory.get("switches", {}).get("hosts", []):
        assert {"switches_platform", "switches_model"} <= set(hostvars[switch]), switch


def _hosts(inventory: dict, group: str) -> set[str]:
    """Every host of `group`, its child groups' included."""
    entry = inventory.get(group, {})
    hosts = set(entry.get("hosts", []))
    for child in entry.get("children", []):
        hosts |= _hosts(inventory, child)
    return hosts


@pytest.mark.parametrize("site", SITES)
def test_servers_are_the_head_node_and_the_gpu_servers(site):
    """Every inventory declares its servers once, as the group `servers`: the head node
    (where the site has one) and the GPU servers, nothing else."""
    inventory = _inventory(site)
    assert "servers" in inventory["all"]["children"], f"{site}: group servers missing"
    assert _hosts(inventory, "servers") == _hosts(inventory, "head") | _hosts(inventory, "compute")


@pytest.mark.parametrize("site", SITES)
def test_site_playbook_passes_syntax_check(site):
    result = _run(
        str(BIN / "ansible-playbook"), "-i", f"inventories/{site}", "site.yml", "--syntax-check"
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_seed_host_counts_are_kept():
    counts = {
        site: (len(_inventory(site)["compute"]["hosts"]), len(_inventory(site)["isilon"]["hosts"]))
        for site in EXAMPLES
    }
    assert counts == {"dss8440": (1, 4), "dgx1": (9, 8), "dgxa100": (4, 4), "readysolution": (4, 4)}


def test_dgx1_keeps_the_papers_addresses():
    hostvars = _inventory("dgx1")["_meta"]["hostvars"]
    assert [hostvars[f"dgx1-{i}"]["cluster_data_address"] for i in range(1, 10)] == [
        "10.55.66.231",
        "10.55.66.235",
        "10.55.66.239",
        "10.55.66.243",
        "10.55.66.247",
        "10.55.66.251",
        "10.55.66.155",
        "10.55.66.159",
        "10.55.66.163",
    ]
    first = {nic["name"]: nic for nic in hostvars["dgx1-1"]["nics_interfaces"]}
    assert first["enp5s0"]["address"] == "10.55.5.231/24"
    assert first["enp12s0"]["address"] == "10.55.12.232/24"
    assert first["enp132s0"]["gateway"] == "10.55.66.1"
    assert first["enp139s0"]["address"] == "10.55.139.234/24"
    targets = [a for n in range(1, 9) for a in hostvars[f"isilon-{n}"]["onefs_frontend_addresses"]]
    assert len(set(targets)) == 16


def test_preflight_fails_on_a_shared_address_before_touching_anything(tmp_path):
    bad = tmp_path / "bad"
    (bad / "group_vars" / "all").mkdir(parents=True)
    (bad / "hosts.yml").write_text(
        "all:\n  children:\n    compute:\n      hosts:\n"
        "        gpu-1: {cluster_data_address: 172.16.1.11}\n"
        "    isilon:\n      hosts:\n        isilon-1: {cluster_data_address: 172.16.1.11}\n"
    )
    (bad / "group_vars" / "all" / "cluster.yml").write_text("cluster_data_mtu: 10000\n")
    result = _run(str(BIN / "ansible-playbook"), "-i", str(bad), "playbooks/preflight.yml")
    assert result.returncode != 0
    assert "cluster_data_address 172.16.1.11 is used by more than one host: gpu-1, isilon-1" in (
        result.stdout
    )
    assert "cluster_data_mtu 10000 is outside 1280-9216" in result.stdout


def test_preflight_fails_when_an_isilon_address_would_get_one_mount():
    result = _run(
        str(BIN / "ansible-playbook"),
        "-i",
        "inventories/dss8440",
        "playbooks/preflight.yml",
        # the site asks one mount per address, as its paper does; the rule's own default is 2
        "-e",
        "isilon_mounts_min_per_address=2",
    )
    assert result.returncode != 0
    assert (
        "1 host(s) x 4 data mount(s) = 4 mounts cannot give each of the 4 Isilon addresses "
        "2 mounts; set isilon_mounts_per_host to at least 8"
    ) in " ".join(result.stdout.split())


def test_dgx1_plan_puts_nine_mounts_on_each_of_sixteen_addresses():
    result = _run(
        str(BIN / "ansible-playbook"), "-i", "inventories/dgx1", "playbooks/preflight.yml"
    )
    assert result.returncode == 0, result.stdout
    summary = " ".join(result.stdout.split())
    for subnet in ("10.55.66", "10.55.5"):
        for node in range(211, 219):
            assert f'"{subnet}.{node}": 9' in summary


def test_preflight_names_bad_nic_and_driver_values(tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "hosts.yml").write_text(
        "all:\n  children:\n    compute:\n      hosts:\n"
        "        gpu-1:\n          cluster_data_address: 172.16.1.1\n"
        "          nvidia_driver_branch: latest\n"
        "          nics_interfaces:\n"
        "            - {name: enp31s0f0, address: 172.16.1.1/24, mtu: 10000}\n"
        "        gpu-2:\n          cluster_data_address: 172.16.1.2\n"
        "          nics_interfaces:\n"
        "            - {name: enp31s0f0, address: 172.16.1.2/24, gateway: 10.0.0.1}\n"
        "    isilon:\n      hosts:\n        isilon-1: {cluster_data_address: 172.16.1.11}\n"
    )
    result = _run(str(BIN / "ansible-playbook"), "-i", str(bad), "playbooks/preflight.yml")
    out = " ".join(result.stdout.split())
    assert result.returncode != 0
    assert "gpu-1: nics_interfaces: enp31s0f0: mtu 10000 is outside 576-9216" in out
    assert "gpu-2: nics_interfaces: enp31s0f0: gateway 10.0.0.1 is outside 172.16.1.0/24" in out
    assert "gpu-1: nvidia_driver_branch 'latest' is not a driver branch number" in out


def test_preflight_names_a_missing_secret_and_never_its_value():
    result = _run(
        str(BIN / "ansible-playbook"), "-i", "inventories/dgx1", "playbooks/preflight.yml",
        secrets=False,
    )  # fmt: skip
    out = " ".join(result.stdout.split())
    assert result.returncode != 0
    for name in ("cluster_onefs_password", "cluster_switch_password", "cluster_registry_password"):
        assert f"{name} is empty" in out


@pytest.mark.parametrize("site", ["dss8440", "dgxa100"])
def test_four_f800_sites_declare_only_their_f800_pool(site):
    # seed 000 and seed 002: "four F800 nodes, in one chassis, were used"; the role's
    # default H500 cold tier would fail at the cluster's node-pool check after the
    # network and compute layers had run
    onefs = yaml.safe_load(
        (ROOT / "inventories" / site / "group_vars" / "isilon" / "onefs.yml").read_text()
    )
    pools = {pool for tier in onefs["onefs_tiering_tiers"] for pool in tier["nodepools"]}
    assert pools == {"f800_48tb-ssd_256gb"}
    used = {p.get("storagepool") for p in onefs["onefs_tiering_policies"]}
    assert used <= {tier["name"] for tier in onefs["onefs_tiering_tiers"]}
