"""Professional dan by win rate (scoring.md §S6)."""

from __future__ import annotations

import pytest
from scoring_builders import dan_round, scores

from scoring.params import ProDanParams
from scoring.pro_dan import pro_dan, pro_dan_for


@pytest.mark.parametrize(
    ("rate", "dan"),
    [
        (0.96, 9),
        (0.95, 8),
        (0.94, 8),
        (0.92, 7),
        (0.90, 6),
        (0.85, 5),
        (0.80, 5),
        (0.70, 4),
        (0.60, 3),
        (0.55, 2),
        (0.50, 2),
        (0.40, 1),
        (0.39, None),
        (0.0, None),
        (1.0, 9),
    ],
)
def test_win_rate_table_s6(rate: float, dan: int | None) -> None:
    assert pro_dan_for(rate, ProDanParams()) == dan


def league(results: list[str]) -> list[dict]:
    """Rounds of a+b against c+d with a+b's results ('w', 'd', 'l')."""
    rows = []
    for i, r in enumerate(results):
        pts = {"w": (1, 0), "l": (0, 1), "d": (1, 1)}[r]
        two = dan_round(f"m{i:03d}", i, ("a", "b"), ("c", "d"), *pts)
        if r == "d":
            for row in two:
                row["result"] = "draw"
        rows.extend(two)
    return rows


def test_last_n_rounds_with_half_draws_and_minimum_s6() -> None:
    """60 rounds: the first 10 lost are outside the last 50; 40 wins + 10 draws → 90 % → dan 6."""
    table = pro_dan(scores(*league(["l"] * 10 + ["w"] * 40 + ["d"] * 10)))
    a = table.filter(table["player_id"] == "a").row(0, named=True)
    assert (a["rounds"], a["wins"], a["draws"], a["losses"]) == (50, 40, 10, 0)
    assert a["win_rate"] == pytest.approx(0.9)
    assert a["pro_dan"] == 6
    c = table.filter(table["player_id"] == "c").row(0, named=True)
    assert (c["win_rate"], c["pro_dan"]) == (pytest.approx(0.1), None)


def test_too_few_rounds_gives_no_dan_s6() -> None:
    table = pro_dan(scores(*league(["w"] * 19)))
    a = table.filter(table["player_id"] == "a").row(0, named=True)
    assert (a["eligible"], a["pro_dan"], a["win_rate"]) == (False, None, 1.0)


def test_only_sanctioned_events_count() -> None:
    rows = league(["w"] * 25)
    for r in rows:
        r["event_id"] = "open"
    table = pro_dan(scores(*rows), ProDanParams(sanctioned_events=frozenset({"league"})))
    assert table.is_empty()
