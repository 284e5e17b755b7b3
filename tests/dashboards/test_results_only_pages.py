"""Results-only deals on the pages (docs/event-extensions.md "Results-only deals"): the Overview's
status tiles add up to the match total with the ``results_only`` status shown, and the Tributes
and Bombs pages leave such deals out of their rates (no play was recorded) and say how many.

The store is the hand-made one with ``m6``, a match of two results-only deals, added."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest
from dash_store import build_store
from streamlit.testing.v1 import AppTest

from dashboards.queries.bombs import coach_bombs_per_deal, coach_win_by_bombs
from dashboards.queries.coach import coach_results_only
from dashboards.queries.seats import SeatFilters
from dashboards.queries.tributes import coach_tribute_kinds
from pipelines.storage.warehouse import connect

Open = Callable[[Path, str], AppTest]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_store(tmp_path_factory.mktemp("results_only_store"), results_only=True)


@pytest.fixture(scope="module")
def con(store: Path) -> duckdb.DuckDBPyConnection:
    return connect(store)


def test_results_only_deals_are_counted_for_the_note(con: duckdb.DuckDBPyConnection) -> None:
    row = coach_results_only(con, player=None).iloc[0]
    assert (int(row["deals"]), int(row["after_first"])) == (2, 1)
    assert int(coach_results_only(con, player="p1").iloc[0]["deals"]) == 2  # E of m6
    assert int(coach_results_only(con, player="p5").iloc[0]["deals"]) == 0
    jiangsu = coach_results_only(con, player=None, filters=SeatFilters(rules="jiangsu"))
    assert int(jiangsu.iloc[0]["deals"]) == 0


def test_results_only_deals_are_not_tribute_none(con: duckdb.DuckDBPyConnection) -> None:
    """m6's deal 2 has no tribute on its sheet: unknown, not "none" (the mini store has none)."""
    kinds = dict(coach_tribute_kinds(con, player=None).itertuples(index=False))
    assert kinds == {"single": 1, "double": 1, "anti": 1}
    assert coach_tribute_kinds(con, player="p1", filters=SeatFilters(rules="bcta")).empty


def test_results_only_deals_are_not_deals_without_bombs(con: duckdb.DuckDBPyConnection) -> None:
    per_deal = coach_bombs_per_deal(con, player=None)
    assert int(per_deal["n"].sum()) == 6  # m1–m3's deals; m6's two are unknown, not 0 bombs
    assert 0 not in set(per_deal["bombs"])
    wins = coach_win_by_bombs(con, player="p8")  # S of m2 and m3 (played) and of m6 (results only)
    assert set(wins.groupby("kind")["n"].sum()) == {4}


def test_overview_status_tiles_add_up_to_the_match_total(open_app: Open, store: Path) -> None:
    at = open_app(store, "overview")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Results only"] == "1"
    statuses = ("Valid", "Partial", "Results only", "Invalid")
    assert sum(int(metrics[s]) for s in statuses) == int(metrics["Matches"]) == 5


@pytest.mark.parametrize(("page", "excluded"), [("tributes", 1), ("bombs", 2)])
def test_pages_say_how_many_results_only_deals_they_leave_out(
    open_app: Open, store: Path, page: str, excluded: int
) -> None:
    at = open_app(store, page)
    assert not at.exception, [e.message for e in at.exception]
    notes = [c.value for c in at.caption if "Results-only" in c.value]
    note = f"Results-only deals (result recorded, no play) left out of this page's figures: {excluded}."
    assert notes == [note]
