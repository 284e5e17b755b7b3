"""Duplicate (複式) scoring: each deal compared across the rooms that played the same cards.

In a duplicate event the same deals are played at two (or more) tables with the pairs' seats
turned (scoring.md §S8, national Art. 17 一(一)(1) 複式賽, Art. 37 未構成複式的牌): a deal's
cards are dealt to the same directions in every room, so the pairs holding the East–West cards
of deal *k* of a board can be compared with one another, and so can the North–South pairs.

A pair's result on a deal is the level gain of its direction, signed (+gain when its team won the
deal, −gain otherwise). Results of one deal and one direction are matchpointed as seed 004 ranks
its players by MP score rate: 2 MP for every other room's pair it beat, 1 for every tie, out of
``2 × (rooms − 1)``; its *place* on the deal is 1 + the number of pairs that did better. A deal
that was not played in at least two rooms (a match that ended earlier, a room missing) forms no
comparison (未構成複式) and scores nothing.

Standings rank pairs by MP score rate (MP / MP available); equal rates are split by the number
of deals placed first, then second, … (seed 004 "分別累計計算單副成績排名第一的個數 … 以此類推");
pairs equal on all of these share the place (seed 004 "名次並列，後續參賽者排名依次順延").
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import polars as pl

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
    places: dict[int, int] = field(default_factory=lambda: defaultdict(int))

    def rate(self) -> float | None:
        return self.mp / self.mp_max if self.mp_max else None

    def place_counts(self, most: int) -> list[int]:
        return [self.places.get(p, 0) for p in range(1, most + 1)]


def duplicate_results(matches: pl.DataFrame, deals: pl.DataFrame) -> pl.DataFrame:
    """One row per pair per compared deal: its signed result, MP, MP available and place."""
    rooms = matches.filter(pl.col("duplicate_board").is_not_null() & pl.col("status").is_in(SCORED_STATUSES))
    joined = rooms.join(deals.select("match_id", "deal_no", "winning_team", "level_gain"), on="match_id")
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = defaultdict(list)
    for row in joined.iter_rows(named=True):
        if row["winning_team"] is None:
            continue
        for direction in TEAMS:
            seats = TEAM_SEATS[direction]
            players = (row[f"player_{seats[0]}"], row[f"player_{seats[1]}"])
            gain = row["level_gain"] or 0
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
                    "result": gain if row["winning_team"] == direction else -gain,
                }
            )
    out = []
    for entries in groups.values():
        if len(entries) < 2:
            continue
        for e in entries:
            others = [o["result"] for o in entries if o is not e]
            e["mp"] = MP_WIN * sum(e["result"] > r for r in others) + MP_TIE * sum(
                e["result"] == r for r in others
            )
            e["mp_max"] = MP_WIN * len(others)
            e["place"] = 1 + sum(r > e["result"] for r in others)
            e["rooms"] = len(entries)
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
