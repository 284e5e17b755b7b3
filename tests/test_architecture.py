"""The architecture of docs/architecture.md holds: imports point one way and the engine is pure.

The layer and forbidden-import contracts live in ``pyproject.toml`` (``[tool.importlinter]``) and
are checked by import-linter; the engine's "no I/O" rule is also checked on the source, since
file access needs no import (``open``, ``Path.read_text``).
"""

from __future__ import annotations

import ast
from pathlib import Path

from importlinter.cli import EXIT_STATUS_SUCCESS, lint_imports

ROOT = Path(__file__).resolve().parents[1]
FILE_ACCESS = {"open", "read_text", "write_text", "read_bytes", "write_bytes", "mkdir", "unlink"}
"""Calls that read or write files."""
BUILD_LOCATOR = "native.py"
"""replay/native.py finds the compiled build beside the sources: it stats files, and reads none."""


def test_import_contracts_are_kept() -> None:
    """apps → orchestration → domain → contracts, never upward; replay and schemas import no I/O library."""
    status = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True)
    assert status == EXIT_STATUS_SUCCESS


def _file_access(path: Path, root: Path = ROOT) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in FILE_ACCESS:
                found.append(f"{path.relative_to(root)}:{node.lineno}: {name}()")
    return found


def test_the_engine_does_no_file_io() -> None:
    """Nothing under replay/ opens, reads or writes a file: callers pass text and data in."""
    sources = [p for p in sorted((ROOT / "replay").rglob("*.py")) if p.name != BUILD_LOCATOR]
    assert sources
    assert [hit for p in sources for hit in _file_access(p)] == []


def test_the_file_check_finds_file_access(tmp_path: Path) -> None:
    """The check above can fail: it sees a read hidden in a method call."""
    probe = tmp_path / "probe.py"
    probe.write_text("from pathlib import Path\n\ndef f(p: Path) -> str:\n    return p.read_text()\n")
    assert _file_access(probe, tmp_path) == ["probe.py:4: read_text()"]
