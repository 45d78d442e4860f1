"""The portal's notebook templates (roles/jupyterhub/files/templates).

Seed 004 §5.1: the portal's landing page shows a `templates` folder with a notebook per
framework. Each notebook here must open in Jupyter as shipped: nbformat 4 (4.4 or later),
unique cell ids, no outputs, the `python3` kernel, and code cells that compile. The first
two code cells (the session report and the data check) use the standard library only, so
they are run here too, with HOME and the Slurm variables of a made-up session.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "roles" / "jupyterhub" / "files" / "templates"
NOTEBOOKS = sorted(TEMPLATES.glob("*.ipynb"))
# Frameworks the papers measure or the portal lists (seed 004 §2.7, §3.1): one notebook
# each, its name starting with the framework's.
FRAMEWORKS = ["tensorflow", "mxnet", "pytorch", "keras"]
# A file of each notebook's data set, relative to HOME (seeds 000/001 lay out the data).
DATA_FILES = {
    "tensorflow": "isilon/data/imagenet-scratch/tfrecords/train-00000-of-01024",
    "mxnet": "isilon/data/mxnet_mlperf/mxnet_recordio/train.rec",
    "pytorch": "isilon/data/pytorch/train/n01440764/n01440764_10026.JPEG",
    "keras": "isilon/data/mnist/mnist.npz",
}
# nbformat 4.5's schema for cell ids.
CELL_ID = re.compile(r"^[a-zA-Z0-9-_]{1,64}$")


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _source(cell: dict) -> str:
    source = cell["source"]
    return "".join(source) if isinstance(source, list) else source


def _python(cell: dict) -> str:
    """The cell's code without IPython magics and shell escapes (lines starting % or !)."""
    return "\n".join(
        "" if line.lstrip().startswith(("%", "!")) else line for line in _source(cell).splitlines()
    )


def _code_cells(notebook: dict) -> list[dict]:
    return [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]


def _framework(path: Path) -> str:
    return path.name.split("-", 1)[0].removesuffix(".ipynb")


def _imports(source: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def test_one_notebook_per_framework():
    found = {}
    for path in NOTEBOOKS:
        found.setdefault(_framework(path), []).append(path.name)
    assert sorted(found) == sorted(FRAMEWORKS), found
    assert all(len(names) == 1 for names in found.values()), found
    assert (TEMPLATES / "README.md").is_file()


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
class TestNotebook:
    def test_format(self, path):
        notebook = _load(path)
        assert notebook["nbformat"] == 4
        assert notebook["nbformat_minor"] >= 4
        assert notebook["cells"], "no cells"
        for cell in notebook["cells"]:
            assert cell["cell_type"] in ("markdown", "code", "raw")
            assert isinstance(cell["metadata"], dict)

    def test_cell_ids_unique(self, path):
        notebook = _load(path)
        ids = [cell.get("id") for cell in notebook["cells"]]
        if notebook["nbformat_minor"] >= 5:  # required from 4.5 on
            assert all(isinstance(i, str) and CELL_ID.match(i) for i in ids), ids
        present = [i for i in ids if i is not None]
        assert len(present) == len(set(present)), ids

    def test_no_outputs(self, path):
        for cell in _code_cells(_load(path)):
            assert cell["outputs"] == [], cell.get("id")
            assert cell["execution_count"] is None, cell.get("id")

    def test_kernelspec(self, path):
        kernelspec = _load(path)["metadata"]["kernelspec"]
        assert kernelspec["name"] == "python3"
        assert kernelspec["language"] == "python"
        assert kernelspec["display_name"] == "Python 3 (ipykernel)"

    def test_code_compiles(self, path):
        cells = _code_cells(_load(path))
        assert len(cells) >= 3, f"{path.name}: {len(cells)} code cells"
        compiled = [compile(_python(c), f"{path.name}:{c.get('id')}", "exec") for c in cells]
        # every cell's code became a code object with its statements, none left empty
        assert all(code.co_code for code in compiled)
        assert all(_python(cell).strip() for cell in cells), path.name

    def test_starts_with_markdown(self, path):
        first = _load(path)["cells"][0]
        assert first["cell_type"] == "markdown"
        assert _source(first).startswith("# ")

    def test_report_and_data_cells_use_stdlib_only(self, path):
        for cell in _code_cells(_load(path))[:2]:
            outside = _imports(_python(cell)) - set(sys.stdlib_module_names)
            assert not outside, (cell.get("id"), outside)


def _run_first_cells(path: Path) -> str:
    """Run the session and data cells as the kernel would, in one namespace."""
    namespace: dict = {"__name__": "__main__"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for cell in _code_cells(_load(path))[:2]:
            exec(compile(_python(cell), f"{path.name}:{cell.get('id')}", "exec"), namespace)
    return out.getvalue()


@pytest.fixture
def session(monkeypatch, tmp_path):
    """A Slurm session with two GPUs and a HOME of its own (Path.home() reads HOME)."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("SLURM_JOB_ID", "27325")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,1")
    return tmp_path


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_first_cells_run_without_isilon(path, session):
    output = _run_first_cells(path)
    assert "27325" in output
    assert "'0,1'" in output
    assert "2 given to this session" in output
    assert "has no view of the Isilon mount" in output


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_first_cells_list_the_data(path, session):
    data = session / DATA_FILES[_framework(path)]
    data.parent.mkdir(parents=True)
    data.write_bytes(b"\0" * 1024)
    output = _run_first_cells(path)
    assert data.name in output or data.parent.name in output, output
    assert "not found" not in output


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_first_cells_without_gpus(path, session, monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    (session / "isilon" / "data").mkdir(parents=True)
    output = _run_first_cells(path)
    assert "none given to this session" in output
    assert "not found" in output
