"""Tournament pairing (scoring.md §S8, §S9): Swiss without rematches, byes, round-robin rotation,
snake seating (蛇形排位) for duplicate events and knockout brackets with seeding
(:mod:`scoring.knockout`).

One implementation for the simulator (``simulator.tournament``) and for pairing the next round
of a real event (``gdan pair``), so a simulated tournament is paired exactly like a real one.
Pure functions over team ids: the callers bring the ranking, who met whom and who had a bye.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from scoring.knockout import Winners, knockout_round

System = Literal["swiss", "round_robin", "snake", "knockout"]
SYSTEMS: tuple[System, ...] = ("swiss", "round_robin", "snake", "knockout")


@dataclass(frozen=True, slots=True)
class Table:
    """One table of a round: the team seated E–W and the team seated N–S."""

    number: int
    ew: str
    ns: str


@dataclass(frozen=True, slots=True)
class RoundPairing:
    """The tables of one round and the team that sits out with a bye (None: no bye)."""

    round: int
    system: System
    tables: tuple[Table, ...]
    bye: str | None
    rematches: tuple[tuple[str, str], ...] = ()
    """Pairs that met before: only when no rematch-free Swiss pairing exists (late rounds)."""
    byes: tuple[str, ...] = ()
    """Every team with a bye: the one of ``bye``, or a knockout's top seeds in round 1."""
    placing: tuple[int, ...] = ()
    """Numbers of the tables that play for 3rd/4th place (knockout)."""


def pair_round(
    system: System,
    round_no: int,
    teams: Sequence[str],
    met: Collection[frozenset[str]] = (),
    had_bye: Collection[str] = (),
    clubs: Mapping[str, str | None] | None = None,
    seed: int = 0,
    winners: Winners | None = None,
    third_place: bool = False,
) -> RoundPairing:
    """The tables of round ``round_no`` by §S8.

    - ``round_robin``: the circle method over ``teams`` in entry order (any round repeats the
      rotation after n − 1 rounds); the bye is the team facing the empty slot.
    - ``swiss`` round 1: a random draw from ``seed``; teams of the same club (``clubs``) do not
      meet where avoidable (`jiangsu`).
    - ``swiss`` later rounds: ``teams`` is the ranking after the previous round (best first);
      neighbours are paired top-down without rematches (``met``), and with an odd number of
      teams the lowest-ranked team without a bye (``had_bye``) sits out (`national` Art. 26).
    - ``snake`` (蛇形排位, §S9, seed 004): round 1 is the random draw of a Swiss round 1; later
      rounds seat ``teams``, the ranking after the previous round (a duplicate event's MP score
      rate), in snake order: table 1 = ranks 1 v 2, table 2 = ranks 4 v 3, table 3 = ranks 5 v 6,
      … (the first named sits E–W). Rematches are not avoided (seed 004 seats by rank alone; they
      are listed in ``rematches``). In a duplicate event each table's boards are also played in
      the other room with the seats turned, which is the caller's to schedule. With an odd
      number of teams the lowest-ranked team without a bye sits out first, as in a Swiss.
    - ``knockout``: ``teams`` is the seeding (seed 1 first, :func:`scoring.knockout.seeding`);
      round 1 is the seeded bracket with byes to the top seeds, later rounds advance the
      ``winners`` of the earlier ones (:func:`scoring.knockout.knockout_round`); the better
      seed sits E–W (the home team). ``third_place`` adds the 3rd/4th-place match to the final.
    """
    if round_no < 1:
        raise ValueError(f"round numbers start at 1, got {round_no}")
    if system == "knockout":
        planned = knockout_round(teams, round_no, winners, third_place)
        tables = tuple(Table(i, m.home, m.away) for i, m in enumerate(planned.matches, start=1))
        placing = tuple(t.number for t, m in zip(tables, planned.matches, strict=True) if m.placing)
        return RoundPairing(round_no, system, tables, None, byes=planned.byes, placing=placing)
    if system == "round_robin":
        pairs, bye = round_robin_pairs(teams, round_no)
    elif system == "swiss":
        if round_no == 1:
            ranking = first_round_order(teams, seed)
            club_of = clubs or {}
            avoid: Collection[frozenset[str]] = {
                frozenset((a, b))
                for a in teams
                for b in teams
                if a != b and club_of.get(a) is not None and club_of.get(a) == club_of.get(b)
            }
        else:
            ranking, avoid = list(teams), met
        pairs, bye = swiss_pairs(ranking, set(avoid), set(had_bye))
    elif system == "snake":
        ranking = first_round_order(teams, seed) if round_no == 1 else list(teams)
        pairs, bye = snake_pairs(ranking, set(had_bye))
    else:
        raise ValueError(f"unknown pairing system {system!r}; expected one of {', '.join(SYSTEMS)}")
    tables = tuple(Table(i, ew, ns) for i, (ew, ns) in enumerate(pairs, start=1))
    before = set(met)
    rematches = tuple((t.ew, t.ns) for t in tables if frozenset((t.ew, t.ns)) in before)
    return RoundPairing(round_no, system, tables, bye, rematches, byes=(bye,) if bye else ())


@dataclass(frozen=True, slots=True)
class MissingResults:
    """The teams (and, when the draw is known, the tables) of a round that have no result."""

    round: int
    teams: tuple[str, ...]
    tables: tuple[str, ...] = ()


def missing_results(
    round_no: int,
    teams: Collection[str],
    played: Collection[str],
    drawn: Mapping[str, tuple[str, str]] | None = None,
    played_tables: Collection[str] | None = None,
) -> MissingResults | None:
    """Which of ``teams`` have no result in round ``round_no`` (None: every team has one).

    ``played``: the teams with a played or forfeited match in it. With the round's ``drawn``
    tables (table → the teams E–W and N–S) a team of a drawn table without a result is missing,
    and so is its table; with ``played_tables`` too (the tables with a match: a duplicate round,
    whose two pairs meet at two tables, one per room), so is a drawn table not among them, with
    its teams. Without a draw, teams without a match beyond the one bye an odd number of teams
    has (§S8: at most one bye a round) are missing (the scoring would credit each of them a bye)."""
    if drawn is not None:
        unplayed = {t for pair in drawn.values() for t in pair} - set(played)
        tables = tuple(
            n for n, pair in drawn.items()
            if any(t in unplayed for t in pair) or (played_tables is not None and n not in played_tables)
        )
        lacking = sorted(unplayed | {t for n in tables for t in drawn[n]})
        return MissingResults(round_no, tuple(lacking), tables) if lacking else None
    absent = sorted(set(teams) - set(played))
    if len(absent) <= len(set(teams)) % 2:
        return None
    return MissingResults(round_no, tuple(absent))


def swiss_pairs(
    ranking: Sequence[str], met: set[frozenset[str]], had_bye: set[str]
) -> tuple[list[tuple[str, str]], str | None]:
    """Pair teams in `ranking` order (best first) so that no two teams meet twice.

    With an odd number of teams the lowest-ranked team without a bye gets it (once per team,
    `national` Art. 26). Pairs top-down with backtracking; if no rematch-free pairing exists the
    rematch constraint is dropped rather than failing the tournament.
    """
    teams = list(ranking)
    bye = None
    if len(teams) % 2:
        bye = next((t for t in reversed(teams) if t not in had_bye), teams[-1])
        teams.remove(bye)
    pairs = _pair(teams, met)
    if pairs is None:
        pairs = [(teams[i], teams[i + 1]) for i in range(0, len(teams), 2)]
    return pairs, bye


def snake_pairs(
    ranking: Sequence[str], had_bye: Collection[str] = ()
) -> tuple[list[tuple[str, str]], str | None]:
    """Snake seating (蛇形排位, scoring.md §S9, seed 004 "按照當前排名進行蛇形排位") of ``ranking``
    (best first): table k takes the next two ranks, in rank order on odd tables and reversed on
    even ones (1 v 2, 4 v 3, 5 v 6, 8 v 7, …). With an odd number of teams the lowest-ranked team
    without a bye (``had_bye``) sits out first (`national` Art. 26)."""
    teams = list(ranking)
    bye = None
    if len(teams) % 2:
        bye = next((t for t in reversed(teams) if t not in had_bye), teams[-1])
        teams.remove(bye)
    pairs = []
    for k in range(len(teams) // 2):
        first, second = teams[2 * k], teams[2 * k + 1]
        pairs.append((first, second) if k % 2 == 0 else (second, first))
    return pairs, bye


def _pair(teams: list[str], met: set[frozenset[str]]) -> list[tuple[str, str]] | None:
    if not teams:
        return []
    head, rest = teams[0], teams[1:]
    for i, other in enumerate(rest):
        if frozenset((head, other)) in met:
            continue
        tail = _pair(rest[:i] + rest[i + 1 :], met)
        if tail is not None:
            return [(head, other), *tail]
    return None


def round_robin_pairs(teams: Sequence[str], round_no: int) -> tuple[list[tuple[str, str]], str | None]:
    """Round `round_no` (1-based) of the circle method; with an odd count one team sits out."""
    ids: list[str | None] = list(teams)
    if len(ids) % 2:
        ids.append(None)
    n = len(ids)
    r = (round_no - 1) % (n - 1)
    rotated = [ids[0], *(ids[1:][-r:] + ids[1:][:-r] if r else ids[1:])]
    pairs: list[tuple[str, str]] = []
    bye = None
    for i in range(n // 2):
        a, b = rotated[i], rotated[n - 1 - i]
        if a is None or b is None:
            bye = a if b is None else b
            continue
        pairs.append((a, b) if (round_no + i) % 2 else (b, a))
    return pairs, bye


def round_robin_rounds(teams: Sequence[str]) -> int:
    """Rounds of a complete round robin: n − 1 for an even count, n with a bye each round for odd."""
    return len(teams) - 1 + len(teams) % 2


def first_round_order(teams: Sequence[str], seed: int) -> list[str]:
    """Round 1 of a Swiss: a random draw (scoring.md §S8)."""
    order = list(teams)
    random.Random(f"draw:{seed}").shuffle(order)
    return order
