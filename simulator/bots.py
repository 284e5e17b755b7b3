"""Bot players: plan the hand into few combinations, lead small, follow cheaply, bomb when it matters.

Decisions read the bot's plan (`decompose`) instead of enumerating every legal move, which keeps a
deal to a few milliseconds. `style` sets how eagerly a bot spends bombs and breaks combinations;
bombs are kept for when they matter: an opponent close to going out, winning the lead back to run
out the hand, a deal where a player is already out (tribute and level stakes), or on the
aggressive style's whim on a big play.

`skill` (0–1) sets the quality of play. A low-skill bot often blunders (a random planned play or
pass, now and then a wasted bomb), plans many deals carelessly (cards grouped by rank only: no
straights, no straight flushes, wilds kept as level cards), overtakes its partner's winning play
and returns a careless tribute card. A high-skill bot almost never blunders, plans to go out (bombs to
win the lead when the rest of its hand then runs out), reads the card counts (no single into an
opponent holding one card, no pair into one holding two) and feeds a partner who is close to going
out with a low single or pair.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from replay.seats import PARTNER, TEAM
from simulator.cards import rank_char, single_order
from simulator.decompose import decompose, full_house, plays_needed
from simulator.groups import Group, beats, make_group

Choice = tuple[Group, tuple[Group, ...]]
"""A play and the planned groups it was made from (empty when a group was broken up)."""


@dataclass(frozen=True, slots=True)
class Style:
    """How a bot spends its strength: bombs and broken combinations when an opponent is close."""

    name: str
    bomb_threshold: int
    """Bomb an opponent's play when the seat that would lead next holds at most this many cards (or
    that seat's partner at most half as many)."""
    bomb_whim: float
    """Chance to bomb a big plain play (A or higher, or a 5- or 6-card combination) without a threat."""
    break_threshold: int
    """Break a pair/triple/sequence to follow when an opponent holds at most this many cards."""
    save_high: bool
    """Pass rather than spend a joker or level card on a small play when no one is close."""


STYLES: dict[str, Style] = {
    "aggressive": Style("aggressive", bomb_threshold=10, bomb_whim=0.3, break_threshold=12, save_high=False),
    "balanced": Style("balanced", bomb_threshold=6, bomb_whim=0.05, break_threshold=8, save_high=False),
    "conservative": Style("conservative", bomb_threshold=4, bomb_whim=0.0, break_threshold=6, save_high=True),
}

BLUNDER = 0.8
"""Chance of a random planned play (or pass) per decision at skill 0; it falls to 0 at skill 1."""
OVERTAKE = 0.8
"""Chance at skill 0 of beating the partner's winning play with a play of the same type."""
MISBOMB = 0.15
"""Chance that a blunder may spend a bomb (a misplayed bomb) rather than only plain groups."""
SUPPORT_CARDS = 4
"""A partner holding at most this many cards is fed low singles and pairs by a skilled leader."""


class Bot:
    """One seat's player for one deal after another: holds the hand and the current plan."""

    __slots__ = ("_plan", "blunder", "careless", "hand", "level", "rng", "seat", "skill", "style")

    def __init__(self, seat: str, skill: float, style: str, rng: random.Random) -> None:
        self.seat = seat
        self.style = STYLES[style]
        self.skill = min(max(skill, 0.0), 1.0)
        self.blunder = BLUNDER * (1.0 - self.skill)
        self.rng = rng
        self.hand: list[str] = []
        self.level = "2"
        self.careless = False
        self._plan: list[Group] | None = None

    def new_hand(self, cards: list[str], level: str) -> None:
        """Take the dealt cards for a deal played at `level`."""
        self.hand = list(cards)
        self.level = level
        self.careless = not self._skilled()  # plan this deal carelessly, chance 1 − skill
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
            self._plan = decompose(self.hand, self.level, self.careless)
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

    def _skilled(self) -> bool:
        """A draw that comes out True with probability `skill` (a skilled decision is taken)."""
        return self.rng.random() < self.skill

    # tribute -----------------------------------------------------------------------------
    def tribute_card(self) -> str:
        """The forced tribute: the highest single card, heart level card excluded (rules.md §6)."""
        wild = "H" + self.level
        return max((c for c in self.hand if c != wild), key=lambda c: (single_order(c, self.level), c))

    def return_card(self, legal: list[str]) -> str:
        """A legal return card (rules.md §6): skilled, a loose low single when there is one;
        careless, any legal card (maybe a high one, or one that breaks a pair)."""
        if not self._skilled():
            return self.rng.choice(legal)
        loose = {g.cards[0] for g in self.plan() if g.kind == "single" and not g.wild}
        return min(legal, key=lambda c: (c not in loose, single_order(c, self.level), c))

    # play --------------------------------------------------------------------------------
    def lead(self, counts: dict[str, int]) -> Choice:
        """Choose a lead: the whole hand if it is one play, else (mostly) the smallest planned group.

        A skilled leader feeds a partner close to going out, leads no group of the size an opponent
        holds, and with two plain groups left leads the stronger one first so as to keep the lead
        for the last one."""
        plan = self.plan()
        whole = _whole_hand(plan)
        if whole is not None:
            return whole
        plain = [g for g in plan if not g.is_bomb]
        if self.rng.random() < self.blunder:
            g = self.rng.choice(plan if not plain or self.rng.random() < MISBOMB else plain)
            return g, (g,)
        if not plain:
            g = min(plan, key=lambda g: g.power)
            return g, (g,)
        opponents = [counts[s] for s in counts if TEAM[s] != TEAM[self.seat] and counts[s] > 0]
        if self._skilled():
            fed = _feed_partner(plain, counts[PARTNER[self.seat]], min(opponents, default=27))
            if fed is not None:
                return fed, (fed,)
            safe = [g for g in plain if len(g.cards) not in opponents]
            if not safe or len(plain) == 2:
                g = max(safe or plain, key=lambda g: g.key)
                return g, (g,)
            plain = safe
        elif 1 in opponents:
            if all(g.kind == "single" for g in plain):
                g = max(plain, key=lambda g: g.key)
                return g, (g,)
            plain = [g for g in plain if g.kind != "single"]
        g = min(plain, key=lambda g: (g.lead_value, -len(g.cards)))
        if g.kind == "triple":
            pair = _cheap_pair(plan, g)
            if pair is not None:
                return full_house(g, pair), (g, pair)
        return g, (g,)

    def follow(self, table: Group, table_seat: str, counts: dict[str, int]) -> Choice | None:
        """Choose a play that beats `table`, or None to pass."""
        plan = self.plan()
        whole = _whole_hand(plan)
        if whole is not None and beats(whole[0], table):
            return whole
        if table_seat == PARTNER[self.seat]:
            if self.rng.random() < OVERTAKE * (1.0 - self.skill):
                return _same_type(table, plan)
            return None
        if self.rng.random() < self.blunder:
            return self._random_follow(table, plan)
        danger = min((counts[s] for s in counts if TEAM[s] != TEAM[self.seat] and counts[s] > 0), default=27)
        same = _same_type(table, plan)
        if same is not None:
            g = same[0]
            if not (self.style.save_high and g.key >= 15 and table.key < 11 and danger > 10):
                return same
        if danger <= self.style.break_threshold:
            broken = self._break_for(table, plan)
            if broken is not None:
                return broken, ()
        bombs = [g for g in plan if g.is_bomb and beats(g, table)]
        if bombs and self._bomb_now(table, table_seat, plan, len(bombs), counts):
            g = min(bombs, key=lambda g: g.power)
            return g, (g,)
        return None

    def _bomb_now(
        self, table: Group, table_seat: str, plan: list[Group], bombs: int, counts: dict[str, int]
    ) -> bool:
        """Whether to spend a bomb on an opponent's play. Yes when the seat that would lead next is
        close to going out (or its partner is very close); when the rest of the hand runs out after
        winning the lead (always with one plain play left; with more, only a skilled bot sees it);
        when a player is already out and the level is at stake; or on a whim on a big play."""
        style = self.style
        leads_next = table_seat if counts[table_seat] else PARTNER[table_seat]
        if counts[leads_next] <= style.bomb_threshold:
            return True
        feeds = counts[PARTNER[leads_next]]
        if 0 < feeds <= style.bomb_threshold // 2:
            return True
        turns = plays_needed(plan)
        if turns <= 1 or (turns <= bombs and self._skilled()):
            return True
        if 0 in counts.values() and counts[leads_next] <= style.bomb_threshold + 3:
            return True
        big = len(table.cards) >= 5 or (table.key >= 14 and table.kind != "single")
        return big and self.rng.random() < style.bomb_whim

    def _random_follow(self, table: Group, plan: list[Group]) -> Choice | None:
        """A blunder: pass, or any planned group that beats the table at random (bombs only sometimes)."""
        wasted = self.rng.random() < MISBOMB
        options = [g for g in plan if beats(g, table) and (wasted or not g.is_bomb)]
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


def _feed_partner(plain: list[Group], partner: int, danger: int) -> Group | None:
    """A low single or pair to lead for a partner close to going out and closer than the opponents."""
    if not 0 < partner <= SUPPORT_CARDS or partner >= danger:
        return None
    kinds = ("single",) if partner == 1 else ("single", "pair")
    low = [g for g in plain if g.kind in kinds and g.key <= 10]
    return min(low, key=lambda g: (len(g.cards) != min(partner, 2), g.key), default=None)


def _cheap_pair(plan: list[Group], triple: Group) -> Group | None:
    """The lowest plain pair to carry with a triple (no jokers, no wild level pair)."""
    pairs = [g for g in plan if g.kind == "pair" and not g.wild and g.key <= 14 and g.rank != triple.rank]
    return min(pairs, key=lambda g: g.key, default=None)


def _whole_hand(plan: list[Group]) -> Choice | None:
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


def _same_type(table: Group, plan: list[Group]) -> Choice | None:
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
