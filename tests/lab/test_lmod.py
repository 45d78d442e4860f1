"""Lmod and the module tree on the lab's head node and a compute node.

Jobs run `module load shared` and `module load openmpi` as the papers' sample.job does
(seed 004 §5.3), from a non-login bash as a Slurm batch script runs: sbatch hands the
job the submitting login shell's environment (its default, --export=ALL), which Debian's
/etc/profile.d/lmod.sh filled (MODULEPATH, BASH_ENV, the exported `module` function).
The lab has no GPU driver and no CUDA toolkit, so the tree has no cuda module and the
role's report says why. The lab sets lmod_tree_shared=false (its NFS mounts are
written to fstab only), so every host holds its own tree.
"""

from __future__ import annotations

import re
import shlex

import pytest
from conftest import docker_host, load_lab_groups

TREE = "/cm/shared/modulefiles"
CORE = "/etc/lmod/modules"
HEADER = "-- managed by dlcluster: modules"
# mpirun refuses root unless told (Open MPI's documented override); the checks run as root.
MPI_AS_ROOT = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"


def _hosts() -> list[str]:
    """The head node(s) and the first compute node."""
    groups = load_lab_groups()
    return [*sorted(groups["head"]), "lab-compute-1"]


def _as_batch_job(script: str, *, keep_function: bool = True) -> str:
    """`script` in a non-login bash that inherits a login shell's environment, as a Slurm
    batch script does. Without the exported function, `module` comes from BASH_ENV alone."""
    unset = "" if keep_function else "-u 'BASH_FUNC_module%%' -u 'BASH_FUNC_ml%%' "
    inner = f"exec env {unset}bash -c {shlex.quote(script)}"
    return f"bash -lc {shlex.quote(inner)}"


def _openmpi_version(host) -> str:
    """The upstream version of the installed openmpi-bin (epoch and revision dropped)."""
    raw = host.check_output("dpkg-query --show --showformat='${Version}' openmpi-bin")
    return re.sub(r"-[^-]*$", "", re.sub(r"^[0-9]+:", "", raw.strip()))


@pytest.mark.parametrize("name", _hosts())
@pytest.mark.parametrize("keep_function", [True, False], ids=["inherited", "bash_env"])
def test_batch_script_loads_shared_then_openmpi_and_runs_mpirun(name, keep_function):
    host = docker_host(name)
    version = _openmpi_version(host)
    script = (
        f"module load shared && module load openmpi && echo MPI_HOME=$MPI_HOME"
        f" && {MPI_AS_ROOT} mpirun --version"
    )
    result = host.run(_as_batch_job(script, keep_function=keep_function))
    assert result.rc == 0, f"{name}: {result.stdout}{result.stderr}"
    assert "MPI_HOME=/usr/lib/x86_64-linux-gnu/openmpi" in result.stdout
    assert f"(Open MPI) {version}" in result.stdout


@pytest.mark.parametrize("name", _hosts())
def test_module_avail_lists_the_tree_with_openmpi_and_no_cuda(name):
    host = docker_host(name)
    result = host.run(_as_batch_job("module load shared && module -t avail 2>&1"))
    assert result.rc == 0, f"{name}: {result.stdout}{result.stderr}"
    listed = result.stdout.splitlines()
    assert f"{TREE}:" in listed, result.stdout
    assert f"openmpi/{_openmpi_version(host)}" in listed
    assert not [line for line in listed if line.startswith("cuda")], result.stdout


@pytest.mark.parametrize("name", _hosts())
def test_role_files_carry_the_header_and_the_core_module_points_at_the_tree(name):
    host = docker_host(name)
    shared = host.file(f"{CORE}/shared.lua")
    assert shared.exists and shared.user == "root" and shared.mode == 0o644
    assert shared.content_string.splitlines()[0] == HEADER
    assert f'prepend_path("MODULEPATH", "{TREE}")' in shared.content_string
    openmpi = host.file(f"{TREE}/openmpi/{_openmpi_version(host)}.lua")
    assert openmpi.content_string.splitlines()[0] == HEADER
    assert not host.file(f"{TREE}/cuda").exists


@pytest.mark.parametrize("name", _hosts())
def test_role_report_names_the_missing_cuda_toolkit(name, site_run_text):
    assert f"cuda: no CUDA toolkit under /usr/local on {name}" in site_run_text
    assert f"modules on {name}: " in site_run_text
