"""Combinations, their readings with wild cards, and which beats which (rules.md §3–§4).

A :class:`Combo` is a *reading* of a set of cards: type id, rank (events.md convention) and size.
:func:`readings` lists every reading of a set of cards; :func:`beats` compares two readings.

Conventions (rules.md §2–§3, Huai'an Art. 4, 7, 8):

- Ranks of singles, pairs, triples, full houses (the triple) and bombs follow the single-card
  order of §2: 2 … A with the level rank lifted above A, then ``B`` (small joker), ``R`` (big).
- Sequences (straight, tube, plate, straight flush) are ranked by their lowest card in the
  natural order A(1) 2 … K A(14); ``A`` means A-low. Level cards sit at their natural rank there.
- A wild (heart level card) stands for any non-joker card. Played *alone* (a single, or the two
  wilds as a pair) it is read as itself, the level card: reading a lone wild as a lower card is
  never useful and would make every such play ambiguous.
- With a wild, five cards that can form a straight flush can also form a plain straight (the
  wild takes another suit), so both readings are listed (§3 example ``H2 S3 S4 S5 S6``). Without
  a wild, five same-suit cards in sequence are only a straight flush.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Protocol

from replay import native
from replay.cards import (
    BIG_JOKER_CODE,
    BIG_JOKER_RANK,
    CARDS,
    CODE,
    RANK_INDEX,
    RANKS,
    SMALL_JOKER_CODE,
    SMALL_JOKER_RANK,
    level_index,
    parse_cards,
)
from schemas.vocabulary import JOKER_RANKS

TYPES: tuple[str, ...] = (
    "single",
    "pair",
    "triple",
    "full_house",
    "straight",
    "tube",
    "plate",
    "bomb",
    "straight_flush",
    "joker_bomb",
)
"""Type ids of rules.md §3, in the order readings of one class are listed."""
SEQUENCE_TYPES = frozenset({"straight", "tube", "plate", "straight_flush"})
FIXED_SIZE = {
    "single": 1,
    "pair": 2,
    "triple": 3,
    "full_house": 5,
    "straight": 5,
    "tube": 6,
    "plate": 6,
    "straight_flush": 5,
    "joker_bomb": 4,
}
SEQ_POSITIONS: dict[str, int] = {"A": 1, **{r: i + 2 for i, r in enumerate(RANKS[:-1])}}
"""Natural position of a sequence's lowest card: ``A`` (A-low) 1, ``2`` 2, …, ``K`` 13."""
SEQ_RANK_OF_POSITION: dict[int, str] = {p: r for r, p in SEQ_POSITIONS.items()}
_SEQ_LENGTH = {"straight": 5, "straight_flush": 5, "tube": 3, "plate": 2}
_TYPE_ORDER = {t: i for i, t in enumerate(TYPES)}
_SINGLE_RANKS = frozenset((*RANKS, *JOKER_RANKS.values()))


def _valid_ranks(type_: str) -> frozenset[str]:
    if type_ in ("single", "pair"):
        return _SINGLE_RANKS
    if type_ == "joker_bomb":
        return frozenset({"JOKER"})
    if type_ in _SEQ_LENGTH:
        last = 14 - _SEQ_LENGTH[type_] + 1
        return frozenset(r for r, p in SEQ_POSITIONS.items() if p <= last)
    return frozenset(RANKS)


_VALID_RANKS = {t: _valid_ranks(t) for t in TYPES}


@dataclass(frozen=True, slots=True)
class Combo:
    """One reading of a play: type id, rank (events.md "Combination reading") and size.

    Construction validates the three fields (``ValueError`` naming the bad one), so a reading
    declared in a log can be built directly: ``Combo("pair", "9", 2)``.
    """

    type: str
    rank: str
    size: int

    def __post_init__(self) -> None:
        ranks = _VALID_RANKS.get(self.type)
        if ranks is None:
            raise ValueError(f"invalid combination type {self.type!r}: expected one of {', '.join(TYPES)}")
        if self.rank not in ranks:
            raise ValueError(
                f"invalid rank {self.rank!r} for {self.type}: expected one of {' '.join(sorted(ranks))}"
            )
        fixed = FIXED_SIZE.get(self.type)
        if fixed is not None and self.size != fixed:
            raise ValueError(f"invalid size {self.size!r} for {self.type}: expected {fixed}")
        if fixed is None and not (isinstance(self.size, int) and 4 <= self.size <= 10):
            raise ValueError(f"invalid size {self.size!r} for bomb: expected 4 to 10")

    def __str__(self) -> str:
        if self.type == "bomb":
            return f"bomb {self.rank}×{self.size}"
        if self.type == "joker_bomb":
            return "joker bomb"
        return f"{self.type.replace('_', ' ')} {self.rank}"


_COMBO_CACHE: dict[tuple[str, str, int], Combo] = {}


def combo(type_: str, rank: str, size: int | None = None) -> Combo:
    """An interned :class:`Combo`; ``size`` may be omitted for fixed-size types."""
    if size is None:
        size = FIXED_SIZE.get(type_, 0)
    key = (type_, rank, size)
    c = _COMBO_CACHE.get(key)
    if c is None:
        c = _COMBO_CACHE[key] = Combo(type_, rank, size)
    return c


def make_combo(type: str, rank: str, size: int | None = None, level: str | None = None) -> Combo:
    """Build (and validate) a combo from a declared reading ``{"type", "rank"}``.

    ``level`` is accepted for API symmetry and validated when given; a Combo does not depend on it.
    """
    if level is not None:
        level_index(level)
    return combo(type, rank, size)


def bomb_class(c: Combo) -> str | None:
    """Bomb class of §4: ``bomb4``, ``bomb5``, ``straight_flush``, ``bomb6plus``, ``joker_bomb``;
    ``None`` for the seven non-bomb types."""
    if c.type == "bomb":
        return "bomb4" if c.size == 4 else "bomb5" if c.size == 5 else "bomb6plus"
    if c.type in ("straight_flush", "joker_bomb"):
        return c.type
    return None


def strength_class(c: Combo) -> int:
    """§4 strength class: 0 normal, 1 four-card bomb, 2 five-card bomb, 3 straight flush,
    4 bomb of six or more cards, 5 joker bomb."""
    t = c.type
    if t == "bomb":
        return 1 if c.size == 4 else 2 if c.size == 5 else 4
    if t == "straight_flush":
        return 3
    if t == "joker_bomb":
        return 5
    return 0


def rank_value(c: Combo, level: str) -> int:
    """Order value of a combo's rank within its type (§4): the single-card order for singles,
    pairs, triples, full houses and bombs (level rank 13, ``B`` 14, ``R`` 15), the natural
    position of the lowest card for sequences (A-low 1 … K 13)."""
    if c.type in SEQUENCE_TYPES:
        return SEQ_POSITIONS[c.rank]
    if c.type == "joker_bomb":
        return 16
    if c.rank == "B":
        return 14
    if c.rank == "R":
        return 15
    i = RANK_INDEX[c.rank]
    return 13 if i == level_index(level) else i


def sort_key(c: Combo, level: str) -> tuple[int, int, int, int]:
    """Weakest-first key: strength class, bomb size, type order, rank value."""
    return (strength_class(c), c.size if c.type == "bomb" else 0, _TYPE_ORDER[c.type], rank_value(c, level))


BeatKey = tuple[int, str, int]
"""What decides comparisons of a reading at a level (§4): strength class, family, order value."""


def beat_key(c: Combo, level: str) -> BeatKey:
    """The comparison facts of reading ``c`` at ``level`` (rules.md §4), worked out once so that a
    reading can be compared with many others by :func:`key_beats`:

    - the strength class (:func:`strength_class`);
    - the family within the class: plays of class 0 compare only with the same type (hence
      size), bombs and straight flushes with their whole class (``""``);
    - the order value: the rank value (:func:`rank_value`), for bombs of six or more cards
      the size first (``size * 32 + rank value``; rank values stay below 32).
    """
    cls = strength_class(c)
    v = rank_value(c, level)
    return (cls, c.type if cls == 0 else "", c.size * 32 + v if cls == 4 else v)


def key_beats(play: BeatKey, table: BeatKey) -> bool:
    """Whether a play beats a table, given their :func:`beat_key` at the deal's level (§4).

    Higher class wins; within a class, only the same family compares, by strictly higher order
    value (a joker bomb beats no joker bomb: their order values are equal).
    """
    return play[0] > table[0] or (play[0] == table[0] and play[1] == table[1] and play[2] > table[2])


def beats(play: Combo, table: Combo, level: str) -> bool:
    """Whether ``play`` beats ``table`` at ``level`` (rules.md §4).

    Higher class wins; bombs compare size then rank; straight flushes compare rank; non-bomb
    plays beat only the same type (hence size) of strictly higher rank; a joker bomb beats all.
    """
    return key_beats(beat_key(play, level), beat_key(table, level))


# ---- readings ------------------------------------------------------------------------------------

_READINGS_CACHE: dict[tuple[tuple[int, ...], int], tuple[Combo, ...]] = {}
_INPUT_CACHE: dict[tuple[str | tuple[str, ...], str], tuple[Combo, ...]] = {}
"""Readings by the caller's exact input (no parsing on a hit); keys are validated inputs only. Both
caches serve the Python engine: the Cython core works readings out about as fast as a lookup."""
_CACHE_LIMIT = 1 << 18


_WINDOW_MASKS: dict[int, tuple[tuple[int, int], ...]] = {
    length: tuple((start, ((1 << length) - 1) << start) for start in range(1, 16 - length))
    for length in (2, 3, 5)
}
"""Per sequence length: (start position, bit mask of the window's positions 1–14)."""


def _windows(ranks: Iterable[int], length: int) -> list[int]:
    """Start positions of sequence windows of ``length`` holding every rank in ``ranks`` (A may be
    position 1 or 14, other ranks sit at their natural position)."""
    mask = 0
    has_ace = False
    for r in ranks:
        if r == 12:
            has_ace = True
        else:
            mask |= 1 << (r + 2)
    if mask and mask.bit_length() - (mask & -mask).bit_length() >= length:
        return []
    last = 15 - length
    return [
        start
        for start, window in _WINDOW_MASKS[length]
        if not mask & ~window and (not has_ace or start == 1 or start == last)
    ]


def _compute(codes: tuple[int, ...], lv: int) -> tuple[Combo, ...]:
    """Readings of sorted card codes at level index ``lv`` (cache miss path of readings_of_codes)."""
    n = len(codes)
    for i in range(n - 2):
        if codes[i] == codes[i + 2]:
            raise ValueError(
                f"impossible cards: more than two copies of {CARDS[codes[i]]} (a double deck has two)"
            )
    wc = 13 + lv
    level = RANKS[lv]
    wild = 0
    sb = hr = 0
    cnt: dict[int, int] = {}
    suits: set[int] = set()
    for c in codes:
        if c == wc:
            wild += 1
        elif c == SMALL_JOKER_CODE:
            sb += 1
        elif c == BIG_JOKER_CODE:
            hr += 1
        else:
            r = c % 13
            cnt[r] = cnt.get(r, 0) + 1
            suits.add(c // 13)
    out: list[Combo] = []
    if sb or hr:
        if n == 1:
            out.append(combo("single", "B" if sb else "R"))
        elif n == 2 and (sb == 2 or hr == 2):
            out.append(combo("pair", "B" if sb else "R"))
        elif n == 4 and sb == 2 and hr == 2:
            out.append(combo("joker_bomb", "JOKER"))
        elif n == 5 and sb + hr == 2 and (sb == 2 or hr == 2) and len(cnt) == 1:
            # full house carrying a joker pair (full_house_joker_pair, §3 / §10)
            (t,) = cnt
            out.append(combo("full_house", RANKS[t]))
        return tuple(out)
    distinct = len(cnt)
    if n <= 3:
        if distinct == 0:
            if n <= 2:
                out.append(combo(("single", "pair")[n - 1], level))
        elif distinct == 1:
            (r,) = cnt
            out.append(combo(("single", "pair", "triple")[n - 1], RANKS[r]))
        return tuple(out)
    if distinct == 1:
        (r,) = cnt
        if cnt[r] >= 2:
            out.append(combo("bomb", RANKS[r], n))
    if n == 5:
        if distinct == 2:
            a, b = cnt
            for t, p in ((a, b), (b, a)):
                if cnt[t] <= 3 and cnt[p] <= 2:
                    out.append(combo("full_house", RANKS[t]))
        elif distinct == 1 and wild == 2:
            (t,) = cnt
            if cnt[t] == 3:
                out.append(combo("full_house", RANKS[t]))
        if distinct == n - wild:
            same_suit = len(suits) == 1
            for start in _windows(cnt, 5):
                rank = SEQ_RANK_OF_POSITION[start]
                if wild or not same_suit:
                    out.append(combo("straight", rank))
                if same_suit:
                    out.append(combo("straight_flush", rank))
    elif n == 6:
        if max(cnt.values()) <= 2:
            out.extend(combo("tube", SEQ_RANK_OF_POSITION[s]) for s in _windows(cnt, 3))
        if max(cnt.values()) <= 3:
            out.extend(combo("plate", SEQ_RANK_OF_POSITION[s]) for s in _windows(cnt, 2))
    if len(out) > 1:
        out.sort(key=lambda c: sort_key(c, level))
    return tuple(out)


_RANK_OF_CODE = (*RANKS, SMALL_JOKER_RANK, BIG_JOKER_RANK)


def core_reading(type_index: int, rank_code: int, size: int) -> Combo:
    """The interned reading the Cython core names by numbers: the type's index in :data:`TYPES`;
    the rank code (the rank index 0–12, 13 the small joker, 14 the big one; for sequences the
    lowest card's position, 1 A-low … 13; 0 for the joker bomb); the size."""
    type_ = TYPES[type_index]
    if type_ in SEQUENCE_TYPES:
        rank = SEQ_RANK_OF_POSITION[rank_code]
    elif type_ == "joker_bomb":
        rank = "JOKER"
    else:
        rank = _RANK_OF_CODE[rank_code]
    return combo(type_, rank, size)


def bind_core(module: ModuleType, move_class: type | None) -> Any:
    """The Cython core of ``module`` (``replay/_core.pyx``) bound to this engine's readings and to
    ``move_class`` for moves (None: readings only); its callers type it by the protocol they use."""
    return module.Core(core_reading, TYPES, CODE, CARDS, RANK_INDEX, move_class)


class _ReadingsCore(Protocol):
    """What :func:`readings` calls of the Cython core (``replay/_core.pyx``)."""

    def readings(self, cards: Sequence[str] | str, level: str) -> list[Combo] | None:
        """:func:`readings`; None where the Python reference must report bad input."""


def _readings_core() -> _ReadingsCore | None:
    """The core bound for readings, where the engine runs with it."""
    module = native.core()
    return None if module is None else bind_core(module, None)


_CORE = _readings_core()
"""The Cython core where the engine runs with it (``replay.native.core``), else None."""


def readings_of_codes(codes: Sequence[int], level: str) -> tuple[Combo, ...]:
    """:func:`readings` for card codes (no parsing); cached by the sorted codes and level."""
    key = (tuple(sorted(codes)), level_index(level))
    hit = _READINGS_CACHE.get(key)
    if hit is None:
        if len(_READINGS_CACHE) >= _CACHE_LIMIT:
            _READINGS_CACHE.clear()
        hit = _READINGS_CACHE[key] = _compute(*key) if 1 <= len(codes) <= 10 else ()
    return hit


def readings(cards: Sequence[str] | str, level: str) -> list[Combo]:
    """Every reading of the cards as one combination (rules.md §3), wild cards included.

    ``cards`` is a list of card strings or one space-separated string; ``level`` the deal's
    level rank. The result is deterministic, without duplicates, ordered weakest first (by
    :func:`sort_key`: §4 class, bomb size, type order of :data:`TYPES`, rank); ``[]`` when the
    cards form no combination. ``ValueError`` on an invalid card or level, or on more than two
    copies of one card.
    """
    if _CORE is not None:
        found = _CORE.readings(cards, level)
        if found is not None:
            return found
    key = (cards if isinstance(cards, str) else tuple(cards), level)
    hit = _INPUT_CACHE.get(key)
    if hit is None:
        if len(_INPUT_CACHE) >= _CACHE_LIMIT:
            _INPUT_CACHE.clear()
        hit = _INPUT_CACHE[key] = readings_of_codes(parse_cards(cards), level)
    return list(hit)
