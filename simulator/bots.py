"""Bot players: plan the hand into few combinations, lead small, follow cheaply, bomb when it matters.

Decisions read the bot's plan (`decompose`) instead of enumerating every legal move, which keeps a
deal to a few milliseconds. `skill` (0–1) sets how often a bot blunders (a random legal choice
instead of the sensible one); `style` sets how eagerly it spends bombs and breaks combinations.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from simulator.cards import PARTNER, TEAM, rank_char, single_order
from simulator.decompose import decompose, full_house
from simulator.groups import Group, beats, make_group


@dataclass(frozen=True, slots=True)
class Style:
    """How a bot spends its strength: bombs and broken combinations when an opponent is close."""

    name: str
    bomb_threshold: int
    """Bomb an opponent's play when that opponent holds at most this many cards."""
    bomb_whim: float
    """Chance to bomb a big plain play (A or higher) even without a threat."""
    break_threshold: int
    """Break a pair/triple/sequence to follow when the opponent holds at most this many cards."""
    save_high: bool
    """Pass rather than spend a joker or level card on a small play when no one is close."""


STYLES: dict[str, Style] = {
    "aggressive": Style("aggressive", bomb_threshold=16, bomb_whim=0.5, break_threshold=14, save_high=False),
    "balanced": Style("balanced", bomb_threshold=8, bomb_whim=0.1, break_threshold=9, save_high=False),
    "conservative": Style("conservative", bomb_threshold=5, bomb_whim=0.0, break_threshold=6, save_high=True),
}


class Bot:
    """One seat's player for one deal after another: holds the hand and the current plan."""

    __slots__ = ("_plan", "blunder", "hand", "level", "rng", "seat", "style")

    def __init__(self, seat: str, skill: float, style: str, rng: random.Random) -> None:
        self.seat = seat
        self.style = STYLES[style]
        self.blunder = 0.6 * (1.0 - min(max(skill, 0.0), 1.0))
        self.rng = rng
        self.hand: list[str] = []
        self.level = "2"
        self._plan: list[Group] | None = None

    def new_hand(self, cards: list[str], level: str) -> None:
        """Take the dealt cards for a deal played at `level`."""
        self.hand = list(cards)
        self.level = level
        self._plan = None

    def give(self, card: str) -> None:
        """Remove one card (tribute or return paid)."""
        self.hand.remove(card)
        self._plan = None

    def receive(self, card: str) -> None:
        """Add one card (tribute or return received)."""
        self.hand.append(card)
        self._plan = None

    def plan(self) -> list[Group]:
        """The current split of the hand into groups (recomputed only after an unplanned play)."""
        if self._plan is None:
            self._plan = decompose(self.hand, self.level)
        return self._plan

    def played(self, group: Group, parts: tuple[Group, ...]) -> None:
        """Remove a played group's cards; keep the plan when the play was made of planned groups."""
        for c in group.cards:
            self.hand.remove(c)
        plan = self._plan
        if plan is not None and all(any(p is g for g in plan) for p in parts) and parts:
            self._plan = [g for g in plan if not any(p is g for p in parts)]
        else:
            self._plan = None

    # tribute -----------------------------------------------------------------------------
    def tribute_card(self) -> str:
        """The forced tribute: the highest single card, heart level card excluded (rules.md §6)."""
        wild = "H" + self.level
        return max((c for c in self.hand if c != wild), key=lambda c: (single_order(c, self.level), c))

    def return_card(self, legal: list[str]) -> str:
        """The least useful legal return card: a loose low single when there is one (rules.md §6)."""
        loose = {g.cards[0] for g in self.plan() if g.kind == "single" and not g.wild}
        return min(legal, key=lambda c: (c not in loose, single_order(c, self.level), c))

    # play --------------------------------------------------------------------------------
    def lead(self, counts: dict[str, int]) -> tuple[Group, tuple[Group, ...]]:
        """Choose a lead: the whole hand if it is one play, else the smallest planned group."""
        plan = self.plan()
        whole = _whole_hand(plan)
        if whole is not None:
            return whole
        plain = [g for g in plan if not g.is_bomb]
        if self.rng.random() < self.blunder:
            g = self.rng.choice(plan)
            return g, (g,)
        if not plain:
            g = min(plan, key=lambda g: g.power)
            return g, (g,)
        opponents_short = any(counts[s] == 1 for s in counts if TEAM[s] != TEAM[self.seat])
        if opponents_short and any(g.kind != "single" for g in plain):
            plain = [g for g in plain if g.kind != "single"]
        elif opponents_short:
            g = max(plain, key=lambda g: g.key)
            return g, (g,)
        g = min(plain, key=lambda g: (g.lead_value, -len(g.cards)))
        if g.kind == "triple":
            pair = _cheap_pair(plan, g)
            if pair is not None:
                return full_house(g, pair), (g, pair)
        return g, (g,)

    def follow(
        self, table: Group, table_seat: str, counts: dict[str, int]
    ) -> tuple[Group, tuple[Group, ...]] | None:
        """Choose a play that beats `table`, or None to pass."""
        plan = self.plan()
        whole = _whole_hand(plan)
        if whole is not None and beats(whole[0], table):
            return whole
        if table_seat == PARTNER[self.seat]:
            return None
        if self.rng.random() < self.blunder:
            return self._random_follow(table, plan)
        threat = counts[table_seat]
        same = _same_type(table, plan)
        if same is not None:
            g = same[0]
            if not (self.style.save_high and g.key >= 15 and table.key < 11 and threat > 10):
                return same
        if threat <= self.style.break_threshold:
            broken = self._break_for(table, plan)
            if broken is not None:
                return broken, ()
        bombs = [g for g in plan if g.is_bomb and beats(g, table)]
        if bombs and (
            threat <= self.style.bomb_threshold
            or len(plan) - len(bombs) <= 1
            or (table.power[0] == 0 and table.key >= 14 and self.rng.random() < self.style.bomb_whim)
        ):
            g = min(bombs, key=lambda g: g.power)
            return g, (g,)
        return None

    def _random_follow(self, table: Group, plan: list[Group]) -> tuple[Group, tuple[Group, ...]] | None:
        """A blunder: pass, or any planned group that beats the table, at random."""
        options = [g for g in plan if beats(g, table)]
        choice = self.rng.randrange(len(options) + 1)
        if choice == len(options):
            return None
        g = options[choice]
        return g, (g,)

    def _break_for(self, table: Group, plan: list[Group]) -> Group | None:
        """A single or pair taken out of a larger planned group to stop an opponent (not from bombs)."""
        if table.kind == "single":
            wild = "H" + self.level
            cards = [c for g in plan if not g.is_bomb and len(g.cards) > 1 for c in g.cards if c != wild]
            best = min(
                (c for c in cards if single_order(c, self.level) > table.key),
                key=lambda c: single_order(c, self.level),
                default=None,
            )
            if best is None:
                return None
            return make_group("single", rank_char(best), single_order(best, self.level), (best,), False)
        if table.kind == "pair":
            triples = [g for g in plan if g.kind == "triple" and g.key > table.key]
            if triples:
                g = min(triples, key=lambda g: g.key)
                return make_group("pair", g.rank, g.key, g.cards[:2], g.wild)
        return None


def _cheap_pair(plan: list[Group], triple: Group) -> Group | None:
    """The lowest plain pair to carry with a triple (no jokers, no wild level pair)."""
    pairs = [g for g in plan if g.kind == "pair" and not g.wild and g.key <= 14 and g.rank != triple.rank]
    return min(pairs, key=lambda g: g.key, default=None)


def _whole_hand(plan: list[Group]) -> tuple[Group, tuple[Group, ...]] | None:
    """The whole hand as one play, when it is one group or a triple plus a pair."""
    if len(plan) == 1:
        return plan[0], (plan[0],)
    if len(plan) == 2:
        kinds = {plan[0].kind, plan[1].kind}
        if kinds == {"triple", "pair"}:
            triple, pair = (plan[0], plan[1]) if plan[0].kind == "triple" else (plan[1], plan[0])
            if pair.rank not in ("B", "R") and not pair.wild:
                return full_house(triple, pair), (triple, pair)
    return None


def _same_type(table: Group, plan: list[Group]) -> tuple[Group, tuple[Group, ...]] | None:
    """The cheapest planned play of the table's type that beats it (full houses built on demand)."""
    if table.is_bomb:
        return None
    if table.kind == "full_house":
        triples = [g for g in plan if g.kind == "triple" and g.key > table.key]
        if not triples:
            return None
        t = min(triples, key=lambda g: g.key)
        pair = _cheap_pair(plan, t)
        return (full_house(t, pair), (t, pair)) if pair is not None else None
    size = len(table.cards)
    cands = [g for g in plan if g.kind == table.kind and len(g.cards) == size and g.key > table.key]
    if not cands:
        return None
    g = min(cands, key=lambda g: g.key)
    return g, (g,)
