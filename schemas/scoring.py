"""Arrow schemas of the scoring, standings, dan and rating tables (scoring.md), versioned.

Filled in by the scoring/ratings/dan work; every table here gets a DuckDB view.
"""

from __future__ import annotations

import pyarrow as pa

SCORING_VERSION = 1

SCORING: dict[str, pa.Schema] = {}
"""Tables derived from the replayed tables by ``pipelines.scoring``, by name."""
