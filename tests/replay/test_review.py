"""Decision review of logged deals: positions rebuilt from v1 logs agree with the replay
(turns, hands, the table, 接风 and the finishing order, rules.md §5), and every reviewed decision's
loss is ≥ 0, and 0 exactly for the best actions."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise
from typing import Any

import pytest

from replay import replay_match
from replay.cards import sort_cards
from replay.combos import beat_key
from replay.moves import legal_moves
from replay.review import EXACT, DecisionReview, action_of, position_before, review_deal, review_match
from replay.rulesets import BUILTIN
from replay.seats import PARTNER
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


def test_rows_say_their_kind_choice_and_phase(matches: list[list[dict[str, Any]]]) -> None:
    """Every verdict is labelled exact double-dummy; a ``forced`` row is a pass with no legal play
    onto the table (rules.md §5.3), an ``all_equal`` row has every legal action among the best, a
    ``real`` one has some action that is not; the phase follows the table (rules.md §4, §5.6)."""
    seen: Counter[str] = Counter()
    for events in matches[:2]:
        for deal in review_match(events, BUDGET, max_cards_left=14):
            for row in deal.rows:
                p = position_before(events, row.seq)
                assert row.kind == EXACT and row.hand == tuple(sort_cards(p.hands[row.seat]))
                plays = legal_moves(list(p.hands[row.seat]), p.level, p.table,
                                    full_house_joker_pair=p.ruleset.full_house_joker_pair)
                actions = len(plays) + (p.table is not None)
                if row.choice == "forced":
                    assert row.action is None and not plays
                elif row.choice == "all_equal":
                    assert len(row.best_moves) == actions
                else:
                    assert row.choice == "real" and len(row.best_moves) < actions
                if p.table is None:
                    assert row.phase in ("lead", "jie_feng")
                elif row.action is None:
                    assert row.phase == "pass"
                else:
                    bomb = beat_key(row.action.combo, p.level)[0] > 0
                    assert row.phase == ("bomb" if bomb else "follow")
                seen[row.choice] += 1
                seen[row.phase] += 1
    assert seen["forced"] and seen["all_equal"] and seen["real"] and seen["pass"] and seen["follow"]


def test_jie_feng_is_the_lead_after_the_partner_went_out(matches: list[list[dict[str, Any]]]) -> None:
    """rules.md §5.6: a ``jie_feng`` lead is made by the partner of the player whose last play
    took the trick and went out."""
    found = 0
    for events in matches[:2]:
        by_seq = {e["seq"]: e for e in events}
        for deal in review_match(events, Budget(nodes=2_000), max_cards_left=16):
            for row in deal.rows:
                if row.phase != "jie_feng":
                    continue
                found += 1
                p = position_before(events, row.seq)
                last_play = max(s for s, e in by_seq.items() if s < row.seq and e["type"] == "play")
                mate = by_seq[last_play]["seat"]
                assert PARTNER[mate] == row.seat and mate in p.out
    assert found


def test_one_pass_over_the_match_equals_deal_by_deal(matches: list[list[dict[str, Any]]]) -> None:
    """``review_match`` follows the log once; each deal's rows are ``review_deal``'s."""
    events = matches[1]
    whole = review_match(events, BUDGET, max_cards_left=12)
    assert [d.deal for d in whole] == sorted({e["deal"] for e in events if e["type"] == "deal_start"})
    for deal in whole:
        assert list(deal.rows) == review_deal(events, BUDGET, deal=deal.deal, max_cards_left=12)


def test_deals_outside_the_window_say_so(matches: list[list[dict[str, Any]]]) -> None:
    """A deal whose decisions all have more cards left than the window is ``outside_window``
    (never "not solved"); one whose budget fails at the last decision is ``unsolved``."""
    deal = review_match(matches[0], BUDGET, max_cards_left=1, deals=[1])[0]
    assert deal.status == "outside_window" and deal.rows == () and deal.fewest_cards is not None
    assert deal.fewest_cards > 1 and deal.decisions > 0 and deal.in_window == 0
    tiny = review_match(matches[0], Budget(nodes=0), max_cards_left=40, deals=[1])[0]
    assert tiny.status == "unsolved" and tiny.in_window > 0


def test_last_deal_of_a_deals_format_is_worth_the_level_comparison() -> None:
    """rules.md §7: in a ``deals`` format the last deal's result decides by levels alone, so its
    win chances are 0, ½ or 1; earlier deals' lie strictly between when the match goes on."""
    events = simulate_match("national", format="deals:3", seed=5)
    reviewed = review_match(events, BUDGET, max_cards_left=12)
    last = [r for d in reviewed if d.deal == 3 for r in d.rows]
    assert last and all(r.win_best in (0.0, 0.5, 1.0) and r.win_after in (0.0, 0.5, 1.0) for r in last)
    for d in reviewed:
        for r in d.rows:
            assert r.win_best is not None and r.win_after is not None
            assert 0.0 <= r.win_after <= r.win_best <= 1.0
            assert (r.loss == 0) <= (r.match_loss == 0)


@pytest.mark.parametrize("rules", sorted(BUILTIN))
def test_window_entry_gives_the_rows_of_following_every_play(rules: str) -> None:
    """A deal followed on the tally up to the window (turns, tricks and 接风 without the cards'
    readings, rules.md §5.3–§5.7) and the solver's state built there gives the same rows, decision
    counts and fewest cards as following every play with the solver (the review without a window,
    its rows in the window: solved from the end backwards, they are the same solves)."""
    events = simulate_match(rules, seed=3)
    budget = Budget(nodes=1_000)
    every = review_match(events, budget)
    compared = 0
    for window in (8, 12, 20, 40):
        entered = review_match(events, budget, max_cards_left=window)
        for full, deal in zip(every, entered, strict=True):
            counted = (deal.deal, deal.decisions, deal.fewest_cards)
            assert counted == (full.deal, full.decisions, full.fewest_cards)
            assert list(deal.rows) == [r for r in full.rows if r.cards_left <= window]
            compared += len(deal.rows)
    assert compared > 20


def test_a_card_not_held_before_the_window_is_refused(matches: list[list[dict[str, Any]]]) -> None:
    """The tally still takes each play's cards from the hand: a play of a card the seat does not
    hold is an error naming the event, not a silently wrong position."""
    events = [dict(e) for e in matches[0]]
    first = next(e for e in events if e["type"] == "play")
    start = next(e for e in events if e["type"] == "deal_start")
    missing = next(c for c in ("SB", "HR", "S2", "H3") if c not in start["hands"][first["seat"]])
    first["cards"] = [missing]
    with pytest.raises(ValueError, match=f"seq {first['seq']}: {first['seat']} does not hold {missing}"):
        review_match(events, BUDGET, max_cards_left=12, deals=[start["deal"]])
