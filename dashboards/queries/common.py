"""What every query module shares: the connection type, :func:`dataframe` (one parameterized
query to a DataFrame) and the SQL fragments several pages' queries use.

User input only ever reaches DuckDB as bound ``$name`` parameters, never through string formatting.
"""

from __future__ import annotations

import warnings
from typing import Any

import duckdb
import pandas as pd
from pandas.errors import Pandas4Warning

from schemas.times import sql_local_day

Con = duckdb.DuckDBPyConnection

_DUCKDB_INPLACE_WARNING = r"The inplace keyword in DataFrame\.drop is deprecated"


MATCH_DAY = sql_local_day("started_at", "utc_offset_min")
"""SQL: the local day a ``matches`` row started (schemas/times.py: its ``utc_offset_min``)."""


MATCH_OFFSETS = "(SELECT match_id, utc_offset_min FROM matches)"
"""SQL: each match's UTC offset, to show a scoring table's times in the match's local time."""


def dataframe(con: Con, sql: str, params: dict[str, Any] | None = None) -> pd.DataFrame:
    """Run one parameterized query and return its rows as a DataFrame.

    DuckDB's own pandas conversion of time-zone-aware timestamps calls ``DataFrame.drop(...,
    inplace=True)``, which pandas 3.1 deprecates (``Pandas4Warning``) on every such query; that
    one warning is silenced here, as it is DuckDB's to fix.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_DUCKDB_INPLACE_WARNING, category=Pandas4Warning)
        return con.execute(sql, params or {}).df()


RESULT_COLUMNS = """
    count(*) AS rounds,
    count(*) FILTER (WHERE result = 'win') AS wins,
    count(*) FILTER (WHERE result = 'draw') AS draws,
    count(*) FILTER (WHERE result = 'loss') AS losses,
    (count(*) FILTER (WHERE result = 'win') + 0.5 * count(*) FILTER (WHERE result = 'draw'))
        / count(*) AS win_rate,
    sum(levels_gained) AS levels_gained
"""
"""Per-player result columns over :data:`PLAYER_RESULTS` rows; a draw counts half a win."""
