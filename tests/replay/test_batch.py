"""``replay_batch``: RAW_EVENTS rows in, every derived table out, cast to its schema; malformed rows and
invalid matches quarantined (contract in schemas/tables.py and the issue)."""

from __future__ import annotations

import gc
import hashlib
from datetime import UTC, datetime
from typing import Any

import orjson
import pyarrow as pa
import pytest
from replay_builder import Log

from replay import replay_batch, replay_batch_with_events, replay_match
from replay.arrow import COLUMN_FIELDS
from replay.rows import ROW_FIELDS, TABLES, PlayColumns, PlayRow
from schemas.tables import DERIVED, RAW_EVENTS


def raw_rows(events: list[dict[str, Any]], source: str = "a.jsonl", extra: list[str] = ()) -> pa.Table:  # type: ignore[assignment]
    """RAW_EVENTS rows as the ingest step writes them; ``extra`` lines are appended unparsed."""
    rows = []
    lines = [orjson.dumps(e).decode() for e in events] + list(extra)
    for i, line in enumerate(lines, 1):
        try:
            ev = orjson.loads(line)
            error = None if isinstance(ev, dict) and "match" in ev else "no match"
        except orjson.JSONDecodeError as exc:
            ev, error = {}, str(exc)
        rows.append(
            {
                "source_file": source,
                "line_no": i,
                "match_id": ev.get("match") if not error else None,
                "seq": ev.get("seq") if not error else None,
                "type": ev.get("type") if not error else None,
                "payload": line,
                "content_hash": hashlib.sha1(line.encode()).hexdigest(),
                "parse_error": error,
                "ingested_at": datetime(2026, 6, 18, tzinfo=UTC),
            }
        )
    return pa.Table.from_pylist(rows, schema=RAW_EVENTS)


def valid_log(match: str = "m1") -> Log:
    log = Log(match=match)
    log.deal(leader="E", seed=1)
    log.play_out(["E", "N", "W"], leader="E")
    log.end_deal()
    log.end("abandoned")
    return log


def test_tables_and_schemas() -> None:
    good = valid_log("good")
    bad = valid_log("bad")
    bad.events[5]["seat"] = "S" if bad.events[5]["seat"] != "S" else "N"
    table = raw_rows(good.events + bad.events, extra=["{not json", '{"seq": 1}'])
    out = replay_batch(table)
    assert set(out) == set(DERIVED)
    for name, schema in DERIVED.items():
        assert out[name].schema == schema, name
    matches = {r["match_id"]: r for r in out["matches"].to_pylist()}
    assert matches["good"]["status"] == "valid" and matches["bad"]["status"] == "invalid"
    assert matches["bad"]["error_seq"] == 5
    q = out["quarantine"].to_pylist()
    malformed = [r for r in q if r["code"] == "malformed_line"]
    assert [r["line_no"] for r in malformed] == [len(good.events) * 2 + 1, len(good.events) * 2 + 2]
    (invalid,) = [r for r in q if r["match_id"] == "bad"]
    assert invalid["seq"] == 5 and invalid["line_no"] == len(good.events) + 6
    assert invalid["payload"] == orjson.dumps(bad.events[5]).decode()
    assert set(out["deals"].column("match_id").to_pylist()) == {"good"}
    assert out["plays"].num_rows == sum(1 for e in good.events if e["type"] in ("play", "pass"))
    assert out["player_matches"].num_rows == 4


def test_rows_in_any_order_and_missing_seq_from_bad_line() -> None:
    """Rows are replayed in seq order whatever their order; a bad JSON line leaves a missing seq."""
    log = valid_log()
    table = raw_rows(list(reversed(log.events)))
    assert replay_batch(table)["matches"].column("status").to_pylist() == ["valid"]
    lines = [orjson.dumps(e).decode() for e in log.events]
    lines[7] = lines[7][:20]
    rows = raw_rows([], extra=lines)
    out = replay_batch(rows)
    assert out["matches"].column("error_code").to_pylist() == ["missing_seq"]
    assert out["matches"].column("error_seq").to_pylist() == [7]
    assert sorted(out["quarantine"].column("code").to_pylist()) == ["malformed_line", "missing_seq"]


def test_empty_batch() -> None:
    out = replay_batch(raw_rows([]))
    assert all(t.num_rows == 0 for t in out.values())


@pytest.mark.parametrize("name", sorted(DERIVED))
def test_row_types_follow_the_schemas(name: str) -> None:
    """Each derived table's row type (replay.rows) has exactly its schema's columns, and
    ``replay.arrow`` takes every column from the field of its name."""
    fields = ROW_FIELDS[name]
    assert sorted(fields) == sorted(DERIVED[name].names)
    assert [fields[i] for i in COLUMN_FIELDS[name]] == DERIVED[name].names


def test_batch_plays_equal_the_replayed_rows() -> None:
    """The Arrow ``plays`` table of ``replay_batch`` holds exactly the rows ``replay_match`` derives."""
    log = valid_log()
    out = replay_batch(raw_rows(log.events))
    assert out["plays"].to_pylist() == log.replay().rows["plays"]


def test_batch_with_events_hands_back_what_it_parsed() -> None:
    """``replay_batch_with_events`` returns ``replay_batch``'s tables and each match's events as
    parsed from its well-formed rows, in row order; malformed rows are not among them."""
    good, other = valid_log("good"), valid_log("other")
    events = [*good.events[:3], *other.events, *good.events[3:]]
    table = raw_rows(events, extra=["{not json"])
    tables, parsed = replay_batch_with_events(table)
    assert {n: t.to_pylist() for n, t in tables.items()} == {
        n: t.to_pylist() for n, t in replay_batch(table).items()}
    assert list(parsed) == ["good", "other"]
    assert parsed["good"] == [orjson.loads(orjson.dumps(e)) for e in good.events]
    assert parsed["other"] == [orjson.loads(orjson.dumps(e)) for e in other.events]


@pytest.mark.parametrize("enabled", [True, False])
def test_replay_leaves_the_garbage_collector_as_it_was(enabled: bool) -> None:
    """``paused_gc`` pauses the collector during a replay and restores the caller's setting."""
    log = valid_log()
    was = gc.isenabled()
    try:
        if enabled:
            gc.enable()
        else:
            gc.disable()
        replay_match(log.events)
        replay_batch(raw_rows(log.events))
        assert gc.isenabled() is enabled
    finally:
        if was:
            gc.enable()


def test_row_tables_of_valid_and_invalid_matches() -> None:
    """A valid match holds every derived table (``plays`` included); an invalid one only ``matches``."""
    log = valid_log()
    rows = replay_match(log.events).rows
    assert sorted(rows) == sorted(TABLES) and len(rows) == len(TABLES)
    assert len(rows["plays"]) == len(rows.typed("plays")) > 0
    log.events[5]["seat"] = "S" if log.events[5]["seat"] != "S" else "N"
    bad = replay_match(log.events).rows
    assert list(bad) == ["matches"]
    with pytest.raises(KeyError):
        bad["plays"]


def test_play_columns_keep_the_row_type_field_order() -> None:
    """Each value given to ``PlayColumns.add`` lands in the column of its ``PlayRow`` field, and the
    rows read back are the ``PlayRow`` of the same values (so the ``plays`` table's columns are
    mapped by name like every other table's)."""
    values = PlayRow("m1", 1, 2, 3, 4, True, "E", "p1", "EW", "play", ["H2"], "single", "2", 5, None, 6,
                     False, "pair", "3", "N", 7, 8, 9, 10, 11, 12, True, None, False,
                     datetime(2026, 1, 2, tzinfo=UTC))
    columns = PlayColumns()
    columns.add(*values)
    more = PlayColumns()
    more.extend(columns)
    more.extend(columns)
    assert len(more) == 2
    assert more.rows() == [values] * 2
    for field, column in zip(PlayRow._fields, more.columns(), strict=True):
        assert column == [getattr(values, field)] * 2
        assert getattr(more, field) is column
