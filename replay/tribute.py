"""The tribute phase of a deal (rules.md §6, §10): tribute, anti-tribute, return, and who leads.

One :class:`TributePhase` per deal checks each ``tribute`` / ``anti_tribute`` / ``return`` event
against the ruleset's parameters (never its id) and, when play starts, says which seats may lead.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from replay.cards import is_card, rank_of, single_order, tribute_candidates
from replay.errors import ErrorCode, ReplayError
from replay.rulesets import ReturnRule, Ruleset
from replay.state import DealState
from schemas.vocabulary import (
    BIG_JOKER,
    JOKER_RANKS,
    NEXT,
    OTHER_TEAM,
    PARTNER,
    PREV,
    RANK_VALUE,
    SEATS,
    TEAM,
    TEAM_SEATS,
)

_JOKER_RANKS = frozenset(JOKER_RANKS.values())


@dataclass(slots=True)
class Payment:
    """One tribute paid and, once made, its return."""

    seq: int
    giver: str
    receiver: str
    card: str
    return_card: str | None = None


def return_allowed(
    card: str, hand: Counter[str] | None, level: str, rule: ReturnRule, tribute_card: str, to_partner: bool
) -> bool:
    """Whether ``card`` may be returned (rules.md §6 table, §10) by a hand holding ``hand``
    (the receiver's hand after the tribute; ``None`` when unknown, then only the card is judged)."""
    if rule.applies_to == "partner_only" and not to_partner:
        return True
    limit = RANK_VALUE[rule.max_rank]

    def fits(c: str) -> bool:
        rank = rank_of(c)
        if rank in _JOKER_RANKS or RANK_VALUE[rank] > limit:
            return False
        if rule.exclude_level_cards and rank == level:
            return False
        return not (rule.not_tribute_card and c == tribute_card)

    if fits(card):
        return True
    if hand is None:
        return True
    if any(fits(c) for c in hand):
        return False
    if not rule.fallback_lowest:
        return True
    lowest = min(single_order(c, level) for c in hand)
    return single_order(card, level) == lowest


class TributePhase:
    """The tribute phase of one deal, from the previous deal's finishing order."""

    def __init__(self, ruleset: Ruleset, deal: DealState, due: str, prev_order: list[str] | None) -> None:
        self.ruleset = ruleset
        self.deal = deal
        self.due = due
        """``none`` (first deal, after a foul), ``single`` or ``double``."""
        self.first = prev_order[0] if prev_order else None
        self.fourth: str | None = None
        self.givers: tuple[str, ...] = ()
        self.receivers: tuple[str, ...] = ()
        if due == "single" and prev_order:
            rest = [s for s in SEATS if s not in prev_order[:3]]
            fourth = self.fourth = prev_order[3] if len(prev_order) == 4 else rest[0]
            self.givers, self.receivers = (fourth,), (prev_order[0],)
        elif due == "double" and prev_order:
            self.givers = TEAM_SEATS[OTHER_TEAM[TEAM[prev_order[0]]]]
            self.receivers = (prev_order[0], prev_order[1])
            self.fourth = prev_order[3] if len(prev_order) == 4 else None
        self.payments: list[Payment] = []
        self.anti_seats: list[str] | None = None
        self.anti_due = self._anti_due()

    def _anti_due(self) -> bool | None:
        """Whether the givers hold both big jokers (rules.md §6 resistance); None when a hand is unknown."""
        if not self.givers:
            return False
        total = 0
        for s in self.givers:
            hand = self.deal.hands[s]
            if hand is None:
                return None
            total += hand.get(BIG_JOKER, 0)
        return total >= 2

    def _error(self, seq: int, code: ErrorCode, message: str) -> ReplayError:
        return ReplayError(seq, code, message)

    def on_anti(self, seq: int, seats: list[str]) -> ReplayError | None:
        """An ``anti_tribute`` event: the givers show both big jokers and pay nothing."""
        if self.due == "none" or self.anti_seats is not None:
            return self._error(
                seq,
                ErrorCode.UNEXPECTED_TRIBUTE,
                "no tribute is due in this deal, so no "
                "anti-tribute either (first deal, after a foul, or already resisted)",
            )
        if self.payments:
            return self._error(seq, ErrorCode.EVENT_OUT_OF_PLACE, "anti_tribute after a tribute was paid")
        if not set(seats) <= set(self.givers):
            return self._error(
                seq,
                ErrorCode.BAD_ANTI_TRIBUTE,
                f"anti-tribute seats {seats} are not among the tributers {list(self.givers)}",
            )
        if self.anti_due is False:
            return self._error(
                seq,
                ErrorCode.BAD_ANTI_TRIBUTE,
                f"tributers {list(self.givers)} do not hold both big jokers (rules.md §6)",
            )
        self.anti_seats = list(seats)
        return None

    def on_tribute(self, seq: int, giver: str, receiver: str, card: str) -> ReplayError | None:
        """A ``tribute`` event: route, card (highest, heart level card excluded) and the transfer."""
        if self.due == "none" or self.anti_seats is not None:
            return self._error(
                seq,
                ErrorCode.UNEXPECTED_TRIBUTE,
                "no tribute is due in this deal (first deal, after a foul, or after an anti-tribute)",
            )
        if giver not in self.givers:
            return self._error(
                seq,
                ErrorCode.WRONG_TRIBUTE_ROUTE,
                f"tribute from {giver}; expected from {' or '.join(self.givers)} (rules.md §6)",
            )
        if any(p.giver == giver for p in self.payments):
            return self._error(seq, ErrorCode.UNEXPECTED_TRIBUTE, f"{giver} already paid tribute")
        if self.anti_due:
            return self._error(
                seq,
                ErrorCode.BAD_ANTI_TRIBUTE,
                f"tributers {list(self.givers)} hold both big "
                "jokers: anti-tribute was due, not a tribute (rules.md §6)",
            )
        expected = self._expected_receivers(giver)
        if receiver not in expected:
            return self._error(
                seq,
                ErrorCode.WRONG_TRIBUTE_ROUTE,
                f"tribute from {giver} to {receiver}; expected to {' or '.join(expected)} (rules.md §6)",
            )
        level = self.deal.level
        hand = self.deal.hands[giver]
        if hand is not None:
            if hand.get(card, 0) == 0:
                return self._error(
                    seq, ErrorCode.CARD_NOT_IN_HAND, f"tribute card {card} is not in {giver}'s hand"
                )
            allowed = tribute_candidates(list(hand), level)
            if card not in allowed:
                return self._error(
                    seq,
                    ErrorCode.WRONG_TRIBUTE_CARD,
                    f"tribute card {card} is not {giver}'s "
                    f"highest; expected one of {' '.join(sorted(allowed))} (heart level card "
                    "excluded, rules.md §6)",
                )
        elif not is_card(card):
            return self._error(seq, ErrorCode.MALFORMED_FIELD, f"tribute card {card!r} is not a card")
        self.payments.append(Payment(seq, giver, receiver, card))
        self.deal.transfer(giver, receiver, card)
        if self.due == "double" and len(self.payments) == 2:
            return self._check_double_route()
        return None

    def _expected_receivers(self, giver: str) -> tuple[str, ...]:
        if self.due == "single":
            return self.receivers
        if self.ruleset.double_tribute_routing == "always_to_shangjia":
            return (PREV[giver],)
        taken = {p.receiver for p in self.payments}
        return tuple(r for r in self.receivers if r not in taken)

    def _equal(self) -> bool:
        a, b = self.payments
        level = self.deal.level
        return single_order(a.card, level) == single_order(b.card, level)

    def _check_double_route(self) -> ReplayError | None:
        """Rule-book routing: the 1st takes the higher card, the 2nd the lower; equal → each to his 上家."""
        if self.ruleset.double_tribute_routing != "higher_to_first":
            return None
        a, b = self.payments
        level = self.deal.level
        if self._equal():
            want = {a.giver: PREV[a.giver], b.giver: PREV[b.giver]}
            why = "equal tributes go to each giver's 上家"
        else:
            hi, lo = (a, b) if single_order(a.card, level) > single_order(b.card, level) else (b, a)
            want = {hi.giver: self.receivers[0], lo.giver: self.receivers[1]}
            why = "the 1st takes the higher tribute, the 2nd the lower"
        for p in (a, b):
            if p.receiver != want[p.giver]:
                return self._error(
                    p.seq,
                    ErrorCode.WRONG_TRIBUTE_ROUTE,
                    f"tribute {p.card} from {p.giver} "
                    f"went to {p.receiver}; expected {want[p.giver]} ({why}, rules.md §6)",
                )
        return None

    def on_return(self, seq: int, giver: str, receiver: str, card: str) -> ReplayError | None:
        """A ``return`` event (還貢): route back to the tributer and the ruleset's card constraint."""
        pay = next((p for p in self.payments if p.receiver == giver and p.return_card is None), None)
        if pay is None:
            return self._error(
                seq, ErrorCode.WRONG_RETURN_ROUTE, f"return from {giver}, who holds no unreturned tribute"
            )
        if receiver != pay.giver:
            return self._error(
                seq,
                ErrorCode.WRONG_RETURN_ROUTE,
                f"return from {giver} to {receiver}; expected to {pay.giver}, who paid the tribute",
            )
        hand = self.deal.hands[giver]
        if hand is not None and hand.get(card, 0) == 0:
            return self._error(
                seq, ErrorCode.CARD_NOT_IN_HAND, f"return card {card} is not in {giver}'s hand"
            )
        if hand is None and not is_card(card):
            return self._error(seq, ErrorCode.MALFORMED_FIELD, f"return card {card!r} is not a card")
        rule = self.ruleset.returns
        if not return_allowed(card, hand, self.deal.level, rule, pay.card, PARTNER[giver] == receiver):
            parts = [f"rank ≤ {rule.max_rank}"]
            if rule.exclude_level_cards:
                parts.append("not a level card")
            if rule.not_tribute_card:
                parts.append(f"not the tribute card {pay.card}")
            if rule.fallback_lowest:
                parts.append("else the lowest card")
            return self._error(
                seq,
                ErrorCode.WRONG_RETURN_CARD,
                f"return card {card} breaks the "
                f"{self.ruleset.id} constraint: {', '.join(parts)} (rules.md §6)",
            )
        pay.return_card = card
        self.deal.transfer(giver, receiver, card)
        return None

    @property
    def kind(self) -> str:
        """Tribute kind of the deal for the ``deals`` table: none, single, double or anti."""
        if self.anti_seats is not None:
            return "anti"
        return self.due

    def check_complete(self, seq: int) -> ReplayError | None:
        """Before the first play: every due tribute and return recorded (or anti-tribute claimed)."""
        if self.due == "none" or self.anti_seats is not None:
            return None
        if self.anti_due and not self.payments:
            return self._error(
                seq,
                ErrorCode.BAD_ANTI_TRIBUTE,
                f"tributers {list(self.givers)} hold both big "
                "jokers but no anti_tribute was recorded (rules.md §6)",
            )
        if len(self.payments) < len(self.givers):
            missing = [g for g in self.givers if all(p.giver != g for p in self.payments)]
            return self._error(
                seq,
                ErrorCode.TRIBUTE_MISSING,
                f"play started before {', '.join(missing)} paid tribute (rules.md §6)",
            )
        unreturned = [p.receiver for p in self.payments if p.return_card is None]
        if unreturned:
            return self._error(
                seq,
                ErrorCode.RETURN_MISSING,
                f"play started before {', '.join(unreturned)} returned a card (rules.md §6)",
            )
        return None

    def leaders(self) -> tuple[str, ...]:
        """Seats that may lead the first trick after the tribute phase (rules.md §6, §10).

        Empty for the first deal and after a foul: the replayer decides those from the log.
        """
        if self.due == "none":
            return ()
        assert self.first is not None
        if self.anti_seats is not None:
            return (self.first,)
        if self.due == "single":
            return self.givers
        a, b = self.payments
        if self._equal():
            if self.ruleset.equal_tribute_leader == "first_xiajia":
                return (NEXT[self.first],)
            return (self.fourth,) if self.fourth else self.givers
        if self.ruleset.double_tribute_leader == "giver_to_first":
            return tuple(p.giver for p in self.payments if p.receiver == self.first)
        level = self.deal.level
        return (a.giver if single_order(a.card, level) > single_order(b.card, level) else b.giver,)

    def equal_double(self) -> bool | None:
        """For a double tribute of two cards paid: whether they are equal (rules.md §6); else None."""
        return self._equal() if self.due == "double" and len(self.payments) == 2 else None
