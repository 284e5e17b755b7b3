"""A visitor's journey: a view's state in its address, links between pages, the player search,
and ratings shown honestly (the interval is μ ± 2σ on the skill scale, scoring/ratings.py; ties
share a rank; axes name players; a top-N chart says so)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from dash_app import APP, SCRIPT_TIMEOUT_S
from streamlit.testing.v1 import AppTest

from dashboards import charts, ui

Open = Callable[[Path, str], AppTest]


def _board() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "player_id": ["p1", "p2", "p3", "p4", "p5"],
            "name": ["Li Na", "Wang Wei", "Wang Wei", None, "Zhao Lei"],
            "mu": [30.0, 28.0, 26.0, 20.0, 10.0],
            "sigma": [2.0, 1.0, 0.5, 3.0, 4.0],
            "rating": [26.0, 26.0, 25.0, 14.0, 2.0],
            "provisional": [False, False, True, False, True],
        }
    )


def test_rating_interval_is_mu_plus_minus_two_sigma() -> None:
    fig = charts.ratings(_board(), "en")
    dots = fig.data[0]
    assert list(dots.y) == [30.0, 28.0, 26.0, 20.0, 10.0]  # drawn at μ, not at μ − 2σ
    assert list(dots.error_y.array) == [4.0, 2.0, 1.0, 6.0, 8.0]  # ± 2σ
    assert list(fig.data[1].y) == [26.0, 26.0, 25.0, 14.0, 2.0]  # the displayed rating, marked


def test_rating_axis_names_players_and_top_n_says_of_how_many() -> None:
    fig = charts.ratings(_board(), "en", top=3)
    assert list(fig.data[0].x) == ["Li Na", "Wang Wei (p2)", "Wang Wei (p3)"]
    assert "top 3 of 5" in fig.layout.title.text
    assert "top" not in charts.ratings(_board(), "en").layout.title.text
    assert "前 3 名（共 5 名）" in charts.ratings(_board(), "zh", top=3).layout.title.text
    assert charts.axis_names(_board())[3] == "p4"  # no name: the id


def test_ties_share_a_rank() -> None:
    ranks = ui.shared_rank(pd.Series([26.0, 26.04, 25.0, None, 14.0]))
    assert ranks.tolist() == [1, 1, 3, pd.NA, 4]


def test_find_players_by_name_or_id() -> None:
    roster = _board()
    assert ui.find_players(roster, "wang").player_id.tolist() == ["p2", "p3"]
    assert ui.find_players(roster, "P5").player_id.tolist() == ["p5"]
    assert ui.find_players(roster, "  ").player_id.tolist() == roster.player_id.tolist()
    assert ui.find_players(roster, "nobody").empty


def _open(store: Path, page: str, monkeypatch: pytest.MonkeyPatch, **params: str) -> AppTest:
    """The app opened at ``/<page>?params`` as a copied link would."""
    monkeypatch.setenv("GDAN_STORE", str(store))
    at = AppTest.from_file(str(APP), default_timeout=SCRIPT_TIMEOUT_S)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    at.switch_page(f"views/{page}.py")
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def test_leaderboard_ranks_links_and_address(mini_store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at = _open(mini_store, "leaderboard", monkeypatch)
    assert not at.exception
    table = at.dataframe[0].value
    assert table["link"].tolist()[0].startswith("player?player=")
    assert table["rank"].tolist() == sorted(table["rank"].dropna().tolist())
    at.selectbox(key="lb_rules").select("bcta").run()
    assert at.query_params["rules"] in ("bcta", ["bcta"])  # the filter is in the address


def test_leaderboard_search_without_match_says_so(mini_store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at = _open(mini_store, "leaderboard", monkeypatch, q="nobody-here")
    assert not at.exception
    assert any("No player matches “nobody-here”" in i.value for i in at.info)
    assert not any("No data yet" in i.value for i in at.info)


def test_leaderboard_filters_that_leave_nothing(mini_store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at = _open(mini_store, "leaderboard", monkeypatch, min_rounds="99")
    assert not at.exception
    assert at.number_input(key="lb_min").value == 99
    assert any("No rows pass these filters" in i.value for i in at.info)


def test_leaderboard_in_chinese_by_link(mini_store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at = _open(mini_store, "leaderboard", monkeypatch, lang="zh")
    assert not at.exception
    assert at.title[0].value == "排行榜"
    assert at.dataframe[0].value["link"].tolist()[0].endswith("&lang=zh")
    chart = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert chart["layout"]["xaxis"]["title"]["text"] == "选手"


def test_tournament_round_from_the_address(mini_store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at = _open(mini_store, "tournament", monkeypatch, event="ev1", round="all")
    assert not at.exception
    assert at.selectbox(key="tn_event").value == "ev1"
    assert at.selectbox(key="tn_round").value is None
    standings = _open(mini_store, "tournament", monkeypatch).dataframe[0].value
    assert standings["player_1"].dropna().iloc[0].startswith("player?player=")


def test_empty_store_pages(empty_store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for page in ("overview", "leaderboard", "dan", "tournament"):
        at = _open(empty_store, page, monkeypatch, q="x")
        assert not at.exception
        assert any("No data yet" in i.value for i in at.info), page
