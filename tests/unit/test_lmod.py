"""The lmod role: its plan, its Lua modulefiles and its contract.

The templates are rendered with the role's real defaults through Jinja2 as Ansible's
template module does (trim_blocks); where Lmod itself is installed (Debian's `lmod`,
or LMOD_CMD naming its `lmod` command), the rendered tree is loaded by it as a user would.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from pathlib import Path

import jinja2
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
ROLE = ROOT / "roles" / "lmod"
_SPEC = importlib.util.spec_from_file_location("lmod_plan", ROOT / "filter_plugins" / "lmod.py")
plan_mod = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(plan_mod)

DEFAULTS = yaml.safe_load((ROLE / "defaults" / "main.yml").read_text())
SPECS = yaml.safe_load((ROLE / "meta" / "argument_specs.yml").read_text())["argument_specs"]
HOST = "lab-compute-1"
# Debian 12's Open MPI (Debian 12 archive: openmpi-bin 4.1.4-3+b1) and where its
# .debs put it (/usr/lib/x86_64-linux-gnu/openmpi: include/, lib/).
MPI_HOME = "/usr/lib/x86_64-linux-gnu/openmpi"
OPENMPI = {
    "package": "openmpi-bin",
    "home": MPI_HOME,
    "subdirs": {"LD_LIBRARY_PATH": ["lib"], "CPATH": ["include"]},
    "packages": {"openmpi-bin": [{"version": "4.1.4-3+b1"}]},
}
NO_CUDA = {"driver": False, "dirs": [], "search_dir": "/usr/local"}
NO_APPTAINER = {"rc": 2, "stdout": ""}
# Lmod's own command: Debian's path, or LMOD_CMD (what Lmod's init scripts export).
LMOD = os.environ.get("LMOD_CMD") or "/usr/share/lmod/lmod/libexec/lmod"


def _plan(**changes) -> dict:
    """The plan for HOST with Debian's Open MPI, no GPU and no Apptainer unless changed."""
    args = {
        "openmpi": OPENMPI,
        "cuda": NO_CUDA,
        "apptainer": NO_APPTAINER,
        "extra": DEFAULTS["lmod_extra"],
        "aliases": DEFAULTS["lmod_aliases"],
        **changes,
    }
    return plan_mod.lmod_plan(HOST, **args)


def _render(template: str, **context) -> str:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(ROLE / "templates"),
        trim_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    return env.get_template(template).render(**{**DEFAULTS, **context})


def _lua_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line and not line.startswith("--")]


# ---- the plan ------------------------------------------------------------------------------


def test_openmpi_module_takes_the_installed_packages_upstream_version():
    (module,) = _plan()["modules"]
    assert (module["name"], module["version"]) == ("openmpi", "4.1.4")
    assert module["setenv"] == {"MPI_HOME": MPI_HOME}
    assert _plan()["available"] == ["openmpi/4.1.4"]


def test_package_versions_lose_epoch_and_revision():
    assert plan_mod.package_upstream_version("4.1.4-3+b1") == "4.1.4"
    assert plan_mod.package_upstream_version("1:4.1.4-3") == "4.1.4"
    assert plan_mod.package_upstream_version("4.1.1-5.el9") == "4.1.1"
    assert plan_mod.package_upstream_version("5.0.3") == "5.0.3"


def test_without_openmpi_the_module_is_absent_with_the_reason():
    plan = _plan(openmpi={**OPENMPI, "packages": {}})
    assert plan["modules"] == []
    assert plan["absent"][0] == "openmpi: package openmpi-bin not installed on lab-compute-1"


def test_lab_node_has_no_cuda_module_and_says_why():
    plan = _plan()
    assert not [m for m in plan["modules"] if m["name"] == "cuda"]
    assert "cuda: no CUDA toolkit under /usr/local on lab-compute-1" in plan["absent"]
    driver_only = _plan(cuda={**NO_CUDA, "driver": True})
    assert "cuda: no CUDA toolkit under /usr/local on lab-compute-1" in driver_only["absent"]
    toolkit_only = _plan(cuda={**NO_CUDA, "dirs": ["/usr/local/cuda-12.2"]})
    assert not [m for m in toolkit_only["modules"] if m["name"] == "cuda"]
    assert (
        "cuda: no NVIDIA driver (nvidia-smi) on lab-compute-1 for the toolkit(s) under"
        " /usr/local: 12.2"
    ) in toolkit_only["absent"]


def test_one_cuda_module_per_toolkit_next_to_the_driver():
    cuda = {
        "driver": True,
        "search_dir": "/usr/local",
        # /usr/local/cuda is NVIDIA's symlink to one of them: not a version
        "dirs": ["/usr/local/cuda-12.2", "/usr/local/cuda-9.1", "/usr/local/cuda"],
    }
    modules = [m for m in _plan(cuda=cuda)["modules"] if m["name"] == "cuda"]
    assert [m["version"] for m in modules] == ["12.2", "9.1"]
    assert modules[1]["setenv"] == {"CUDA_HOME": "/usr/local/cuda-9.1"}
    assert modules[1]["prepend_path"] == {
        "PATH": ["/usr/local/cuda-9.1/bin"],
        "LD_LIBRARY_PATH": ["/usr/local/cuda-9.1/lib64"],
    }
    no_driver = _plan(cuda={**cuda, "driver": False})
    assert not [m for m in no_driver["modules"] if m["name"] == "cuda"]


def test_apptainer_version_comes_from_its_version_output():
    plan = _plan(apptainer={"rc": 0, "stdout": "apptainer version 1.3.4-1.el9"})
    assert "apptainer/1.3.4" in plan["available"]
    assert "apptainer: no apptainer binary on lab-compute-1" in _plan()["absent"]
    assert "apptainer/1.3.4" not in _plan(apptainer={"rc": 2, "stdout": ""})["available"]


def test_apptainer_version_comes_from_the_apptainer_roles_fact():
    """Where the apptainer role ran first, its apptainer_version_found answers instead."""
    assert "apptainer/1.4.5" in _plan(apptainer={"version": "1.4.5"})["available"]
    absent = _plan(apptainer={"version": ""})
    assert "apptainer: no apptainer binary on lab-compute-1" in absent["absent"]
    assert not [m for m in absent["available"] if m.startswith("apptainer/")]


def test_aliases_to_modules_the_host_lacks_are_left_out_and_named():
    aliases = {"cuda91/toolkit": "cuda/9.1", "mpi": "openmpi", "ompi/4": "openmpi/4.1.4"}
    plan = _plan(aliases=aliases)
    assert plan["aliases"] == {"mpi": "openmpi", "ompi/4": "openmpi/4.1.4"}
    assert "alias cuda91/toolkit -> cuda/9.1: cuda/9.1 not in the tree" in plan["absent"]


def test_site_modules_with_a_slash_or_a_clash_are_refused():
    bad = [{"name": "tools/x", "version": "1", "whatis": "x"}]
    with pytest.raises(ValueError, match=r"lmod_extra\[0\]\.name is 'tools/x'"):
        _plan(extra=bad)
    clash = [{"name": "openmpi", "version": "4.1.4", "whatis": "x"}]
    with pytest.raises(ValueError, match=r"openmpi/4\.1\.4, which the role writes itself"):
        _plan(extra=clash)


def test_a_reading_host_learns_the_tree_from_the_files_found():
    tree = DEFAULTS["lmod_tree_dir"]
    found = [f"{tree}/openmpi/4.1.4.lua", f"{tree}/.modulerc.lua", f"{tree}/cuda/.hidden.lua"]
    assert plan_mod.lmod_in_tree(found, tree) == ["openmpi/4.1.4"]


# ---- the Lua files -------------------------------------------------------------------------


def test_shared_module_prepends_the_default_tree_to_modulepath():
    text = _render("shared.lua.j2")
    assert text.splitlines()[0] == "-- managed by dlcluster: modules"
    assert 'prepend_path("MODULEPATH", "/cm/shared/modulefiles")' in _lua_lines(text)
    assert _lua_lines(text)[0].startswith("whatis(\"The cluster's shared module tree")


def test_openmpi_modulefile_sets_mpi_home_and_debians_paths():
    (module,) = _plan()["modules"]
    text = _render("module.lua.j2", item=module)
    assert text.splitlines()[0] == "-- managed by dlcluster: modules"
    assert _lua_lines(text) == [
        'whatis("Open MPI 4.1.4 from the distribution\'s openmpi-bin package")',
        "help(\"Open MPI 4.1.4 from the distribution's openmpi-bin package.\\nSets MPI_HOME="
        + MPI_HOME
        + "; mpirun and the compiler wrappers (mpicc, mpicxx, mpifort) are the distribution's.\")",
        f'setenv("MPI_HOME", "{MPI_HOME}")',
        f'prepend_path("CPATH", "{MPI_HOME}/include")',
        f'prepend_path("LD_LIBRARY_PATH", "{MPI_HOME}/lib")',
    ]


def test_site_module_paths_keep_their_order_and_text_is_escaped():
    extra = [
        {
            "name": "tensorflow",
            "version": "19.03",
            "whatis": 'NGC "tensorflow" image\\n',
            "prepend_path": {"PATH": ["/opt/tf/bin", "/opt/tf/sbin"]},
            "setenv": {"TF_HOME": "/opt/tf"},
        }
    ]
    module = next(m for m in _plan(extra=extra)["modules"] if m["name"] == "tensorflow")
    lines = _lua_lines(_render("module.lua.j2", item=module))
    assert lines[0] == 'whatis("NGC \\"tensorflow\\" image\\\\n")'
    # prepended last = first on PATH: the list's order is the order on PATH
    assert lines[-2:] == [
        'prepend_path("PATH", "/opt/tf/sbin")',
        'prepend_path("PATH", "/opt/tf/bin")',
    ]


def test_aliases_are_lmod_module_alias_lines():
    plan = _plan(
        cuda={"driver": True, "search_dir": "/usr/local", "dirs": ["/usr/local/cuda-9.1"]},
        aliases={"cuda91/toolkit": "cuda/9.1"},
    )
    text = _render("modulerc.lua.j2", _lmod_plan=plan)
    assert text.splitlines()[0] == "-- managed by dlcluster: modules"
    assert _lua_lines(text) == ['module_alias("cuda91/toolkit", "cuda/9.1")']


def _write_tree(tmp_path: Path, plan: dict) -> tuple[Path, Path]:
    """The role's files as it writes them, under tmp_path (core dir, tree)."""
    core, tree = tmp_path / "core", tmp_path / "tree"
    core.mkdir()
    (core / "shared.lua").write_text(_render("shared.lua.j2", lmod_tree_dir=str(tree)))
    for module in plan["modules"]:
        (tree / module["name"]).mkdir(parents=True, exist_ok=True)
        text = _render("module.lua.j2", item=module)
        (tree / module["name"] / f"{module['version']}.lua").write_text(text)
    if plan["aliases"]:
        (tree / ".modulerc.lua").write_text(_render("modulerc.lua.j2", _lmod_plan=plan))
    return core, tree


def _lmod_lua() -> str | None:
    """The Lua interpreter Lmod's command names on its first line, if both are here."""
    if not os.access(LMOD, os.X_OK):
        return None
    first = Path(LMOD).read_text().splitlines()[0]
    interpreter = first[2:].strip().split()[0] if first.startswith("#!") else ""
    return interpreter if interpreter and shutil.which(interpreter) else None


@pytest.mark.skipif(_lmod_lua() is None, reason="Lmod (and its Lua) not installed here")
def test_lmod_loads_shared_then_the_tree_and_the_papers_alias(tmp_path):
    """As the papers' sample.job does: module load shared; module load cuda91/toolkit."""
    cuda = {"driver": True, "search_dir": "/usr/local", "dirs": ["/usr/local/cuda-9.1"]}
    plan = _plan(cuda=cuda, aliases={"cuda91/toolkit": "cuda/9.1"})
    core, tree = _write_tree(tmp_path, plan)
    script = (
        f'module() {{ eval "$("{LMOD}" bash "$@")"; }}\n'
        "module load shared && module load openmpi && module load cuda91/toolkit || exit 9\n"
        'echo "MODULEPATH=$MODULEPATH"; echo "MPI_HOME=$MPI_HOME"; echo "CUDA_HOME=$CUDA_HOME"\n'
        'echo "PATH=$PATH"\n'
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "MODULEPATH": str(core)}
    out = subprocess.run(
        ["bash", "-c", script], env=env, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    values = dict(line.split("=", 1) for line in out.stdout.splitlines())
    assert values["MODULEPATH"].split(":")[0] == str(tree)
    assert values["MPI_HOME"] == MPI_HOME
    assert values["CUDA_HOME"] == "/usr/local/cuda-9.1"
    assert values["PATH"].split(":")[0] == "/usr/local/cuda-9.1/bin"


@pytest.mark.skipif(not shutil.which("luac5.3"), reason="no Lua compiler (luac5.3) here")
def test_every_rendered_file_is_valid_lua(tmp_path):
    extra = [{"name": "x", "version": "1", "whatis": 'quote " back \\ line\nbreak'}]
    cuda = {"driver": True, "search_dir": "/usr/local", "dirs": ["/usr/local/cuda-9.1"]}
    plan = _plan(cuda=cuda, extra=extra, aliases={"cuda91/toolkit": "cuda/9.1"})
    _write_tree(tmp_path, plan)
    files = [*tmp_path.rglob("*.lua")]
    assert len(files) == 5  # shared, openmpi, cuda, x, .modulerc
    out = subprocess.run(
        ["luac5.3", "-p", *map(str, files)], capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr


# ---- the contract and the tasks ------------------------------------------------------------


def test_argument_specs_cover_every_default_with_the_same_value():
    options = SPECS["main"]["options"]
    assert set(DEFAULTS) == set(options)
    for name, value in DEFAULTS.items():
        assert options[name].get("default") == value, name
        assert options[name].get("description"), name


def test_detection_is_read_only_and_runs_in_check_mode():
    tasks = yaml.safe_load((ROLE / "tasks" / "detect.yml").read_text())
    assert len(tasks) == 4  # Open MPI, the driver and toolkits (one find), Apptainer, the tree
    for task in tasks:
        assert task.get("check_mode") is False, task["name"]
        if "ansible.builtin.command" in task:
            assert task.get("changed_when") is False, task["name"]
            assert task.get("failed_when") is False, task["name"]
        assert "ansible.builtin.shell" not in task


def test_only_files_with_the_roles_header_are_found_for_removal():
    tasks = yaml.safe_load((ROLE / "tasks" / "detect.yml").read_text())
    found = next(t for t in tasks if t["name"] == "Find the modulefiles this role wrote before")
    role_vars = yaml.safe_load((ROLE / "vars" / "main.yml").read_text())
    header = role_vars["_lmod_header"]
    assert found["ansible.builtin.find"]["contains"] == "^{{ _lmod_header }}$"
    for template in ("shared.lua.j2", "module.lua.j2", "modulerc.lua.j2"):
        (module,) = _plan()["modules"]
        text = _render(template, item=module, _lmod_plan=_plan())
        assert text.splitlines()[0] == header, template


def test_the_tree_as_host_state_entries_names_every_file_and_drops_what_left_the_plan():
    plan = _plan()
    tree, core = "/cm/shared/modulefiles", "/etc/lmod/modules"
    previous = [f"{tree}/openmpi/4.1.4.lua", f"{tree}/cuda/9.1.lua"]
    entries = plan_mod.lmod_intended_files(plan, core, tree, True, previous)
    by_path = {entry["path"]: entry for entry in entries}
    assert by_path[core]["state"] == "directory"
    assert by_path[f"{core}/shared.lua"]["template"] == "shared.lua.j2"
    (module,) = plan["modules"]
    modulefile = by_path[f"{tree}/{module['name']}/{module['version']}.lua"]
    assert modulefile["template"] == "module.lua.j2" and modulefile["template_vars"] == {
        "item": module
    }
    assert by_path[f"{tree}/cuda/9.1.lua"] == {"path": f"{tree}/cuda/9.1.lua", "state": "absent"}
    assert all(e.get("owner", "root") == "root" for e in entries)
    # a host that only reads the shared tree checks its core module alone
    assert [e["path"] for e in plan_mod.lmod_intended_files(plan, core, tree, False, [])] == [
        core,
        f"{core}/shared.lua",
    ]


def test_the_report_line_names_the_modules_and_why_others_are_absent():
    plan = _plan()
    host_vars = {"inventory_hostname": HOST, "_lmod_plan": plan,
                 "lmod_available": plan["available"]}  # fmt: skip
    line = plan_mod.lmod_report(host_vars, "/cm/shared/modulefiles", "head", False, [])
    assert line.startswith(f"modules on {HOST}: openmpi/4.1.4; absent: ")
    assert f"cuda: no CUDA toolkit under /usr/local on {HOST}" in line
    shared = plan_mod.lmod_report(host_vars, "/cm/shared/modulefiles", "head", True, ["h"])
    assert "(the shared tree /cm/shared/modulefiles, written by the head group); absent: none" in (
        shared
    )
