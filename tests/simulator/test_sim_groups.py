"""The bots' combinations agree with the rules engine (rules.md §3 readings, §4 comparison)."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replay import beats as engine_beats
from replay import readings
from simulator.cards import DECK, LEVELS
from simulator.decompose import _greedy_plan, decompose, plan_score, straight_flushes
from simulator.groups import Group, beats

hands = st.tuples(st.permutations(list(DECK)), st.sampled_from(LEVELS)).map(lambda t: (t[0][:27], t[1]))


def _engine_combo(g: Group, level: str):
    """The rules engine's reading of a group that matches its declared type and rank."""
    match = [r for r in readings(list(g.cards), level) if r.type == g.kind and r.rank == g.rank]
    assert match, f"{g.kind} {g.rank} is not a reading of {g.cards} at level {level}"
    return match[0]


@settings(max_examples=150, deadline=None)
@given(hands, st.booleans())
def test_plan_partitions_hand_into_true_readings(hand_level: tuple[list[str], str], careless: bool) -> None:
    """§3: the plan (careful or careless) holds exactly the hand, and every group's declared reading is
    a reading of its cards."""
    hand, level = hand_level
    plan = decompose(hand, level, careless)
    assert Counter(c for g in plan for c in g.cards) == Counter(hand)
    for g in plan:
        _engine_combo(g, level)


@settings(max_examples=100, deadline=None)
@given(hands)
def test_straight_flush_search(hand_level: tuple[list[str], str]) -> None:
    """§3: every straight flush candidate is a true straight flush reading of cards in the hand, and
    taking one out only ever improves the plan (a bomb is broken up only when that pays)."""
    hand, level = hand_level
    for g in straight_flushes(hand, level):
        assert _engine_combo(g, level).type == "straight_flush"
        assert not Counter(g.cards) - Counter(hand)
    assert plan_score(decompose(hand, level)) >= plan_score(_greedy_plan(hand, level))


@settings(max_examples=80, deadline=None)
@given(hands, hands)
def test_beats_agrees_with_engine(a: tuple[list[str], str], b: tuple[list[str], str]) -> None:
    """§4: the simulator's comparison of two groups is the rules engine's."""
    level = a[1]
    left, right = decompose(a[0], level), decompose(b[0], level)
    for x in left:
        for y in right:
            assert beats(x, y) == engine_beats(_engine_combo(x, level), _engine_combo(y, level), level), (
                x,
                y,
            )


@pytest.mark.parametrize(
    ("hand", "level", "expected"),
    [
        # §3 bomb: four of a rank; the level-2 wild H2 turns the lowest triple into a bomb
        (["S7", "H7", "C7", "D7"], "2", [("bomb", "7", 4)]),
        (["S9", "C9", "D9", "H2"], "2", [("bomb", "9", 4)]),
        # §3 joker bomb
        (["SB", "SB", "HR", "HR"], "5", [("joker_bomb", "JOKER", 4)]),
        # §3 straight from loose singles, A low written as A
        (["SA", "C2", "D3", "S4", "C5"], "9", [("straight", "A", 5)]),
        # five of one suit in sequence is always a straight flush
        (["S9", "ST", "SJ", "SQ", "SK"], "2", [("straight_flush", "9", 5)]),
        # §3 plate and tube
        (["S3", "C3", "D3", "S4", "C4", "D4"], "2", [("plate", "3", 6)]),
        (["S5", "C5", "S6", "C6", "S7", "C7"], "2", [("tube", "5", 6)]),
        # a wild completes a straight from four loose singles (no triple to make a bomb of)
        (["S3", "D4", "C6", "S7", "H2", "SK", "DK"], "2", [("straight", "3", 5), ("pair", "K", 2)]),
        # §3 straight flush among other cards, rather than a plain straight and singles
        (
            ["D9", "DT", "DJ", "DQ", "DK", "CT", "SJ", "HQ"],
            "2",
            [("straight_flush", "9", 5), ("single", "T", 1), ("single", "J", 1), ("single", "Q", 1)],
        ),
        # §3 a wild fills the gap of a straight flush (A low, written as A)
        (["CA", "C2", "C3", "C5", "H7", "SK", "DK"], "7", [("straight_flush", "A", 5), ("pair", "K", 2)]),
        # a bomb is broken for a straight flush when that clearly pays (four loose singles used) ...
        (
            ["S3", "S4", "S5", "S6", "S7", "C7", "D7", "H7"],
            "2",
            [("straight_flush", "3", 5), ("triple", "7", 3)],
        ),
        # ... and kept when the flush's cards already sit in a plate and pairs
        (
            ["S5", "C5", "D5", "S6", "C6", "D6", "S7", "H7", "S9", "D9", "S8", "C8", "D8", "H8"],
            "2",
            [("bomb", "8", 4), ("plate", "5", 6), ("pair", "7", 2), ("pair", "9", 2)],
        ),
        # a lone wild is the level card as a single; two wilds a pair of level cards
        (["H8"], "8", [("single", "8", 1)]),
        (["H8", "H8"], "8", [("pair", "8", 2)]),
    ],
)
def test_decompose_examples(hand: list[str], level: str, expected: list[tuple[str, str, int]]) -> None:
    """Table of small hands and the plan a club player would make (rules.md §3)."""
    assert [(g.kind, g.rank, len(g.cards)) for g in decompose(hand, level)] == expected


@pytest.mark.parametrize(
    ("hand", "level", "expected"),
    [
        # no sequences: the straight flush 9–K stays five singles
        (["D9", "DT", "DJ", "DQ", "DK"], "2", [("single", r, 1) for r in "9TJQK"]),
        # the wild stays a level card instead of making the triple a bomb
        (["S9", "C9", "D9", "H2"], "2", [("triple", "9", 3), ("single", "2", 1)]),
        # natural bombs are still seen
        (["S7", "H7", "C7", "D7", "S3"], "2", [("bomb", "7", 4), ("single", "3", 1)]),
    ],
)
def test_careless_plan(hand: list[str], level: str, expected: list[tuple[str, str, int]]) -> None:
    """A weak player's plan (low skill) groups by rank only, still true readings (§3)."""
    assert [(g.kind, g.rank, len(g.cards)) for g in decompose(hand, level, careless=True)] == expected
