"""Pytest fixtures of the importer tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from importer_fixtures import EXCERPT


@pytest.fixture
def excerpt_copy(tmp_path: Path) -> Path:
    """A writable copy of the NJUPT excerpt game folder (for damaging it)."""
    target = tmp_path / "game"
    shutil.copytree(EXCERPT, target)
    return target
