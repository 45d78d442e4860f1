"""The switch simulator's modules (lab/simulators/switch_sim) import one another one way.

The graph is read from the source, not from a running interpreter: every `from . import x`
and `from .x import y`, at module level, inside a function or under `if TYPE_CHECKING`,
is an edge. A cycle (a model module importing a dialect module that imports it back,
even late, inside a function) fails the test, naming the modules on it.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "lab" / "simulators" / "switch_sim"


def import_graph(package: Path) -> dict[str, set[str]]:
    """module -> the package's modules it imports, wherever in the module the import is."""
    modules = {path.stem for path in package.glob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name in modules:
        tree = ast.parse((package / f"{name}.py").read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                if node.level == 1 and node.module:  # from .x import y
                    targets = [node.module.split(".")[0]]
                elif node.level == 1:  # from . import x, y
                    targets = [alias.name for alias in node.names]
                elif node.level == 0 and (node.module or "").startswith(f"{package.name}."):
                    targets = [node.module.split(".")[1]]  # from switch_sim.x import y
                else:
                    continue
            elif isinstance(node, ast.Import):
                prefix = f"{package.name}."
                targets = [a.name.split(".")[1] for a in node.names if a.name.startswith(prefix)]
            else:
                continue
            graph[name].update(t for t in targets if t in modules and t != name)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as [a, b, ..., a], or None (depth-first search)."""
    done: set[str] = set()
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        if node in path:
            return [*path[path.index(node) :], node]
        if node in done:
            return None
        path.append(node)
        for target in sorted(graph[node]):
            cycle = visit(target)
            if cycle:
                return cycle
        path.pop()
        done.add(node)
        return None

    for start in sorted(graph):
        cycle = visit(start)
        if cycle:
            return cycle
    return None


def test_switch_sim_has_no_import_cycle():
    graph = import_graph(PACKAGE)
    assert {"cli", "os10", "eos", "cumulus", "server"} <= set(graph)
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_graph_has_the_expected_edges():
    """Guards the reader: a refactor that hid imports from it would pass the cycle test."""
    graph = import_graph(PACKAGE)
    assert {"cli", "state"} <= graph["os10"]
    assert {"cli", "eos_model", "eos_show"} <= graph["eos"]
    assert {"cumulus_model", "cumulus_nclu", "cumulus_nvue"} <= graph["cumulus"]
    assert graph["cli"] == set()


def test_a_late_import_back_is_a_cycle(tmp_path):
    """The check sees imports inside functions and `from . import x` forms."""
    package = tmp_path / "switch_sim"
    package.mkdir()
    (package / "__init__.py").write_text("")
    late = "def tool():\n    from .dialect import Tool\n\n    return Tool\n"
    (package / "model.py").write_text(late)
    (package / "dialect.py").write_text("from . import model\n")
    assert find_cycle(import_graph(package)) == ["dialect", "model", "dialect"]
    (package / "model.py").write_text("")
    assert find_cycle(import_graph(package)) is None
