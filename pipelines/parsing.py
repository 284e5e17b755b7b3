"""Parsing input lines into ``raw_events`` rows: the part of ingest that runs in worker processes.

Its own module because a worker has the module of the function it runs imported (the pool's
forkserver preloads it, ``pipelines.pool.PRELOAD``; a Dask worker imports it): this one needs
only pyarrow, orjson and the replayer, not the store, the state and polars that
``pipelines.ingest`` imports (about 140 MiB less per worker; issue 17's peak memory). See
``pipelines.ingest`` for what a row is and why rows are bucketed by match.
"""

from __future__ import annotations

import hashlib
import time
import zlib
from dataclasses import dataclass
from datetime import datetime

import orjson
import pyarrow as pa

from pipelines.lines import Damage
from replay.events import is_revision
from replay.replayer import paused_gc
from schemas.tables import RAW_EVENTS

N_BUCKETS = 64
MALFORMED_BUCKET = -1

def bucket_of(match_id: str) -> int:
    """The stable hash bucket of a match: all its raw rows live in ``bucket=<n>``."""
    return zlib.crc32(match_id.encode()) % N_BUCKETS


@dataclass(slots=True)
class ParsedLine:
    """One input line as a ``raw_events`` row (without file, line and time)."""

    match_id: str | None
    seq: int | None
    type: str | None
    payload: str
    content_hash: str
    parse_error: str | None


def parse_line(raw: bytes) -> ParsedLine:
    """Parse one line (without its line break) into a row; never raises.

    ``content_hash`` hashes the event's canonical JSON (sorted keys), so two copies of an
    event that differ only in spacing or key order are the same content.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        payload = raw.decode("utf-8", errors="backslashreplace")
        return ParsedLine(None, None, None, payload, _hash(raw), f"not UTF-8: {exc}")
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        return ParsedLine(None, None, None, text, _hash(raw), f"not JSON: {exc}")
    if not isinstance(obj, dict):
        return ParsedLine(None, None, None, text, _hash(raw), "not a JSON object")
    match_id = obj.get("match")
    if not isinstance(match_id, str) or not match_id:
        return ParsedLine(None, None, None, text, _hash(raw), "no string `match` field")
    seq = obj.get("seq")
    kind = obj.get("type")
    return ParsedLine(
        match_id,
        seq if isinstance(seq, int) and not isinstance(seq, bool) else None,
        kind if isinstance(kind, str) else None,
        text,
        _hash(orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)),
        None,
    )


def declared_revision(raw: bytes) -> tuple[str, int] | None:
    """(match id, revision) when the line is a ``match_start`` declaring a revision other than 1.

    The reader calls it only for lines containing ``revision`` (a substring test in its loop), so
    a log without corrections costs one substring search per line. A bad value declares nothing
    (the replay reports it as ``malformed_field``).
    """
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(obj, dict) or obj.get("type") != "match_start" or not isinstance(obj.get("match"), str):
        return None
    revision = obj.get("revision")
    if not isinstance(revision, int) or not is_revision(revision) or revision == 1:
        return None
    return str(obj["match"]), revision


def _hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


@dataclass(slots=True)
class ParsedChunk:
    """Consecutive lines of one file, parsed: rows per bucket and what they say about matches."""

    source: str
    tables: dict[int, pa.Table]
    per_match: dict[tuple[str, int], list[int]]
    """(match id, revision) -> [rows, 1 if a match_end is among them]"""
    rows: int
    malformed: int
    blank: int
    cpu_s: float = 0.0
    """CPU seconds the parse took (``time.process_time`` in the process that ran it)."""


PARSE_CPU = "parse"
"""The stage of :data:`pipelines.cpu.CPU_S` the parse counts to."""


def parse_chunk(
    lines: list[bytes],
    source: str,
    first_line_no: int,
    ingested_at: datetime,
    failure: str | None = None,
    damage: Damage | None = None,
    revisions: dict[str, int] | None = None,
) -> ParsedChunk:
    """Parse a run of lines of file ``source`` (the first is line ``first_line_no``) into bucket tables.

    ``failure`` marks every line malformed with that reason (a foreign file whose conversion
    failed). ``damage`` adds, after the lines, one malformed row for the place where a damaged
    compressed file stops (its payload: the readable bytes of the cut line), so the damage is
    quarantined with file and line. ``revisions`` are the revisions the file declares per match
    (see :func:`declared_revision`; others are 1). A pure function of its arguments, so chunks can
    be parsed in worker processes (the chunk's ``cpu_s`` is the one measurement it adds). The
    garbage collector is paused meanwhile: the rows make no reference cycles, and collections
    triggered by the growing row lists scanned all of them again and again (a sixth of the
    parse's CPU, docs/performance.md "Session 10").
    """
    start = time.process_time()
    with paused_gc():
        declared = revisions or {}
        columns: dict[int, tuple[list[int], list[ParsedLine]]] = {}
        per_match: dict[tuple[str, int], list[int]] = {}
        malformed = blank = 0
        for line_no, raw in enumerate(lines, start=first_line_no):
            if not raw.strip():
                blank += 1
                continue
            row = parse_line(raw)
            if failure is not None:
                row = ParsedLine(None, None, None, row.payload, row.content_hash, failure)
            if row.match_id is None:
                malformed += 1
                bucket = MALFORMED_BUCKET
            else:
                bucket = bucket_of(row.match_id)
                key = (row.match_id, declared.get(row.match_id, 1))
                counts = per_match.get(key)
                if counts is None:
                    counts = per_match[key] = [0, 0]
                counts[0] += 1
                if row.type == "match_end":
                    counts[1] = 1
            numbers, parsed = columns.setdefault(bucket, ([], []))
            numbers.append(line_no)
            parsed.append(row)
        rows = len(lines) - blank
        if damage is not None:
            payload = damage.fragment.decode("utf-8", errors="backslashreplace")
            numbers, parsed = columns.setdefault(MALFORMED_BUCKET, ([], []))
            numbers.append(first_line_no + len(lines))
            parsed.append(ParsedLine(None, None, None, payload, _hash(damage.fragment), damage.message))
            rows += 1
            malformed += 1
        tables = {
            bucket: _raw_table(source, numbers, parsed, ingested_at, declared)
            for bucket, (numbers, parsed) in columns.items()
        }
    return ParsedChunk(source, tables, per_match, rows, malformed, blank, time.process_time() - start)


def _raw_table(
    source: str, numbers: list[int], rows: list[ParsedLine], ingested_at: datetime, revisions: dict[str, int]
) -> pa.Table:
    n = len(rows)
    return pa.table(
        {
            "source_file": pa.repeat(pa.scalar(source, pa.string()), n),
            "line_no": numbers,
            "match_id": [r.match_id for r in rows],
            "seq": [r.seq for r in rows],
            "type": [r.type for r in rows],
            "payload": [r.payload for r in rows],
            "content_hash": [r.content_hash for r in rows],
            "parse_error": [r.parse_error for r in rows],
            "ingested_at": pa.repeat(pa.scalar(ingested_at, RAW_EVENTS.field("ingested_at").type), n),
            "revision": [None if r.match_id is None else revisions.get(r.match_id, 1) for r in rows],
        },
        schema=RAW_EVENTS,
    )
