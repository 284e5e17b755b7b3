"""Decision review of logged deals: positions rebuilt from v1 logs agree with the replay
(turns, hands, the table, 接风 and the finishing order, rules.md §5), and every reviewed decision's
loss is ≥ 0, and 0 exactly for the best actions."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest

from replay import replay_match
from replay.review import DecisionReview, action_of, position_before, review_deal
from replay.solver import Budget, DealEnd, play_action
from simulator.api import simulate_match

BUDGET = Budget(nodes=100_000)


@pytest.fixture(scope="module")
def matches() -> list[list[dict[str, Any]]]:
    """Simulated matches of every ruleset."""
    return [simulate_match(rules, seed=i) for i, rules in enumerate(("national", "huaian", "bcta", "njupt"))]


def test_positions_follow_the_replay(matches: list[list[dict[str, Any]]]) -> None:
    """rules.md §5.3–§5.7 as ``replay_match`` applies them: before every (sampled) play and pass the
    rebuilt position has the replay's seat to act, hand sizes and table; the last play of each
    deal ends it with the replay's finishing order."""
    for events in matches[:2]:
        replay = replay_match(events)
        assert replay.status == "valid"
        by_seq = {e["seq"]: e for e in events}
        for row in replay.rows["plays"][::5]:
            p = position_before(events, row["seq"])
            assert p.turn == row["seat"]
            assert {s: len(h) for s, h in p.hands.items()} == {s: row[f"left_{s}"] for s in "ENWS"}
            assert (
                (p.table.type, p.table.rank)
                if p.table
                else (
                    row["table_combo_type"],
                    row["table_combo_rank"],
                )
                == (None, None)
            )
            assert p.table_seat == row["table_seat"]
        ends = {d["deal_no"]: d["finish_order"] for d in replay.rows["deals"]}
        last_play: dict[int, int] = {}
        for row in replay.rows["plays"]:
            if row["action"] == "play":
                last_play[row["deal_no"]] = row["seq"]
        for deal, seq in last_play.items():
            p = position_before(events, seq)
            end = play_action(p, action_of(p, by_seq[seq]))
            assert isinstance(end, DealEnd)
            assert list(end.order) == ends[deal][: len(end.order)]


def check_rows(rows: list[DecisionReview]) -> None:
    """The review's invariants: loss ≥ 0, 0 exactly for a best action; before = best; each
    decision's value after is the next one's value before, for the same team."""
    for row in rows:
        assert row.value_before == row.best_value
        assert row.loss == row.best_value - row.value_after >= 0
        assert (row.loss == 0) == (row.action in row.best_moves)
    for a, b in pairwise(rows):
        assert a.value_after == (b.value_before if a.team == b.team else -b.value_before)


def test_review_losses(matches: list[list[dict[str, Any]]]) -> None:
    """Every reviewed decision from 14 cards left has a loss ≥ 0, 0 for the best moves."""
    reviewed = 0
    for events in matches:
        for deal in sorted({e["deal"] for e in events if e["type"] == "deal_start"})[:4]:
            rows = review_deal(events, BUDGET, deal=deal, max_cards_left=14)
            check_rows(rows)
            assert all(r.cards_left <= 14 for r in rows)
            reviewed += len(rows)
    assert reviewed > 50


def test_position_before_refuses_other_events(matches: list[list[dict[str, Any]]]) -> None:
    """Only a play or pass has a position before it; a deal_start or deal_end does not."""
    events = matches[0]
    for kind in ("deal_start", "deal_end"):
        seq = next(e["seq"] for e in events if e["type"] == kind)
        with pytest.raises(ValueError):
            position_before(events, seq)
