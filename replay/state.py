"""Deal and match state held by the replayer (rules.md §1, §2, §5–§7).

Hands are multisets (``Counter``); a seat whose hand the log does not show has ``None`` as its
hand but still a card count, so turn order, going out and card counts are always checked.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from replay.combos import BeatKey, Combo
from schemas.vocabulary import NEXT, SEATS, TEAMS

HAND_SIZE = 27


def ranked_last_orders(out: list[str], last: list[str]) -> list[list[str]]:
    """The full finishing orders of a deal whose ``rank_last`` rulings (docs/event-extensions.md)
    rank the seats ``last`` last, in ruling order (the latest ruled is 4th): the seats ``out`` in
    the order they went out, without the seats ruled last, move up; then the seats neither out nor
    ruled last; then ``last``.

    Two seats that never went out (the deal ended as a double win, rules.md §5.7) have no places of
    their own: both orders are returned, as after a double win they are partners and their order
    changes neither the level gain nor the tribute team. One order otherwise.
    """
    head = [s for s in out if s not in last]
    left = [s for s in SEATS if s not in out and s not in last]
    orders = [head + left + last]
    if len(left) == 2:
        orders.append(head + left[::-1] + last)
    return orders


@dataclass(slots=True)
class Trick:
    """The trick in progress: the last play on the table and who made it."""

    no: int = 1
    table: Combo | None = None
    key: BeatKey | None = None
    """The table's ``replay.combos.beat_key`` at the deal's level: every later play and pass of
    the trick is compared with it."""
    table_seat: str | None = None
    passes: int = 0
    pos: int = 0


@dataclass(slots=True)
class DealState:
    """Everything about the deal being replayed."""

    no: int
    level: str
    declarers: str | None
    seq: int
    hands: dict[str, Counter[str] | None]
    dealt: dict[str, list[str] | None]
    counts: dict[str, int]
    claimed_leader: str | None
    started_at: datetime | None
    levels_before: dict[str, str]
    wild: str = ""
    """The deal's wild card, the heart level card (rules.md §2)."""
    tribute_kind: str | None = "none"
    """None: a results-only deal owed a tribute its log does not show (unknown kind)."""
    leader: str | None = None
    turn: str | None = None
    trick: Trick = field(default_factory=Trick)
    out: list[str] = field(default_factory=list)
    over: bool = False
    foul_team: str | None = None
    ranked_last: list[str] = field(default_factory=list)
    """Seats a ``rank_last`` ruling places last when the deal ends, in ruling order
    (docs/event-extensions.md)."""
    jie_feng: int = 0
    bombs: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SEATS, 0))
    plays: int = 0
    passes: int = 0
    extra_deal: bool = False
    """The deal that breaks a round the format ended level (``Ruleset.extra_deal``, rules.md §7)."""
    first_rules: bool = False
    """Played by a match's first-deal rules: no tribute, the leader named by ``deal_start.leader``."""
    results_only: bool = False
    """No hand is shown and no card played (yet): a deal that may end as a results-only deal
    (docs/event-extensions.md); its first play makes it a partial deal instead."""

    def next_active(self, seat: str) -> str:
        """The next seat after ``seat`` in play order that still holds cards (rules.md §5.3)."""
        s = NEXT[seat]
        while self.counts[s] == 0:
            s = NEXT[s]
        return s

    def transfer(self, giver: str, receiver: str, card: str) -> None:
        """Move one card between hands (tribute or return); unknown hands only change their count."""
        hand = self.hands[giver]
        if hand is not None:
            left = hand[card] - 1
            if left:
                hand[card] = left
            else:
                del hand[card]
        other = self.hands[receiver]
        if other is not None:
            other[card] += 1
        self.counts[giver] -= 1
        self.counts[receiver] += 1


@dataclass(slots=True)
class MatchState:
    """Everything about the match that outlives a deal: levels, declarers, A attempts, the end."""

    match_id: str
    rules: str
    seats: dict[str, str]
    start: dict[str, Any]
    started_at: datetime | None
    levels: dict[str, str]
    start_levels: dict[str, str]
    format_kind: str
    format_deals: int | None
    format_minutes: int | None
    deals_played: int = 0
    next_declarers: str | None = None
    prev_order: list[str] | None = None
    prev_double_win: bool = False
    prev_foul: bool = False
    prev_winner: str | None = None
    last_declarers: str | None = None
    a_failures: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TEAMS, 0))
    passed_a: str | None = None
    lost_on_a: str | None = None
    forfeited_by: str | None = None
    extra_deal: bool = False
    level_round_breaks: bool = False
    """Whether a round the format ends level gets an extra deal here (``Ruleset.extra_deal_breaks``
    of ``match_start.event``: its ``last_round`` or ``stage``, docs/event-extensions.md)."""
    first_time: datetime | None = None
    """The first ``t`` of the stream from ``match_start`` on: its offset is the match's local time
    when ``match_start`` itself has no ``t``."""
    last_time: datetime | None = None
    partial: bool = False
    ended: bool = False
