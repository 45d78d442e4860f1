"""What the module tree holds on a host, worked out from what the host has.

Pure functions, so the decisions (which modules, which versions, why one is absent,
which aliases have a target) are unit-tested without a host.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_VERSION = re.compile(r"[0-9]+(?:\.[0-9]+)+")
_CUDA_DIR = re.compile(r"^cuda-([0-9]+(?:\.[0-9]+)+)$")


def package_upstream_version(version: str) -> str:
    """The upstream part of a package version: no epoch, no Debian/RPM revision.

    Module versions are what users type (`openmpi/4.1.4`), not the packaging's
    `4.1.4-3+b1` or `1:4.1.4-3`.
    """
    without_epoch = re.sub(r"^[0-9]+:", "", version.strip())
    return re.sub(r"-[^-]*$", "", without_epoch)


def _module(name: str, version: str, whatis: str, help_text: str, **env: Any) -> dict[str, Any]:
    """One modulefile's content in the shape the template renders."""
    return {
        "name": name,
        "version": version,
        "whatis": whatis,
        "help": help_text or whatis,
        "prepend_path": {var: _as_list(paths) for var, paths in env.get("prepend", {}).items()},
        "setenv": {var: str(value) for var, value in env.get("setenv", {}).items()},
    }


def _as_list(paths: Any) -> list[str]:
    """A prepend_path value as a list: site entries may give one path or several."""
    return [str(path) for path in paths] if isinstance(paths, (list, tuple)) else [str(paths)]


def openmpi_module(host: str, openmpi: dict[str, Any]) -> tuple[dict | None, str]:
    """The Open MPI module, or why there is none.

    `openmpi`: package (its name), packages (installed packages, name -> [{version}]:
    the run's listing or installed_packages of a query for it), home (MPI_HOME) and
    subdirs (variable -> directories below the home prepended to it, in order).
    """
    installed = (openmpi.get("packages") or {}).get(openmpi["package"]) or []
    if not installed:
        return None, f"openmpi: package {openmpi['package']} not installed on {host}"
    version = package_upstream_version(installed[0]["version"])
    whatis = f"Open MPI {version} from the distribution's {openmpi['package']} package"
    help_text = (
        f"{whatis}.\nSets MPI_HOME={openmpi['home']}; mpirun and the compiler wrappers"
        " (mpicc, mpicxx, mpifort) are the distribution's."
    )
    module = _module(
        "openmpi",
        version,
        whatis,
        help_text,
        prepend={
            variable: [f"{openmpi['home'].rstrip('/')}/{subdir}" for subdir in _as_list(subdirs)]
            for variable, subdirs in (openmpi.get("subdirs") or {}).items()
        },
        setenv={"MPI_HOME": openmpi["home"]},
    )
    return module, ""


def cuda_modules(host: str, cuda: dict[str, Any]) -> tuple[list[dict], str]:
    """One module per CUDA toolkit next to NVIDIA's driver, or why there is none.

    `cuda`: driver (nvidia-smi present), dirs (toolkit directories found) and search_dir.
    A toolkit without the driver runs no kernel, so it gets no module.
    """
    found = []
    for path in sorted(cuda.get("dirs") or []):
        match = _CUDA_DIR.match(path.rstrip("/").rsplit("/", 1)[-1])
        if match:
            found.append((match.group(1), path.rstrip("/")))
    if not found:
        return [], f"cuda: no CUDA toolkit under {cuda['search_dir']} on {host}"
    if not cuda.get("driver"):
        versions = ", ".join(version for version, _ in found)
        return [], (
            f"cuda: no NVIDIA driver (nvidia-smi) on {host} for the toolkit(s) under"
            f" {cuda['search_dir']}: {versions}"
        )
    modules = []
    for version, path in found:
        whatis = f"NVIDIA CUDA toolkit {version} ({path})"
        help_text = f"{whatis}.\nSets CUDA_HOME and puts nvcc and the CUDA libraries on the paths."
        modules.append(
            _module(
                "cuda",
                version,
                whatis,
                help_text,
                prepend={"PATH": [f"{path}/bin"], "LD_LIBRARY_PATH": [f"{path}/lib64"]},
                setenv={"CUDA_HOME": path},
            )
        )
    return modules, ""


def apptainer_module(host: str, apptainer: dict[str, Any]) -> tuple[dict | None, str]:
    """The Apptainer module, or why none.

    `apptainer` is either the version the apptainer role found (`version`, "" where
    absent) or the registered result of `apptainer --version`, which prints e.g.
    `apptainer version 1.3.4`; a missing binary leaves rc != 0.
    """
    if "version" in apptainer:
        found = str(apptainer["version"] or "")
        match = _VERSION.search(found) if found else None
    else:
        match = _VERSION.search(apptainer.get("stdout") or "")
        match = match if apptainer.get("rc", 1) == 0 else None
    if not match:
        return None, f"apptainer: no apptainer binary on {host}"
    version = match.group(0)
    whatis = f"Apptainer {version} container runtime"
    help_text = (
        f"{whatis}.\nRun NGC images with: apptainer run --nv docker://nvcr.io/nvidia/<image>"
    )
    return _module("apptainer", version, whatis, help_text), ""


def extra_modules(extra: list[dict[str, Any]]) -> list[dict]:
    """The site's modules (lmod_extra) in the template's shape; bad names refused.

    A `/` in a name or version would put the file in another module's directory.
    """
    modules = []
    for index, entry in enumerate(extra or []):
        for key in ("name", "version"):
            value = str(entry.get(key) or "")
            if not value or "/" in value or value.startswith("."):
                raise ValueError(
                    f"lmod_extra[{index}].{key} is {value!r}; allowed: a non-empty name"
                    " without '/' that does not start with '.'"
                )
        modules.append(
            _module(
                str(entry["name"]),
                str(entry["version"]),
                str(entry.get("whatis") or ""),
                str(entry.get("help") or ""),
                prepend=entry.get("prepend_path") or {},
                setenv=entry.get("setenv") or {},
            )
        )
    return modules


def kept_aliases(aliases: dict[str, str], available: list[str]) -> tuple[dict[str, str], list]:
    """The aliases whose target this host provides, and a reason for each one left out.

    A target is `name/version` or a bare `name` (any version of it). An alias to nothing
    would show in `module avail` and fail on load.
    """
    names = {full.split("/", 1)[0] for full in available}
    kept, dropped = {}, []
    for alias, target in sorted((aliases or {}).items()):
        if target in available or ("/" not in target and target in names):
            kept[str(alias)] = str(target)
        else:
            dropped.append(f"alias {alias} -> {target}: {target} not in the tree")
    return kept, dropped


def lmod_plan(
    host: str,
    openmpi: dict[str, Any],
    cuda: dict[str, Any],
    apptainer: dict[str, Any],
    extra: list[dict[str, Any]],
    aliases: dict[str, str],
) -> dict[str, Any]:
    """Every module of the tree on `host`, the aliases kept and why the others are absent.

    Returns modules (template shape), aliases (alias -> target), available
    ("name/version", sorted) and absent (one reason each).
    """
    modules: list[dict] = []
    absent: list[str] = []
    mpi, reason = openmpi_module(host, openmpi)
    modules += [mpi] if mpi else []
    absent += [reason] if reason else []
    toolkits, reason = cuda_modules(host, cuda)
    modules += toolkits
    absent += [reason] if reason else []
    container, reason = apptainer_module(host, apptainer)
    modules += [container] if container else []
    absent += [reason] if reason else []
    builtin = {(m["name"], m["version"]) for m in modules}
    for site in extra_modules(extra):
        if (site["name"], site["version"]) in builtin:
            raise ValueError(
                f"lmod_extra names {site['name']}/{site['version']}, which the role"
                " writes itself on this host"
            )
        modules.append(site)
    available = sorted(f"{m['name']}/{m['version']}" for m in modules)
    kept, dropped = kept_aliases(aliases, available)
    return {"modules": modules, "aliases": kept, "available": available, "absent": absent + dropped}


def lmod_in_tree(paths: list[str], tree: str) -> list[str]:
    """ "name/version" of the modulefiles found under `tree` (hidden files left out).

    How a host that reads a shared tree, without writing it, learns what it offers.
    """
    root = tree.rstrip("/") + "/"
    found = []
    for path in paths or []:
        relative = path[len(root) :] if path.startswith(root) else ""
        parts = relative.split("/")
        if len(parts) == 2 and not parts[1].startswith(".") and parts[1].endswith(".lua"):
            found.append(f"{parts[0]}/{parts[1][: -len('.lua')]}")
    return sorted(found)


def lmod_intended_files(
    plan: dict[str, Any],
    core_dir: str,
    tree_dir: str,
    writes_tree: bool,
    previous: list[str],
) -> list[dict[str, Any]]:
    """What the role's tree.yml leaves on a host, as host_state file entries: the core
    module and its directory; where the host writes the tree, its directories, one
    modulefile per module version (rendered from module.lua.j2 with the module as
    `item`), the aliases, and the role's earlier modulefiles the plan no longer has, absent.
    """
    owned = {"owner": "root", "group": "root"}
    entries: list[dict[str, Any]] = [
        {"path": core_dir, "state": "directory", "mode": "0755", **owned},
        {"path": f"{core_dir}/shared.lua", "template": "shared.lua.j2", "mode": "0644", **owned},
    ]
    if not writes_tree:
        return entries
    tree = tree_dir.rstrip("/")
    names = sorted({module["name"] for module in plan["modules"]})
    entries += [{"path": path, "state": "directory", "mode": "0755", **owned}
                for path in [tree, *(f"{tree}/{name}" for name in names)]]  # fmt: skip
    wanted = []
    for module in plan["modules"]:
        path = f"{tree}/{module['name']}/{module['version']}.lua"
        wanted.append(path)
        entries.append({"path": path, "template": "module.lua.j2",
                        "template_vars": {"item": module}, "mode": "0644", **owned})  # fmt: skip
    if plan.get("aliases"):
        wanted.append(f"{tree}/.modulerc.lua")
        entries.append({"path": f"{tree}/.modulerc.lua", "template": "modulerc.lua.j2",
                        "mode": "0644", **owned})  # fmt: skip
    entries += [{"path": path, "state": "absent"} for path in sorted(set(previous) - set(wanted))]
    return entries


def lmod_report(
    host_vars: Mapping[str, Any],
    tree_dir: str,
    tree_group: str,
    tree_shared: Any,
    writers: list[str],
) -> str:
    """The line the role reports for one host: its modules, where a host reads a shared
    tree which group writes it, and why any module is absent. `tree_shared` is the role's
    lmod_tree_shared where the host does not set its own; `writers` the hosts of
    `tree_group`."""
    plan = host_vars["_lmod_plan"]
    shared = host_vars.get("lmod_tree_shared", tree_shared)
    writes = str(shared).strip().lower() not in ("1", "true", "yes", "on") or (
        host_vars["inventory_hostname"] in (writers or [])
    )
    available = host_vars.get("lmod_available", [])
    where = "" if writes else f" (the shared tree {tree_dir}, written by the {tree_group} group)"
    absent = "; ".join(plan.get("absent") or []) if writes and plan.get("absent") else "none"
    return (
        f"modules on {host_vars['inventory_hostname']}: {', '.join(available) or 'none'}{where};"
        f" absent: {absent}"
    )


class FilterModule:
    """The lmod role's planning filters."""

    def filters(self) -> dict[str, Any]:
        return {
            "lmod_plan": lmod_plan,
            "lmod_in_tree": lmod_in_tree,
            "lmod_intended_files": lmod_intended_files,
            "lmod_report": lmod_report,
        }
