"""The engine stays readable by parts: no class of ``replay/`` is over 450 lines (a phase of a deal
that grows gets its own module, as ``dealing``, ``tribute``, ``play`` and ``finish`` did)."""

from __future__ import annotations

import ast
from pathlib import Path

MAX_CLASS_LINES = 450
REPLAY = Path(__file__).parents[2] / "replay"


def test_no_class_is_over_450_lines() -> None:
    sizes = {
        f"{path.name}:{node.name}": node.end_lineno - node.lineno + 1
        for path in sorted(REPLAY.glob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef) and node.end_lineno is not None
    }
    assert "replayer.py:_Replayer" in sizes
    assert {name: n for name, n in sizes.items() if n > MAX_CLASS_LINES} == {}
