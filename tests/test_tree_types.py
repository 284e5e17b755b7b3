"""The whole tree type-checks with mypy: every package, the benchmarks and the notebooks'
helpers, with the project's configuration (``[tool.mypy]`` in pyproject.toml; the engine strictly)."""

from __future__ import annotations

from pathlib import Path

import pytest
from mypy import api

ROOT = Path(__file__).parents[1]


def test_the_tree_is_mypy_clean(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``mypy`` over the configured files (paths relative to the repository) reports nothing."""
    monkeypatch.chdir(ROOT)
    stdout, stderr, status = api.run(
        ["--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(tmp_path / "mypy-cache")]
    )
    assert status == 0, stdout + stderr
