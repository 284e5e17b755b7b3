"""Ingest: read new inbox files once and keep every line as a ``raw_events`` row (issue 5, step 1).

A file is new when its content hash (sha256) has not been read before, so renaming or
re-copying a file does not ingest it twice. Each line becomes one row exactly as received
(``payload`` is the line's text); a line that is not a JSON object with a string ``match``
(events.md "Framing", error code ``malformed_line``) is kept too, with ``parse_error`` set.
Duplicate events are kept in ``raw_events`` and dropped when matches are assembled for
replay (``pipelines.replaying``), which is where (match, seq, content) is compared.

Rows are written per hash bucket of the match id (``bucket=<n>`` folders), so the replay step
can load all events of a set of matches one bucket at a time, in bounded memory, however large
the input.
"""

from __future__ import annotations

import gzip
import hashlib
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import orjson
import pyarrow as pa
import pyarrow.parquet as pq

from pipelines.pool import ordered_map
from pipelines.state import FileRecord, MatchInfo, StoreState
from pipelines.store import Store
from schemas.tables import RAW_EVENTS

N_BUCKETS = 64
MALFORMED_BUCKET = -1
FLUSH_ROWS = 200_000
"""Parsed rows buffered before they are written (bounds memory, sizes row groups)."""
CHUNK_LINES = 20_000
"""Lines per parsing task."""
POOL_MIN_BYTES = 16 << 20
"""New input smaller than this is parsed in-process (starting workers would cost more)."""

Advance = Callable[[int], None]


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


def _hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def file_sha256(path: Path) -> str:
    """The content hash that decides whether a file was read before."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def inbox_files(inbox: Path) -> list[Path]:
    """Every regular, non-hidden file under the inbox, in a stable order."""
    if not inbox.exists():
        return []
    return sorted(
        p for p in inbox.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(inbox).parts)
    )


@dataclass(slots=True)
class Opened:
    """The lines of an inbox file, and why they are all malformed when conversion failed."""

    lines: Iterator[bytes]
    failure: str | None = None


def open_lines(path: Path) -> Opened | None:
    """The event-v1 lines of a file (without line breaks), or None when the format is unknown.

    Files in a foreign format are converted by ``importers.detect_and_convert``;
    ``*.jsonl`` and ``*.jsonl.gz`` files are read as they are. A foreign file whose conversion
    fails is kept line by line as received, every line malformed with the importer's error
    (file, line, field, what was expected), so nothing is lost.
    """
    try:
        converted = _convert(path)
    except ValueError as exc:
        return Opened(_strip(open(path, "rb")), f"conversion failed: {exc}")
    if converted is not None:
        return Opened(line.encode("utf-8") for line in converted)
    if path.name.endswith(".jsonl.gz"):
        return Opened(_strip(gzip.open(path, "rb")))
    if path.name.endswith(".jsonl"):
        return Opened(_strip(open(path, "rb")))
    return None


def _convert(path: Path) -> Iterator[str] | None:
    from importers import detect_and_convert

    return detect_and_convert(path)


def _strip(handle: Iterable[bytes]) -> Iterator[bytes]:
    with handle:  # type: ignore[attr-defined]
        for line in handle:
            yield line.rstrip(b"\r\n")


@dataclass(slots=True)
class IngestReport:
    """What one ingest run did (asset metadata, CLI summary)."""

    batch_id: str
    files_read: list[str] = field(default_factory=list)
    files_seen_before: list[str] = field(default_factory=list)
    files_unsupported: list[str] = field(default_factory=list)
    rows: int = 0
    malformed: int = 0
    blank_lines: int = 0
    new_matches: int = 0

    def as_metadata(self) -> dict[str, int | str]:
        return {
            "batch": self.batch_id,
            "files_read": len(self.files_read),
            "files_seen_before": len(self.files_seen_before),
            "files_unsupported": len(self.files_unsupported),
            "rows": self.rows,
            "malformed_rows": self.malformed,
            "blank_lines_skipped": self.blank_lines,
            "new_matches": self.new_matches,
        }


@dataclass(slots=True)
class ParsedChunk:
    """Consecutive lines of one file, parsed: rows per bucket and what they say about matches."""

    source: str
    tables: dict[int, pa.Table]
    per_match: dict[str, list[int]]
    """match id -> [rows, 1 if a match_end is among them]"""
    rows: int
    malformed: int
    blank: int


def parse_chunk(lines: list[bytes], source: str, first_line_no: int, ingested_at: datetime,
                failure: str | None = None) -> ParsedChunk:
    """Parse a run of lines of file ``source`` (the first is line ``first_line_no``) into bucket tables.

    ``failure`` marks every line malformed with that reason (a foreign file whose conversion
    failed). A pure function of its arguments, so chunks can be parsed in worker processes.
    """
    columns: dict[int, tuple[list[int], list[ParsedLine]]] = {}
    per_match: dict[str, list[int]] = {}
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
            counts = per_match.get(row.match_id)
            if counts is None:
                counts = per_match[row.match_id] = [0, 0]
            counts[0] += 1
            if row.type == "match_end":
                counts[1] = 1
        numbers, parsed = columns.setdefault(bucket, ([], []))
        numbers.append(line_no)
        parsed.append(row)
    tables = {bucket: _raw_table(source, numbers, parsed, ingested_at)
              for bucket, (numbers, parsed) in columns.items()}
    return ParsedChunk(source, tables, per_match, len(lines) - blank, malformed, blank)


def _raw_table(source: str, numbers: list[int], rows: list[ParsedLine], ingested_at: datetime) -> pa.Table:
    n = len(rows)
    return pa.table(
        {
            "source_file": pa.array([source] * n, pa.string()),
            "line_no": numbers,
            "match_id": [r.match_id for r in rows],
            "seq": [r.seq for r in rows],
            "type": [r.type for r in rows],
            "payload": [r.payload for r in rows],
            "content_hash": [r.content_hash for r in rows],
            "parse_error": [r.parse_error for r in rows],
            "ingested_at": pa.array([ingested_at] * n, RAW_EVENTS.field("ingested_at").type),
        },
        schema=RAW_EVENTS,
    )


class _BucketWriter:
    """Buffers parsed tables per bucket and appends them as row groups to one file per bucket."""

    def __init__(self, store: Store, batch_id: str) -> None:
        self.store = store
        self.batch_id = batch_id
        self.buffers: dict[int, list[pa.Table]] = {}
        self.writers: dict[int, pq.ParquetWriter] = {}
        self.buffered = 0

    def add(self, chunk: ParsedChunk) -> None:
        for bucket, table in chunk.tables.items():
            self.buffers.setdefault(bucket, []).append(table)
            self.buffered += table.num_rows
        if self.buffered >= FLUSH_ROWS:
            self.flush()

    def flush(self) -> None:
        for bucket, tables in self.buffers.items():
            writer = self.writers.get(bucket)
            if writer is None:
                path = self.store.stage_file(self.batch_id, "raw_events", {"bucket": bucket})
                writer = self.writers[bucket] = pq.ParquetWriter(path, RAW_EVENTS, compression="zstd")
            writer.write_table(pa.concat_tables(tables))
        self.buffers = {}
        self.buffered = 0

    def close(self) -> None:
        self.flush()
        for writer in self.writers.values():
            writer.close()


def ingest_inbox(store: Store, state: StoreState, batch_id: str, *, workers: int = 1,
                 advance: Advance | None = None,
                 on_files: Callable[[int], None] | None = None) -> IngestReport:
    """Stage the rows of every new inbox file as raw-event batch ``batch_id``; update ``state``.

    Lines are parsed in chunks of ``CHUNK_LINES``, in ``workers`` processes when the new
    files are large enough to pay for starting them. The caller publishes the batch and saves
    ``state`` (the commit). ``on_files`` is told how many files will be read; ``advance`` is
    called as each file's first rows arrive.
    """
    report = IngestReport(batch_id)
    todo: list[tuple[Path, str, str]] = []
    batch_hashes: set[str] = set()
    for path in inbox_files(store.inbox):
        name = path.relative_to(store.inbox).as_posix()
        digest = _cached_sha256(state, path, name)
        if digest in state.files or digest in batch_hashes:
            report.files_seen_before.append(name)
            continue
        batch_hashes.add(digest)
        todo.append((path, name, digest))
    if on_files:
        on_files(len(todo))
    if not todo:
        return report
    if sum(path.stat().st_size for path, _, _ in todo) < POOL_MIN_BYTES:
        workers = 1
    writer = _BucketWriter(store, batch_id)
    ingested_at = datetime.now(UTC)
    file_rows: dict[str, int] = {}
    try:
        with ordered_map(parse_chunk, workers) as run:
            for chunk in run(_chunks(todo, report, ingested_at)):
                writer.add(chunk)
                _account(chunk, state, batch_id, report)
                if advance and chunk.source not in file_rows:
                    advance(1)
                file_rows[chunk.source] = file_rows.get(chunk.source, 0) + chunk.rows
    finally:
        writer.close()
    for _, name, digest in todo:
        if name not in report.files_unsupported:
            state.files[digest] = FileRecord(name=name, batch=batch_id, rows=file_rows.get(name, 0))
            report.files_read.append(name)
    if report.malformed:
        state.unquarantined.append(batch_id)
        state.malformed_rows += report.malformed
    return report


def _chunks(todo: list[tuple[Path, str, str]], report: IngestReport,
            ingested_at: datetime) -> Iterator[tuple[list[bytes], str, int, datetime, str | None]]:
    for path, name, _ in todo:
        opened = open_lines(path)
        if opened is None:
            report.files_unsupported.append(name)
            continue
        buffer: list[bytes] = []
        first = 1
        for raw in opened.lines:
            buffer.append(raw)
            if len(buffer) >= CHUNK_LINES:
                yield buffer, name, first, ingested_at, opened.failure
                first += len(buffer)
                buffer = []
        if buffer:
            yield buffer, name, first, ingested_at, opened.failure


def _account(chunk: ParsedChunk, state: StoreState, batch_id: str, report: IngestReport) -> None:
    report.rows += chunk.rows
    report.malformed += chunk.malformed
    report.blank_lines += chunk.blank
    for match_id, (n, has_end) in chunk.per_match.items():
        info = state.matches.get(match_id)
        if info is None:
            info = state.matches[match_id] = MatchInfo(bucket=bucket_of(match_id))
            report.new_matches += 1
        info.add_rows(batch_id, n, bool(has_end))


def _cached_sha256(state: StoreState, path: Path, name: str) -> str:
    stat = path.stat()
    cached = state.fingerprints.get(name)
    if cached and cached[0] == stat.st_size and cached[1] == stat.st_mtime_ns:
        return str(cached[2])
    digest = file_sha256(path)
    state.fingerprints[name] = [stat.st_size, stat.st_mtime_ns, digest]
    return digest
