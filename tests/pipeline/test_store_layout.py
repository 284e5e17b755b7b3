"""The store owns its layout: no module but ``pipelines/storage/layout.py`` spells it.

Partition folders (``batch=``, ``bucket=``), the version folder (``.versions``) and paths built
as ``tables/<name>`` appear nowhere else in the tree, tests and benchmarks included: hand-made
test stores are written through ``Store``'s API, so they have the same layout, manifests and
published snapshot as the pipeline's. Docstrings and comments may describe the layout.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OWNER = ROOT / "pipelines" / "storage" / "layout.py"
CHECKER = Path(__file__).resolve()
"""This module: its sample source spells the layout on purpose."""
SKIP = {".venv", "build", ".git", "node_modules"}
SPELLINGS = ("batch=", "bucket=", ".versions")
TABLES_PATH = re.compile(r"(^|/)tables/")


def _modules() -> Iterator[Path]:
    for path in sorted(ROOT.rglob("*.py")):
        if path not in (OWNER, CHECKER) and not SKIP & set(path.relative_to(ROOT).parts):
            yield path


def _docstrings(tree: ast.AST) -> set[int]:
    """Ids of the string constants that are statements of their own (docstrings)."""
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }


def _is_tables(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value == "tables"


def layout_spellings(source: str) -> list[tuple[int, str]]:
    """(line, what) for every place in ``source`` that spells the store's layout."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            found += [(node.lineno, s) for s in SPELLINGS if s in node.value]
            if TABLES_PATH.search(node.value):
                found.append((node.lineno, "tables/ path"))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and _is_tables(node.right):
            found.append((node.lineno, '/ "tables"'))
        elif isinstance(node, ast.Call) and any(_is_tables(a) for a in node.args):
            found.append((node.lineno, '"tables" path argument'))
    return sorted(found)


def test_the_detector_sees_each_way_of_spelling_the_layout() -> None:
    source = '''
"""Docs may say tables/<name>/batch=<id>/bucket=<n>/ and .versions."""
a = root / "tables" / name
b = f"{root}/tables/{name}"
c = folder / f"bucket={n}"
d = f"batch={batch_id}"
e = os.path.join(root, "tables", name)
f = tables_dir / ".versions"
'''
    assert layout_spellings(source) == [
        (3, '/ "tables"'),
        (4, "tables/ path"),
        (5, "bucket="),
        (6, "batch="),
        (7, '"tables" path argument'),
        (8, ".versions"),
    ]


def test_no_module_but_the_store_spells_its_layout() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}:{line}: {what}"
        for path in _modules()
        for line, what in layout_spellings(path.read_text())
    ]
    assert offenders == []
