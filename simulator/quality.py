"""How the bots play, measured from the events: bombs per deal by class, straight flushes dealt and
played (rules.md §3–§4), and how often the more skilled half of a field wins.

Used by `benchmarks/bench_simulate.py --quality` and by the bot-quality tests; every figure is read
from events of format v1 (events.md), never from the bots' own plans, so that it checks what was
actually played.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from replay import bomb_class as replay_bomb_class
from replay import readings
from simulator.cards import NATURAL, SUITS

BOMB_CLASSES = ("bomb4", "bomb5", "straight_flush", "bomb6plus", "joker_bomb")
"""Bomb classes of rules.md §4, low to high, as counted here."""
EARLY = 10
"""A bomb is early when every player, the bomber included, still held at least this many cards."""


@dataclass(slots=True)
class PlayStats:
    """Counts over the deals of some matches; per-deal rates come from `per_deal`."""

    deals: int = 0
    bombs: Counter[str] = field(default_factory=Counter)
    """Bombs played, by class of BOMB_CLASSES."""
    bombs_by_style: Counter[str] = field(default_factory=Counter)
    """Bombs played, by the style of the player who played them."""
    early_by_style: Counter[str] = field(default_factory=Counter)
    """Early bombs (see EARLY) played, by the style of the player who played them."""
    seat_deals_by_style: Counter[str] = field(default_factory=Counter)
    """Deals played by a player of each style (one count per seat and deal)."""
    hands_with_straight_flush: int = 0
    """Dealt hands from which a straight flush can be formed (wilds allowed)."""

    def per_deal(self, name: str) -> float:
        """Bombs of class `name` (or ``all``) played per deal."""
        total = sum(self.bombs.values()) if name == "all" else self.bombs[name]
        return total / self.deals if self.deals else 0.0

    def per_player_deal(self, style: str, early: bool = False) -> float:
        """Bombs (or only early bombs) one player of `style` plays per deal, on average."""
        seats = self.seat_deals_by_style[style]
        played = (self.early_by_style if early else self.bombs_by_style)[style]
        return played / seats if seats else 0.0


def bomb_class(cards: list[str], declared: Mapping[str, str] | None, level: str) -> str | None:
    """The §4 bomb class of a play (`replay.bomb_class`), or None for a non-bomb; the declared reading
    wins when there is one (events.md `combo`), else the strongest reading of the cards."""
    options = readings(cards, level)
    if declared is not None:
        options = [r for r in options if r.type == declared["type"] and r.rank == declared["rank"]]
    return replay_bomb_class(options[-1]) if options else None


def has_straight_flush(hand: Iterable[str], level: str) -> bool:
    """Whether five same-suit consecutive cards can be formed from `hand`, heart level cards as wilds."""
    wild = "H" + level
    cards = list(hand)
    wilds = cards.count(wild)
    for suit in SUITS:
        present = {NATURAL[c[1]] for c in cards if c[0] == suit and c[1] in NATURAL and c != wild}
        if 14 in present:
            present.add(1)
        for low in range(1, 11):
            if sum(v in present for v in range(low, low + 5)) + wilds >= 5:
                return True
    return False


def play_stats(matches: Iterable[list[dict[str, Any]]], styles: Mapping[str, str]) -> PlayStats:
    """Counts over every deal of `matches` (lists of events); `styles` maps player id → style.

    Cards held are counted from the deal's 27 (a tribute and its return leave both counts as they
    were) minus the cards played."""
    stats = PlayStats()
    for events in matches:
        seats: dict[str, str] = {}
        held: dict[str, int] = {}
        level = "2"
        for e in events:
            kind = e["type"]
            if kind == "match_start":
                seats = {s: styles.get(pid, "") for s, pid in e["seats"].items()}
            elif kind == "deal_start":
                level = e["level"]
                held = {s: len(h) for s, h in e["hands"].items()}
                stats.deals += 1
                stats.seat_deals_by_style.update(seats.values())
                stats.hands_with_straight_flush += sum(
                    has_straight_flush(h, level) for h in e["hands"].values()
                )
            elif kind == "play":
                seat = e["seat"]
                cls = bomb_class(e["cards"], e.get("combo"), level) if len(e["cards"]) >= 4 else None
                if cls is not None:
                    stats.bombs[cls] += 1
                    stats.bombs_by_style[seats[seat]] += 1
                    if min(held.values()) >= EARLY:
                        stats.early_by_style[seats[seat]] += 1
                held[seat] -= len(e["cards"])
    return stats


def top_half_win_rate(matches: Iterable[list[dict[str, Any]]], skill: Mapping[str, float]) -> float:
    """The pooled round-win rate of the more skilled half of the players (draws count a half)."""
    wins: dict[str, float] = defaultdict(float)
    games: Counter[str] = Counter()
    for events in matches:
        start, end = events[0], events[-1]
        for seat, pid in start["seats"].items():
            team = "EW" if seat in "EW" else "NS"
            games[pid] += 1
            wins[pid] += 1.0 if end["winner"] == team else 0.5 if end["winner"] is None else 0.0
    ranked = sorted(games, key=lambda p: (skill[p], p))
    high = ranked[len(ranked) // 2 :]
    return sum(wins[p] for p in high) / sum(games[p] for p in high)
