"""round_robin_mpi.py: each MPI rank gets its own Isilon data mount."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "roles/ngc_container/files/round_robin_mpi.py"
_SPEC = importlib.util.spec_from_file_location("round_robin_mpi", SCRIPT)
rr = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(rr)

MOUNTS = [f"/mnt/isilon{n}" for n in range(1, 5)]


@pytest.fixture
def mounts_file(tmp_path):
    path = tmp_path / "data_mounts"
    path.write_text("# managed by dlcluster: isilon_mounts\n" + "\n".join(MOUNTS) + "\n\n")
    return path


def _print(mounts_file, env, *args):
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--mounts-file", str(mounts_file), "--print", *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize(("rank", "mount"), [(0, 1), (1, 2), (3, 4), (4, 1), (9, 2)])
def test_open_mpi_rank_picks_mount_rank_modulo_count(mounts_file, rank, mount):
    result = _print(
        mounts_file,
        {"OMPI_COMM_WORLD_RANK": str(rank)},
        "--path",
        "data/imagenet-scratch/tfrecords",
        "--",
        "python",
        "-u",
        "tf_cnn_benchmarks.py",
        "--model=resnet50",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        "python",
        "-u",
        "tf_cnn_benchmarks.py",
        "--model=resnet50",
        f"--data_dir=/mnt/isilon{mount}/data/imagenet-scratch/tfrecords",
    ]


def test_pmi_rank_is_read_when_open_mpi_is_absent():
    assert rr.find_rank({"PMI_RANK": "5"}, rr.WORLD_RANK_VARS) == ("PMI_RANK", 5)


def test_open_mpi_wins_over_slurm():
    env = {"SLURM_PROCID": "7", "OMPI_COMM_WORLD_RANK": "2"}
    assert rr.find_rank(env, rr.WORLD_RANK_VARS) == ("OMPI_COMM_WORLD_RANK", 2)


def test_local_rank_option_uses_the_rank_on_this_host(mounts_file):
    env = {"OMPI_COMM_WORLD_RANK": "13", "OMPI_COMM_WORLD_LOCAL_RANK": "1"}
    result = _print(mounts_file, env, "--local-rank", "--", "train")
    assert result.stdout.split() == ["train", "--data_dir=/mnt/isilon2"]


def test_flag_name_is_configurable():
    command = rr.build_command(["train.py"], "data-path", "/mnt/isilon3/x")
    assert command == ["train.py", "--data-path=/mnt/isilon3/x"]


def test_a_command_that_sets_the_flag_already_is_refused():
    with pytest.raises(rr.LaunchError, match="already sets --data_dir"):
        rr.build_command(["python", "t.py", "--data_dir", "/x"], "data_dir", "/mnt/isilon1")


def test_missing_rank_fails_with_the_variables_it_looked_for(mounts_file):
    result = _print(mounts_file, {}, "--", "train")
    assert result.returncode == 2
    assert "OMPI_COMM_WORLD_RANK, PMI_RANK" in result.stderr


def test_bad_rank_value_is_named():
    with pytest.raises(rr.LaunchError, match="PMI_RANK='x' is not an integer"):
        rr.find_rank({"PMI_RANK": "x"}, rr.WORLD_RANK_VARS)


def test_missing_or_empty_mount_list_fails_clearly(tmp_path):
    with pytest.raises(rr.LaunchError, match="cannot read the data mount list"):
        rr.read_mounts(str(tmp_path / "nope"))
    empty = tmp_path / "empty"
    empty.write_text("# nothing\n")
    with pytest.raises(rr.LaunchError, match="names no mounts"):
        rr.read_mounts(str(empty))


def test_explicit_mounts_and_rank_override_file_and_environment(tmp_path):
    result = _print(tmp_path / "unused", {}, "--mounts", "/a,/b,/c", "--rank", "5", "--", "run")
    assert result.stdout.split() == ["run", "--data_dir=/c"]


def test_exec_replaces_the_launcher_and_passes_the_exit_status(mounts_file):
    code = "import sys; print(sys.argv[-1]); sys.exit(3)"
    result = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--mounts-file",
            str(mounts_file),
            "--path",
            "d",
            "--",
            sys.executable,
            "-c",
            code,
        ],
        env={"PMIX_RANK": "2"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 3
    assert result.stdout.strip() == "--data_dir=/mnt/isilon3/d"


def test_mount_list_comes_from_the_environment_the_role_sets(mounts_file):
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--print", "--", "train"],
        env={"DLCLUSTER_DATA_MOUNTS": str(mounts_file), "OMPI_COMM_WORLD_RANK": "5"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "--data_dir=/mnt/isilon2" in result.stdout


def test_no_mount_list_at_all_is_refused_with_what_to_set():
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--print", "--", "train"],
        env={"OMPI_COMM_WORLD_RANK": "0"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert "set DLCLUSTER_DATA_MOUNTS" in result.stderr
