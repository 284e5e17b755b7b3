"""Cards, seats and hands (rules.md §1–§2; notation of events.md "Cards").

A card is a two-character string: suit ``S H C D`` then rank ``2``–``9 T J Q K A``; the small
joker is ``SB`` and the big joker ``HR``. Internally a card is an int *code*: its index in
:data:`CARDS` (suit-major: ``S2``=0 … ``SA``=12, ``H2``=13 …, ``C2``=26 …, ``D2``=39 …,
``SB``=52, ``HR``=53). Canonical card order everywhere in the engine is code order.

A hand is a multiset (every card exists twice, §1); the helpers below work on
``collections.Counter`` of card strings so that callers (replayer, simulator) can check and
remove plays cheaply.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from schemas.vocabulary import BIG_JOKER as BIG_JOKER
from schemas.vocabulary import CARDS as CARDS
from schemas.vocabulary import JOKER_RANKS, WILD_SUIT
from schemas.vocabulary import RANKS as RANKS
from schemas.vocabulary import SMALL_JOKER as SMALL_JOKER
from schemas.vocabulary import SUITS as SUITS

SMALL_JOKER_CODE = 52
BIG_JOKER_CODE = 53
DECK: tuple[str, ...] = tuple(c for c in CARDS for _ in range(2))
"""The 108-card double deck, sorted in canonical order."""

CODE: dict[str, int] = {c: i for i, c in enumerate(CARDS)}
RANK_INDEX: dict[str, int] = {r: i for i, r in enumerate(RANKS)}

SMALL_JOKER_RANK = JOKER_RANKS[SMALL_JOKER]
BIG_JOKER_RANK = JOKER_RANKS[BIG_JOKER]
JOKER_RANK_VALUE = {SMALL_JOKER_RANK: 14, BIG_JOKER_RANK: 15}
"""Single-order values of the jokers; natural ranks are 0–12, the level rank 13 (see single_value)."""


def parse_card(s: object) -> int:
    """The code of card string ``s``; for anything else ``ValueError`` explains the notation."""
    code = CODE.get(s) if isinstance(s, str) else None
    if code is None:
        raise ValueError(
            f"invalid card {s!r}: expected suit S/H/C/D then rank 2-9,T,J,Q,K,A (e.g. 'S7', 'DT'), "
            "or 'SB' (small joker) / 'HR' (big joker)"
        )
    return code


def is_card(s: object) -> bool:
    """Whether ``s`` is a valid card string (anything else, even unhashable, is not)."""
    return isinstance(s, str) and s in CODE


def format_card(code: int) -> str:
    """The card string of a code."""
    return CARDS[code]


def card_list(cards: Sequence[str] | str) -> list[str]:
    """Cards given as a sequence of strings or one space/comma-separated string, validated."""
    if isinstance(cards, str):
        cards = cards.replace(",", " ").split()
    for c in cards:
        if c not in CODE:
            parse_card(c)
    return list(cards)


def parse_cards(cards: Sequence[str] | str) -> list[int]:
    """Codes of the cards (see :func:`card_list` for the accepted input)."""
    if isinstance(cards, str):
        cards = cards.replace(",", " ").split()
    try:
        return [CODE[c] for c in cards]
    except (KeyError, TypeError):
        for c in cards:
            parse_card(c)
        raise


def sort_cards(cards: Iterable[str]) -> tuple[str, ...]:
    """The cards in canonical (code) order: the engine's order of a set of cards, e.g. of a move;
    :func:`display_order` is the order a hand is shown in."""
    return tuple(sorted(cards, key=CODE.__getitem__))


def _display_keys(level: str | None) -> dict[str, int]:
    """The sort key of every card in :func:`display_order` at ``level``."""
    joker_rank = len(RANKS) + 1
    keys = {SMALL_JOKER: joker_rank * 8, BIG_JOKER: (joker_rank + 1) * 8}
    for card in CARDS[:SMALL_JOKER_CODE]:
        suit, rank = SUITS.index(card[0]), card[1]
        if rank == level:
            keys[card] = len(RANKS) * 8 + (len(SUITS) if card[0] == WILD_SUIT else suit)
        else:
            keys[card] = RANK_INDEX[rank] * 8 + suit
    return keys


_DISPLAY_KEYS: dict[str | None, dict[str, int]] = {level: _display_keys(level) for level in (None, *RANKS)}


def display_order(cards: Iterable[str], level: str | None = None) -> list[str]:
    """The cards low to high as a Guandan player holds them (rules.md §2): ranks 2 … A, the level
    rank after A (the wild heart level card last among them), then the small and the big joker;
    suits in the order S H C D within a rank. Without a ``level``, by natural rank. The order hands
    are logged and shown in (the simulator's ``deal_start``, the hand replayer page)."""
    keys = _DISPLAY_KEYS.get(level)
    if keys is None:
        raise ValueError(f"invalid level {level!r}: expected one of {' '.join(RANKS)}, or None")
    return sorted(cards, key=keys.__getitem__)


def level_index(level: str) -> int:
    """Rank index 0–12 of a level rank string; ``ValueError`` if it is not ``2``…``A``."""
    try:
        return RANK_INDEX[level]
    except (KeyError, TypeError):
        raise ValueError(f"invalid level {level!r}: expected one of {' '.join(RANKS)}") from None


def wild_code(level: str) -> int:
    """Code of the wild card at this level: the heart level card (rules.md §2)."""
    return 13 + level_index(level)


def is_wild(card: str, level: str | None) -> bool:
    """Whether the card is a heart level card (wild, 逢人配, rules.md §2); never without a level."""
    return level is not None and parse_card(card) == wild_code(level)


def wilds_in(cards: Sequence[str] | str, level: str) -> int:
    """Number of heart level cards (wilds) among the cards."""
    w = wild_code(level)
    return sum(1 for c in parse_cards(cards) if c == w)


def rank_of(card: str) -> str:
    """Rank character of a card: ``2``…``A``, or ``B``/``R`` for the small/big joker."""
    code = parse_card(card)
    if code == SMALL_JOKER_CODE:
        return SMALL_JOKER_RANK
    if code == BIG_JOKER_CODE:
        return BIG_JOKER_RANK
    return RANKS[code % 13]


def single_value(rank: str, level: str) -> int:
    """Single-card order value of a rank (rules.md §2): 2…A → 0…12 except the level rank → 13,
    small joker ``B`` → 14, big joker ``R`` → 15. Used for singles, pairs, triples, full houses
    and bombs (§4)."""
    if rank in JOKER_RANK_VALUE:
        return JOKER_RANK_VALUE[rank]
    i = RANK_INDEX.get(rank)
    if i is None:
        raise ValueError(f"invalid rank {rank!r}: expected 2-9, T, J, Q, K, A, B or R")
    return 13 if i == level_index(level) else i


def single_order(card: str, level: str) -> int:
    """Rank of ``card`` in the single-card order of §2 (higher is stronger; suits never matter)."""
    try:
        return _SINGLE_ORDER[level][card]
    except (KeyError, TypeError):
        return single_value(rank_of(card), level)


_SINGLE_ORDER: dict[str, dict[str, int]] = {
    level: {c: single_value(rank_of(c), level) for c in CARDS} for level in RANKS
}
"""``single_order`` of every card at every level, looked up on the hot paths (tribute checks)."""


def to_counter(cards: Iterable[str] | str) -> Counter[str]:
    """A hand multiset from card strings (validated)."""
    return Counter(card_list(cards if isinstance(cards, str) else list(cards)))


def has_cards(hand: Counter[str], cards: Iterable[str]) -> bool:
    """Whether the multiset ``hand`` contains every card of ``cards`` (with multiplicity)."""
    need = Counter(cards)
    return all(hand.get(c, 0) >= n for c, n in need.items())


def missing_cards(hand: Counter[str], cards: Iterable[str]) -> list[str]:
    """The cards of ``cards`` that ``hand`` cannot supply (with multiplicity), canonical order."""
    need = Counter(cards)
    out: list[str] = []
    for c, n in need.items():
        out.extend([c] * max(0, n - hand.get(c, 0)))
    return list(sort_cards(out))


def remove_cards(hand: Counter[str], cards: Iterable[str]) -> None:
    """Remove ``cards`` from ``hand`` in place; ``ValueError`` (hand unchanged) if one is missing."""
    cards = list(cards)
    missing = missing_cards(hand, cards)
    if missing:
        raise ValueError(f"cards not in hand: {' '.join(missing)}")
    for c in cards:
        left = hand[c] - 1
        if left:
            hand[c] = left
        else:
            del hand[c]


def highest_tribute_card(hand: Iterable[str] | str, level: str) -> str:
    """The card a tributer must pay (rules.md §6): the highest single card, heart level cards
    excluded. Suits do not matter, so of the cards of that rank the first in canonical order
    (spades, hearts, clubs, diamonds) is returned. ``ValueError`` if no card qualifies."""
    candidates = tribute_candidates(hand, level)
    if not candidates:
        raise ValueError("no card can be paid as tribute (the hand holds only heart level cards)")
    return sort_cards(candidates)[0]


def tribute_candidates(hand: Iterable[str] | str, level: str) -> set[str]:
    """Every card a tributer may legally pay (§6): the cards of the highest single rank in the
    hand, heart level cards excluded (any suit of that rank)."""
    w = wild_code(level)
    cards = [c for c in card_list(hand if isinstance(hand, str) else list(hand)) if CODE[c] != w]
    if not cards:
        return set()
    best = max(single_order(c, level) for c in cards)
    return {c for c in cards if single_order(c, level) == best}
