"""The Data quality page's queries: quarantined rows, partial and invalid matches, matches still
open, duplicates, damaged inbox files and superseded revisions (events.md "Validation")."""

from __future__ import annotations

import pandas as pd

from dashboards.queries.common import Con, dataframe
from schemas.times import sql_time_label


def quarantine_by_code(con: Con) -> pd.DataFrame:
    """Quarantined rows per error code (replay/errors.py vocabulary)."""
    return dataframe(con, "SELECT code, count(*) AS n FROM quarantine GROUP BY code ORDER BY n DESC, code")


def quarantine_rows(con: Con, *, code: str | None = None, limit: int = 1000) -> pd.DataFrame:
    """Quarantined rows with file, line, match, seq, code and message (most recent files first)."""
    return dataframe(
        con,
        """
        SELECT source_file, line_no, match_id, seq, code, message
        FROM quarantine WHERE ($code IS NULL OR code = $code)
        ORDER BY source_file, line_no LIMIT $limit
        """,
        {"code": code, "limit": limit},
    )


def problem_matches(con: Con) -> pd.DataFrame:
    """Replayed matches that are partial or invalid (events.md "Validation"), with the first error."""
    return dataframe(
        con,
        """
        SELECT match_id, status, error_code, error_seq, error_message, deals_played, end_reason, rules
        FROM matches WHERE status <> 'valid'
        ORDER BY status, match_id LIMIT 5000
        """,
    )


def incomplete_matches(con: Con) -> pd.DataFrame:
    """Matches still waiting for their ``match_end`` (``incomplete_matches``), latest arrivals first,
    with their age: hours since their latest row arrived (an old one is likely abandoned). The
    match's start and the arrival times are written in the match's local time (its
    ``match_start``'s offset; UTC before that has arrived), with the offset (schemas/times.py)."""
    return dataframe(
        con,
        f"""
        SELECT match_id, {sql_time_label("i.started_at", "i.utc_offset_min")} AS started, events, first_seq,
               last_seq, last_type, array_to_string(source_files, ', ') AS source_files,
               {sql_time_label("i.first_ingested_at", "i.utc_offset_min")} AS first_ingested_at,
               {sql_time_label("i.last_ingested_at", "i.utc_offset_min")} AS last_ingested_at,
               date_diff('minute', i.last_ingested_at, now()::TIMESTAMPTZ) / 60.0 AS age_hours
        FROM incomplete_matches i
        ORDER BY i.last_ingested_at DESC, match_id LIMIT 5000
        """,
    )


def parse_error_count(con: Con) -> pd.DataFrame:
    """One row: malformed input lines kept in ``raw_events`` (with ``parse_error``)."""
    return dataframe(con, "SELECT count(*) AS n FROM raw_events WHERE parse_error IS NOT NULL")


def duplicate_matches(con: Con) -> pd.DataFrame:
    """Matches repeating an earlier match's deals under another id (``duplicate_matches``)."""
    return dataframe(
        con,
        """
        SELECT match_id, duplicate_of, deals, match_deals, excluded, reason
        FROM duplicate_matches ORDER BY excluded DESC, match_id LIMIT 5000
        """,
    )


def file_problems(con: Con) -> pd.DataFrame:
    """Inbox files whose latest read has a problem (``ingested_files.problem``: empty, damaged,
    unfinished line); a file read fine later (e.g. its last line completed) is not listed. The
    read time is the pipeline's clock, in UTC with the offset shown."""
    return dataframe(
        con,
        f"""
        SELECT source_file, problem, message, rows, malformed, pending_bytes,
               {sql_time_label("f.ingested_at", "NULL")} AS ingested_at
        FROM ingested_files f
        QUALIFY row_number() OVER (PARTITION BY source_file ORDER BY f.ingested_at DESC, batch DESC) = 1
            AND problem IS NOT NULL
        ORDER BY f.ingested_at DESC, source_file LIMIT 5000
        """,
    )


def superseded_revisions(con: Con) -> pd.DataFrame:
    """Lower revisions of corrected matches (``superseded``): kept in ``raw_events``, not replayed;
    when they arrived, in the pipeline's clock (UTC, offset shown)."""
    return dataframe(
        con,
        f"""
        SELECT match_id, revision, superseded_by, array_to_string(source_files, ', ') AS source_files,
               {sql_time_label("s.ingested_at", "NULL")} AS ingested_at, events
        FROM superseded s ORDER BY s.ingested_at DESC, match_id, revision LIMIT 5000
        """,
    )


def submissions(con: Con) -> pd.DataFrame:
    """Results entered in the browser (the view ``submissions`` over ``raw_events``, the audit
    record ``match_start.entry``), latest first: who, how, when (UTC) and the revision replaced."""
    return dataframe(
        con,
        """
        SELECT entered_at, event_id, round, "table", match_id, revision, entered_by, entered_via,
               replaces_revision, source_file
        FROM submissions ORDER BY entered_at DESC, match_id, revision LIMIT 5000
        """,
    )
