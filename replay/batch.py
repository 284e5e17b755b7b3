"""``replay_batch``: Arrow raw events of whole matches in, every derived table out (no I/O).

Input rows have the ``RAW_EVENTS`` schema (``schemas/tables.py``); each ``payload`` is the raw
JSON line. Malformed rows (``parse_error`` set or no ``match_id``) become ``quarantine`` rows
with code ``malformed_line``; the other rows are grouped by match and replayed with
:func:`replay.replayer.replay_match`. An invalid match yields its ``matches`` row and one
``quarantine`` row at its first offending event; valid and partial matches yield all their rows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
import pyarrow as pa

from replay.errors import ErrorCode, ReplayError
from replay.replayer import MatchReplay, replay_match
from replay.rulesets import Ruleset
from schemas.tables import DERIVED

__all__ = ["MatchReplay", "ReplayError", "replay_batch", "replay_match"]


def _quarantine(row: dict[str, Any], code: str, message: str, seq: int | None = None) -> dict[str, Any]:
    return {
        "source_file": row.get("source_file"),
        "line_no": row.get("line_no"),
        "match_id": row.get("match_id"),
        "seq": seq if seq is not None else row.get("seq"),
        "code": code,
        "message": message,
        "payload": row.get("payload"),
    }


def replay_batch(events: pa.Table, rulesets: Mapping[str, Ruleset] | None = None) -> dict[str, pa.Table]:
    """Replay whole matches given as ``RAW_EVENTS`` rows; return every table of ``DERIVED``.

    Events of a match are replayed in ``seq`` order whatever their row order; a payload that
    parses to something other than an object, or lacks the row's match, is quarantined as
    ``malformed_line`` and its seq then shows up as ``missing_seq`` in the match.
    """
    out: dict[str, list[dict[str, Any]]] = {name: [] for name in DERIVED}
    cols = ("source_file", "line_no", "match_id", "seq", "payload", "parse_error")
    data = {
        c: events.column(c).to_pylist() if c in events.column_names else [None] * events.num_rows
        for c in cols
    }
    by_match: dict[str, list[dict[str, Any]]] = {}
    origin: dict[str, dict[int, dict[str, Any]]] = {}
    for i in range(events.num_rows):
        row = {c: data[c][i] for c in cols}
        match_id = row["match_id"]
        if row["parse_error"] is not None or match_id is None:
            out["quarantine"].append(
                _quarantine(row, ErrorCode.MALFORMED_LINE.value, row["parse_error"] or "line has no `match`")
            )
            continue
        try:
            ev = orjson.loads(row["payload"])
        except orjson.JSONDecodeError as exc:
            out["quarantine"].append(_quarantine(row, ErrorCode.MALFORMED_LINE.value, f"not JSON: {exc}"))
            continue
        if not isinstance(ev, dict) or ev.get("match") != match_id:
            out["quarantine"].append(
                _quarantine(
                    row, ErrorCode.MALFORMED_LINE.value, "payload is not an event object of this match"
                )
            )
            continue
        by_match.setdefault(match_id, []).append(ev)
        seq = ev.get("seq")
        if isinstance(seq, int):
            origin.setdefault(match_id, {})[seq] = row
    for match_id, evs in by_match.items():
        result = replay_match(evs, rulesets)
        err = result.error
        if err is not None:
            at = origin.get(match_id, {}).get(err.seq) if err.seq is not None else None
            base = {**(at or {}), "match_id": match_id}
            out["quarantine"].append(_quarantine(base, err.code.value, err.message, err.seq))
        for name, rows in result.rows.items():
            out[name].extend(rows)
    return {name: _to_table(out[name], schema) for name, schema in DERIVED.items()}


def _to_table(rows: list[dict[str, Any]], schema: pa.Schema) -> pa.Table:
    """Rows to a table of ``schema``, column by column (faster than ``Table.from_pylist``)."""
    columns = [pa.array([r.get(f.name) for r in rows], type=f.type) for f in schema]
    return pa.Table.from_arrays(columns, schema=schema)
