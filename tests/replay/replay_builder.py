"""Write hand-crafted event logs (events.md) concisely for the replay tests.

``Log`` tracks the hands so a test only says *who goes out in which order* (``play_out``): the
player to go out leads singles from the top while everyone else passes; a hand-over to the next
player is a higher single (or jie feng to the partner). Tributes, returns and rulings are written
explicitly, so each test states the rule outcome it expects and the replayer has to agree.
"""

from __future__ import annotations

import random
from collections import Counter
from datetime import datetime, timedelta, timezone
from typing import Any

from replay import DECK, single_order
from replay.replayer import MatchReplay, replay_match

SEATS = ("E", "N", "W", "S")
NEXT = {"E": "N", "N": "W", "W": "S", "S": "E"}
PARTNER = {"E": "W", "W": "E", "N": "S", "S": "N"}
TEAM = {"E": "EW", "W": "EW", "N": "NS", "S": "NS"}
PLAYERS = {"E": "pE", "N": "pN", "W": "pW", "S": "pS"}
T0 = datetime(2026, 6, 18, 13, 0, tzinfo=timezone(timedelta(hours=8)))


def make_hands(seed: int, give: dict[str, list[str]] | None = None) -> dict[str, list[str]]:
    """Two shuffled decks dealt 27 each; ``give`` puts chosen cards into chosen hands first."""
    deck = Counter(DECK)
    hands: dict[str, list[str]] = {s: [] for s in SEATS}
    for seat, cards in (give or {}).items():
        for c in cards:
            assert deck[c] > 0, f"{c} given twice too often"
            deck[c] -= 1
            hands[seat].append(c)
    rest = sorted(deck.elements())
    random.Random(seed).shuffle(rest)
    for seat in SEATS:
        need = 27 - len(hands[seat])
        hands[seat].extend(rest[:need])
        rest = rest[need:]
    return hands


class Log:
    """An event stream of one match under construction."""

    def __init__(
        self, rules: str = "national", match: str = "m1", minute: float | None = None, **start: Any
    ) -> None:
        self.match = match
        self.events: list[dict[str, Any]] = []
        self.hands: dict[str, Counter[str]] = {}
        self.level = "2"
        self.out: list[str] = []
        self.minute = minute
        """When set, every new event is stamped ``t`` = T0 + this many minutes."""
        self.add("match_start", rules=rules, seats=dict(PLAYERS), **start)

    def add(self, type_: str, **payload: Any) -> dict[str, Any]:
        ev = {"v": 1, "match": self.match, "seq": len(self.events), "type": type_, **payload}
        if self.minute is not None:
            ev["t"] = (T0 + timedelta(minutes=self.minute)).isoformat()
        self.events.append(ev)
        return ev

    # ---- a deal -------------------------------------------------------------------------------

    def deal(
        self,
        level: str = "2",
        declarers: str | None = None,
        *,
        leader: str | None = None,
        seed: int = 0,
        give: dict[str, list[str]] | None = None,
        hide: tuple[str, ...] = (),
        no: int | None = None,
        hands: dict[str, list[str]] | None = None,
    ) -> dict[str, list[str]]:
        hands = hands or make_hands(seed, give)
        self.hands = {s: Counter(h) for s, h in hands.items()}
        self.level = level
        self.out = []
        deals = sum(1 for e in self.events if e["type"] == "deal_start")
        payload: dict[str, Any] = {
            "deal": no or deals + 1,
            "level": level,
            "declarers": declarers,
            "hands": {s: list(h) for s, h in hands.items() if s not in hide},
        }
        if leader is not None:
            payload["leader"] = leader
        self.add("deal_start", **payload)
        return hands

    def highest(self, seat: str) -> str:
        """The seat's highest card, a heart level card excluded (the due tribute)."""
        wild = "H" + self.level
        return max((c for c in self.hands[seat] if c != wild), key=lambda c: (single_order(c, self.level), c))

    def lowest(self, seat: str) -> str:
        """The seat's lowest card that is not a level card (a return every ruleset allows)."""
        cards = [c for c in self.hands[seat] if c[1] != self.level and c not in ("SB", "HR")]
        return min(cards, key=lambda c: (single_order(c, self.level), c))

    def _move(self, giver: str, receiver: str, card: str) -> None:
        self.hands[giver][card] -= 1
        self.hands[giver] += Counter()
        self.hands[receiver][card] += 1

    def tribute(self, giver: str, receiver: str, card: str | None = None) -> str:
        card = card or self.highest(giver)
        self.add("tribute", **{"from": giver, "to": receiver, "card": card})
        self._move(giver, receiver, card)
        return card

    def give_back(self, giver: str, receiver: str, card: str | None = None) -> str:
        card = card or self.lowest(giver)
        self.add("return", **{"from": giver, "to": receiver, "card": card})
        self._move(giver, receiver, card)
        return card

    def anti(self, *seats: str) -> None:
        self.add("anti_tribute", seats=list(seats))

    def play(self, seat: str, cards: list[str], combo: dict[str, str] | None = None) -> None:
        extra = {"combo": combo} if combo else {}
        self.add("play", seat=seat, cards=list(cards), **extra)
        for c in cards:
            self.hands[seat][c] -= 1
        self.hands[seat] += Counter()
        if not self.hands[seat]:
            self.out.append(seat)

    def pass_(self, seat: str) -> None:
        self.add("pass", seat=seat)

    def _active_after(self, seat: str) -> str:
        s = NEXT[seat]
        while not self.hands[s]:
            s = NEXT[s]
        return s

    def _others_pass(self, table_seat: str, until: str) -> None:
        """Active seats after ``table_seat`` pass in turn order, stopping before ``until``."""
        s = self._active_after(table_seat)
        while s != until:
            self.pass_(s)
            s = self._active_after(s)

    def _over(self) -> bool:
        o = self.out
        return len(o) >= 3 or (len(o) == 2 and TEAM[o[0]] == TEAM[o[1]])

    def _take_lead(self, table_seat: str, card: str, taker: str) -> None:
        """``taker`` beats ``card`` with its highest single; everyone else passes."""
        best = max(self.hands[taker], key=lambda c: single_order(c, self.level))
        assert single_order(best, self.level) > single_order(card, self.level), "builder: choose another seed"
        self._others_pass(table_seat, taker)
        self.play(taker, [best])
        self._others_pass(taker, taker)

    def play_out(self, order: list[str], leader: str) -> None:
        """Play the deal so the seats go out in ``order`` (2 seats for a double win, else 3; 1 for
        an extra deal that ends at the first player out)."""
        cur = leader
        if cur != order[0]:
            low = min(self.hands[cur], key=lambda c: single_order(c, self.level))
            self.play(cur, [low])
            self._take_lead(cur, low, order[0])
        for i, seat in enumerate(order):
            cards = sorted(self.hands[seat].elements(), key=lambda c: -single_order(c, self.level))
            for c in cards[:-1]:
                self.play(seat, [c])
                self._others_pass(seat, seat)
            self.play(seat, [cards[-1]])
            if self._over() or i + 1 == len(order):
                return
            nxt = order[i + 1]
            if nxt == PARTNER[seat]:
                s = self._active_after(seat)
                for _ in range(sum(1 for x in SEATS if self.hands[x])):
                    self.pass_(s)
                    s = self._active_after(s)
            else:
                self._take_lead(seat, cards[-1], nxt)

    def end_deal(self, order: list[str] | None = None, levels: dict[str, str] | None = None) -> None:
        payload: dict[str, Any] = {"order": order or list(self.out)}
        if levels is not None:
            payload["levels"] = levels
        self.add("deal_end", **payload)

    def ruling(self, kind: str, **payload: Any) -> None:
        self.add("ruling", kind=kind, **payload)

    def end(self, reason: str, winner: str | None = None, levels: dict[str, str] | None = None) -> None:
        payload: dict[str, Any] = {"reason": reason, "winner": winner}
        if levels is not None:
            payload["levels"] = levels
        self.add("match_end", **payload)

    def replay(self) -> MatchReplay:
        return replay_match(self.events)


def level_round(log: Log) -> Log:
    """Play two deals on a new ``log`` that end level at 3:3 (rules.md §5.8, §6): EW win deal 1
    1st+4th (+1), then W pays E, and NS win deal 2 1st+4th (+1)."""
    log.deal("2", None, leader="E", seed=1)
    log.play_out(["E", "N", "S"], "E")
    log.end_deal(levels={"EW": "3", "NS": "2"})
    log.deal("3", "EW", seed=2)
    log.tribute("W", "E")
    log.give_back("E", "W")
    log.play_out(["N", "E", "W"], "W")
    log.end_deal(levels={"EW": "3", "NS": "3"})
    return log
