"""Times in the event's local time (schemas/times.py): the replay keeps the offset of
``match_start``'s ``t`` (events.md: an RFC 3339 time with offset) as ``matches.utc_offset_min``,
and the Python and SQL renderings of a stored UTC instant in that offset agree."""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replay import replay_match
from schemas.times import (
    local_time,
    offset_label,
    offset_minutes,
    sql_local_day,
    sql_time_label,
    time_label,
)

sys.path.insert(0, str(Path(__file__).parent / "replay"))
from replay_builder import Log


def _match(t0: str | None) -> list[dict[str, object]]:
    """A one-deal match whose events are stamped from ``t0`` on (no ``t`` when None)."""
    log = Log(format={"kind": "deals", "deals": 1})
    log.deal(leader="E", seed=1)
    log.play_out(["E", "N", "W"], leader="E")
    log.end_deal()
    log.end("deals", "EW")
    if t0 is not None:
        start = datetime.fromisoformat(t0)
        for ev in log.events:
            ev["t"] = (start + timedelta(seconds=int(ev["seq"]))).isoformat()
    return log.events


@pytest.mark.parametrize(
    ("t0", "minutes"),
    [
        ("2026-06-18T23:30:00+08:00", 480),  # China, late in the evening
        ("2026-06-18T22:00:00-05:00", -300),
        ("2026-06-18T09:00:00+05:30", 330),
        ("2026-06-18T09:00:00+00:00", 0),
        (None, None),  # no t: no offset
    ],
)
def test_replay_keeps_the_offset_of_match_start(t0: str | None, minutes: int | None) -> None:
    result = replay_match(_match(t0))
    assert result.status == "valid", result.error
    (row,) = result.rows["matches"]
    assert row["utc_offset_min"] == minutes
    if t0 is not None:
        assert row["started_at"] == datetime.fromisoformat(t0)


def test_a_match_start_without_time_takes_the_offset_of_the_first_timed_event() -> None:
    """events.md: ``t`` is optional on every event; a log stamping its deals but not its
    ``match_start`` is still shown at the players' clock."""
    events = _match("2026-06-18T23:30:00+08:00")
    del events[0]["t"]
    (row,) = replay_match(events).rows["matches"]
    assert row["started_at"] is None and row["utc_offset_min"] == 480


@pytest.mark.parametrize(
    ("minutes", "label"), [(480, "UTC+08:00"), (-300, "UTC-05:00"), (330, "UTC+05:30"), (0, "UTC+00:00"),
                           (None, "UTC+00:00"), (-570, "UTC-09:30")]
)
def test_offset_labels(minutes: int | None, label: str) -> None:
    assert offset_label(minutes) == label


def test_a_late_evening_in_china_is_shown_at_its_own_clock() -> None:
    instant = datetime(2026, 6, 18, 15, 30, tzinfo=UTC)  # 23:30 in Beijing
    assert time_label(local_time(instant, 480)) == "2026-06-18 23:30 (UTC+08:00)"
    assert time_label(local_time(instant, None)) == "2026-06-18 15:30 (UTC+00:00)"
    assert time_label(None) == ""


OFFSETS = st.integers(min_value=-14 * 60, max_value=14 * 60)
INSTANTS = st.datetimes(
    min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)
).map(lambda t: t.replace(microsecond=0))


@settings(max_examples=200, deadline=None)
@given(instant=INSTANTS, minutes=OFFSETS)
def test_sql_and_python_write_the_same_local_time_and_day(instant: datetime, minutes: int) -> None:
    """What the dashboards' SQL shows (sql_time_label, sql_local_day) is what the printouts'
    Python shows (time_label of local_time), for any instant and offset; the local time keeps
    the instant and carries the offset; the DuckDB session's own time zone plays no part."""
    local = local_time(instant, minutes)
    assert local is not None and local == instant and offset_minutes(local) == minutes
    con = duckdb.connect()
    con.execute("SET TimeZone = 'America/Los_Angeles'")
    ts = pa.array([instant], pa.timestamp("us", tz="UTC"))
    con.register("frame", pa.table({"ts": ts, "off": pa.array([minutes], pa.int16())}))
    label, day = con.execute(
        f"SELECT {sql_time_label('ts', 'off')}, {sql_local_day('ts', 'off')} FROM frame"
    ).fetchone() or (None, None)
    assert label == time_label(local)
    assert day == local.date()


def test_an_aware_time_from_any_zone_is_written_in_the_offset_asked_for() -> None:
    tokyo = datetime(2026, 6, 19, 0, 30, tzinfo=timezone(timedelta(hours=9)))
    assert time_label(local_time(tokyo, 480)) == "2026-06-18 23:30 (UTC+08:00)"
    assert local_time(datetime(2026, 6, 18, 15, 30), 480) == datetime(2026, 6, 18, 15, 30, tzinfo=UTC)
