"""Slurm on the lab (seed 004 §5.3): partitions, GPU gres, device cgroups, MPI, reconfigure.

The lab's compute nodes carry four stand-in GPU device nodes each (major 195, no driver
behind them): opening an allowed one fails with ENXIO ("No such device or address"),
one the job's device cgroup denies with EPERM ("Operation not permitted"). That is how
these tests see which GPUs a job may use.
"""

from __future__ import annotations

import json
import re
import shlex
import time

import pytest
from conftest import docker_host, lab_password, load_lab_groups, run_playbook

HEAD = "lab-head"
COMPUTE = sorted(load_lab_groups()["compute"])
# Per task: host, CUDA_VISIBLE_DEVICES, and which of the node's GPU device files the
# task may open (ENXIO: allowed, no driver; EPERM: denied by the job's cgroup).
PROBE = r"""
allowed=""
for dev in /dev/nvidia[0-9]*; do
  err=$(head -c1 "$dev" 2>&1 >/dev/null)
  case "$err" in *"No such device or address"*) allowed="$allowed,${dev#/dev/}";; esac
done
echo "task=$SLURM_PROCID host=$(hostname) cvd=$CUDA_VISIBLE_DEVICES allowed=${allowed#,}"
"""


def _head():
    return docker_host(HEAD)


def _run(command: str) -> str:
    result = _head().run(command)
    assert result.rc == 0, f"{command}: rc={result.rc}\n{result.stdout}\n{result.stderr}"
    return result.stdout


def _tasks(output: str) -> list[dict[str, str]]:
    return [
        dict(re.findall(r"(\w+)=(\S*)", line))
        for line in output.splitlines()
        if line.startswith("task=")
    ]


def test_sinfo_shows_the_papers_partitions_with_every_node_idle():
    out = _run("sinfo --noheader --format='%P %a %l %D %t %N'")
    partitions = {line.split()[0]: line.split() for line in out.splitlines()}
    # seed 004 Figure 39: hipri is the default partition (marked *), sxm2 beside it
    assert "hipri*" in partitions and "sxm2" in partitions, out
    assert partitions["hipri*"][2] == "12:00:00", out
    nodes = _run("sinfo --Node --noheader --format='%N %t'").split("\n")
    states = dict(line.split() for line in nodes if line.strip())
    assert set(states) == set(COMPUTE), out
    assert set(states.values()) == {"idle"}, states


@pytest.mark.parametrize("node", COMPUTE)
def test_each_node_has_four_gpus_as_gres(node):
    out = _run(f"scontrol show node {node}")
    assert re.search(r"^\s*Gres=gpu:4(\(S:[^)]*\))?\s*$", out, re.M), out
    assert "CPUTot=40" in out and "RealMemory=384000" in out, out
    # The cluster's configuration reached the node through slurmd (configless).
    conf = docker_host(node).run("cat /run/slurm/conf/gres.conf").stdout
    assert f"NodeName={node} Name=gpu File=/dev/nvidia3" in conf


def test_the_papers_sample_job_runs_across_two_nodes(tmp_path):
    """seed 004 Figure 38, with the module lines of the lab's tree and, for the CUDA
    SDK's p2pBandwidthLatencyTest (no GPU here), a probe per task."""
    job = "\n".join(
        [
            "#!/bin/bash",
            "#SBATCH -N 2",
            "#SBATCH -n 8",
            "#SBATCH --ntasks-per-node 4",
            "#SBATCH -p sxm2",
            "#SBATCH --gres=gpu:4",
            "#SBATCH -o /var/tmp/slurm-%j.out",
            "module load shared",
            "module load openmpi",
            "hostname",
            f"srun bash -c '{PROBE}'",
            "",
        ]
    )
    head = _head()
    head.run(f"cat > /root/sample.job <<'EOF'\n{job}EOF")
    # submitted from a login shell, as a user does: the job inherits its MODULEPATH
    submitted = _run("bash -lc 'cd /root && sbatch --parsable --wait sample.job'").strip()
    job_id = submitted.split(";")[0]
    info = _run(f"scontrol show job {job_id}")
    assert "JobState=COMPLETED" in info, info
    batch_host = re.search(r"BatchHost=(\S+)", info).group(1)
    out = docker_host(batch_host).run(f"cat /var/tmp/slurm-{job_id}.out").stdout
    tasks = _tasks(out)
    assert len(tasks) == 8, out
    hosts = {t["host"] for t in tasks}
    assert len(hosts) == 2 and hosts <= set(COMPUTE), out
    for task in tasks:
        assert task["cvd"] == "0,1,2,3", out
        assert task["allowed"] == "nvidia0,nvidia1,nvidia2,nvidia3", out


def test_a_job_sees_only_the_gpus_it_was_given():
    """Two 2-GPU jobs on one node: each may open only its own two device files."""
    node = COMPUTE[0]
    head = _head()
    # both held for 5 s so that they share the node
    cmd = f"srun -w {node} -N1 -n1 --gres=gpu:2 bash -c {shlex.quote(PROBE + 'sleep 5')}"
    first = head.run(f"{cmd} & {cmd} & wait").stdout
    tasks = _tasks(first)
    assert len(tasks) == 2, first
    allowed = [set(t["allowed"].split(",")) for t in tasks]
    assert all(len(a) == 2 for a in allowed), first
    assert allowed[0].isdisjoint(allowed[1]), first
    assert allowed[0] | allowed[1] == {"nvidia0", "nvidia1", "nvidia2", "nvidia3"}, first
    # with ConstrainDevices, each job numbers its own GPUs from 0
    assert {t["cvd"] for t in tasks} == {"0,1"}, first


def test_a_job_asking_for_more_gpus_than_a_node_has_is_refused_at_submission():
    result = _head().run("sbatch -N1 -p sxm2 --gres=gpu:5 --wrap true")
    assert result.rc != 0
    assert "Requested node configuration is not available" in result.stderr


def test_an_mpi_job_spans_the_nodes_under_slurm():
    program = (
        "from mpi4py import MPI; c = MPI.COMM_WORLD; "
        "print('rank', c.rank, 'of', c.size, MPI.Get_processor_name(), 'sum', c.allreduce(c.rank))"
    )
    out = _run(f'srun --mpi=pmix -N 2 --ntasks-per-node 2 -p sxm2 python3 -c "{program}"')
    lines = [line.split() for line in out.splitlines() if line.startswith("rank")]
    assert len(lines) == 4, out
    assert {line[3] for line in lines} == {"4"}, out
    assert {line[6] for line in lines} == {"6"}, out  # 0+1+2+3: every rank took part
    assert len({line[4] for line in lines}) == 2, out


HEAD_ADDRESS = load_lab_groups()["head"][HEAD]["lab_data_address"]
LDAP_ADMIN = ("-H", f"ldaps://{HEAD_ADDRESS}", "-x", "-D", "cn=admin,dc=lab,dc=dlcluster")
ALICE_DN = "uid=alice,ou=people,dc=lab,dc=dlcluster"


def _ldap(command: str, *args: str, stdin: str = "") -> str:
    """An ldap-utils command on the head node as the directory's administrator."""
    line = f"LDAPTLS_CACERT=/etc/sssd/dlcluster-ldap-ca.crt {command} " + shlex.join(
        [*LDAP_ADMIN, "-w", lab_password("ldap-admin"), *args]
    )
    if stdin:
        line = f"printf %s {shlex.quote(stdin)} | {line}"
    return _run(line)


def test_a_partition_change_keeps_running_jobs_and_a_drained_node_is_reported_not_fatal():
    """One scheduler.yml run with a partition added, while a job runs on the first node
    and the last node is drained by hand (under repair): the partition is there, the job
    still runs, the run succeeds and reports the drained node with its reason. The same
    run finds a hand edit in the directory (alice's shell changed with ldapmodify) and
    writes the inventory's value back: the directory's read decides, not the task list,
    and restarts slurmd on a node where it runs on settings older than its files (a run
    stopped between writing /etc/default/slurmd and the restart: the file is touched)."""
    drained = COMPUTE[-1]
    stale = docker_host(COMPUTE[1])
    started = stale.run("systemctl show -p ActiveEnterTimestampMonotonic --value slurmd").stdout
    assert stale.run("touch /etc/default/slurmd").rc == 0
    job_id = _run(f"sbatch --parsable -N1 -p hipri -w {COMPUTE[0]} --wrap 'sleep 600'").strip()
    _run(f"scontrol update nodename={drained} state=drain reason=lab-repair")
    _ldap(
        "ldapmodify",
        stdin=f"dn: {ALICE_DN}\nchangetype: modify\nreplace: loginShell\nloginShell: /bin/sh\n",
    )
    assert "loginShell: /bin/sh" in _ldap("ldapsearch", "-LLL", "-b", ALICE_DN, "loginShell")
    try:
        for _ in range(30):
            if "JobState=RUNNING" in _run(f"scontrol show job {job_id}"):
                break
            time.sleep(1)
        partitions = [
            {"name": "hipri", "default": True, "max_time": "12:00:00"},
            {"name": "sxm2", "max_time": "12:00:00"},
            {"name": "requestq"},
            {"name": "labq", "max_time": "1:00:00"},
        ]
        extra = json.dumps({"slurm_partitions": partitions, "slurm_report_wait": 3})
        result = run_playbook("playbooks/scheduler.yml", "-e", extra)
        assert result.returncode == 0, result.stdout[-3000:]
        assert f"{drained}: drained (lab-repair)" in result.stdout, result.stdout[-3000:]
        assert "labq" in _run("sinfo --noheader --format=%P")
        assert "JobState=RUNNING" in _run(f"scontrol show job {job_id}")
        assert "loginShell: /bin/bash" in _ldap("ldapsearch", "-LLL", "-b", ALICE_DN, "loginShell")
        restarted = stale.run("systemctl show -p ActiveEnterTimestampMonotonic --value slurmd")
        assert int(restarted.stdout) > int(started), (started, restarted.stdout)
    finally:
        _head().run(f"scancel {job_id}")
        _run(f"scontrol update nodename={drained} state=resume")
        # the partitions are the controller's (configless nodes read them from it): the
        # inventory's own are put back on the head node (and the early phase's plan)
        restored = run_playbook("playbooks/scheduler.yml", "--limit", f"{HEAD},localhost")
    assert restored.returncode == 0, restored.stdout[-3000:]
    assert "labq" not in _run("sinfo --noheader --format=%P")


def test_a_node_that_loses_a_gpu_is_drained_by_its_health_check_and_resumed_once_back():
    """slurmd runs the role's health check (slurm.conf HealthCheckProgram); here it is run
    by hand, as slurmd runs it, on a node whose stand-in GPU device file went away: the
    node is drained with a reason that names it, and resumed by the next pass once the
    device is back."""
    config = _run("scontrol show config")
    assert re.search(
        r"^HealthCheckProgram\s*=\s*/usr/local/sbin/dlcluster-healthcheck$", config, re.M
    )
    assert re.search(r"^HealthCheckInterval\s*=\s*300 sec$", config, re.M), config
    node = COMPUTE[1]
    server = docker_host(node)
    check = "/usr/local/sbin/dlcluster-healthcheck"
    assert server.run(check).rc == 0  # a healthy node: nothing to say
    assert server.run("mv /dev/nvidia3 /dev/.nvidia3.away").rc == 0
    try:
        failed = server.run(check)
        assert failed.rc == 1 and "3 of 4 GPU device files" in failed.stderr, failed.stderr
        state = _run(f"sinfo -h -N -n {node} -o '%T|%200E'").strip()
        assert state.startswith("drained|dlcluster-health: 3 of 4 GPU device files"), state
    finally:
        server.run("mv /dev/.nvidia3.away /dev/nvidia3")
    assert server.run(check).rc == 0
    _wait_idle(node)


def test_a_node_whose_ngc_container_sshd_is_gone_is_drained_and_resumed_once_back():
    """The lab checks the NGC container's sshd (slurm_health_check_services): mpirun
    reaches the other ranks through it, so a node where it does not answer takes no job."""
    node = COMPUTE[0]
    server = docker_host(node)
    check = "/usr/local/sbin/dlcluster-healthcheck"
    assert server.run("docker stop -t 2 tf").rc == 0
    try:
        failed = server.run(check)
        reason = "dlcluster-health: the NGC container's sshd (port 2222) does not answer"
        assert failed.rc == 1 and reason in failed.stderr, failed.stderr
        state = _run(f"sinfo -h -N -n {node} -o '%T|%200E'").strip()
        assert state.startswith(f"drained|{reason}"), state
    finally:
        assert server.run("docker start tf").rc == 0
    for _ in range(30):  # sshd starts with the container
        if server.run(check).rc == 0:
            break
        time.sleep(1)
    _wait_idle(node)


def _wait_idle(node: str) -> None:
    """Resumed: idle again once slurmctld has heard from the node (`idle*` until then)."""
    for _ in range(60):
        states = set(_run(f"sinfo -h -N -n {node} -o '%T'").split())
        if states == {"idle"}:
            break
        time.sleep(1)
    assert states == {"idle"}
    assert _run(f"sinfo -h -N -n {node} -o '%E'").split("\n")[0].strip() == "none"


def test_accounting_shows_a_users_gpu_job_with_its_gpus_account_and_qos():
    """slurmdbd keeps the accounting in MariaDB on the head node's loopback: a GPU job a
    lab user ran shows in sacct with its GPUs, account and QOS, and sshare shows the
    account's fair-share; the QOS and accounts are the inventory's."""
    assert "hipri|100" in _run("sacctmgr -n -P show qos format=name,priority").splitlines()
    assert {"research|alice", "research|bob"} <= set(
        _run("sacctmgr -n -P show assoc format=account,user").splitlines()
    )
    job = _run(
        "runuser -u alice -- sbatch --parsable --wait -p hipri --qos=hipri --gres=gpu:1 "
        "--chdir=/tmp --output=/dev/null --wrap 'sleep 1'"
    ).strip()
    # slurmctld sends the job's end to slurmdbd on its own time; right after it, sacct may
    # show the QOS as Unknown for a moment
    for _ in range(20):
        row = _run(f"sacct -n -P -X -j {job} -o User,Account,QOS,State,AllocTRES").strip()
        if "COMPLETED" in row and "|Unknown|" not in row:
            break
        time.sleep(1)
    user, account, qos, state, tres = row.split("|")
    assert (user, account, qos, state) == ("alice", "research", "hipri", "COMPLETED"), row
    assert "gres/gpu=1" in tres.split(","), row
    shares = _run("sshare -n -P -a -A research -o Account,User,RawShares").splitlines()
    rows = {tuple(field.strip() for field in line.split("|")) for line in shares}
    assert ("research", "", "2") in rows and ("research", "alice", "1") in rows, shares
    # the database answers on the loopback only
    listening = docker_host(HEAD).check_output("ss -Hltn")
    db = [line.split()[3] for line in listening.splitlines() if line.split()[3].endswith(":3306")]
    assert db and all(addr.startswith("127.0.0.1:") for addr in db), db
