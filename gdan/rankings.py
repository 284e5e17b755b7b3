"""`gdan` commands of the association: standings, amateur dan and the ratings leaderboard.

They read the scoring tables (``schemas/scoring.py``, spec ``scoring.md`` §S5–§S7) read-only
through :func:`pipelines.storage.warehouse.connect` (in-memory views over the Parquet files; the
pipeline's ``warehouse.duckdb`` is never opened), with parameterized SQL only. DuckDB and the
scoring parameters are imported inside the commands so that ``gdan --help`` stays fast.

Times are printed in the local time of the match they come from, with its offset, as the
dashboards show them (``schemas/times.py``): ``2026-06-18 23:30 (UTC+08:00)`` in a table, the
same instant with its offset in csv and json (``2026-06-18 23:30:00+08:00``).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from gdan.pipeline import DEFAULT_STORE, StoreOption, read_connection
from gdan.render import OutputFormat, Rows, emit, literal, tidy_cell, write_json
from pipelines.reads.printout_documents import TIE_BREAK_LABELS
from schemas.times import local_time, time_label

if TYPE_CHECKING:
    import duckdb

console = Console(stderr=True)

FormatOption = Annotated[OutputFormat, typer.Option("--format", "-f", help="Output format.")]

_ROSTER = "roster AS (SELECT player_id, name, club FROM players)"
"""Player names and clubs from the pipeline's roster (``players``, ``pipelines.steps.roster``)."""


def _fail(message: str) -> typer.Exit:
    """Print ``message`` in red on stderr, literally; the caller raises the returned exit 1."""
    console.print(literal(message, "red"))
    return typer.Exit(1)


def _connect(store: Path) -> duckdb.DuckDBPyConnection:
    """A read-only view connection over the store, or exit 1 when the folder holds no tables."""
    return read_connection(store)


def _query(con: duckdb.DuckDBPyConnection, sql: str, params: Sequence[Any] = ()) -> Rows:
    """Run a parameterized query."""
    result = con.execute(sql, list(params))
    return Rows([d[0] for d in result.description or []], result.fetchall())


def _local_times(result: Rows, offsets: Mapping[str, str]) -> Rows:
    """``result`` with each time column of ``offsets`` (time column → the column holding its
    match's UTC offset in minutes) in that local time, and the offset columns left out."""
    index = {c: i for i, c in enumerate(result.columns)}
    moved = {index[t]: index[o] for t, o in offsets.items()}
    rows = [
        tuple(local_time(v, r[moved[i]]) if i in moved else v for i, v in enumerate(r)) for r in result.rows
    ]
    return Rows(result.columns, rows).without(list(offsets.values()))


def _suggest(wanted: str, known: Sequence[str], what: str) -> str:
    """``unknown <what> 'x'`` with the closest known values (substring or similar spelling)."""
    lowered = wanted.lower()
    close = [k for k in known if lowered in k.lower()]
    close += [k for k in difflib.get_close_matches(wanted, known, n=5, cutoff=0.5) if k not in close]
    if close:
        return f"unknown {what} {wanted!r}; did you mean: {', '.join(close[:5])}?"
    shown = ", ".join(known[:10]) + (" …" if len(known) > 10 else "")
    return f"unknown {what} {wanted!r}; known: {shown or 'none'}"


_LABELS = {
    **TIE_BREAK_LABELS,
    "next_dan": "next",
    "points_to_next": "to next",
    "window_rounds_used": "window used",
    "rounds_left": "rounds left",
    "counted_rounds": "counted",
    "needed_per_round": "per round needed",
    "opponent_dans": "opp dans",
    "round_points": "round pts",
    "points_earned": "earned",
    "dan_after": "dan",
    "total_after": "total",
    "window_size": "window",
    "started_at": "date",
    "last_played": "last played",
    "p_promote": "chance",
    "expected_rounds": "rounds to next",
    "low_data": "low data",
    "matches": "matches",
    "deals_compared": "compared",
    "mp": "MP",
    "mp_max": "MP available",
    "mp_rate": "MP rate",
    "place_counts": "boards 1st,2nd,…",
}
"""Short headers of the rich tables (csv and json keep the table's column names)."""


def _cell(column: str, value: Any) -> str:
    """A value as shown in these tables: progress in %, tie-break steps by their short label,
    times with their offset."""
    if isinstance(value, datetime):
        return time_label(value)
    if column in ("progress", "p_promote", "mp_rate") and value is not None:
        return f"{value:.1%}"
    if column == "low_data":
        return "low data ⚠" if value else ""
    if column == "decided_by" and value is not None:
        return _LABELS.get(value, value)
    return tidy_cell(column, value)


_EMPTY = "no rows: has `gdan run` scored this store, and do the filters match anything?"


def _emit(
    result: Rows,
    output: OutputFormat,
    title: str = "",
    keep: Sequence[str] = (),
    drop_first: Sequence[str] = (),
) -> None:
    """:func:`gdan.render.emit` with these tables' headers, cells and empty-result hint."""
    emit(
        result,
        output,
        title=title,
        labels=_LABELS,
        cell=_cell,
        keep=keep,
        drop_first=drop_first,
        empty_note=_EMPTY,
    )


# --- standings (§S7) ---------------------------------------------------------------------------

_EVENTS_SQL = """
    SELECT s.event_id, s.stage, any_value(s.entry) AS entry,
           (SELECT string_agg(DISTINCT m.rules, ',' ORDER BY m.rules) FROM match_scores m
            WHERE m.event_id = s.event_id AND m.stage IS NOT DISTINCT FROM s.stage) AS rules,
           max(s.after_round) AS rounds, count(DISTINCT s.team_id) AS entries
    FROM (SELECT event_id, stage, entry, after_round, team_id FROM standings
          UNION ALL
          SELECT d.event_id, d.stage, 'pair',
                 (SELECT max(m.round) FROM matches m
                  WHERE m.event_id = d.event_id AND m.stage IS NOT DISTINCT FROM d.stage), d.team_id
          FROM duplicate_standings d) s
    GROUP BY s.event_id, s.stage
    ORDER BY s.event_id, s.stage NULLS FIRST
"""
"""Every event stage with standings: the match-point standings, and a duplicate stage's MP table."""


def _tie_break_columns(
    ruleset: str, event: str | None = None, overrides: Path | None = None
) -> tuple[str, list[str]]:
    """The event's primary column and its tie-break steps in chain order (§S7).

    The parameters are the ruleset's, or the event's entry in ``overrides`` (the pipeline's
    ``overrides_file``). The two-tied chain comes first; steps only the 3+-tied chain uses follow.
    """
    from scoring.params import load_event_overrides, params_for

    p = params_for(ruleset, load_event_overrides(overrides) if overrides else None, event).standings
    return p.primary, list(dict.fromkeys((*p.two_tied, *p.many_tied)))


def standings(
    event: Annotated[
        str | None, typer.Option("--event", "-e", help="Event id; without it, list the events.")
    ] = None,
    stage: Annotated[
        str | None, typer.Option(help="Stage of the event (needed when it has several).")
    ] = None,
    round_no: Annotated[
        int | None,
        typer.Option("--round", "-r", help="Standings after this round (default: the last round).", min=1),
    ] = None,
    overrides: Annotated[
        Path | None,
        typer.Option(
            help="Per-event scoring parameters (.toml/.json) the pipeline ran with (its overrides_file), "
            "for events with their own tie-break chain.",
            exists=True,
            dir_okay=False,
        ),
    ] = None,
    store: StoreOption = DEFAULT_STORE,
    output: FormatOption = OutputFormat.table,
) -> None:
    """Standings of an event after a round: rank, every tie-break column in order, decided_by (§S7).

    Columns follow the event's ruleset: the primary total (match points, or BCTA round score
    for `bcta`), then each tie-break step in chain order (`national` Art. 49, `huaian`
    Art. 26–27, `jiangsu`), then decided_by, the step that put the entry below the one ranked
    just above it (empty: first place or a shared rank). Without --event, lists the events
    with their stages, rounds and ruleset.

    A duplicate (複式) event's standings are its MP table (scoring.md §S9): matches (board-sets,
    the rooms of one board being one match), boards compared, MP, MP available, MP score rate
    and boards placed 1st, 2nd, …; pairs equal on all of these share the rank, the next skipped.
    """
    if event is None and (stage is not None or round_no is not None):
        raise _fail("--stage and --round need --event (run `gdan standings` to list the events)")
    con = _connect(store)
    try:
        events = _query(con, _EVENTS_SQL)
        if event is None:
            if not events.rows:
                raise _fail(f"no standings in {store}: no event has scored rounds yet (run `gdan run`)")
            _emit(events, output, title=f"events with standings in {store}", keep=("event_id", "stage"))
            return
        table = _duplicate_standings(con, event, stage, round_no) or _event_standings(
            con, events, event, stage, round_no, overrides
        )
    finally:
        con.close()
    rows = table.rows
    if table.primary == "mp_rate":
        keep = ("rank", "team_id", "mp_rate", "decided_by")
        shown = rows.without(["player_1", "player_2"]) if output is OutputFormat.table else rows
        _emit(shown, output, title=table.title, keep=keep, drop_first=("deals_compared", "mp_max"))
        return
    if output is OutputFormat.table:
        deductions = [c for c in ("deducted_match_points", "deducted_level_points") if rows.all_zero(c)]
        rows = rows.without(["player_1", "player_2", *deductions])
    _emit(
        rows,
        output,
        title=table.title,
        keep=("rank", "team_id", rows.columns[-1], table.primary),
        drop_first=("byes", "draws", "losses", "rounds"),
    )


def _duplicate_standings(
    con: duckdb.DuckDBPyConnection, event: str, stage: str | None, round_no: int | None
) -> _Standings | None:
    """A duplicate event stage's MP table after a round (scoring.md §S9); None for another event."""
    from pipelines.reads.printout_documents import duplicate_decided
    from pipelines.reads.tournament_data import LookupFailed, duplicate_ranking, is_duplicate, stage_of

    try:
        info = stage_of(con, event, stage)
    except LookupFailed:
        return None  # the match-point standings' lookup says what is known
    if not is_duplicate(con, info):
        return None
    after = round_no or max(info.rounds)
    if after not in info.rounds:
        raise _fail(
            f"event {event} has no standings after round {after}; rounds: {', '.join(map(str, info.rounds))}"
        )
    table = duplicate_ranking(con, info, after)
    columns = ["rank", "team_id", "player_1", "player_2", "matches", "deals_compared", "mp", "mp_max",
               "mp_rate", "place_counts", "decided_by"]
    rows = []
    for r in table:
        decided = duplicate_decided(r["decided_by"])
        r["decided_by"] = None if decided is None else decided[0].format(**decided[1])
        rows.append(tuple(r[c] for c in columns))
    stage_text = f" · stage {info.stage}" if info.stage is not None else ""
    title = (
        f"{event}{stage_text} · duplicate · after round {after} of {max(info.rounds)} · rules {info.rules} · "
        "ranked by MP score rate › boards placed 1st › 2nd › … (scoring.md §S9)"
    )
    return _Standings(title, Rows(columns, rows), "mp_rate")


@dataclass(frozen=True)
class _Standings:
    """One event stage's standings after one round, with the title that says which and how ranked."""

    title: str
    rows: Rows
    primary: str
    """The primary total's column (match points, or the BCTA round score)."""


def _event_standings(
    con: duckdb.DuckDBPyConnection,
    events: Rows,
    event: str,
    stage: str | None,
    round_no: int | None,
    overrides: Path | None,
) -> _Standings:
    """Look up one event stage after one round, with clear errors for unknown values."""
    known = events.records()
    ids = list(dict.fromkeys(e["event_id"] for e in known))
    if event not in ids:
        raise _fail(_suggest(event, ids, "event"))
    stages = [e for e in known if e["event_id"] == event]
    if stage is not None:
        stages = [e for e in stages if e["stage"] == stage]
        if not stages:
            names = [str(e["stage"]) for e in known if e["event_id"] == event]
            raise _fail(_suggest(stage, names, f"stage of {event}"))
    if len(stages) > 1:
        listed = ", ".join(str(e["stage"]) for e in stages)
        raise _fail(f"event {event} has several stages ({listed}): choose one with --stage")
    info = stages[0]
    rounds = _query(
        con,
        "SELECT DISTINCT after_round FROM standings WHERE event_id = ? "
        "AND stage IS NOT DISTINCT FROM ? ORDER BY 1",
        [event, info["stage"]],
    )
    played = [r[0] for r in rounds.rows]
    after = played[-1] if round_no is None else round_no
    if after not in played:
        raise _fail(
            f"event {event} has no standings after round {after}; rounds: {', '.join(map(str, played))}"
        )
    ruleset = (info["rules"] or "national").split(",")[0]
    primary, chain = _tie_break_columns(ruleset, event, overrides)
    record = [c for c in ("wins", "draws", "losses", "byes") if c not in chain]
    columns = [
        "rank",
        "team_id",
        "player_1",
        "player_2",
        "rounds",
        *record,
        primary,
        *chain,
        "deducted_match_points",
        "deducted_level_points",
        "decided_by",
    ]
    select = ", ".join(f'"{c}"' for c in columns)
    rows = _query(
        con,
        f"SELECT {select} FROM standings WHERE event_id = ? AND stage IS NOT DISTINCT FROM ? "
        "AND after_round = ? ORDER BY rank, team_id",
        [event, info["stage"], after],
    )
    stage_text = f" · stage {info['stage']}" if info["stage"] is not None else ""
    title = (
        f"{event}{stage_text} · after round {after} of {played[-1]} · {info['entry']} entries · "
        f"rules {info['rules']} · ranked by {primary}, then {' › '.join(chain)}"
    )
    return _Standings(title, rows, primary)


# --- amateur dan (§S5) --------------------------------------------------------------------------

_DAN_COLUMNS = (
    "d.player_id, r.name, d.dan, d.points, d.next_dan, d.points_to_next, d.progress, "
    "d.window_no, d.window_rounds_used, d.rounds_left, d.rounds, d.counted_rounds, "
    "CAST(ceil(d.points_to_next / nullif(d.rounds_left, 0)) AS BIGINT) AS needed_per_round, "
    "d.last_played, last_round.utc_offset_min AS last_played_offset, f.p_promote, f.expected_rounds, "
    "f.low_data"
)
_FORECAST_JOIN = "LEFT JOIN dan_forecast f USING (player_id)"
"""The promotion forecast (``dan_forecast``) next to each player's dan."""
_LAST_ROUND = (
    "last_round AS (SELECT l.player_id, arg_max(m.utc_offset_min, (l.started_at, l.seq)) AS utc_offset_min "
    "FROM dan_ledger l LEFT JOIN matches m USING (match_id) GROUP BY l.player_id)"
)
"""The UTC offset of each player's latest dan round: the local time of ``last_played``."""


def _players(con: duckdb.DuckDBPyConnection, wanted: Sequence[str]) -> list[str]:
    """Player ids for ids or names (case-insensitive); exit 1 on an unknown or ambiguous player."""
    known = _query(
        con,
        f"WITH {_ROSTER} SELECT DISTINCT p.player_id, r.name FROM player_matches p "
        "LEFT JOIN roster r USING (player_id) ORDER BY 1",
    ).rows
    ids = {str(pid).lower(): str(pid) for pid, _ in known}
    by_name: dict[str, list[str]] = {}
    for pid, name in known:
        if name:
            by_name.setdefault(str(name).lower(), []).append(str(pid))
    out = []
    for w in wanted:
        if w.lower() in ids:
            out.append(ids[w.lower()])
        elif len(by_name.get(w.lower(), [])) == 1:
            out.append(by_name[w.lower()][0])
        elif w.lower() in by_name:
            raise _fail(f"player name {w!r} is ambiguous: {', '.join(by_name[w.lower()])}; give the id")
        else:
            raise _fail(_suggest(w, [k for row in known for k in row if k], "player"))
    return out


def dan(
    players: Annotated[
        list[str] | None, typer.Argument(help="Player ids or names; none: every player.")
    ] = None,
    close: Annotated[
        bool,
        typer.Option(
            "--close", help="List the players closest to promotion: highest progress to the next dan first."
        ),
    ] = False,
    top: Annotated[
        int | None, typer.Option(help="Players listed (0 = all; default: all, 10 with --close).", min=0)
    ] = None,
    store: StoreOption = DEFAULT_STORE,
    output: FormatOption = OutputFormat.table,
) -> None:
    """Current amateur dan (§S5): points, progress to the next dan, rounds left in the window,
    and the promotion forecast (``dan_forecast``): the chance of promotion before the window
    resets, the counted rounds expected to the next dan, and whether it rests on low data.

    With one player, also the ledger: every bcta round in time order, its dan points, whether
    it counted (only rounds against opponents of the same dan do), promotions and window
    resets. In csv the ledger alone is written for one player; in json an object with
    "current" and "ledger".
    """
    con = _connect(store)
    try:
        ids = _players(con, players or [])
        conditions, params = ["TRUE"], []
        if ids:
            conditions.append("list_contains(?, d.player_id)")
            params.append(ids)
        if close:
            conditions.append("d.next_dan IS NOT NULL AND d.rounds_left > 0")
        order = (
            "d.progress DESC, d.points_to_next, d.player_id"
            if close
            else "d.dan DESC, d.points DESC, d.player_id"
        )
        limit = top if top is not None else (10 if close else 0)
        current = _query(
            con,
            f"WITH {_ROSTER}, {_LAST_ROUND} SELECT {_DAN_COLUMNS} FROM dan_current d "
            f"LEFT JOIN roster r USING (player_id) {_FORECAST_JOIN} LEFT JOIN last_round USING (player_id) "
            f"WHERE {' AND '.join(conditions)} "
            f"ORDER BY {order}" + (" LIMIT ?" if limit else ""),
            [*params, *([limit] if limit else [])],
        )
        current = _local_times(current, {"last_played": "last_played_offset"})
        ledger = _ledger(con, ids[0]) if len(ids) == 1 else None
    finally:
        con.close()
    missing = [p for p in ids if p not in {r[0] for r in current.rows}]
    if missing and not close:
        console.print(literal(f"no amateur dan rounds (bcta rules, §S5) for: {', '.join(missing)}"))
    title = "closest to promotion (§S5)" if close else "amateur dan (§S5)"
    if output is OutputFormat.table:
        current = current.without(["window_no", "rounds"])
        ledger = ledger.without(["dan_before", "window_no"]) if ledger is not None else None
    keep = ("player_id", "name", "dan", "points", "progress", "rounds_left", "p_promote")
    drop_first = ("last_played", "counted_rounds", "window_rounds_used", "next_dan")
    if ledger is None:
        _emit(current, output, title=title, keep=keep, drop_first=drop_first)
    elif output is OutputFormat.json:
        records = current.records()
        write_json({"current": records[0] if records else None, "ledger": ledger.records()})
    elif output is OutputFormat.csv:
        _emit(ledger, output)
    else:
        _emit(current, output, title=title, keep=keep, drop_first=drop_first)
        if ledger.rows:
            _emit(
                ledger,
                output,
                title=f"dan ledger of {ids[0]} (§S5)",
                keep=("event_id", "started_at", "counted", "points_earned", "dan_after", "total_after"),
                drop_first=("seq", "event", "window_size"),
            )


def _ledger(con: duckdb.DuckDBPyConnection, player: str) -> Rows:
    """One player's dan ledger in time order, each round's start in its match's local time."""
    ledger = _query(
        con,
        "SELECT l.seq, l.event_id, l.round, l.started_at, m.utc_offset_min, l.opponent_dans, l.counted, "
        "l.round_points, l.points_earned, l.dan_before, l.dan_after, l.total_after, l.window_no, "
        "l.window_rounds_used, l.window_size, l.event "
        "FROM dan_ledger l LEFT JOIN matches m USING (match_id) WHERE l.player_id = ? ORDER BY l.seq",
        [player],
    )
    return _local_times(ledger, {"started_at": "utc_offset_min"})


# --- ratings ------------------------------------------------------------------------------------


def ratings(
    top: Annotated[int, typer.Option(help="Players listed (0 = all).", min=0)] = 20,
    min_rounds: Annotated[
        int, typer.Option(help="Only players with at least this many rated rounds.", min=0)
    ] = 0,
    club: Annotated[
        str | None,
        typer.Option(help="Only this club's players (as declared in match_start.players; case-insensitive)."),
    ] = None,
    store: StoreOption = DEFAULT_STORE,
    output: FormatOption = OutputFormat.table,
) -> None:
    """The ratings leaderboard: display rating (mu − k·sigma), mu, sigma and the provisional flag.

    Ordered by display rating, the conservative estimate that rises as the rating gets surer;
    a rating is provisional until sigma falls below the threshold (about 10 rounds).
    """
    con = _connect(store)
    try:
        if club is not None:
            clubs = [
                r[0]
                for r in _query(
                    con, f"WITH {_ROSTER} SELECT DISTINCT club FROM roster WHERE club IS NOT NULL ORDER BY 1"
                ).rows
            ]
            if club.lower() not in {c.lower() for c in clubs}:
                raise _fail(_suggest(club, clubs, "club"))
        board = _query(
            con,
            f"""WITH {_ROSTER},
            last_round AS (
                SELECT h.player_id, arg_max(m.utc_offset_min, (h.started_at, h.match_id)) AS utc_offset_min
                FROM rating_history h LEFT JOIN matches m USING (match_id) GROUP BY h.player_id
            )
            SELECT row_number() OVER (ORDER BY t.rating DESC, t.mu DESC, t.player_id) AS rank,
                   t.player_id, r.name, r.club, t.rating, t.mu, t.sigma, t.provisional, t.rounds, t.deals,
                   t.last_played, last_round.utc_offset_min AS last_played_offset
            FROM ratings t LEFT JOIN roster r USING (player_id) LEFT JOIN last_round USING (player_id)
            WHERE t.rounds >= ? AND (?::VARCHAR IS NULL OR lower(r.club) = lower(?))
            ORDER BY rank {"LIMIT ?" if top else ""}""",
            [min_rounds, club, club, *([top] if top else [])],
        )
        board = _local_times(board, {"last_played": "last_played_offset"})
    finally:
        con.close()
    title = "ratings (display rating = mu − k·sigma)" + (f" · club {club}" if club else "")
    title += f" · ≥ {min_rounds} rounds" if min_rounds else ""
    _emit(
        board,
        output,
        title=title,
        keep=("rank", "player_id", "name", "rating"),
        drop_first=("last_played", "deals", "club", "sigma", "mu"),
    )


def register(app: typer.Typer) -> None:
    """Add this module's commands to the `gdan` app."""
    for command in (standings, dan, ratings):
        app.command()(command)
