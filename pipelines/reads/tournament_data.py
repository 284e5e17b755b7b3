"""Read-only store queries behind `gdan pair`, `gdan export` and the dashboards' printouts: an
event's stages, standings, rounds, pairing history, dan ledgers and the players' names and clubs.

Everything goes through :func:`pipelines.storage.warehouse.connect` (in-memory DuckDB views over the
Parquet tables; ``warehouse.duckdb`` is never opened) with parameterized SQL. Lookups of an
unknown event, stage, round or player raise :class:`LookupFailed` with a message that names
what is known, which the commands print.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import duckdb

class LookupFailed(LookupError):
    """An unknown event, stage, round or player; the message says what is known."""


@dataclass(frozen=True, slots=True)
class Player:
    """A player's id with the name and club the logs declare (None when they do not)."""

    id: str
    name: str | None = None
    club: str | None = None

    @property
    def label(self) -> str:
        """The name when known, else the id."""
        return self.name or self.id


@dataclass(frozen=True, slots=True)
class Stage:
    """One stage of an event: its id, name, stage label, ruleset and rounds with results."""

    event_id: str
    stage: str | None
    name: str | None
    rules: str
    rounds: tuple[int, ...]

    @property
    def title(self) -> str:
        """The event's name (or id) with the stage."""
        base = self.name or self.event_id
        return f"{base} · {self.stage}" if self.stage else base


def connect(store: Path) -> duckdb.DuckDBPyConnection:
    """A read-only view connection over the store; :class:`LookupFailed` when it has no tables."""
    from pipelines.storage.store import Store
    from pipelines.storage.warehouse import connect as warehouse_connect

    if not Store(store).tables_dir.is_dir():
        raise LookupFailed(f"no store at {store} (no tables/ folder): run `gdan run` first or pass --store")
    return warehouse_connect(store)


def rows(con: duckdb.DuckDBPyConnection, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
    """A parameterized query's rows as dicts."""
    result = con.execute(sql, list(params))
    names = [d[0] for d in result.description or []]
    return [dict(zip(names, r, strict=True)) for r in result.fetchall()]


def suggest(wanted: str, known: Sequence[str], what: str) -> str:
    """``unknown <what> 'x'`` with the closest known values."""
    close = [k for k in known if wanted.lower() in k.lower()]
    close += [k for k in difflib.get_close_matches(wanted, known, n=5, cutoff=0.5) if k not in close]
    if close:
        return f"unknown {what} {wanted!r}; did you mean: {', '.join(close[:5])}?"
    shown = ", ".join(known[:10]) + (" …" if len(known) > 10 else "")
    return f"unknown {what} {wanted!r}; known: {shown or 'none'}"


def roster(con: duckdb.DuckDBPyConnection) -> dict[str, Player]:
    """Every player named in a ``match_start.players`` or seen in a match, by id.

    Names and clubs come from the pipeline's ``players`` roster (``pipelines.steps.roster``: the latest
    declaring match, its winning revision), not from re-reading every ``match_start``.
    """
    found = rows(
        con,
        "SELECT p.player_id, r.name, r.club FROM "
        "(SELECT DISTINCT player_id FROM player_matches) p FULL JOIN players r USING (player_id)",
    )
    return {r["player_id"]: Player(r["player_id"], r["name"], r["club"]) for r in found if r["player_id"]}


def stage_of(con: duckdb.DuckDBPyConnection, event: str, stage: str | None) -> Stage:
    """The event's stage (the only one, or the one named) with its rounds that have results."""
    found = rows(
        con,
        "SELECT s.event_id, s.stage, any_value(s.rules) AS rules, "
        "list(DISTINCT s.round ORDER BY s.round) AS rounds, any_value(m.event_name) AS name "
        "FROM match_scores s LEFT JOIN matches m USING (match_id) "
        "WHERE s.event_id IS NOT NULL AND s.round IS NOT NULL GROUP BY ALL "
        "ORDER BY s.event_id, s.stage NULLS FIRST",
    )
    events = list(dict.fromkeys(r["event_id"] for r in found))
    if event not in events:
        raise LookupFailed(suggest(event, events, "event"))
    stages = [r for r in found if r["event_id"] == event]
    if stage is not None:
        named = [r for r in stages if r["stage"] == stage]
        if not named:
            raise LookupFailed(suggest(stage, [str(r["stage"]) for r in stages], f"stage of {event}"))
        stages = named
    if len(stages) > 1:
        raise LookupFailed(
            f"event {event} has several stages ({', '.join(str(r['stage']) for r in stages)}): "
            "choose one with --stage"
        )
    r = stages[0]
    return Stage(event, r["stage"], r["name"], r["rules"] or "national", tuple(r["rounds"]))


def standings(con: duckdb.DuckDBPyConnection, stage: Stage, after_round: int) -> list[dict[str, Any]]:
    """The stage's standings after ``after_round`` (rank order); empty when that round has none."""
    return rows(
        con,
        "SELECT * FROM standings WHERE event_id = ? AND stage IS NOT DISTINCT FROM ? "
        "AND after_round = ? ORDER BY rank, team_id",
        [stage.event_id, stage.stage, after_round],
    )


def is_duplicate(con: duckdb.DuckDBPyConnection, stage: Stage) -> bool:
    """Whether the stage is a duplicate (複式) one: its matches are rooms of duplicate boards."""
    found = con.execute(
        "SELECT bool_or(duplicate_board IS NOT NULL) FROM matches "
        "WHERE event_id = ? AND stage IS NOT DISTINCT FROM ?",
        [stage.event_id, stage.stage],
    ).fetchone()
    return bool(found and found[0])


def duplicate_ranking(
    con: duckdb.DuckDBPyConnection, stage: Stage, after_round: int | None = None
) -> list[dict[str, Any]]:
    """The stage's duplicate (MP) standings (scoring.md §S9) in rank order, over the boards of the
    rounds up to ``after_round`` (None: every round), ranked by :func:`scoring.duplicate.duplicate_standings`
    from the stored ``duplicate_results``; empty when those rounds compared no deal."""
    from scoring.duplicate import duplicate_standings

    where = "" if after_round is None else "AND m.round <= ?"
    params: list[Any] = [stage.event_id, stage.stage] + ([] if after_round is None else [after_round])
    results = con.execute(
        "SELECT r.* FROM duplicate_results r JOIN matches m USING (match_id) "
        f"WHERE r.event_id = ? AND r.stage IS NOT DISTINCT FROM ? {where}",
        params,
    ).pl()
    if results.is_empty():
        return []
    return duplicate_standings(results).sort("rank", "team_id").to_dicts()


def is_individual(con: duckdb.DuckDBPyConnection, stage: Stage) -> bool:
    """Whether the stage's standings rank players (``entry = individual``: partners rotate)."""
    found = con.execute(
        "SELECT bool_or(entry = 'individual') FROM standings "
        "WHERE event_id = ? AND stage IS NOT DISTINCT FROM ?",
        [stage.event_id, stage.stage],
    ).fetchone()
    return bool(found and found[0])


def round_scores(
    con: duckdb.DuckDBPyConnection, stage: Stage, round_no: int | None = None, before: int | None = None
) -> list[dict[str, Any]]:
    """``match_scores`` rows of the stage (one round, or every round before ``before``), with the
    match's table, final levels and winner (and a duplicate room's board and room); byes have no
    match."""
    where = ["s.event_id = ?", "s.stage IS NOT DISTINCT FROM ?"]
    params: list[Any] = [stage.event_id, stage.stage]
    if round_no is not None:
        where.append("s.round = ?")
        params.append(round_no)
    if before is not None:
        where.append("s.round < ?")
        params.append(before)
    return rows(
        con,
        'SELECT s.*, m."table", m.final_level_EW, m.final_level_NS, m.winner, m.passed_a, '
        "m.deals_played, m.end_reason, m.duplicate_board, m.duplicate_room "
        "FROM match_scores s LEFT JOIN matches m USING (match_id) "
        f"WHERE {' AND '.join(where)} "
        'ORDER BY s.round, try_cast(m."table" AS INTEGER) NULLS LAST, m."table", s.side',
        params,
    )


def resolve_players(con: duckdb.DuckDBPyConnection, wanted: Sequence[str]) -> list[str]:
    """Player ids for ids or names (case-insensitive); :class:`LookupFailed` for unknown or ambiguous."""
    known = roster(con)
    by_id = {pid.lower(): pid for pid in known}
    by_name: dict[str, list[str]] = {}
    for p in known.values():
        if p.name:
            by_name.setdefault(p.name.lower(), []).append(p.id)
    out = []
    for w in wanted:
        if w.lower() in by_id:
            out.append(by_id[w.lower()])
        elif len(by_name.get(w.lower(), [])) == 1:
            out.append(by_name[w.lower()][0])
        elif w.lower() in by_name:
            raise LookupFailed(
                f"player name {w!r} is ambiguous: {', '.join(by_name[w.lower()])}; give the id"
            )
        else:
            names = [p.name for p in known.values() if p.name]
            raise LookupFailed(suggest(w, [*known, *names], "player"))
    return out
