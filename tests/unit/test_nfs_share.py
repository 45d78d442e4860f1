"""The nfs_share role: RAID 50 plan, XFS geometry, exports, client mounts; nfs_export_check.

The filters are called as the role calls them; ganesha.conf and the exports file are
rendered through Jinja2 with the role's filters, as Ansible's template module does. The
verification module runs against stand-in `nfs-ls`/`nfs-cat`/`findmnt` on PATH.
"""

from __future__ import annotations

import importlib.util
import json
import os
import stat
from pathlib import Path

import jinja2
import pytest
import yaml
from playbook import local_host, run_playbook

ROOT = Path(__file__).resolve().parents[2]
ROLE = ROOT / "roles" / "nfs_share"


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


share = _load("nfs_share", ROOT / "filter_plugins" / "nfs_share.py")
check_module = _load("nfs_export_check", ROOT / "library" / "nfs_export_check.py")
DEFAULTS = yaml.safe_load((ROLE / "defaults" / "main.yml").read_text())
SEED_004_DISKS = [f"/dev/disk/by-id/nl-sas-{i:02d}" for i in range(1, 13)]


def _md(**raid):
    return share.nfs_share_raid_plan(
        {**DEFAULTS["nfs_share_raid"], "devices": SEED_004_DISKS, **raid}
    )


def test_seed_004_raid_50_is_two_raid_5_spans_striped():
    plan = _md()
    assert plan["problems"] == []
    spans, stripe = plan["arrays"][:2], plan["arrays"][2]
    assert [a["name"] for a in spans] == ["nfs_share_5_1", "nfs_share_5_2"]
    assert [a["level"] for a in spans] == [5, 5]
    assert spans[0]["devices"] == SEED_004_DISKS[:6] and spans[1]["devices"] == SEED_004_DISKS[6:]
    # The stripe's chunk is one span's full stripe (5 data disks x 512 KiB).
    assert stripe == {
        "name": "nfs_share",
        "level": 0,
        "chunk_kib": 2560,
        "devices": ["/dev/md/nfs_share_5_1", "/dev/md/nfs_share_5_2"],
    }
    assert plan["device"] == "/dev/md/nfs_share"
    assert (plan["su_kib"], plan["sw"], plan["data_disks"]) == (512, 10, 10)
    assert share.nfs_share_mkfs_options(plan, "nfs_share") == "-d su=512k,sw=10 -L nfs_share"


@pytest.mark.parametrize(
    ("raid", "geometry"),
    [
        ({"level": 60}, (512, 8)),
        ({"level": 5, "spans": 1, "devices": SEED_004_DISKS[:6]}, (512, 5)),
        ({"level": 6, "spans": 1, "devices": SEED_004_DISKS[:8], "chunk_kib": 256}, (256, 6)),
        ({"level": 50, "spans": 3}, (512, 9)),
    ],
)
def test_stripe_width_counts_the_data_disks_of_every_span(raid, geometry):
    plan = _md(**raid)
    assert plan["problems"] == []
    assert (plan["su_kib"], plan["sw"]) == geometry


def test_a_single_span_level_builds_one_array():
    plan = _md(level=5, spans=1, devices=SEED_004_DISKS[:6])
    assert [(a["name"], a["level"]) for a in plan["arrays"]] == [("nfs_share", 5)]


def test_perc_plan_asks_the_controller_and_builds_no_md_array():
    plan = share.nfs_share_raid_plan(
        {
            "method": "perc",
            "level": 50,
            "spans": 2,
            "chunk_kib": 256,
            "controller_id": "RAID.Slot.1-1",
            "drives": [f"Disk.Bay.{i}:Enclosure.Internal.0-1:RAID.Slot.1-1" for i in range(12)],
        }
    )
    assert plan["problems"] == []
    assert plan["arrays"] == [] and plan["device"] == ""
    assert (plan["su_kib"], plan["sw"]) == (256, 10)


def test_an_existing_volume_of_unknown_layout_leaves_the_geometry_to_mkfs():
    plan = share.nfs_share_raid_plan({"method": "none", "level": 50})
    assert plan["problems"] == []
    assert share.nfs_share_mkfs_options(plan, "data") == "-L data"


@pytest.mark.parametrize(
    ("raid", "problem"),
    [
        ({"devices": SEED_004_DISKS[:11]}, "11 disks do not split into 2 equal spans"),
        (
            {"devices": SEED_004_DISKS[:4]},
            "needs at least 3 disks per span; 4 disks in 2 span(s) give 2",
        ),
        ({"level": 60, "devices": SEED_004_DISKS[:6]}, "needs at least 4 disks per span"),
        ({"chunk_kib": 384}, "power of two"),
        ({"level": 10}, "level must be 5, 6, 50 or 60"),
        ({"spans": 1}, "RAID 50 needs at least 2 spans"),
        ({"level": 5, "spans": 2}, "use level 50 to span"),
        (
            {"devices": SEED_004_DISKS[:11] + SEED_004_DISKS[:1]},
            "lists a disk twice: /dev/disk/by-id/nl-sas-01",
        ),
        ({"devices": ["sdb", *SEED_004_DISKS[1:]]}, "must be paths under /dev: sdb"),
        ({"method": "zfs"}, "method must be one of md, perc, none"),
        ({"name": "my share"}, "nfs_share_raid.name must be"),
        (
            {
                "method": "perc",
                "controller_id": "RAID.Slot.1-1",
                "chunk_kib": 96,
                "drives": [f"d{i}" for i in range(12)],
            },
            "multiple of 64 KiB",
        ),
        (
            {"method": "perc", "chunk_kib": 64, "drives": [f"d{i}" for i in range(12)]},
            "controller_id",
        ),
    ],
)
def test_bad_raid_plans_are_refused_with_the_reason(raid, problem):
    plan = _md(**raid)
    assert any(problem in p for p in plan["problems"]), plan["problems"]
    assert plan["arrays"] == []


XFS_DB = "blocksize = 4096\nunit = 128\nwidth = 1280\n"


def test_xfs_geometry_is_read_in_bytes_and_checked_against_the_plan():
    geometry = share.nfs_share_xfs_geometry(XFS_DB)
    assert geometry == {"blocksize": 4096, "su_bytes": 512 * 1024, "width_bytes": 10 * 512 * 1024}
    assert share.nfs_share_geometry_problem(geometry, _md(), "/img") == ""
    problem = share.nfs_share_geometry_problem(geometry, _md(chunk_kib=256), "/dev/md/nfs_share")
    assert problem == (
        "/dev/md/nfs_share: XFS stripe unit 512 KiB x 10 does not match "
        "the RAID plan's 256 KiB x 10"
    )
    # A filesystem made without alignment has unit = width = 0.
    unaligned = share.nfs_share_xfs_geometry("blocksize = 4096\nunit = 0\nwidth = 0\n")
    assert "stripe unit 0 KiB" in share.nfs_share_geometry_problem(unaligned, _md(), "/img")
    with pytest.raises(ValueError):
        share.nfs_share_xfs_geometry("xfs_db: /img is not a valid XFS filesystem")


def _exports(exports=None, clients=("10.10.1.1", "10.10.1.2")):
    return share.nfs_share_exports(
        DEFAULTS["nfs_share_exports"] if exports is None else exports, "/srv/nfs", list(clients)
    )


def test_default_exports_are_home_and_shared_under_the_root():
    planned = _exports()
    assert [(e["name"], e["id"], e["path"], e["mount_point"]) for e in planned] == [
        ("home", 1, "/srv/nfs/home", "/home"),
        ("shared", 2, "/srv/nfs/shared", "/cm/shared"),
    ]
    assert planned[0]["clients"] == ["10.10.1.1", "10.10.1.2"]
    assert share.nfs_share_export_problems(planned) == []


@pytest.mark.parametrize(
    ("exports", "problem"),
    [
        ([], "nfs_share_exports is empty"),
        (
            [{"name": "home", "mount_point": "/home"}, {"name": "home", "mount_point": "/h2"}],
            "same name twice: home",
        ),
        (
            [{"name": "a", "mount_point": "/x"}, {"name": "b", "mount_point": "/x"}],
            "same mount point twice: /x",
        ),
        (
            [
                {"name": "a", "mount_point": "/a", "id": 3},
                {"name": "b", "mount_point": "/b", "id": 3},
            ],
            "same id twice: 3",
        ),
        ([{"name": "Home", "mount_point": "/home"}], "'Home' is not a lower-case name"),
        ([{"name": "home", "mount_point": "home"}], "mount_point must be an absolute path"),
        (
            [{"name": "home", "mount_point": "/home", "path": "/srv/nfs/../etc"}],
            "path must be an absolute path",
        ),
        (
            [
                {"name": "a", "mount_point": "/a", "path": "/srv/a"},
                {"name": "b", "mount_point": "/b", "path": "/srv/a/b"},
            ],
            "/srv/a/b lies inside /srv/a",
        ),
        ([{"name": "a", "mount_point": "/a", "id": 70000}], "id must be 1-65535"),
    ],
)
def test_bad_exports_are_refused(exports, problem):
    problems = share.nfs_share_export_problems(_exports(exports))
    assert any(problem in p for p in problems), problems


def test_an_export_without_clients_is_refused():
    problems = share.nfs_share_export_problems(_exports(clients=()))
    assert "nfs_share_exports home: no clients (nfs_share_clients is empty)" in problems


def test_kernel_exports_give_each_client_its_options():
    planned = _exports(
        [
            {"name": "home", "mount_point": "/home"},
            {"name": "data", "mount_point": "/data", "read_only": True, "root_squash": True},
        ]
    )
    assert share.nfs_share_kernel_exports(planned, DEFAULTS["nfs_share_kernel_options"]) == [
        "/srv/nfs/home 10.10.1.1(rw,sync,no_subtree_check,no_root_squash)"
        " 10.10.1.2(rw,sync,no_subtree_check,no_root_squash)",
        "/srv/nfs/data 10.10.1.1(ro,sync,no_subtree_check,root_squash)"
        " 10.10.1.2(ro,sync,no_subtree_check,root_squash)",
    ]


def _render(template: str, **variables) -> str:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(ROLE / "templates"),
        trim_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters.update(share.FilterModule().filters())
    return env.get_template(template).render(**variables)


def test_ganesha_conf_lets_only_the_clients_in():
    text = _render("ganesha.conf.j2", _nfs_share_exports=_exports())
    assert text.count("EXPORT {") == 2
    home = text[text.index("Export_Id = 1;") : text.index("Export_Id = 2;")]
    assert "Path = /srv/nfs/home;" in home and "Pseudo = /srv/nfs/home;" in home
    # Nobody but the CLIENT block's hosts: the export's own access is None.
    assert home.index("Access_Type = None;") < home.index("CLIENT {")
    client = home[home.index("CLIENT {") :]
    assert "Clients = 10.10.1.1, 10.10.1.2;" in client
    assert "Access_Type = RW;" in client and "Squash = No_Root_Squash;" in client
    assert "Name = VFS;" in home


def test_exports_file_is_the_kernel_lines():
    text = _render(
        "dlcluster.exports.j2",
        _nfs_share_exports=_exports(),
        nfs_share_kernel_options=["sync", "no_subtree_check"],
    )
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert lines[0].startswith("/srv/nfs/home 10.10.1.1(rw,sync,no_subtree_check,no_root_squash)")
    assert len(lines) == 2


def test_clients_mount_from_the_ipoib_address_when_there_is_one():
    head = {
        "cluster_data_address": "10.0.0.1",
        "nics_interfaces": [
            {"name": "eth1", "address": "10.0.0.1/24"},
            {"name": "ib0", "address": "10.10.0.1/16"},
        ],
    }
    assert share.nfs_share_address(head) == "10.10.0.1"
    assert share.nfs_share_address({"cluster_data_address": "10.0.0.1"}) == "10.0.0.1"
    assert share.nfs_share_address({"ansible_host": "head.example"}) == "head.example"
    mounts = share.nfs_share_client_mounts(
        _exports(), "10.10.0.1", DEFAULTS["nfs_share_client_options"]
    )
    assert mounts[0] == {
        "name": "home",
        "src": "10.10.0.1:/srv/nfs/home",
        "path": "/home",
        "opts": "vers=3,proto=tcp,hard,rsize=1048576,wsize=1048576,_netdev",
        "address": "10.10.0.1",
        "export": "/srv/nfs/home",
    }


def test_md_names_come_from_the_scan():
    scan = (
        "ARRAY /dev/md/nfs_share_5_1 metadata=1.2 name=head:nfs_share_5_1 UUID=a\n"
        "ARRAY /dev/md127 metadata=1.2 name=head:nfs_share UUID=b\n"
        "ARRAY /dev/md/boot metadata=1.2 UUID=c\n"
    )
    assert share.nfs_share_md_names(scan) == ["boot", "nfs_share", "nfs_share_5_1"]
    assert share.nfs_share_md_names("") == []


def test_mount_targets_undo_the_octal_escapes():
    mounts = "/dev/sda1 / ext4 rw 0 0\n/dev/sdb /srv/my\\040share xfs rw 0 0\n"
    assert share.nfs_share_mount_targets(mounts) == ["/", "/srv/my share"]


def _settings(**changes):
    settings = {
        "raid": {**DEFAULTS["nfs_share_raid"], "devices": SEED_004_DISKS},
        "exports": _exports(),
        "storage": "build",
        "server": "kernel",
        "device": "",
        "address": "10.10.0.1",
        "root": "/srv/nfs",
        "label": "nfs_share",
    }
    settings.update(changes)
    return settings


def test_the_role_defaults_with_disks_have_no_problem():
    assert share.nfs_share_problems(_settings()) == []


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"raid": {"method": "md"}}, "nfs_share_raid.devices is empty"),
        (
            {"raid": {"method": "none"}},
            "nfs_share_device is required with nfs_share_raid.method none",
        ),
        (
            {
                "raid": {
                    "method": "perc",
                    "chunk_kib": 64,
                    "controller_id": "RAID.Slot.1-1",
                    "drives": [f"d{i}" for i in range(12)],
                    "idrac": {"address": "x", "username": "root"},
                },
                "device": "/dev/sdb",
            },
            "nfs_share_raid.idrac needs a username and a password",
        ),
        ({"storage": "maybe"}, "nfs_share_storage must be build or plan"),
        ({"server": "samba"}, "nfs_share_server must be kernel or ganesha"),
        ({"address": ""}, "no address for the clients"),
        ({"root": "/"}, "nfs_share_root must be an absolute directory other than /"),
        ({"label": "a-very-long-label"}, "nfs_share_label must have 1-12 characters"),
    ],
)
def test_settings_problems_are_named(changes, problem):
    problems = share.nfs_share_problems(_settings(**changes))
    assert any(problem in p for p in problems), problems


def test_plan_mode_needs_no_disks_to_exist_but_still_a_sound_plan():
    assert share.nfs_share_problems(_settings(storage="plan")) == []
    problems = share.nfs_share_problems(
        _settings(storage="plan", raid={"method": "md", "devices": SEED_004_DISKS[:5]})
    )
    assert any("do not split into 2 equal spans" in p for p in problems)


# nfs_export_check, with stand-in client commands on PATH.


def _tool(bin_dir: Path, name: str, script: str) -> None:
    path = bin_dir / name
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


@pytest.fixture
def fake_bin(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return bin_dir


def test_libnfs_check_names_the_address_that_refuses(fake_bin):
    # The server at .2 refuses this client, as ganesha does one outside its CLIENT list.
    _tool(
        fake_bin,
        "nfs-ls",
        'case "$1" in *10.0.0.2*) echo "MOUNT/MNT returned NFS3ERR_ACCES" >&2; exit 1;; esac\n',
    )
    _tool(fake_bin, "nfs-cat", "echo data\n")
    mounts = [
        {"path": "/home", "address": "10.0.0.1", "export": "/srv/nfs/home", "probe": "probe"},
        {"path": "/cm/shared", "address": "10.0.0.2", "export": "/srv/nfs/shared", "probe": ""},
    ]
    results, unreachable = check_module.check("libnfs", mounts, 10)
    assert results[0] == "ok  /home  10.0.0.1:/srv/nfs/home"
    assert results[1].startswith(
        "FAIL  /cm/shared  10.0.0.2:/srv/nfs/shared  nfs://10.0.0.2/srv/nfs/shared: nfs-ls"
    )
    assert "NFS3ERR_ACCES" in results[1]
    assert unreachable == ["10.0.0.2 (/cm/shared)"]


def test_libnfs_check_fails_an_empty_probe(fake_bin):
    _tool(fake_bin, "nfs-ls", "exit 0\n")
    _tool(fake_bin, "nfs-cat", "exit 0\n")
    _, unreachable = check_module.check(
        "libnfs",
        [{"path": "/mnt/isilon1", "address": "10.0.0.1", "export": "/ifs", "probe": "f"}],
        10,
    )
    assert unreachable == ["10.0.0.1 (/mnt/isilon1)"]


def test_mount_check_wants_the_planned_source(fake_bin, tmp_path):
    mount_point = tmp_path / "mnt"
    mount_point.mkdir()
    (mount_point / "probe").write_bytes(b"x" * 10)
    _tool(fake_bin, "findmnt", "echo 10.0.0.1:/ifs\n")
    ok = {"path": str(mount_point), "address": "10.0.0.1", "export": "/ifs", "probe": "probe"}
    elsewhere = {**ok, "address": "10.0.0.2"}
    results, unreachable = check_module.check("mount", [ok, elsewhere], 10)
    assert results[0].startswith("ok  ")
    assert f"{mount_point} is mounted from 10.0.0.1:/ifs, not 10.0.0.2:/ifs" in results[1]
    assert unreachable == [f"10.0.0.2 ({mount_point})"]
    _tool(fake_bin, "findmnt", "exit 1\n")
    _, unreachable = check_module.check("mount", [ok], 10)
    assert unreachable == [f"10.0.0.1 ({mount_point})"]


def test_the_plan_is_the_share_as_its_server_sees_it():
    """nfs_share_plan, from the settings nfs_share_problems checks (the server's): the RAID
    plan, the volume, the mkfs options of its geometry, the exports and the address."""
    exports = share.nfs_share_exports(DEFAULTS["nfs_share_exports"], "/data/nfs", ["10.10.1.1"])
    settings = _settings(exports=exports, root="/data/nfs", label="share")
    assert share.nfs_share_problems(settings) == []
    plan = share.nfs_share_plan(settings)
    assert plan["raid"] == _md()
    assert plan["device"] == plan["raid"]["device"] == "/dev/md/nfs_share"
    assert plan["mkfs_options"] == "-d su=512k,sw=10 -L share"
    assert [e["path"] for e in plan["exports"]] == ["/data/nfs/home", "/data/nfs/shared"]
    assert plan["exports"][0]["clients"] == ["10.10.1.1"]
    assert (plan["address"], plan["storage"], plan["server"]) == ("10.10.0.1", "build", "kernel")
    # a device named in the settings is the one formatted, whatever the RAID plan's
    assert share.nfs_share_plan({**settings, "device": "/dev/sdb"})["device"] == "/dev/sdb"


@pytest.mark.parametrize("planner", ["localhost", "head", "compute"])
def test_every_host_reads_the_plan_the_server_publishes(tmp_path, planner):
    """Planned from the control host (the early phase), the server (main.yml without the
    early phase) or a client (client.yml without it): the plan is published on the server,
    from the server's settings, and the clients read that one, not their own view of the
    nfs_share_* variables (here a compute group that sets another root)."""
    inventory = tmp_path / "inventory.json"
    head = local_host(
        cluster_data_address="10.0.0.1",
        nfs_share_root="/data/nfs",
        nfs_share_storage="plan",
        nfs_share_label="headshare",
    )
    inventory.write_text(
        json.dumps(
            {
                "all": {
                    "children": {
                        "head": {"hosts": {"head-1": head}},
                        "compute": {
                            "hosts": {
                                "gpu-1": local_host(cluster_data_address="10.0.0.11"),
                                "gpu-2": local_host(cluster_data_address="10.0.0.12"),
                            },
                            "vars": {"nfs_share_root": "/srv/elsewhere"},
                        },
                    }
                },
                "_meta": {"hostvars": {}},
            }
        )
    )
    result = run_playbook(
        inventory,
        ROOT / "tests" / "unit" / "playbooks" / "nfs_share_plan.yml",
        {"planner": planner, "out": str(tmp_path)},
    )
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
    plans = {
        h: json.loads((tmp_path / f"{h}.json").read_text()) for h in ("head-1", "gpu-1", "gpu-2")
    }
    assert plans["gpu-1"] == plans["gpu-2"] == plans["head-1"]
    plan = plans["head-1"]
    assert [e["path"] for e in plan["exports"]] == ["/data/nfs/home", "/data/nfs/shared"]
    assert plan["exports"][0]["clients"] == ["10.0.0.11", "10.0.0.12"]
    assert (plan["address"], plan["storage"], plan["label"]) == ("10.0.0.1", "plan", "headshare")
    assert plan["mkfs_options"].endswith("-L headshare")
