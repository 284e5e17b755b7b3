"""The play of a deal (rules.md §5): who leads, turns, the cards leaving the hands, the reading of
each play, tricks, jie feng and going out.

One :class:`PlayPhase` per deal checks each ``play`` and ``pass`` event against the deal state and
records its ``plays`` row; a fault raises :class:`replay.faults.Fault` with the event's seq.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import datetime
from typing import Any, NoReturn

from replay import native
from replay.errors import ErrorCode
from replay.faults import Fault, fault
from replay.moves import BeatProbe
from replay.output import MatchRows
from replay.reading import allowed_readings, choose_reading
from replay.rulesets import Ruleset
from replay.state import DealState, MatchState, Trick
from replay.tribute import TributePhase
from schemas.vocabulary import CARDS, PARTNER, TEAM, TEAM_SEATS

_CARD_SET = frozenset(CARDS)


def _fast_take() -> Callable[[Counter[str], list[str]], bool] | None:
    """``replay._replay.take_cards`` where the Cython module is built and in use: a play's cards
    taken out of a known hand that holds them all, in C; any other play goes through the loop of
    :meth:`PlayPhase._take_cards`, where its fault is made."""
    module = native.core("_replay")
    if module is None:
        return None
    take: Callable[[Counter[str], list[str]], bool] = module.take_cards
    return take


_TAKE_CARDS = _fast_take()


class PlayPhase:
    """The play of one deal, from its first play to the play that ends it."""

    def __init__(self, ruleset: Ruleset, m: MatchState, d: DealState, out: MatchRows) -> None:
        self.ruleset = ruleset
        self.m = m
        self.d = d
        self.out = out
        self.first_out_ends = d.extra_deal and ruleset.extra_deal.first_out_ends
        """The deal ends when the first player goes out (an extra deal, rules.md §7)."""
        self.probes: dict[str, BeatProbe] = {}
        """Per seat, its current hand prepared for ``could_beat``; dropped when the seat plays."""

    def start(self, seq: int, seat: str, tp: TributePhase) -> None:
        """First action of the deal, by ``seat``: the tribute phase complete, then the leader
        rules.md §5/§6 names."""
        m, d = self.m, self.d
        error = tp.check_complete(seq)
        if error is not None:
            raise Fault(error)
        allowed: tuple[str | None, ...] = tp.leaders()
        if not allowed:
            prev = None if d.first_rules else m.prev_winner
            allowed = (d.claimed_leader,) if prev is None else TEAM_SEATS[prev]
        claimed = d.claimed_leader
        if allowed == (None,):
            raise fault(
                d.seq,
                ErrorCode.MALFORMED_FIELD,
                "deal_start of the first deal needs `leader` (unless `start_state.previous_order` sets it)",
            )
        d.results_only = False
        if claimed is not None and claimed not in allowed:
            raise fault(
                d.seq,
                ErrorCode.WRONG_LEADER,
                f"deal_start names leader {claimed}; expected "
                f"{' or '.join(a for a in allowed if a)} (rules.md §5/§6)",
            )
        leader = claimed or (seat if seat in allowed else allowed[0])
        if seat != leader:
            raise fault(
                seq,
                ErrorCode.WRONG_LEADER,
                f"first play of deal {d.no} by {seat}; expected the leader {leader} (rules.md §5/§6)",
            )
        d.leader = d.turn = leader
        d.tribute_kind = tp.kind

    def _in_turn(self, seq: int, ev: dict[str, Any]) -> str:
        """The seat of a play or pass, which must be the seat whose turn it is (rules.md §5)."""
        d = self.d
        seat: str = ev["seat"]
        if seat != d.turn:
            why = " (out of cards)" if d.counts[seat] == 0 else ""
            raise fault(
                seq,
                ErrorCode.OUT_OF_TURN,
                f"{ev['type']} by {seat}{why}; it is {d.turn}'s turn "
                "(E → N → W → S, skipping seats that are out, rules.md §5)",
            )
        return seat

    def play(self, seq: int, ev: dict[str, Any], t: datetime | None) -> bool:
        """A ``play`` event; True when it ends the deal (rules.md §5.7, or the first player out of
        an extra deal that ends so)."""
        d = self.d
        seat = self._in_turn(seq, ev)
        cards = ev["cards"]
        counts = d.counts
        before = (counts["E"], counts["N"], counts["W"], counts["S"])
        self._take_cards(seq, seat, cards)
        options = allowed_readings(seq, self.ruleset, cards, d.level)
        trick = d.trick
        chosen, key, bc = choose_reading(seq, ev, options, trick.table, trick.key)
        self.probes.pop(seat, None)
        if bc:
            d.bombs[seat] += 1
        d.plays += 1
        inferred = ev.get("combo") is None and len(options) > 1
        self.out.play(self.m, d, seq, seat, cards, (chosen, bc, inferred), before, t)
        left = counts[seat]
        trick.table, trick.key, trick.table_seat, trick.passes = chosen, key, seat, 0
        trick.pos += 1
        if left == 0:
            d.out.append(seat)
            out = d.out
            if self.first_out_ends or len(out) == 3 or (len(out) == 2 and TEAM[out[0]] == TEAM[out[1]]):
                d.over = True
                d.turn = None
                return True
        d.turn = d.next_active(seat)
        return False

    def pass_(self, seq: int, ev: dict[str, Any], t: datetime | None) -> None:
        """A ``pass`` event: recorded with whether the seat could have beaten the table; the trick
        ends when every other seat still holding cards has passed (rules.md §5.4, §5.6)."""
        d = self.d
        seat = self._in_turn(seq, ev)
        trick = d.trick
        table = trick.table
        if table is None:
            raise fault(seq, ErrorCode.PASS_ON_LEAD, f"{seat} passes but must lead (rules.md §5)")
        hand = d.hands[seat]
        could = None
        if hand is not None:
            probe = self.probes.get(seat)
            if probe is None:
                probe = self.probes[seat] = BeatProbe(
                    hand, d.level, full_house_joker_pair=self.ruleset.full_house_joker_pair
                )
            key = trick.key
            assert key is not None
            could = probe.beats_key(key)
        self.out.pass_(self.m, d, seq, seat, could, t)
        counts = d.counts
        d.passes += 1
        trick.passes += 1
        trick.pos += 1
        winner = trick.table_seat
        assert winner is not None
        others = 4 - len(d.out) - (counts[winner] > 0)
        if trick.passes < others:
            d.turn = d.next_active(seat)
            return
        if counts[winner] == 0:
            d.jie_feng += 1
            winner = PARTNER[winner]
        d.trick = Trick(no=trick.no + 1)
        d.turn = winner

    def _take_cards(self, seq: int, seat: str, cards: list[str]) -> None:
        """Check that ``seat`` holds ``cards`` and remove them (rules.md §5) in one pass over a known
        hand; on a fault the cards taken so far are put back, so the message names what is missing."""
        d = self.d
        hand = d.hands[seat]
        if hand is not None:
            if _TAKE_CARDS is None or not _TAKE_CARDS(hand, cards):
                for i, c in enumerate(cards):
                    n = hand.get(c, 0)
                    if n == 1:
                        hand.pop(c)  # dict.pop in C; ``del`` on a Counter runs Counter.__delitem__ in Python
                    elif n:
                        hand[c] = n - 1
                    else:
                        hand.update(cards[:i])
                        self._bad_cards(seq, seat, cards, hand)
        else:
            for c in cards:
                if c not in _CARD_SET:
                    self._bad_cards(seq, seat, cards, None)
            if len(cards) > d.counts[seat]:
                self._bad_cards(seq, seat, cards, None)
        d.counts[seat] -= len(cards)

    def _bad_cards(self, seq: int, seat: str, cards: list[str], hand: Counter[str] | None) -> NoReturn:
        """Raise the fault of a play whose cards are not all valid cards held by the seat."""
        count = self.d.counts[seat]
        bad = [c for c in cards if c not in _CARD_SET]
        if bad:
            raise fault(seq, ErrorCode.MALFORMED_FIELD, f"play by {seat}: {bad[0]!r} is not a card")
        if len(cards) > count:
            raise fault(seq, ErrorCode.CARD_NOT_IN_HAND, f"{seat} plays {len(cards)} cards but holds {count}")
        assert hand is not None
        missing = [c for c, n in Counter(cards).items() if hand.get(c, 0) < n]
        raise fault(seq, ErrorCode.CARD_NOT_IN_HAND, f"{seat} plays {' '.join(missing)}, not in hand")
