"""The ``players`` table: the one roster (player id → name, club) every reader joins.

Names and clubs are declared in ``match_start.players`` (events.md), once per match, and a
player may be declared differently in different matches (a new club, a corrected name). The
dashboards, the CLI and the notebooks used to parse those payloads from ``raw_events`` at read
time, each with its own idea of which declaration wins; this step parses them once per pipeline
run and keeps one rule:

- a player's ``name`` and ``club`` are those of the **latest** match that declares the player,
  taken together: latest by ``matches.started_at`` (a match without one, not replayed yet or
  without a ``t``, counts as earliest), ties by the greater ``match_id``;
- a match whose ``match_start`` arrived more than once counts once, with its first ingested copy
  of the match's highest revision (a correction's declaration replaces the superseded one's);
- malformed lines (``parse_error``) declare nothing.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow as pa

from pipelines.store import Store
from pipelines.warehouse import create_views
from schemas.tables import PLAYERS

INPUTS = ("raw_events", "matches")
"""The tables the roster is computed from (only their views are created)."""
MEMORY = "1GB"
"""DuckDB memory cap while computing (the raw_events scan spills beyond it)."""

ROSTER_SQL = """
WITH starts AS (
    SELECT match_id, payload,
           row_number() OVER (PARTITION BY match_id
                              ORDER BY revision DESC, ingested_at, source_file, line_no) AS copy
    FROM raw_events
    WHERE type = 'match_start' AND parse_error IS NULL
),
declared AS (
    SELECT s.match_id, m.started_at, s.e.key AS player_id, s.e.value.name AS name, s.e.value.club AS club
    FROM (
        SELECT match_id, unnest(map_entries(json_transform(json_extract(payload, '$.players'),
               '"MAP(VARCHAR, STRUCT(name VARCHAR, club VARCHAR))"'))) AS e
        FROM starts WHERE copy = 1
    ) s
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


def compute(con: duckdb.DuckDBPyConnection) -> pa.Table:
    """The ``players`` table from the ``raw_events`` and ``matches`` views of ``con``."""
    return con.execute(ROSTER_SQL).to_arrow_table().cast(PLAYERS)


def write_roster(store: Store | str | Path) -> int:
    """Recompute ``players`` from the store and replace it atomically; returns its row count.

    Unchanged content leaves the files untouched.
    """
    the_store = store if isinstance(store, Store) else Store(store)
    con = duckdb.connect(":memory:", config={"memory_limit": MEMORY})
    try:
        con.execute("SET enable_progress_bar = false")
        create_views(con, the_store, the_store.snapshot(), INPUTS)
        table = compute(con)
    finally:
        con.close()
    the_store.write_table("players", table)
    return table.num_rows
