"""Every table of the store by name, with its Arrow schema: the list the store and the views follow."""

from __future__ import annotations

import pyarrow as pa

from schemas.scoring import SCORING, SCORING_BOOKKEEPING
from schemas.tables import CHUNK_SUMMARIES, DERIVED, QUALITY, RAW_EVENTS, REVIEWED, SAMPLED, SUMMARIES

ALL_TABLES: dict[str, pa.Schema] = {
    "raw_events": RAW_EVENTS, **DERIVED, **REVIEWED, **CHUNK_SUMMARIES, **SUMMARIES, **QUALITY, **SCORING,
    **SCORING_BOOKKEEPING, **SAMPLED,
}
"""Every table of the store, by name: each is a folder of Parquet files and a DuckDB view."""
