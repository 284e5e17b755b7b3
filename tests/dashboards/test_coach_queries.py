"""The coach's queries (``dashboards/queries/``: seats, coach, tributes, bombs, head_to_head) on the
hand-made store: every filter narrows the seat-deals, sample sizes are the real counts, and the
finishing positions count every finished deal (rules.md §5.5, §5.7)."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pytest

from dashboards.queries.bombs import coach_bombs, coach_bombs_per_deal, coach_win_by_bombs
from dashboards.queries.coach import (
    coach_deal_record,
    coach_finish_positions,
    coach_match_list,
    coach_play_rates,
)
from dashboards.queries.head_to_head import head_to_head, period_leaderboard, periods, rivals
from dashboards.queries.play_patterns import play_stats
from dashboards.queries.seats import SeatFilters
from dashboards.queries.tributes import coach_level_gain, coach_tribute_cards, coach_tribute_kinds
from pipelines.storage.warehouse import connect


@pytest.fixture(scope="module")
def con(mini_store: Path) -> duckdb.DuckDBPyConnection:
    return connect(mini_store)


@pytest.mark.parametrize(
    ("filters", "deals"),
    [
        ({}, 4),  # p1 sits E in m1 and m3, two deals each
        ({"rules": "jiangsu"}, 2),
        ({"partner": "p3"}, 4),
        ({"partner": "p2"}, 0),  # p2 is an opponent, never the partner
        ({"seat": "E"}, 4),
        ({"seat": "N"}, 0),
        ({"level": "2"}, 4),
        ({"level": "3"}, 0),
        ({"event": "ev1"}, 2),  # m3 has no event
        ({"start": date(2026, 6, 19)}, 2),  # m3 started on the 20th
        ({"end": date(2026, 6, 18)}, 2),  # the end day is included (m1 started on the 18th)
        ({"start": date(2026, 6, 21)}, 0),
    ],
)
def test_every_filter_narrows_the_seat_deals(
    con: duckdb.DuckDBPyConnection, filters: dict[str, Any], deals: int
) -> None:
    record = coach_deal_record(con, player="p1", filters=SeatFilters(**filters))
    assert int(record["deals"].iloc[0]) == deals


def test_an_unknown_filter_is_an_error(con: duckdb.DuckDBPyConnection) -> None:
    with pytest.raises(TypeError, match="club"):
        coach_deal_record(con, player="p1", club="Red")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="club"):
        SeatFilters(club="Red")  # type: ignore[call-arg]


def test_deal_record_counts(con: duckdb.DuckDBPyConnection) -> None:
    """p1 (E) loses deal 1 双下 (S, N out first, rules.md §5.7) and wins deal 2 (E 上游) of m1 and m3."""
    row = coach_deal_record(con, player="p1").iloc[0]
    assert (row["deals"], row["deals_won"], row["double_wins"], row["double_losses"]) == (4, 2, 0, 2)
    assert row["levels_won"] == 4  # 2 levels per deal 2 (partner W 3rd, rules.md §5.8)
    everyone = coach_deal_record(con, player=None).iloc[0]
    assert everyone["deals"] == 24 and everyone["bombs"] == 18  # S 2 + N 1 per deal


def test_finishing_positions_count_every_finished_deal(con: duckdb.DuckDBPyConnection) -> None:
    """Every seat of a finished deal has a bar: the chart's n is the player's deals (a
    player with 338 deals once had a chart with n = 255)."""
    positions = coach_finish_positions(con, player="p1").set_index("position")
    record = coach_deal_record(con, player="p1").iloc[0]
    assert positions["player_n"].sum() == record["deals"]
    assert positions.loc["double_loss", "player_n"] == 2 and positions.loc["1", "player_n"] == 2
    assert positions["population_n"].sum() == 24
    assert positions.loc["double_loss", "population_n"] == 6


def test_finishing_positions_follow_the_filters(con: duckdb.DuckDBPyConnection) -> None:
    positions = coach_finish_positions(con, player="p1", filters=SeatFilters(rules="jiangsu"))
    positions = positions.set_index("position")
    assert positions["player_n"].sum() == 2 and positions["population_n"].sum() == 8
    with_partner = coach_finish_positions(con, player="p1", filters=SeatFilters(partner="p2"))
    assert with_partner["player_n"].sum() == 0 and with_partner["population_n"].sum() == 24


def test_match_list_newest_first_with_the_first_deal_to_replay(con: duckdb.DuckDBPyConnection) -> None:
    games = coach_match_list(con, player="p1")
    assert list(games["match_id"]) == ["m3", "m1"]
    first = games.set_index("match_id").loc["m1"]
    assert (first["partner"], first["opponents"], first["result"], first["levels"]) == (
        "p3",
        "p2 · p4",
        "win",
        "5 – 3",
    )
    assert (first["deal"], first["deals"], first["event_id"], first["round"]) == (1, 2, "ev1", 1)
    assert coach_match_list(con, player="p1", filters=SeatFilters(seat="N")).empty


def test_play_rates_recount_the_patterns(con: duckdb.DuckDBPyConnection) -> None:
    """Same definitions as player_patterns: p2 (N of m1) passes once per deal able to beat, of three
    turns able to beat, and receives 接风 in both deals (rules.md §5.6)."""
    rates = coach_play_rates(con, player="p2").iloc[0]
    assert (rates["pass_beat"], rates["able_to_beat"], rates["jie_feng"], rates["deals"]) == (4, 6, 2, 2)
    patterns = play_stats(con, player="p2").iloc[0]
    for column in ("pass_beat", "able_to_beat", "overtakes", "facing_partner", "bombs"):
        assert rates[column] == patterns[column], column
    assert coach_play_rates(con, player="p2", filters=SeatFilters(level="3")).iloc[0]["deals"] == 0


def test_tributes_follow_the_filters(con: duckdb.DuckDBPyConnection) -> None:
    kinds = dict(coach_tribute_kinds(con, player=None).itertuples(index=False))
    assert kinds == {"single": 1, "double": 1, "anti": 1}
    bcta = coach_tribute_kinds(con, player=None, filters=SeatFilters(rules="bcta"))
    assert dict(bcta.itertuples(index=False)) == {
        "double": 1
    }
    assert coach_tribute_kinds(con, player="p1", filters=SeatFilters(seat="N")).empty
    cards = coach_tribute_cards(con, player="p3")  # W of m1 paid a single tribute
    assert cards["paid"].sum() == 1 and cards["returned"].sum() == 0


def test_level_gain_compares_payer_and_receiver(con: duckdb.DuckDBPyConnection) -> None:
    """Deal 2: W (EW) pays, E goes out first, so the paying team gains 2 and the receivers 0."""
    gain = coach_level_gain(con, player=None)
    assert set(gain["side"]) == {"payer", "receiver"}
    assert gain.groupby("side")["n"].sum().to_dict() == {"payer": 2, "receiver": 2}
    payer = gain[gain["side"] == "payer"].set_index("gain")["n"].to_dict()
    assert payer == {2: 2}


def test_bombs_follow_the_filters(con: duckdb.DuckDBPyConnection) -> None:
    bombs = coach_bombs(con, player=None)
    assert bombs["n"].sum() == 18
    assert bombs.loc[bombs["bomb_class"] == "joker_bomb", "n"].sum() == 6
    assert coach_bombs(con, player=None, filters=SeatFilters(rules="jiangsu"))["n"].sum() == 6
    assert coach_bombs(con, player="p1")["n"].sum() == 0  # E never bombs
    wins = coach_win_by_bombs(con, player="p4").set_index(["kind", "bombs"])
    assert wins.loc[("held", 2), "n"] == 2 and wins.loc[("held", 2), "wins"] == 1
    per_deal = coach_bombs_per_deal(con, player="p4")
    assert per_deal["n"].sum() == 2


@pytest.mark.parametrize(("player", "seat"), [(None, None), ("p4", None), (None, "S"), ("p2", "N")])
def test_bombs_read_from_the_plays_alone_equal_the_joined_seats(
    con: duckdb.DuckDBPyConnection, player: str | None, seat: str | None
) -> None:
    """Filtered by player and seat only, coach_bombs reads ``plays`` alone; a date filter keeping
    every deal takes the join with the seat-deals: both count the same bombs."""
    keys = ["bomb_class", "size", "opp_min_left", "on_partner"]
    alone = coach_bombs(con, player=player, filters=SeatFilters(seat=seat))
    joined = coach_bombs(con, player=player, filters=SeatFilters(seat=seat, end=date(2100, 1, 1)))
    alone, joined = (df.sort_values(keys, ignore_index=True) for df in (alone, joined))
    assert alone["n"].sum() > 0
    pd.testing.assert_frame_equal(alone, joined)


def test_head_to_head_as_partners_and_opponents(con: duckdb.DuckDBPyConnection) -> None:
    pair = head_to_head(con, player="p1", other="p3").set_index("relation")
    assert list(pair.index) == ["partner"]
    assert (pair.loc["partner", "rounds"], pair.loc["partner", "wins"], pair.loc["partner", "draws"]) == (
        2,
        1,
        1,
    )
    against = head_to_head(con, player="p1", other="p6").set_index("relation")
    assert list(against.index) == ["opponent"] and against.loc["opponent", "draws"] == 1
    assert head_to_head(con, player="p1", other="p5").empty
    met = rivals(con, player="p1")
    assert set(met.loc[met["relation"] == "opponent", "other"]) == {"p2", "p4", "p6", "p8"}
    assert list(met.loc[met["relation"] == "partner", "other"]) == ["p3"]


def test_period_leaderboards(con: duckdb.DuckDBPyConnection) -> None:
    assert list(periods(con, period="month")["period"]) == ["2026-06"]
    assert list(periods(con, period="season")["period"]) == ["2026-Q2"]
    board = period_leaderboard(con, period="month", name="2026-06").set_index("player_id")
    assert board.loc["p1", "rounds"] == 2 and board.loc["p5", "rounds"] == 1
    assert board.loc["p1", "rated_rounds"] == 3
    assert period_leaderboard(con, period="month", name="2025-01").empty
    with pytest.raises(ValueError, match="unknown period"):
        periods(con, period="week")
