"""Amateur dan ledger scenarios of scoring.md §S5.

Most scenarios use small thresholds and windows (the rules are the same whatever the numbers,
which are data in ``DanParams``); one runs the source's own numbers.
"""

from __future__ import annotations

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st
from scoring_builders import dan_round, scores

from scoring.dan import dan_current, dan_ledger
from scoring.dan_checks import ledger_problems
from scoring.params import DanParams

SMALL = DanParams(thresholds=(1000, 2000, 3000), windows=(3, 3, 3))
AB, CD = ("a", "b"), ("c", "d")


Round = tuple[tuple[str, str], tuple[str, str], int, int]


def rounds(*per_round: Round, rules: str = "bcta") -> pl.DataFrame:
    rows = []
    for i, (ew, ns, pe, pn) in enumerate(per_round):
        rows.extend(dan_round(f"m{i:03d}", i, ew, ns, pe, pn, rules=rules))
    return scores(*rows)


def history(ledger: pl.DataFrame, player: str, *cols: str) -> list[tuple]:
    return ledger.filter(pl.col("player_id") == player).sort("seq").select(cols).rows()


def test_promotion_inside_the_window() -> None:
    ledger, states = dan_ledger(rounds((AB, CD, 600, 0), (AB, CD, 600, 0)), SMALL)
    assert history(ledger, "a", "total_after", "dan_after", "event", "window_rounds_used") == [
        (600, 0, None, 1),
        (1200, 1, "promoted", 2),
    ]
    assert (states["a"].dan, states["a"].total, states["a"].window_no, states["a"].used) == (1, 1200, 2, 0)


def test_promotion_at_the_last_round_of_the_window() -> None:
    ledger, _ = dan_ledger(rounds(*[(AB, CD, 400, 0)] * 3), SMALL)
    assert history(ledger, "b", "total_after", "dan_after", "event", "window_rounds_used") == [
        (400, 0, None, 1),
        (800, 0, None, 2),
        (1200, 1, "promoted", 3),
    ]


def test_window_expiry_clears_the_points_earned_at_the_dan() -> None:
    ledger, states = dan_ledger(rounds(*[(AB, CD, 300, 100)] * 4), SMALL)
    assert history(ledger, "c", "total_after", "event", "window_no") == [
        (100, None, 1),
        (200, None, 1),
        (0, "window_reset", 1),
        (100, None, 2),
    ]
    assert history(ledger, "a", "total_after", "event") == [
        (300, None),
        (600, None),
        (0, "window_reset"),
        (300, None),
    ]
    assert states["c"].window_no == 2


def test_window_reset_goes_back_to_the_total_held_on_reaching_the_dan() -> None:
    ledger, _ = dan_ledger(
        rounds((AB, CD, 1200, 0), (AB, ("e", "f"), 0, 0), *[(AB, ("g", "h"), 100, 0)] * 4), SMALL
    )
    a = ledger.filter(pl.col("player_id") == "a").sort("seq")
    assert a["counted"].to_list() == [True, False, False, False, False, False]
    ledger2, _ = dan_ledger(
        rounds(
            (AB, CD, 1200, 0),
            (AB, ("x", "y"), 0, 0),
            (CD, ("e", "f"), 1200, 0),
            (AB, CD, 100, 0),
            (AB, CD, 100, 0),
            (AB, CD, 100, 0),
        ),
        SMALL,
    )
    assert history(ledger2, "a", "total_after", "dan_after", "event")[-3:] == [
        (1300, 1, None),
        (1400, 1, None),
        (1200, 1, "window_reset"),
    ]


def test_rounds_against_other_dan_opponents_do_not_count() -> None:
    ledger, _ = dan_ledger(rounds((AB, CD, 1200, 0), (AB, CD, 500, 0)), SMALL)
    second = ledger.filter(pl.col("seq") == 2).sort("player_id")
    assert second["counted"].to_list() == [False] * 4
    assert second["points_earned"].to_list() == [0] * 4
    assert second["round_points"].to_list() == [500, 500, 0, 0]
    assert second["opponent_dans"].to_list() == [[0, 0], [0, 0], [1, 1], [1, 1]]
    assert history(ledger, "a", "total_after", "window_rounds_used") == [(1200, 1), (1200, 0)]
    assert ledger_problems(ledger) == []


def test_no_skipping_a_dan() -> None:
    """2500 points at once pass both the dan 1 and dan 2 thresholds: one dan only."""
    ledger, states = dan_ledger(rounds((AB, CD, 2500, 0)), SMALL)
    assert history(ledger, "a", "dan_before", "dan_after", "total_after") == [(0, 1, 2500)]
    assert states["a"].dan == 1


def test_same_dan_policy_both_or_either() -> None:
    """a and c reach dan 1; then a+b against c+d meet one opponent of each dan."""
    games = ((("a", "c"), ("b", "d"), 1200, 0), (AB, CD, 400, 0))
    both, _ = dan_ledger(rounds(*games), SMALL)
    either, _ = dan_ledger(rounds(*games), DanParams(SMALL.thresholds, SMALL.windows, same_dan="either"))
    assert history(both, "a", "counted") == [(True,), (False,)]
    assert history(either, "a", "counted", "total_after") == [(True, 1200), (True, 1600)]


def test_source_numbers_first_dan_in_25_wins() -> None:
    """`bcta` Appendix A: 10 000 points within 30 rounds; 25 wins at 400 reach it in round 25."""
    ledger, states = dan_ledger(rounds(*[(AB, CD, 400, 0)] * 26), DanParams())
    a = ledger.filter(pl.col("player_id") == "a").sort("seq")
    assert a.row(24, named=True)["event"] == "promoted" and a.row(24, named=True)["total_after"] == 10_000
    assert states["c"].used == 25 and states["c"].dan == 0
    assert states["a"].dan == 1 and a.row(25, named=True)["counted"] is False


def test_only_bcta_rounds_enter_the_ledger() -> None:
    ledger, _ = dan_ledger(rounds((AB, CD, 400, 0), rules="national"), SMALL)
    assert ledger.is_empty()


def test_dan_current_progress_and_rounds_left() -> None:
    _, states = dan_ledger(
        rounds(
            (AB, CD, 1200, 0),
            (AB, ("e", "f"), 0, 0),
            (AB, ("e", "f"), 0, 0),
            (AB, ("x", "y"), 1200, 400),
            (("x", "y"), ("e", "f"), 400, 0),
        ),
        SMALL,
    )
    cur = {r["player_id"]: r for r in dan_current(states, SMALL).iter_rows(named=True)}
    a = cur["a"]
    assert (a["dan"], a["points"], a["next_dan"], a["next_threshold"]) == (1, 1200, 2, 2000)
    assert (cur["a"]["points_to_next"], cur["a"]["rounds_left"], cur["a"]["rounds"]) == (800, 3, 4)
    assert (cur["x"]["progress"], cur["x"]["rounds_left"], cur["x"]["counted_rounds"]) == (0.4, 2, 1)
    assert cur["a"]["progress"] == 0.0


def test_ledger_checks_catch_a_broken_total() -> None:
    ledger, _ = dan_ledger(rounds(*[(AB, CD, 300, 100)] * 4), SMALL)
    assert ledger_problems(ledger) == []
    broken = ledger.with_columns(
        pl.when((pl.col("player_id") == "a") & (pl.col("seq") == 2))
        .then(pl.col("total_after") + 1)
        .otherwise(pl.col("total_after"))
        .alias("total_after")
    )
    problems = ledger_problems(broken)
    assert any("player a seq 2: total" in p for p in problems)
    assert any("player a seq 3: does not start" in p for p in problems)


PLAYERS = list("abcdefgh")


@st.composite
def leagues(draw: st.DrawFn) -> list[Round]:
    n = draw(st.integers(min_value=1, max_value=25))
    out = []
    for _ in range(n):
        four = draw(st.permutations(PLAYERS))[:4]
        pts = draw(st.sampled_from([(400, 0), (0, 400), (200, 200), (650, 40), (900, 0)]))
        out.append(((four[0], four[1]), (four[2], four[3]), *pts))
    return out


@settings(max_examples=40, deadline=None)
@given(leagues(), st.randoms())
def test_ledger_is_rederivable_and_consistent(league: list, rnd) -> None:
    """§S5: replaying the rounds gives the same ledger whatever the input row order."""
    frame = rounds(*league)
    ledger, _ = dan_ledger(frame, SMALL)
    order = list(range(frame.height))
    rnd.shuffle(order)
    again, _ = dan_ledger(frame[order], SMALL)
    assert again.equals(ledger)
    assert ledger_problems(ledger) == []
    assert ledger.height == 4 * len(league)
