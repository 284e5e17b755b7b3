"""A simulated dan league: many players, clubs, weekly sessions over months (scoring.md §S5).

Each session, most players turn up; tables of four are formed among players of similar standing
(approximate BCTA dan points with noise, so that most opponents share a dan and some do not), and
partners are drawn at random at each table. The league keeps only an approximate points total for
matchmaking; the authoritative dan state is derived from the logs by the scoring pipeline.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from replay.rulesets import RoundFormat, Ruleset
from schemas.vocabulary import SEATS
from simulator.match import MatchResult, MatchSpec, Player
from simulator.tournament import CHINA

DAN_THRESHOLDS = (10_000, 25_000, 40_000, 60_000, 80_000, 110_000, 140_000)
"""Points needed for dan 1 … 7 (scoring.md §S5 table)."""
DEAL_POINTS = {1: 10, 2: 30, 3: 50}
"""Dan points for a deal won by going up 1, 2, 3 levels (scoring.md §S5)."""
ATTENDANCE = 0.85
"""Chance that a player turns up to a session."""
MATCHMAKING_NOISE = 0.7
"""Standard deviation, in dans, of the noise on the matchmaking key (mixes neighbouring dans)."""


def approximate_dan(points: int) -> int:
    """The dan a points total would reach if every round counted (matchmaking only)."""
    return sum(points >= t for t in DAN_THRESHOLDS)


class League:
    """Schedules sessions of a league and keeps approximate points for matchmaking."""

    def __init__(
        self, players: list[Player], rules: Ruleset, fmt: RoundFormat, seed: int, rounds: int
    ) -> None:
        if len(players) < 4:
            raise ValueError("a league needs at least 4 players")
        self.players = players
        self.rules = rules
        self.format = fmt
        self.seed = seed
        self.rounds = rounds
        self.event_id = f"{rules.id}-league-s{seed}"
        self.points = {p.id: 0 for p in players}
        self._seats: dict[str, dict[str, str]] = {}

    def file_name(self, round_no: int) -> str:
        """Stable file name of a session's events."""
        return f"{self.event_id}-r{round_no:03d}.jsonl"

    def session_start(self, round_no: int) -> datetime:
        """Sessions every 3 or 4 days at 19:30, starting 2026-03-02: months of simulated time."""
        day = datetime(2026, 3, 2, 19, 30, tzinfo=CHINA)
        return day + timedelta(days=(round_no - 1) * 7 // 2)

    def specs(self, round_no: int) -> list[MatchSpec]:
        """The tables of session `round_no`."""
        rng = random.Random(f"{self.event_id}:r{round_no}")
        present = [p for p in self.players if rng.random() < ATTENDANCE]
        key = {p.id: approximate_dan(self.points[p.id]) + rng.gauss(0.0, MATCHMAKING_NOISE) for p in present}
        present.sort(key=lambda p: key[p.id])
        present = present[: len(present) - len(present) % 4]
        start = self.session_start(round_no)
        specs = []
        for t in range(len(present) // 4):
            four = present[4 * t : 4 * t + 4]
            rng.shuffle(four)
            match_id = f"{self.event_id}-r{round_no}-t{t + 1}"
            seats = dict(zip(("E", "W", "N", "S"), four, strict=True))
            self._seats[match_id] = {s: p.id for s, p in seats.items()}
            specs.append(
                MatchSpec(
                    match_id=match_id,
                    rules=self.rules,
                    format=self.format,
                    seats={s: seats[s] for s in SEATS},
                    seed=f"{match_id}:{self.seed}",
                    deck_seed=f"{match_id}:deck:{self.seed}",
                    start=start + timedelta(seconds=rng.randint(0, 300)),
                    event={
                        "id": self.event_id,
                        "name": f"Simulated {self.rules.id} dan league",
                        "round": round_no,
                        "table": str(t + 1),
                        "stage": "league",
                    },
                )
            )
        return specs

    def record(self, results: list[MatchResult]) -> None:
        """Add approximate dan points (round 400/200/0 plus deal bonuses) for matchmaking."""
        for result in results:
            seats = self._seats.pop(result.match_id)
            gains = {"EW": 0, "NS": 0}
            for team, up in result.deal_winners:
                gains[team] += DEAL_POINTS[up]
            if result.winner is None:
                gains["EW"] += 200
                gains["NS"] += 200
            else:
                gains[result.winner] += 400
            for seat, pid in seats.items():
                self.points[pid] += gains["EW" if seat in ("E", "W") else "NS"]
