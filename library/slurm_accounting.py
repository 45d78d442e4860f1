#!/usr/bin/python
"""Register a Slurm cluster's QOS, accounts and users in slurmdbd, from the inventory."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: slurm_accounting
short_description: Bring slurmdbd's cluster, QOS, accounts and user associations to the inventory's
description:
  - Reads the accounting database once through C(sacctmgr -n -P show) (clusters, QOS,
    associations, users; the four at once) and sends only the C(sacctmgr -i add|modify)
    commands that make it hold what is asked, in the order Slurm needs (cluster, QOS,
    accounts, users).
  - Adds and modifies; never deletes. An account or user the inventory no longer names
    keeps its association (and its usage history); remove it with C(sacctmgr) by hand.
  - A QOS's C(priority), an account's C(fairshare) and its C(qos) list are kept as asked
    (C(modify ... set)); a user's association is added under each account that lists the
    user, and a user new to the database gets the first of them as its default account.
  - Check mode reads and returns the commands without running them.
  - Sources - Slurm 22.05 sacctmgr(1) (C(-i), C(-n), C(-P), the entities and their
    options) and accounting.shtml (clusters before accounts, accounts before users).
version_added: "1.0.0"
options:
  cluster:
    description: The cluster (slurm.conf ClusterName, lower case).
    type: str
    required: true
  qos:
    description: Quality-of-service levels.
    type: list
    elements: dict
    default: []
    suboptions:
      name:
        description: QOS name.
        type: str
        required: true
      priority:
        description: Its priority (the multifactor plugin's QOS factor).
        type: int
        default: 0
  accounts:
    description: Accounts of the cluster and their users.
    type: list
    elements: dict
    default: []
    suboptions:
      name:
        description: Account name.
        type: str
        required: true
      description:
        description: Its description (default its name).
        type: str
      organization:
        description: Its organization (default its name).
        type: str
      fairshare:
        description: Its fair-share shares.
        type: int
        default: 1
      qos:
        description: QOS its jobs may use; [] leaves the account's QOS as Slurm gives it.
        type: list
        elements: str
        default: []
      users:
        description: Users with an association under this account.
        type: list
        elements: str
        default: []
  sacctmgr:
    description: The sacctmgr command.
    type: str
    default: sacctmgr
author: dlcluster
"""

EXAMPLES = r"""
- name: Register the cluster's QOS, accounts and users
  slurm_accounting:
    cluster: dlcluster
    qos: [{name: hipri, priority: 100}]
    accounts:
      - {name: research, fairshare: 2, qos: [normal, hipri], users: [alice, bob]}
"""

RETURN = r"""
commands:
  description: The sacctmgr commands sent (in check mode, that would be sent).
  returned: always
  type: list
  elements: str
  sample: ["sacctmgr -i add account research Cluster=dlcluster Fairshare=2"]
"""

import shlex
from concurrent.futures import ThreadPoolExecutor

from ansible.module_utils.basic import AnsibleModule


class SacctmgrError(Exception):
    pass


class Accounting:
    """The database as sacctmgr shows it, and the commands that bring it to the asked."""

    def __init__(self, module: AnsibleModule):
        self.module = module
        self.sacctmgr = module.params["sacctmgr"]
        self.cluster = module.params["cluster"]

    def sacctmgr_run(self, *args: str) -> str:
        argv = [self.sacctmgr, *args]
        rc, out, err = self.module.run_command(argv)
        if rc != 0:
            raise SacctmgrError(f"`{shlex.join(argv)}` failed (rc {rc}): {(err or out).strip()}")
        return out

    def show(self, *args: str) -> list[list[str]]:
        """Rows of `sacctmgr -n -P show ...`, fields split on `|`."""
        out = self.sacctmgr_run("-n", "-P", "show", *args)
        return [line.split("|") for line in out.splitlines() if line.strip()]

    def read(self) -> dict:
        """The four shows at once: each is a sacctmgr process of its own with its own
        slurmdbd connection, and none needs another's answer, so a run that has nothing to
        send waits for the slowest rather than for all four in turn. The associations
        count only where the cluster exists (before it does, their show may fail)."""
        shows = {
            "clusters": ("cluster", "format=cluster"),
            "qos": ("qos", "format=name,priority"),
            "associations": (
                "association",
                f"cluster={self.cluster}",
                "format=account,user,fairshare,qos",
            ),
            "users": ("user", "format=user"),
        }
        with ThreadPoolExecutor(max_workers=len(shows)) as pool:
            rows = {name: pool.submit(self.show, *args) for name, args in shows.items()}
        clusters = {row[0] for row in rows["clusters"].result()}
        qos = {row[0]: row[1] for row in rows["qos"].result()}
        accounts: dict[str, dict] = {}
        users: set[tuple[str, str]] = set()
        if self.cluster in clusters:
            for account, user, share, assoc_qos in rows["associations"].result():
                if user:
                    users.add((account, user))
                else:
                    accounts[account] = {
                        "fairshare": share,
                        "qos": sorted(q for q in assoc_qos.split(",") if q),
                    }
        known_users = {row[0] for row in rows["users"].result()}
        return {
            "clusters": clusters,
            "qos": qos,
            "accounts": accounts,
            "users": users,
            "known_users": known_users,
        }

    def plan(self, found: dict) -> list[list[str]]:
        params = self.module.params
        cluster = self.cluster
        commands: list[list[str]] = []
        if cluster not in found["clusters"]:
            commands.append(["add", "cluster", cluster])
        for qos in params["qos"]:
            priority = str(qos["priority"])
            if qos["name"] not in found["qos"]:
                commands.append(["add", "qos", qos["name"], f"Priority={priority}"])
            elif found["qos"][qos["name"]] != priority:
                commands.append(["modify", "qos", qos["name"], "set", f"Priority={priority}"])
        for account in params["accounts"]:
            name = account["name"]
            share = str(account["fairshare"])
            qos = sorted(account["qos"])
            have = found["accounts"].get(name)
            if have is None:
                commands.append(
                    [
                        "add",
                        "account",
                        name,
                        f"Cluster={cluster}",
                        f"Description={account['description'] or name}",
                        f"Organization={account['organization'] or name}",
                        f"Fairshare={share}",
                    ]
                    + ([f"QOS={','.join(qos)}"] if qos else [])
                )
                continue
            changes = []
            if have["fairshare"] != share:
                changes.append(f"Fairshare={share}")
            if qos and have["qos"] != qos:
                changes.append(f"QOS={','.join(qos)}")
            if changes:
                commands.append(
                    ["modify", "account", name, "where", f"Cluster={cluster}", "set", *changes]
                )
        new_users: set[str] = set()
        for account in params["accounts"]:
            for user in account["users"]:
                if (account["name"], user) in found["users"]:
                    continue
                command = ["add", "user", user, f"Account={account['name']}", f"Cluster={cluster}"]
                if user not in found["known_users"] and user not in new_users:
                    command.append(f"DefaultAccount={account['name']}")
                    new_users.add(user)
                commands.append(command)
        return commands


def main():
    module = AnsibleModule(
        argument_spec={
            "cluster": {"type": "str", "required": True},
            "qos": {
                "type": "list",
                "elements": "dict",
                "default": [],
                "options": {
                    "name": {"type": "str", "required": True},
                    "priority": {"type": "int", "default": 0},
                },
            },
            "accounts": {
                "type": "list",
                "elements": "dict",
                "default": [],
                "options": {
                    "name": {"type": "str", "required": True},
                    "description": {"type": "str"},
                    "organization": {"type": "str"},
                    "fairshare": {"type": "int", "default": 1},
                    "qos": {"type": "list", "elements": "str", "default": []},
                    "users": {"type": "list", "elements": "str", "default": []},
                },
            },
            "sacctmgr": {"type": "str", "default": "sacctmgr"},
        },
        supports_check_mode=True,
    )
    accounting = Accounting(module)

    def text(commands: list[list[str]]) -> list[str]:
        return [shlex.join([accounting.sacctmgr, "-i", *command]) for command in commands]

    sent: list[list[str]] = []
    try:
        commands = accounting.plan(accounting.read())
        if not module.check_mode:
            for command in commands:
                accounting.sacctmgr_run("-i", *command)
                sent.append(command)
    except SacctmgrError as exc:
        module.fail_json(msg=str(exc), changed=bool(sent), commands=text(sent))
    module.exit_json(changed=bool(commands), commands=text(commands))


if __name__ == "__main__":
    main()
