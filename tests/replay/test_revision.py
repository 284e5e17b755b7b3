"""Corrections: ``match_start.revision`` (docs/event-extensions.md "Corrections").

The replay checks the field (an integer ≥ 1; anything else is ``malformed_field`` at the
``match_start``) and reports it as ``matches.revision``, 1 when absent. The JSON Schema states the
same contract; which revision of a match is replayed is the pipeline's choice
(tests/pipeline/test_corrections.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from replay.errors import ErrorCode
from replay.replayer import MatchReplay, replay_match

SCHEMA = json.loads((Path(__file__).parents[2] / "schemas" / "events.schema.json").read_text())


def _log(**start: Any) -> list[dict[str, Any]]:
    """A one-deal results-only match (docs/event-extensions.md): E–W win 1st and 2nd, +3 levels."""
    events: list[dict[str, Any]] = [
        {"type": "match_start", "rules": "national", "seats": {"E": "a", "N": "b", "W": "c", "S": "d"},
         "format": {"kind": "deals", "deals": 1}, **start},
        {"type": "deal_start", "deal": 1, "level": "2", "declarers": None},
        {"type": "deal_end", "order": ["E", "W"], "levels": {"EW": "5", "NS": "2"}},
        {"type": "match_end", "reason": "deals", "winner": "EW"},
    ]
    return [{"v": 1, "match": "m", "seq": i, **ev} for i, ev in enumerate(events)]


def _match(r: MatchReplay) -> dict[str, Any]:
    (row,) = r.rows["matches"]
    return dict(row)


@pytest.mark.parametrize("start, revision", [({}, 1), ({"revision": 1}, 1), ({"revision": 2}, 2),
                                             ({"revision": 17}, 17)])
def test_revision_is_reported_and_defaults_to_1(start: dict[str, Any], revision: int) -> None:
    r = replay_match(_log(**start))
    assert r.status == "results_only", r.error
    assert _match(r)["revision"] == revision


@pytest.mark.parametrize("bad", [0, -1, "2", 1.5, 2.0, True, None, [2], {"n": 2}])
def test_a_bad_revision_is_malformed_at_the_match_start(bad: object) -> None:
    r = replay_match(_log(revision=bad))
    assert r.status == "invalid"
    assert r.error is not None
    assert (r.error.code, r.error.seq) == (ErrorCode.MALFORMED_FIELD, 0)
    assert "revision" in r.error.message


NON_INTEGRAL = st.floats(allow_nan=False, allow_infinity=False).filter(lambda x: not x.is_integer())
"""Floats JSON Schema does not count as integers (it counts ``2.0`` as one; the replay does not)."""


@given(st.one_of(st.integers(), NON_INTEGRAL, st.text(max_size=3), st.booleans(), st.none()))
def test_schema_and_replay_agree_on_revisions(value: object) -> None:
    """The JSON Schema and ``replay.events`` accept the same values: an integer ≥ 1."""
    start = _log(revision=value)[0]
    schema_ok = jsonschema.Draft202012Validator(SCHEMA).is_valid(start)
    replay_ok = replay_match(_log(revision=value)).status == "results_only"
    assert schema_ok == replay_ok
    assert replay_ok == (type(value) is int and value >= 1)
