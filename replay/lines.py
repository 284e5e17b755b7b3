"""Lines of an event log to the envelope fields of their ``raw_events`` rows (events.md "Framing").

The ingest's work per input line: decode, parse, read ``match``, ``seq`` and ``type``, hash, and
file the row under its match's hash bucket. It runs once for every line received (96 million at
1M deals), so it is compiled with the rules engine (``replay.native``): a pure function
of the bytes, no I/O, no pyarrow (``pipelines.steps.parsing`` turns the columns into Arrow tables).
"""

from __future__ import annotations

import hashlib
import zlib
from dataclasses import dataclass, field
from typing import Any

import orjson

MALFORMED_BUCKET = -1
"""The bucket of rows without a match (malformed lines)."""


@dataclass
class ParsedLine:
    """One input line as a ``raw_events`` row (without file, line, time and revision)."""

    match_id: str | None
    seq: int | None
    type: str | None
    payload: str
    content_hash: str
    parse_error: str | None


@dataclass
class BucketRows:
    """The rows of one bucket in a run of lines, column by column (``raw_events`` order)."""

    line_no: list[int] = field(default_factory=list)
    match_id: list[str | None] = field(default_factory=list)
    seq: list[int | None] = field(default_factory=list)
    type: list[str | None] = field(default_factory=list)
    payload: list[str] = field(default_factory=list)
    content_hash: list[str] = field(default_factory=list)
    parse_error: list[str | None] = field(default_factory=list)
    revision: list[int | None] = field(default_factory=list)

    def add(self, line_no: int, row: ParsedLine, revision: int | None) -> None:
        self.line_no.append(line_no)
        self.match_id.append(row.match_id)
        self.seq.append(row.seq)
        self.type.append(row.type)
        self.payload.append(row.payload)
        self.content_hash.append(row.content_hash)
        self.parse_error.append(row.parse_error)
        self.revision.append(revision)


@dataclass
class ParsedLines:
    """A run of lines parsed: the rows per bucket and what they say about each match."""

    buckets: dict[int, BucketRows]
    per_match: dict[tuple[str, int], list[int]]
    """(match id, revision) -> [rows, 1 if a match_end is among them]"""
    malformed: int
    blank: int


def line_hash(data: bytes) -> str:
    """The hash of a line's bytes (``raw_events.content_hash``)."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def canonical_hash(payload: str) -> str:
    """The hash of an event's canonical JSON (sorted keys), equal for two copies of one event in
    any layout: the dedup key of copies whose ``content_hash`` differs. ``payload`` is the text of
    a line that parsed as a JSON object (a row with a ``match_id``)."""
    return line_hash(orjson.dumps(orjson.loads(payload), option=orjson.OPT_SORT_KEYS))


def bucket_of(match_id: str, n_buckets: int) -> int:
    """The stable hash bucket of a match among ``n_buckets``: all its raw rows live in one."""
    return zlib.crc32(match_id.encode()) % n_buckets


def parse_line(raw: bytes) -> ParsedLine:
    """Parse one line (without its line break) into a row; never raises.

    ``content_hash`` hashes the line's bytes as received: two byte-equal copies of an event have
    the same. Copies that differ only in spacing or key order are the same event too; the replay
    compares copies of one (match, seq) whose hashes differ by :func:`canonical_hash`, so the
    ingest need not serialise every event a second time.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        payload = raw.decode("utf-8", errors="backslashreplace")
        return ParsedLine(None, None, None, payload, line_hash(raw), f"not UTF-8: {exc}")
    try:
        obj: Any = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        return ParsedLine(None, None, None, text, line_hash(raw), f"not JSON: {exc}")
    if not isinstance(obj, dict):
        return ParsedLine(None, None, None, text, line_hash(raw), "not a JSON object")
    match_id = obj.get("match")
    if not isinstance(match_id, str) or not match_id:
        return ParsedLine(None, None, None, text, line_hash(raw), "no string `match` field")
    seq = obj.get("seq")
    kind = obj.get("type")
    return ParsedLine(
        match_id,
        seq if isinstance(seq, int) and not isinstance(seq, bool) else None,
        kind if isinstance(kind, str) else None,
        text,
        line_hash(raw),
        None,
    )


def parse_lines(
    lines: list[bytes], first_line_no: int, n_buckets: int, declared: dict[str, int], failure: str | None
) -> ParsedLines:
    """Parse a run of lines (the first is line ``first_line_no``) into rows per bucket.

    Blank lines are counted, not kept. ``declared``: the revisions the file declares per match
    (others are 1). ``failure`` marks every line malformed with that reason (a foreign file whose
    conversion failed).
    """
    buckets: dict[int, BucketRows] = {}
    per_match: dict[tuple[str, int], list[int]] = {}
    malformed = blank = 0
    line_no = first_line_no - 1
    for raw in lines:
        line_no += 1
        if not raw.strip():
            blank += 1
            continue
        row = parse_line(raw)
        if failure is not None:
            row = ParsedLine(None, None, None, row.payload, row.content_hash, failure)
        match_id = row.match_id
        revision: int | None = None
        if match_id is None:
            malformed += 1
            bucket = MALFORMED_BUCKET
        else:
            bucket = bucket_of(match_id, n_buckets)
            revision = declared.get(match_id, 1)
            key = (match_id, revision)
            counts = per_match.get(key)
            if counts is None:
                counts = per_match[key] = [0, 0]
            counts[0] += 1
            if row.type == "match_end":
                counts[1] = 1
        rows = buckets.get(bucket)
        if rows is None:
            rows = buckets[bucket] = BucketRows()
        rows.add(line_no, row, revision)
    return ParsedLines(buckets, per_match, malformed, blank)
