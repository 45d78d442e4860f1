"""The slurm_accounting module against a stand-in sacctmgr that keeps the database in a
JSON file and answers `-n -P show` as Slurm 22.05's does (`|`-separated fields in the
order of `format=`, an account's own association with an empty user field): what the
module reads, what it sends, and that a second run sends nothing. The lab runs it against
the real slurmdbd (tests/lab/test_slurm.py)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from ansible.module_utils.testing import patch_module_args

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location(
    "slurm_accounting", ROOT / "library" / "slurm_accounting.py"
)
module = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(module)

# The stand-in: show cluster|qos|association|user, add cluster|qos|account|user, modify
# qos|account (the options the module sends); it logs every call.
SACCTMGR = r"""#!/usr/bin/env python3
import json, sys
db_path, log_path = sys.argv[0] + ".json", sys.argv[0] + ".log"
db = json.load(open(db_path))
args = sys.argv[1:]
open(log_path, "a").write(" ".join(args) + "\n")
opts = dict(a.split("=", 1) for a in args if "=" in a)
if args[:3] == ["-n", "-P", "show"]:
    entity = args[3]
    fields = opts["format"].split(",")
    if entity == "cluster":
        rows = [{"cluster": c} for c in db["clusters"]]
    elif entity == "qos":
        rows = [{"name": n, "priority": str(p)} for n, p in db["qos"].items()]
    elif entity == "user":
        rows = [{"user": u} for u in db["users"]]
    else:
        rows = [dict(a, qos=",".join(sorted(a["qos"])), fairshare=str(a["fairshare"]))
                for a in db["assoc"] if a["cluster"] == opts["cluster"]]
    for row in rows:
        print("|".join(row[f] for f in fields))
    sys.exit(0)
assert args[0] == "-i", args
refuse = sys.argv[0] + ".refuse"  # a test's fault: refuse commands naming this word
try:
    word = open(refuse).read().strip()
except OSError:
    word = None
if word and word in args:
    print(f" Problem adding {word}"); sys.exit(1)
verb, entity, name = args[1:4]
if verb == "add" and entity == "cluster":
    db["clusters"].append(name)
elif verb == "add" and entity == "qos":
    db["qos"][name] = int(opts.get("Priority", 0))
elif verb == "add" and entity == "account":
    if opts["Cluster"] not in db["clusters"]:
        print(" Need a valid cluster to add accounts to."); sys.exit(1)
    db["assoc"].append({"cluster": opts["Cluster"], "account": name, "user": "",
                        "fairshare": int(opts.get("Fairshare", 1)),
                        "qos": opts.get("QOS", "normal").split(",")})
elif verb == "add" and entity == "user":
    parent = [a for a in db["assoc"] if a["account"] == opts["Account"] and not a["user"]]
    if not parent:
        print(" Need a valid account."); sys.exit(1)
    db["assoc"].append(dict(parent[0], user=name, fairshare=1))
    if name not in db["users"]:
        db["users"].append(name)
elif verb == "modify" and entity == "qos":
    db["qos"][name] = int(opts["Priority"])
elif verb == "modify" and entity == "account":
    for a in db["assoc"]:
        if a["account"] == name and not a["user"]:
            if "Fairshare" in opts:
                a["fairshare"] = int(opts["Fairshare"])
            if "QOS" in opts:
                a["qos"] = opts["QOS"].split(",")
else:
    print(" Unknown option"); sys.exit(1)
json.dump(db, open(db_path, "w"))
"""

ASKED = {
    "cluster": "dlcluster",
    "qos": [{"name": "hipri", "priority": 100}],
    "accounts": [
        {"name": "research", "fairshare": 2, "qos": ["normal", "hipri"], "users": ["alice", "bob"]},
        {"name": "teaching", "users": ["bob"]},
    ],
}


@pytest.fixture
def sacctmgr(tmp_path):
    """A fresh database (as slurmdbd starts: the `normal` QOS and nothing else)."""
    path = tmp_path / "sacctmgr"
    path.write_text(SACCTMGR)
    path.chmod(0o755)
    Path(f"{path}.json").write_text(
        json.dumps({"clusters": [], "qos": {"normal": 0}, "assoc": [], "users": ["root"]})
    )
    return path


def run(capsys, sacctmgr: Path, check_mode: bool = False, **asked) -> dict:
    args = {**ASKED, **asked, "sacctmgr": str(sacctmgr), "_ansible_check_mode": check_mode}
    log = Path(f"{sacctmgr}.log")
    log.unlink(missing_ok=True)
    with patch_module_args(args), pytest.raises(SystemExit):
        module.main()
    result = json.loads(capsys.readouterr().out)
    result["log"] = log.read_text().splitlines() if log.exists() else []
    return result


def db(sacctmgr: Path) -> dict:
    return json.loads(Path(f"{sacctmgr}.json").read_text())


def test_a_new_database_gets_cluster_qos_accounts_and_users_in_slurms_order(capsys, sacctmgr):
    result = run(capsys, sacctmgr)
    assert result["changed"] is True, result
    sent = [c.split(" ", 2)[2] for c in result["commands"]]  # after `sacctmgr -i`
    assert sent == [
        "add cluster dlcluster",
        "add qos hipri Priority=100",
        "add account research Cluster=dlcluster Description=research Organization=research"
        " Fairshare=2 QOS=hipri,normal",
        "add account teaching Cluster=dlcluster Description=teaching Organization=teaching"
        " Fairshare=1",
        "add user alice Account=research Cluster=dlcluster DefaultAccount=research",
        "add user bob Account=research Cluster=dlcluster DefaultAccount=research",
        "add user bob Account=teaching Cluster=dlcluster",
    ]
    assert {(a["account"], a["user"]) for a in db(sacctmgr)["assoc"]} == {
        ("research", ""), ("teaching", ""), ("research", "alice"), ("research", "bob"),
        ("teaching", "bob"),
    }  # fmt: skip


def test_a_second_run_reads_and_sends_nothing(capsys, sacctmgr):
    run(capsys, sacctmgr)
    again = run(capsys, sacctmgr)
    assert again["changed"] is False and again["commands"] == [], again
    assert all(line.startswith("-n -P show ") for line in again["log"]), again["log"]


def test_a_changed_share_priority_or_qos_is_modified_in_place(capsys, sacctmgr):
    run(capsys, sacctmgr)
    accounts = [dict(ASKED["accounts"][0], fairshare=5, qos=["hipri"]), ASKED["accounts"][1]]
    result = run(capsys, sacctmgr, qos=[{"name": "hipri", "priority": 50}], accounts=accounts)
    sent = [c.split(" ", 2)[2] for c in result["commands"]]
    assert sent == [
        "modify qos hipri set Priority=50",
        "modify account research where Cluster=dlcluster set Fairshare=5 QOS=hipri",
    ]
    assert run(capsys, sacctmgr, qos=[{"name": "hipri", "priority": 50}],
               accounts=accounts)["changed"] is False  # fmt: skip


def test_nothing_is_deleted_when_the_inventory_drops_it(capsys, sacctmgr):
    run(capsys, sacctmgr)
    result = run(capsys, sacctmgr, accounts=[ASKED["accounts"][1]])
    assert result["changed"] is False
    assert ("research", "alice") in {(a["account"], a["user"]) for a in db(sacctmgr)["assoc"]}


def test_check_mode_reads_and_sends_nothing(capsys, sacctmgr):
    result = run(capsys, sacctmgr, check_mode=True)
    assert result["changed"] is True and len(result["commands"]) == 7
    assert all(line.startswith("-n -P show ") for line in result["log"])
    assert db(sacctmgr)["clusters"] == []


def test_a_refused_command_fails_naming_it_and_what_was_sent(capsys, sacctmgr):
    Path(f"{sacctmgr}.refuse").write_text("teaching")
    result = run(capsys, sacctmgr)
    assert result["failed"] is True
    assert result["msg"].startswith(f"`{sacctmgr} -i add account teaching "), result["msg"]
    assert "Problem adding teaching" in result["msg"]
    assert len(result["commands"]) == 3 and result["changed"] is True  # cluster, qos, research


def test_the_module_never_calls_anything_but_sacctmgr(monkeypatch, capsys, sacctmgr):
    calls = []
    real = module.AnsibleModule.run_command

    def recorded(self, argv, *args, **kwargs):
        calls.append(argv[0])
        return real(self, argv, *args, **kwargs)

    monkeypatch.setattr(module.AnsibleModule, "run_command", recorded)
    run(capsys, sacctmgr)
    assert set(calls) == {str(sacctmgr)}


def test_slurmctld_restarts_only_once_slurmdbd_listens():
    """A first start of slurmctld exits when slurmdbd does not answer yet: every slurmdbd
    restart is followed by a wait on its port, before slurmctld's restart."""
    import yaml

    handlers = yaml.safe_load((ROOT / "roles/slurm/handlers/main.yml").read_text())
    names = [h["name"] for h in handlers]
    wait = handlers[names.index("Wait for slurmdbd to listen where slurmctld reaches it")]
    assert wait["listen"] == "Restart slurmdbd"
    assert wait["ansible.builtin.wait_for"]["port"] == "{{ _slurm_dbd_port }}"
    assert wait["ansible.builtin.wait_for"]["host"] == "{{ slurm_controller_address }}"
    order = [names.index(n) for n in ("Restart slurmdbd", wait["name"], "Restart slurmctld")]
    assert order == sorted(order)
    conf = (ROOT / "roles/slurm/templates/slurmdbd.conf.j2").read_text()
    assert "DbdPort={{ _slurm_dbd_port }}" in conf


def test_the_four_shows_are_read_at_once(monkeypatch, capsys, sacctmgr):
    """Each show waits at a barrier until all four have started: read one after another,
    the first would wait alone and the barrier would break."""
    import threading

    barrier = threading.Barrier(4, timeout=20)
    real = module.AnsibleModule.run_command
    shows = []

    def together(self, argv, *args, **kwargs):
        if "show" in argv:
            shows.append(argv[4])
            barrier.wait()
        return real(self, argv, *args, **kwargs)

    monkeypatch.setattr(module.AnsibleModule, "run_command", together)
    run(capsys, sacctmgr)
    again = run(capsys, sacctmgr)  # the cluster exists now: its associations are read too
    assert again["changed"] is False, again
    assert sorted(shows) == sorted(["cluster", "qos", "association", "user"] * 2)
