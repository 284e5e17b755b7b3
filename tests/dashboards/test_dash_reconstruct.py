"""The hand reconstruction of the replayer (dashboards/reconstruct.py): tribute moves (rules.md §6)
and plays (rules.md §5) applied to the dealt hands, hands as multisets (rules.md §1)."""

from __future__ import annotations

from collections import Counter

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dashboards.reconstruct import apply_tributes, reconstruct
from replay.cards import display_order
from schemas.vocabulary import SEATS

DECK = [s + r for s in "SHCD" for r in "23456789TJQKA"] + ["SB", "HR"]


def _deal(shift: int = 0) -> dict[str, list[str]]:
    cards = (DECK * 2)[shift:] + (DECK * 2)[:shift]
    return {seat: cards[i::4] for i, seat in enumerate(SEATS)}


def test_hands_are_kept_in_the_engines_display_order() -> None:
    """rules.md §1 card notation: 2 … A, then small joker SB and big joker HR (``display_order``)."""
    hands = {"E": ["HR", "SA", "D2", "SB", "S2", "HT"], "N": ["S3"], "W": ["S4"], "S": ["S5", "H6"]}
    tribute = [{"kind": "single", "giver": "S", "receiver": "E", "card": "H6", "return_card": "SA"}]
    dealt, after = (step.hands["E"] for step in reconstruct(hands, tribute, [])[:2])
    assert dealt == ["S2", "D2", "HT", "SA", "SB", "HR"] == display_order(hands["E"])
    assert after == ["S2", "D2", "H6", "HT", "SB", "HR"]


@pytest.mark.parametrize(
    ("case", "tributes", "moves"),
    [
        # rules.md §6 single tribute: the 4th gives the 1st a card, the 1st returns one
        (
            "single",
            [{"kind": "single", "giver": "S", "receiver": "E", "card": "HR", "return_card": "C6"}],
            {"S": (["HR"], ["C6"]), "E": (["C6"], ["HR"])},
        ),
        # rules.md §6 double tribute: both losers pay, each receiver returns to its giver
        (
            "double",
            [
                {"kind": "double", "giver": "N", "receiver": "E", "card": "SA", "return_card": "D3"},
                {"kind": "double", "giver": "S", "receiver": "W", "card": "HK", "return_card": "C4"},
            ],
            {"N": (["SA"], ["D3"]), "E": (["D3"], ["SA"]), "S": (["HK"], ["C4"]), "W": (["C4"], ["HK"])},
        ),
        # rules.md §6 抗贡: resisted tribute moves nothing
        (
            "anti",
            [
                {
                    "kind": "anti",
                    "giver": "S",
                    "receiver": None,
                    "card": None,
                    "return_card": None,
                    "anti_seats": ["S"],
                }
            ],
            {},
        ),
    ],
)
def test_tribute_moves(
    case: str, tributes: list[dict], moves: dict[str, tuple[list[str], list[str]]]
) -> None:
    hands = {"E": ["C6", "D3", "C4", "S9"], "N": ["SA", "S5"], "W": ["C4", "H7"], "S": ["HR", "HK", "S3"]}
    after = apply_tributes(hands, tributes)
    for seat in SEATS:
        gave, got = moves.get(seat, ([], []))
        expected = Counter(hands[seat]) - Counter(gave) + Counter(got)
        assert Counter(after[seat]) == expected, (case, seat)


def test_unknown_hand_stays_unknown() -> None:
    hands = {"E": ["C6"], "N": None, "W": ["S2"], "S": ["HR"]}
    after = apply_tributes(
        hands, [{"kind": "single", "giver": "S", "receiver": "N", "card": "HR", "return_card": "D4"}]
    )
    assert after["N"] is None
    assert after["S"] == ["D4"]  # the giver still receives the return card


def test_steps_follow_the_plays_and_tricks() -> None:
    hands = _deal()
    e, n = hands["E"], hands["N"]
    plays = [
        {"seq": 3, "trick_no": 1, "seat": "E", "action": "play", "cards": [e[0]], "combo_type": "single"},
        {"seq": 4, "trick_no": 1, "seat": "N", "action": "play", "cards": [n[0]], "combo_type": "single"},
        {"seq": 5, "trick_no": 1, "seat": "W", "action": "pass", "cards": None, "could_beat": True},
        {"seq": 6, "trick_no": 1, "seat": "S", "action": "pass", "cards": None},
        {"seq": 7, "trick_no": 1, "seat": "E", "action": "pass", "cards": None},
        {"seq": 8, "trick_no": 2, "seat": "N", "action": "play", "cards": n[1:3], "combo_type": "pair"},
    ]
    steps = reconstruct(hands, [], list(reversed(plays)))  # order comes from seq, not input order
    assert [s.label for s in steps[:2]] == ["dealt", "tribute"]
    assert len(steps) == 2 + len(plays)
    after_trick_1 = steps[6]
    assert after_trick_1.last_of_trick and after_trick_1.trick_no == 1
    assert after_trick_1.table["seat"] == "N"  # the last play (not a pass) holds the table
    assert [r["seat"] for r in after_trick_1.trick] == ["E", "N", "W", "S", "E"]
    assert len(after_trick_1.hands["E"]) == 26 and len(after_trick_1.hands["N"]) == 26
    last = steps[-1]
    assert last.trick_no == 2 and len(last.trick) == 1 and len(last.hands["N"]) == 24
    assert last.action["combo_type"] == "pair"


def test_duplicate_cards_are_removed_once() -> None:
    """rules.md §1: every card exists twice; playing one H5 leaves the other."""
    hands = {"E": ["H5", "H5", "S9"], "N": [], "W": [], "S": []}
    plays = [{"seq": 1, "trick_no": 1, "seat": "E", "action": "play", "cards": ["H5"]}]
    assert reconstruct(hands, [], plays)[-1].hands["E"] == ["H5", "S9"]


@settings(deadline=None)  # a speed limit is a benchmark's job; under CI load one example took 386 ms
@given(
    shift=st.integers(0, 107),
    picks=st.lists(st.tuples(st.sampled_from(SEATS), st.integers(1, 4)), max_size=30),
)
def test_cards_are_conserved(shift: int, picks: list[tuple[str, int]]) -> None:
    """Property: at every step, cards in hands + cards played = the 108 dealt cards."""
    hands = _deal(shift)
    left = {s: list(h) for s, h in hands.items()}
    plays = []
    for i, (seat, k) in enumerate(picks):
        cards, left[seat] = left[seat][:k], left[seat][k:]
        plays.append(
            {
                "seq": i,
                "trick_no": i // 4 + 1,
                "seat": seat,
                "action": "play" if cards else "pass",
                "cards": cards or None,
            }
        )
    played: Counter[str] = Counter()
    for step in reconstruct(hands, [], plays):
        if step.action is not None and step.action["cards"]:
            played.update(step.action["cards"])
        in_hands = sum((Counter(h) for h in step.hands.values() if h is not None), Counter())
        assert in_hands + played == Counter(DECK * 2)


@pytest.mark.parametrize("missing", [None, float("nan"), pd.NA])
def test_null_hand_cells_mean_unknown(missing: object) -> None:
    """events.md deal_start: a missing seat's hand is unknown, whatever null the table reader gives."""
    steps = reconstruct({"E": ["S2"], "N": missing, "W": ["S3"], "S": ["S4"]}, [], [])
    assert steps[0].hands["N"] is None and steps[0].hands["E"] == ["S2"]
