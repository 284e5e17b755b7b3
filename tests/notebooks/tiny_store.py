"""A tiny, internally consistent store for executing the notebooks: a few seeded matches.

Not a rules engine: plays are random but the derived tables agree with each other the way the
replayer's output does (finish orders → winners and level gains, previous finish order →
tribute givers and receivers (rules.md §6), plays → per-deal bomb counts and trick winners).
Player ``p01`` sits in every match so that it is the player with the most deals.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa

from pipelines.storage.store import Store
from schemas.catalog import ALL_TABLES

SEATS = ("E", "N", "W", "S")
LEVELS = "23456789TJQKA"
RULES = ("national", "bcta", "huaian", "national", "jiangsu")
BOMB_SIZES = {
    "bomb4": (4, 4),
    "bomb5": (5, 5),
    "straight_flush": (5, 5),
    "bomb6plus": (6, 8),
    "joker_bomb": (4, 4),
}
PLAIN = {"single": 1, "pair": 2, "triple": 3, "full_house": 5, "straight": 5}
FOCUS_PLAYER = "p01"


def team_of(seat: str) -> str:
    """``EW`` or ``NS`` (rules.md §1)."""
    return "EW" if seat in ("E", "W") else "NS"


def _gain(order: list[str]) -> int:
    """Levels the winners go up: partner 2nd → 3, 3rd → 2, 4th → 1 (rules.md §5.8)."""
    return {1: 3, 2: 2, 3: 1}[[team_of(s) for s in order].index(team_of(order[0]), 1)]


def _position(order: list[str], seat: str) -> int | None:
    """1…4, or None for the two losers of a double win: the deal ends unranked (rules.md §5.7)."""
    position = order.index(seat) + 1
    return None if _gain(order) == 3 and position > 2 else position


class _Builder:
    """Accumulates rows of every table while generating matches."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.rows: dict[str, list[dict[str, Any]]] = {name: [] for name in ALL_TABLES}
        self.t0 = datetime(2026, 6, 18, 5, 0, tzinfo=UTC)

    def match(self, index: int, n_deals: int) -> None:
        rng = self.rng
        match_id = f"m{index:02d}"
        rules = RULES[index % len(RULES)]
        others = rng.sample([f"p{i:02d}" for i in range(2, 8)], 3)
        seats = dict(zip(SEATS, [FOCUS_PLAYER, *others], strict=True))
        levels = {"EW": 0, "NS": 0}
        prev: list[str] | None = None
        declarers: str | None = None
        start = self.t0 + timedelta(hours=index)
        for deal_no in range(1, n_deals + 1):
            level = LEVELS[levels[declarers]] if declarers else "2"
            before = dict(levels)
            order = rng.sample(SEATS, 4)
            tribute_kind = self.tributes(match_id, deal_no, prev, seats, level) if prev else "none"
            bombs, tricks, n_plays, n_passes = self.plays(match_id, deal_no, seats, order, start)
            winner = team_of(order[0])
            gain = _gain(order)
            levels[winner] = min(levels[winner] + gain, len(LEVELS) - 1)
            self.rows["deals"].append(
                {
                    "match_id": match_id,
                    "deal_no": deal_no,
                    "rules": rules,
                    "level": level,
                    "declarers": declarers,
                    "level_EW_before": LEVELS[before["EW"]],
                    "level_NS_before": LEVELS[before["NS"]],
                    "level_EW_after": LEVELS[levels["EW"]],
                    "level_NS_after": LEVELS[levels["NS"]],
                    "tribute_kind": tribute_kind,
                    "leader": order[1],
                    "finish_order": order[:2] if gain == 3 else order,
                    "winning_team": winner,
                    "level_gain": gain,
                    "double_win": gain == 3,
                    "a_attempt": False,
                    "a_passed": False,
                    "a_failed": False,
                    "foul": False,
                    "tricks": tricks,
                    "jie_feng": 0,
                    "bombs_EW": bombs["E"] + bombs["W"],
                    "bombs_NS": bombs["N"] + bombs["S"],
                    "plays": n_plays,
                    "passes": n_passes,
                    "started_at": start,
                    "ended_at": start + timedelta(minutes=5),
                }
            )
            for seat in SEATS:
                jokers = rng.randint(0, 4)
                self.rows["deal_hands"].append(
                    {
                        "match_id": match_id,
                        "deal_no": deal_no,
                        "seat": seat,
                        "player_id": seats[seat],
                        "team": team_of(seat),
                        "hand": None,
                        "jokers": jokers,
                        "big_jokers": min(jokers, rng.randint(0, 2)),
                        "wilds": rng.randint(0, 2),
                        "level_cards": rng.randint(0, 4),
                        "natural_bombs": rng.randint(0, 3),
                        "straight_flush_chances": rng.randint(0, 2),
                        "finish_position": _position(order, seat),
                        "bombs_played": bombs[seat],
                    }
                )
            prev, declarers = order, winner
            start += timedelta(minutes=6)
        self.finish_match(match_id, rules, seats, levels, n_deals, start)

    def tributes(
        self, match_id: str, deal_no: int, prev: list[str], seats: dict[str, str], level: str
    ) -> str:
        """Tribute rows for a deal from the previous finish order (rules.md §6)."""
        rng = self.rng
        double = team_of(prev[0]) == team_of(prev[1])
        pairs = [(prev[2], prev[0]), (prev[3], prev[1])] if double else [(prev[3], prev[0])]
        kind = "anti" if rng.random() < 0.15 else ("double" if double else "single")
        cards = ["HR", "SB", f"S{level}", "SA", "DK", "CQ"]
        for giver, receiver in pairs:
            paid = kind != "anti"
            self.rows["tributes"].append(
                {
                    "match_id": match_id,
                    "deal_no": deal_no,
                    "kind": kind,
                    "giver": giver,
                    "receiver": receiver if paid else None,
                    "giver_player": seats[giver],
                    "receiver_player": seats[receiver] if paid else None,
                    "card": rng.choice(cards) if paid else None,
                    "return_card": rng.choice(["S3", "H5", "C9", "DT", "SJ"]) if paid else None,
                    "equal_double": (rng.random() < 0.3) if kind == "double" else None,
                    "anti_seats": [giver] if not paid else None,
                    "level": level,
                }
            )
        return kind

    def plays(
        self, match_id: str, deal_no: int, seats: dict[str, str], order: list[str], start: datetime
    ) -> tuple[dict[str, int], int, int, int]:
        """Random tricks: a lead, then follows or passes until three passes in a row."""
        rng = self.rng
        left = dict.fromkeys(SEATS, 27)
        bombs = dict.fromkeys(SEATS, 0)
        leader = order[1]
        seq = n_plays = n_passes = 0
        n_tricks = rng.randint(4, 7)
        for trick_no in range(1, n_tricks + 1):
            seat, table_seat, table = leader, None, None
            passes_in_row, pos = 0, 0
            while passes_in_row < 3 and pos < 10:
                is_lead = pos == 0
                act_play = is_lead or rng.random() < 0.35
                row: dict[str, Any] = {
                    "match_id": match_id,
                    "deal_no": deal_no,
                    "trick_no": trick_no,
                    "seq": seq,
                    "pos_in_trick": pos,
                    "is_lead": is_lead,
                    "seat": seat,
                    "player_id": seats[seat],
                    "team": team_of(seat),
                    "action": "play" if act_play else "pass",
                    **{f"left_{s}": left[s] for s in SEATS},
                    "opp_min_left": min(left[s] for s in SEATS if team_of(s) != team_of(seat)),
                    "table_combo_type": table[0] if table else None,
                    "table_combo_rank": table[1] if table else None,
                    "table_seat": table_seat,
                    "went_out": False,
                    "t": start + timedelta(seconds=seq),
                }
                if act_play:
                    bomb = None if is_lead else rng.choice([None, None, *BOMB_SIZES])
                    combo = bomb if bomb else rng.choice(list(PLAIN))
                    size = rng.randint(*BOMB_SIZES[bomb]) if bomb else PLAIN[combo]
                    size = min(size, left[seat] - 1)
                    left[seat] -= max(size, 0)
                    rank = rng.choice(LEVELS)
                    combo_type = "bomb" if bomb in ("bomb4", "bomb5", "bomb6plus") else combo
                    row.update(
                        {
                            "cards": [f"S{rank}"] * max(size, 0),
                            "combo_type": combo_type,
                            "combo_rank": rank,
                            "combo_size": size,
                            "bomb_class": bomb,
                            "wilds_used": 0,
                            "reading_inferred": False,
                            "overtook_partner": table_seat is not None
                            and team_of(table_seat) == team_of(seat)
                            and table_seat != seat,
                            "left_after": left[seat],
                        }
                    )
                    bombs[seat] += bomb is not None
                    table, table_seat, passes_in_row = (combo_type, rank), seat, 0
                    n_plays += 1
                else:
                    row.update({"cards": None, "could_beat": rng.random() < 0.4, "left_after": left[seat]})
                    passes_in_row += 1
                    n_passes += 1
                self.rows["plays"].append(row)
                seq += 1
                pos += 1
                seat = SEATS[(SEATS.index(seat) + 1) % 4]
            leader = table_seat or leader
        return bombs, n_tricks, n_plays, n_passes

    def finish_match(
        self,
        match_id: str,
        rules: str,
        seats: dict[str, str],
        levels: dict[str, int],
        n_deals: int,
        end: datetime,
    ) -> None:
        """The match row and one player_matches row per seat."""
        winner = None if levels["EW"] == levels["NS"] else max(levels, key=lambda t: levels[t])
        start = self.t0
        self.rows["matches"].append(
            {
                "match_id": match_id,
                "rules": rules,
                "format_kind": "deals",
                "format_deals": n_deals,
                **{f"player_{s}": p for s, p in seats.items()},
                "status": "valid",
                "deals_played": n_deals,
                "start_level_EW": "2",
                "start_level_NS": "2",
                "final_level_EW": LEVELS[levels["EW"]],
                "final_level_NS": LEVELS[levels["NS"]],
                "winner": winner,
                "end_reason": "deals",
                "started_at": start,
                "ended_at": end,
            }
        )
        deals = [d for d in self.rows["deal_hands"] if d["match_id"] == match_id]
        for seat, player in seats.items():
            team = team_of(seat)
            other = "NS" if team == "EW" else "EW"
            mine = [d for d in deals if d["seat"] == seat]
            self.rows["player_matches"].append(
                {
                    "match_id": match_id,
                    "player_id": player,
                    "seat": seat,
                    "team": team,
                    "partner_id": seats[SEATS[(SEATS.index(seat) + 2) % 4]],
                    "opponent_ids": [seats[s] for s in SEATS if team_of(s) != team],
                    "rules": rules,
                    "status": "valid",
                    "result": "draw" if winner is None else ("win" if winner == team else "loss"),
                    "final_level": LEVELS[levels[team]],
                    "opp_final_level": LEVELS[levels[other]],
                    "levels_gained": levels[team],
                    "deals_played": n_deals,
                    "deals_won": sum(
                        1
                        for d in self.rows["deals"]
                        if d["match_id"] == match_id and d["winning_team"] == team
                    ),
                    **{
                        f"{n}_places": sum(1 for d in mine if d["finish_position"] == i)
                        for i, n in enumerate(("first", "second", "third", "fourth"), start=1)
                    },
                    "a_failures": 0,
                    "started_at": start,
                }
            )


def build_tiny_store(root: Path, n_matches: int = 5, n_deals: int = 6, seed: int = 7) -> Path:
    """Write the tiny store under ``root`` through ``pipelines.storage.store``, publish it, return ``root``."""
    builder = _Builder(seed)
    for index in range(n_matches):
        builder.match(index, n_deals)
    store = Store(root)
    for name, schema in ALL_TABLES.items():
        rows = builder.rows[name]
        if rows:
            store.write_table(name, pa.Table.from_pylist(rows, schema=schema))
    store.publish(store.snapshot())
    return root
