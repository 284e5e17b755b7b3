"""``replay_batch``: Arrow raw events of whole matches in, every derived table out (no I/O).

Input rows have the ``RAW_EVENTS`` schema (``schemas/tables.py``); each ``payload`` is the raw
JSON line. Malformed rows (``parse_error`` set or no ``match_id``) become ``quarantine`` rows
with code ``malformed_line``; the other rows are grouped by match and replayed with
:func:`replay.replayer.replay_match`. An invalid match yields its ``matches`` row and one
``quarantine`` row at its first offending event; valid and partial matches yield all their rows.

pyarrow is loaded only when ``replay_batch`` runs (``replay.arrow``), so ``import replay`` and the
rules engine do not pay for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import orjson

from replay.errors import ErrorCode, ReplayError
from replay.replayer import MatchReplay, paused_gc, replay_match
from replay.rows import QuarantineRow, Row, new_play_table
from replay.rulesets import Ruleset

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["MatchReplay", "ReplayError", "replay_batch", "replay_batch_with_events", "replay_match"]


def _quarantine(row: dict[str, Any], code: str, message: str, seq: int | None = None) -> QuarantineRow:
    """The ``quarantine`` row of input ``row`` (a dict of its ``RAW_EVENTS`` fields, or fewer)."""
    return QuarantineRow(
        source_file=row.get("source_file"),
        line_no=row.get("line_no"),
        match_id=row.get("match_id"),
        seq=seq if seq is not None else row.get("seq"),
        code=code,
        message=message,
        payload=row.get("payload"),
    )


def _raw_row(events: pa.Table, i: int) -> dict[str, Any]:
    """Input row ``i`` as a dict of the fields a ``quarantine`` row takes from it (those present).
    Read one row at a time: only quarantined rows need them, so most columns are never turned
    into Python values."""
    return {c: events.column(c)[i].as_py() for c in _RAW_FIELDS if c in events.column_names}


_RAW_FIELDS = ("source_file", "line_no", "match_id", "seq", "payload")
"""The input fields a ``quarantine`` row repeats."""


def replay_batch(events: pa.Table, rulesets: Mapping[str, Ruleset] | None = None) -> dict[str, pa.Table]:
    """Replay whole matches given as ``RAW_EVENTS`` rows; return every table of ``DERIVED``.

    Events of a match are replayed in ``seq`` order whatever their row order; a payload that
    parses to something other than an object, or lacks the row's match, is quarantined as
    ``malformed_line`` and its seq then shows up as ``missing_seq`` in the match. The cyclic
    garbage collector is paused meanwhile (see ``replay.replayer.paused_gc``).
    """
    return replay_batch_with_events(events, rulesets)[0]


def replay_batch_with_events(
    events: pa.Table, rulesets: Mapping[str, Ruleset] | None = None
) -> tuple[dict[str, pa.Table], dict[str, list[dict[str, Any]]]]:
    """:func:`replay_batch`, and the parsed events of each match it replayed, by match id (input
    row order; malformed rows left out): a caller that reads the events again, such as the
    pipeline's reviews, then need not parse the payloads a second time. The events are the
    replay's input, unchanged by it. Hold the cyclic garbage collector paused while keeping them
    (``replay.replayer.paused_gc``): each collection would traverse every one of them."""
    with paused_gc():
        return _replay_batch(events, rulesets)


def _column(events: pa.Table, name: str) -> list[Any]:
    """Column ``name`` of the input as Python values (all None when the input lacks it)."""
    return events.column(name).to_pylist() if name in events.column_names else [None] * events.num_rows


def _replay_batch(
    events: pa.Table, rulesets: Mapping[str, Ruleset] | None
) -> tuple[dict[str, pa.Table], dict[str, list[dict[str, Any]]]]:
    from replay.arrow import DERIVED, plays_to_table, rows_to_table

    out: dict[str, list[Row]] = {name: [] for name in DERIVED if name != "plays"}
    quarantine = out["quarantine"]
    plays = new_play_table()
    by_match: dict[str, tuple[list[dict[str, Any]], list[int]]] = {}
    """Per match, its parsed events and the input row index of each (for quarantine rows)."""
    malformed = ErrorCode.MALFORMED_LINE.value
    match_ids, payloads, parse_errors = (_column(events, c) for c in ("match_id", "payload", "parse_error"))
    for i, (match_id, payload, parse_error) in enumerate(zip(match_ids, payloads, parse_errors, strict=True)):
        if parse_error is not None or match_id is None:
            message = parse_error or "line has no `match`"
            quarantine.append(_quarantine(_raw_row(events, i), malformed, message))
            continue
        try:
            ev = orjson.loads(payload)
        except orjson.JSONDecodeError as exc:
            quarantine.append(_quarantine(_raw_row(events, i), malformed, f"not JSON: {exc}"))
            continue
        if not isinstance(ev, dict) or ev.get("match") != match_id:
            quarantine.append(
                _quarantine(_raw_row(events, i), malformed, "payload is not an event object of this match")
            )
            continue
        group = by_match.get(match_id)
        if group is None:
            group = by_match[match_id] = ([], [])
        group[0].append(ev)
        group[1].append(i)
    for match_id, (evs, where) in by_match.items():
        result = replay_match(evs, rulesets)
        err = result.error
        if err is not None:
            at = _row_of_seq(evs, where, err.seq)
            base = {**(_raw_row(events, at) if at is not None else {}), "match_id": match_id}
            quarantine.append(_quarantine(base, err.code.value, err.message, err.seq))
        rows = result.rows
        for name in rows:
            if name != "plays":
                out[name].extend(rows.typed(name))
        if rows.plays is not None:
            plays.extend(rows.plays)
    tables = {
        name: plays_to_table(plays) if name == "plays" else rows_to_table(name, out[name])
        for name in DERIVED
    }
    return tables, {match_id: evs for match_id, (evs, _) in by_match.items()}


def _row_of_seq(evs: list[dict[str, Any]], where: list[int], seq: int | None) -> int | None:
    """Input row index of the (last) event of ``seq`` among a match's events, if any."""
    if seq is None:
        return None
    return next(
        (i for ev, i in zip(reversed(evs), reversed(where), strict=True) if ev.get("seq") == seq), None
    )
