"""Layouts of the unseen cards consistent with what one player has seen (single-dummy sampling).

A :class:`PlayerView` is what the player to move knows at a decision: their own hand, how many
cards every seat holds, the pool of cards they cannot see (every card not in their hand and not
yet played: the other three hands together), and what the tribute phase told them (rules.md §6):

- a card they paid (tribute) or returned to a seat is known to be in that seat's hand, less the
  copies of it that seat has played since (the other copy of a card may have been played instead,
  so this is a lower bound, never a guess);
- the tribute they received was the payer's highest single card, heart level cards excluded: the
  payer held nothing above it, so no unseen card above it (heart level cards aside) is dealt to the
  payer. The card they returned to the payer is known (above) and may be higher.

Nothing else is inferred: a player may pass while able to beat (rules.md §5.3), so passes say
nothing about a hand; which tributes the other seats paid or received is not assumed public.

:func:`sample_layouts` deals the pool at random to the other seats, each to its card count, the
known cards first where they are known to be, then the cards barred from the payer among the two
other seats (each to a seat chosen with probability proportional to its free places), then the
rest shuffled. The same ``seed`` gives the same layouts. Pure: no I/O.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from replay.cards import single_order, sort_cards
from replay.seats import SEATS
from replay.solver import Position


@dataclass(frozen=True, slots=True)
class PlayerView:
    """What ``seat`` knows at one decision (module docstring): its ``hand``, every seat's card
    ``counts``, the ``unseen`` pool (the other seats' cards together, canonical order), the cards
    ``known`` to be in a given seat's hand, and per seat the cards ``barred`` from being dealt to it."""

    seat: str
    hand: tuple[str, ...]
    counts: Mapping[str, int]
    unseen: tuple[str, ...]
    known: Mapping[str, tuple[str, ...]]
    barred: Mapping[str, frozenset[str]]


def view_of(
    position: Position,
    *,
    given: Mapping[str, Sequence[str]] | None = None,
    played: Mapping[str, Sequence[str]] | None = None,
    tribute_from: tuple[str, str] | None = None,
) -> PlayerView:
    """The view of the player to move in ``position`` (its hands are the true ones, from the log).

    ``given``: seat → the cards the player paid or returned to that seat in this deal's tribute
    phase; ``played``: seat → the cards that seat has played in this deal; ``tribute_from``: the
    (payer, card) of the tribute the player received, if any (rules.md §6)."""
    seat = position.turn
    others = [s for s in SEATS if s != seat]
    played = played or {}
    known: dict[str, tuple[str, ...]] = {}
    for s, cards in (given or {}).items():
        left = Counter(cards) - Counter(played.get(s, ()))
        held = Counter(position.hands[s])
        sure = Counter({c: min(n, held[c]) for c, n in left.items()})
        if +sure:
            known[s] = sort_cards(sure.elements())
    barred: dict[str, frozenset[str]] = {}
    if tribute_from is not None:
        payer, card = tribute_from
        top = single_order(card, position.level)
        wild = "H" + position.level
        pool = {c for s in others for c in position.hands[s]}
        barred[payer] = frozenset(c for c in pool if c != wild and single_order(c, position.level) > top)
    return PlayerView(
        seat=seat,
        hand=tuple(position.hands[seat]),
        counts={s: len(position.hands[s]) for s in SEATS},
        unseen=sort_cards(c for s in others for c in position.hands[s]),
        known=known,
        barred=barred,
    )


def sample_layouts(position: Position, view: PlayerView, n: int, seed: int) -> list[Position]:
    """``n`` positions equal to ``position`` except the other seats' hands, dealt at random from
    ``view`` (module docstring); the same ``seed`` gives the same list. ``ValueError`` when the
    view admits no layout (it then contradicts itself)."""
    rng = random.Random(seed)
    return [_deal(position, view, rng) for _ in range(n)]


def _deal(position: Position, view: PlayerView, rng: random.Random) -> Position:
    others = [s for s in SEATS if s != view.seat]
    pool = list(view.unseen)
    hands: dict[str, list[str]] = {s: [] for s in others}
    for s, cards in view.known.items():
        for c in cards:
            pool.remove(c)
            hands[s].append(c)
    free = {s: view.counts[s] - len(hands[s]) for s in others}
    rng.shuffle(pool)
    barred: set[str] = set().union(*view.barred.values())
    rest = [c for c in pool if c not in barred]
    for c in (c for c in pool if c in barred):
        allowed = [s for s in others if free[s] > 0 and c not in view.barred.get(s, ())]
        if not allowed:
            rest.append(c)
            continue
        s = rng.choices(allowed, weights=[free[a] for a in allowed])[0]
        hands[s].append(c)
        free[s] -= 1
    for s in others:
        if free[s] < 0:
            raise ValueError(f"the view of {view.seat} admits no layout (seat {s} is overfull)")
        hands[s].extend(rest[: free[s]])
        del rest[: free[s]]
    for s, dealt in hands.items():
        if set(dealt) & view.barred.get(s, frozenset()):
            raise ValueError(f"the view of {view.seat} admits no layout (seat {s} must take a barred card)")
    full: dict[str, tuple[str, ...]] = {s: sort_cards(hands[s]) for s in others}
    full[view.seat] = tuple(position.hands[view.seat])
    return Position(
        hands=full,
        level=position.level,
        ruleset=position.ruleset,
        turn=position.turn,
        table=position.table,
        table_seat=position.table_seat,
        passes=position.passes,
        out=position.out,
    )
