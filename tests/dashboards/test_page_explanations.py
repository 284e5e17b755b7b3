"""What the Dan and Head-to-head pages show by default, and that they say it: the dan progress is
the current window's, with that window's points beside it (scoring.md §S5: a reset clears them),
and head-to-head picks nemesis and best partner among players met a few rounds, not 30."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest
from streamlit.testing.v1 import AppTest

from dashboards.queries.dan import close_to_promotion
from dashboards.views.head_to_head import H2H_MIN_ROUNDS
from pipelines.storage.warehouse import connect

Open = Callable[[Path, str], AppTest]


@pytest.fixture(scope="module")
def con(mini_store: Path) -> duckdb.DuckDBPyConnection:
    return connect(mini_store)


def test_close_to_promotion_shows_the_window_points(con: duckdb.DuckDBPyConnection) -> None:
    """p5 was promoted to dan 1 at 12,000 (the hand-made ledger) and holds 18,000: 6,000 of the
    13,000 the window needs for dan 2's 25,000 (§S5)."""
    near = close_to_promotion(con).set_index("player_id")
    assert (near.loc["p5", "window_points"], near.loc["p5", "window_needed"]) == (6000, 13000)


def test_dan_page_says_what_progress_measures(open_app: Open, mini_store: Path) -> None:
    at = open_app(mini_store, "dan")
    assert not at.exception
    near = next(df.value for df in at.dataframe if "points_to_next" in df.value.columns)
    assert {"window_points", "window_needed", "progress"} <= set(near.columns)
    assert any("0 % right after a promotion or a reset" in c.value for c in at.caption)


def test_head_to_head_default_minimum_is_a_few_rounds_and_said(open_app: Open, mini_store: Path) -> None:
    assert H2H_MIN_ROUNDS < 30
    at = open_app(mini_store, "head_to_head")
    assert not at.exception
    assert at.number_input(key="h2h_min_n").value == H2H_MIN_ROUNDS
    said = f"met in at least {H2H_MIN_ROUNDS} rounds (default {H2H_MIN_ROUNDS}"
    assert any(said in c.value for c in at.caption)


def test_head_to_head_names_a_best_partner_met_often_enough(open_app: Open, mini_store: Path) -> None:
    """p1 partnered p3 in m1 and m3 (the hand-made store): at a minimum of 2 p3 is the best partner."""
    at = open_app(mini_store, "head_to_head")
    at.number_input(key="h2h_min_n").set_value(2).run()
    best = next(m for m in at.metric if m.label == "Best partner")
    assert best.value.startswith("Player 3")
