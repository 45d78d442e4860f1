"""A refused input touches no device: one bad site.yml run on the converged lab.

The run carries several mistakes at once, as an admin's edit might: values of the
bad-input table (tests/unit/test_bad_input.py, which runs every case, and against the
lab's site.yml under the network guard: tests/unit/test_bad_input_site.py) and a tier that
names a node pool the lab's cluster does not have, which only the early phase's read-only
look at the cluster can find. It must fail in its first play, naming each mistake, and
afterwards no device holds anything else than before: servers (addresses, links, fstab,
/etc/hosts, packages, containers), the OneFS log of writes, the switches' running and
startup configurations.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from conftest import ROOT, run_playbook
from device_state import differences, snapshot

sys.path.insert(0, str(ROOT / "tests" / "unit"))
from test_bad_input import PREFLIGHT_CASES, shared_values

# one case of each kind of check the early phase's first play makes: a cluster-wide
# setting, a role's argument contract, a cross-field rule, a port, a user's password hash,
# a string's format (a registry given as a URL, a bind mount without its destination, an
# export client that is not a network) and mount options that contradict each other
# (the mount plan's own checks, its second play, run only once the first has passed)
CASES = [
    "mtu_too_big",
    "mounts_per_host_not_a_number",
    "policy_idle_days_and_pattern",
    "ngc_ssh_port_out_of_range",
    "cluster_user_with_a_plain_password",
    "registry_given_as_a_url",
    "volume_without_a_destination",
    "export_client_not_a_network",
    "nfs_options_that_contradict",
]
TIERS = [
    {"name": "hot-tier", "nodepools": ["f800_48tb-ssd_256gb"]},
    {"name": "cold-tier", "nodepools": ["a200_30tb_1tb-ssd_16gb"]},
]


def _expected(message: str) -> str:
    """The message without the table's host prefix (the lab's hosts differ)."""
    prefix, _, rest = message.partition(": ")
    return rest if prefix.startswith(("gpu-1", "isilon-1")) else message


def test_a_refused_run_names_every_mistake_and_no_device_changes(tmp_path: Path):
    cases = [case for case in PREFLIGHT_CASES if case[0] in CASES]
    assert sorted(case[0] for case in cases) == sorted(CASES)
    assert all(not case[1] for case in cases)  # written for the base inventory's groups
    values = {**shared_values(cases), "onefs_tiering_tiers": TIERS}
    # no two cases set the same variable
    assert len(values) == sum(len(case[2]) for case in cases) + 1
    path = tmp_path / "values.json"
    path.write_text(json.dumps(values))
    before = snapshot()
    result = run_playbook("site.yml", "-e", f"@{path}")
    output = " ".join((result.stdout + result.stderr).split())
    assert result.returncode != 0, output[-3000:]
    assert "PLAY [Configure the data switches]" not in output, output[-3000:]
    expected = [_expected(message) for _name, _groups, _values, message in cases]
    expected.append(
        "onefs_tiering_tiers names node pools the cluster does not have: "
        "a200_30tb_1tb-ssd_16gb (it has: f800_48tb-ssd_256gb, h500_60tb_3.2tb-ssd_128gb)"
    )
    assert [message for message in expected if message not in output] == [], output[-4000:]
    assert differences(before, snapshot()) == []
