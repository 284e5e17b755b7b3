"""Fixtures for the notebook tests: the stores the notebooks run against."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "notebooks"))  # makes ``lens`` importable

from tiny_store import build_tiny_store


@pytest.fixture(scope="session")
def tiny_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A few seeded matches written with the store's own schemas (see ``tiny_store.py``)."""
    return build_tiny_store(tmp_path_factory.mktemp("tiny_store"))


@pytest.fixture(scope="session")
def empty_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store folder with no tables at all: every view is empty."""
    return tmp_path_factory.mktemp("empty_store")
