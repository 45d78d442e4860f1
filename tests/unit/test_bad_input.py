"""Bad input fails early, names the problem, and touches nothing.

Each case runs preflight against an inventory (the lab's or a small one written here)
or a role's own argument checks in a play on the control host alone, and asserts the
exact message. Cases of the same small inventory share preflight runs where their
variables do not overlap (preflight reports every problem before it fails). Nothing
here connects to a lab device, a switch, an API or an example site: the only hosts are
written into throwaway inventories and never contacted, because each case fails in its
first, local step.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent

BASE_INVENTORY = {
    "compute": {"gpu-1": {"cluster_data_address": "172.16.1.1"}},
    "isilon": {f"isilon-{n}": {"cluster_data_address": f"172.16.1.1{n}"} for n in range(1, 5)},
}
S5232 = {"switches_platform": "dell_os10", "switches_model": "S5232F-ON"}
S7060 = {"switches_platform": "arista_eos", "switches_model": "7060CX2-32S"}
SN3700 = {"switches_platform": "cumulus_linux", "switches_model": "SN3700"}
QM8700 = {"switches_platform": "mellanox_mlnxos", "switches_model": "QM8700"}
SECRETS = {
    "cluster_onefs_password": "x",
    "cluster_switch_password": "x",
    "cluster_registry_password": "x",
}


def _inventory(tmp_path: Path, groups: dict, group_vars: dict | None = None) -> Path:
    children = {}
    for group, hosts in groups.items():
        children[group] = {"hosts": hosts}
    # every server in `servers`, as the example inventories declare them (a case that
    # gives its own `servers` keeps it)
    if "servers" not in groups:
        servers = [h for g in ("head", "compute", "monitoring") for h in groups.get(g) or {}]
        children["servers"] = {"hosts": {host: {} for host in servers}}
    path = tmp_path / "inv"
    (path / "group_vars" / "all").mkdir(parents=True)
    (path / "hosts.yml").write_text(json.dumps({"all": {"children": children}}))
    (path / "group_vars" / "all" / "site.yml").write_text(
        json.dumps({"cluster_data_mtu": 9000, **SECRETS, **(group_vars or {})})
    )
    return path


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"), "ANSIBLE_NOCOLOR": "1"}
    offline = ["-e", "onefs_tiering_preflight_read_cluster=false"]  # contact no cluster
    return subprocess.run(
        [str(BIN / "ansible-playbook"), *args, *offline], cwd=ROOT, env=env, capture_output=True,
        text=True, timeout=300, check=False,
    )  # fmt: skip


def _flat(result: subprocess.CompletedProcess[str]) -> str:
    return " ".join((result.stdout + result.stderr).split())


# ---- preflight: cross-host checks of an inventory ---------------------------------------

PREFLIGHT_CASES = [
    (
        "ngc_image_without_tag",
        {},
        {"ngc_container_base_image": "nvcr.io/nvidia/tensorflow"},
        "gpu-1: ngc_container_base_image 'nvcr.io/nvidia/tensorflow' needs a pinned tag",
    ),
    (
        "ngc_image_latest",
        {},
        {"ngc_container_base_image": "nvcr.io/nvidia/tensorflow:latest"},
        "gpu-1: ngc_container_base_image 'nvcr.io/nvidia/tensorflow:latest' needs a pinned tag",
    ),
    ("mtu_too_big", {}, {"cluster_data_mtu": 10000}, "cluster_data_mtu 10000 is outside 1280-9216"),
    ("mtu_too_small", {}, {"cluster_data_mtu": 576}, "cluster_data_mtu 576 is outside 1280-9216"),
    (
        "mtu_not_a_number",
        {},
        {"cluster_data_mtu": "jumbo"},
        "cluster_data_mtu 'jumbo' is not a whole number",
    ),
    (
        "duplicate_address",
        {"isilon": {"isilon-1": {"cluster_data_address": "172.16.1.1"}}},
        {},
        "cluster_data_address 172.16.1.1 is used by more than one host: gpu-1, isilon-1",
    ),
    (
        "nic_gateway_outside_prefix",
        {
            "compute": {
                "gpu-1": {
                    "cluster_data_address": "172.16.1.1",
                    "nics_interfaces": [
                        {"name": "enp31s0f0", "address": "172.16.1.1/24", "gateway": "10.0.0.1"}
                    ],
                }
            }
        },
        {},
        "gpu-1: nics_interfaces: enp31s0f0: gateway 10.0.0.1 is outside 172.16.1.0/24",
    ),
    (
        "nic_mtu_out_of_range",
        {
            "compute": {
                "gpu-1": {
                    "cluster_data_address": "172.16.1.1",
                    "nics_interfaces": [
                        {"name": "enp31s0f0", "address": "172.16.1.1/24", "mtu": 10000}
                    ],
                }
            }
        },
        {},
        "gpu-1: nics_interfaces: enp31s0f0: mtu 10000 is outside 576-9216",
    ),
    (
        "nic_address_without_prefix",
        {
            "compute": {
                "gpu-1": {
                    "cluster_data_address": "172.16.1.1",
                    "nics_interfaces": [{"name": "enp31s0f0", "address": "172.16.1.1"}],
                }
            }
        },
        {},
        "gpu-1: nics_interfaces: enp31s0f0: address 172.16.1.1 needs a prefix, e.g. /24",
    ),
    (
        "nic_address_not_ipv4",
        {
            "compute": {
                "gpu-1": {
                    "cluster_data_address": "172.16.1.1",
                    "nics_interfaces": [{"name": "enp31s0f0", "address": "172.16.1.300/24"}],
                }
            }
        },
        {},
        "gpu-1: nics_interfaces: enp31s0f0: address '172.16.1.300/24' is not IPv4/prefix",
    ),
    (
        "nic_listed_twice",
        {
            "compute": {
                "gpu-1": {
                    "cluster_data_address": "172.16.1.1",
                    "nics_interfaces": [
                        {"name": "enp31s0f0", "address": "172.16.1.1/24"},
                        {"name": "enp31s0f0", "address": "172.16.1.2/24"},
                    ],
                }
            }
        },
        {},
        "gpu-1: nics_interfaces: enp31s0f0 is listed twice",
    ),
    (
        "driver_branch_word",
        {
            "compute": {
                "gpu-1": {"cluster_data_address": "172.16.1.1", "nvidia_driver_branch": "latest"}
            }
        },
        {},
        "gpu-1: nvidia_driver_branch 'latest' is not a driver branch number such as '535'",
    ),
    (
        "driver_branch_full_version",
        {
            "compute": {
                "gpu-1": {
                    "cluster_data_address": "172.16.1.1",
                    "nvidia_driver_branch": "535.104.05",
                }
            }
        },
        {},
        "gpu-1: nvidia_driver_branch '535.104.05' is not a driver branch number",
    ),
    (
        "one_mount_per_address",
        {},
        {"isilon_mounts_per_host": 4},
        "1 host(s) x 4 data mount(s) = 4 mounts cannot give each of the 4 Isilon addresses "
        "2 mounts; set isilon_mounts_per_host to at least 8",
    ),
    (
        "zero_mounts",
        {},
        {"isilon_mounts_per_host": 0},
        "gpu-1: isilon_mounts_per_host is 0; allowed: 1..",
    ),
    (
        "isilon_address_twice",
        {
            "isilon": {
                "isilon-1": {
                    "cluster_data_address": "172.16.1.11",
                    "onefs_frontend_addresses": ["172.16.1.11", "172.16.1.11"],
                }
            }
        },
        {},
        "Isilon addresses listed twice: 172.16.1.11",
    ),
    ("no_isilon_group", {"isilon": {}}, {}, "inventory group 'isilon' has no hosts"),
    (
        "switch_port_mtu_below_hosts",
        {"switches": {"s5232-1": {**S5232, "switches_port_mtu": 1500}}},
        {},
        "s5232-1: switches_port_mtu 1500 is below cluster_data_mtu 9000; frames that size "
        "would be dropped (allowed: 9000-9216)",
    ),
    (
        "switch_port_channel_member_unknown",
        {
            "switches": {
                "sw-1": {
                    **S7060,
                    "switches_eos_port_channels": [
                        {"id": 10, "members": ["Ethernet31/1", "Ethernet35/1"]}
                    ],
                }
            }
        },
        {},
        "sw-1: switches_eos_port_channels[0].members: 'Ethernet35/1' is not an interface of "
        "the 7060CX2-32S",
    ),
    (
        "switch_model_of_another_platform",
        {"switches": {"sw-1": {"switches_platform": "arista_eos", "switches_model": "S5232F-ON"}}},
        {},
        "sw-1: switches_model S5232F-ON runs dell_os10, not switches_platform arista_eos",
    ),
    (
        "switch_api_transport_on_a_platform_without_one",
        {
            "switches": {
                "sw-1": {
                    "switches_platform": "dell_os10",
                    "switches_model": "S5232F-ON",
                    "switches_transport": "api",
                }
            }
        },
        {},
        "sw-1: switches_transport api: dell_os10 has no API transport here (only arista_eos,"
        " cumulus_linux)",
    ),
    (
        "inter_switch_ports_where_no_counters_are_read",
        {
            "switches": {
                "sw-1": {
                    "switches_platform": "dell_os10",
                    "switches_model": "S5232F-ON",
                    "switches_inter_switch_ports": ["ethernet1/1/31"],
                }
            }
        },
        {},
        "sw-1: switches_inter_switch_ports: validate reads packet counters on arista_eos"
        " switches only, not dell_os10",
    ),
    (
        "inter_switch_port_the_switch_does_not_have",
        {
            "switches": {
                "sw-1": {
                    "switches_platform": "arista_eos",
                    "switches_model": "7060CX2-32S",
                    "switches_eos_port_channels": [{"id": 10, "members": ["Ethernet31/1"]}],
                    "switches_inter_switch_ports": ["Port-Channel10", "Ethernet33/1"],
                }
            }
        },
        {},
        "sw-1: switches_inter_switch_ports: 'Ethernet33/1' is not an interface of the 7060CX2-32S",
    ),
    (
        "missing_vaulted_secret",
        {},
        {"cluster_onefs_password": ""},
        "cluster_onefs_password is empty: put it in the site's Ansible Vault file",
    ),
    # every role's contract, on the hosts the playbooks run it on, before any play
    (
        "mounts_per_host_not_a_number",
        {},
        {"isilon_mounts_per_host": "four"},
        "gpu-1: isilon_mounts_per_host is 'four', which is not a int",
    ),
    (
        "ngc_ssh_port_out_of_range",
        {},
        {"ngc_container_ssh_port": 70000},
        "gpu-1: ngc_container_ssh_port is 70000; allowed: 1..65535",
    ),
    (
        "nic_item_misspelt_key",
        {
            "compute": {
                "gpu-1": {
                    "cluster_data_address": "172.16.1.1",
                    "nics_interfaces": [{"name": "eth1", "address": "172.16.1.1/24", "mut": 9000}],
                }
            }
        },
        {},
        "gpu-1: nics_interfaces[0].mut is not a known key (allowed: ",
    ),
    (
        "negative_validation_threshold",
        {},
        {"validate_thresholds": {"images_per_sec_min": -5}},
        "gpu-1: validate_thresholds.images_per_sec_min is -5; allowed: 0..",
    ),
    (
        "negative_network_proof_threshold",
        {},
        {"nics_verify_iperf_gbps_min": -2},
        "nics_verify_iperf_gbps_min is -2; allowed: 0..",
    ),
    (
        "negative_storage_proof_threshold",
        {},
        {"isilon_mounts_verify_reader_mbps_min": -5},
        "gpu-1: isilon_mounts_verify_reader_mbps_min is -5; allowed: 0..",
    ),
    (
        "storage_check_variable_under_its_old_name",
        {},
        {"validate_fio_runtime": 30},
        "validate_fio_runtime is now isilon_mounts_verify_fio_runtime; rename it in the inventory",
    ),
    (
        "validation_threshold_misspelt",
        {},
        {"validate_thresholds": {"images_per_sec_mn": 50}},
        "gpu-1: validate_thresholds.images_per_sec_mn is not a known key",
    ),
    (
        "policy_item_misspelt_key",
        {},
        {
            "onefs_tiering_policies": [
                {"name": "Idle", "idle_days": 30, "storagepool": "cold-tier"},
                {"name": "Old", "idle_day": 90, "storagepool": "cold-tier"},
            ]
        },
        "isilon-1, isilon-2, isilon-3, isilon-4: onefs_tiering_policies[1].idle_day is not a "
        "known key (allowed: ",
    ),
    (
        "policy_on_a_pool_that_is_not_declared",
        {},
        {"onefs_tiering_policies": [{"name": "Idle", "idle_days": 30, "storagepool": "archive"}]},
        "onefs_tiering_policies[0].storagepool is 'archive', which is neither a tier nor a node "
        "pool of one",
    ),
    (
        "two_policies_one_name",
        {},
        {
            "onefs_tiering_policies": [
                {"name": "Idle", "idle_days": 30, "storagepool": "cold-tier"},
                {"name": "Idle", "idle_days": 60, "storagepool": "cold-tier"},
            ]
        },
        "onefs_tiering_policies: 'Idle' is named 2 times",
    ),
    (
        "export_outside_ifs",
        {},
        {"onefs_tiering_exports": [{"path": "/data"}]},
        "onefs_tiering_exports[0].path is '/data'; an export is a directory under /ifs",
    ),
    (
        "access_time_precision_zero",
        {},
        {"onefs_tiering_access_time_precision_days": 0},
        "onefs_tiering_access_time_precision_days is 0; allowed: 1..",
    ),
    (
        "policy_idle_days_and_pattern",
        {},
        {
            "onefs_tiering_policies": [
                {
                    "name": "Idle",
                    "idle_days": 30,
                    "storagepool": "cold-tier",
                    "file_matching_pattern": {"or_criteria": []},
                }
            ]
        },
        "onefs_tiering_policies[0]: give one of idle_days, file_matching_pattern, not both",
    ),
    (
        "nfs_option_not_a_number",
        {},
        {"isilon_mounts_data_options": ["rsize=big", "wsize=524288", "nolock"]},
        "isilon_mounts_data_options[0] is 'rsize=big': rsize takes a whole number (1024..1048576)",
    ),
    (
        "nfs_option_out_of_range",
        {},
        {"isilon_mounts_data_options_extra": ["nconnect=32"]},
        "isilon_mounts_data_options_extra[0] is 'nconnect=32': nconnect must be 1..16",
    ),
    (
        "nfs_option_unknown_protocol",
        {},
        {"isilon_mounts_data_options_extra": ["proto=sctp"]},
        "isilon_mounts_data_options_extra[0] is 'proto=sctp': proto is one of tcp, udp, rdma",
    ),
    (
        "default_mount_over_a_data_mount",
        {},
        {"isilon_mounts_default_path": "/mnt/isilon1"},
        "isilon_mounts_default_path '/mnt/isilon1' collides with the data mount /mnt/isilon1",
    ),
    (
        "eos_route_prefix_33",
        {
            "switches": {
                "sw-1": {
                    **S7060,
                    "switches_eos_static_routes": [
                        {"prefix": "0.0.0.0/33", "next_hop": "10.201.0.1"}
                    ],
                }
            }
        },
        {},
        "sw-1: switches_eos_static_routes[0].prefix '0.0.0.0/33' is not an IPv4/IPv6 prefix",
    ),
    (
        "eos_route_host_bits",
        {
            "switches": {
                "sw-1": {
                    **S7060,
                    "switches_eos_static_routes": [
                        {"prefix": "10.99.1.0/16", "next_hop": "10.201.0.1"}
                    ],
                }
            }
        },
        {},
        "sw-1: switches_eos_static_routes[0].prefix '10.99.1.0/16' has host bits set; the "
        "switch would store 10.99.0.0/16",
    ),
    (
        "eos_route_next_hop_not_an_address",
        {
            "switches": {
                "sw-1": {
                    **S7060,
                    "switches_eos_static_routes": [{"prefix": "0.0.0.0/0", "next_hop": "gateway"}],
                }
            }
        },
        {},
        "sw-1: switches_eos_static_routes[0].next_hop 'gateway' is not an IP address",
    ),
    (
        "os10_access_vlan_4095",
        {"switches": {"sw-1": {**S5232, "switches_os10_access_vlan": 4095}}},
        {},
        "sw-1: switches_os10_access_vlan is 4095; allowed: 1..4094",
    ),
    (
        "ngc_ssh_port_of_the_hosts_sshd",
        {},
        {"ngc_container_ssh_port": 22},
        "gpu-1: ngc_container_ssh_port 22 is the port of the server's own sshd",
    ),
    (
        "nconnect_out_of_range",
        {},
        {"isilon_mounts_nconnect": 17},
        "gpu-1: isilon_mounts_nconnect is 17; allowed: 0..16",
    ),
    (
        "driver_persistence_not_a_bool",
        {},
        {"nvidia_driver_persistence": "sometimes"},
        "gpu-1: nvidia_driver_persistence is 'sometimes', which is not a bool",
    ),
    (
        "docker_log_opt_not_a_string",
        {},
        {"container_runtime_log_opts": {"max-size": "100m", "max-file": 3}},
        "gpu-1: container_runtime_log_opts.max-file is 3; it must be a string",
    ),
    (
        "launch_without_slots",
        {},
        {"ngc_container_launch_slots": 0},
        "gpu-1: ngc_container_launch_slots is 0; allowed: 1..",
    ),
    (
        "cluster_user_with_a_plain_password",
        {},
        {
            "cluster_users_groups": [{"name": "dlusers", "gid": 5000}],
            "cluster_users_accounts": [
                {"name": "alice", "uid": 5001, "group": "dlusers", "password_hash": "Secret123"}
            ],
        },
        "cluster_users: user alice has a password_hash that is not a crypt(3) hash",
    ),
    (
        "cluster_user_uid_of_the_os",
        {},
        {
            "cluster_users_groups": [{"name": "dlusers", "gid": 5000}],
            "cluster_users_accounts": [
                {"name": "alice", "uid": 100, "group": "dlusers", "password_hash": "!"}
            ],
        },
        "cluster_users: user alice has uid 100, below 1000 (the operating system's own range)",
    ),
    (
        "health_check_interval_of_zero",
        {},
        {"slurm_health_check_interval": 0},
        "slurm_health_check_interval is 0; allowed: 1..",
    ),
    (
        "monitoring_slurm_host_unknown",
        {"monitoring": {"gpu-1": {}}},
        {"monitoring_slurm_host": "nohost"},
        "monitoring: monitoring_slurm_host 'nohost' is not a host of the inventory",
    ),
    (
        "monitoring_scrape_interval_longer_than_the_retention",
        {"monitoring": {"gpu-1": {}}},
        {"monitoring_scrape_interval": 172800, "monitoring_retention_days": 1},
        "monitoring: monitoring_scrape_interval 172800 s is longer than the retention (1 days)",
    ),
    (
        "monitoring_receiver_without_address",
        {"monitoring": {"gpu-1": {}}},
        {"monitoring_alert_receivers": [{"name": "ops"}]},
        "monitoring: alert receiver 'ops' has no address (email or webhook_url)",
    ),
    (
        "directory_uri_without_scheme",
        {},
        {
            "cluster_users_backend": "ldap",
            "cluster_users_ldap_uri": "ldap.example.org",
            "cluster_users_ldap_base_dn": "dc=example,dc=org",
        },
        "cluster_users: cluster_users_ldap_uri 'ldap.example.org' is not a directory URI",
    ),
    (
        "directory_uri_in_clear",
        {},
        {
            "cluster_users_backend": "ldap",
            "cluster_users_ldap_uri": "ldap://ldap.example.org",
            "cluster_users_ldap_base_dn": "dc=example,dc=org",
        },
        "cluster_users: cluster_users_ldap_uri 'ldap://ldap.example.org' is ldap://",
    ),
    (
        "storage_fabric_link_to_an_unknown_host",
        {
            "storage_fabric": {
                "sn-1": {**SN3700, "storage_fabric_links": [{"port": "swp1", "host": "nobody"}]}
            }
        },
        {},
        "sn-1: swp1: host 'nobody' is not in the inventory",
    ),
    (
        "storage_fabric_link_on_a_port_the_sn3700_lacks",
        {
            "storage_fabric": {
                "sn-1": {**SN3700, "storage_fabric_links": [{"port": "swp40", "host": "gpu-1"}]}
            }
        },
        {},
        "sn-1: switches_cumulus_interfaces[0].name: 'swp40' is not an interface of the SN3700",
    ),
    (
        "ib_fabric_without_a_subnet_manager",
        {
            "ib_fabric": {
                "qm-1": {
                    **QM8700,
                    "ib_fabric_links": [{"port": "1/1", "host": "gpu-1", "hca": "mlx5_0"}],
                }
            }
        },
        {},
        "cluster_ib_subnet_managers is empty: an InfiniBand fabric needs a subnet manager",
    ),
    (
        "ib_fabric_two_subnet_managers_at_one_priority",
        {"ib_fabric": {"qm-1": {**QM8700}}},
        {
            "cluster_ib_subnet_managers": [
                {"host": "qm-1", "priority": 15},
                {"host": "gpu-1", "priority": 15},
            ]
        },
        "cluster_ib_subnet_managers: qm-1 and gpu-1 share priority 15",
    ),
    (
        "launch_env_as_a_list",
        {},
        {"ngc_container_launch_env": ["NCCL_DEBUG=INFO"]},
        "gpu-1: ngc_container_launch_env is ['NCCL_DEBUG=INFO'], which is not a dict",
    ),
    (
        "portal_time_limit_not_slurms",
        {},
        {"jupyterhub_time_limit": "eight hours"},
        "gpu-1: jupyterhub_time_limit is 'eight hours'; it must be a Slurm time limit"
        " ([days-]hours[:minutes[:seconds]])",
    ),
    (
        "portal_logdir_outside_the_home",
        {},
        {"jupyterhub_tensorboard_logdir": "../../etc"},
        "gpu-1: jupyterhub_tensorboard_logdir is '../../etc'; it must be a log folder inside"
        " the home (relative, no ..)",
    ),
    (
        "slurm_partition_names_a_missing_node",
        {"head": {"head-1": {"cluster_data_address": "172.16.1.100"}}},
        {"slurm_partitions": [{"name": "gpu", "default": True, "nodes": "gpu-[1-2]"}]},
        "slurm_partitions: partition gpu names gpu-2, not a GPU server of this inventory"
        " (the compute group: gpu-1)",
    ),
    (
        "portal_on_slurmctlds_port",
        {"head": {"head-1": {"cluster_data_address": "172.16.1.100"}}},
        {"jupyterhub_port": 6817},
        "head-1: port 6817 is set for the portal (jupyterhub_port) and slurmctld"
        " (slurm_controller_port); each needs its own",
    ),
    (
        "portal_no_cores_per_gpu",
        {},
        {"jupyterhub_cpus_per_gpu": 0},
        "gpu-1: jupyterhub_cpus_per_gpu is 0; allowed: 1..",
    ),
    # formats and bounds of the later layers, one of each kind the generated test walks
    # (tests/unit/test_bad_input_generated.py); messages without the host list, which
    # names every host the role runs on
    (
        "registry_given_as_a_url",
        {},
        {"cluster_registry": "https://registry.example:5000"},
        "cluster_registry is 'https://registry.example:5000'; it must be a registry"
        " host[:port], without a scheme or a path (Docker's registry address)",
    ),
    (
        "volume_without_a_destination",
        {},
        {"ngc_container_volumes": ["/mnt"]},
        "gpu-1: ngc_container_volumes[0] is '/mnt'; it must be a bind mount,"
        " source:destination[:options] with an absolute destination",
    ),
    (
        "ulimit_docker_cannot_parse",
        {},
        {"ngc_container_ulimits": ["memlock=unlimited"]},
        "gpu-1: ngc_container_ulimits[0] is 'memlock=unlimited'; it must be a Docker ulimit,"
        " name:soft[:hard] (e.g. memlock:-1:-1)",
    ),
    (
        "fio_size_negative",
        {},
        {"isilon_mounts_verify_fio_size": "-64MiB"},
        "gpu-1: isilon_mounts_verify_fio_size is '-64MiB'; it must be a size as fio reads it"
        " (e.g. 64MiB, 64g, 10%)",
    ),
    (
        "nfs_options_that_contradict",
        {},
        {"isilon_mounts_data_options": ["rsize=524288", "soft", "hard"]},
        "gpu-1: isilon_mounts_data_options: hard and soft contradict each other; keep one",
    ),
    (
        "mounts_in_the_thousands",
        {},
        {"isilon_mounts_per_host": 2000},
        "gpu-1: isilon_mounts_per_host is 2000; allowed: 1..256",
    ),
    (
        "export_client_not_a_network",
        {},
        {"onefs_tiering_exports": [{"path": "/ifs/data", "clients": ["172.16.1.0/240"]}]},
        "onefs_tiering_exports[0].clients[0] is '172.16.1.0/240'; it must be an address,"
        " a network (CIDR) or a host name",
    ),
    (
        "policy_apply_order_zero",
        {},
        {
            "onefs_tiering_policies": [
                {"name": "cold", "apply_order": 0, "storagepool": "archive", "idle_days": 30}
            ]
        },
        "onefs_tiering_policies[0].apply_order is 0; allowed: 1..",
    ),
    (
        "policy_size_without_its_unit",
        {},
        {
            "onefs_tiering_policies": [
                {
                    "name": "big files",
                    "apply_order": 1,
                    "storagepool": "archive",
                    "file_matching_pattern": {
                        "or_criteria": [
                            {
                                "and_criteria": [
                                    {
                                        "type": "size",
                                        "condition": "greater_than",
                                        "size_info": {"size_value": 100},
                                    }
                                ]
                            }
                        ]
                    },
                }
            ]
        },
        "onefs_tiering_policies[0].file_matching_pattern.or_criteria[0].and_criteria[0]"
        ".size_info.size_unit is required",
    ),
    (
        "share_client_option_past_what_linux_takes",
        {"head": {"head-1": {"cluster_data_address": "172.16.1.100"}}},
        {"nfs_share_client_options": ["vers=3", "rsize=2097152"]},
        "nfs_share_client_options[1] is 'rsize=2097152': rsize must be 1024..1048576",
    ),
    (
        "head_node_on_a_gpu_servers_address",
        {"head": {"head-1": {"cluster_data_address": "172.16.1.1"}}},
        {},
        "cluster_data_address 172.16.1.1 is used by more than one host: gpu-1, head-1",
    ),
]


# The Isilon mount plan is checked by preflight's second play, which runs only when the
# first one found nothing: these cases never share a run with a first-play case.
MOUNT_PLAN_CASES = frozenset(
    {
        "one_mount_per_address",
        "nfs_option_not_a_number",
        "nfs_option_out_of_range",
        "nfs_option_unknown_protocol",
        "default_mount_over_a_data_mount",
        "isilon_address_twice",
    }
)


def shared_runs(cases: list[tuple]) -> list[list[tuple]]:
    """Cases grouped into as few preflight runs as hold them.

    Preflight reports every problem it finds before it fails, so one run can carry
    several bad values: a run's cases give no group in common and set no variable in
    common (each keeps its hosts and values), and are found by the same play. A case
    that empties a group (no hosts) changes what every other check sees: it runs alone.
    Each case's message must still appear in its run's output; one that hides another's
    shows as that case failing.
    """
    runs: list[list[tuple]] = []
    for case in cases:
        alone = any(not hosts for hosts in case[1].values())
        phase = case[0] in MOUNT_PLAN_CASES
        for run in [] if alone else runs:
            groups = {group for other in run for group in other[1]}
            names = {name for other in run for name in other[2]}
            if any(not hosts for other in run for hosts in other[1].values()):
                continue
            if (run[0][0] in MOUNT_PLAN_CASES) != phase:
                continue
            if not groups & set(case[1]) and not names & set(case[2]):
                run.append(case)
                break
        else:
            runs.append([case])
    return runs


def shared_groups(run: list[tuple]) -> dict:
    """The base inventory's groups with every case's own groups of one shared run."""
    return {**BASE_INVENTORY, **{group: hosts for case in run for group, hosts in case[1].items()}}


def shared_values(run: list[tuple]) -> dict:
    """The variables of every case of one shared run."""
    return {name: value for case in run for name, value in case[2].items()}


@pytest.fixture(scope="module")
def preflight_runs(tmp_path_factory):
    """Preflight's output for a case, from the shared run that carries it (run once):
    the base inventory's cases together, those with groups of their own together."""
    runs = shared_runs([case for case in PREFLIGHT_CASES if not case[1]])
    runs += shared_runs([case for case in PREFLIGHT_CASES if case[1]])
    run_of = {case[0]: index for index, run in enumerate(runs) for case in run}
    done: dict[int, subprocess.CompletedProcess[str]] = {}

    def result_for(name: str) -> subprocess.CompletedProcess[str]:
        index = run_of[name]
        if index not in done:
            path = tmp_path_factory.mktemp(f"shared-run-{index}")
            inventory = _inventory(path, shared_groups(runs[index]), shared_values(runs[index]))
            done[index] = _run("-i", str(inventory), "playbooks/preflight.yml")
        return done[index]

    return result_for


@pytest.mark.parametrize(
    ("name", "groups", "group_vars", "message"),
    PREFLIGHT_CASES,
    ids=[case[0] for case in PREFLIGHT_CASES],
)
def test_preflight_refuses(preflight_runs, name, groups, group_vars, message):
    result = preflight_runs(name)
    assert result.returncode != 0
    assert message in _flat(result)
    assert "changed=1" not in _flat(result)


def test_shared_runs_keep_each_value_and_the_plan_cases_apart():
    cases = [case for case in PREFLIGHT_CASES if not case[1]]
    runs = shared_runs(cases)
    assert sorted(case[0] for run in runs for case in run) == sorted(c[0] for c in cases)
    assert len(runs) < len(cases) / 3  # what sharing is for
    for run in runs:
        names = [name for case in run for name in case[2]]
        assert len(names) == len(set(names)), names
        assert len({case[0] in MOUNT_PLAN_CASES for case in run}) == 1
    assert {case[0] for case in PREFLIGHT_CASES} >= MOUNT_PLAN_CASES


def test_shared_runs_of_cases_with_groups_keep_each_group_and_an_emptied_group_alone():
    cases = [case for case in PREFLIGHT_CASES if case[1]]
    runs = shared_runs(cases)
    assert sorted(case[0] for run in runs for case in run) == sorted(c[0] for c in cases)
    assert len(runs) < len(cases) / 2  # what sharing is for
    for run in runs:
        groups = [group for case in run for group in case[1]]
        names = [name for case in run for name in case[2]]
        assert len(groups) == len(set(groups)) and len(names) == len(set(names)), run
        for case in run:
            assert {g: shared_groups(run)[g] for g in case[1]} == case[1]
        assert len({case[0] in MOUNT_PLAN_CASES for case in run}) == 1
    emptied = [case for case in cases if any(not hosts for hosts in case[1].values())]
    assert emptied and all([case] in runs for case in emptied)


# Values given with -e are strings, and play keywords (serial, max_fail_percentage) take
# them before any role could check them: preflight refuses them by name first.
EXTRA_VAR_CASES = [
    (
        "rolling_serial_not_a_batch",
        ["-e", "rolling_serial=abc"],
        "rolling_serial 'abc' is neither a count nor a percentage: give a count of servers "
        "(e.g. 2) or a percentage (e.g. 25%), or a list of them",
    ),
    (
        "rolling_serial_percent_out_of_range",
        ["-e", "rolling_serial=150%"],
        "rolling_serial '150%' is a percentage outside 1%-100%",
    ),
    (
        "rolling_max_fail_not_a_number",
        ["-e", "rolling_max_fail_percentage=half"],
        "rolling_max_fail_percentage 'half' is not a whole number from 0 to 100",
    ),
]


@pytest.mark.parametrize(
    ("args", "message"),
    [case[1:] for case in EXTRA_VAR_CASES],
    ids=[case[0] for case in EXTRA_VAR_CASES],
)
def test_preflight_refuses_extra_vars(tmp_path, args, message):
    inventory = _inventory(tmp_path, BASE_INVENTORY)
    result = _run("-i", str(inventory), "playbooks/preflight.yml", *args)
    assert result.returncode != 0
    assert message in _flat(result)
    assert "changed=1" not in _flat(result)


def test_preflight_takes_good_rolling_values_from_the_command_line(tmp_path):
    inventory = _inventory(tmp_path, BASE_INVENTORY)
    result = _run(
        "-i", str(inventory), "playbooks/preflight.yml", "--tags", "preflight",
        "-e", "rolling_serial=25%", "-e", "rolling_max_fail_percentage=0",
    )  # fmt: skip
    assert result.returncode == 0, _flat(result)[-2000:]
    assert "Inventory checks passed" in _flat(result)


def test_a_run_narrowed_by_tags_checks_the_roles_it_runs(tmp_path):
    """`--tags onefs` (the tier change) checks the cluster-wide settings and the OneFS
    role's inputs, and refuses a bad one there; a bad input of a layer it leaves alone
    (the containers', a switch's) neither holds it up nor is read. (The untagged run
    refuses each of the three: ngc_image_latest, export_outside_ifs and the
    switches' cases above.)"""
    switch = {**S7060, "switches_inter_switch_ports": ["Ethernet99/1"]}
    inventory = _inventory(
        tmp_path,
        {**BASE_INVENTORY, "switches": {"sw-1": switch}},
        {
            "onefs_tiering_exports": [{"path": "/data"}],
            "ngc_container_base_image": "nvcr.io/nvidia/tensorflow:latest",
        },
    )  # fmt: skip
    onefs = "onefs_tiering_exports[0].path is '/data'; an export is a directory under /ifs"
    other = ["ngc_container_base_image", "Ethernet99/1"]
    narrowed = _flat(_run("-i", str(inventory), "playbooks/preflight.yml", "--tags", "onefs"))
    assert onefs in narrowed
    assert not [name for name in other if name in narrowed], narrowed[-3000:]


def test_a_tier_change_leaves_the_mount_plan_alone(tmp_path):
    """The Isilon mount plan and its checks run for the layers that mount (`--tags
    mounts`, `storage`, `validate`, `preflight`, untagged), not for the tier change: a
    bad mount option holds up the one and not the other."""
    inventory = _inventory(
        tmp_path,
        BASE_INVENTORY,
        {"isilon_mounts_data_options": ["rsize=big", "wsize=524288", "nolock"]},
    )
    tier = _run("-i", str(inventory), "playbooks/preflight.yml", "--tags", "onefs")
    assert tier.returncode == 0, _flat(tier)[-2000:]
    mounts = _run("-i", str(inventory), "playbooks/preflight.yml", "--tags", "mounts")
    assert mounts.returncode != 0 and "rsize takes a whole number" in _flat(mounts)


def test_a_narrowed_run_names_the_roles_it_checked(tmp_path):
    inventory = _inventory(tmp_path, BASE_INVENTORY)
    result = _run("-i", str(inventory), "playbooks/preflight.yml", "--tags", "onefs")
    assert result.returncode == 0, _flat(result)[-2000:]
    assert (
        "Inventory checks passed for 1 servers, 4 Isilon nodes and 0 switches; the roles"
        " --tags onefs selects: cluster, onefs_tiering, preflight"
    ) in _flat(result)


# ---- roles: their argument_specs and first checks, in a play on the control host ----------

ROLE_CASES = [
    (
        "nics_bad_renderer",
        "nics",
        {"nics_renderer": "systemd"},
        "value of nics_renderer must be one of: auto, netplan, ifupdown, networkmanager, "
        "got: systemd",
    ),
    (
        "driver_reboot_choice",
        "nvidia_driver",
        {"nvidia_driver_reboot": "sometimes"},
        "value of nvidia_driver_reboot must be one of: auto, never, got: sometimes",
    ),
    (
        "driver_source_choice",
        "nvidia_driver",
        {"nvidia_driver_source": "snap"},
        "value of nvidia_driver_source must be one of: auto, cuda_repo, distribution, mirror, "
        "got: snap",
    ),
    (
        "docker_source_choice",
        "container_runtime",
        {"container_runtime_docker_source": "snap"},
        "value of container_runtime_docker_source must be one of: distribution, docker, got: snap",
    ),
    (
        "mount_state_choice",
        "isilon_mounts",
        {"isilon_mounts_state": "mounted2"},
        "value of isilon_mounts_state must be one of",
    ),
    (
        "mounts_per_host_type",
        "isilon_mounts",
        {"isilon_mounts_per_host": "many"},
        "isilon_mounts_per_host",
    ),
    (
        "breakout_mode_unknown",
        "switches",
        {**S5232, "switches_os10_breakouts": [{"ports": "1/1/21", "mode": "40g-3x"}]},
        "value of mode must be one of: 100g-1x, 40g-1x, 50g-2x, 25g-4x, 10g-4x, got: 40g-3x",
    ),
    (
        "breakout_on_sfp_port",
        "switches",
        {**S5232, "switches_os10_breakouts": [{"ports": "1/1/33", "mode": "10g-4x"}]},
        "gpu-1: switches_os10_breakouts[0]: port 1/1/33 cannot break out on the S5232F-ON "
        "(ports that can: 1/1/1-32)",
    ),
    (
        "breakout_ranges_overlap",
        "switches",
        {
            **S5232,
            "switches_os10_breakouts": [
                {"ports": "1/1/21-24", "mode": "40g-1x"},
                {"ports": "1/1/24-26", "mode": "10g-4x"},
            ],
        },
        "switches_os10_breakouts[1]: port 1/1/24 is also in entry 0",
    ),
    (
        "breakout_range_backwards",
        "switches",
        {**S5232, "switches_os10_breakouts": [{"ports": "1/1/32-21", "mode": "40g-1x"}]},
        "'1/1/32-21': range runs backwards",
    ),
    (
        "eos_speed_syntax",
        "switches",
        {**S7060, "switches_eos_speed_syntax": "fast"},
        "value of switches_eos_speed_syntax must be one of: forced, plain, got: fast",
    ),
    (
        "eos_interface_speed",
        "switches",
        {**S7060, "switches_eos_interfaces": [{"name": "Ethernet1/1", "speed": "200g"}]},
        "value of speed must be one of: 100g, 40g, 25g, 10g, got: 200g",
    ),
    (
        "ngc_state_choice",
        "ngc_container",
        {"ngc_container_state": "running"},
        "value of ngc_container_state must be one of: present, absent, got: running",
    ),
    (
        "tiering_job_choice",
        "onefs_tiering",
        {"onefs_tiering_run_job": "sometimes"},
        "value of onefs_tiering_run_job must be one of: auto, always, never, got: sometimes",
    ),
    (
        "validate_check_unknown",
        "validate",
        {"validate_checks": ["speed"]},
        "value of validate_checks must be one or more of: data_network, mpi, gpus, infiniband, "
        "nccl, slurm, network, storage, sizing, benchmark, portal. Got no match for: speed",
    ),
    (
        "validate_workload_unknown",
        "validate",
        {"validate_workload": "bert"},
        "value of validate_workload must be one of",
    ),
    (
        "portal_gpus_not_a_number",
        "jupyterhub",
        {"jupyterhub_gpus_max": "many"},
        "argument 'jupyterhub_gpus_max' is of type str and we were unable to convert to int",
    ),
]


@pytest.mark.parametrize(
    ("role", "role_vars", "message"),
    [case[1:] for case in ROLE_CASES],
    ids=[case[0] for case in ROLE_CASES],
)
def test_role_refuses(tmp_path, role, role_vars, message):
    play = tmp_path / "play.yml"
    play.write_text(
        textwrap.dedent(
            f"""\
            - hosts: gpu-1
              connection: local
              gather_facts: false
              vars:
                cluster_host_offline: true
              roles:
                - role: {role}
            """
        )
    )
    # the roles' defaults read the inventory (groups, inventory_dir, the API address):
    # the play runs on gpu-1 of a small inventory over a local connection, so nothing
    # is contacted. A role run alone runs its dependency cluster_host before its own
    # argument check (Ansible's order): the play marks itself offline
    # (cluster_host_offline), since gpu-1 is a name, not a server; the lab reads real ones.
    inventory = _inventory(
        tmp_path,
        BASE_INVENTORY,
        {
            "cluster_onefs_api_host": "192.0.2.1",
            "cluster_onefs_username": "admin",
            "container_runtime_docker_repo_url": "https://mirror.invalid/docker",
            "ansible_python_interpreter": sys.executable,
        },
    )
    result = _run("-i", str(inventory), str(play), "-e", json.dumps(role_vars))
    assert result.returncode != 0
    assert message in _flat(result)
    assert "changed=1" not in _flat(result)


def test_the_table_has_at_least_thirty_cases():
    assert len(PREFLIGHT_CASES) + len(ROLE_CASES) >= 30
