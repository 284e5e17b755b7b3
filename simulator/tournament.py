"""Simulated tournaments: Swiss, round robin and duplicate (scoring.md §S2, §S3, §S8).

Round 1 is a random draw in which pairs of the same club do not meet where avoidable (`jiangsu`,
scoring.md §S8). A tournament is played round by round: `specs(round)` builds the round's matches from the
standings so far, `record(round, results)` scores them (match points 2/1/0, bye 1.5 and 17,
level-difference points 13 ± d) for the next Swiss pairing.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Literal

from replay.rulesets import RoundFormat, Ruleset
from scoring.pairing import pair_round
from simulator.match import MatchResult, MatchSpec
from simulator.roster import Team

SYSTEMS = ("swiss", "round_robin", "duplicate")
CHINA = timezone(timedelta(hours=8))
_NAMES = {"swiss": "Swiss Open", "round_robin": "Round Robin Cup", "duplicate": "Duplicate Pairs"}


@dataclass(slots=True)
class Standing:
    """A team's running score: match points, level-difference points and its opponents."""

    match_points: float = 0.0
    level_points: int = 0
    met: set[str] = field(default_factory=set)
    bye: bool = False


def level_difference(result: MatchResult) -> int:
    """Steps between the teams' levels (scoring.md §S1; a team that passed A counts 14)."""
    ew = result.levels["EW"] + 1 + (result.passed_a == "EW")
    ns = result.levels["NS"] + 1 + (result.passed_a == "NS")
    return abs(ew - ns)


class Tournament:
    """Pairs, schedules and scores the rounds of one simulated tournament."""

    def __init__(
        self, teams: list[Team], system: str, rules: Ruleset, fmt: RoundFormat, seed: int, rounds: int
    ) -> None:
        if system not in SYSTEMS:
            raise ValueError(f"unknown tournament system {system!r}; expected one of {', '.join(SYSTEMS)}")
        if len(teams) < 2:
            raise ValueError("a tournament needs at least 2 pairs")
        self.teams = {t.id: t for t in teams}
        self.system = system
        self.rules = rules
        self.format = fmt
        self.seed = seed
        self.rounds = rounds if system != "round_robin" else min(rounds, len(teams) - 1 + len(teams) % 2)
        self.event_id = f"{rules.id}-{system.replace('_', '')}-s{seed}"
        self.name = f"Simulated {rules.id} {_NAMES[system]}"
        self.standings = {t.id: Standing() for t in teams}
        self.next_start = datetime(2026, 6, 18, 9, 0, tzinfo=CHINA)
        self._tables: dict[str, tuple[str, str]] = {}

    def file_name(self, round_no: int) -> str:
        """Stable file name of a round's events."""
        return f"{self.event_id}-r{round_no:02d}.jsonl"

    def _ranking(self) -> list[str]:
        tiebreak = random.Random(f"rank:{self.seed}")
        jitter = {t: tiebreak.random() for t in self.teams}
        return sorted(
            self.teams,
            key=lambda t: (-self.standings[t].match_points, -self.standings[t].level_points, jitter[t]),
        )

    def _pairs(self, round_no: int) -> list[tuple[str, str]]:
        system: Literal["swiss", "round_robin"] = "round_robin" if self.system == "round_robin" else "swiss"
        ranking = list(self.teams) if round_no == 1 or system == "round_robin" else self._ranking()
        pairing = pair_round(
            system,
            round_no,
            ranking,
            met={frozenset((a, b)) for a, s in self.standings.items() for b in s.met},
            had_bye={t for t, s in self.standings.items() if s.bye},
            clubs={t: team.club for t, team in self.teams.items()},
            seed=self.seed,
        )
        if pairing.bye is not None:
            standing = self.standings[pairing.bye]
            standing.bye = True
            standing.match_points += 1.5
            standing.level_points += 17
        return [(t.ew, t.ns) for t in pairing.tables]

    def specs(self, round_no: int) -> list[MatchSpec]:
        """The matches of round `round_no`, paired from the standings after the previous round."""
        specs: list[MatchSpec] = []
        rng = random.Random(f"{self.event_id}:r{round_no}")
        for board, (a, b) in enumerate(self._pairs(round_no), start=1):
            rooms = (("open", a, b), ("closed", b, a)) if self.system == "duplicate" else ((None, a, b),)
            deck_seed = f"{self.event_id}:r{round_no}:b{board}"
            for room, ew, ns in rooms:
                table = len(specs) + 1
                match_id = f"{self.event_id}-r{round_no}-t{table}"
                e, w = self.teams[ew].players
                n, s = self.teams[ns].players
                self._tables[match_id] = (ew, ns)
                specs.append(
                    MatchSpec(
                        match_id=match_id,
                        rules=self.rules,
                        format=self.format,
                        seats={"E": e, "N": n, "W": w, "S": s},
                        seed=f"{match_id}:{self.seed}",
                        deck_seed=deck_seed if room else f"{deck_seed}:{table}",
                        start=self.next_start + timedelta(seconds=rng.randint(0, 180)),
                        event=self._event(round_no, table),
                        duplicate={"board": f"{self.event_id}-r{round_no}-b{board}", "room": room}
                        if room
                        else None,
                    )
                )
        return specs

    def _event(self, round_no: int, table: int) -> dict[str, Any]:
        """``match_start.event`` of a match; the last round is marked ``last_round`` (it may not
        end level under ``jiangsu``, seed 003 "最后一轮不能平局", docs/event-extensions.md)."""
        event: dict[str, Any] = {
            "id": self.event_id,
            "name": self.name,
            "round": round_no,
            "table": str(table),
            "stage": self.system,
        }
        if round_no == self.rounds:
            event["last_round"] = True
        return event

    def record(self, results: list[MatchResult]) -> None:
        """Score a finished round and schedule the next one after its last match."""
        for result in results:
            ew, ns = self._tables[result.match_id]
            d = level_difference(result)
            for team, side, other in ((ew, "EW", ns), (ns, "NS", ew)):
                standing = self.standings[team]
                standing.met.add(other)
                if result.winner is None:
                    standing.match_points += 1
                    standing.level_points += 13
                elif result.winner == side:
                    standing.match_points += 2
                    standing.level_points += 13 + d
                else:
                    standing.level_points += 13 - d
        last = max(r.end for r in results) if results else self.next_start
        start = last + timedelta(minutes=20)
        start += timedelta(minutes=(-start.minute) % 5, seconds=-start.second)
        self.next_start = start
