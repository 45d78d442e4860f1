"""Every role's variables checked against its contract, for every host, before any play.

A role validates its own arguments when it starts (meta/argument_specs.yml), which is
too late for a site: by then the layers before it have changed things. The preflight
role calls `role_contract_problems` once, on the control host: it finds which roles run
on which hosts in the playbooks themselves, reads each host's value of every variable a
role's contract names (what the inventory and `-e` set; a role's own defaults are its
own business), and checks it against the contract with ansible-core's own type
conversions. Problems name the host(s), the variable with its full path inside lists
and dicts (`onefs_tiering_policies[1].idle_day`), the bad value and what is allowed.
Bounds that argument_specs cannot express live in RANGES; the values of dicts with free
keys in MAP_VALUES.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import yaml
from ansible.module_utils.common import validation


def _scalar_str(value: Any) -> str:
    """A string, or a scalar Ansible would turn into one; a list or dict is a mistake."""
    if isinstance(value, Mapping | list | tuple | set):
        raise TypeError(f"{type(value).__name__} cannot be a string")
    return validation.check_type_str(value)


CHECKERS: dict[str, Callable[[Any], Any]] = {
    "str": _scalar_str,
    "bool": validation.check_type_bool,
    "int": validation.check_type_int,
    "float": validation.check_type_float,
    "list": validation.check_type_list,
    "dict": validation.check_type_dict,
    "path": lambda value: validation.check_type_path(_scalar_str(value)),
    "raw": validation.check_type_raw,
}

# Bounds per variable path ("[]" for any list index): the same rules the roles and the
# devices apply, said before anything is touched.
RANGES: dict[str, tuple[float | None, float | None]] = {
    "ngc_container_ssh_port": (1, 65535),
    "ngc_container_launch_slots": (1, None),
    # every data mount is a line of fstab and a mount per server, and round_robin_mpi.py
    # hands every rank each one: the papers use 8 to 16; past 256 is a typo, not a design
    "isilon_mounts_per_host": (1, 256),
    "isilon_mounts_min_per_address": (1, None),
    "isilon_mounts_nconnect": (0, 16),  # 0: not set; Linux accepts 1..16
    "nics_check_timeout": (1, None),
    "nvidia_driver_expected_gpus": (0, None),
    "nvidia_driver_reboot_timeout": (1, None),
    "onefs_tiering_access_time_precision_days": (1, None),
    "onefs_tiering_job_wait_timeout": (1, None),
    "onefs_tiering_policies[].idle_days": (1, None),
    "switches_timeout": (1, None),
    "storage_fabric_vlan": (1, 4094),
    "storage_fabric_mtu": (552, 9216),  # Cumulus Linux's interface MTU range
    "ib_fabric_link_retries": (1, None),
    "ib_fabric_link_delay": (0, None),
    "rdma_subnet_manager_priority": (0, 15),
    "rdma_reboot_timeout": (1, None),
    "switches_os10_access_vlan": (1, 4094),
    "nics_verify_iperf_gbps_min": (0, None),
    "isilon_mounts_verify_reader_mbps_min": (0, None),
    "isilon_mounts_verify_fio_mbps_min": (0, None),
    "validate_thresholds.images_per_sec_min": (0, None),
    "validate_thresholds.inter_switch_packets_max": (0, None),
    "nics_verify_iperf2_streams": (1, 128),
    "validate_benchmark_runs": (1, None),
    "validate_benchmark_isilon_ssh.port": (1, 65535),
    "ngc_container_launch_timeout": (1, None),
    "nics_verify_iperf_seconds": (1, None),
    "nics_verify_iperf_streams": (1, 128),  # iperf3's --parallel limit
    "nics_verify_ping_timeout": (1, None),
    "rdma_verify_rate": (0, None),
    "ngc_container_verify_nccl_min_busbw_gbps": (0, None),
    "ngc_container_verify_nccl_timeout": (1, None),
    "ngc_container_verify_nccl_gpus_per_server": (0, None),
    "isilon_mounts_verify_fio_runtime": (1, None),
    "isilon_mounts_verify_fio_files_per_job": (1, None),
    "isilon_mounts_verify_fio_numjobs": (1, None),
    "jupyterhub_cpus_per_gpu": (1, None),
    "jupyterhub_memory_per_gpu_gb": (1, None),
    "jupyterhub_gpus_max": (0, None),  # 0: the most any GPU server has
    "jupyterhub_start_timeout": (1, None),
    "jupyterhub_poll_interval": (1, None),
    "jupyterhub_idle_timeout": (0, None),  # 0: no culling
    "jupyterhub_idle_check_interval": (1, None),
    "jupyterhub_port": (1, 65535),
    "jupyterhub_hub_port": (1, 65535),
    "slurm_controller_port": (1, 65535),
    "slurm_report_wait": (1, None),
    "slurm_health_check_interval": (1, None),  # slurm_health_check=false runs none
    "monitoring_scrape_interval": (1, None),
    "monitoring_retention_days": (1, None),
    "monitoring_prometheus_port": (1, 65535),
    "monitoring_alertmanager_port": (1, 65535),
    "monitoring_node_exporter_port": (1, 65535),
    "monitoring_gpu_exporter_port": (1, 65535),
    "monitoring_slurm_exporter_port": (1, 65535),
    "monitoring_gpus": (0, None),
    "monitoring_gpu_temperature_limit": (1, 150),
    "monitoring_onefs_api_port": (1, 65535),
    "cluster_onefs_api_port": (1, 65535),
    "monitoring_onefs_exporter_port": (1, 65535),
    "monitoring_onefs_pool_full_percent": (1, 100),
    "slurm_health_check_services[].port": (1, 65535),
    "slurm_qos[].priority": (0, None),
    "slurm_accounts[].fairshare": (1, None),
    "slurm_priority_weights.Fairshare": (0, None),
    "slurm_priority_weights.Age": (0, None),
    "slurm_priority_weights.QOS": (0, None),
    "slurm_priority_weights.JobSize": (0, None),
    "slurm_priority_weights.Partition": (0, None),
    "onefs_tiering_api_port": (1, 65535),
    "switches_port": (1, 65535),
    "switches_api_port": (0, 65535),  # 0: the platform's own port
    "switches_api_confirm": (0, None),  # 0: no confirm window
    # OneFS numbers file pool policies from 1 (apply_order 0 is refused by the cluster)
    "onefs_tiering_policies[].apply_order": (1, None),
    "onefs_tiering_policies[].file_matching_pattern.or_criteria[].and_criteria[]"
    ".relative_datetime_count.time_value": (1, None),
    "onefs_tiering_policies[].file_matching_pattern.or_criteria[].and_criteria[]"
    ".size_info.size_value": (0, None),
    # Linux: 68 is IPv4's least MTU (RFC 791); 65520 is IPoIB's largest (connected mode)
    "nics_default_mtu": (68, 65520),
    "nics_verify_mtu": (68, 65520),
    "preflight_mtu_min": (68, 65520),
    "preflight_mtu_max": (68, 65520),
    "switches_cumulus_interfaces[].access_vlan": (1, 4094),
    "switches_cumulus_bridge_vids[]": (1, 4094),
    # Port-Channel1-2000, as the EOS simulator takes it (range unverified)
    "switches_eos_port_channels[].id": (1, 2000),
    # link speeds in Mb/s, 1G to 400G (Cumulus link-speed, the fabrics' cabling)
    "switches_cumulus_interfaces[].speed": (1000, 400000),
    "storage_fabric_links[].speed": (1000, 400000),
    # OpenSM and MLNX-OS: subnet manager priority 0-15
    "ib_fabric_subnet_managers[].priority": (0, 15),
    # HCA ports are numbered from 1 (ConnectX cards have one or two)
    "ngc_container_ib_hcas[].port": (1, 2),
    "rdma_port_types[].port": (1, 2),
    "rdma_compute_hcas[].port": (1, 2),
    "rdma_verify_hcas[].port": (1, 2),
    # GPU indexes as nvidia-smi numbers them
    "ngc_container_ib_hcas[].gpu": (0, 15),
    "rdma_compute_hcas[].gpu": (0, 15),
    # Linux ids: 0-4294967294 (-1 is "no id", useradd(8)); cluster users are not system ones
    "cluster_users_groups[].gid": (1, 4294967294),
    "cluster_users_accounts[].uid": (1, 4294967294),
    "cluster_users_min_id": (1, 4294967294),
    "nfs_share_raid.spans": (1, None),
    "nfs_share_raid.chunk_kib": (4, None),
    "nfs_share_raid.disks": (0, None),  # 0: mkfs works the geometry out
    "nfs_share_image_size_mib": (300, None),  # mkfs.xfs(8): a filesystem of at least 300 MB
    "nfs_share_exports[].id": (0, None),  # exports(5) fsid: 0 is NFSv4's root
    "apptainer_probe_timeout": (1, None),
    "base_apt_cache_valid_time": (0, None),
    "slurm_verify_job_wait": (1, None),
    "jupyterhub_verify_gpus": (1, None),
    "jupyterhub_verify_timeout": (1, None),
    "jupyterhub_verify_cpus_per_gpu": (0, None),
    "jupyterhub_verify_memory_per_gpu_gb": (0, None),
    "validate_benchmark_reference.images_per_sec": (0, None),
    "validate_gpus_per_host": (0, None),
}


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _is_network(text: str) -> bool:
    """A network written with its prefix length (CIDR), host bits clear."""
    try:
        ipaddress.ip_network(text, strict=True)
    except ValueError:
        return False
    return "/" in text


_HOSTNAME = re.compile(
    r"(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*"
)


def _is_host(text: str) -> bool:
    """A host name (RFC 1123) or an IP address."""
    return _is_ip(text) or bool(_HOSTNAME.fullmatch(text))


def _is_client(text: str) -> bool:
    """Who may mount an export: an address, a network in CIDR form, or a host name (a
    network with host bits set, or a prefix past the address's length, is a typo)."""
    return _is_network(text) if "/" in text else _is_host(text)


def _is_regex(text: str) -> bool:
    try:
        re.compile(text)
    except re.error:
        return False
    return True


def _pattern(regex: str) -> Callable[[str], bool]:
    compiled = re.compile(regex, re.DOTALL)
    return lambda text: bool(compiled.fullmatch(text))


class Format(NamedTuple):
    """A string's format: the test, what it is (said as the tool that reads it says it),
    and a value it refuses (the generated bad-input test uses it)."""

    accepts: Callable[[str], bool]
    wanted: str
    bad_example: str


_SLURM_TIME = r"([0-9]+-)?[0-9]+(:[0-9]{1,2}){0,2}"
_POSIX_NAME = r"[a-z_][a-z0-9_-]{0,30}\$?"
_IFNAME = r"(?!\.{1,2}$)[^\s/:]{1,15}"
_IB_SPEED = r"(sdr|ddr|qdr|fdr10|fdr|edr|hdr100|hdr|ndr200|ndr)"

# The formats strings take, by kind. Sources: Linux netdevice(7) (IFNAMSIZ, 15 characters),
# useradd(8) and Debian's adduser.conf NAME_REGEX (user and group names), crypt(5),
# sbatch(1) --time and slurm.conf(5) MaxTime, Docker's reference grammar (image names and
# tags) and `docker run --shm-size`/`--ulimit`/`-v`, fio(1) `size`, iperf3(1) `-l`,
# xfs_admin(8) (labels of at most 12 characters), exports(5) (clients), Debian Policy 5.6.1
# (package names), PEP 440/508 (pinned Python packages).
KINDS: dict[str, Format] = {
    "absolute_path": Format(_pattern(r"/.*"), "an absolute path", "relative/dir"),
    "relative_path": Format(
        _pattern(r"(?!/)(?!(.*/)?\.\.(/|$))[^\n]+"),
        "a relative path below it (no leading /, no ..)",
        "../outside",
    ),
    "url": Format(_pattern(r"https?://[^\s/]+(/\S*)?"), "an http:// or https:// URL", "ftp:/x"),
    "registry": Format(
        _pattern(r"[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:[0-9]{1,5})?"),
        "a registry host[:port], without a scheme or a path (Docker's registry address)",
        "https://registry.example",
    ),
    "ip_address": Format(_is_ip, "an IP address", "172.16.1.300"),
    "host": Format(_is_host, "a host name or an IP address", "bad host name"),
    # RFC 4516's scheme://host[:port], one or several comma-separated (sssd's ldap_uri)
    "ldap_uri": Format(
        _pattern(r"[a-z]+://[^\s/,]+/?(\s*,\s*[a-z]+://[^\s/,]+/?)*"),
        "ldaps://host[:port], several comma-separated",
        "ldap.example.org",
    ),
    # RFC 4514's attribute=value, comma-separated (values without , = or + here)
    # an SMTP relay as Alertmanager's smtp_smarthost takes it
    "host_port": Format(
        _pattern(r"[A-Za-z0-9.-]+:[0-9]{1,5}|\[[0-9A-Fa-f:.]+\]:[0-9]{1,5}"),
        "host:port",
        "mail.example.org",
    ),
    "email": Format(_pattern(r"[^\s@]+@[^\s@]+\.[^\s@]+"), "an email address", "ops"),
    "ldap_dn": Format(
        _pattern(r"[A-Za-z][A-Za-z0-9-]*=[^,=+]+(,\s*[A-Za-z][A-Za-z0-9-]*=[^,=+]+)*"),
        "an LDAP DN (attribute=value, comma-separated: dc=example,dc=org)",
        "example.org",
    ),
    "client": Format(_is_client, "an address, a network (CIDR) or a host name", "10.0.0.1/240"),
    "inventory_host": Format(_pattern(r"[^\s,:]+"), "an inventory host name", "two hosts"),
    "ansible_group": Format(
        _pattern(r"[A-Za-z_][A-Za-z0-9_]*"),
        "an inventory group name (letters, digits, _)",
        "gpu-servers",
    ),
    "posix_name": Format(
        _pattern(_POSIX_NAME),
        "a user or group name (lower case letters, digits, _ and -, at most 32 characters)",
        "Alice Smith",
    ),
    "octal_mode": Format(_pattern(r"0?[0-7]{3,4}"), "an octal mode such as 0750", "rwxr-x---"),
    "slurm_time": Format(
        _pattern(_SLURM_TIME),
        "a Slurm time limit ([days-]hours[:minutes[:seconds]])",
        "8h",
    ),
    "slurm_max_time": Format(
        _pattern(f"INFINITE|UNLIMITED|{_SLURM_TIME}"),
        "a Slurm time limit (INFINITE, [days-]hours[:minutes[:seconds]] or minutes)",
        "forever",
    ),
    "slurm_name": Format(
        _pattern(r"[A-Za-z0-9_.-]+"),
        "a Slurm name (letters, digits, _ . -)",
        "gpu nodes",
    ),
    "slurm_cluster_name": Format(
        _pattern(r"[a-z0-9][a-z0-9_-]*"),
        "lower case (slurm.conf(5): ClusterName is lowered silently in the accounting database)",
        "Lab-Cluster",
    ),
    "name": Format(
        _pattern(r"[A-Za-z0-9][A-Za-z0-9_.-]*"),
        "a name (letters, digits, _ . -; no spaces or /)",
        "my name",
    ),
    "file_name": Format(
        _pattern(r"(?!\.{1,2}$)[^/\s]+"), "a file or folder name (no /, no spaces)", "a/b"
    ),
    "one_line": Format(
        _pattern(r"[^\n\r]{0,240}"),
        "one line of at most 240 characters",
        "first line\nsecond line",
    ),
    "word": Format(_pattern(r"\S+"), "one word (no spaces)", "two words"),
    "ifname": Format(
        _pattern(_IFNAME),
        "a Linux interface name (at most 15 characters, no /, : or spaces)",
        "enp31s0f0-data-port",
    ),
    "rdma_device": Format(
        _pattern(r"[a-z][a-z0-9_]{0,62}"), "an RDMA device name such as mlx5_0", "mlx5 0"
    ),
    "version": Format(
        _pattern(r"[0-9]+\.[0-9]+\.[0-9]+([-+~][0-9A-Za-z.]+)?"),
        "a version such as 1.4.5",
        "latest",
    ),
    "image_name": Format(
        _pattern(
            r"([A-Za-z0-9.-]+(:[0-9]+)?/)?[a-z0-9]+([._-][a-z0-9]+)*(/[a-z0-9]+([._-][a-z0-9]+)*)*"
        ),
        "an image repository name (lower case, Docker's reference grammar)",
        "DLCluster/TF",
    ),
    "image_tag": Format(_pattern(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}"), "an image tag", "v1:ssh"),
    "image_ref": Format(
        _pattern(r"(docker://)?\S+(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}|@sha256:[0-9a-f]{64})"),
        "an image reference with a tag or a digest",
        "nvcr.io/nvidia/tensorflow",
    ),
    "container_name": Format(
        _pattern(r"[a-zA-Z0-9][a-zA-Z0-9_.-]+"),
        "a Docker container name ([a-zA-Z0-9][a-zA-Z0-9_.-]+)",
        "tf container",
    ),
    "docker_size": Format(
        _pattern(r"[1-9][0-9]*([bBkKmMgGtTpP]|[kKmMgGtTpP][iI]?[bB])?"),
        "a size with its unit as Docker reads it (e.g. 1g, 512m)",
        "-1g",
    ),
    "docker_ulimit": Format(
        _pattern(
            r"(core|cpu|data|fsize|locks|memlock|msgqueue|nice|nofile|nproc|rss|rtprio|rttime"
            r"|sigpending|stack):-?[0-9]+(:-?[0-9]+)?"
        ),
        "a Docker ulimit, name:soft[:hard] (e.g. memlock:-1:-1)",
        "memlock=unlimited",
    ),
    "docker_volume": Format(
        _pattern(r"(/[^:]*|[A-Za-z0-9][A-Za-z0-9_.-]*):/[^:]*(:[a-zA-Z,]+)?"),
        "a bind mount, source:destination[:options] with an absolute destination",
        "/mnt",
    ),
    "docker_network_mode": Format(
        _pattern(r"host|bridge|none|container:\S+|[A-Za-z0-9][A-Za-z0-9_.-]*"),
        "host, bridge, none, container:<name> or a network's name",
        "host network",
    ),
    "docker_log_driver": Format(
        _pattern(
            r"none|local|json-file|syslog|journald|gelf|fluentd|awslogs|splunk|etwlogs"
            r"|gcplogs|logentries|\S+/\S+"
        ),
        "one of Docker's log drivers (json-file, local, journald, ...) or a plugin's name",
        "json",
    ),
    "fio_size": Format(
        _pattern(r"[1-9][0-9]*([kKmMgGtTpP][iI]?[bB]?)?|([1-9][0-9]?|100)%"),
        "a size as fio reads it (e.g. 64MiB, 64g, 10%)",
        "-64MiB",
    ),
    "iperf_length": Format(
        _pattern(r"[1-9][0-9]*[KMGkmg]?"), "a length as iperf3 -l reads it (e.g. 64K)", "64KB"
    ),
    "xfs_label": Format(
        _pattern(r"[^\s]{1,12}"), "an XFS label (at most 12 characters)", "a-much-too-long-label"
    ),
    "debian_package": Format(
        _pattern(r"[a-z0-9][a-z0-9+.-]+(:[a-z0-9-]+)?(=[^\s=]+)?"),
        "a Debian package name, optionally =version",
        "Perf Test",
    ),
    "pinned_python_package": Format(
        _pattern(r"[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9,._-]+\])?==[^\s=]+"),
        "a PyPI package pinned with == (name==version)",
        "jupyterhub>=5",
    ),
    "sbatch_option": Format(
        _pattern(r"-[A-Za-z]( ?\S.*)?|--[a-z][a-z-]*(=\S.*)?"),
        "an sbatch option (-N 1, --gres=gpu:4)",
        "gres=gpu:4",
    ),
    "regex": Format(_is_regex, "a regular expression", "interface (Ethernet"),
    "pem_certificate": Format(
        _pattern(r"\s*-----BEGIN CERTIFICATE-----.+-----END CERTIFICATE-----\s*"),
        "a PEM certificate (-----BEGIN CERTIFICATE-----)",
        "/etc/ssl/portal.pem",
    ),
    "pem_private_key": Format(
        _pattern(
            r"\s*-----BEGIN ([A-Z]+ )?PRIVATE KEY-----.+-----END ([A-Z]+ )?PRIVATE KEY-----\s*"
        ),
        "a PEM private key (-----BEGIN PRIVATE KEY-----)",
        "/etc/ssl/portal.key",
    ),
    "secret_32": Format(_pattern(r".{32,}"), "at least 32 characters", "short"),
    # slurmdbd.conf(5): "The '#' character is not permitted" in StoragePass; a blank or a
    # line break would end the value. Empty: the role makes one.
    "slurmdbd_password": Format(
        _pattern(r"[^#\s]*"), "a password without `#` or blanks (slurmdbd.conf(5))", "pa ss#1"
    ),
    "nfs_option": Format(
        _pattern(r"[a-z_][a-z0-9_]*(=[^\s,=]+)?"),
        "one mount or export option (name or name=value, no commas or spaces)",
        "rw,hard",
    ),
    "eos_transceiver_mode": Format(
        _pattern(r"[0-9]+x[0-9]+G"), "a QSFP default mode such as 4x10G", "10G"
    ),
    "eos_spanning_tree_mode": Format(
        _pattern(r"mstp|rstp|rapid-pvst|backup|none"),
        "an EOS spanning-tree mode (mstp, rstp, rapid-pvst, backup, none)",
        "stp",
    ),
    "os10_ports": Format(
        _pattern(r"1/1/[0-9]+(-[0-9]+)?"), "an OS10 port or range (1/1/21-32)", "ethernet1/1/21"
    ),
    "mlnxos_port": Format(
        _pattern(r"1/[0-9]+(/[0-9]+)?"), "an MLNX-OS port (1/1, or 1/3/2 once split)", "ib1/1"
    ),
    "mlnxos_speeds": Format(
        _pattern(rf"{_IB_SPEED}( {_IB_SPEED})*"),
        "InfiniBand speeds separated by spaces (e.g. hdr, or edr hdr)",
        "200G",
    ),
    "cumulus_port": Format(
        _pattern(r"swp[0-9]+(s[0-9]+)?"), "a Cumulus port (swp1, or swp1s0 once broken out)", "eth1"
    ),
}
KINDS["jupyterhub_logdir"] = KINDS["relative_path"]._replace(
    wanted="a log folder inside the home (relative, no ..)"
)

# The format of each string variable (by path; "[]" for any list index, the list's
# elements for a list of strings). A variable whose default is "" may stay empty: empty
# means "not set" there. A `type: path` variable that is not named here is an absolute
# path. Strings that are free text (descriptions, commands, secrets) are in FREE_TEXT.
FORMATS: dict[str, str] = {
    # apptainer
    "apptainer_version": "version",
    "apptainer_release_url": "url",
    "apptainer_mirror_url": "url",
    "apptainer_images[].name": "file_name",
    "apptainer_images[].image": "image_ref",
    "apptainer_build_group": "ansible_group",
    "apptainer_registry_username": "word",
    "apptainer_job_sbatch[]": "sbatch_option",
    "apptainer_job_image": "absolute_path",
    "apptainer_report_hosts[]": "inventory_host",
    "base_packages_extra[]": "debian_package",
    # cluster
    "cluster_name": "name",
    "cluster_onefs_username": "word",
    "cluster_onefs_api_host": "host",
    "cluster_switch_username": "word",
    "cluster_registry": "registry",
    "cluster_registry_username": "word",
    # cluster_users
    "cluster_users_groups[].name": "posix_name",
    "cluster_users_accounts[].name": "posix_name",
    "cluster_users_accounts[].group": "posix_name",
    "cluster_users_accounts[].groups[]": "posix_name",
    "cluster_users_ldap_listen_addresses[]": "ip_address",
    "cluster_users_accounts[].shell": "absolute_path",
    "cluster_users_default_shell": "absolute_path",
    "cluster_users_home_mode": "octal_mode",
    "cluster_users_ldap_uri": "ldap_uri",
    # monitoring
    "monitoring_group": "ansible_group",
    "monitoring_server_groups[]": "ansible_group",
    "monitoring_listen_address": "ip_address",
    "monitoring_alert_receivers[].name": "name",
    "monitoring_alert_receivers[].email": "email",
    "monitoring_alert_receivers[].webhook_url": "url",
    "monitoring_smtp_smarthost": "host_port",
    "monitoring_smtp_from": "email",
    "monitoring_onefs_addresses[]": "host",
    "monitoring_onefs_user": "word",
    "monitoring_onefs_ca_path": "absolute_path",
    "monitoring_nvidia_smi": "absolute_path",
    "cluster_users_ldap_base_dn": "ldap_dn",
    "cluster_users_ldap_users_ou": "ldap_dn",
    "cluster_users_ldap_groups_ou": "ldap_dn",
    "cluster_users_ldap_bind_dn": "ldap_dn",
    "cluster_users_ldap_tls_certificate": "pem_certificate",
    "cluster_users_ldap_tls_private_key": "pem_private_key",
    "cluster_users_ldap_ca_certificate": "pem_certificate",
    # container_runtime
    "container_runtime_docker_repo_url": "url",
    "container_runtime_docker_repo_key_url": "url",
    "container_runtime_nvidia_repo_url": "url",
    "container_runtime_nvidia_repo_key_url": "url",
    "container_runtime_insecure_registries[]": "registry",
    "container_runtime_data_root": "absolute_path",
    "container_runtime_log_driver": "docker_log_driver",
    "container_runtime_registry_logins[].registry": "registry",
    "container_runtime_registry_logins[].username": "word",
    "container_runtime_report_hosts[]": "inventory_host",
    # ib_fabric
    "ib_fabric_links[].port": "mlnxos_port",
    "ib_fabric_links[].host": "inventory_host",
    "ib_fabric_links[].hca": "rdma_device",
    "ib_fabric_split_ports[]": "mlnxos_port",
    "ib_fabric_subnet_managers[].host": "inventory_host",
    "ib_fabric_group": "ansible_group",
    "ib_fabric_server_groups[]": "ansible_group",
    # isilon_mounts
    "isilon_mounts_client_group": "ansible_group",
    "isilon_mounts_addresses[]": "ip_address",
    "isilon_mounts_export": "absolute_path",
    "isilon_mounts_unavailable_addresses[]": "ip_address",
    "isilon_mounts_data_options[]": "nfs_option",
    "isilon_mounts_data_options_extra[]": "nfs_option",
    "isilon_mounts_default_address": "ip_address",
    "isilon_mounts_default_options[]": "nfs_option",
    "isilon_mounts_verify_probe": "relative_path",
    # jupyterhub
    "jupyterhub_time_limit": "slurm_time",
    "jupyterhub_tensorboard_logdir": "jupyterhub_logdir",
    "jupyterhub_hub_host": "inventory_host",
    "jupyterhub_bind_ip": "ip_address",
    "jupyterhub_hub_ip": "ip_address",
    "jupyterhub_tls_certificate": "pem_certificate",
    "jupyterhub_tls_private_key": "pem_private_key",
    "jupyterhub_allowed_groups[]": "posix_name",
    "jupyterhub_admin_users[]": "posix_name",
    "jupyterhub_partitions[]": "slurm_name",
    "jupyterhub_node_packages[]": "pinned_python_package",
    "jupyterhub_hub_packages[]": "pinned_python_package",
    "jupyterhub_pip_index_url": "url",
    # modules
    "lmod_tree_group": "ansible_group",
    "lmod_extra[].name": "file_name",
    "lmod_extra[].version": "file_name",
    "lmod_extra[].whatis": "one_line",
    "lmod_report_hosts[]": "inventory_host",
    # nfs_share
    "nfs_share_server_host": "inventory_host",
    "nfs_share_client_group": "ansible_group",
    "nfs_share_raid.name": "name",
    "nfs_share_raid.devices[]": "absolute_path",
    "nfs_share_raid.drives[]": "word",
    "nfs_share_raid.controller_id": "word",
    "nfs_share_raid.idrac.address": "host",
    "nfs_share_raid.idrac.username": "word",
    "nfs_share_device": "absolute_path",
    "nfs_share_label": "xfs_label",
    "nfs_share_mount_options[]": "nfs_option",
    "nfs_share_exports[].name": "file_name",
    "nfs_share_exports[].clients[]": "client",
    "nfs_share_exports[].mode": "octal_mode",
    "nfs_share_clients[]": "client",
    "nfs_share_address": "ip_address",
    "nfs_share_kernel_options[]": "nfs_option",
    "nfs_share_client_options[]": "nfs_option",
    # ngc_container
    "ngc_container_registry": "registry",
    "ngc_container_image_name": "image_name",
    "ngc_container_image_tag": "image_tag",
    "ngc_container_build_host": "inventory_host",
    "ngc_container_group": "ansible_group",
    "ngc_container_name": "container_name",
    "ngc_container_network_mode": "docker_network_mode",
    "ngc_container_shm_size": "docker_size",
    "ngc_container_ulimits[]": "docker_ulimit",
    "ngc_container_volumes[]": "docker_volume",
    "ngc_container_ib_hcas[].name": "rdma_device",
    "ngc_container_ib_hcas[].netdev": "ifname",
    "ngc_container_peer_names[]": "host",
    "ngc_container_launch_data_path": "relative_path",
    # nics
    "nics_interfaces[].name": "ifname",
    "nics_interfaces[].dns[]": "ip_address",
    "nics_interfaces[].check[]": "ip_address",
    "nics_hosts_groups[]": "ansible_group",
    "nics_preflight_hosts[]": "inventory_host",
    "nics_plan_hosts[]": "inventory_host",
    "nics_report_hosts[]": "inventory_host",
    # nvidia_driver
    "nvidia_driver_cuda_repo_url": "url",
    "nvidia_driver_cuda_repo_key": "file_name",
    "nvidia_driver_mirror_url": "url",
    "nvidia_driver_preflight_hosts[]": "inventory_host",
    "nvidia_driver_report_hosts[]": "inventory_host",
    # onefs_tiering
    "onefs_tiering_tiers[].name": "name",
    "onefs_tiering_tiers[].nodepools[]": "name",
    "onefs_tiering_default_policy.storagepool": "name",
    "onefs_tiering_default_policy.snapshot_storagepool": "name",
    "onefs_tiering_policies[].name": "one_line",
    "onefs_tiering_policies[].storagepool": "name",
    "onefs_tiering_policies[].snapshot_storagepool": "name",
    "onefs_tiering_exports[].clients[]": "client",
    "onefs_tiering_exports[].root_clients[]": "client",
    "onefs_tiering_exports[].map_root_user": "word",
    "onefs_tiering_api_host": "host",
    "onefs_tiering_api_user": "word",
    # preflight
    "preflight_required_groups[]": "ansible_group",
    # rdma
    "rdma_packages_extra[]": "debian_package",
    "rdma_port_types[].device": "rdma_device",
    "rdma_compute_hcas[].name": "rdma_device",
    "rdma_compute_hcas[].netdev": "ifname",
    "rdma_preflight_hosts[]": "inventory_host",
    "rdma_report_hosts[]": "inventory_host",
    # slurm
    "slurm_controller_host": "inventory_host",
    "slurm_packages_extra[]": "debian_package",
    "slurm_cluster_name": "slurm_cluster_name",
    "slurm_controller_address": "host",
    "slurm_partitions[].name": "slurm_name",
    "slurm_partitions[].max_time": "slurm_max_time",
    "slurm_munge_key": "secret_32",
    "slurm_accounting_db_password": "slurmdbd_password",
    "slurm_qos[].name": "slurm_name",
    "slurm_accounts[].name": "slurm_name",
    "slurm_accounts[].description": "one_line",
    "slurm_accounts[].organization": "one_line",
    "slurm_accounts[].qos[]": "slurm_name",
    "slurm_accounts[].users[]": "posix_name",
    "slurm_priority_decay_half_life": "slurm_time",
    # storage_fabric
    "storage_fabric_links[].port": "cumulus_port",
    "storage_fabric_links[].host": "inventory_host",
    "storage_fabric_links[].bond": "ifname",
    "storage_fabric_group": "ansible_group",
    # switches
    "switches_host": "host",
    "switches_os10_owned_ports[]": "os10_ports",
    "switches_eos_transceiver_default_mode": "eos_transceiver_mode",
    "switches_eos_spanning_tree_mode": "eos_spanning_tree_mode",
    # EOS's description length limit is unverified: 240 is OS9's documented one
    "switches_eos_interfaces[].description": "one_line",
    "switches_eos_owned_patterns[]": "regex",
    "switches_mlnxos_interfaces[].speed": "mlnxos_speeds",
    "switches_cumulus_interfaces[].alias": "one_line",
    "switches_cumulus_bonds[].name": "ifname",
    "switches_cumulus_bridge_ports[]": "ifname",
    "switches_preflight_group": "ansible_group",
    # validate
    "jupyterhub_verify_url": "url",
    "jupyterhub_verify_user": "posix_name",
    "jupyterhub_verify_partition": "slurm_name",
    "jupyterhub_verify_expect_folders[]": "file_name",
    "jupyterhub_verify_time_limit": "slurm_time",
    "nics_verify_iperf_length": "iperf_length",
    "validate_benchmark_isilon_ssh.host": "host",
    "validate_prometheus_host": "inventory_host",
    "validate_prometheus_url": "url",
    "validate_benchmark_series[].name": "word",
    "validate_benchmark_isilon_ssh.user": "word",
    "isilon_mounts_verify_fio_size": "fio_size",
    "rdma_verify_hcas[].name": "rdma_device",
    "isilon_mounts_verify_reader_path": "relative_path",
}

# Strings that are free text by nature, and why no format is asked of them.
FREE_TEXT: dict[str, str] = {
    "apptainer_registry_password": "a secret",
    "apptainer_job_command": "a shell command line",
    "cluster_onefs_password": "a secret",
    "monitoring_onefs_password": "a secret",
    "cluster_switch_password": "a secret",
    "cluster_switch_enable_secret": "a secret",
    "cluster_registry_password": "a secret",
    "cluster_users_accounts[].comment": "a full name (GECOS)",
    "cluster_users_ldap_admin_password": "a secret",
    "cluster_users_ldap_bind_password": "a secret",
    "monitoring_slurm_host": (
        "an inventory host, or empty on a site without a head node; monitoring's preflight"
        " checks it"
    ),
    "cluster_users_ldap_server_host": (
        "an inventory host, or empty on a site without a head node; cluster_users' preflight"
        " checks it where the directory runs"
    ),
    "container_runtime_registry_logins[].password": "a secret",
    "lmod_extra[].help": "text shown by `module help`",
    "nfs_share_raid.idrac.password": "a secret",
    "ngc_container_mpi_args[]": "mpirun arguments",
    "ngc_container_launch_mpi_options[]": "mpirun arguments",
    "ngc_container_launch_command[]": "the workload's argv",
    "onefs_tiering_policies[].description": "a description",
    "onefs_tiering_policies[].file_matching_pattern.or_criteria[].and_criteria[].field": (
        "a custom attribute's name, as the cluster's files carry it"
    ),
    "onefs_tiering_exports[].description": "a description",
    "onefs_tiering_api_password": "a secret",
    "slurm_health_check_services[].name": "what a drain reason names (quoted where used)",
    "slurm_health_check_services[].banner": "the text a service sends first",
    "jupyterhub_verify_password": "a secret",
    "validate_benchmark_isilon_flush_command[]": "a command's argv",
    "validate_benchmark_reference.source": "a citation",
    "validate_benchmark_series[].title": "a panel's title",
    "validate_benchmark_series[].unit": "a unit's name",
    "validate_benchmark_series[].expr": "a PromQL expression (Prometheus checks it)",
    "ngc_container_verify_nccl_command[]": "nccl-tests' argv",
}

# Variables whose bounds or format a check with more context says, and where: the
# contract still checks their type. tests/unit/test_bad_input_generated.py asks for a
# hand-written case of each in tests/unit/test_bad_input.py.
CHECKED_ELSEWHERE: dict[str, str] = {
    "cluster_data_address": "preflight.py data_address_problems: an IP address, one per host",
    "cluster_data_mtu": "preflight.py mtu_problems: preflight_mtu_min..preflight_mtu_max",
    "nvidia_driver_branch": "preflight.py driver_branch_problems: a driver major version",
    "ngc_container_base_image": "preflight.py image_tag_problems: a pinned tag",
    "nics_interfaces[].address": "nics.py nics_with_defaults: IPv4 with its prefix",
    "nics_interfaces[].gateway": "nics.py nics_with_defaults: inside the address's network",
    "nics_interfaces[].mtu": "nics.py nics_with_defaults: the interface type's range",
    "cluster_users_accounts[].password_hash": "cluster_users.py: a crypt(3) hash",
    "onefs_tiering_exports[].path": "onefs_tiering.py: a directory under /ifs",
    "switches_port_mtu": "switches.py: the platform's range, at least cluster_data_mtu",
    "switches_eos_interfaces[].mtu": "switches.py: the platform's range",
    "switches_cumulus_interfaces[].mtu": "switches.py: the platform's range",
    "switches_eos_interfaces[].name": "switches.py: an interface of the model",
    "switches_mlnxos_interfaces[].name": "switches.py: an interface of the model",
    "switches_cumulus_interfaces[].name": "switches.py: an interface of the model",
    "switches_eos_port_channels[].members[]": "switches.py: interfaces of the model",
    "switches_inter_switch_ports[]": "switches.py: interfaces or Port-Channels of the switch",
    "switches_cumulus_bonds[].slaves[]": "switches.py: interfaces of the model",
    "switches_os10_breakouts[].ports": "switches.py breakout_problems: ports of the model",
    "switches_mlnxos_breakouts[].ports": "switches.py breakout_problems: ports of the model",
    "switches_cumulus_breakouts[].ports": "switches.py breakout_problems: ports of the model",
    "switches_eos_static_routes[].prefix": "switches.py: a network, host bits clear",
    "switches_eos_static_routes[].next_hop": "switches.py: an IP address",
}

# Raw variables (more than one type): what each takes.
RAW_VALUES: dict[str, Format] = {
    # a number for sizes and times, text for names and paths (onefs_tiering.py
    # criterion_problems checks which, by the criterion's type)
    "onefs_tiering_policies[].file_matching_pattern.or_criteria[].and_criteria[].value": Format(
        lambda value: isinstance(value, str | int | float) and not isinstance(value, bool),
        "a number or a text",
        {"size": 100},
    ),
    "slurm_gpus": Format(
        lambda value: value == "auto" or (str(value).isdigit() and not isinstance(value, bool)),
        "auto or a count of GPUs (0 or more)",
        "many",
    ),
    "slurm_partitions[].nodes": Format(
        lambda value: (
            (isinstance(value, str) and bool(value.strip()))
            or (isinstance(value, list) and all(isinstance(item, str) and item for item in value))
        ),
        "node names: a Slurm host list (gpu-[1-4]) or a list of names",
        {"gpu-1": True},
    ),
}

# Mount and export options that say opposite things: nfs(5) and mount(8) for the clients'
# and the server's volume, exports(5) for the kernel server's exports. The tools do not
# refuse them, they take the last one: one list saying both is a mistake either way.
CONTRADICTING_OPTIONS = [
    ("ro", "rw"),
    ("hard", "soft"),
    ("sync", "async"),
    ("lock", "nolock"),
    ("ac", "noac"),
    ("cto", "nocto"),
    ("intr", "nointr"),
    ("atime", "noatime"),
    ("sharecache", "nosharecache"),
    ("resvport", "noresvport"),
    ("subtree_check", "no_subtree_check"),
    ("root_squash", "no_root_squash"),
    ("all_squash", "no_all_squash"),
    ("secure", "insecure"),
    ("wdelay", "no_wdelay"),
]


def contradicting_options(options: Sequence[Any]) -> list[str]:
    """Options of one list that contradict each other: a pair of opposite flags, or one
    key given two different values (vers=3 and vers=4.1)."""
    given = [str(option).strip() for option in options]
    problems = [
        f"{first} and {second} contradict each other; keep one"
        for first, second in CONTRADICTING_OPTIONS
        if first in given and second in given
    ]
    values: dict[str, set[str]] = {}
    for option in given:
        key, has_value, value = option.partition("=")
        if has_value:
            values.setdefault("vers" if key == "nfsvers" else key, set()).add(value)
    problems += [
        f"{key} is given {len(found)} values ({', '.join(sorted(found))}); keep one"
        for key, found in values.items()
        if len(found) > 1
    ]
    return problems


# Checks of a list as a whole, once each item is right.
LIST_CHECKS: dict[str, Callable[[Sequence[Any]], list[str]]] = {
    name: contradicting_options
    for name in (
        "isilon_mounts_data_options",
        "isilon_mounts_data_options_extra",
        "isilon_mounts_default_options",
        "nfs_share_mount_options",
        "nfs_share_kernel_options",
        "nfs_share_client_options",
    )
}


# Dicts whose keys are free (option names, interface names), which argument_specs cannot
# describe: what each value must be, and why.
MAP_VALUES: dict[str, tuple[Callable[[Any], bool], str]] = {
    # Docker's documentation: log-opts values in daemon.json "must be provided as strings";
    # a number there (max-file: 3) keeps dockerd from starting.
    "container_runtime_log_opts": (
        lambda value: isinstance(value, str),
        'a string (quote numbers and booleans, e.g. "3"): Docker reads log-opts as strings only',
    ),
    "switches_os10_port_descriptions": (
        lambda value: isinstance(value, str | int | float) and not isinstance(value, bool),
        "a description (text)",
    ),
}


def _map_problems(value: Any, path: str) -> list[str]:
    """Values of a free-keyed dict (MAP_VALUES) that are not what the device takes."""
    rule = MAP_VALUES.get(_range_key(path))
    if rule is None or not isinstance(value, Mapping):
        return []
    accepts, wanted = rule
    return [
        f"{path}.{key} is {_shown(item)}; it must be {wanted}"
        for key, item in value.items()
        if not accepts(item)
    ]


def _range_key(path: str) -> str:
    """`onefs_tiering_policies[1].idle_days` -> `onefs_tiering_policies[].idle_days`."""
    return re.sub(r"\[\d+\]", "[]", path)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _format_problem(value: Any, converted: Any, spec: Mapping[str, Any], path: str) -> str | None:
    """A string (or path) that is not in its format (FORMATS; an absolute path for a
    `type: path`), or a raw value that is none of what it takes (RAW_VALUES)."""
    key = _range_key(path)
    kind = spec.get("type", "str")
    if kind == "raw":
        rule = RAW_VALUES.get(key)
        if rule is None or rule.accepts(converted):
            return None
        return f"{path} is {_shown(value)}; it must be {rule.wanted}"
    name = FORMATS.get(key) or ("absolute_path" if kind == "path" else None)
    if name is None or (converted == "" and spec.get("default") == ""):
        return None  # a variable whose default is "" may stay empty: that means "not set"
    rule = KINDS[name]
    if rule.accepts(converted):
        return None
    return f"{path} is {_shown(value)}; it must be {rule.wanted}"


def check_value(value: Any, spec: Mapping[str, Any], path: str) -> list[str]:
    """What is wrong with `value` (found at `path`) under one option's `spec`."""
    problems = _value_problems(value, spec, path)
    if problems and spec.get("no_log"):  # a secret's value is never shown, at any depth
        return [f"{path} is not a valid {spec.get('type', 'str')} (not shown)"]
    return problems


def _value_problems(value: Any, spec: Mapping[str, Any], path: str) -> list[str]:
    kind = spec.get("type", "str")
    try:
        converted = CHECKERS.get(kind, validation.check_type_raw)(value)
    except (TypeError, ValueError):
        return [f"{path} is {_shown(value)}, which is not a {kind}"]
    problems = []
    if kind in ("str", "path", "raw"):
        problem = _format_problem(value, converted, spec, path)
        problems += [problem] if problem else []
    choices = spec.get("choices")
    if choices and kind != "list" and converted not in choices:
        allowed = ", ".join(str(choice) for choice in choices)
        problems.append(f"{path} is {_shown(value)}; allowed: {allowed}")
    bounds = RANGES.get(_range_key(path))
    if bounds and kind in ("int", "float"):
        low, high = bounds
        if (low is not None and converted < low) or (high is not None and converted > high):
            problems.append(
                f"{path} is {_shown(value)}; allowed: "
                f"{'' if low is None else low}..{'' if high is None else high}"
            )
    if kind == "list":
        element = {**spec, "type": spec.get("elements", "raw")}
        element.pop("elements", None)
        element.pop("default", None)
        for index, item in enumerate(converted):
            problems += check_value(item, element, f"{path}[{index}]")
        together = LIST_CHECKS.get(_range_key(path))
        if together and not problems:
            problems += [f"{path}: {problem}" for problem in together(converted)]
    elif kind == "dict" and "options" not in spec:
        problems += _map_problems(converted, path)
    elif kind == "dict" and "options" in spec:
        problems += check_options(converted, spec["options"], path)
        for group in spec.get("mutually_exclusive") or []:
            given = [key for key in group if converted.get(key) is not None]
            if len(given) > 1:
                problems.append(f"{path}: give one of {', '.join(given)}, not both")
    return problems


def check_options(values: Mapping[str, Any], options: Mapping[str, Any], path: str) -> list[str]:
    """A dict against nested options: unknown keys, missing required ones, each value."""
    problems = []
    unknown = sorted(set(values) - set(options))
    for key in unknown:
        problems.append(f"{path}.{key} is not a known key (allowed: {', '.join(sorted(options))})")
    for key, spec in options.items():
        if key in values and values[key] is not None:
            problems += check_value(values[key], spec, f"{path}.{key}")
        elif spec.get("required"):
            problems.append(f"{path}.{key} is required")
    return problems


@functools.cache
def _yaml(path: Path) -> Any:
    """A project file's YAML (playbooks, role meta), read once per process (a run does
    not change the project under it), with libyaml's parser where PyYAML has it."""
    return yaml.load(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


_BLOCK = ("block", "rescue", "always")
_ROLE_CALLS = ("ansible.builtin.include_role", "ansible.builtin.import_role")


def _tags(item: Any) -> frozenset[str]:
    tags = item.get("tags") if isinstance(item, dict) else None
    if tags is None:
        return frozenset()
    return frozenset(str(t) for t in (tags if isinstance(tags, list) else [tags]))


def _role_calls(
    tasks: Sequence[Any] | None, tags: frozenset[str] = frozenset()
) -> Iterator[tuple[str, str | None, frozenset[str]]]:
    """(role, tasks_from, tags) of each role a task list includes or imports, blocks
    included; the tags are the calling task's with those of the blocks around it."""
    for task in tasks or []:
        if not isinstance(task, dict):
            continue
        own = tags | _tags(task)
        for key in _ROLE_CALLS:
            call = task.get(key)
            if isinstance(call, dict) and call.get("name"):
                yield call["name"], call.get("tasks_from"), own
        for key in _BLOCK:
            yield from _role_calls(task.get(key), own)


def _playbook_plays(root: Path) -> Iterator[dict[str, Any]]:
    """Every play of the playbooks under root/playbooks, the layers' own
    (playbooks/layers) included."""
    for playbook in sorted((root / "playbooks").rglob("*.yml")):
        for play in _yaml(playbook) or []:
            if isinstance(play, dict) and "hosts" in play:
                yield play


def _plays(root: Path) -> list[tuple[list[str], list[str]]]:
    """(host patterns, roles) of each play of the playbooks."""
    plays = []
    for play in _playbook_plays(root):
        hosts = play["hosts"]
        if isinstance(hosts, str) and "{{" in hosts:
            # a templated pattern, the early phase's "'!all' if done else 'localhost'":
            # the hosts it runs on when it runs
            patterns = re.findall(r"else '([^']+)'", hosts)
        else:
            patterns = hosts if isinstance(hosts, list) else str(hosts).split(":")
        roles = [r if isinstance(r, str) else r.get("role") for r in play.get("roles", [])]
        roles += [name for name, _, _ in _role_calls(play.get("tasks"))]
        plays.append(([str(p) for p in patterns], [r for r in roles if r]))
    return plays


def _dependencies(root: Path, role: str) -> list[str]:
    """The roles a role lists in meta/main.yml (e.g. `cluster`), which run where it runs."""
    path = root / "roles" / role / "meta" / "main.yml"
    meta = _yaml(path) if path.exists() else None
    return [
        d if isinstance(d, str) else d.get("role", d.get("name"))
        for d in (meta or {}).get("dependencies") or []
    ]


def role_hosts(root: str, groups: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """Which hosts each role (and the roles it depends on) runs on, read from the
    playbooks' plays (group names, and the control host of the `localhost` plays)."""
    hosts: dict[str, list[str]] = {}
    for patterns, roles in _plays(Path(root)):
        members = [h for p in patterns if p in groups for h in groups[p]]
        members += ["localhost"] if "localhost" in patterns else []
        for role in roles + [d for r in roles for d in _dependencies(Path(root), r)]:
            known = hosts.setdefault(role, [])
            known += [host for host in members if host not in known]
    return hosts


# What a run's --tags select: Ansible's special tags, with which every role can run, and
# `preflight`, an admin's check of the whole inventory (Ansible's documentation,
# "Tags": special tags always, never, tagged, untagged, all).
_EVERY_ROLE_TAGS = {"all", "tagged", "untagged", "preflight"}


def _tasks_tags(tasks: Sequence[Any] | None) -> set[str]:
    """Every tag on a task list's tasks (blocks included)."""
    found: set[str] = set()
    for task in tasks or []:
        if isinstance(task, dict):
            found |= _tags(task)
            for key in _BLOCK:
                found |= _tasks_tags(task.get(key))
    return found


# The early phase includes other roles for their checks (tasks_from=preflight.yml), which
# roles_run_by_tags narrows itself: such a call does not select the role.
_CHECKS_ENTRY = "preflight.yml"


@functools.cache
def _role_uses(root: Path, role: str) -> tuple[frozenset[str], frozenset[str]]:
    """(every tag on the role's own tasks, the roles its tasks run)."""
    tags: set[str] = set()
    roles: set[str] = set()
    for path in sorted((root / "roles" / role / "tasks").glob("*.yml")):
        tasks = _yaml(path) or []
        tags |= _tasks_tags(tasks)
        roles |= {name for name, entry, _ in _role_calls(tasks) if entry != _CHECKS_ENTRY}
    return frozenset(tags), frozenset(roles - {role})


def _play_uses(root: Path) -> list[tuple[frozenset[str], str, frozenset[str]]]:
    """(the play's tags, a role it runs, the tags of the task that runs it) for every
    role of every play of the playbooks."""
    uses = []
    for play in _playbook_plays(root):
        for entry in play.get("roles") or []:
            name = entry if isinstance(entry, str) else entry.get("role")
            uses.append((_tags(play), name, _tags(entry)))
        uses += [
            (_tags(play), name, tags)
            for name, entry, tags in _role_calls(play.get("tasks"))
            if entry != _CHECKS_ENTRY
        ]
    return uses


def roles_run_by_tags(root: str, run_tags: Sequence[str] | None = None) -> list[str]:
    """The roles a run with these --tags (Ansible's ansible_run_tags) can run, with the
    roles they depend on and include: every role of the playbooks when the run names no
    tag (`all`), a special tag or `preflight`; otherwise each role whose play, whose
    importing task or any of whose own tasks carries one of the tags (or `always`).
    It may name a role the run then does not reach, never leave out one it reaches: the
    early phase checks these roles' inputs, so that a run of one layer (`--tags onefs`,
    the tier change) is not held up by, nor pays for, the checks of layers it leaves
    alone."""
    base = Path(root)
    wanted = {str(t) for t in (run_tags or ["all"])}
    uses = _play_uses(base)
    every = wanted & _EVERY_ROLE_TAGS
    selected = {
        role
        for play_tags, role, task_tags in uses
        if every
        or (tags := play_tags | task_tags | _role_uses(base, role)[0]) & wanted
        or "always" in tags
    }
    pending = list(selected)
    while pending:  # what the selected roles depend on and include runs with them
        role = pending.pop()
        for other in [*_dependencies(base, role), *_role_uses(base, role)[1]]:
            if other not in selected:
                selected.add(other)
                pending.append(other)
    return sorted(selected)


def _contract(root: Path, role: str) -> dict[str, Any]:
    """Every option of every entry point of a role (entry points share names)."""
    path = root / "roles" / role / "meta" / "argument_specs.yml"
    if not path.exists():
        return {}
    options: dict[str, Any] = {}
    for entry in _yaml(path)["argument_specs"].values():
        options.update(entry.get("options") or {})
    return options


def _value(host_vars: Any, name: str) -> tuple[bool, Any]:
    """(set, value) of a host's variable; one that cannot be worked out outside its role
    (it reads the role's defaults) is left to the role's own check."""
    try:
        if name not in host_vars:
            return False, None
        value = _resolved(host_vars[name])
    except Exception:  # any templating error, at any depth: the role checks it itself
        return False, None
    return True, value


def _resolved(value: Any) -> Any:
    """The value with every nested item templated now, so that an item that reads a
    role's defaults fails here rather than later, inside the checks."""
    # ansible-core 2.19 hands an undefined value on as a marker (UndefinedMarker, a
    # Marker), earlier ones as an AnsibleUndefined (a jinja2 Undefined)
    if any(k.__name__ == "Marker" or k.__name__.endswith("Undefined") for k in type(value).__mro__):
        raise ValueError("undefined")
    if isinstance(value, Mapping):
        return {key: _resolved(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_resolved(item) for item in value]
    return value


# Role variable prefixes that were renamed: an inventory that still sets the old name
# would be silently ignored, so preflight names it with its new name.
RENAMED_PREFIXES = {
    "modules_": "lmod_",  # the Lmod role was `modules`, a name Ansible's modules shadowed
    # the OneFS API's endpoint is a setting of the cluster role that several roles read
    "onefs_api_": "cluster_onefs_api_",
}
# Variables that moved to another role (a check the validate role ran is now the proof of
# the role it proves, its tasks/verify.yml): the old name is named with its new one.
RENAMED_VARIABLES = {
    "validate_infiniband_hcas": "rdma_verify_hcas",
    "validate_infiniband_rate": "rdma_verify_rate",
    "validate_thresholds.fio_mbps_min": "isilon_mounts_verify_fio_mbps_min",
    "validate_thresholds.reader_mbps_min": "isilon_mounts_verify_reader_mbps_min",
    "validate_fio_files_per_job": "isilon_mounts_verify_fio_files_per_job",
    "validate_fio_size": "isilon_mounts_verify_fio_size",
    "validate_fio_runtime": "isilon_mounts_verify_fio_runtime",
    "validate_fio_directory": "isilon_mounts_verify_fio_directory",
    "validate_reader_path": "isilon_mounts_verify_reader_path",
    "validate_mtu": "nics_verify_mtu",
    "validate_ping_timeout": "nics_verify_ping_timeout",
    "validate_thresholds.iperf_gbps_min": "nics_verify_iperf_gbps_min",
    "validate_iperf_seconds": "nics_verify_iperf_seconds",
    "validate_iperf_streams": "nics_verify_iperf_streams",
    "validate_iperf_length": "nics_verify_iperf_length",
    "validate_iperf_isilon": "nics_verify_iperf_isilon",
    "validate_iperf2_streams": "nics_verify_iperf2_streams",
    "validate_iperf2_reverse": "nics_verify_iperf2_reverse",
    "validate_slurm_job_wait": "slurm_verify_job_wait",
    "validate_expected_gpus": "nvidia_driver_expected_gpus",
    "validate_nccl_command": "ngc_container_verify_nccl_command",
    "validate_nccl_env": "ngc_container_verify_nccl_env",
    "validate_nccl_gpus_per_server": "ngc_container_verify_nccl_gpus_per_server",
    "validate_nccl_min_busbw_gbps": "ngc_container_verify_nccl_min_busbw_gbps",
    "validate_nccl_timeout": "ngc_container_verify_nccl_timeout",
    "validate_portal_url": "jupyterhub_verify_url",
    "validate_portal_user": "jupyterhub_verify_user",
    "validate_portal_password": "jupyterhub_verify_password",
    "validate_portal_gpus": "jupyterhub_verify_gpus",
    "validate_portal_partition": "jupyterhub_verify_partition",
    "validate_portal_ca_file": "jupyterhub_verify_ca_file",
    "validate_portal_timeout": "jupyterhub_verify_timeout",
    "validate_portal_browser": "jupyterhub_verify_browser",
    "validate_portal_expect_folders": "jupyterhub_verify_expect_folders",
    "validate_portal_cpus_per_gpu": "jupyterhub_verify_cpus_per_gpu",
    "validate_portal_memory_per_gpu_gb": "jupyterhub_verify_memory_per_gpu_gb",
    "validate_portal_time_limit": "jupyterhub_verify_time_limit",
    "validate_slurm_controller": "jupyterhub_hub_host",
}


def _renamed(host_vars: Any) -> list[str]:
    try:
        names = list(host_vars)
    except Exception:  # a mapping the caller cannot list: nothing to say
        return []
    return [
        f"{name} is now {new}{name[len(old) :]}; rename it in the inventory"
        for name in names
        for old, new in RENAMED_PREFIXES.items()
        if str(name).startswith(old)
    ] + [
        f"{old} is now {new}; rename it in the inventory"
        for old, new in RENAMED_VARIABLES.items()
        if _set_in(host_vars, names, old)
    ]


def _set_in(host_vars: Any, names: list[Any], dotted: str) -> bool:
    """Whether the inventory sets `name` or, for `name.key`, that key of the dict `name`."""
    name, _, key = dotted.partition(".")
    if name not in names:
        return False
    if not key:
        return True
    try:
        value = host_vars[name]
    except Exception:  # a value that does not template: its own check says so
        return False
    return isinstance(value, Mapping) and key in value


def role_contract_problems(
    groups: Mapping[str, Sequence[str]],
    hostvars: Mapping[str, Any],
    root: str,
    roles: Sequence[str] | None = None,
) -> list[str]:
    """Every role's set variables on every host it runs on, against its contract; only
    the roles named in `roles` when given (those a run's tags select: roles_run_by_tags).

    A problem shared by several hosts (a group_vars or `-e` value) is said once, with
    the hosts named; a secret's value is never shown.
    """
    found: dict[str, list[str]] = {}
    # hostvars[host] works out all of a host's variables (its cached facts read again)
    # each time it is asked: once per host, not once per option
    host_vars: dict[str, Any] = {}
    for role, hosts in role_hosts(root, groups).items():
        if roles is not None and role not in roles:
            continue
        options = _contract(Path(root), role)
        for host in hosts:
            if host not in host_vars:
                try:
                    host_vars[host] = hostvars[host]
                except KeyError:  # the control host, where the caller passes no variables
                    host_vars[host] = {}
                for problem in _renamed(host_vars[host]):
                    found.setdefault(problem, []).append(host)
            for name, spec in options.items():
                present, value = _value(host_vars[host], name)
                if not present or value is None:
                    continue
                for problem in check_value(value, spec, name):
                    found.setdefault(problem, [])
                    if host not in found[problem]:
                        found[problem].append(host)
    # the control host sees group_vars/all as the servers do: named only when alone
    return [
        f"{', '.join([h for h in hosts if h != 'localhost'] or hosts)}: {problem}"
        for problem, hosts in found.items()
    ]


# Who listens where on the head node: (role, variable) of each TCP port a role opens
# there, the default read from the role's argument specs (a private variable, fixed by
# the role: from its vars/main.yml); the ports of the services the roles run without a
# variable (nfs_share: rpcbind and the NFS server); and sshd, on the port Ansible
# reaches the host on.
LISTENERS = [
    ("jupyterhub", "jupyterhub_port", "the portal"),
    ("jupyterhub", "jupyterhub_hub_port", "the hub's API"),
    ("jupyterhub", "_jupyterhub_proxy_api_port", "the proxy's API"),
    ("slurm", "slurm_controller_port", "slurmctld"),
]
FIXED_LISTENERS = [
    ("nfs_share", 111, "rpcbind"),
    ("nfs_share", 2049, "the NFS server"),
]


def _listener_default(root: Path, role: str, name: str) -> Any:
    if name.startswith("_"):
        return (_yaml(root / "roles" / role / "vars" / "main.yml") or {}).get(name)
    return _contract(root, role).get(name, {}).get("default")


def listener_problems(
    groups: Mapping[str, Sequence[str]],
    hostvars: Mapping[str, Any],
    root: str,
    roles: Sequence[str] | None = None,
) -> list[str]:
    """Two services set to listen on one port of one host (the portal, the hub's API,
    slurmctld, the proxy's API, sshd, rpcbind, NFS): the second would fail to bind after
    the first layers had changed the host. These services run on the head node (the
    roles run on the GPU servers too, as clients), so its hosts are the ones checked.
    With `roles` (those a run's tags select), only a run that can start one of these
    services checks them: it may collide with one an earlier run started."""
    listening = {role for role, _, _ in LISTENERS} | {role for role, _, _ in FIXED_LISTENERS}
    if roles is not None and not listening & set(roles):
        return []
    base = Path(root)
    where = role_hosts(root, groups)
    problems = []
    for host in groups.get("head", []):
        host_vars = hostvars[host]  # works out all of the host's variables: asked once
        ports: dict[int, list[str]] = {}

        def listens(value: Any, label: str, ports: dict[int, list[str]] = ports) -> None:
            if str(value).isdigit():
                ports.setdefault(int(value), []).append(label)

        for role, name, what in LISTENERS:
            if host not in where.get(role, []):
                continue
            if name.startswith("_"):
                listens(_listener_default(base, role, name), what)
                continue
            own = host_vars.get(name)
            listens(_listener_default(base, role, name) if own is None else own, f"{what} ({name})")
        if ports:
            listens(host_vars.get("ansible_port") or 22, "sshd")
        for role, port, what in FIXED_LISTENERS:
            if ports and host in where.get(role, []):
                listens(port, what)
        problems += [
            f"{host}: port {port} is set for {' and '.join(users)}; each needs its own"
            for port, users in sorted(ports.items())
            if len(users) > 1
        ]
    return problems


def _count(value: Any) -> int | None:
    """A GPU count given as a whole number (or its digits), else None (auto, unset)."""
    if isinstance(value, bool) or value is None:
        return None
    try:
        text = str(value).strip()
    except Exception:  # an undefined value (it reads something the host lacks)
        return None
    return int(text) if text.isdigit() else None


# sbatch(1): --gres=gpu[:type]:N, --gpus[=| ][type:]N, -G N, --gpus-per-node=[type:]N
_SBATCH_GPUS = re.compile(
    r"^(?:--gres=gpu(?::[^:,\s]+)?:(\d+)|--gpus(?:-per-node)?[= ](?:[^:\s]+:)?(\d+)|-G ?(\d+))$"
)


def _sbatch_gpus(options: Any) -> int | None:
    counts = [
        int(next(g for g in match.groups() if g))
        for option in (options if isinstance(options, list) else [])
        if (match := _SBATCH_GPUS.match(str(option).strip()))
    ]
    return max(counts) if counts else None


# What asks the GPU servers for GPUs: (role, variable, what it is, how to read a count).
GPU_REQUESTS: list[tuple[str, str, str, Callable[[Any], int | None]]] = [
    ("jupyterhub", "jupyterhub_gpus_max", "the portal's form offers", _count),
    ("jupyterhub", "jupyterhub_verify_gpus", "the portal check asks for", _count),
    (
        "ngc_container",
        "ngc_container_verify_nccl_gpus_per_server",
        "the NCCL check runs on",
        _count,
    ),
    ("apptainer", "apptainer_job_sbatch", "the Apptainer example job asks for", _sbatch_gpus),
]


def gpu_count_problems(
    groups: Mapping[str, Sequence[str]],
    hostvars: Mapping[str, Any],
    root: str,
    roles: Sequence[str] | None = None,
) -> list[str]:
    """GPUs asked for that no GPU server has: each server's count as the inventory
    declares it (slurm_gpus as a count, else nvidia_driver_expected_gpus above 0) against
    the portal's form, the portal check, the NCCL check and the example job. A count the
    inventory leaves to the servers (auto) is not known before the run; a site where no
    server's count is known is checked on the servers (validate's gpus check). slurm_gpus
    and nvidia_driver_expected_gpus that disagree on one server are named too. With
    `roles` (those a run's tags select), only a run that can run one of the roles these
    variables belong to checks them."""
    counting = {"slurm", "nvidia_driver"} | {role for role, _, _, _ in GPU_REQUESTS}
    if roles is not None and not counting & set(roles):
        return []
    where = role_hosts(root, groups)
    declared: dict[str, int] = {}
    declared_vars: dict[str, Any] = {}
    problems = []
    for host in groups.get("compute", []):
        host_vars = declared_vars[host] = hostvars[host]  # works out all its variables: once
        gres = _count(host_vars.get("slurm_gpus"))
        expected = _count(host_vars.get("nvidia_driver_expected_gpus")) or None
        if gres is not None and expected is not None and gres != expected:
            problems.append(
                f"{host}: slurm_gpus is {gres} but nvidia_driver_expected_gpus is {expected};"
                " Slurm would offer GPUs the server does not have, or hide some"
            )
        count = gres if gres is not None else expected
        if count is not None:
            declared[host] = count
    if not declared or len(declared) < len(groups.get("compute", [])):
        return problems  # a server's count is known only on the server: checked there
    most = max(declared.values())
    having = ", ".join(h for h, c in declared.items() if c == most)
    found: dict[str, list[str]] = {}
    for role, name, what, read in GPU_REQUESTS:
        default = _contract(Path(root), role).get(name, {}).get("default")
        for host in where.get(role, []):
            if host == "localhost":
                continue  # the control host only reports on the servers
            own = (declared_vars.get(host) or hostvars[host]).get(name)
            asked = read(default if own is None else own)
            if asked is not None and asked > most:
                given = f"{name}" if own is not None else f"{name} (the role's default)"
                problem = (
                    f"{given}: {what} {asked} GPUs, more than any GPU server has"
                    f" (the most: {most}, on {having})"
                )
                found.setdefault(problem, []).append(host)
    return problems + [f"{', '.join(hosts)}: {problem}" for problem, hosts in found.items()]


class FilterModule:
    """Role contracts checked across the site, before any play changes anything."""

    def filters(self) -> dict[str, Any]:
        return {
            "role_contract_problems": role_contract_problems,
            "roles_run_by_tags": roles_run_by_tags,
            "listener_problems": listener_problems,
            "gpu_count_problems": gpu_count_problems,
        }
