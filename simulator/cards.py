"""Card, seat and level vocabulary of the simulator (rules.md §1–§2, events.md "Cards").

The simulator keeps its own tiny card model (strings as in events.md, integer orders for
speed) so that it can referee and play thousands of deals per second without calling the
general rules engine on every turn.
"""

from __future__ import annotations

from schemas.vocabulary import BIG_JOKER, RANKS, SMALL_JOKER, SUITS
from schemas.vocabulary import RANK_VALUE as NATURAL

VALUE_CHAR: dict[int, str] = {v: r for r, v in NATURAL.items()}

DECK: tuple[str, ...] = tuple(s + r for s in SUITS for r in RANKS) * 2 + (SMALL_JOKER,) * 2 + (BIG_JOKER,) * 2

LEVELS = RANKS
"""Team levels 2 … A in order (rules.md §2); a level is stored as its index 0 … 12."""
LEVEL_A = len(LEVELS) - 1


def single_order(card: str, level: str) -> int:
    """Single-card strength (rules.md §2): big joker 17, small joker 16, level card 15, else 2…14."""
    if card == BIG_JOKER:
        return 17
    if card == SMALL_JOKER:
        return 16
    rank = card[1]
    return 15 if rank == level else NATURAL[rank]


def rank_char(card: str) -> str:
    """The rank written in a combo for this card (events.md): `B`/`R` for jokers, else the rank."""
    if card == BIG_JOKER:
        return "R"
    if card == SMALL_JOKER:
        return "B"
    return card[1]
