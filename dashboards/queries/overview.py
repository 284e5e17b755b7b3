"""The Overview page's queries (the Data quality page shows the same totals): how much the store
holds, by status, day and ruleset."""

from __future__ import annotations

import pandas as pd

from dashboards.queries.common import MATCH_DAY, Con, dataframe
from schemas.times import sql_local_day


def overview_totals(con: Con) -> pd.DataFrame:
    """One row: matches, deals, players, events, log events and the time span of the store: its
    first start and last end as instants (``first_start``, ``last_end``) and as the local days of
    those matches (``first_day``, ``last_day``, schemas/times.py)."""
    return dataframe(
        con,
        f"""
        SELECT
            (SELECT count(*) FROM matches) AS matches,
            (SELECT count(*) FROM deals) AS deals,
            (SELECT count(DISTINCT player_id) FROM player_matches) AS players,
            (SELECT count(DISTINCT event_id) FROM matches WHERE event_id IS NOT NULL) AS events,
            (SELECT count(*) FROM raw_events) AS raw_events,
            (SELECT min(started_at) FROM matches) AS first_start,
            (SELECT max(coalesce(ended_at, started_at)) FROM matches) AS last_end,
            (SELECT min({MATCH_DAY}) FROM matches) AS first_day,
            (SELECT max({sql_local_day("coalesce(ended_at, started_at)", "utc_offset_min")}) FROM matches)
                AS last_day
        """,
    )


MATCH_STATUSES = ("valid", "partial", "results_only", "invalid")
"""The statuses a replayed match can have (events.md "Validation" and "Results-only deals"): the
Overview shows a tile for each, so the tiles add up to the match total."""


def status_counts(con: Con) -> pd.DataFrame:
    """Matches by status (events.md "Validation", "Results-only deals"): one row per status present."""
    return dataframe(con, "SELECT status, count(*) AS n FROM matches GROUP BY status ORDER BY status")


def matches_per_day(con: Con) -> pd.DataFrame:
    """Matches started per local day (the day of the match's own time zone) and ruleset."""
    return dataframe(
        con,
        f"""
        SELECT {MATCH_DAY} AS day, coalesce(rules, '?') AS rules, count(*) AS n
        FROM matches WHERE started_at IS NOT NULL
        GROUP BY ALL ORDER BY day, rules
        """,
    )


def matches_by_ruleset(con: Con) -> pd.DataFrame:
    """Matches per ruleset and status."""
    return dataframe(
        con,
        """
        SELECT coalesce(rules, '?') AS rules, status, count(*) AS n
        FROM matches GROUP BY ALL ORDER BY rules, status
        """,
    )
