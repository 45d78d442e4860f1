"""Apptainer on the lab: no source the lab may reach (apptainer_source=none), so every
server says why it has none, in the run and in its recap, and the head node still gets
the job example that runs an NGC image under Slurm with --nv."""

from __future__ import annotations

import pytest
from conftest import docker_host, load_lab_groups

SERVERS = sorted(load_lab_groups()["head"]) + sorted(load_lab_groups()["compute"])


@pytest.mark.parametrize("host", SERVERS)
def test_each_server_says_why_it_has_no_apptainer(host, site_run_text):
    line = (
        f"Apptainer not installed on {host}: apptainer_source=none and no apptainer command found"
    )
    assert line in site_run_text
    assert docker_host(host).run("command -v apptainer").rc != 0


def test_the_recap_records_the_skips(site_run_text):
    recap = site_run_text[site_run_text.index("CUSTOM STATS") :]
    assert "apptainer_skipped" in recap
    assert all(host in recap for host in SERVERS)


def test_the_head_node_has_the_job_example():
    example = docker_host(sorted(load_lab_groups()["head"])[0]).file(
        "/cm/shared/apps/apptainer/examples/ngc.job"
    )
    assert example.exists and example.mode == 0o644
    text = example.content_string
    assert "#SBATCH --gres=gpu:4" in text
    assert "module load shared\nmodule load apptainer\n" in text
    assert "srun apptainer exec --nv " in text
