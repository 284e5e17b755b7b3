"""Starting-hand features of a dealt hand (the ``deal_hands`` table), rules.md §2–§3.

Pure counting on the 27 dealt cards: how strong a hand looks before any play, so analyses can
control for the luck of the deal.
"""

from __future__ import annotations

from collections import Counter

from replay.events import LEVELS

_SUITS = ("S", "H", "C", "D")
_SEQ_RANKS = ("A", *LEVELS)
"""Natural sequence order with A low and high (rules.md §3): A 2 3 … K A."""


def hand_features(hand: list[str], level: str) -> dict[str, int]:
    """Jokers, big jokers, wilds, level cards, natural bombs and straight-flush chances of a hand.

    - ``natural_bombs``: ranks held four times or more without wilds, plus the joker bomb;
    - ``straight_flush_chances``: suit windows of five consecutive ranks (A low to A high)
      that the hand completes with its own wilds (each wild fills one missing card).
    """
    counts = Counter(hand)
    wild = "H" + level
    wilds = counts.get(wild, 0)
    jokers = counts.get("SB", 0) + counts.get("HR", 0)
    by_rank: Counter[str] = Counter()
    for card, n in counts.items():
        if card not in ("SB", "HR") and card != wild:
            by_rank[card[1]] += n
    level_cards = by_rank.get(level, 0) + wilds
    natural_bombs = sum(1 for n in by_rank.values() if n >= 4) + (1 if jokers == 4 else 0)
    chances = 0
    for suit in _SUITS:
        have = [suit + r in counts and suit + r != wild for r in _SEQ_RANKS]
        for start in range(len(_SEQ_RANKS) - 4):
            if 5 - sum(have[start : start + 5]) <= wilds:
                chances += 1
    return {
        "jokers": jokers,
        "big_jokers": counts.get("HR", 0),
        "wilds": wilds,
        "level_cards": level_cards,
        "natural_bombs": natural_bombs,
        "straight_flush_chances": chances,
    }
