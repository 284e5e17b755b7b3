"""The SQL of the dashboards' queries (``dashboards/queries/``): parameterized only, correct on the
hand-made store, and harmless with hostile input."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import warnings
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from dashboards import queries
from dashboards.queries.bombs import coach_bombs_per_deal
from dashboards.queries.dan import dan_distribution
from dashboards.queries.head_to_head import head_to_head, period_leaderboard, rivals
from dashboards.queries.overview import overview_totals, status_counts
from dashboards.queries.play_patterns import jie_feng_received
from dashboards.queries.players import (
    finish_positions,
    leaderboard,
    player_summary,
    players,
    results_by_opponent,
    results_by_partner,
)
from dashboards.queries.quality import incomplete_matches, problem_matches, quarantine_by_code
from dashboards.queries.replayer import deal_plays, find_matches
from dashboards.queries.seats import SeatFilters
from dashboards.queries.tournament import event_rounds, round_results
from dashboards.queries.tributes import coach_level_gain, coach_tribute_kinds
from dashboards.roster import clubs, with_names
from pipelines.reads.tournament_data import LookupFailed
from pipelines.storage.warehouse import connect

MODULES = [
    importlib.import_module(f"dashboards.queries.{m.name}") for m in pkgutil.iter_modules(queries.__path__)
]
"""Every module of the queries package."""


@pytest.fixture(scope="module")
def con(mini_store: Path) -> duckdb.DuckDBPyConnection:
    return connect(mini_store)


def test_no_function_argument_is_formatted_into_sql() -> None:
    """Every f-string interpolation uses module constants, never a query function's arguments."""
    trees = [ast.parse(Path(str(module.__file__)).read_text(encoding="utf-8")) for module in MODULES]
    for fn in (n for tree in trees for n in tree.body if isinstance(n, ast.FunctionDef)):
        args = {a.arg for a in fn.args.args + fn.args.kwonlyargs}
        for node in ast.walk(fn):
            if isinstance(node, ast.FormattedValue):
                used = {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
                assert not used & args, f"{fn.name} formats {used & args} into SQL"


@pytest.mark.parametrize("hostile", ["x' OR '1'='1", "'; DROP VIEW matches; --", "%", 'p1" --'])
def test_hostile_input_is_data(con: duckdb.DuckDBPyConnection, hostile: str) -> None:
    assert results_by_partner(con, player=hostile).empty
    assert leaderboard(con, event=hostile).empty
    assert player_summary(con, player=hostile).empty
    assert round_results(con, event=hostile).empty
    assert deal_plays(con, match=hostile, deal=1).empty
    assert len(status_counts(con)) == 3  # the views are intact


def test_search_is_a_literal_substring(con: duckdb.DuckDBPyConnection) -> None:
    assert list(find_matches(con, search="p5")["match_id"]) == ["m2"]
    assert find_matches(con, search="' OR 1=1 --").empty
    assert len(find_matches(con, search="")) == 3  # m4 has no deals
    assert list(find_matches(con, search="player 5")["match_id"]) == ["m2"]  # by name, any case
    first = find_matches(con, search="", limit=2)
    assert list(first["match_id"]) == ["m1", "m2"] and set(first["total"]) == {3}  # all it finds


@pytest.mark.parametrize(
    ("query", "params", "column", "expected"),
    [
        (coach_tribute_kinds, {"player": None}, "kind", ["single", "double", "anti"]),
        (coach_tribute_kinds, {"player": None, "filters": SeatFilters(rules="bcta")}, "kind", ["double"]),
        (coach_bombs_per_deal, {"player": None}, "bombs", [3]),
        (quarantine_by_code, {}, "code", ["does_not_beat", "malformed_line"]),
        (results_by_partner, {"player": "p1"}, "partner", ["p3"]),
        (results_by_opponent, {"player": "p5"}, "opponent", ["p6", "p8"]),
        (event_rounds, {"event": "ev1"}, "round", [1]),
        (dan_distribution, {}, "dan", [1]),
    ],
)
def test_query_values(
    con: duckdb.DuckDBPyConnection,
    query: Callable[..., pd.DataFrame],
    params: dict,
    column: str,
    expected: list,
) -> None:
    assert sorted(query(con, **params)[column].tolist(), key=str) == sorted(expected, key=str)


def test_level_gain_after_tribute_sides(con: duckdb.DuckDBPyConnection) -> None:
    """rules.md §5.8/§6: in the mini store the payers (EW) won deal 2 by +2 both times."""
    df = coach_level_gain(con, player=None)
    assert df.set_index(["side", "gain"])["n"].to_dict() == {("payer", 2): 2, ("receiver", 0): 2}


def test_win_rate_counts_draws_as_half(con: duckdb.DuckDBPyConnection) -> None:
    board = leaderboard(con).set_index("player_id")
    assert board.loc["p1", "win_rate"] == pytest.approx(0.75)  # a win and a draw
    assert board.loc["p1", "rounds"] == 2


def test_every_query_runs_on_an_empty_store(empty_store: Path) -> None:
    empty = connect(empty_store)
    samples = {"player": "p1", "event": "ev1", "match": "m1", "deal": 1, "other": "p2", "period": "month",
               "name": "2026-06", "stage": None, "round_no": 2}
    functions = [
        (name, fn)
        for module in MODULES
        for name, fn in inspect.getmembers(module, inspect.isfunction)
        if fn.__module__ == module.__name__ and name != "dataframe"
        and next(iter(inspect.signature(fn).parameters)) == "con"
    ]
    assert len(functions) > 60
    for name, fn in functions:
        params = {p: samples[p] for p in inspect.signature(fn).parameters if p in samples}
        if name == "entry_pairing":  # pairing an unknown event is refused, and the entry page says so
            with pytest.raises(LookupFailed, match="unknown event"):
                fn(empty, **params)
            continue
        result = fn(empty, **params)
        assert result is not None, name


def test_names_and_clubs_join_the_board(con: duckdb.DuckDBPyConnection) -> None:
    roster = players(con)
    board = with_names(leaderboard(con), roster, "Blue")
    assert list(board.columns[:3]) == ["player_id", "name", "club"]
    assert sorted(board["player_id"]) == ["p5", "p6", "p7", "p8"]
    assert list(board["rating"]) == sorted(board["rating"], reverse=True)  # board order kept
    assert clubs(roster) == ["Blue", "Red"]


def test_player_summary_matches_the_board(con: duckdb.DuckDBPyConnection) -> None:
    row = player_summary(con, player="p5").iloc[0]
    assert row["pro_dan"] == 4 and row["dan"] == 1 and row["rounds"] == 1


def test_jie_feng_per_player_adds_up_to_the_deals_count(sim_store: Path) -> None:
    """rules.md §5.6: each 接风 of ``deals.jie_feng`` (replayer) is received by exactly one player."""
    sim = connect(sim_store)
    per_player = sum(
        int(jie_feng_received(sim, player=p).iloc[0]["jie_feng"])
        for p in players(sim)["player_id"]
    )
    total = int(jie_feng_received(sim, player=None).iloc[0]["jie_feng"])
    assert total > 0
    assert per_player == total


def test_queries_emit_no_pandas_deprecation_warning(con: duckdb.DuckDBPyConnection) -> None:
    """DuckDB's ``.df()`` of time-zone-aware timestamps triggers pandas' ``inplace`` Pandas4Warning;
    ``dashboards.queries.common.dataframe`` silences exactly that one (overview_totals returns such
    timestamps)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        totals = overview_totals(con)
        incomplete = incomplete_matches(con)
    assert str(totals["first_start"].dt.tz) in {"UTC", "Etc/UTC"}
    assert list(incomplete["match_id"]) == ["m5"]


def test_incomplete_and_problem_matches_are_separate(con: duckdb.DuckDBPyConnection) -> None:
    """events.md "Validation": partial/invalid come from ``matches``; incomplete from its own table."""
    assert set(problem_matches(con)["status"]) == {"partial", "invalid"}
    assert "m5" not in set(problem_matches(con)["match_id"])


def test_finish_positions_count_the_seats_that_lost_double(con: duckdb.DuckDBPyConnection) -> None:
    """双下 losers have no finishing position (the deal ends when the winners are out): they count as
    ``double_loss``, not as missing."""
    positions = finish_positions(con, player="p1").set_index("position")
    assert positions.loc["double_loss", "player_n"] == 2  # p1 sat E in m1 and m3, deal 1 lost 双下
    assert positions["population_n"].sum() == 24  # every seat of every deal


def _level_round_store() -> duckdb.DuckDBPyConnection:
    """Two bcta rounds of p1+p3 (EW) against p2+p4: r1 ended level at 8:8, which the replay gives to
    the declarers EW (``player_matches.result``) and scoring makes a draw (``match_scores.result``);
    r2 EW won. Every other view the queries read is empty."""
    import pyarrow as pa

    from schemas.catalog import ALL_TABLES

    con = duckdb.connect()
    for name, schema in ALL_TABLES.items():
        con.register(name, schema.empty_table())
    t0 = datetime(2026, 6, 18, 5, 0, tzinfo=UTC)
    rows, scores = [], []
    for k, (match, replayed, scored) in enumerate([("r1", "EW", None), ("r2", "EW", "EW")]):
        for seat, player, partner, team, opponents in (
            ("E", "p1", "p3", "EW", ["p2", "p4"]), ("W", "p3", "p1", "EW", ["p2", "p4"]),
            ("N", "p2", "p4", "NS", ["p1", "p3"]), ("S", "p4", "p2", "NS", ["p1", "p3"]),
        ):
            rows.append({"match_id": match, "player_id": player, "seat": seat, "team": team,
                         "partner_id": partner, "opponent_ids": opponents, "event_id": "lg", "round": k + 1,
                         "rules": "bcta", "status": "valid", "levels_gained": 6,
                         "result": "win" if replayed == team else "loss",
                         "started_at": t0 + timedelta(days=7 * k)})
        for side in ("EW", "NS"):
            result = "draw" if scored is None else "win" if scored == side else "loss"
            scores.append({"match_id": match, "event_id": "lg", "round": k + 1, "side": side,
                           "outcome": "played", "result": result})
    con.register("player_matches", pa.Table.from_pylist(rows, schema=ALL_TABLES["player_matches"]))
    con.register("match_scores", pa.Table.from_pylist(scores, schema=ALL_TABLES["match_scores"]))
    return con


def test_win_draw_loss_counts_are_the_scored_results() -> None:
    """README "Equal levels (BCTA)", seed 001 "級數相同為平局，各記100分": a round ended level is a draw
    in `match_scores` and everything built on it, so the leaderboard, the player's summary, partner,
    opponent, head-to-head, rivals and period tables count it as a draw (the standings already do),
    not as the replay's win for the declarers."""
    con = _level_round_store()
    board = leaderboard(con).set_index("player_id")
    assert board.loc["p1", ["rounds", "wins", "draws", "losses"]].tolist() == [2, 1, 1, 0]
    assert board.loc["p2", ["wins", "draws", "losses"]].tolist() == [0, 1, 1]
    assert board.loc["p1", "win_rate"] == pytest.approx(0.75)
    summary = player_summary(con, player="p4")
    assert summary[["wins", "draws", "losses"]].values.tolist() == [[0, 1, 1]]
    assert results_by_partner(con, player="p1")[["partner", "draws"]].values.tolist() == [["p3", 1]]
    assert results_by_opponent(con, player="p2")["draws"].tolist() == [1, 1]
    h2h = head_to_head(con, player="p1", other="p2").set_index("relation")
    assert h2h.loc["opponent", ["wins", "draws", "losses"]].tolist() == [1, 1, 0]
    assert set(rivals(con, player="p3")["draws"]) == {1}
    period = period_leaderboard(con, period="month", name="2026-06").set_index("player_id")
    assert period.loc["p1", ["wins", "draws"]].tolist() == [1, 1]
