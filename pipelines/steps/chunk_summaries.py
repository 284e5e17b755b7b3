"""The summary tables of a chunk of replayed matches (``schemas.tables.CHUNK_SUMMARIES``).

``seat_patterns``, ``deal_fingerprints``, ``player_match_patterns`` and ``player_match_leads``
hold per-deal or per-match rows, so the rows of a chunk of whole matches depend on that chunk
alone. The replay step's worker computes them right after replaying the chunk
(``pipelines.steps.replay_task``) and the step appends them with the chunk's other tables, so a run
costs in proportion to what it replays, and a corrected match's rows leave them with its other
rows (``pipelines.steps.corrections.retract_matches``). The summary steps (``duplicate_matches``,
``player_patterns``, ``player_leads``) then read these small tables, never every play.

Only pyarrow: workers import neither DuckDB nor polars.
"""

from __future__ import annotations

from collections.abc import Mapping

import pyarrow as pa

from pipelines.steps import fingerprints, pattern_counts
from pipelines.steps.fingerprints import deal_fingerprints
from pipelines.steps.pattern_counts import (
    in_deal_order,
    player_match_leads,
    player_match_patterns,
    seat_patterns,
)
from schemas.tables import DEAL_HANDS, PLAYS, TRIBUTES

SOURCES: dict[str, tuple[str, ...]] = {
    "seat_patterns": ("plays",),
    "deal_fingerprints": ("plays",),
    "player_match_patterns": ("plays", "deal_hands", "tributes"),
    "player_match_leads": ("plays",),
}
"""The replayed tables each summary is computed from: a replayed chunk with rows in one of them
has rows in the summary (``pipelines.steps.backfill`` relies on it)."""
_SCHEMAS = {"plays": PLAYS, "deal_hands": DEAL_HANDS, "tributes": TRIBUTES}
COLUMNS: dict[str, list[str]] = {
    "plays": sorted({*pattern_counts.PLAYS_COLUMNS, *fingerprints.PLAYS_COLUMNS}),
    "deal_hands": sorted({*pattern_counts.HANDS_COLUMNS, *fingerprints.HANDS_COLUMNS}),
    "tributes": pattern_counts.TRIBUTES_COLUMNS,
}
"""The columns of the replayed tables :func:`summarise` reads (what a whole-store pass reads)."""


def summarise(tables: Mapping[str, pa.Table]) -> dict[str, pa.Table]:
    """The summary tables of the replayed tables of whole matches (a missing table has no rows)."""
    plays, hands, tributes = (tables[n] if n in tables else s.empty_table() for n, s in _SCHEMAS.items())
    plays = in_deal_order(plays, COLUMNS["plays"])
    seats = seat_patterns(plays, hands, ordered=True)
    return {
        "seat_patterns": seats,
        "deal_fingerprints": deal_fingerprints(plays, hands, ordered=True),
        "player_match_patterns": player_match_patterns(seats, hands, tributes),
        "player_match_leads": player_match_leads(plays),
    }
