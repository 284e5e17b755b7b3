"""Combinations as the bots hold them (rules.md §3–§4): a `Group` and how groups compare.

A group is a concrete set of cards with one declared reading (type, rank). Comparison follows
rules.md §4 through a `power` tuple: (class, size, key) where class 0 holds the seven non-bomb
types (comparable only to the same type and size) and classes 1–5 are 4-card bombs, 5-card bombs,
straight flushes, bombs of 6+ cards and the joker bomb.
"""

from __future__ import annotations

from dataclasses import dataclass

SEQUENCES = frozenset({"straight", "tube", "plate", "straight_flush"})


def power_of(kind: str, size: int, key: int) -> tuple[int, int, int]:
    """The strength tuple of a combination (rules.md §4 strength classes)."""
    if kind == "joker_bomb":
        return (5, 4, 0)
    if kind == "bomb":
        if size >= 6:
            return (4, size, key)
        return (2 if size == 5 else 1, size, key)
    if kind == "straight_flush":
        return (3, 5, key)
    return (0, size, key)


@dataclass(frozen=True, slots=True)
class Group:
    """One playable combination: its cards, declared reading and comparison key.

    `key` is the single order of the rank for singles/pairs/triples/full houses/bombs, and the
    position of the lowest card (A-low = 1) for sequences. `rank` is the events.md rank string.
    """

    kind: str
    rank: str
    key: int
    cards: tuple[str, ...]
    wild: bool
    power: tuple[int, int, int]

    @property
    def is_bomb(self) -> bool:
        """Whether the group is in a bomb class (rules.md §4 classes 1–5)."""
        return self.power[0] > 0

    @property
    def lead_value(self) -> int:
        """How 'big' the group is when choosing what to lead: sequences by their middle card."""
        return self.key + 2 if self.kind in SEQUENCES else self.key


def make_group(kind: str, rank: str, key: int, cards: tuple[str, ...], wild: bool) -> Group:
    """A group with its power computed from kind, size and key."""
    return Group(kind, rank, key, cards, wild, power_of(kind, len(cards), key))


def beats(play: Group, table: Group) -> bool:
    """Whether `play` beats `table` (rules.md §4): higher class, or same type/size and higher key."""
    pc, tc = play.power[0], table.power[0]
    if pc != tc:
        return pc > tc
    if pc == 0:
        return play.kind == table.kind and len(play.cards) == len(table.cards) and play.key > table.key
    return play.power > table.power
