"""The referee of a simulated match: deals, tribute, play, levels, A, round formats (rules.md §5–§7).

`play_match` holds the authoritative state of one match, asks each seat's `Bot` for its moves and
writes the events of format v1 (events.md) with timestamps that advance plausibly, so that timed
formats end on time.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from replay.cards import display_order
from replay.outcome import extra_deal_due, level_outcome, round_winner
from replay.rulesets import RoundFormat, Ruleset
from replay.seats import NEXT, OTHER_TEAM, PARTNER, PREV, SEATS, TEAM, TEAM_SEATS, next_leader, next_to_play
from schemas.vocabulary import LEVEL_ORDER
from simulator.bots import Bot
from simulator.cards import BIG_JOKER, DECK, LEVELS, single_order
from simulator.returns import legal_returns

Event = dict[str, Any]
Payment = tuple[str, dict[str, Any]]
"""An event of the tribute phase: its type and payload."""


@dataclass(frozen=True, slots=True)
class Player:
    """A simulated player: stable id, display name, club, true skill (0–1) and playing style."""

    id: str
    name: str
    club: str
    skill: float
    style: str


@dataclass(frozen=True, slots=True)
class MatchSpec:
    """Everything that determines one match (same spec → same events, byte for byte)."""

    match_id: str
    rules: Ruleset
    format: RoundFormat
    seats: dict[str, Player]
    seed: str
    """Seed of the players' choices and timing."""
    deck_seed: str
    """Seed of the shuffles and the first cut; duplicate rooms of one board share it."""
    start: datetime
    event: dict[str, Any] | None = None
    duplicate: dict[str, Any] | None = None


@dataclass(slots=True)
class MatchResult:
    """The outcome the referee derived: used for pairing, standings and league bookkeeping."""

    match_id: str
    reason: str
    winner: str | None
    levels: dict[str, int]
    passed_a: str | None
    deals: int
    end: datetime
    deal_winners: list[tuple[str, int]] = field(default_factory=list)
    """Per deal: the 1st-place team and the levels it went up."""
    a_failures: dict[str, int] = field(default_factory=dict)


class _Log:
    """Event writer for one match: envelope, seq numbers and the clock (seconds since start)."""

    __slots__ = ("base", "events", "match", "offset", "rng")

    def __init__(self, match: str, base: datetime, rng: random.Random) -> None:
        self.match = match
        self.base = base
        self.offset = 0
        self.rng = rng
        self.events: list[Event] = []

    def stamp(self) -> str:
        """The current time, RFC 3339 with the base's UTC offset."""
        return (self.base + timedelta(seconds=self.offset)).isoformat()

    def emit(self, kind: str, payload: dict[str, Any], wait: tuple[int, int] | None = None) -> None:
        """Append one event, first advancing the clock by a random number of seconds in `wait`."""
        if wait is not None:
            self.offset += self.rng.randint(*wait)
        event: Event = {"v": 1, "match": self.match, "seq": len(self.events), "type": kind}
        event.update(payload)
        event["t"] = self.stamp()
        self.events.append(event)


def _format_payload(fmt: RoundFormat) -> dict[str, Any]:
    """events.md `format`: the kind plus only the fields that kind uses."""
    out: dict[str, Any] = {"kind": fmt.kind}
    if fmt.kind in ("deals", "timed_deals"):
        out["deals"] = fmt.deals
    if fmt.kind in ("timed", "timed_deals"):
        out["minutes"] = fmt.minutes
    return out


def _levels_payload(levels: dict[str, int]) -> dict[str, str]:
    """events.md `levels`: each team's level as its rank character."""
    return {"EW": LEVELS[levels["EW"]], "NS": LEVELS[levels["NS"]]}


class MatchReferee:
    """Mutable state of one match while it is being played."""

    def __init__(self, spec: MatchSpec) -> None:
        self.spec = spec
        self.rules = spec.rules
        self.rng = random.Random(spec.seed)
        self.deck_rng = random.Random(spec.deck_seed)
        self.log = _Log(spec.match_id, spec.start, self.rng)
        self.bots = {
            s: Bot(s, p.skill, p.style, random.Random(f"{spec.seed}:{s}")) for s, p in spec.seats.items()
        }
        self.levels = {"EW": 0, "NS": 0}
        self.failures = {"EW": 0, "NS": 0}
        self.cap = LEVELS.index(self.rules.max_level)
        self.extra_deal = False
        self.extra_deal_here = self.rules.extra_deal_breaks(spec.event)
        """Whether a round that ends level here gets an extra deal (``Ruleset.extra_deal.rounds``)."""

    def run(self) -> tuple[list[Event], MatchResult]:
        """Play deals until the match ends (A passed, A failures or the round format); events and result."""
        spec = self.spec
        start: dict[str, Any] = {
            "rules": self.rules.id,
            "format": _format_payload(spec.format),
            "seats": {s: spec.seats[s].id for s in SEATS},
            "players": {
                spec.seats[s].id: {"name": spec.seats[s].name, "club": spec.seats[s].club} for s in SEATS
            },
        }
        if spec.event is not None:
            start["event"] = spec.event
        if spec.duplicate is not None:
            start["duplicate"] = spec.duplicate
        self.log.emit("match_start", start)
        declarers: str | None = None
        previous: list[str] | None = None
        deal_winners: list[tuple[str, int]] = []
        deal = 0
        rule = self.rules.extra_deal
        while True:
            deal += 1
            extra = self.extra_deal
            if extra and rule.first_deal_rules:
                declarers, previous = None, None
            level = LEVELS[self.levels[declarers or "EW"]]
            order = self._deal(deal, level, declarers, previous, extra and rule.first_out_ends)
            reason, winner, up = self.score_deal(declarers, order, extra)
            first_team = TEAM[order[0]]
            deal_winners.append((first_team, up))
            self._avoid_exact_limit()
            self.log.emit("deal_end", {"order": order, "levels": _levels_payload(self.levels)})
            played, declarers, previous = declarers, first_team, order
            if reason is None:
                reason, winner = self._format_end(deal, played, first_team)
            if reason is not None:
                break
        self.log.emit(
            "match_end", {"reason": reason, "levels": _levels_payload(self.levels), "winner": winner}
        )
        result = MatchResult(
            spec.match_id,
            reason,
            winner,
            dict(self.levels),
            winner if reason == "passed_a" else None,
            deal,
            spec.start + timedelta(seconds=self.log.offset),
            deal_winners,
            dict(self.failures),
        )
        return self.log.events, result

    # levels and A --------------------------------------------------------------------------
    def score_deal(
        self, declarers: str | None, order: list[str], extra_deal: bool = False
    ) -> tuple[str | None, str | None, int]:
        """Apply one deal's result to the levels and the failures at A by the engine's rules
        (``replay.outcome.level_outcome``: rules.md §5.8, §7, §10). Returns the match-ending reason
        and winner (both None when the match goes on) and the levels the finish earned."""
        levels = self._level_names()
        outcome = level_outcome(
            self.rules,
            levels,
            declarers,
            levels[declarers or "EW"],
            order,
            self.failures,
            extra_deal=extra_deal,
        )
        self.levels.update({team: LEVEL_ORDER[level] for team, level in outcome.levels.items()})
        self.failures = outcome.failures
        return outcome.end, outcome.match_winner, outcome.gain

    def _level_names(self) -> dict[str, str]:
        """Both teams' levels as rank characters, the engine's notation."""
        return {team: LEVELS[index] for team, index in self.levels.items()}

    def _format_end(self, deal: int, declarers: str | None, first_team: str) -> tuple[str | None, str | None]:
        """Whether the round format ends the match after this deal (rules.md §7), and the winner
        (``replay.outcome``): the higher level; at equal levels the ruleset's tie-break, an extra
        deal (``extra_deal_due``) or the round's winner by ``draw_breaker`` (``round_winner``)."""
        fmt = self.spec.format
        reason = None
        if fmt.kind in ("deals", "timed_deals") and fmt.deals is not None and deal >= fmt.deals:
            reason = "deals"
        elif fmt.kind in ("timed", "timed_deals") and self._time_up():
            reason = "time"
        if reason is None:
            return None, None
        levels = self._level_names()
        if extra_deal_due(self.rules, self.extra_deal_here, self.extra_deal, levels):
            self.extra_deal = True
            return None, None
        return reason, round_winner(self.rules, levels, declarers, first_team, self.extra_deal)

    def _limit(self) -> int | None:
        """The time limit in seconds after match_start, for timed formats."""
        fmt = self.spec.format
        if fmt.kind in ("timed", "timed_deals") and fmt.minutes is not None:
            return fmt.minutes * 60
        return None

    def _time_up(self) -> bool:
        limit = self._limit()
        return limit is not None and self.log.offset >= limit

    def _avoid_exact_limit(self) -> None:
        """Keep deal_end off the exact time limit so '≥ limit' and '> limit' readings agree."""
        limit = self._limit()
        if limit is not None and self.log.offset == limit:
            self.log.offset += 1

    # one deal ------------------------------------------------------------------------------
    def _deal(
        self, deal: int, level: str, declarers: str | None, previous: list[str] | None, first_out: bool
    ) -> list[str]:
        """Deal, tribute and play one deal; returns the finishing order (2 seats after a double win,
        1 when ``first_out`` ends the deal as soon as a player goes out)."""
        deck = list(DECK)
        self.deck_rng.shuffle(deck)
        cut = self.deck_rng.choice(SEATS)
        hands = {s: deck[i * 27 : (i + 1) * 27] for i, s in enumerate(SEATS)}
        for s in SEATS:
            self.bots[s].new_hand(hands[s], level)
        limit = self._limit()
        wait = (40, 120) if deal > 1 else (60, 300)
        before = self.log.offset
        self.log.offset += self.rng.randint(*wait)
        if limit is not None and before < limit <= self.log.offset:
            self.log.offset = limit - 1
        payments: list[Payment] = []
        if previous is None:
            leader = cut
        else:
            leader, payments = self.tribute(level, previous, hands)
        self.log.emit(
            "deal_start",
            {
                "deal": deal,
                "level": level,
                "declarers": declarers,
                "leader": leader,
                "hands": {s: display_order(hands[s], level) for s in SEATS},
            },
        )
        for kind, payload in payments:
            self.log.emit(kind, payload, (5, 20))
        return self._play(leader, level, first_out)

    def tribute(
        self, level: str, previous: list[str], hands: dict[str, list[str]]
    ) -> tuple[str, list[Payment]]:
        """Tribute, anti-tribute and returns (rules.md §6): the leader and the events in order."""
        first = previous[0]
        bots = self.bots
        if TEAM[previous[1]] != TEAM[first]:
            giver = previous[3]
            if hands[giver].count(BIG_JOKER) == 2:
                return first, [("anti_tribute", {"seats": [giver]})]
            routes = [(giver, first)]
            leader = giver
        else:
            a, b = TEAM_SEATS[OTHER_TEAM[TEAM[first]]]
            if hands[a].count(BIG_JOKER) + hands[b].count(BIG_JOKER) == 2:
                return first, [("anti_tribute", {"seats": [s for s in (a, b) if BIG_JOKER in hands[s]]})]
            oa = single_order(bots[a].tribute_card(), level)
            ob = single_order(bots[b].tribute_card(), level)
            if self.rules.double_tribute_routing == "always_to_shangjia" or oa == ob:
                routes = [(a, PREV[a]), (b, PREV[b])]
            else:
                high, low = (a, b) if oa > ob else (b, a)
                routes = [(high, first), (low, PARTNER[first])]
            routes.sort(key=lambda r: r[1] != first)
            if oa == ob:
                equal_fourth = self.rules.equal_tribute_leader == "previous_fourth" and len(previous) == 4
                leader = previous[3] if equal_fourth else NEXT[first]
            elif self.rules.double_tribute_leader == "giver_to_first":
                leader = routes[0][0]
            else:
                leader = a if oa > ob else b
        payments: list[Payment] = []
        received: list[tuple[str, str, str]] = []
        for giver, receiver in routes:
            card = bots[giver].tribute_card()
            bots[giver].give(card)
            bots[receiver].receive(card)
            payments.append(("tribute", {"from": giver, "to": receiver, "card": card}))
            received.append((receiver, giver, card))
        for receiver, giver, card in received:
            legal = legal_returns(
                bots[receiver].hand, level, self.rules.returns, PARTNER[receiver] == giver, card
            )
            back = bots[receiver].return_card(legal)
            bots[receiver].give(back)
            bots[giver].receive(back)
            payments.append(("return", {"from": receiver, "to": giver, "card": back}))
        return leader, payments

    def _play(self, leader: str, level: str, first_out: bool) -> list[str]:
        """The play of one deal (rules.md §5.3–§5.7); returns the finishing order (the first seat
        out only, when ``first_out``: an extra deal that ends at 头游)."""
        bots = self.bots
        log = self.log
        rng = self.rng
        wild = "H" + level
        counts = {s: len(bots[s].hand) for s in SEATS}
        out: list[str] = []
        turn = leader
        table = None
        table_seat = ""
        passes = 0
        while True:
            bot = bots[turn]
            choice = bot.lead(counts) if table is None else bot.follow(table, table_seat, counts)
            if choice is None:
                log.offset += rng.randint(1, 4)
                log.emit("pass", {"seat": turn})
                passes += 1
            else:
                group, parts = choice
                bot.played(group, parts)
                counts[turn] -= len(group.cards)
                payload: dict[str, Any] = {"seat": turn, "cards": list(group.cards)}
                if wild in group.cards:
                    payload["combo"] = {"type": group.kind, "rank": group.rank}
                log.offset += rng.randint(2, 9)
                log.emit("play", payload)
                table, table_seat, passes = group, turn, 0
                if counts[turn] == 0:
                    out.append(turn)
                    if first_out:
                        return out
                    if len(out) == 2 and TEAM[out[0]] == TEAM[out[1]]:
                        return out
                    if len(out) == 3:
                        return out + [s for s in SEATS if s not in out]
            ends = None if table is None else next_leader(table_seat, passes, counts, len(out))
            if ends is not None:
                turn, table, passes = ends, None, 0
                continue
            turn = next_to_play(turn, counts)


def play_match(spec: MatchSpec) -> tuple[list[Event], MatchResult]:
    """Play one match to its end; the events (format v1) and the derived result."""
    return MatchReferee(spec).run()
