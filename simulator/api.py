"""The simulator's entry points: whole runs to a directory, or one match in memory.

`simulate_to_dir` writes event files (one per tournament round, league session or chunk of
matches; names depend only on the arguments), `players.json` with each player's true skill and
style, and with `corrupt` > 0 a `corrupt/` folder of damaged logs plus `corrupt/manifest.json`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

import orjson

from replay.rulesets import (
    RULESET_SUFFIXES,
    RoundFormat,
    Ruleset,
    get_ruleset,
    parse_round_format,
    parse_ruleset,
)
from schemas.vocabulary import SEATS
from simulator.corrupt import corrupt_match
from simulator.league import ATTENDANCE, League
from simulator.match import MatchResult, MatchSpec, Player, play_match
from simulator.roster import make_players, make_teams
from simulator.runner import Played, Runner
from simulator.tournament import CHINA, SYSTEMS, Tournament

KINDS = ("tournament", "league", "matches")
MATCHES_PER_FILE = 100
MATCHES_START = datetime(2026, 5, 1, 10, 0, tzinfo=CHINA)
"""When the first of the independent matches (``kind="matches"``) starts by default."""
DEFAULT_ROUNDS = {"tournament": 5, "league": 40}
DEFAULT_LEAGUE_PLAYERS = 240


@dataclass(slots=True)
class SimulationSummary:
    """What a run wrote: files (relative to `out`), counts, and the damaged matches if any."""

    out: Path
    kind: str
    files: list[str] = field(default_factory=list)
    matches: int = 0
    deals: int = 0
    events: int = 0
    players: int = 0
    corrupted: int = 0


class _Schedule(Protocol):
    rounds: int

    def file_name(self, round_no: int) -> str: ...
    def specs(self, round_no: int) -> list[MatchSpec]: ...
    def record(self, results: list[MatchResult]) -> None: ...


def resolve_rules(rules: str) -> Ruleset:
    """A built-in ruleset id, or a path to a ruleset file (.toml/.json) for a custom variant.

    The file is read here, at the edge: the rules engine itself does no I/O.
    """
    path = Path(rules)
    if path.suffix in RULESET_SUFFIXES:
        return parse_ruleset(path.read_text(encoding="utf-8"), path.suffix)
    return get_ruleset(rules)


def resolve_format(fmt: str | RoundFormat | None, rules: Ruleset) -> RoundFormat:
    """The round format: given as text (`deals:5`), as a RoundFormat, or the ruleset's default."""
    if fmt is None:
        return rules.default_format
    if isinstance(fmt, RoundFormat):
        return fmt
    return parse_round_format(fmt)


def simulate_match(
    rules: str = "national",
    format: str | RoundFormat | None = None,
    seed: int = 0,
    *,
    skills: tuple[float, float, float, float] | None = None,
    styles: tuple[str, str, str, str] | None = None,
    match_id: str | None = None,
) -> list[dict[str, Any]]:
    """The events of one simulated match (seats E, N, W, S get players p0001…p0004)."""
    ruleset = resolve_rules(rules)
    players = make_players(4, seed)
    if skills is not None:
        players = [replace(p, skill=s) for p, s in zip(players, skills, strict=True)]
    if styles is not None:
        players = [replace(p, style=s) for p, s in zip(players, styles, strict=True)]
    mid = match_id or f"{ruleset.id}-single-s{seed}"
    spec = MatchSpec(
        match_id=mid,
        rules=ruleset,
        format=resolve_format(format, ruleset),
        seats=dict(zip(SEATS, players, strict=True)),
        seed=f"{mid}:{seed}",
        deck_seed=f"{mid}:deck:{seed}",
        start=datetime(2026, 6, 18, 13, 0, tzinfo=CHINA),
    )
    return play_match(spec)[0]


class _Matches:
    """Independent matches among a pool of players, written in chunks of MATCHES_PER_FILE."""

    def __init__(
        self, players: list[Player], rules: Ruleset, fmt: RoundFormat, seed: int, count: int, start: datetime
    ) -> None:
        self.players = players
        self.start = start
        self.rules = rules
        self.format = fmt
        self.seed = seed
        self.count = count
        self.rounds = (count + MATCHES_PER_FILE - 1) // MATCHES_PER_FILE
        self.prefix = f"{rules.id}-matches-s{seed}"

    def file_name(self, round_no: int) -> str:
        return f"{self.prefix}-{round_no:03d}.jsonl"

    def specs(self, round_no: int) -> list[MatchSpec]:
        first = (round_no - 1) * MATCHES_PER_FILE
        specs = []
        for i in range(first, min(first + MATCHES_PER_FILE, self.count)):
            match_id = f"{self.prefix}-m{i + 1:05d}"
            rng = random.Random(match_id)
            four = rng.sample(self.players, 4)
            specs.append(
                MatchSpec(
                    match_id=match_id,
                    rules=self.rules,
                    format=self.format,
                    seats=dict(zip(SEATS, four, strict=True)),
                    seed=f"{match_id}:{self.seed}",
                    deck_seed=f"{match_id}:deck:{self.seed}",
                    start=self.start + timedelta(hours=2 * i),
                )
            )
        return specs

    def record(self, results: list[MatchResult]) -> None:
        """Independent matches carry nothing to the next chunk."""


@contextmanager
def _progress(enabled: bool, total: int, label: str) -> Iterator[Callable[[MatchResult], None]]:
    """A rich progress bar advanced once per finished match (a no-op callback when disabled)."""
    if not enabled:
        yield lambda _result: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn()
    ) as bar:
        task = bar.add_task(label, total=total)
        yield lambda _result: bar.advance(task)


def simulate_to_dir(
    out: Path,
    kind: str = "tournament",
    *,
    pairs: int = 8,
    rounds: int | None = None,
    rules: str | None = None,
    format: str | RoundFormat | None = None,
    seed: int = 0,
    workers: int = 1,
    corrupt: float = 0.0,
    players: int | None = None,
    matches: int = 20,
    system: str = "swiss",
    knockout: int = 0,
    shared_boards: bool = False,
    progress: bool = False,
    start: datetime = MATCHES_START,
) -> SimulationSummary:
    """Simulate a tournament, a league or independent matches into `out` (see module doc).

    Defaults: tournaments are Swiss (`system`: swiss, round_robin, duplicate or knockout) of
    `pairs` pairs over 5 rounds under `national`, then, with `knockout` = k, a knockout stage of
    the first k (``simulator.tournament``); a duplicate tournament with `shared_boards` plays one
    board a round at every table, compared across all the round's rooms; leagues have 240 players
    over 40 sessions under `bcta` (its 60-minute / 11-deal rounds); `matches` runs `matches`
    independent matches among `players` (default 16) players, two hours apart from `start`.
    `rounds` and `format` override the defaults.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; expected one of {', '.join(KINDS)}")
    if not 0.0 <= corrupt <= 1.0:
        raise ValueError(f"corrupt rate must be between 0 and 1, got {corrupt}")
    ruleset = resolve_rules(rules or ("bcta" if kind == "league" else "national"))
    fmt = resolve_format(format, ruleset)
    n_rounds = rounds if rounds is not None else DEFAULT_ROUNDS.get(kind, 1)
    schedule: _Schedule
    if kind == "tournament":
        if system not in SYSTEMS:
            raise ValueError(f"unknown tournament system {system!r}; expected one of {', '.join(SYSTEMS)}")
        teams, roster = make_teams(pairs, seed)
        schedule = Tournament(teams, system, ruleset, fmt, seed, n_rounds, knockout, shared_boards)
        team_of = {p.id: t.id for t in teams for p in t.players}
    elif kind == "league":
        roster = make_players(players or DEFAULT_LEAGUE_PLAYERS, seed)
        schedule = League(roster, ruleset, fmt, seed, n_rounds)
        team_of = {}
    else:
        roster = make_players(players or 16, seed)
        schedule = _Matches(roster, ruleset, fmt, seed, matches, start)
        team_of = {}
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    summary = SimulationSummary(out=out, kind=kind, players=len(roster))
    damaged: list[tuple[str, bytes, dict[str, Any]]] = []
    corrupt_rng = random.Random(f"corrupt:{seed}")
    total = _total(schedule, pairs, system)
    with Runner(workers) as runner, _progress(progress, total, f"simulating {kind}") as tick:
        for round_no in range(1, schedule.rounds + 1):
            specs = schedule.specs(round_no)
            played = runner.run(specs, tick)
            schedule.record([result for _, result in played])
            name = schedule.file_name(round_no)
            (out / name).write_bytes(b"".join(lines for lines, _ in played))
            summary.files.append(name)
            _count(summary, played)
            for lines, _ in played:
                if corrupt > 0 and corrupt_rng.random() < corrupt:
                    data, entry = corrupt_match(lines, len(damaged), corrupt_rng)
                    damaged.append((f"{entry['match']}.jsonl", data, entry))
    _write_players(out / "players.json", roster, team_of)
    if corrupt > 0:
        _write_corrupt(out / "corrupt", damaged)
        summary.corrupted = len(damaged)
    return summary


def _total(schedule: _Schedule, pairs: int, system: str) -> int:
    """Matches the run will play, for the progress bar (leagues: expected attendance)."""
    if isinstance(schedule, _Matches):
        return schedule.count
    if isinstance(schedule, League):
        return schedule.rounds * int(len(schedule.players) * ATTENDANCE // 4)
    return schedule.rounds * (pairs // 2) * (2 if system == "duplicate" else 1)


def _count(summary: SimulationSummary, played: list[Played]) -> None:
    for lines, result in played:
        summary.matches += 1
        summary.deals += result.deals
        summary.events += lines.count(b"\n")


def _write_players(path: Path, roster: list[Player], team_of: dict[str, str]) -> None:
    """players.json: id, name, club, true skill and style of every player (plus team if any)."""
    rows = []
    for p in roster:
        row: dict[str, Any] = {"id": p.id, "name": p.name, "club": p.club, "skill": p.skill, "style": p.style}
        if p.id in team_of:
            row["team"] = team_of[p.id]
        rows.append(row)
    path.write_bytes(orjson.dumps(rows, option=orjson.OPT_INDENT_2) + b"\n")


def _write_corrupt(folder: Path, damaged: list[tuple[str, bytes, dict[str, Any]]]) -> None:
    """The damaged logs, one file per match, and manifest.json listing the expected first errors."""
    folder.mkdir(parents=True, exist_ok=True)
    entries = []
    for name, data, entry in damaged:
        (folder / name).write_bytes(data)
        entries.append({**entry, "file": name})
    manifest = {"version": 1, "matches": entries}
    (folder / "manifest.json").write_bytes(orjson.dumps(manifest, option=orjson.OPT_INDENT_2) + b"\n")
