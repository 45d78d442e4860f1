"""The Isilon mounts on the lab's compute nodes (roles/isilon_mounts)."""

from __future__ import annotations

from collections import Counter

from conftest import docker_host, run_playbook

DATA_OPTIONS = "rsize=524288,wsize=524288,nolock,soft,timeo=50,retrans=1,proto=tcp"


def _nfs_lines(host) -> list[list[str]]:
    """The fstab lines of the Isilon's /ifs (the head node's share has NFS lines too)."""
    lines = host.file("/etc/fstab").content_string.splitlines()
    return [
        line.split()
        for line in lines
        if line.strip()
        and not line.startswith("#")
        and line.split()[2:3] == ["nfs"]
        and line.split()[0].endswith(":/ifs")
    ]


def test_fstab_has_the_default_and_tuned_data_mounts(compute_name, lab_groups):
    host = docker_host(compute_name)
    entries = {fields[1]: fields for fields in _nfs_lines(host)}
    addresses = {hvars["lab_data_address"] for hvars in lab_groups["isilon"].values()}
    assert entries["/mnt/isilon"][0] == f"{min(addresses, key=lambda a: a)}:/ifs"
    assert entries["/mnt/isilon"][3] == "defaults"
    data = {path: fields for path, fields in entries.items() if path != "/mnt/isilon"}
    assert sorted(data) == [f"/mnt/isilon{i}" for i in range(1, 5)]
    assert {fields[3] for fields in data.values()} == {DATA_OPTIONS}
    # each host reaches every address once
    assert {fields[0].split(":")[0] for fields in data.values()} == addresses


def test_every_isilon_address_carries_two_mounts_over_all_hosts(lab_groups):
    counts = Counter()
    for name in lab_groups["compute"]:
        for fields in _nfs_lines(docker_host(name)):
            if fields[1] != "/mnt/isilon":
                counts[fields[0].split(":")[0]] += 1
    assert set(counts) == {h["lab_data_address"] for h in lab_groups["isilon"].values()}
    assert min(counts.values()) >= 2, counts


def test_hosts_start_on_different_addresses(lab_groups):
    first = [
        dict((f[1], f[0]) for f in _nfs_lines(docker_host(n)))["/mnt/isilon1"]
        for n in sorted(lab_groups["compute"])
    ]
    assert len(set(first)) == len(first), first


def test_data_mount_list_is_ordered_for_the_mpi_launcher(compute_name):
    listed = docker_host(compute_name).file("/etc/dlcluster/data_mounts").content_string
    entries = [line.split("#") for line in listed.splitlines() if line and line[0] != "#"]
    assert [path.strip() for path, _ in entries] == [f"/mnt/isilon{i}" for i in range(1, 5)]
    # after each path, the address and export its fstab line mounts
    sources = {f[1]: f[0] for f in _nfs_lines(docker_host(compute_name))}
    assert [source.strip() for _, source in entries] == [
        sources[path.strip()] for path, _ in entries
    ]
    # the list is also the record of the mounts the role owns: the default one is named
    assert "# default mount: /mnt/isilon" in listed.splitlines()


def test_each_assigned_address_serves_the_data_set(compute_name):
    host = docker_host(compute_name)
    lines = _nfs_lines(host)
    assert len(lines) == 5, lines  # the default mount and the four data mounts
    for fields in lines:
        address = fields[0].split(":")[0]
        listing = host.run(f"nfs-ls nfs://{address}/ifs/data/imagenet-scratch/tfrecords")
        assert listing.rc == 0 and "train-00000-of-00016" in listing.stdout, listing.stderr
        size = host.run(
            f"nfs-cat nfs://{address}/ifs/data/imagenet-scratch/tfrecords/train-00003-of-00016"
            " | wc -c"
        )
        assert size.stdout.strip() == str(4 * 1024 * 1024), f"{address}: {size.stderr}"


def _storage_run(*extra: str):
    return run_playbook("playbooks/storage.yml", "--tags", "mounts", *extra)


def test_changing_rsize_rewrites_the_lines_in_place(lab_groups):
    name = sorted(lab_groups["compute"])[0]
    host = docker_host(name)
    before = host.file("/etc/fstab").content_string.splitlines()
    changed = _storage_run("-e", '{"isilon_mounts_data_options_extra": ["rsize=1048576"]}')
    try:
        assert changed.returncode == 0, changed.stdout[-3000:]
        after = host.file("/etc/fstab").content_string.splitlines()
        assert len(after) == len(before), "lines were added instead of rewritten"
        data = [f for f in _nfs_lines(host) if f[1] != "/mnt/isilon"]
        assert len(data) == 4
        assert all(
            f[3].split(",")[0] == "rsize=1048576" and "rsize=524288" not in f[3] for f in data
        ), data
        # position of every line kept
        assert [line.split()[1] for line in after if line.strip()] == [
            line.split()[1] for line in before if line.strip()
        ]
    finally:
        restored = _storage_run()
        assert restored.returncode == 0, restored.stdout[-3000:]
    assert host.file("/etc/fstab").content_string.splitlines() == before


def test_fstab_lines_the_role_does_not_own_are_kept(lab_groups):
    name = sorted(lab_groups["compute"])[0]
    host = docker_host(name)
    foreign = "tmpfs /scratch tmpfs size=64m 0 0"
    assert host.run(f"echo '{foreign}' >> /etc/fstab").rc == 0
    try:
        result = _storage_run(
            "-e", '{"isilon_mounts_per_host": 3, "isilon_mounts_min_per_address": 1}'
        )
        assert result.returncode == 0, result.stdout[-3000:]
        content = host.file("/etc/fstab").content_string
        assert foreign in content
        assert "/mnt/isilon4 " not in content, "a mount that left the plan is still in fstab"
        assert "/mnt/isilon3 " in content
    finally:
        host.run("sed -i '\\#^tmpfs /scratch #d' /etc/fstab")
        restored = _storage_run()
        assert restored.returncode == 0, restored.stdout[-3000:]
    assert "/mnt/isilon4 " in host.file("/etc/fstab").content_string
