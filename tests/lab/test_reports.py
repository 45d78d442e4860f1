"""The layers' reports on the lab: each role that says what it found or left alone on a
server (RoCE devices, port types, the driver and the toolkit without a GPU, Apptainer,
the modules) records it once for the layer's servers from the control host, in the
recap's custom stats, naming every server it ran on (tests/budget.yml counts these tasks
on localhost, none on a server)."""

from __future__ import annotations

import json
import re

import pytest
from conftest import load_lab_groups

COMPUTE = sorted(load_lab_groups()["compute"])
HEAD = sorted(load_lab_groups()["head"])
NO_GPU = "no NVIDIA GPU (PCI vendor 0x10de) found"


def _entry(site_run_text: str, key: str) -> str:
    """The text of one custom stat of the shared run's recap (its callback prints them as
    one JSON object after `RUN:`)."""
    stats = site_run_text[site_run_text.index("CUSTOM STATS") :]
    run = stats[stats.index("RUN:") + len("RUN:") :].lstrip()
    data, _ = json.JSONDecoder().raw_decode(run)
    assert key in data, f"{key} is not in the recap's custom stats: {sorted(data)}"
    return json.dumps(data[key])


@pytest.mark.parametrize(
    ("key", "hosts", "says"),
    [
        ("nics_roce", COMPUTE + HEAD, "no RDMA device: RoCE not available here"),
        ("rdma_notes", COMPUTE, "skipped: no RDMA device mlx5_4 on this host"),
        ("nvidia_driver_skipped", COMPUTE, NO_GPU + "; set nvidia_driver_force=true"),
        ("nvidia_container_toolkit_skipped", COMPUTE, NO_GPU),
        ("apptainer_skipped", COMPUTE + HEAD, "apptainer_source=none"),
        ("modules", COMPUTE + HEAD, "openmpi/4.1.4"),
    ],
)
def test_each_report_names_every_server_it_ran_on(site_run_text, key, hosts, says):
    entry = _entry(site_run_text, key)
    for host in hosts:
        assert re.search(rf"\b{host}\b\"?: ", entry), (host, entry)
    assert entry.count(says) >= len(hosts), entry
