"""Starting-hand features of a dealt hand (the ``deal_hands`` table), rules.md §2–§3.

Pure counting on the 27 dealt cards: how strong a hand looks before any play, so analyses can
control for the luck of the deal.
"""

from __future__ import annotations

from typing import NamedTuple

from schemas.vocabulary import BIG_JOKER, LEVEL_ORDER, SMALL_JOKER, SUITS, WILD_SUIT
from schemas.vocabulary import RANKS as LEVELS

_SEQ_RANKS = ("A", *LEVELS)
"""Natural sequence order with A low and high (rules.md §3): A 2 3 … K A, positions 0…13."""
_WILD, _SMALL, _BIG = 13, 14, 15
"""Count slots after the 13 natural ranks (by index in ``LEVELS``): wilds, small and big jokers."""


def _card_slots(level: str) -> dict[str, tuple[int, int, int]]:
    """Per card at ``level``: count slot, suit index and bit mask of its sequence positions (A: 0
    and 13); wilds and jokers count in their own slots, under suit 4, with no positions."""
    slots = {
        s + r: (i, suit, sum(1 << p for p, x in enumerate(_SEQ_RANKS) if x == r))
        for suit, s in enumerate(SUITS)
        for i, r in enumerate(LEVELS)
    }
    slots[WILD_SUIT + level] = (_WILD, 4, 0)
    slots[SMALL_JOKER] = (_SMALL, 4, 0)
    slots[BIG_JOKER] = (_BIG, 4, 0)
    return slots


_SLOTS: dict[str, dict[str, tuple[int, int, int]]] = {level: _card_slots(level) for level in LEVELS}
""":func:`_card_slots` per level: one lookup per card, no branching on its kind."""
_WINDOWS = tuple(0b11111 << start for start in range(len(_SEQ_RANKS) - 4))
"""Bit masks of the ten five-position windows A-2-3-4-5 … T-J-Q-K-A."""
_CHANCES: dict[tuple[int, int], int] = {}
"""Memo of the windows a suit mask completes with ``need`` cards of its own (2^14 masks at most)."""


def _chances(mask: int, need: int) -> int:
    key = (mask, need)
    n = _CHANCES.get(key)
    if n is None:
        n = _CHANCES[key] = sum(1 for window in _WINDOWS if (mask & window).bit_count() >= need)
    return n


class HandFeatures(NamedTuple):
    """The starting-hand features of one dealt hand (the ``deal_hands`` columns of the same names)."""

    jokers: int
    big_jokers: int
    wilds: int
    level_cards: int
    natural_bombs: int
    straight_flush_chances: int


def hand_features(hand: list[str], level: str) -> HandFeatures:
    """Jokers, big jokers, wilds, level cards, natural bombs and straight-flush chances of a hand.

    - ``natural_bombs``: ranks held four times or more without wilds, plus the joker bomb;
    - ``straight_flush_chances``: suit windows of five consecutive ranks (A low to A high)
      that the hand completes with its own wilds (each wild fills one missing card).
    """
    slots = _SLOTS[level]
    counts = [0] * 16
    masks = [0, 0, 0, 0, 0]
    for card in hand:
        slot, suit, bits = slots[card]
        counts[slot] += 1
        masks[suit] |= bits
    wilds, big = counts[_WILD], counts[_BIG]
    jokers = counts[_SMALL] + big
    need = 5 - wilds
    return HandFeatures(
        jokers,
        big,
        wilds,
        counts[LEVEL_ORDER[level]] + wilds,
        sum(1 for n in counts[:13] if n >= 4) + (jokers == 4),
        sum(_chances(mask, need) for mask in masks[:4] if mask),
    )
