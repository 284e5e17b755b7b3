"""``dashboards.ui.run``: pages call the query functions themselves (no query names in strings),
and equal calls share one cached result."""

from __future__ import annotations

import ast
import importlib
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest
from dash_app import PAGES
from streamlit.testing.v1 import AppTest

from dashboards import ui
from dashboards.queries.players import leaderboard

VIEWS = sorted((Path(ui.__file__).parent / "views").glob("*.py"))
QUERIES = "dashboards.queries."
"""The prefix of every query module's name."""


def _query_imports(tree: ast.Module) -> tuple[dict[str, str], dict[str, str]]:
    """The query functions a page imports, with the module each comes from, and the query modules
    it imports, by the name it gives them (``from dashboards.queries import entry as queries``)."""
    imports = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module]
    functions = {
        alias.asname or alias.name: str(node.module)
        for node in imports
        if str(node.module).startswith(QUERIES)
        for alias in node.names
    }
    modules = {
        alias.asname or alias.name: QUERIES + alias.name
        for node in imports
        if node.module == QUERIES.rstrip(".")
        for alias in node.names
    }
    return functions, modules


@pytest.mark.parametrize("page", VIEWS, ids=lambda p: p.stem)
def test_pages_pass_query_functions_to_run(page: Path) -> None:
    """Every ``run(...)`` of a page names a query function imported from the module that defines
    it (or as an attribute of that module), so a renamed or moved query is an import error or a
    missing attribute a type checker (and this test) sees."""
    tree = ast.parse(page.read_text(encoding="utf-8"))
    functions, modules = _query_imports(tree)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    runs = [c for c in calls if isinstance(c.func, ast.Name) and c.func.id == "run"]
    assert runs
    for call in runs:
        target = call.args[0]
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
            module, name = modules.get(target.value.id), target.attr
        else:
            assert isinstance(target, ast.Name), ast.unparse(call)
            module, name = functions.get(target.id), target.id
        assert module is not None, ast.unparse(call)
        function = getattr(importlib.import_module(module), name, None)
        assert inspect.isfunction(function), ast.unparse(call)
        assert function.__module__ == module, ast.unparse(call)  # its owner, not a re-export
    assert not [c for c in calls if isinstance(c.func, ast.Name) and c.func.id == "q"]


def test_warm_up_queries_bind_to_their_functions() -> None:
    for function, params in ui.WARM_QUERIES:
        assert function.__module__.startswith(QUERIES)
        ui._bound(function, (), params)


def test_every_warmed_query_is_one_a_page_asks_for(
    open_app: Callable[[Path, str], AppTest], mini_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each page opened once as a visitor first sees it: every warmed query, with its parameters,
    is among the calls the pages make, so the warm-up fills cache entries the pages read (a query
    no page shows, or one warmed with other parameters, would be work for nothing)."""
    monkeypatch.setenv("GDAN_WARM_UP", "0")  # only the pages' own calls are recorded
    asked: list[tuple[Callable[..., Any], ui.Params]] = []  # a list: some parameters are lists
    real_run = ui._run

    def recording(
        store: str, function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        asked.append((function, ui._bound(function, args, kwargs)))
        return real_run(store, function, args, kwargs)

    monkeypatch.setattr(ui, "_run", recording)
    for page in PAGES:
        assert not open_app(mini_store, page).exception, page
    warmed = [(function, ui._bound(function, (), params)) for function, params in ui.WARM_QUERIES]
    assert len(set(warmed)) == len(warmed)  # none twice
    assert [(f.__module__, f.__name__, p) for f, p in warmed if (f, p) not in asked] == []


def test_defaults_and_explicit_values_are_one_cache_key() -> None:
    explicit = ui._bound(leaderboard, (), {"event": None, "rules": None, "min_rounds": 0})
    assert ui._bound(leaderboard, (), {}) == explicit
    assert ui._bound(leaderboard, (), {"min_rounds": 3}) != explicit
    with pytest.raises(TypeError):
        ui._bound(leaderboard, (), {"min_round": 3})


calls: list[str] = []


def _counted(con: duckdb.DuckDBPyConnection, *, player: str) -> list[str]:
    """A stand-in query that records each time it really runs."""
    calls.append(player)
    return [player]


def test_equal_calls_run_the_query_once(mini_store: Path) -> None:
    ui.reload_data()
    store = str(mini_store)
    assert ui._run(store, _counted, (), {"player": "p1"}) == ["p1"]
    assert ui._run(store, _counted, (), {"player": "p1"}) == ["p1"]
    assert ui._run(store, _counted, (), {"player": "p2"}) == ["p2"]
    assert calls == ["p1", "p2"]
