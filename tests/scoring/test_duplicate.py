"""Duplicate (複式) scoring: deals matchpointed across rooms, MP score-rate standings.

scoring.md §S8 (duplicate: the same deals at two tables with the seats turned, results compared),
national Art. 17 一(一)(1) 複式賽 and Art. 37 (a deal not played in both rooms forms no duplicate),
seed 004 (MP score rate; ties split by deals placed 1st, then 2nd, …; still equal: shared place).
"""

from __future__ import annotations

from typing import Any

import polars as pl
from scoring_builders import deal, deals, match, matches

from scoring.duplicate import duplicate_results, duplicate_standings

A, B, C, D = ("a1", "a2"), ("b1", "b2"), ("c1", "c2"), ("d1", "d2")


def room(
    match_id: str, board: str, room_name: str, ew: tuple[str, str], ns: tuple[str, str], status: str = "valid"
) -> dict[str, Any]:
    row = match(match_id, ew, ns, ("2", "2"), None, stage="duplicate", status=status)
    return {**row, "duplicate_board": board, "duplicate_room": room_name}


def board_of_two(
    open_deals: list[tuple[str, int]],
    closed_deals: list[tuple[str, int]],
    board: str = "b1",
    pairs: tuple[tuple[str, str], tuple[str, str]] = (A, B),
) -> pl.DataFrame:
    """One board: pair 1 sits EW in the open room and NS in the closed room, pair 2 the other way."""
    p, q = pairs
    ms = matches(room(f"{board}-open", board, "open", p, q), room(f"{board}-closed", board, "closed", q, p))
    ds = deals(
        *(deal(f"{board}-open", i, w, g) for i, (w, g) in enumerate(open_deals, 1)),
        *(deal(f"{board}-closed", i, w, g) for i, (w, g) in enumerate(closed_deals, 1)),
    )
    return duplicate_results(ms, ds)


def by_pair(results: pl.DataFrame) -> dict[str, tuple[int, int]]:
    totals = results.group_by("team_id").agg(pl.col("mp").sum(), pl.col("mp_max").sum())
    return {r["team_id"]: (r["mp"], r["mp_max"]) for r in totals.iter_rows(named=True)}


def test_same_cards_compared_across_rooms() -> None:
    """§S8: EW of the open room (pair A) is compared with EW of the closed room (pair B)."""
    results = board_of_two([("EW", 3)], [("EW", 1)])
    ew = results.filter(pl.col("direction") == "EW").sort("room")
    assert ew.select("room", "team_id", "result", "mp", "mp_max", "place").rows() == [
        ("closed", "b1+b2", 1, 0, 2, 2),
        ("open", "a1+a2", 3, 2, 2, 1),
    ]
    # The NS cards: B held them in the open room (lost 3), A in the closed room (lost 1): A better.
    ns = results.filter(pl.col("direction") == "NS").sort("room")
    assert ns.select("room", "team_id", "result", "mp", "place").rows() == [
        ("closed", "a1+a2", -1, 2, 1),
        ("open", "b1+b2", -3, 0, 2),
    ]
    assert by_pair(results) == {"a1+a2": (4, 4), "b1+b2": (0, 4)}


def test_equal_results_tie() -> None:
    """seed 004: equal results on a deal score 1 MP each."""
    results = board_of_two([("NS", 2)], [("NS", 2)])
    assert by_pair(results) == {"a1+a2": (2, 4), "b1+b2": (2, 4)}
    assert set(results["place"]) == {1}


def test_deal_played_in_one_room_only_is_not_compared() -> None:
    """Art. 37: a deal that did not form a duplicate (the closed room stopped earlier) scores nothing."""
    results = board_of_two([("EW", 1), ("NS", 3)], [("EW", 1)])
    assert set(results["deal_no"]) == {1}
    assert by_pair(results) == {"a1+a2": (2, 4), "b1+b2": (2, 4)}


def test_invalid_room_is_not_compared() -> None:
    """Only replayed results count: an invalid match's deals are unknown."""
    ms = matches(room("o", "b1", "open", A, B), room("c", "b1", "closed", B, A, status="invalid"))
    results = duplicate_results(ms, deals(deal("o", 1, "EW", 3), deal("c", 1, "EW", 1)))
    assert results.height == 0


def test_more_rooms_matchpoint_against_every_other_room() -> None:
    """Three rooms on a board: 2 MP per pair beaten, 1 per tie, out of 2 × 2."""
    ms = matches(room("r1", "b", "1", A, B), room("r2", "b", "2", C, D), room("r3", "b", "3", D, A))
    ds = deals(deal("r1", 1, "EW", 3), deal("r2", 1, "EW", 1), deal("r3", 1, "EW", 1))
    ew = duplicate_results(ms, ds).filter(pl.col("direction") == "EW").sort("room")
    assert ew.select("team_id", "mp", "mp_max", "place", "rooms").rows() == [
        ("a1+a2", 4, 4, 1, 3),
        ("c1+c2", 1, 4, 2, 3),
        ("d1+d2", 1, 4, 2, 3),
    ]


def two_boards(
    first: tuple[list[tuple[str, int]], list[tuple[str, int]]],
    second: tuple[list[tuple[str, int]], list[tuple[str, int]]],
) -> pl.DataFrame:
    return pl.concat(
        [board_of_two(*first, board="b1", pairs=(A, B)), board_of_two(*second, board="b2", pairs=(C, D))]
    )


def test_standings_rank_by_mp_rate() -> None:
    """seed 004: MP score rate (MP / MP available) decides first."""
    results = two_boards(([("EW", 3)], [("EW", 1)]), ([("EW", 2)], [("EW", 2)]))
    table = duplicate_standings(results)
    assert table.select("rank", "team_id", "mp", "mp_max", "mp_rate", "decided_by").rows() == [
        (1, "a1+a2", 4, 4, 1.0, None),
        (2, "c1+c2", 2, 4, 0.5, "mp_rate"),
        (2, "d1+d2", 2, 4, 0.5, "shared"),
        (4, "b1+b2", 0, 4, 0.0, "mp_rate"),
    ]


def test_equal_rates_split_by_deals_placed_first() -> None:
    """seed 004 "分別累計計算單副成績排名第一的個數": equal MP rates, more firsts ranks higher."""
    # A and B split a board 1:1 over two deals (each first on two of four comparisons);
    # C and D tie both deals (each first on all four comparisons, ties share the place).
    results = two_boards(
        ([("EW", 3), ("EW", 1)], [("EW", 1), ("EW", 3)]), ([("NS", 2), ("EW", 1)], [("NS", 2), ("EW", 1)])
    )
    table = duplicate_standings(results)
    rates = dict(zip(table["team_id"], table["mp_rate"], strict=True))
    assert set(rates.values()) == {0.5}
    assert table.select("rank", "team_id", "place_counts", "decided_by").rows() == [
        (1, "c1+c2", [4, 0], None),
        (1, "d1+d2", [4, 0], "shared"),
        (3, "a1+a2", [2, 2], "place_1"),
        (3, "b1+b2", [2, 2], "shared"),
    ]
