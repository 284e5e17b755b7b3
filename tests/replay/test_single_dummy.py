"""Single-dummy review: sampled layouts keep everything the player has seen (their hand, every play,
the tribute and return cards they paid or received, rules.md §6, and every seat's card count), the
same seed gives the same layouts, and verdicts are well-formed, labelled by kind and by the exact
review's phase."""

from __future__ import annotations

from collections import Counter
from functools import cache
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from replay.cards import single_order
from replay.layouts import sample_layouts
from replay.review import review_deal
from replay.rulesets import BUILTIN
from replay.seats import SEATS
from replay.single_dummy import (
    LABEL,
    RETURN_PHASE,
    PlayDecision,
    Settings,
    deal_decisions,
    review_deal_single_dummy,
)
from replay.solver import Action, Budget, DealEnd, Solver, play_action
from replay.tribute import return_allowed
from simulator.api import simulate_match
from simulator.rollout import bot_rollout


@cache
def _match() -> list[dict[str, Any]]:
    return simulate_match("national", seed=3)


@cache
def _tribute_deal() -> tuple[int, list[dict[str, Any]], list[PlayDecision]]:
    """A deal of the match after a single tribute, its events and its plays."""
    events = sorted(_match(), key=lambda e: e["seq"])
    for i, ev in enumerate(events):
        if ev["type"] == "deal_start" and events[i + 1]["type"] == "tribute":
            deal_events = events[i:]
            level = ev["level"]
            _, plays, _ = deal_decisions(deal_events, BUILTIN["national"], Solver(level, BUILTIN["national"]))
            return ev["deal"], deal_events, plays
    raise AssertionError("the simulated match has no tribute")


@settings(max_examples=25, deadline=None)
@given(index=st.integers(min_value=0), seed=st.integers(min_value=0, max_value=2**32))
def test_layouts_keep_what_the_player_has_seen(index: int, seed: int) -> None:
    """Every layout keeps the player's hand, puts exactly the unseen cards (the deck less the hand
    and every card played) in the other seats at their counts, leaves each card the player paid or
    returned with its receiver unless played, and never deals the payer of the tribute the player
    received a card above it (rules.md §6); the same seed deals the same layouts."""
    _, _, plays = _tribute_deal()
    p = plays[index % len(plays)]
    position, view = p.position, p.view
    layouts = sample_layouts(position, view, 4, seed)
    assert layouts == sample_layouts(position, view, 4, seed)
    unseen = Counter(c for s in SEATS if s != position.turn for c in position.hands[s])
    for layout in layouts:
        assert layout.hands[position.turn] == position.hands[position.turn]
        assert {s: len(h) for s, h in layout.hands.items()} == {s: len(h) for s, h in position.hands.items()}
        assert Counter(c for s in SEATS if s != position.turn for c in layout.hands[s]) == unseen
        for s, cards in view.known.items():
            assert not Counter(cards) - Counter(layout.hands[s])
        for s, barred in view.barred.items():
            assert not set(layout.hands[s]) & barred
        assert (layout.turn, layout.table, layout.table_seat, layout.passes, layout.out) == (
            position.turn,
            position.table,
            position.table_seat,
            position.passes,
            position.out,
        )


def test_the_tribute_phase_is_known_to_those_in_it() -> None:
    """rules.md §6: the tribute receiver knows the payer held nothing above the tribute (heart level
    cards aside); the payer knows where the tribute card went; the returner where the return went."""
    _, events, plays = _tribute_deal()
    tribute = next(e for e in events if e["type"] == "tribute")
    ret = next(e for e in events if e["type"] == "return")
    receiver = next(p for p in plays if p.position.turn == tribute["to"])
    level = receiver.position.level
    top = single_order(tribute["card"], level)
    assert receiver.view.barred[tribute["from"]]
    assert all(single_order(c, level) > top for c in receiver.view.barred[tribute["from"]])
    first = plays[0]
    if first.position.turn == tribute["from"]:
        assert tribute["card"] in first.view.known[tribute["to"]]
    if first.position.turn == ret["from"]:
        assert ret["card"] in first.view.known[ret["to"]]


def test_verdicts_are_well_formed_and_exact_at_the_end() -> None:
    """Every row: labelled single-dummy, the played candidate is the action taken, worse in k ≤ N
    layouts, loss ≥ 0; without a rollout only the endgame is reviewed, every layout exactly."""
    deal, _, plays = _tribute_deal()
    by_seq = {p.seq: p for p in plays}
    rows = list(
        review_deal_single_dummy(
            _match(), Settings(layouts=4, exact_cards=10, budget=Budget(nodes=5_000)), deal=deal
        )
    )
    assert rows
    for row in rows:
        assert row.label == LABEL
        assert row.kind == "play"
        assert row.phase == by_seq[row.seq].phase
        assert row.exact_layouts == row.layouts == 4
        assert 0 <= row.worse_in <= row.layouts
        assert row.loss >= 0
        assert len(row.candidates) >= 2
        p = by_seq[row.seq]
        played = row.candidates[row.played].action
        assert not isinstance(played, str)
        assert _class(p, p.action) == _class(p, played)
        for c in row.candidates:
            assert c.low <= c.mean <= c.high
            assert all(-3 <= v <= 3 and v != 0 for v in c.values)
            assert 0.0 <= c.win <= 1.0
        assert row.win_best == max(c.win for c in row.candidates)
        assert row.match_loss == max(0.0, row.win_best - row.candidates[row.played].win)


def test_a_last_deal_is_valued_by_who_wins_the_match() -> None:
    """In the last deal of a one-deal match both teams at level 2 (rules.md §7: the format's end
    gives the match to the higher level), a layout the deciding team wins is a won match and one it
    loses a lost match: each candidate's match-winning chance is its share of layouts with a
    positive value, and the match loss is the difference of those shares."""
    events = simulate_match("national", "deals:1", seed=5)
    rows = list(review_deal_single_dummy(events, Settings(layouts=6, exact_cards=12), bot_rollout, deal=1))
    assert rows
    for row in rows:
        for c in row.candidates:
            assert c.win == sum(v > 0 for v in c.values) / len(c.values)
        assert row.match_loss == max(c.win for c in row.candidates) - row.candidates[row.played].win
    assert any(row.match_loss > 0 for row in rows)


def _class(p: PlayDecision, action: Action) -> object:
    """What the solver can tell of an action's result: the deal's end, or the canonical key."""
    solver = Solver(p.position.level, p.position.ruleset)
    after = play_action(p.position, action, solver)
    return after if isinstance(after, DealEnd) else solver.key(after)


def test_bot_rollouts_are_seeded() -> None:
    """The same position and seed give the same outcome, a level gain of 1-3 (rules.md §5.8)."""
    _, _, plays = _tribute_deal()
    position = plays[len(plays) // 2].position
    values = [bot_rollout(position, seed) for seed in (1, 1, 2)]
    assert values[0] == values[1]
    assert all(v in (-3, -2, -1, 1, 2, 3) for v in values)


def test_the_return_card_is_reviewed_among_the_cards_the_ruleset_allows() -> None:
    """rules.md §6: the receiver of a tribute chooses the return among the cards its ruleset
    allows; the review values each of them from the receiver's view, the one returned marked."""
    deal, events, _ = _tribute_deal()
    first = next(review_deal_single_dummy(_match(), Settings(layouts=2), bot_rollout, deal=deal))
    ret = next(e for e in events if e["type"] == "return")
    tribute = next(e for e in events if e["type"] == "tribute")
    assert (first.kind, first.seq, first.seat) == ("return", ret["seq"], ret["from"])
    assert first.phase == RETURN_PHASE
    assert first.candidates[first.played].action == ret["card"]
    hand = Counter(next(e for e in events if e["type"] == "deal_start")["hands"][ret["from"]])
    hand[tribute["card"]] += 1
    rule = BUILTIN["national"].returns
    level = events[0]["level"]
    for c in first.candidates:
        assert isinstance(c.action, str)
        assert return_allowed(c.action, hand, level, rule, tribute["card"], to_partner=False)
    assert first.layouts == 2 and first.exact_layouts == 0 and first.label == LABEL


def test_plays_take_the_exact_reviews_phase() -> None:
    """A play's phase is the one the exact review gives the same decision (lead, follow, pass, bomb,
    or the lead after 接风, rules.md §5.6), over every deal of the match the exact review reaches."""
    events = sorted(_match(), key=lambda e: e["seq"])
    ruleset = BUILTIN["national"]
    compared: set[str] = set()
    for i, ev in enumerate(events):
        if ev["type"] != "deal_start":
            continue
        _, plays, _ = deal_decisions(events[i:], ruleset, Solver(ev["level"], ruleset))
        sampled = {p.seq: p.phase for p in plays}
        for row in review_deal(events, Budget(nodes=2_000), deal=ev["deal"], max_cards_left=14):
            assert sampled[row.seq] == row.phase, (ev["deal"], row.seq)
            compared.add(row.phase)
    assert {"lead", "follow", "pass", "bomb", "jie_feng"} <= compared
