"""The offline plan (playbooks/plan.yml) of every shipped inventory, and golden checks
of the example sites' plans against the papers' literal lines.

Each plan runs under a guard (tests/unit/plan_guard): every Python process of the run
refuses and logs any network connection, and ssh, scp, sshpass, docker and curl are
replaced by a stand-in that logs and fails. A plan passes only if nothing tried to
reach anything. The papers' lines are quoted here with the seed and section they come
from (seeds 000: DSS 8440, 001: DGX-1, 002: DGX A100).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
GUARD = Path(__file__).resolve().parent / "plan_guard"
SITES = ["lab", "dss8440", "dgx1", "dgxa100", "readysolution"]
SECRETS = {
    "DLCLUSTER_ONEFS_PASSWORD": "example-onefs",
    "DLCLUSTER_SWITCH_PASSWORD": "example-switch",
    "DLCLUSTER_NGC_API_KEY": "example-ngc",
    "DLCLUSTER_IDRAC_PASSWORD": "example-idrac",
    "DLCLUSTER_LDAP_ADMIN_PASSWORD": "example-ldap-admin",
    "DLCLUSTER_LDAP_BIND_PASSWORD": "example-ldap-bind",
}
PAPERS_DATA_OPTIONS_000 = "rsize=524288,wsize=524288,nolock,soft,timeo=50,retrans=1,proto=tcp"


# What `lab up` makes under the lab's state and the lab inventory reads as PEM (the
# directory's certificate and key): stand-ins of the right form, never used, since a
# guarded run contacts nothing.
LAB_STATE_PEM = {
    "pki/ldap.crt": "-----BEGIN CERTIFICATE-----\nstand-in\n-----END CERTIFICATE-----\n",
    "pki/ldap.key": "-----BEGIN PRIVATE KEY-----\nstand-in\n-----END PRIVATE KEY-----\n",
}


def guarded_run(argv: list[str], log: Path) -> subprocess.CompletedProcess[str]:
    for name, text in LAB_STATE_PEM.items():
        path = log.parent / "lab-state" / name
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    env = {
        **os.environ,
        **SECRETS,
        "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"),
        "ANSIBLE_NOCOLOR": "1",
        "DLCLUSTER_LAB_STATE": str(log.parent / "lab-state"),
        "DLCLUSTER_PLAN_GUARD_LOG": str(log),
        "PYTHONPATH": str(GUARD),
        "PATH": f"{GUARD / 'bin'}:{BIN}:{os.environ.get('PATH', '')}",
    }
    return subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def plans(tmp_path_factory) -> dict[str, tuple[Path, subprocess.CompletedProcess[str], str]]:
    """Every site's plan, made once: (directory, run, what the guard caught)."""
    made = {}
    for site in SITES:
        base = tmp_path_factory.mktemp(site)
        log = base / "guard.log"
        log.touch()
        result = guarded_run(
            [str(BIN / "ansible-playbook"), "-i", f"inventories/{site}", "playbooks/plan.yml",
             "-e", f"plan_dir={base / 'plan'}"],
            log,
        )  # fmt: skip
        made[site] = (base / "plan", result, log.read_text())
    return made


def _inventory(site: str) -> dict:
    result = subprocess.run(
        [str(BIN / "ansible-inventory"), "-i", f"inventories/{site}", "--list"],
        cwd=ROOT,
        env={**os.environ, **SECRETS, "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg")},
        capture_output=True,
        text=True,
        check=True,
    )
    return yaml.safe_load(result.stdout)


def _lines(path: Path) -> list[str]:
    """The file's lines without indentation (the papers indent as they like)."""
    return [line.strip() for line in path.read_text().splitlines()]


def test_the_guard_catches_a_connection_and_a_client(tmp_path):
    log = tmp_path / "guard.log"
    result = guarded_run(
        [sys.executable, "-c", "import socket; socket.create_connection(('127.0.0.1', 9), 1)"], log
    )
    assert result.returncode != 0 and "plan guard" in result.stderr
    assert "python connect ('127.0.0.1', 9)" in log.read_text()
    assert guarded_run(["ssh", "dgx1-1", "true"], log).returncode == 255
    assert "exec ssh dgx1-1 true" in log.read_text()


@pytest.mark.parametrize("site", SITES)
def test_plan_renders_every_layer_and_contacts_nothing(plans, site):
    plan, result, caught = plans[site]
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    assert caught == "", caught
    # the plan starts with the early phase: the site passes every inventory check
    assert "Inventory checks passed" in result.stdout
    groups = _inventory(site)
    for switch in groups.get("switches", {}).get("hosts", []):
        assert (plan / "switches" / f"{switch}.cfg").read_text().strip()
    for server in groups["compute"]["hosts"]:
        root = plan / "servers" / server
        for name in ("etc/fstab.dlcluster", "etc/dlcluster/data_mounts", "etc/hosts",
                     "docker-run.sh"):  # fmt: skip
            assert (root / name).read_text().strip(), f"{server}: {name} is empty"
        written = [*root.glob("etc/network/interfaces.d/*"), *root.glob("etc/netplan/*"),
                   *root.glob("nmcli-connections.yml")]  # fmt: skip
        assert written, f"{server}: no interface configuration in the plan"
    assert "mpirun --n " in (plan / "servers" / "mpi-launch.sh").read_text()
    changes = yaml.safe_load((plan / "onefs" / "change-set.yml").read_text())["changes"]
    assert changes[-1] == {"object": "job", "name": "SmartPools", "action": "start",
                           "because": len(changes) - 2}  # fmt: skip


def test_plan_refuses_a_directory_it_did_not_write(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    result = guarded_run(
        [str(BIN / "ansible-playbook"), "-i", "inventories/dss8440", "playbooks/plan.yml",
         "-e", f"plan_dir={tmp_path}"],
        tmp_path / "guard.log",
    )  # fmt: skip
    assert result.returncode != 0
    assert "holds files a plan did not write" in result.stdout
    assert (tmp_path / "notes.txt").read_text() == "mine"


# ---- seed 000 (DSS 8440) ---------------------------------------------------------------


def test_dss8440_switch_holds_seed_000_appendix_a_s5232_lines(plans):
    """Seed 000 Appendix A, "Dell EMC Networking S5232 switch"."""
    lines = _lines(plans["dss8440"][0] / "switches" / "s5232-1.cfg")
    assert lines[:2] == ["ip vrf default", "!"]
    breakouts = [f"interface breakout 1/1/{port} map 40g-1x" for port in range(21, 33)]
    assert lines[2:14] == breakouts
    text = "\n".join(lines)
    assert "interface vlan1\nno shutdown\n!" in text
    for port in range(21, 33):
        assert f"interface ethernet1/1/{port}:1\nno shutdown\nswitchport access vlan 1\n!" in text


def test_dss8440_interfaces_hold_seed_000_appendix_a_stanzas(plans):
    """Seed 000 Appendix A, "Dell EMC DSS 8440": /etc/network/interfaces."""
    root = plans["dss8440"][0] / "servers" / "dss8440-1" / "etc/network/interfaces.d"
    for name, address in (("enp31s0f0", "172.16.1.1"), ("enp31s0f1", "172.16.1.2")):
        lines = _lines(root / f"60-dlcluster-{name}")
        assert lines[1:5] == [f"auto {name}", f"iface {name} inet static",
                              f"address {address}", "netmask 255.255.255.0"]  # fmt: skip


def test_dss8440_mounts_follow_seed_000_isilon_volume_mounting(plans):
    """Seed 000 "Isilon volume mounting": `mount -t nfs 172.16.1.11:/ifs /mnt/isilon`,
    then /mnt/isilon1..4 to 172.16.1.11..14 with common_mount_opts (its `wsizer=` typo
    read as wsize=)."""
    server = plans["dss8440"][0] / "servers" / "dss8440-1"
    assert (server / "etc/fstab.dlcluster").read_text().splitlines() == [
        "172.16.1.11:/ifs /mnt/isilon nfs defaults 0 0",
        *(f"172.16.1.1{i}:/ifs /mnt/isilon{i} nfs {PAPERS_DATA_OPTIONS_000} 0 0"
          for i in range(1, 5)),
    ]  # fmt: skip
    listed = [line for line in _lines(server / "etc/dlcluster/data_mounts") if line[:1] == "/"]
    # each mount point, then the address and export it mounts as a comment
    assert listed == [f"/mnt/isilon{i}  # 172.16.1.1{i}:/ifs" for i in range(1, 5)]


def test_dss8440_launch_is_seed_000_benchmark_methodology_command(plans):
    """Seed 000 "Benchmark methodology": ResNet-50 with 10 GPUs (`--host localhost:10`
    names the one server; `-mca pml obl` read as ob1)."""
    launch = (plans["dss8440"][0] / "servers" / "mpi-launch.sh").read_text().splitlines()[-1]
    assert launch.startswith("mpirun --n 10 --allow-run-as-root --host dss8440-1:10 ")
    for part in (
        "--report-bindings --bind-to none --map-by slot -x LD_LIBRARY_PATH -x PATH",
        "-mca plm_rsh_agent ssh -mca plm_rsh_args '-p 2222' -mca pml ob1 -mca btl '^openib'",
        "-mca btl_tcp_if_include enp132s0 -x NCCL_DEBUG=INFO -x NCCL_IB_HCA=mlx5",
        "-x NCCL_IB_SL=4 -x NCCL_IB_GID_INDEX=3 -x NCCL_NET_GDR_READ=1",
        "-x 'NCCL_SOCKET_IFNAME=^docker0'",
        # round_robin_mpi.py's inputs, which the papers' script had built in: ranks that
        # mpirun starts over ssh do not inherit the container's environment
        "-x DLCLUSTER_DATA_MOUNTS=/etc/dlcluster/data_mounts"
        " -x DLCLUSTER_DATA_PATH=data/imagenet-scratch/tfrecords"
        " /usr/local/bin/round_robin_mpi.py python -u "
        "/mnt/isilon/data/tensorflow-benchmarks/scripts/tf_cnn_benchmarks/tf_cnn_benchmarks.py "
        "--model=resnet50 --batch_size=256",
        "--datasets_num_private_threads=2 "
        "--train_dir=/imagenet-scratch/train_dir/2019-05-17-18-15-15-resnet50",
        "--variable_update=horovod --horovod_device=gpu",
    ):
        assert part in launch, part


def test_dss8440_container_runs_with_seed_000_docker_options(plans):
    """Seed 000 "Running the containers": --network=host --shm-size=1g --ulimit
    memlock=-1 --ulimit stack=67108864 -v /mnt:/mnt --name tf, sshd in it, every GPU
    (nvidia-docker); the image built FROM nvcr.io/nvidia/tensorflow:19.03-py3 and pushed
    to the site's own registry. --privileged is left out: nothing here needs it."""
    run = (plans["dss8440"][0] / "servers" / "dss8440-1" / "docker-run.sh").read_text()
    assert "FROM nvcr.io/nvidia/tensorflow:19.03-py3 and push it" in run
    for part in ("--name tf", "--network host", "--shm-size 1g", "--ulimit memlock=-1",
                 "--ulimit stack=67108864", "--gpus all", "-v /mnt:/mnt",
                 "registry.dss8440.example:5000/dlcluster/tensorflow:19.03-py3-ssh "
                 "/usr/sbin/sshd"):  # fmt: skip
        assert part in run, part
    assert "nvcr.io/dlcluster" not in run
    # no compute HCAs in the inventory: no RDMA devices and no NCCL_IB_HCA/UCX list derived
    assert "/dev/infiniband" not in run and "IPC_LOCK" not in run
    launch = (plans["dss8440"][0] / "servers" / "mpi-launch.sh").read_text()
    assert "UCX_NET_DEVICES" not in launch


# ---- seed 001 (DGX-1) --------------------------------------------------------------------


def test_dgx1_switches_hold_seed_001_arista_lines(plans):
    """Seed 001 "Arista data switches": the most important configuration commands, and
    100G to the servers and between the switches, 40G to the Isilon nodes."""
    for switch in ("arista-7060-1", "arista-7060-2"):
        text = "\n".join(_lines(plans["dgx1"][0] / "switches" / f"{switch}.cfg"))
        for block in ("transceiver qsfp default-mode 4x10G", "spanning-tree mode mstp",
                      "interface Port-Channel10",
                      "interface Ethernet31/1\nspeed forced 100gfull\nchannel-group 10 mode active",
                      "interface Ethernet32/1\nspeed forced 100gfull\nchannel-group 10 mode active",
                      "ip route 0.0.0.0/0 10.55.67.1", "ip routing"):  # fmt: skip
            assert block in text, (switch, block)
        assert text.count("speed forced 100gfull") == 20 and text.count("speed forced 40gfull") == 8


def test_dgx1_mounts_follow_seed_001_isilon_volume_mounting(plans):
    """Seed 001 "Isilon volume mounting": `mount -t nfs 10.55.66.211:/ifs /mnt/isilon`,
    then /mnt/isilon1 -> 10.55.66.211, isilon2 -> .212, ..., isilon9 -> 10.55.5.211, ...,
    isilon16 -> 10.55.5.218, each rsize=524288,wsize=524288,nolock (on DGX1-1; the other
    servers start one address later each)."""
    lines = (plans["dgx1"][0] / "servers" / "dgx1-1" / "etc/fstab.dlcluster").read_text()
    addresses = [f"10.55.66.{n}" for n in range(211, 219)] + [
        f"10.55.5.{n}" for n in range(211, 219)
    ]
    assert lines.splitlines() == [
        "10.55.66.211:/ifs /mnt/isilon nfs defaults 0 0",
        *(f"{address}:/ifs /mnt/isilon{i} nfs rsize=524288,wsize=524288,nolock 0 0"
          for i, address in enumerate(addresses, 1)),
    ]  # fmt: skip
    second = (plans["dgx1"][0] / "servers" / "dgx1-2" / "etc/fstab.dlcluster").read_text()
    assert second.splitlines()[1].startswith("10.55.66.212:/ifs /mnt/isilon1 ")


def test_dgx1_interfaces_and_hosts_hold_seed_001_network_lines(plans):
    """Seed 001 "DGX-1 networking": DGX1-1's four data interfaces, and /etc/hosts with
    every server's enp132s0 address."""
    server = plans["dgx1"][0] / "servers" / "dgx1-1"
    stanza = _lines(server / "etc/network/interfaces.d/60-dlcluster-enp132s0")
    assert stanza[1:6] == ["auto enp132s0", "iface enp132s0 inet static", "address 10.55.66.231",
                           "netmask 255.255.255.0", "gateway 10.55.66.1"]  # fmt: skip
    hosts = (server / "etc/hosts").read_text()
    for address, name in (("10.55.66.231", "dgx1-1"), ("10.55.66.155", "dgx1-7"),
                          ("10.55.66.163", "dgx1-9")):  # fmt: skip
        assert f"{address} {name}\n" in hosts


def test_dgx1_launch_is_seed_001_72_gpu_command(plans):
    """Seed 001 "Benchmark methodology": ResNet-50 training with 72 GPUs."""
    launch = (plans["dgx1"][0] / "servers" / "mpi-launch.sh").read_text().splitlines()[-1]
    hosts = ",".join(f"dgx1-{n}:8" for n in range(1, 10))
    assert launch.startswith(f"mpirun --n 72 --allow-run-as-root --host {hosts} ")
    for part in (
        "-mca pml ob1 -mca btl '^openib' -mca btl_tcp_if_include enp132s0",
        "-x NCCL_IB_SL=4 -x NCCL_IB_GID_INDEX=3 -x NCCL_NET_GDR_READ=1",
        "--datasets_num_private_threads=10 "
        "--train_dir=/mnt/isilon/data/train_dir/2018-10-11-19-36-39-resnet50",
    ):
        assert part in launch, part
    run = (plans["dgx1"][0] / "servers" / "dgx1-1" / "docker-run.sh").read_text()
    assert "FROM nvcr.io/nvidia/tensorflow:18.09-py3" in run


def test_dgx1_tiers_follow_seed_000_appendix_a_tiering_steps(plans):
    """Seed 000 Appendix A "Configuring automatic storage tiering", steps 3-6 (seed 001's
    H500 section tiers the same way): access time with 1-day precision, hot-tier = the
    F800 pool, cold-tier = the H500 pool, the default policy to hot-tier using SSDs for
    data and metadata, optimized for concurrent access, files not accessed for 30 days to
    cold-tier, then a SmartPools job."""
    change = yaml.safe_load((plans["dgx1"][0] / "onefs" / "change-set.yml").read_text())
    assert change["access_time"] == {"enabled": True, "precision_days": 1}
    by_name = {(c["object"], c["name"]): c for c in change["changes"]}
    assert by_name[("tier", "hot-tier")]["nodepools"] == ["f800_48tb-ssd_256gb"]
    assert by_name[("tier", "cold-tier")]["nodepools"] == ["h500_60tb_3.2tb-ssd_128gb"]
    assert by_name[("default policy", "default")]["data"] == {"storagepool": "hot-tier",
                                                               "ssd_strategy": "data"}  # fmt: skip
    idle = by_name[("file pool policy", "Idle data to cold tier")]
    assert idle["storagepool"] == "cold-tier"
    criterion = idle["file_matching_pattern"]["or_criteria"][0]["and_criteria"][0]
    assert criterion["type"] == "accessed" and criterion["condition"] == "is_older_than"
    assert criterion["relative_datetime_count"] == {"time_value": 30, "time_unit": "days"}
    assert [c["object"] for c in change["changes"]][-1] == "job"


# ---- seed 002 (DGX A100) ---------------------------------------------------------------


def test_dgxa100_plan_follows_seed_002_tables(plans):
    """Seed 002 Table 1 (four DGX A100, one F800 chassis of four nodes, two SN3700, two
    QM8700) and Table 2 (the NGC MXNet image 20.06-py3): one F800 tier, eight ranks per
    server."""
    plan = plans["dgxa100"][0]
    run = (plan / "servers" / "dgx-a100-1" / "docker-run.sh").read_text()
    assert "FROM nvcr.io/nvidia/mxnet:20.06-py3" in run
    assert "registry.dgxa100.example:5000/dlcluster/mxnet:20.06-py3-ssh" in run
    launch = (plan / "servers" / "mpi-launch.sh").read_text().splitlines()[-1]
    hosts = ",".join(f"dgx-a100-{n}:8" for n in range(1, 5))
    assert launch.startswith(f"mpirun --n 32 --allow-run-as-root --host {hosts} ")
    # the compute HCAs by exact name, the storage ones left out, for NCCL and UCX alike,
    # from cluster_ib_compute_hcas; the containers reach the HCAs' device files
    assert "-x NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_6:1,mlx5_7:1," in launch
    assert "-x UCX_NET_DEVICES=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_6:1,mlx5_7:1," in launch
    assert launch.count("NCCL_IB_HCA") == 1
    # the capability as the engine records it, which the container task asks for too
    assert " --device /dev/infiniband:/dev/infiniband --cap-add CAP_IPC_LOCK " in run
    # Table 1's two SN3700: MTU 9216, the DGX A100 at 200G, the F800 nodes at 40G
    for switch in ("sn3700-1", "sn3700-2"):
        lines = _lines(plan / "switches" / f"{switch}.cfg")
        assert "net add interface swp1 link speed 200000" in lines
        assert "net add interface swp21 link speed 40000" in lines
        assert sum(line.endswith(" mtu 9216") for line in lines) == 8
        # planned from the links: each port named after the host on its cable, one VLAN
        assert "net add interface swp4 alias dgx-a100-4" in lines
        assert "net add interface swp24 bridge access 100" in lines
        # the same plan for a switch found on Cumulus Linux 5.x, in NVUE
        nvue = _lines(plan / "switches" / f"{switch}.nvue.cfg")
        assert "nv set interface swp1 link speed 200G" in nvue
        assert "nv set interface swp21 link mtu 9216" in nvue
    # Table 1's two QM8700: each server's HDR ports at HDR, the subnet manager on one
    first = _lines(plan / "switches" / "qm8700-1.cfg")
    second = _lines(plan / "switches" / "qm8700-2.cfg")
    assert [f"interface ib 1/{n} speed hdr" for n in range(1, 17)] == first[:16] == second[:16]
    assert "ib sm" in first and "ib sm" not in second
    assert not any("module-type" in line or "shutdown" in line for line in first + second)
    change = yaml.safe_load((plan / "onefs" / "change-set.yml").read_text())
    tiers = [c for c in change["changes"] if c["object"] == "tier"]
    assert tiers == [{"object": "tier", "name": "f800-tier", "action": "create",
                      "nodepools": ["f800_48tb-ssd_256gb"]}]  # fmt: skip


def test_lab_image_is_named_after_its_base_image_behind_a_registry_port(plans):
    """The SSH-enabled image is dlcluster/<base image name>, also when the base image's
    registry has a port (lab-registry:5000/nvidia/tensorflow:19.03-py3)."""
    run = (plans["lab"][0] / "servers" / "lab-compute-1" / "docker-run.sh").read_text()
    assert " lab-registry:5000/dlcluster/tensorflow:19.03-py3-ssh /usr/sbin/sshd" in run


def test_onefs_change_set_against_a_recorded_cluster_state(tmp_path):
    """-e onefs_tiering_recorded_state=FILE (onefs_info's answer saved to a file): what
    the cluster already holds is 'unchanged', what differs is 'modify' with what it was."""
    recorded = tmp_path / "cluster.yml"
    recorded.write_text(
        yaml.safe_dump(
            {
                "tiers": [
                    {"name": "hot-tier", "children": ["f800_48tb-ssd_256gb"]},
                    {"name": "cold-tier", "children": []},
                ],
                "nfs_exports": [{"id": 1, "paths": ["/ifs"]}],
            }
        )
    )
    result = guarded_run(
        [str(BIN / "ansible-playbook"), "-i", "inventories/dgx1", "playbooks/plan.yml",
         "-e", f"plan_dir={tmp_path / 'plan'}", "-e", f"onefs_tiering_recorded_state={recorded}"],
        tmp_path / "guard.log",
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:]
    text = (tmp_path / "plan" / "onefs" / "change-set.yml").read_text()
    assert f"# compared with: {recorded}" in text
    changes = {(c["object"], c["name"]): c for c in yaml.safe_load(text)["changes"]}
    assert changes[("tier", "hot-tier")]["action"] == "unchanged"
    assert changes[("tier", "cold-tier")]["action"] == "modify"
    assert changes[("tier", "cold-tier")]["was"] == []
    assert changes[("NFS export", "/ifs")]["action"] == "unchanged"
    assert changes[("file pool policy", "Idle data to cold tier")]["action"] == "create"


def test_readysolution_slurm_follows_seed_004(plans):
    """seed 004 §5.3 Figure 39 (sinfo: hipri* and sxm2 at 12:00:00, iq at 6:00:00,
    requestq without a limit), §3.3 (shareq), Table 2 (C4140: 2 x 20 cores, 4 V100-SXM2)."""
    plan, result, _ = plans["readysolution"]
    assert result.returncode == 0, result.stdout[-2000:]
    slurm = plan / "servers" / "headnode" / "etc" / "slurm"
    partitions = (slurm / "partitions.conf").read_text()
    assert "PartitionName=hipri Nodes=ALL Default=YES MaxTime=12:00:00 State=UP" in partitions
    assert "PartitionName=sxm2 Nodes=ALL Default=NO MaxTime=12:00:00 State=UP" in partitions
    assert "PartitionName=iq Nodes=ALL Default=NO MaxTime=6:00:00 State=UP" in partitions
    assert "PartitionName=requestq Nodes=ALL Default=NO MaxTime=INFINITE State=UP" in partitions
    assert "PartitionName=shareq " in partitions
    conf = (slurm / "slurm.conf").read_text()
    assert "SlurmctldHost=headnode" in conf and "GresTypes=gpu" in conf
    for node in ("node001", "node002", "node003", "node004"):
        assert (
            f"NodeName={node} CPUs=40 Boards=1 SocketsPerBoard=2 CoresPerSocket=20 "
            "ThreadsPerCore=1 RealMemory=380000 Gres=gpu:4 State=UNKNOWN"
        ) in conf
    gres = (slurm / "gres.conf").read_text()
    assert "NodeName=node004 Name=gpu File=/dev/nvidia3" in gres
    cgroup = (slurm / "cgroup.conf").read_text()
    assert "ConstrainDevices=yes" in cgroup
    # accounting in slurmdbd, its password not in the plan; each node's health check
    assert "AccountingStorageType=accounting_storage/slurmdbd" in conf
    assert "HealthCheckProgram=/usr/local/sbin/dlcluster-healthcheck" in conf
    dbd = (slurm / "slurmdbd.conf").read_text()
    assert "DbdHost=headnode" in dbd and "StoragePass=(slurm_accounting_db_password" in dbd
    check = (plan / "servers" / "node004" / "usr/local/sbin/dlcluster-healthcheck").read_text()
    assert "NODE=node004" in check and "EXPECTED_GPUS=4" in check


def test_readysolution_nfs_share_follows_seed_004(plans):
    """seed 004 §2.1: the head node's 12 NL-SAS drives in RAID 50, XFS, exported over NFS via
    IPoIB to the compute nodes (home and shared)."""
    plan, result, _ = plans["readysolution"]
    assert result.returncode == 0, result.stdout[-2000:]
    head = plan / "servers" / "headnode"
    share = yaml.safe_load((head / "nfs_share.yml").read_text())
    assert share["raid"]["method"] == "perc" and share["raid"]["level"] == 50
    assert share["raid"]["disks"] == 12 and share["raid"]["data_disks"] == 10
    assert share["raid"]["members"] == [
        f"Disk.Bay.{bay}:Enclosure.Internal.0-1:RAID.Slot.1-1" for bay in range(12)
    ]
    assert share["mkfs"].startswith("mkfs.xfs -d su=256k,sw=10 -L nfs_share /dev/disk/by-id/")
    # Served on the head node's IPoIB address, to the compute nodes' IPoIB addresses only.
    assert share["address"] == "10.10.0.1"
    assert share["client_fstab"][0] == {
        "src": "10.10.0.1:/srv/nfs/home",
        "path": "/home",
        "opts": "vers=3,proto=tcp,hard,rsize=1048576,wsize=1048576,_netdev",
    }
    assert share["client_fstab"][1]["path"] == "/cm/shared"
    exports = (head / "etc" / "exports.d" / "dlcluster.exports").read_text().splitlines()
    home = next(line for line in exports if line.startswith("/srv/nfs/home "))
    for address in ("10.10.1.1", "10.10.1.2", "10.10.1.3", "10.10.1.4"):
        assert f"{address}(rw,sync,no_subtree_check,no_root_squash)" in home
    assert "10.20.0." not in home  # not the Isilon network


def test_readysolution_users_are_in_the_head_nodes_directory(plans):
    """seed 004 §2.7: the portal "integrates with LDAP for user management": the head node
    runs the directory over ldaps:// only, every server reads it through sssd, and the plan
    shows the entries without a secret (the environment's passwords are not in it)."""
    plan, result, _ = plans["readysolution"]
    assert result.returncode == 0, result.stdout[-2000:]
    head = plan / "servers" / "headnode"
    assert 'SLAPD_SERVICES="ldaps://0.0.0.0/ ldapi:///"' in (head / "etc/default/slapd").read_text()
    ldif = (head / "directory.ldif").read_text()
    assert "dn: uid=user1,ou=people,dc=readysolution,dc=example" in ldif
    assert "uidNumber: 5001" in ldif and "objectClass: posixAccount" in ldif
    assert "dn: cn=sssd,dc=readysolution,dc=example" in ldif
    for server in ("headnode", "node001", "node004"):
        sssd = (plan / "servers" / server / "etc/sssd/sssd.conf").read_text()
        assert "ldap_uri = ldaps://headnode" in sssd and "ldap_tls_reqcert = demand" in sssd
        assert "ldap_default_bind_dn = cn=sssd,dc=readysolution,dc=example" in sssd
    every_file = "".join(p.read_text() for p in plan.rglob("*") if p.is_file())
    for secret in (
        SECRETS["DLCLUSTER_LDAP_ADMIN_PASSWORD"],
        SECRETS["DLCLUSTER_LDAP_BIND_PASSWORD"],
    ):
        assert secret not in every_file


@pytest.mark.parametrize("site", SITES)
def test_every_site_plans_its_monitoring(plans, site):
    """Prometheus on the first host of the site's `monitoring` group scrapes node_exporter
    on every server and the GPU exporter on each GPU server, with the alert rules and
    Alertmanager's routes beside it."""
    plan, result, _ = plans[site]
    assert result.returncode == 0, result.stdout[-2000:]
    inventory = _inventory(site)
    (monitor,) = inventory["monitoring"]["hosts"][:1]
    config = yaml.safe_load(
        (plan / "servers" / monitor / "etc/prometheus/prometheus.yml").read_text()
    )
    jobs = {job["job_name"]: job["static_configs"] for job in config["scrape_configs"]}
    instances = {
        job: [group["labels"]["instance"] for group in groups] for job, groups in jobs.items()
    }
    compute = inventory["compute"]["hosts"]
    head = inventory.get("head", {}).get("hosts", [])
    assert set(instances["node"]) == set(head) | set(compute)
    assert instances["gpu"] == compute
    assert instances.get("slurm", []) == head[:1]
    rules = yaml.safe_load(
        (plan / "servers" / monitor / "etc/prometheus/dlcluster-alerts.yml").read_text()
    )
    names = {rule["alert"] for group in rules["groups"] for rule in group["rules"]}
    assert {"TargetDown", "SlurmNodeDrained", "GpuMissing"} <= names
    assert (plan / "servers" / monitor / "etc/prometheus/alertmanager.yml").is_file()
