"""The Cython removal of a play's cards from a known hand (``replay._replay.take_cards``) against
the loop of ``replay.play.PlayPhase._take_cards`` (rules.md §5: a seat plays only cards it holds):
the same hand after a play the hand holds, key order included, and the hand's counts untouched
with False for any other play, so the Python loop runs and makes the fault."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replay import native

_REPLAY = native.built_core("_replay")
pytestmark = pytest.mark.skipif(
    _REPLAY is None, reason="the Cython replay module is not built in this checkout"
)

_CARDS = ["H3", "S3", "HA", "SB", "HR", "C7", "X9"]


def _python_take(hand: Counter[str], cards: list[str]) -> bool:
    """``PlayPhase._take_cards``'s loop over a known hand, False where it faults."""
    for i, c in enumerate(cards):
        n = hand.get(c, 0)
        if n == 1:
            hand.pop(c)
        elif n:
            hand[c] = n - 1
        else:
            hand.update(cards[:i])
            return False
    return True


_hands = st.lists(st.tuples(st.sampled_from(_CARDS), st.integers(-1, 3)), max_size=7).map(
    lambda kv: Counter(dict(kv))
)


@settings(max_examples=500, deadline=None)
@given(_hands, st.lists(st.sampled_from(_CARDS), max_size=8))
def test_take_cards_is_the_python_loop_or_leaves_the_hand(hand: Counter[str], cards: list[str]) -> None:
    """Played cards the hand holds (§5) are taken out exactly as the Python loop takes them;
    otherwise the hand keeps its counts, its cards put back as the Python loop puts them back,
    and the Python loop runs and faults (or, for a count below zero, which no hand has, decides
    alone)."""
    assert _REPLAY is not None
    fast_hand = Counter(hand)
    reference = Counter(hand)
    reference_ok = _python_take(reference, cards)
    if _REPLAY.take_cards(fast_hand, cards):
        assert reference_ok
        assert list(fast_hand.items()) == list(reference.items())
    else:
        assert dict(fast_hand) == dict(hand)
        if all(n >= 0 for n in hand.values()):
            assert not reference_ok
            assert list(fast_hand.items()) == list(reference.items())


def test_cards_not_held_leave_the_hand() -> None:
    """A play with a card the seat does not hold (rules.md §5) leaves the hand's counts as they were."""
    assert _REPLAY is not None
    hand = Counter({"H3": 2, "HA": 1})
    assert _REPLAY.take_cards(hand, ["H3", "HA", "HA"]) is False
    assert hand == Counter({"H3": 2, "HA": 1})
    assert _REPLAY.take_cards(hand, ["H3", "HA"]) is True
    assert list(hand.items()) == [("H3", 1)]
