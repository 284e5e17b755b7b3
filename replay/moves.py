"""Legal moves from a hand and the fast "can this hand beat that?" test (rules.md §3–§5).

Moves are generated per combination type from rank counts, never by enumerating subsets of the
hand: for each candidate reading the natural cards are chosen per rank (every distinct
sub-multiset of that rank's cards) and the rest is filled with wilds. A card multiset determines
which positions its natural cards fill, so each (cards, reading) pair is produced exactly once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import product
from typing import Protocol

from replay import native
from replay.cards import (
    BIG_JOKER_CODE,
    CARDS,
    RANK_INDEX,
    RANKS,
    SMALL_JOKER_CODE,
    level_index,
    parse_card,
    parse_cards,
)
from replay.combos import (
    SEQ_RANK_OF_POSITION,
    TYPES,
    BeatKey,
    Combo,
    beat_key,
    bind_core,
    combo,
    rank_value,
    strength_class,
)


@dataclass(frozen=True, slots=True)
class Move:
    """A legal play: the cards (canonical order) and the reading they are played as."""

    cards: tuple[str, ...]
    combo: Combo


_SUBSETS: dict[tuple[tuple[int, int], ...], list[list[tuple[int, ...]]]] = {}


def _subsets(items: tuple[tuple[int, int], ...]) -> list[list[tuple[int, ...]]]:
    """Distinct sub-multisets of ``items`` ((code, multiplicity) pairs) grouped by size."""
    hit = _SUBSETS.get(items)
    if hit is None:
        total = sum(m for _, m in items)
        hit = [[] for _ in range(total + 1)]
        for choice in product(*(range(m + 1) for _, m in items)):
            picked: tuple[int, ...] = ()
            for (code, _), k in zip(items, choice, strict=True):
                picked += (code,) * k
            hit[len(picked)].append(picked)
        _SUBSETS[items] = hit
    return hit


class _Hand:
    """Rank counts of a hand: natural cards per rank, wilds and jokers (wild = heart level card),
    the number of cards (``size``: no combination needs more cards than the hand holds) and per
    suit the bit set of the natural ranks it holds (``suit_ranks``: straight flushes)."""

    __slots__ = ("by_rank", "hr", "lv", "nat", "sb", "size", "suit_ranks", "w", "wc")

    def __init__(self, codes: Sequence[int], lv: int) -> None:
        self.lv = lv
        self.wc = wc = 13 + lv
        self.size = n = len(codes)
        ordered = sorted(codes)
        by_rank: list[tuple[tuple[int, int], ...]] = [()] * 13
        nat = [0] * 13
        suit_ranks = [0, 0, 0, 0]
        w = sb = hr = 0
        i = 0
        while i < n:
            c = ordered[i]
            k = 1
            while i + k < n and ordered[i + k] == c:
                k += 1
            if k > 2:
                extra = ", ".join(CARDS[x] for x, copies in sorted(Counter(codes).items()) if copies > 2)
                raise ValueError(f"impossible hand: more than two copies of {extra} (a double deck has two)")
            i += k
            if c == wc:
                w = k
            elif c == SMALL_JOKER_CODE:
                sb = k
            elif c == BIG_JOKER_CODE:
                hr = k
            else:
                r = c % 13
                by_rank[r] = (*by_rank[r], (c, k))
                nat[r] += k
                suit_ranks[c // 13] |= 1 << r
        self.w, self.sb, self.hr = w, sb, hr
        self.by_rank = by_rank
        self.nat = nat
        self.suit_ranks = suit_ranks

    def value(self, r: int) -> int:
        """Single-order value of rank index ``r`` (§2)."""
        return 13 if r == self.lv else r

    def subsets(self, r: int, k: int) -> list[tuple[int, ...]]:
        """Distinct choices of ``k`` natural cards of rank ``r``."""
        if k > self.nat[r]:
            return []
        if k == 0:
            return [()]
        return _subsets(self.by_rank[r])[k]


def _rank_at(position: int) -> int:
    """Rank index at a natural sequence position (1 and 14 are both A)."""
    return 12 if position == 1 else position - 2


_FLUSH_RANKS: dict[int, tuple[tuple[int, ...], int]] = {
    start: (ranks, sum(1 << r for r in ranks))
    for start in range(1, 11)
    for ranks in [tuple(_rank_at(p) for p in range(start, start + 5))]
}
"""Per straight start position (1–10): the rank indices of its five cards and their bit set."""


_MOVES: dict[tuple[tuple[int, ...], Combo], Move] = {}
"""Interned moves by (sorted codes, reading): hands repeat plays across calls (bounded)."""
_MOVES_LIMIT = 1 << 19
_CARD = CARDS.__getitem__


def _move(codes: tuple[int, ...], c: Combo) -> Move:
    """The (interned) move playing these card codes as reading ``c``."""
    key = (tuple(sorted(codes)), c)
    m = _MOVES.get(key)
    if m is None:
        if len(_MOVES) >= _MOVES_LIMIT:
            _MOVES.clear()
        m = _MOVES[key] = Move(tuple(map(_CARD, key[0])), c)
    return m


# ---- generators, one per type; ``above`` is the rank value to exceed (-1: any) -------------------


def _same_rank(h: _Hand, n: int, type_: str, above: int) -> Iterator[Move]:
    """Singles, pairs, triples (n = 1, 2, 3) of a natural rank plus wilds, and joker ones."""
    wilds = (h.wc,)
    held, lv, w = h.nat, h.lv, h.w
    for r in range(13):
        if (held[r] == 0 and r != lv) or held[r] + w < n or h.value(r) <= above:
            continue
        c = combo(type_, RANKS[r])
        for u in range(min(w, n) + 1):
            k = n - u
            if k == 0 and r != h.lv:
                continue
            for nat in h.subsets(r, k):
                yield _move(nat + wilds * u, c)
    if n <= 2:
        for code, count, rank, value in ((SMALL_JOKER_CODE, h.sb, "B", 14), (BIG_JOKER_CODE, h.hr, "R", 15)):
            if count >= n and value > above:
                yield _move((code,) * n, combo(type_, rank))


def _triple_parts(h: _Hand, r: int) -> list[tuple[tuple[int, ...], int]]:
    """(cards, wilds used) for a triple of rank ``r`` (at least one natural card)."""
    return [(nat + (h.wc,) * u, u) for u in range(min(h.w, 2) + 1) for nat in h.subsets(r, 3 - u)]


def _full_houses(h: _Hand, above: int, joker_pair: bool) -> Iterator[Move]:
    """Full houses: a triple (compared, §4) plus a pair of another rank or, if allowed, of jokers."""
    if h.size < 5:
        return
    wc = h.wc
    by_rank = [
        [(nat + (wc,) * u, u) for u in range(min(h.w, 1) + 1) for nat in h.subsets(p, 2 - u)]
        for p in range(13)
    ]
    extra: list[tuple[tuple[int, ...], int]] = []
    if h.w == 2:
        extra.append(((wc, wc), 2))
    if joker_pair:
        if h.sb == 2:
            extra.append(((SMALL_JOKER_CODE,) * 2, 0))
        if h.hr == 2:
            extra.append(((BIG_JOKER_CODE,) * 2, 0))
    for t in range(13):
        if h.value(t) <= above or h.nat[t] == 0:
            continue
        c = combo("full_house", RANKS[t])
        triples = _triple_parts(h, t)
        if not triples:
            continue
        pairs = [pair for p in range(13) if p != t for pair in by_rank[p]] + extra
        for tri, ut in triples:
            for pair, up in pairs:
                if ut + up <= h.w:
                    yield _move(tri + pair, c)


def _sequences(h: _Hand, type_: str, width: int, length: int, above: int) -> Iterator[Move]:
    """Tubes (width 2, length 3) and plates (width 3, length 2): consecutive groups of one rank."""
    if h.size < width * length:
        return
    wc = h.wc
    for start in range(1, 16 - length):
        if start <= above:
            continue
        c = combo(type_, SEQ_RANK_OF_POSITION[start])
        options = []
        for pos in range(start, start + length):
            r = _rank_at(pos)
            opts = [
                (nat + (wc,) * u, u) for u in range(min(h.w, width) + 1) for nat in h.subsets(r, width - u)
            ]
            if not opts:
                break
            options.append(opts)
        else:
            for choice in product(*options):
                if sum(u for _, u in choice) <= h.w:
                    yield _move(sum((cards for cards, _ in choice), ()), c)


def _straights(h: _Hand, above: int) -> Iterator[Move]:
    """Plain straights starting above position ``above``: per rank any natural card or a wild.
    Five one-suit naturals without a wild are a straight flush only (§3), so they are skipped."""
    if h.size < 5:
        return
    wc = h.wc
    for start in range(max(1, above + 1), 11):
        options = []
        for pos in range(start, start + 5):
            opts = [code for code, _ in h.by_rank[_rank_at(pos)]]
            if h.w:
                opts.append(wc)
            if not opts:
                break
            options.append(opts)
        else:
            c = combo("straight", SEQ_RANK_OF_POSITION[start])
            for choice in product(*options):
                u = choice.count(wc)
                if u > h.w:
                    continue
                if u or len({x // 13 for x in choice}) > 1:
                    yield _move(choice, c)


def _flushes(h: _Hand, above: int) -> Iterator[Move]:
    """Straight flushes starting above position ``above``: per suit, each rank its card of that
    suit or a wild (at most the hand's wilds)."""
    if h.size < 5:
        return
    wc, w = h.wc, h.w
    suits = [(s, held) for s, held in enumerate(h.suit_ranks) if held.bit_count() + w >= 5]
    for start in range(max(1, above + 1), 11):
        if not suits:
            return
        ranks, window = _FLUSH_RANKS[start]
        c = combo("straight_flush", SEQ_RANK_OF_POSITION[start])
        for s, held in suits:
            if 5 - (held & window).bit_count() > w:
                continue
            options = [(s * 13 + r, wc) if held >> r & 1 else (wc,) for r in ranks]
            for choice in product(*options):
                if choice.count(wc) <= h.w:
                    yield _move(choice, c)


def _bombs(h: _Hand, min_size: int, above_at_min: int) -> Iterator[Move]:
    """Bombs of ``min_size`` or more cards; those of exactly ``min_size`` must rank above ``above_at_min``."""
    if h.size < 4:
        return
    wc = h.wc
    for r in range(13):
        if h.nat[r] < 2:
            continue
        v = h.value(r)
        for u in range(h.w + 1):
            for k in range(max(2, min_size - u, 4 - u), h.nat[r] + 1):
                size = k + u
                if size == min_size and v <= above_at_min:
                    continue
                c = combo("bomb", RANKS[r], size)
                for nat in h.subsets(r, k):
                    yield _move(nat + (wc,) * u, c)


def _joker_bomb(h: _Hand) -> Iterator[Move]:
    """The joker bomb, when the hand holds all four jokers."""
    if h.sb == 2 and h.hr == 2:
        yield _move((SMALL_JOKER_CODE,) * 2 + (BIG_JOKER_CODE,) * 2, combo("joker_bomb", "JOKER"))


def _generate(h: _Hand, table: Combo | None, level: str, joker_pair: bool) -> Iterator[Move]:
    """Leading: every type. Following: the table's type above its rank, then the bomb classes (§4)."""
    if table is None:
        yield from _same_rank(h, 1, "single", -1)
        yield from _same_rank(h, 2, "pair", -1)
        yield from _same_rank(h, 3, "triple", -1)
        yield from _full_houses(h, -1, joker_pair)
        yield from _straights(h, 0)
        yield from _sequences(h, "tube", 2, 3, 0)
        yield from _sequences(h, "plate", 3, 2, 0)
        yield from _bombs(h, 4, -1)
        yield from _flushes(h, 0)
        yield from _joker_bomb(h)
        return
    cls = strength_class(table)
    v = rank_value(table, level)
    if cls == 0:
        t = table.type
        if t in ("single", "pair", "triple"):
            yield from _same_rank(h, ("single", "pair", "triple").index(t) + 1, t, v)
        elif t == "full_house":
            yield from _full_houses(h, v, joker_pair)
        elif t == "straight":
            yield from _straights(h, v)
        elif t == "tube":
            yield from _sequences(h, "tube", 2, 3, v)
        else:
            yield from _sequences(h, "plate", 3, 2, v)
        yield from _bombs(h, 4, -1)
        yield from _flushes(h, 0)
    elif cls in (1, 2):
        yield from _bombs(h, 3 + cls, v)
        yield from _flushes(h, 0)
    elif cls == 3:
        yield from _bombs(h, 6, -1)
        yield from _flushes(h, v)
    elif cls == 4:
        yield from _bombs(h, table.size, v)
    if cls < 5:
        yield from _joker_bomb(h)


def legal_moves(
    hand: Sequence[str] | str, level: str, table: Combo | None, *, full_house_joker_pair: bool = True
) -> list[Move]:
    """Every distinct legal play from ``hand`` (rules.md §3–§5): leading when ``table`` is None,
    else every play whose reading beats ``table`` (§4). Passing is not a move.

    Distinct: no two moves share the card multiset and the reading; the same cards appear once per
    reading they can be played as. Order: by type (singles, pairs, triples, full houses, straights,
    tubes, plates, bombs, straight flushes, joker bomb), then rank — deterministic for a hand.
    ``full_house_joker_pair`` is the ruleset parameter of the same name (§10).
    """
    found = None if _CORE is None else core_legal_moves(_CORE, hand, level, table, full_house_joker_pair)
    if found is None:
        found = reference_legal_moves(hand, level, table, full_house_joker_pair)
    return found


def reference_legal_moves(
    hand: Sequence[str] | str, level: str, table: Combo | None, full_house_joker_pair: bool
) -> list[Move]:
    """:func:`legal_moves` by the Python engine: the reference the Cython core is checked against,
    and what runs without it (and reports bad input)."""
    h = _Hand(parse_cards(hand), level_index(level))
    return list(_generate(h, table, level, full_house_joker_pair))


class NativeProbe(Protocol):
    """The Cython core's :class:`BeatProbe`."""

    def beats_key(self, key: BeatKey) -> bool:
        """:meth:`BeatProbe.beats_key`."""


class MovesCore(Protocol):
    """What :func:`legal_moves` and :class:`BeatProbe` call of the Cython core (``replay/_core.pyx``)."""

    def probe(
        self, hand: Sequence[str] | str | Mapping[str, int], lv: int, joker_pair: bool
    ) -> NativeProbe | None:
        """A probe of the hand at level index ``lv``; None where the Python reference must report
        bad input."""

    def legal_moves(
        self,
        hand: Sequence[str] | str,
        lv: int,
        table_type: int,
        table_value: int,
        table_size: int,
        joker_pair: bool,
    ) -> list[Move] | None:
        """The moves at level index ``lv``, leading (``table_type`` -1) or following the table of
        that type index, rank value and size; None where the Python reference must report bad
        input."""


def core_legal_moves(
    core: MovesCore, hand: Sequence[str] | str, level: str, table: Combo | None, joker_pair: bool
) -> list[Move] | None:
    """:func:`legal_moves` by ``core``; None where the Python reference must run instead."""
    lv = RANK_INDEX.get(level) if isinstance(level, str) else None
    if lv is None:
        return None
    if table is None:
        return core.legal_moves(hand, lv, -1, 0, 0, joker_pair)
    value = rank_value(table, level)
    return core.legal_moves(hand, lv, _TYPE_INDEX[table.type], value, table.size, joker_pair)


_TYPE_INDEX = {t: i for i, t in enumerate(TYPES)}
"""Each type id's index in ``TYPES``: how the core names a table's type."""


def _moves_core() -> MovesCore | None:
    """The core bound for moves and probes, where the engine runs with it."""
    module = native.core()
    return None if module is None else bind_core(module, Move)


_CORE = _moves_core()
"""The Cython core where the engine runs with it (``replay.native.core``), else None."""


# ---- can_beat: the same questions answered from counts alone ----------------------------------

_POSITION_BITS = tuple((1 << 1) | (1 << 14) if r == 12 else 1 << (r + 2) for r in range(13))
"""Bit of each rank index in a suit's sequence-position mask (A sets positions 1 and 14)."""
_FLUSH_WINDOWS = tuple((start, 0b11111 << start) for start in range(1, 11))


_WILD_SLOT, _SMALL_SLOT, _BIG_SLOT = 13, 14, 15
"""Count slots after the 13 natural ranks: wilds, small jokers, big jokers."""


def _card_slots(lv: int) -> dict[str, tuple[int, int, int]]:
    """Per card string at level index ``lv``: count slot (rank index, or a slot above), suit index
    and sequence-position bits; wilds and jokers get suit 4 and no bits (they fill no suit mask)."""
    slots = {CARDS[c]: (c % 13, c // 13, _POSITION_BITS[c % 13]) for c in range(SMALL_JOKER_CODE)}
    slots[CARDS[13 + lv]] = (_WILD_SLOT, 4, 0)
    slots[CARDS[SMALL_JOKER_CODE]] = (_SMALL_SLOT, 4, 0)
    slots[CARDS[BIG_JOKER_CODE]] = (_BIG_SLOT, 4, 0)
    return slots


_SLOTS: tuple[dict[str, tuple[int, int, int]], ...] = tuple(_card_slots(lv) for lv in range(13))
""":func:`_card_slots` per level index: one lookup per card, no branching on its kind."""


class _Counts:
    """What can_beat needs: natural counts per rank, per-suit position masks, wilds and jokers."""

    __slots__ = ("hr", "lv", "masks", "nat", "sb", "w")

    def __init__(self, counted: Iterable[tuple[str, int]], lv: int) -> None:
        """``counted``: (card, copies) pairs of the hand, each card once."""
        slots = _SLOTS[lv]
        counts = [0] * 16
        masks = [0, 0, 0, 0, 0]
        for card, n in counted:
            if not 0 < n <= 2:
                if n > 2:
                    raise ValueError(
                        f"impossible hand: more than two copies of {card} (a double deck has two)"
                    )
                continue
            try:
                slot, suit, bits = slots[card]
            except (KeyError, TypeError):
                parse_card(card)
                raise
            counts[slot] += n
            masks[suit] |= bits
        self.lv, self.nat, self.masks = lv, counts[:13], masks[:4]
        self.w, self.sb, self.hr = counts[_WILD_SLOT], counts[_SMALL_SLOT], counts[_BIG_SLOT]


def _counted(hand: Sequence[str] | str | Mapping[str, int]) -> Iterable[tuple[str, int]]:
    """(card, copies) pairs of a hand given as cards or as a card multiset (``Counter``)."""
    if isinstance(hand, Mapping):
        return hand.items()
    if isinstance(hand, str):
        hand = hand.replace(",", " ").split()
    try:
        return Counter(hand).items()
    except TypeError:
        parse_cards(hand)
        raise


_FLUSH_STARTS: dict[int, int] = {}
"""Memo of :func:`_flush_starts` by ``mask | need << 16`` (a suit mask takes at most 2^13 values)."""


def _flush_starts(mask: int, need: int) -> int:
    """Bit ``s`` set for each window start ``s`` (1–10) holding ``need`` or more cards of ``mask``."""
    key = mask | need << 16
    starts = _FLUSH_STARTS.get(key)
    if starts is None:
        starts = _FLUSH_STARTS[key] = sum(
            1 << start for start, window in _FLUSH_WINDOWS if (mask & window).bit_count() >= need
        )
    return starts


def _has_flush(h: _Counts, above: int) -> bool:
    need = 5 - h.w
    shift = above + 1
    return any(_flush_starts(m, need) >> shift for m in h.masks)


def _has_group_sequence(h: _Counts, width: int, length: int, above: int) -> bool:
    nat = h.nat
    for start in range(max(1, above + 1), 16 - length):
        need = 0
        for pos in range(start, start + length):
            n = nat[12 if pos == 1 else pos - 2]
            if n < width:
                need += width - n
        if need <= h.w:
            return True
    return False


def _has_same_type(h: _Counts, t: str, v: int, joker_pair: bool) -> bool:
    nat, lv, w = h.nat, h.lv, h.w
    if t in ("single", "pair", "triple"):
        n = ("single", "pair", "triple").index(t) + 1
        for r in range(13):
            if (13 if r == lv else r) > v and (nat[r] >= 1 or r == lv) and nat[r] + w >= n:
                return True
        return n <= 2 and ((h.sb >= n and v < 14) or (h.hr >= n and v < 15))
    if t == "full_house":
        for tr in range(13):
            if (13 if tr == lv else tr) <= v or nat[tr] == 0:
                continue
            spare = w - max(0, 3 - nat[tr])
            if spare < 0:
                continue
            if spare >= 2 or (joker_pair and (h.sb == 2 or h.hr == 2)):
                return True
            if any(p != tr and nat[p] >= 1 and nat[p] + spare >= 2 for p in range(13)):
                return True
        return False
    if t == "straight":
        return _has_group_sequence(h, 1, 5, v)
    if t == "tube":
        return _has_group_sequence(h, 2, 3, v)
    return _has_group_sequence(h, 3, 2, v)


class BeatProbe:
    """A hand prepared once for many "can it beat this table?" questions (§4), from counts alone.

    The counts and the facts that do not depend on the table (its bombs, the joker bomb, whether
    it holds any straight flush) are worked out once, so the replayer, which asks at every pass
    of a seat until the seat plays again, pays only the comparison with each table.
    """

    __slots__ = ("_big_bomb", "_bombs", "_flush", "_h", "_joker_bomb", "_joker_pair", "_level", "_native")

    def __init__(
        self, hand: Sequence[str] | str | Mapping[str, int], level: str, *, full_house_joker_pair: bool = True
    ) -> None:
        """``hand``: cards as in :func:`can_beat`, or a card multiset such as a ``Counter``. With
        the Cython core, the probe is the core's (the fields below stay unset)."""
        lv = level_index(level)
        self._level = level
        self._native = None if _CORE is None else _CORE.probe(hand, lv, full_house_joker_pair)
        if self._native is not None:
            return
        h = self._h = _Counts(_counted(hand), lv)
        self._joker_pair = full_house_joker_pair
        self._joker_bomb = h.sb == 2 and h.hr == 2
        w = h.w
        self._bombs = [(n + w, 13 if r == lv else r) for r, n in enumerate(h.nat) if n >= 2 and n + w >= 4]
        """(largest bomb size, rank value) per rank that can bomb: two naturals at least, 4+ cards."""
        self._big_bomb = bool(self._bombs) and max(self._bombs)[0] >= 6
        self._flush: bool | None = None
        """Whether any straight flush can be formed; computed on first need."""

    def beats(self, table: Combo) -> bool:
        """Whether some play from the hand beats ``table`` (§4)."""
        return self.beats_key(beat_key(table, self._level))

    def beats_key(self, key: BeatKey) -> bool:
        """:meth:`beats` for a table given by its ``replay.combos.beat_key`` at the probe's level
        (the replayer keeps each table's key, so it is worked out once per table)."""
        if self._native is not None:
            return self._native.beats_key(key)
        cls, family, v = key
        if cls == 5:
            return False
        if self._joker_bomb:
            return True
        bombs = self._bombs
        if cls == 4:
            return any(size * 32 + bv > v for size, bv in bombs)
        if self._big_bomb:
            return True
        h = self._h
        if cls == 3:
            return _has_flush(h, v)
        if self._flush is None:
            self._flush = _has_flush(h, 0)
        if self._flush:
            return True
        if cls == 2:
            return any(size == 5 and bv > v for size, bv in bombs)
        if cls == 1:
            return any(size == 5 or bv > v for size, bv in bombs)
        if bombs:
            return True
        return _has_same_type(h, family, v, self._joker_pair)


def can_beat(
    hand: Sequence[str] | str, level: str, table: Combo, *, full_house_joker_pair: bool = True
) -> bool:
    """Whether some play from ``hand`` beats ``table`` (§4), from rank counts only.

    Agrees with ``bool(legal_moves(hand, level, table))`` without enumerating the moves. For many
    tables against one hand, build a :class:`BeatProbe` once instead.
    """
    return BeatProbe(hand, level, full_house_joker_pair=full_house_joker_pair).beats(table)
