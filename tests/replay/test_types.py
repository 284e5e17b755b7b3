"""The replay engine type-checks under ``mypy --strict``: the compiled modules are built by
mypyc from the same annotations, so a wrong annotation is a wrong program, not a style matter."""

from __future__ import annotations

from pathlib import Path

from mypy import api

ROOT = Path(__file__).parents[2]


def test_replay_is_mypy_strict_clean(tmp_path: Path) -> None:
    """``mypy --strict`` over replay/ with the project's configuration reports nothing."""
    stdout, stderr, status = api.run(
        [
            "--strict",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(tmp_path / "mypy-cache"),
            str(ROOT / "replay"),
        ]
    )
    assert status == 0, stdout + stderr
