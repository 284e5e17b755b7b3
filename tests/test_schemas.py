"""The versioned schemas stay in step with the code: the JSON Schema of event format v1 with
``replay/events.py`` (events.md), and the Arrow schema of every derived table with the rows the
replayer produces (schemas/tables.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from replay import replay_match
from replay.events import EVENT_TYPES, OPTIONAL, REQUIRED, check_event
from replay.rows import TABLES
from schemas.catalog import ALL_TABLES
from schemas.tables import DERIVED, TABLES_VERSION

sys.path.insert(0, str(Path(__file__).parent / "replay"))
from replay_builder import Log

SCHEMA = json.loads((Path(__file__).parents[1] / "schemas" / "events.schema.json").read_text())
ENVELOPE = {"v", "match", "seq", "type", "t"}


def _branches() -> dict[str, dict[str, Any]]:
    return {b["properties"]["type"]["const"]: b for b in SCHEMA["oneOf"]}


def test_json_schema_is_draft_2020_12_and_valid() -> None:
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_json_schema_types_and_fields_match_code() -> None:
    branches = _branches()
    assert set(branches) == EVENT_TYPES == set(SCHEMA["properties"]["type"]["enum"])
    for kind, branch in branches.items():
        assert set(branch["required"]) - ENVELOPE == set(REQUIRED[kind]), kind
        assert set(branch["properties"]) - {"type"} == set(REQUIRED[kind]) | set(OPTIONAL[kind]), kind


def _sample_events() -> list[dict[str, Any]]:
    log = Log(format={"kind": "deals", "deals": 2}, event={"id": "e1", "round": 1})
    log.minute = 0
    log.deal(leader="E", seed=1)
    log.play_out(["E", "N", "W"], leader="E")
    log.ruling("deduction", team="NS", points={"level_points": -1})
    log.end_deal(levels={"EW": "4", "NS": "2"})
    log.deal("4", "EW", seed=2)
    log.tribute("S", "E")
    log.give_back("E", "S")
    log.add("report", seat="S", left=27)
    log.play_out(["S", "N"], leader="S")
    log.end_deal()
    log.end("deals", "NS")
    return log.events


def test_valid_events_pass_both_checks() -> None:
    validator = jsonschema.Draft202012Validator(SCHEMA)
    events = _sample_events()
    assert {e["type"] for e in events} >= EVENT_TYPES - {"anti_tribute"}
    for ev in events:
        validator.validate(ev)
        assert check_event(ev) is None


@pytest.mark.parametrize(
    "broken",
    [
        {"type": "play", "seat": "X", "cards": ["S3"]},
        {"type": "play", "seat": "E", "cards": []},
        {"type": "pass"},
        {"type": "deal_end", "order": ["E", "E"]},
        {"type": "match_end", "reason": "bored"},
        {"type": "tribute", "from": "E", "to": "N"},
        {"type": "match_start", "rules": "national", "seats": {"E": "a"}},
    ],
)
def test_malformed_events_fail_both_checks(broken: dict[str, Any]) -> None:
    ev = {"v": 1, "match": "m", "seq": 3, **broken}
    assert not jsonschema.Draft202012Validator(SCHEMA).is_valid(ev)
    error = check_event(ev)
    assert error is not None and error.code == "malformed_field" and error.seq == 3


def test_derived_rows_have_exactly_the_schema_columns() -> None:
    assert isinstance(TABLES_VERSION, int)
    assert set(TABLES) | {"quarantine"} == set(DERIVED)
    result = replay_match(_sample_events())
    assert result.status == "valid", result.error
    for name in TABLES:
        rows = result.rows[name]
        assert rows, name
        expected = set(DERIVED[name].names)
        for row in rows:
            assert set(row) == expected, (name, set(row) ^ expected)


def test_every_replay_table_is_documented() -> None:
    for name, schema in {"raw_events": ALL_TABLES["raw_events"], **DERIVED}.items():
        assert schema.metadata and schema.metadata.get(b"doc"), name
