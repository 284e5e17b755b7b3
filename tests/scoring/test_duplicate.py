"""Duplicate (複式) scoring: deals matchpointed across rooms, MP score-rate standings.

scoring.md §S8 (duplicate: the same deals at two tables with the seats turned, results compared),
§S9 (a pair's result is its side's outcome class by finishing places, §S5, not the capped level
gain; MP, MP score rate, ties split by boards placed 1st, 2nd, …, still equal: shared place and
the next skipped), national Art. 17 一(一)(1) 複式賽 and Art. 37 (a deal not played in both rooms
forms no duplicate), seed 004.
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest
from scoring_builders import deal as deal_row
from scoring_builders import deals, match, matches

from scoring.duplicate import duplicate_results, duplicate_standings

A, B, C, D = ("a1", "a2"), ("b1", "b2"), ("c1", "c2"), ("d1", "d2")
E, F = ("e1", "e2"), ("f1", "f2")

_ORDERS = {
    ("EW", 3): "EWNS",
    ("EW", 2): "ENWS",
    ("EW", 1): "ENSW",
    ("NS", 3): "NSEW",
    ("NS", 2): "NESW",
    ("NS", 1): "NEWS",
}
"""A finishing order per (winning side, class): partner 2nd → 3, 3rd → 2, 4th → 1 (§S5)."""


def deal(match_id: str, deal_no: int, winner: str, outcome: int, gain: int | None = None) -> dict[str, Any]:
    """A won deal of class ``outcome`` by its finishing order; ``gain``: the level gain after the
    cap at A (default: the class, as at a low level)."""
    capped = outcome if gain is None else gain
    return deal_row(match_id, deal_no, winner, capped, order=_ORDERS[(winner, outcome)])


def room(
    match_id: str, board: str, room_name: str, ew: tuple[str, str], ns: tuple[str, str], status: str = "valid"
) -> dict[str, Any]:
    row = match(match_id, ew, ns, ("2", "2"), None, stage="duplicate", status=status)
    return {**row, "duplicate_board": board, "duplicate_room": room_name}


Won = tuple[str, int] | tuple[str, int, int]
"""A won deal: the winning side, its class and optionally its capped level gain."""


def board_of_two(
    open_deals: list[Won],
    closed_deals: list[Won],
    board: str = "b1",
    pairs: tuple[tuple[str, str], tuple[str, str]] = (A, B),
) -> pl.DataFrame:
    """One board: pair 1 sits EW in the open room and NS in the closed room, pair 2 the other way."""
    p, q = pairs
    ms = matches(room(f"{board}-open", board, "open", p, q), room(f"{board}-closed", board, "closed", q, p))
    ds = deals(
        *(deal(f"{board}-open", i, *won) for i, won in enumerate(open_deals, 1)),
        *(deal(f"{board}-closed", i, *won) for i, won in enumerate(closed_deals, 1)),
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
    first: tuple[list[Won], list[Won]],
    second: tuple[list[Won], list[Won]],
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


def test_board_won_at_a_or_double_win_at_k_compares_by_class() -> None:
    """§S5/§S9: the outcome class by finishing places, not the capped level gain, is compared.

    Open room: EW (pair A) wins at A with the partner 2nd (class 3; the level cannot move, gain 0).
    Closed room: EW (pair B) wins with the partner 4th at a low level (class 1, gain 1). A is better
    on the EW cards and on the NS cards (B lost −3, A lost only −1). On the second deal a double win
    at K (class 3, capped gain 1) beats a win with the partner 3rd at 5 (class 2, gain 2)."""
    results = board_of_two([("EW", 3, 0), ("NS", 3, 1)], [("EW", 1, 1), ("NS", 2, 2)])
    assert results.sort("deal_no", "direction", "room").select(
        "deal_no", "direction", "team_id", "result", "mp", "place"
    ).rows() == [
        (1, "EW", "b1+b2", 1, 0, 2),
        (1, "EW", "a1+a2", 3, 2, 1),
        (1, "NS", "a1+a2", -1, 2, 1),
        (1, "NS", "b1+b2", -3, 0, 2),
        (2, "EW", "b1+b2", -2, 2, 1),
        (2, "EW", "a1+a2", -3, 0, 2),
        (2, "NS", "a1+a2", 2, 0, 2),
        (2, "NS", "b1+b2", 3, 2, 1),
    ]


def test_won_deal_without_finish_order_is_an_error() -> None:
    """§S9 needs the finishing places; a deals row without them is reported, not scored as 0."""
    ms = matches(room("o", "b1", "open", A, B), room("c", "b1", "closed", B, A))
    ds = deals(deal_row("o", 1, "EW", 1), deal("c", 1, "EW", 1))
    with pytest.raises(ValueError, match="match o, deal 1: a won deal without finish_order"):
        duplicate_results(ms, ds)


def test_hand_computed_event() -> None:
    """A §S9 event of 6 pairs, 2 rounds, 3 tables a round, each table's board played in two rooms,
    one deal a board, computed by hand from the spec.

    Per board and direction the two rooms' results are compared: the better takes 2 MP, a tie 1
    each, out of 2; each pair plays the EW cards in one room and the NS cards in the other, so
    per board 4 MP are available to it. Results (class for the pair, room open / closed):

    - r1 A–B: open EW wins class 3 at A (level gain 0), closed EW wins class 1. EW cards: A +3 >
      B +1; NS cards: A −1 > B −3 → A 4 MP (1st, 1st), B 0 (2nd, 2nd).
    - r1 C–D: EW wins class 2 in both rooms → ties: C 2 (1st, 1st), D 2 (1st, 1st).
    - r1 E–F: open EW class 1, closed NS class 1 → E +1 > F −1 and F −1 < E +1: E 4, F 0.
    - r2 A–C: NS wins class 2 in the open room (A EW), class 1 in the closed (C EW). EW cards:
      A −2 < C −1; NS cards: C +2 > A +1 → C 4 (1st, 1st), A 0 (2nd, 2nd).
    - r2 B–D: EW class 1 in both rooms → B 2, D 2, all places 1st.
    - r2 E–F: open NS class 3, closed EW class 3 → F +3 on both card sets: F 4, E 0.

    Totals (of 8 MP): C 6 (.75); D 4, firsts 4; A, E, F 4, firsts 2, seconds 2; B 2 (.25).
    Ranks: C 1; D 2 (MP rate); A, E, F 3 shared (D above them by boards placed 1st); 4 and 5
    skipped; B 6. Every pair played two board-sets in four rooms: 2 matches, not 4.
    """
    boards = [
        ("r1b1", A, B, ("EW", 3, 0), ("EW", 1, 1)),
        ("r1b2", C, D, ("EW", 2, 2), ("EW", 2, 2)),
        ("r1b3", E, F, ("EW", 1, 1), ("NS", 1, 1)),
        ("r2b1", A, C, ("NS", 2, 2), ("NS", 1, 1)),
        ("r2b2", B, D, ("EW", 1, 1), ("EW", 1, 1)),
        ("r2b3", E, F, ("NS", 3, 3), ("EW", 3, 3)),
    ]
    rooms, played = [], []
    for board, p, q, open_deal, closed_deal in boards:
        rooms += [room(f"{board}-o", board, "open", p, q), room(f"{board}-c", board, "closed", q, p)]
        played += [deal(f"{board}-o", 1, *open_deal), deal(f"{board}-c", 1, *closed_deal)]
    table = duplicate_standings(duplicate_results(matches(*rooms), deals(*played)))
    columns = ("rank", "team_id", "matches", "deals_compared", "mp", "mp_max", "mp_rate", "place_counts")
    assert table.select(*columns, "decided_by").rows() == [
        (1, "c1+c2", 2, 4, 6, 8, 0.75, [4, 0], None),
        (2, "d1+d2", 2, 4, 4, 8, 0.5, [4, 0], "mp_rate"),
        (3, "a1+a2", 2, 4, 4, 8, 0.5, [2, 2], "place_1"),
        (3, "e1+e2", 2, 4, 4, 8, 0.5, [2, 2], "shared"),
        (3, "f1+f2", 2, 4, 4, 8, 0.5, [2, 2], "shared"),
        (6, "b1+b2", 2, 4, 2, 8, 0.25, [2, 2], "mp_rate"),
    ]
