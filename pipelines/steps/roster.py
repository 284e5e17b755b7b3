"""The ``players`` table: the one roster (player id → name, club) every reader joins.

Names and clubs are declared in ``match_start.players`` (events.md), once per match, and a
player may be declared differently in different matches (a new club, a corrected name). The
dashboards, the CLI and the notebooks used to parse those payloads from ``raw_events`` at read
time, each with its own idea of which declaration wins; this step parses them once and keeps
one rule:

- a player's ``name`` and ``club`` are those of the **latest** match that declares the player,
  taken together: latest by ``matches.started_at`` (a match without one counts as earliest),
  ties by the greater ``match_id``;
- a match whose ``match_start`` arrived more than once counts once, with its first ingested copy
  of the match's highest revision (a correction's declaration replaces the superseded one's);
- malformed lines (``parse_error``) declare nothing;
- a match that is not replayed (incomplete: no ``matches`` row yet) still declares its players,
  with no start time (so it counts as earliest and adds to ``matches`` but not to
  ``first_seen``/``last_seen``), as does a match whose replay gave it no ``t``.

Cost follows the new data: the ``match_start`` lines are parsed once, when their
``raw_events`` file is new, into the memory table ``state/roster_declarations`` (one row per
line, the file it came from, its ordering keys and its parsed declaration); the roster is then
computed from those rows (a few per match) and ``matches.started_at``, never from every event.
A line's rows are used while its ``raw_events`` file is in the table's version being read, so a
file rewritten by a correction's deletion or a compaction is parsed again under its new name and
the old rows are passed over: the declarations are always exactly those of the files read, and
the roster exactly the whole-store SQL's (:func:`compute`). The memory is outside step commits
(like the check memos): its rows are facts about files that never change once written, so a run
killed after appending them leaves nothing wrong.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from pipelines.storage.store import Store
from pipelines.storage.warehouse import create_views, path_literal
from schemas.tables import PLAYERS

MEMORY = "512MB"
"""DuckDB memory cap while computing (a whole-store parse of ``raw_events`` spills beyond it).
Parsing every ``match_start`` line of the 1M-deal store: peak 1.9 GiB at 1 GB, 1.4 GiB at 512 MB,
in the same time (docs/performance.md)."""
DECLARATIONS = "roster_declarations"
"""The memory table of parsed ``match_start`` lines (``state/roster_declarations``)."""

PLAYER = pa.struct([("player_id", pa.string()), ("name", pa.string()), ("club", pa.string())])
DECLARATION_LINES = pa.schema(
    [
        pa.field("file", pa.string(), nullable=False),
        pa.field("source_file", pa.string(), nullable=False),
        pa.field("line_no", pa.int64(), nullable=False),
        pa.field("match_id", pa.string()),
        pa.field("revision", pa.int32()),
        pa.field("ingested_at", pa.timestamp("us", tz="UTC"), nullable=False),
        pa.field("players", pa.list_(PLAYER)),
    ]
)
"""One row per well-formed ``match_start`` line of ``raw_events``: the ``raw_events`` Parquet file
holding it (relative to the table's folder), the line's ordering keys and ``players`` parsed; a
file without such a line has one row with ``line_no`` :data:`NO_LINE` (so it is not parsed again)."""
NO_LINE = -1

LINES_SQL = """
SELECT {file} AS file, source_file, line_no, match_id, revision, ingested_at,
       list_transform(map_entries(json_transform(json_extract(payload, '$.players'),
                                                 '"MAP(VARCHAR, STRUCT(name VARCHAR, club VARCHAR))"')),
                      e -> {{'player_id': e.key, 'name': e.value.name, 'club': e.value.club}}) AS players
FROM raw_events
WHERE type = 'match_start' AND parse_error IS NULL
"""
"""The declaration lines of the ``raw_events`` view (``{file}``: the expression naming each line's file)."""

ROSTER_SQL = """
WITH starts AS (
    SELECT match_id, players,
           row_number() OVER (PARTITION BY match_id
                              ORDER BY revision DESC, ingested_at, source_file, line_no) AS copy
    FROM declaration_lines
),
declared AS (
    SELECT s.match_id, m.started_at, s.p.player_id AS player_id, s.p.name AS name, s.p.club AS club
    FROM (SELECT match_id, unnest(players) AS p FROM starts WHERE copy = 1) s
    LEFT JOIN matches m USING (match_id)
),
ranked AS (
    SELECT *, row_number() OVER (PARTITION BY player_id
                                 ORDER BY started_at DESC NULLS LAST, match_id DESC) AS recency
    FROM declared
)
SELECT player_id,
       any_value(name) FILTER (WHERE recency = 1) AS name,
       any_value(club) FILTER (WHERE recency = 1) AS club,
       any_value(match_id) FILTER (WHERE recency = 1) AS declared_in,
       count(DISTINCT match_id) AS matches,
       min(started_at) AS first_seen,
       max(started_at) AS last_seen
FROM ranked
GROUP BY player_id
ORDER BY player_id
"""
"""The roster from the ``declaration_lines`` and ``matches`` views (the module docs' rule)."""


def declaration_lines(con: duckdb.DuckDBPyConnection) -> pa.Table:
    """The :data:`DECLARATION_LINES` rows of the ``raw_events`` view of ``con`` (``file`` empty)."""
    return con.execute(LINES_SQL.format(file="''")).to_arrow_table().cast(DECLARATION_LINES)


def roster_of(con: duckdb.DuckDBPyConnection, lines: pa.Table) -> pa.Table:
    """The ``players`` table from declaration ``lines`` and the ``matches`` view of ``con``."""
    con.register("declaration_lines", lines)
    try:
        return con.execute(ROSTER_SQL).to_arrow_table().cast(PLAYERS)
    finally:
        con.unregister("declaration_lines")


def compute(con: duckdb.DuckDBPyConnection) -> pa.Table:
    """The ``players`` table from the ``raw_events`` and ``matches`` views of ``con`` (whole)."""
    return roster_of(con, declaration_lines(con))


def store_lines(store: Store, con: duckdb.DuckDBPyConnection) -> pa.Table:
    """The declaration lines of every ``raw_events`` file ``store`` reads: the remembered rows of
    the files still read, plus those of the files not parsed before (none when ingest recorded
    them, :func:`remember_ingested`), which are parsed now (over ``con``) and remembered."""
    folder = store.table_path("raw_events")
    files = {Path(f).relative_to(folder).as_posix(): f for f in store.data_files("raw_events")}
    known = store.read_memory(DECLARATIONS, DECLARATION_LINES, latest=True)
    seen = set(known["file"].unique().to_pylist())
    new = sorted(f for f in files if f not in seen)
    added = _parse(con, {files[f]: f for f in new}) if new else DECLARATION_LINES.empty_table()
    if new:
        _remember(store, added, new)
    lines = pa.concat_tables([known, added])
    read = pc.is_in(lines["file"], value_set=pa.array(sorted(files), pa.string()))
    return lines.filter(pc.and_(read, pc.not_equal(lines["line_no"], NO_LINE)))


def remember_ingested(store: Store, starts: pa.Table, files: list[str]) -> None:
    """Remember the declaration lines of the ``raw_events`` files an ingest batch wrote, from the
    batch's own rows, so the roster step reads none of these files again.

    ``starts``: the batch's ``match_start`` rows (``raw_events`` columns) with a ``file`` column,
    the file each was written to; ``files``: every file the batch wrote (relative to the table's
    folder, as :func:`store_lines` names them). The lines are parsed by the same SQL as a file's."""
    con = duckdb.connect(":memory:", config={"memory_limit": MEMORY})
    try:
        con.execute("SET enable_progress_bar = false")
        con.register("raw_events", starts)
        lines = con.execute(LINES_SQL.format(file="file")).to_arrow_table().cast(DECLARATION_LINES)
    finally:
        con.close()
    _remember(store, _with_marks(lines, files), sorted(files))


def _remember(store: Store, lines: pa.Table, files: list[str]) -> None:
    """Append the declaration ``lines`` of ``files`` (sorted) to the memory, once."""
    txn = "roster-" + hashlib.sha256("\n".join(files).encode()).hexdigest()[:32]
    store.append(store.memory_path(DECLARATIONS), lines, txn, step=False)


def _parse(con: duckdb.DuckDBPyConnection, files: dict[str, str]) -> pa.Table:
    """The declaration lines of the given ``raw_events`` Parquet files (absolute path → the name
    recorded in ``file``), in one scan of their ``match_start`` rows."""
    listed = ", ".join(path_literal(f) for f in files)
    con.execute("CREATE OR REPLACE TEMP VIEW raw_events AS SELECT * "
                f"FROM read_parquet([{listed}], filename = true, union_by_name = true)")
    lines = con.execute(LINES_SQL.format(file="filename")).to_arrow_table().cast(DECLARATION_LINES)
    names = [files[f] for f in lines["file"].to_pylist()]
    lines = lines.set_column(0, "file", pa.array(names, pa.string())).cast(DECLARATION_LINES)
    return _with_marks(lines, files.values())


def _with_marks(lines: pa.Table, files: Iterable[str]) -> pa.Table:
    """Declaration ``lines`` plus a :data:`NO_LINE` row for each of ``files`` without one."""
    empty = sorted(set(files) - set(lines["file"].to_pylist()))
    marks = {"file": empty, "source_file": [""] * len(empty), "line_no": [NO_LINE] * len(empty),
             "match_id": [None] * len(empty), "revision": [None] * len(empty),
             "ingested_at": [datetime.fromtimestamp(0, UTC)] * len(empty), "players": [None] * len(empty)}
    return pa.concat_tables([lines, pa.Table.from_pydict(marks, schema=DECLARATION_LINES)])


def write_roster(store: Store | str | Path) -> int:
    """Compute ``players`` from the store (parsing only new ``raw_events`` files) and replace it
    atomically; returns its row count. Unchanged content leaves the files untouched."""
    the_store = store if isinstance(store, Store) else Store(store)
    con = duckdb.connect(":memory:", config={"memory_limit": MEMORY})
    try:
        con.execute("SET enable_progress_bar = false")
        create_views(con, the_store, the_store.snapshot(), ("matches",))
        table = roster_of(con, store_lines(the_store, con))
    finally:
        con.close()
    the_store.write_table("players", table)
    return table.num_rows
