"""Jiangsu's last round scores its extra deal's winner, never 1:1 (scoring.md §S2, rules.md §7).

Seed 003: "最后一轮不能平局,需加赛一把决定胜负,按比赛首副牌规则加赛,打出头游比赛即结束,获胜方升一级".
Each test replays a hand-written score sheet (results-only deals, docs/event-extensions.md) of a
jiangsu round that ends level, then scores the replayed ``matches`` and ``deals`` rows.
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

from replay.replayer import replay_match
from schemas.tables import DEALS, MATCHES
from scoring.frames import frame
from scoring.round_scores import score_matches
from scoring.standings import standings

SEATS = {"E": "a", "N": "b", "W": "c", "S": "d"}


def replayed(
    deals: list[tuple[str, str | None, list[str]]], winner: str | None, last: bool, **start: Any
) -> dict[str, pl.DataFrame]:
    """The ``matches`` and ``deals`` frames of one replayed jiangsu score sheet."""
    events: list[dict[str, Any]] = []

    def add(type_: str, **payload: Any) -> None:
        events.append({"v": 1, "match": "js-r7-t1", "seq": len(events), "type": type_, **payload})

    event = {"id": "js", "round": 7, "stage": "swiss", "last_round": last}
    add("match_start", rules="jiangsu", seats=SEATS, event=event, **start)
    for no, (level, declarers, order) in enumerate(deals, start=1):
        add("deal_start", deal=no, level=level, declarers=declarers)
        add("deal_end", order=order)
    add("match_end", reason="deals", winner=winner)
    r = replay_match(events)
    assert r.valid, r.error
    return {"matches": frame(r.rows["matches"], MATCHES), "deals": frame(r.rows["deals"], DEALS)}


LEVEL_3_3 = [("2", None, ["E", "N", "S"]), ("3", "EW", ["N", "E", "W"])]
TWO_DEALS = {"kind": "deals", "deals": 2}


def results(tables: dict[str, pl.DataFrame]) -> dict[str, tuple[str, float, int]]:
    s = score_matches(tables["matches"], tables["deals"])
    return {r["side"]: (r["result"], r["match_points"], r["level_points"]) for r in s.iter_rows(named=True)}


def test_last_round_extra_deal_scores_a_win_not_a_draw() -> None:
    """Seed 003 最后一轮不能平局 … 获胜方升一级: NS go out first in the extra deal, 4:3, a win (2 match
    points, level points 13 ± 1) instead of the 1:1 draw a level round scores."""
    t = replayed([*LEVEL_3_3, ("3", None, ["S"])], "NS", last=True, format=TWO_DEALS)
    assert results(t) == {"NS": ("win", 2.0, 14), "EW": ("loss", 0.0, 12)}


def test_a_level_round_that_is_not_the_last_stays_a_draw() -> None:
    """Seed 003 breaks the last round only: an earlier level round is 1:1 (scoring.md §S2)."""
    t = replayed(LEVEL_3_3, None, last=False, format=TWO_DEALS)
    assert results(t) == {"NS": ("draw", 1.0, 13), "EW": ("draw", 1.0, 13)}


def test_extra_deal_at_a_is_still_a_win() -> None:
    """Seed 003 最后一轮不能平局: at A:A the +1 cannot lift the winners (capped at A), the round is
    still the extra deal's winner's, not a draw."""
    t = replayed(
        [("A", None, ["E", "N", "S"]), ("A", None, ["W"])],
        "EW",
        last=True,
        start_state={"levels": {"EW": "A", "NS": "A"}},
        format={"kind": "deals", "deals": 1},
    )
    scored = results(t)
    assert (scored["EW"][:2], scored["NS"][:2]) == (("win", 2.0), ("loss", 0.0))


@pytest.mark.parametrize("first", ["E", "N", "W", "S"])
def test_standings_rank_the_extra_deal_winner_first(first: str) -> None:
    """Seed 003 决定胜负: the standings after the last round put the extra deal's winners first."""
    t = replayed(
        [*LEVEL_3_3, ("3", None, [first])], "EW" if first in "EW" else "NS", last=True, format=TWO_DEALS
    )
    table = standings(score_matches(t["matches"], t["deals"])).sort("rank")
    winners = {"E": "a", "W": "c", "N": "b", "S": "d"}[first]
    top = table.row(0, named=True)
    assert winners in (top["player_1"], top["player_2"]), top
    assert table["rank"].to_list() == [1, 2]
