"""Starting-hand features of a dealt hand (the ``deal_hands`` table), rules.md §2–§3.

Pure counting on the 27 dealt cards: how strong a hand looks before any play, so analyses can
control for the luck of the deal.
"""

from __future__ import annotations

from replay.events import LEVELS

_SUITS = ("S", "H", "C", "D")
_SEQ_RANKS = ("A", *LEVELS)
"""Natural sequence order with A low and high (rules.md §3): A 2 3 … K A, positions 0…13."""
_CARD_INFO: dict[str, tuple[str, int, int]] = {
    s + r: (r, i, sum(1 << p for p, x in enumerate(_SEQ_RANKS) if x == r))
    for i, s in enumerate(_SUITS)
    for r in LEVELS
}
"""Per natural card: its rank, suit index and bit mask of its sequence positions (A: 0 and 13)."""
_WINDOWS = tuple(0b11111 << start for start in range(len(_SEQ_RANKS) - 4))
"""Bit masks of the ten five-position windows A-2-3-4-5 … T-J-Q-K-A."""


def hand_features(hand: list[str], level: str) -> dict[str, int]:
    """Jokers, big jokers, wilds, level cards, natural bombs and straight-flush chances of a hand.

    - ``natural_bombs``: ranks held four times or more without wilds, plus the joker bomb;
    - ``straight_flush_chances``: suit windows of five consecutive ranks (A low to A high)
      that the hand completes with its own wilds (each wild fills one missing card).
    """
    wild = "H" + level
    wilds = small = big = 0
    by_rank: dict[str, int] = {}
    masks = [0, 0, 0, 0]
    for card in hand:
        if card == wild:
            wilds += 1
        elif card == "SB":
            small += 1
        elif card == "HR":
            big += 1
        else:
            rank, suit, bits = _CARD_INFO[card]
            by_rank[rank] = by_rank.get(rank, 0) + 1
            masks[suit] |= bits
    jokers = small + big
    need = 5 - wilds
    return {
        "jokers": jokers,
        "big_jokers": big,
        "wilds": wilds,
        "level_cards": by_rank.get(level, 0) + wilds,
        "natural_bombs": sum(1 for n in by_rank.values() if n >= 4) + (jokers == 4),
        "straight_flush_chances": sum(
            1 for mask in masks if mask for window in _WINDOWS if (mask & window).bit_count() >= need
        ),
    }
