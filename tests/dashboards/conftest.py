"""Fixtures of the dashboard tests: an empty store, the small hand-made store of ``dash_store``,
the pipeline's simulated store (``sim_store`` of ``tests/conftest.py``), and a factory of
``AppTest`` instances of ``dashboards/app.py`` reading a given store."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from dash_app import APP, SCRIPT_TIMEOUT_S
from dash_store import build_store
from streamlit.testing.v1 import AppTest


@pytest.fixture(scope="session")
def mini_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small hand-made store (a few rows of every table)."""
    return build_store(tmp_path_factory.mktemp("mini_store"))


@pytest.fixture(scope="session")
def empty_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store folder with no tables at all."""
    return tmp_path_factory.mktemp("empty_store")


@pytest.fixture(params=["mini", "sim"])
def any_store(request: pytest.FixtureRequest, mini_store: Path) -> Path:
    """The hand-made store, then the pipeline's simulated store (``sim_store``)."""
    if request.param == "mini":
        return mini_store
    return Path(request.getfixturevalue("sim_store"))


@pytest.fixture
def open_app(monkeypatch: pytest.MonkeyPatch) -> Callable[[Path, str], AppTest]:
    """``open_app(store, page)``: the app run once, then switched to ``views/<page>.py`` and run."""

    def _open(store: Path, page: str) -> AppTest:
        monkeypatch.setenv("GDAN_STORE", str(store))
        at = AppTest.from_file(str(APP), default_timeout=SCRIPT_TIMEOUT_S).run()
        if page != "overview":
            at.switch_page(f"views/{page}.py").run()
        return at

    return _open


@pytest.fixture(autouse=True)
def anonymous_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pages' tests run as `gdan dashboard` on loopback without accounts does: results entry
    needs no login (``GDAN_ANONYMOUS_WRITES=1``, also for the Streamlit servers they start). The
    access tests (``test_access_*``) turn it off to test logins, tokens and refusals."""
    monkeypatch.setenv("GDAN_ANONYMOUS_WRITES", "1")
