"""Every module of library/ documents itself as ansible-doc reads it: its DOCUMENTATION,
EXAMPLES and RETURN are YAML (a description line with `word: word` in plain text is not),
and the documentation names the module by its file's name."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import yaml

LIBRARY = Path(__file__).resolve().parents[2] / "library"


def _docs(path: Path) -> dict[str, str]:
    return {
        node.targets[0].id: ast.literal_eval(node.value)
        for node in ast.parse(path.read_text()).body
        if isinstance(node, ast.Assign)
        and isinstance(node.targets[0], ast.Name)
        and node.targets[0].id in ("DOCUMENTATION", "EXAMPLES", "RETURN")
    }


@pytest.mark.parametrize("path", sorted(LIBRARY.glob("*.py")), ids=lambda path: path.stem)
def test_a_modules_documentation_is_yaml_and_names_it(path):
    docs = _docs(path)
    assert set(docs) == {"DOCUMENTATION", "EXAMPLES", "RETURN"}
    parsed = {name: yaml.safe_load(text) for name, text in docs.items()}
    assert parsed["DOCUMENTATION"]["module"] == path.stem
    assert parsed["DOCUMENTATION"]["short_description"]
