"""Times as the tables store them and as people read them: UTC instants, shown in the event's
local time.

Every ``t`` of a log carries its UTC offset (events.md: RFC 3339, e.g.
``2026-06-18T13:05:00+08:00``). The tables store times as UTC instants
(``pa.timestamp("us", tz="UTC")``), which keeps the instant and drops the offset, so
``matches.utc_offset_min`` keeps the offset of the match's ``match_start`` (minutes east of UTC:
480 for China). Every time of a match — its start and end, its deals, plays, rulings, scores and
dan rounds — is shown in that offset, with the offset written next to it
(``2026-06-18 13:05 (UTC+08:00)``), and a day is the local day: a match started at 23:30 in
Beijing belongs to that Beijing date, not to the UTC date before or after it. A time without an
offset (no ``match_start.t``; the pipeline's own ingest times) is shown in UTC, as ``UTC+00:00``.

The SQL fragments are DuckDB expressions over a ``TIMESTAMPTZ`` column and an offset column; the
Python functions do the same for values already read.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone


def offset_minutes(t: datetime | None) -> int | None:
    """The UTC offset of an aware time in whole minutes (None for None or a naive time)."""
    offset = t.utcoffset() if t is not None else None
    return None if offset is None else int(offset.total_seconds() // 60)


def offset_label(minutes: int | None) -> str:
    """An offset as written next to a local time: ``UTC+08:00``, ``UTC-03:30`` (None: ``UTC+00:00``)."""
    m = minutes or 0
    sign = "-" if m < 0 else "+"
    return f"UTC{sign}{abs(m) // 60:02d}:{abs(m) % 60:02d}"


def local_time(t: datetime | None, minutes: int | None) -> datetime | None:
    """An aware time in the fixed offset ``minutes`` (None: UTC); a naive time is taken as UTC."""
    if t is None:
        return None
    aware = t if t.tzinfo is not None else t.replace(tzinfo=UTC)
    return aware.astimezone(timezone(timedelta(minutes=minutes or 0)))


def time_label(t: datetime | None) -> str:
    """An aware time as ``YYYY-MM-DD HH:MM (UTC±HH:MM)`` in its own offset; empty for None."""
    if t is None:
        return ""
    return f"{t:%Y-%m-%d %H:%M} ({offset_label(offset_minutes(t))})"


def sql_local(ts: str, offset: str) -> str:
    """SQL: the wall-clock ``TIMESTAMP`` (no zone) of ``ts`` in the offset column ``offset``
    (UTC when null); independent of the session's ``TimeZone``."""
    return f"(timezone('UTC', {ts}) + to_minutes(coalesce({offset}, 0)::BIGINT))"


def sql_local_day(ts: str, offset: str) -> str:
    """SQL: the local ``DATE`` of ``ts`` in the offset column ``offset`` (see :func:`sql_local`)."""
    return f"CAST({sql_local(ts, offset)} AS DATE)"


def sql_offset_label(offset: str) -> str:
    """SQL: the offset column ``offset`` written as :func:`offset_label` writes it."""
    m = f"coalesce({offset}, 0)"
    return (
        f"('UTC' || CASE WHEN {m} < 0 THEN '-' ELSE '+' END"
        f" || lpad(CAST(abs({m}) // 60 AS VARCHAR), 2, '0') || ':'"
        f" || lpad(CAST(abs({m}) % 60 AS VARCHAR), 2, '0'))"
    )


def sql_time_label(ts: str, offset: str) -> str:
    """SQL: ``ts`` written as :func:`time_label` writes it, in the offset ``offset``; null when
    ``ts`` is null."""
    clock = f"strftime({sql_local(ts, offset)}, '%Y-%m-%d %H:%M')"
    return f"({clock} || ' (' || {sql_offset_label(offset)} || ')')"
