"""``dashboards.ui.run``: pages call the query functions themselves (no query names in strings),
and equal calls share one cached result."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import duckdb
import pytest

from dashboards import queries, ui

VIEWS = sorted((Path(ui.__file__).parent / "views").glob("*.py"))


@pytest.mark.parametrize("page", VIEWS, ids=lambda p: p.stem)
def test_pages_pass_query_functions_to_run(page: Path) -> None:
    """Every ``run(...)`` of a page names a function of ``dashboards.queries`` as an attribute, so
    a renamed query is a missing attribute a type checker (and this test) sees."""
    calls = [n for n in ast.walk(ast.parse(page.read_text(encoding="utf-8"))) if isinstance(n, ast.Call)]
    runs = [c for c in calls if isinstance(c.func, ast.Name) and c.func.id == "run"]
    assert runs
    for call in runs:
        target = call.args[0]
        assert isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name), ast.unparse(call)
        assert target.value.id == "queries", ast.unparse(call)
        assert inspect.isfunction(getattr(queries, target.attr, None)), ast.unparse(call)
    assert not [c for c in calls if isinstance(c.func, ast.Name) and c.func.id == "q"]


def test_warm_up_queries_bind_to_their_functions() -> None:
    for function, params in ui.WARM_QUERIES:
        assert function.__module__ == queries.__name__
        ui._bound(function, (), params)


def test_defaults_and_explicit_values_are_one_cache_key() -> None:
    explicit = ui._bound(queries.leaderboard, (), {"event": None, "rules": None, "min_rounds": 0})
    assert ui._bound(queries.leaderboard, (), {}) == explicit
    assert ui._bound(queries.leaderboard, (), {"min_rounds": 3}) != explicit
    with pytest.raises(TypeError):
        ui._bound(queries.leaderboard, (), {"min_round": 3})


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
