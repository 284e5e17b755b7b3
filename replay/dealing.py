"""The start of a deal (rules.md §1, §2, §5.1): its number, declarers and level, the hands a
``deal_start`` shows (cards of two decks, 27 to a seat) and its leader. A hand the log does not
show stays unknown (None) and its seat is replayed by card counts alone.

A fault raises :class:`replay.faults.Fault` with the event's seq.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import Any

from replay.errors import ErrorCode
from replay.events import normalise_level
from replay.faults import fault
from replay.state import HAND_SIZE, DealState, MatchState
from schemas.vocabulary import CARDS, SEATS, WILD_SUIT

_CARD_SET = frozenset(CARDS)

Hands = dict[str, Counter[str] | None]
"""Per seat, the cards it holds as a multiset; None when the log does not show them."""
Dealt = dict[str, list[str] | None]
"""Per seat, the hand as the log lists it; None when not shown."""


def dealt_hands(seq: int, shown: dict[str, list[str]], known: set[str]) -> tuple[Hands, Dealt]:
    """The hands of ``deal_start.hands`` (seat → cards), each checked to hold 27 cards and the deal
    to hold no card more than twice (rules.md §1). The seats missing from ``shown`` are None and
    leave ``known``, the seats whose hands the match shows, as the check reaches them."""
    hands: Hands = {}
    dealt: Dealt = {}
    all_cards: list[str] = []
    for seat in SEATS:
        cards = shown.get(seat)
        if cards is None:
            hands[seat] = dealt[seat] = None
            known.discard(seat)
            continue
        if len(cards) != HAND_SIZE:
            raise fault(
                seq,
                ErrorCode.WRONG_HAND_SIZE,
                f"{seat}'s hand holds {len(cards)} cards; expected {HAND_SIZE}",
            )
        if not _CARD_SET.issuperset(cards):
            bad = next(c for c in cards if c not in _CARD_SET)
            raise fault(seq, ErrorCode.BAD_DECK, f"{seat}'s hand holds {bad!r}, not a card")
        hands[seat] = Counter(cards)
        dealt[seat] = list(cards)
        all_cards += cards
    deck = Counter(all_cards)
    if max(deck.values(), default=0) > 2:
        over = sorted(c for c, n in deck.items() if n > 2)
        raise fault(
            seq,
            ErrorCode.BAD_DECK,
            f"the hands hold {over[0]} {deck[over[0]]} times; two decks hold every card twice (rules.md §1)",
        )
    return hands, dealt


def open_deal(
    seq: int,
    ev: dict[str, Any],
    m: MatchState,
    extra: tuple[bool, bool],
    t: datetime | None,
    known: set[str],
) -> DealState:
    """The state of the deal a ``deal_start`` opens, once its number follows the deals played, its
    declarers are the previous deal's 1st team and its level theirs (rules.md §2), and its hands and
    leader check out. ``extra``: whether the deal is an extra deal (rules.md §7) and whether it is
    played by the first-deal rules, without declarers and with a leader drawn as for deal 1."""
    extra_deal, first_rules = extra
    no = ev["deal"]
    if no != m.deals_played + 1:
        raise fault(seq, ErrorCode.MALFORMED_FIELD, f"deal number {no}; expected {m.deals_played + 1}")
    declarers = None if first_rules else m.next_declarers
    if ev["declarers"] != declarers:
        why = (
            "the extra deal is played by the first-deal rules, rules.md §7"
            if first_rules
            else "the previous deal's 1st team, rules.md §2"
        )
        raise fault(
            seq, ErrorCode.WRONG_DECLARERS, f"declarers {ev['declarers']}; expected {declarers} ({why})"
        )
    level = normalise_level(ev["level"])
    assert level is not None
    allowed = [m.levels[declarers]] if declarers else sorted({m.levels["EW"], m.levels["NS"]})
    if level not in allowed:
        raise fault(
            seq,
            ErrorCode.WRONG_LEVEL,
            f"deal level {level}; expected {' or '.join(allowed)} (the declarers' level, rules.md §2)",
        )
    shown: dict[str, list[str]] = ev.get("hands") or {}
    hands, dealt = dealt_hands(seq, shown, known)
    leader = ev.get("leader")
    if first_rules and leader is None and shown:
        raise fault(
            seq,
            ErrorCode.MALFORMED_FIELD,
            "deal_start of the extra deal needs `leader`: it is played by the first-deal rules (rules.md §7)",
        )
    if no == 1 and m.prev_order is None and leader is None and shown:
        raise fault(
            seq,
            ErrorCode.MALFORMED_FIELD,
            "deal_start of the first deal needs `leader` (unless `start_state.previous_order` sets it)",
        )
    return DealState(
        no=no,
        level=level,
        declarers=declarers,
        seq=seq,
        hands=hands,
        dealt=dealt,
        counts=dict.fromkeys(SEATS, HAND_SIZE),
        claimed_leader=leader,
        started_at=t,
        levels_before=dict(m.levels),
        wild=WILD_SUIT + level,
        results_only=not shown,
        extra_deal=extra_deal,
        first_rules=first_rules,
    )
