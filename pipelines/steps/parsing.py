"""Parsing input lines into ``raw_events`` rows: the part of ingest that runs in worker processes.

Its own module because a worker has the module of the function it runs imported (the pool's
forkserver preloads it, ``pipelines.exec.pool.PRELOAD``; a Dask worker imports it): this one needs
only pyarrow, orjson and the replayer, not the store, the state and polars that
``pipelines.steps.ingest`` imports (about 140 MiB less per worker). The work
per line is ``replay.lines`` (compiled with the rules engine); this module makes its columns
Arrow tables. See ``pipelines.steps.ingest`` for what a row is and why rows are bucketed by match.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson
import pyarrow as pa

from pipelines.steps.lines import Damage
from replay import lines as line_rows
from replay.events import is_revision
from replay.lines import MALFORMED_BUCKET, BucketRows, ParsedLine, canonical_hash, line_hash, parse_line
from replay.replayer import paused_gc
from schemas.tables import RAW_EVENTS

__all__ = [
    "MALFORMED_BUCKET",
    "N_BUCKETS",
    "PARSE_CPU",
    "ParsedChunk",
    "ParsedLine",
    "bucket_of",
    "canonical_hash",
    "declared_revision",
    "parse_chunk",
    "parse_line",
]

N_BUCKETS = 64


def bucket_of(match_id: str) -> int:
    """The stable hash bucket of a match: all its raw rows live in ``bucket=<n>``."""
    return line_rows.bucket_of(match_id, N_BUCKETS)


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


@dataclass(slots=True)
class ParsedChunk:
    """Consecutive lines of one file, parsed: rows per bucket and what they say about matches.

    The rows are one table, bucket after bucket (``bucket_rows``), not a table per bucket: a
    worker sends the chunk to the parent, and pickling and unpickling some 20 small tables cost
    twice one table's (docs/performance.md).
    """

    source: str
    table: pa.Table
    """Every row of the chunk, the rows of each bucket together (in ``bucket_rows``' order)."""
    bucket_rows: list[tuple[int, int]]
    """(bucket, rows) in the order of ``table``."""
    per_match: dict[tuple[str, int], list[int]]
    """(match id, revision) -> [rows, 1 if a match_end is among them]"""
    rows: int
    malformed: int
    blank: int
    cpu_s: float = 0.0
    """CPU seconds the parse took (``time.process_time`` in the process that ran it)."""

    @property
    def tables(self) -> dict[int, pa.Table]:
        """The rows of each bucket (slices of :attr:`table`)."""
        out: dict[int, pa.Table] = {}
        start = 0
        for bucket, n in self.bucket_rows:
            out[bucket] = self.table.slice(start, n)
            start += n
        return out


PARSE_CPU = "parse"
"""The stage of :data:`pipelines.exec.cpu.CPU_S` the parse counts to."""


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
    parse's CPU, docs/performance.md).
    """
    start = time.process_time()
    with paused_gc():
        parsed = line_rows.parse_lines(lines, first_line_no, N_BUCKETS, revisions or {}, failure)
        rows = len(lines) - parsed.blank
        malformed = parsed.malformed
        if damage is not None:
            payload = damage.fragment.decode("utf-8", errors="backslashreplace")
            cut = ParsedLine(None, None, None, payload, line_hash(damage.fragment), damage.message)
            cut_rows = parsed.buckets.setdefault(MALFORMED_BUCKET, BucketRows())
            cut_rows.add(first_line_no + len(lines), cut, None)
            rows += 1
            malformed += 1
        buckets = list(parsed.buckets.items())
        table = _raw_table(source, [found for _, found in buckets], ingested_at)
        bucket_rows = [(bucket, len(found.line_no)) for bucket, found in buckets]
    return ParsedChunk(source, table, bucket_rows, parsed.per_match, rows, malformed, parsed.blank,
                       time.process_time() - start)


_LISTED = ("line_no", "match_id", "seq", "type", "payload", "content_hash", "parse_error", "revision")
"""The ``raw_events`` columns a :class:`BucketRows` lists."""


def _raw_table(source: str, buckets: list[BucketRows], ingested_at: datetime) -> pa.Table:
    """The rows of ``buckets``, one after the other, as one ``raw_events`` table."""
    columns: dict[str, list[Any]] = {name: [] for name in _LISTED}
    for rows in buckets:
        for name, values in columns.items():
            values.extend(getattr(rows, name))
    n = len(columns["line_no"])
    return pa.table(
        {
            "source_file": pa.repeat(pa.scalar(source, pa.string()), n),
            **columns,
            "ingested_at": pa.repeat(pa.scalar(ingested_at, RAW_EVENTS.field("ingested_at").type), n),
        },
        schema=RAW_EVENTS,
    )
