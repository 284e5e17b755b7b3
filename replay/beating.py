"""A fast, exact shortcut for ``could_beat`` (the ``plays`` column) before calling ``can_beat``.

For a pass over a non-bomb, most hands can beat the table for a simple reason (rules.md §4): they
hold a bomb, which beats every non-bomb, or a higher single, pair or triple. :class:`HandShape`
counts the hand once between two plays of its seat and answers ``True`` in those cases; otherwise
the replayer asks ``replay.moves.can_beat``. It never answers ``False`` (a property test checks
that it never disagrees with ``can_beat``).
"""

from __future__ import annotations

from collections import Counter

from replay.combos import Combo, rank_value
from replay.events import LEVELS

_RANK_VALUE = {r: i for i, r in enumerate(LEVELS)}


class HandShape:
    """Rank counts of a hand on the single-card scale (2…A → 0…12, level rank 13, rules.md §2)."""

    __slots__ = ("bomb", "hr", "natural", "sb", "top", "wilds")

    def __init__(self, hand: Counter[str], level: str) -> None:
        wild = "H" + level
        self.wilds = hand.get(wild, 0)
        self.sb = hand.get("SB", 0)
        self.hr = hand.get("HR", 0)
        natural: dict[int, int] = {}
        for card, n in hand.items():
            if card == wild or card in ("SB", "HR"):
                continue
            rank = card[1]
            v = 13 if rank == level else _RANK_VALUE[rank]
            natural[v] = natural.get(v, 0) + n
        self.natural = natural
        self.bomb = (self.sb == 2 and self.hr == 2) or any(
            n >= 2 and n + self.wilds >= 4 for n in natural.values()
        )
        """A bomb of 4+ cards (wilds with at least two naturals, as ``can_beat`` counts) or the joker bomb."""
        top = max(natural, default=-1)
        if self.wilds:
            top = max(top, 13)
        self.top = 15 if self.hr else 14 if self.sb else top

    def surely_beats(self, table: Combo, level: str) -> bool:
        """True when the hand certainly beats ``table`` (a non-bomb) by a bomb or a higher
        single / pair / triple (rules.md §3–§4); False means "ask ``can_beat``"."""
        if self.bomb:
            return True
        kind = table.type
        if kind not in ("single", "pair", "triple"):
            return False
        v = rank_value(table, level)
        if kind == "single":
            return self.top > v
        need = 2 if kind == "pair" else 3
        w = self.wilds
        if any(r > v and n + w >= need for r, n in self.natural.items()):
            return True
        return kind == "pair" and ((self.sb >= 2 and v < 14) or (self.hr >= 2 and v < 15))
