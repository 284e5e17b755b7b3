"""Read a wild-free set of cards as one combination (rules.md §3), for Botzone claims.

A Botzone play states its reading as the *claim*: the played cards with every wild replaced by
the card it stands for. A claim has no wilds left (a heart level card still in it stands for
itself), so it has at most one reading and needs no level: ranks are natural, sequences use
the natural order with A low or high (§3), and a sequence's rank is its lowest card (events.md).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from schemas.vocabulary import RANKS, rank_of_card

_SEQUENCE_ORDER = ("A", *RANKS)
"""Positions of a sequence's cards: A low (index 0) … A high (index 13), rules.md §3."""


def _lowest_of_run(ranks: Sequence[str], length: int) -> str | None:
    """The lowest rank when ``ranks`` (distinct) are ``length`` consecutive ranks, else None."""
    if len(ranks) != length or len(set(ranks)) != length or any(r in ("B", "R") for r in ranks):
        return None
    for start in range(len(_SEQUENCE_ORDER) - length + 1):
        if sorted(ranks) == sorted(_SEQUENCE_ORDER[start : start + length]):
            return _SEQUENCE_ORDER[start]
    return None


def classify_claim(cards: Sequence[str]) -> tuple[str, str] | None:
    """``(type id, rank)`` of a wild-free claim per rules.md §3, or None when it is no combination."""
    counts = Counter(rank_of_card(c) for c in cards)
    size = len(cards)
    if size == 4 and sorted(cards) == ["HR", "HR", "SB", "SB"]:
        return ("joker_bomb", "JOKER")
    if len(counts) == 1:
        rank = next(iter(counts))
        jokers = rank in ("B", "R")
        kinds = {1: "single", 2: "pair", 3: "triple"}
        if size in kinds and not (jokers and size == 3):
            return (kinds[size], rank)
        if 4 <= size <= 10 and not jokers:
            return ("bomb", rank)
        return None
    shape = sorted(counts.values())
    if size == 5 and shape == [2, 3]:
        triple = next(r for r, n in counts.items() if n == 3)
        return None if triple in ("B", "R") else ("full_house", triple)
    if size == 5 and shape == [1, 1, 1, 1, 1]:
        low = _lowest_of_run(list(counts), 5)
        if low is None:
            return None
        flush = "SB" not in cards and "HR" not in cards and len({c[0] for c in cards}) == 1
        return ("straight_flush" if flush else "straight", low)
    if size == 6 and shape == [2, 2, 2]:
        low = _lowest_of_run(list(counts), 3)
        return None if low is None else ("tube", low)
    if size == 6 and shape == [3, 3]:
        low = _lowest_of_run(list(counts), 2)
        return None if low is None else ("plate", low)
    return None
