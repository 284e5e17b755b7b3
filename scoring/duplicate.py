"""Duplicate (複式) scoring: each deal compared across the rooms that played the same cards.

In a duplicate event the same deals are played at two (or more) tables with the pairs' seats
turned (scoring.md §S8, national Art. 17 一(一)(1) 複式賽, Art. 37 未構成複式的牌): a deal's
cards are dealt to the same directions in every room, so the pairs holding the East–West cards
of deal *k* of a board can be compared with one another, and so can the North–South pairs.

A pair's result on a deal is the deal's outcome class for its direction by finishing places
(scoring.md §S5, §S9): +3 / +2 / +1 when its team won with the partner 2nd / 3rd / 4th
(:func:`replay.outcome.finish_gain` over ``deals.finish_order``, the amended order after a foul or
a ``rank_last`` ruling), −3 / −2 / −1 when the other team did. Not the capped level gain: a deal won
at A or a double win at K is as good as the same finish at 2. Results of one deal and one direction
are matchpointed as seed 004 ranks its players by MP score rate: 2 MP for every other room's pair
it beat, 1 for every tie, out of ``2 × (rooms − 1)``; its *place* on the deal is 1 + the number of
pairs that did better. A deal
that was not played in at least two rooms (a match that ended earlier, a room missing) forms no
comparison (未構成複式) and scores nothing.

Standings rank pairs by MP score rate (MP / MP available); equal rates are split by the number
of deals placed first, then second, … (seed 004 "分別累計計算單副成績排名第一的個數 … 以此類推");
pairs equal on all of these share the place and the next place is skipped (seed 004 "名次並列，
後續參賽者排名依次順延"; §S9). The rooms of one board are one match (``matches`` counts board-sets,
not rooms): a pair that met another in both rooms of a board met it once.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from replay.outcome import finish_gain
from schemas.scoring import DUPLICATE_RESULTS, DUPLICATE_STANDINGS
from schemas.vocabulary import TEAM_SEATS, TEAMS
from scoring.frames import frame
from scoring.levels import team_id

SCORED_STATUSES = ("valid", "partial", "results_only")
"""Match statuses whose deals are compared (an invalid match's deals are not known)."""
MP_WIN, MP_TIE = 2, 1


@dataclass
class _Pair:
    """One pair's running totals over an event's compared deals."""

    players: tuple[str | None, str | None]
    mp: int = 0
    mp_max: int = 0
    deals: int = 0
    boards: set[Any] = field(default_factory=set)
    """The board-sets played: the two (or more) rooms of one board are one match."""
    places: dict[int, int] = field(default_factory=lambda: defaultdict(int))

    def rate(self) -> float | None:
        return self.mp / self.mp_max if self.mp_max else None

    def place_counts(self, most: int) -> list[int]:
        return [self.places.get(p, 0) for p in range(1, most + 1)]


def deal_class(match_id: str, deal_no: int, order: list[str] | None) -> int:
    """The outcome class (3, 2 or 1) of a won deal by its finishing places (§S5, §S9)."""
    if not order:
        raise ValueError(
            f"deals row of match {match_id}, deal {deal_no}: a won deal without finish_order; "
            "the duplicate comparison needs the finishing places (scoring.md §S9)"
        )
    return finish_gain(order)


def matchpoints(results: Sequence[int]) -> list[tuple[int, int, int]]:
    """Per result of one deal and one direction across the rooms: (MP, MP available, place).

    seed 004 / §S9: 2 MP for each other result it beats, 1 for each it ties, out of
    ``2 × (rooms − 1)``; the place is 1 + the number of results better than it."""
    out = []
    for i, r in enumerate(results):
        others = [o for j, o in enumerate(results) if j != i]
        mp = MP_WIN * sum(r > o for o in others) + MP_TIE * sum(r == o for o in others)
        out.append((mp, MP_WIN * len(others), 1 + sum(o > r for o in others)))
    return out


def duplicate_results(matches: pl.DataFrame, deals: pl.DataFrame) -> pl.DataFrame:
    """One row per pair per compared deal: its signed result, MP, MP available and place."""
    rooms = matches.filter(pl.col("duplicate_board").is_not_null() & pl.col("status").is_in(SCORED_STATUSES))
    joined = rooms.join(deals.select("match_id", "deal_no", "winning_team", "finish_order"), on="match_id")
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = defaultdict(list)
    for row in joined.iter_rows(named=True):
        if row["winning_team"] is None:
            continue
        outcome = deal_class(row["match_id"], row["deal_no"], row["finish_order"])
        for direction in TEAMS:
            seats = TEAM_SEATS[direction]
            players = (row[f"player_{seats[0]}"], row[f"player_{seats[1]}"])
            groups[(row["event_id"], row["stage"], row["duplicate_board"], row["deal_no"], direction)].append(
                {
                    "event_id": row["event_id"],
                    "stage": row["stage"],
                    "board": row["duplicate_board"],
                    "deal_no": row["deal_no"],
                    "direction": direction,
                    "room": row["duplicate_room"],
                    "match_id": row["match_id"],
                    "team_id": team_id(list(players), f"{row['match_id']}:{direction}"),
                    "player_1": players[0],
                    "player_2": players[1],
                    "result": outcome if row["winning_team"] == direction else -outcome,
                }
            )
    out = []
    for entries in groups.values():
        if len(entries) < 2:
            continue
        scored = matchpoints([e["result"] for e in entries])
        for e, (mp, mp_max, place) in zip(entries, scored, strict=True):
            e.update(mp=mp, mp_max=mp_max, place=place, rooms=len(entries))
            out.append(e)
    out.sort(
        key=lambda e: (
            e["event_id"] or "",
            e["stage"] or "",
            e["board"],
            e["deal_no"],
            e["direction"],
            e["room"] or "",
        )
    )
    return frame(out, DUPLICATE_RESULTS)


def duplicate_standings(results: pl.DataFrame) -> pl.DataFrame:
    """Pairs of each duplicate event ranked by MP score rate, then deals placed 1st, 2nd, …"""
    events: dict[tuple[Any, Any], dict[str, _Pair]] = defaultdict(dict)
    for r in results.iter_rows(named=True):
        pair = events[(r["event_id"], r["stage"])].setdefault(
            r["team_id"], _Pair((r["player_1"], r["player_2"]))
        )
        pair.mp += r["mp"]
        pair.mp_max += r["mp_max"]
        pair.deals += 1
        pair.boards.add(r["board"])
        pair.places[r["place"]] += 1
    out = []
    for (event_id, stage), pairs in sorted(events.items(), key=lambda kv: (kv[0][0] or "", kv[0][1] or "")):
        most = max(p for pair in pairs.values() for p in pair.places)
        keyed = sorted(sorted(pairs.items()), key=lambda kv: _order_key(kv[1], most), reverse=True)
        prev: tuple[Any, ...] | None = None
        rank = 0
        for i, (team, pair) in enumerate(keyed, start=1):
            key = _order_key(pair, most)
            if key != prev:
                rank = i
            out.append(
                {
                    "event_id": event_id,
                    "stage": stage,
                    "rank": rank,
                    "team_id": team,
                    "player_1": pair.players[0],
                    "player_2": pair.players[1],
                    "matches": len(pair.boards),
                    "deals_compared": pair.deals,
                    "mp": pair.mp,
                    "mp_max": pair.mp_max,
                    "mp_rate": pair.rate(),
                    "place_counts": pair.place_counts(most),
                    "decided_by": None if i == 1 else _decided_by(key, prev),
                }
            )
            prev = key
    return frame(out, DUPLICATE_STANDINGS)


def _order_key(pair: _Pair, most: int) -> tuple[Any, ...]:
    return (pair.rate() or 0.0, *pair.place_counts(most))


def _decided_by(key: tuple[Any, ...], above: tuple[Any, ...] | None) -> str:
    """What separates a pair from the one ranked just above it: ``mp_rate``, ``place_k`` or ``shared``."""
    if above is None or key == above:
        return "shared"
    if key[0] != above[0]:
        return "mp_rate"
    step = next(i for i, (a, b) in enumerate(zip(key[1:], above[1:], strict=True)) if a != b)
    return f"place_{step + 1}"
