"""Simulated tournaments: Swiss, round robin, duplicate and knockout (scoring.md §S2, §S3, §S8).

Round 1 is a random draw in which pairs of the same club do not meet where avoidable (`jiangsu`,
scoring.md §S8). A tournament is played round by round: `specs(round)` builds the round's matches from the
standings so far, `record(round, results)` scores them (match points 2/1/0, bye 1.5 and 17,
level-difference points 13 ± d) for the next Swiss pairing.

A duplicate tournament is seated by snake seating (蛇形排位, scoring.md §S9, seed 004): round 1
drawn at random, later rounds table 1 = ranks 1 v 2, table 2 = ranks 4 v 3, … by the MP score
rate so far (``scoring.duplicate``: each deal's outcome class compared across the rooms that held
the same cards, boards placed 1st, 2nd, … breaking ties); each table's board is played in an open
and a closed room with the seats turned; with ``shared_boards`` every table of a round plays the
same board, so a deal is compared across all the round's rooms (rooms ``open-t1``, ``closed-t1``, …).

A knockout stage (``scoring.knockout``, the same code as ``gdan pair``) follows the stage's
rounds when ``knockout`` = k > 0: the first k of the ranking are seeded by their place (`huaian`
Art. 25 "以前一階段比賽的名次"), e.g. a Swiss then a top-8 knockout. System ``knockout`` is a
knockout of every pair from the start, seeded by the pairs' strength (`huaian` Art. 25 "按各方選手
的實力"). Its matches are stage ``knockout``, rounds numbered from 1 within it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Literal

from replay.rulesets import RoundFormat, Ruleset
from scoring.duplicate import matchpoints
from scoring.knockout import knockout_round, rounds_needed
from scoring.pairing import pair_round
from simulator.match import MatchResult, MatchSpec
from simulator.roster import Team

SYSTEMS = ("swiss", "round_robin", "duplicate", "knockout")
CHINA = timezone(timedelta(hours=8))
_NAMES = {
    "swiss": "Swiss Open",
    "round_robin": "Round Robin Cup",
    "duplicate": "Duplicate Pairs",
    "knockout": "Knockout Cup",
}
KNOCKOUT_STAGE = "knockout"


@dataclass(slots=True)
class Standing:
    """A team's running score: match points, level-difference points and its opponents."""

    match_points: float = 0.0
    level_points: int = 0
    met: set[str] = field(default_factory=set)
    bye: bool = False
    mp: int = 0
    """Duplicate: matchpoints earned, out of ``mp_max`` (scoring.md §S9)."""
    mp_max: int = 0
    places: list[int] = field(default_factory=list)
    """Duplicate: the place of each compared result (1 = best)."""

    def mp_key(self, most: int) -> tuple[float, ...]:
        """The §S9 order: MP score rate, then results placed 1st, 2nd, … ``most`` (higher first)."""
        rate = self.mp / self.mp_max if self.mp_max else 0.0
        return (rate, *(self.places.count(k) for k in range(1, most + 1)))


def level_difference(result: MatchResult) -> int:
    """Steps between the teams' levels (scoring.md §S1; a team that passed A counts 14)."""
    ew = result.levels["EW"] + 1 + (result.passed_a == "EW")
    ns = result.levels["NS"] + 1 + (result.passed_a == "NS")
    return abs(ew - ns)


class Tournament:
    """Pairs, schedules and scores the rounds of one simulated tournament."""

    def __init__(
        self,
        teams: list[Team],
        system: str,
        rules: Ruleset,
        fmt: RoundFormat,
        seed: int,
        rounds: int,
        knockout: int = 0,
        shared_boards: bool = False,
    ) -> None:
        if system not in SYSTEMS:
            raise ValueError(f"unknown tournament system {system!r}; expected one of {', '.join(SYSTEMS)}")
        if len(teams) < 2:
            raise ValueError("a tournament needs at least 2 pairs")
        qualifiers = len(teams) if system == "knockout" else knockout
        if qualifiers:
            _check_knockout(qualifiers, len(teams), rules, fmt)
        self.teams = {t.id: t for t in teams}
        self.system = system
        self.rules = rules
        self.format = fmt
        self.seed = seed
        self.shared_boards = shared_boards and system == "duplicate"
        """Duplicate: every table of a round plays the same board, so each deal is compared across
        all the round's rooms (2 per table) instead of the two rooms of one table."""
        if system == "knockout":
            rounds = 0
        elif system == "round_robin":
            rounds = min(rounds, len(teams) - 1 + len(teams) % 2)
        self.stage_rounds = rounds
        self.qualifiers = qualifiers
        self.rounds = rounds + (rounds_needed(qualifiers) if qualifiers else 0)
        self.seeds: list[str] = []
        self.winners: dict[frozenset[str], str] = {}
        self.event_id = f"{rules.id}-{system.replace('_', '')}-s{seed}"
        self.name = f"Simulated {rules.id} {_NAMES[system]}"
        self.standings = {t.id: Standing() for t in teams}
        self.next_start = datetime(2026, 6, 18, 9, 0, tzinfo=CHINA)
        self._tables: dict[str, tuple[str, str]] = {}
        self._boards: dict[str, str] = {}
        """Duplicate: match id → its board."""

    def file_name(self, round_no: int) -> str:
        """Stable file name of a round's events (knockout rounds: ``-koNN``)."""
        if round_no > self.stage_rounds:
            return f"{self.event_id}-ko{round_no - self.stage_rounds:02d}.jsonl"
        return f"{self.event_id}-r{round_no:02d}.jsonl"

    def _knockout_pairs(self, ko_round: int) -> list[tuple[str, str]]:
        """Round ``ko_round`` of the knockout: seeded once from the ranking when it starts."""
        if ko_round == 1:
            if self.system == "knockout":
                strength = {t: sum(p.skill for p in team.players) for t, team in self.teams.items()}
                self.seeds = sorted(self.teams, key=lambda t: (-strength[t], t))
            else:
                self.seeds = self._ranking()[: self.qualifiers]
        planned = knockout_round(self.seeds, ko_round, self.winners)
        return [(m.home, m.away) for m in planned.matches]

    def _ranking(self) -> list[str]:
        tiebreak = random.Random(f"rank:{self.seed}")
        jitter = {t: tiebreak.random() for t in self.teams}
        if self.system == "duplicate":
            most = max((p for s in self.standings.values() for p in s.places), default=1)
            mp_key = {t: tuple(-v for v in self.standings[t].mp_key(most)) for t in self.teams}
            return sorted(self.teams, key=lambda t: (mp_key[t], jitter[t]))
        return sorted(
            self.teams,
            key=lambda t: (-self.standings[t].match_points, -self.standings[t].level_points, jitter[t]),
        )

    def _pairs(self, round_no: int) -> list[tuple[str, str]]:
        systems: dict[str, Literal["swiss", "round_robin", "snake"]] = {
            "round_robin": "round_robin",
            "duplicate": "snake",
        }
        system = systems.get(self.system, "swiss")
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
        ko_round = round_no - self.stage_rounds
        if ko_round > 0:
            pairs, stage, stage_round, tag = self._knockout_pairs(ko_round), KNOCKOUT_STAGE, ko_round, "ko"
        else:
            pairs, stage, stage_round, tag = self._pairs(round_no), self.system, round_no, "r"
        shared = self.shared_boards and ko_round <= 0
        for number, (a, b) in enumerate(pairs, start=1):
            board = 1 if shared else number
            rooms: tuple[tuple[str | None, str, str], ...] = (
                (("open", a, b), ("closed", b, a))
                if self.system == "duplicate" and ko_round <= 0
                else ((None, a, b),)
            )
            if shared:
                rooms = tuple((f"{room}-t{number}", ew, ns) for room, ew, ns in rooms)
            deck_seed = f"{self.event_id}:{tag}{stage_round}:b{board}"
            for room, ew, ns in rooms:
                table = len(specs) + 1
                match_id = f"{self.event_id}-{tag}{stage_round}-t{table}"
                e, w = self.teams[ew].players
                n, s = self.teams[ns].players
                self._tables[match_id] = (ew, ns)
                if room:
                    self._boards[match_id] = f"{self.event_id}-{tag}{stage_round}-b{board}"
                specs.append(
                    MatchSpec(
                        match_id=match_id,
                        rules=self.rules,
                        format=self.format,
                        seats={"E": e, "N": n, "W": w, "S": s},
                        seed=f"{match_id}:{self.seed}",
                        deck_seed=deck_seed if room else f"{deck_seed}:{table}",
                        start=self.next_start + timedelta(seconds=rng.randint(0, 180)),
                        event=self._event(round_no, stage, stage_round, table),
                        duplicate={"board": f"{self.event_id}-{tag}{stage_round}-b{board}", "room": room}
                        if room
                        else None,
                    )
                )
        return specs

    def _event(self, round_no: int, stage: str, stage_round: int, table: int) -> dict[str, Any]:
        """``match_start.event`` of a match (``round`` counted within its stage); the event's last
        round is marked ``last_round`` (it may not end level under ``jiangsu``, seed 003
        "最后一轮不能平局", docs/event-extensions.md)."""
        event: dict[str, Any] = {
            "id": self.event_id,
            "name": self.name,
            "round": stage_round,
            "table": str(table),
            "stage": stage,
        }
        if round_no == self.rounds:
            event["last_round"] = True
        return event

    def record(self, results: list[MatchResult]) -> None:
        """Score a finished round and schedule the next one after its last match."""
        for result in results:
            ew, ns = self._tables[result.match_id]
            if result.winner is not None:
                self.winners[frozenset((ew, ns))] = ew if result.winner == "EW" else ns
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
        self._matchpoint(results)
        last = max(r.end for r in results) if results else self.next_start
        start = last + timedelta(minutes=20)
        start += timedelta(minutes=(-start.minute) % 5, seconds=-start.second)
        self.next_start = start


    def _matchpoint(self, results: list[MatchResult]) -> None:
        """Duplicate rooms: compare each deal's outcome class of the pairs that held the same cards
        (scoring.md §S9) and add their matchpoints and places to the standings."""
        compared: dict[tuple[str, int, str], list[tuple[str, int]]] = {}
        for result in results:
            board = self._boards.get(result.match_id)
            if board is None:
                continue
            teams = dict(zip(("EW", "NS"), self._tables[result.match_id], strict=True))
            for deal_no, (winner, outcome) in enumerate(result.deal_winners, start=1):
                for side, team in teams.items():
                    held = compared.setdefault((board, deal_no, side), [])
                    held.append((team, outcome if side == winner else -outcome))
        for entries in compared.values():
            if len(entries) < 2:
                continue  # played in one room only: no comparison (national Art. 37)
            scored = matchpoints([r for _, r in entries])
            for (team, _), (mp, mp_max, place) in zip(entries, scored, strict=True):
                standing = self.standings[team]
                standing.mp += mp
                standing.mp_max += mp_max
                standing.places.append(place)


def _check_knockout(qualifiers: int, teams: int, rules: Ruleset, fmt: RoundFormat) -> None:
    """A knockout needs 2 ≤ k ≤ teams qualifiers and rounds that always have a winner.

    `huaian` Art. 14 五 "若采用淘汰賽賽制時 … 每輪比賽的雙方都必須分出勝負": a round played to
    A always has one; a round limited by deals or time needs the ruleset's ``draw_breaker`` (the
    `national` and `huaian` rulesets play a knockout's level round on, Art. 49 二 / Art. 14 五).
    """
    if not 2 <= qualifiers <= teams:
        raise ValueError(f"a knockout of {qualifiers} pairs needs between 2 and {teams} (the pairs entered)")
    knockout = {"stage": KNOCKOUT_STAGE}
    every_round_breaks = rules.draw_breaker == "declarers" or rules.extra_deal_breaks(knockout)
    if fmt.kind != "until_a" and not every_round_breaks:
        raise ValueError(
            f"a knockout match must have a winner: ruleset {rules.id} with {fmt.kind} rounds can end "
            "level and no draw_breaker decides every round; play until_a or use a ruleset that breaks ties"
        )
