"""Ingest: read new inbox files once and keep every line as a ``raw_events`` row.

A file is new when its content hash (sha256) has not been read before, so renaming or
re-copying a file does not ingest it twice. Each line becomes one row exactly as received
(``payload`` is the line's text); a line that is not a JSON object with a string ``match``
(events.md "Framing", error code ``malformed_line``) is kept too, with ``parse_error`` set.
Duplicate events are kept in ``raw_events`` and dropped when matches are assembled for
replay (``pipelines.steps.replaying``), which is where (match, seq, content) is compared.

Files are read as real tools write them, and as they are being written (``pipelines.steps.lines``):
whole lines only, a leading BOM dropped, CRLF accepted, a damaged ``.jsonl.gz`` read
as far as it is readable with its damage kept as one malformed row; a file that grew since its
last read is read on from there. Every read is recorded in the state (``FileRecord``) and as a
row of ``ingested_files``, which also flags empty files, damaged files and unfinished lines.

Corrections (docs/event-extensions.md): every row gets the ``revision`` of its match that its file
declares in that match's ``match_start.revision`` (1 when absent, and for a file without the
match's ``match_start``). The state tracks the highest revision of each match ingested, the one
the replay step replays (``MatchInfo.add_rows``); lower revisions stay here as they are.

Rows are written per hash bucket of the match id (``bucket=<n>`` folders), so the replay step
can load all events of a set of matches one bucket at a time, in bounded memory, however large
the input.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import accumulate, islice
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from pipelines.exec.cpu import add_cpu
from pipelines.exec.pool import ordered_map, start_forkserver
from pipelines.steps.lines import Damage, LineReader, Resume
from pipelines.steps.parsing import (
    PARSE_CPU,
    ParsedChunk,
    bucket_of,
    declared_revision,
    parse_chunk,
)
from pipelines.steps.state import FileRecord, MatchInfo, StoreState
from pipelines.storage.staged_parts import PartWriter
from pipelines.storage.store import Store
from pipelines.storage.write_behind import WriteBehind
from schemas.tables import INGESTED_FILES, RAW_EVENTS

FLUSH_ROWS = 200_000
"""Parsed rows buffered before they are written (bounds memory, sizes row groups)."""
UNIQUE_COLUMNS = ("payload", "content_hash")
"""``raw_events`` columns that differ on every line: written plain (``PartWriter``), the bucket
files' writes took 20 % less CPU and their files 15 % less space."""
CHUNK_LINES = 20_000
"""Lines per parsing task."""
MATCH_START = "match_start"
"""The event type whose lines declare the players (the roster's, ``pipelines.steps.roster``)."""
POOL_MIN_BYTES = 16 << 20
"""New input smaller than this is parsed in-process (starting workers would cost more)."""

Advance = Callable[[int], None]


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
        p
        for p in inbox.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(inbox).parts)
    )


@dataclass(slots=True)
class Opened:
    """The lines of an inbox file, and why they are all malformed when conversion failed.

    ``reader`` reads an event-v1 file (whole lines, BOM and CRLF handled, damage located, see
    ``pipelines.steps.lines``); it is None for a foreign log (converted, or kept as received when its
    conversion failed), whose reads are not continued when it grows: it is read whole again.
    """

    blocks: Iterator[list[bytes]]
    """The lines, in runs (``LineReader.blocks``)."""
    failure: str | None = None
    reader: LineReader | None = None

    @property
    def first_line(self) -> int:
        return self.reader.first_line if self.reader else 1

    @property
    def resumed(self) -> bool:
        return self.reader is not None and self.reader.resumed


def open_lines(path: Path, resume: Resume | None = None) -> Opened | None:
    """The event-v1 lines of a file (without line breaks), or None when the format is unknown.

    Files in a foreign format are converted by ``importers.detect_and_convert``;
    ``*.jsonl`` and ``*.jsonl.gz`` files are read as they are, from where ``resume`` says the
    last read stopped when the file grew since (their foreign format is not sniffed again). A
    foreign file whose conversion fails is kept line by line as received, every line malformed
    with the importer's error (file, line, field, what was expected), so nothing is lost.
    """
    gz = path.name.endswith(".jsonl.gz")
    if resume is None:
        try:
            converted = _convert(path)
        except ValueError as exc:
            return Opened(LineReader(path, gz=False).blocks(), f"conversion failed: {exc}")
        if converted is not None:
            return Opened(_runs(line.encode("utf-8") for line in converted))
    if gz or path.name.endswith(".jsonl"):
        reader = LineReader(path, gz=gz, resume=resume)
        return Opened(reader.blocks(), reader=reader)
    return None


def _runs(lines: Iterator[bytes]) -> Iterator[list[bytes]]:
    """``lines`` in runs of at most :data:`CHUNK_LINES`."""
    while run := list(islice(lines, CHUNK_LINES)):
        yield run


def _convert(path: Path) -> Iterator[str] | None:
    from importers import detect_and_convert

    return detect_and_convert(path)


@dataclass(slots=True)
class IngestReport:
    """What one ingest run did (asset metadata, CLI summary)."""

    batch_id: str
    files_read: list[str] = field(default_factory=list)
    files_seen_before: list[str] = field(default_factory=list)
    files_unsupported: list[str] = field(default_factory=list)
    files_resumed: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """One readable line per file that needs attention: ``file: what is wrong``."""
    rows: int = 0
    malformed: int = 0
    blank_lines: int = 0
    new_matches: int = 0
    parse_cpu_s: float = 0.0
    """CPU seconds spent in :func:`parse_chunk`, summed over the workers."""
    match_starts: pa.Table | None = None
    """The batch's ``match_start`` rows, with a ``file`` column: the ``raw_events`` file each is in
    once the batch is published (``pipelines.steps.roster.remember_ingested``)."""
    raw_files: list[str] = field(default_factory=list)
    """Every ``raw_events`` file the batch wrote, named as in its table once published."""

    def as_metadata(self) -> dict[str, int | str]:
        return {
            "batch": self.batch_id,
            "files_read": len(self.files_read),
            "files_resumed": len(self.files_resumed),
            "files_seen_before": len(self.files_seen_before),
            "files_unsupported": len(self.files_unsupported),
            "rows": self.rows,
            "malformed_rows": self.malformed,
            "blank_lines_skipped": self.blank_lines,
            "new_matches": self.new_matches,
            "parse_cpu_ms": round(self.parse_cpu_s * 1000),
            "problems": "\n".join(self.problems),
        }


class _BucketWriter:
    """Buffers parsed tables per bucket and appends them as row groups to each bucket's parts.

    Every flush writes one row group per bucket (small: a few thousand rows at 64 buckets), so a
    later read of a few matches (``pipelines.storage.delta.of_matches``) decodes little besides them.
    It keeps the ``match_start`` rows it writes, each with the file it went to (:meth:`starts`):
    the roster's declarations, recorded without reading the files again. The writes run in a
    thread of their own (``pipelines.storage.write_behind``), the next rows parsed meanwhile; one
    flush at most waits for it (a flush is :data:`FLUSH_ROWS` rows, payloads and all).
    """

    def __init__(self, store: Store, batch_id: str) -> None:
        self.store = store
        self.batch_id = batch_id
        self.buffers: dict[int, list[pa.Table]] = {}
        self.writers: dict[int, PartWriter] = {}
        self.buffered = 0
        self.match_starts: list[pa.Table] = []
        self.behind = WriteBehind("ingest-writes", depth=1)

    def add(self, chunk: ParsedChunk) -> None:
        for bucket, table in chunk.tables.items():
            self.buffers.setdefault(bucket, []).append(table)
            self.buffered += table.num_rows
        if self.buffered >= FLUSH_ROWS:
            self.flush()

    def flush(self) -> None:
        """Hand the buffered rows to the writing thread: one row group per bucket."""
        buffers = self.buffers
        self.behind.submit(lambda: self._write(buffers))
        self.buffers = {}
        self.buffered = 0

    def _write(self, buffers: dict[int, list[pa.Table]]) -> None:
        for bucket, tables in buffers.items():
            writer = self.writers.get(bucket)
            if writer is None:
                writer = PartWriter(self._path_of(bucket), RAW_EVENTS, plain=UNIQUE_COLUMNS)
                self.writers[bucket] = writer
            data = pa.concat_tables(tables)
            writer.write(data)
            writer.flush()
            starts = data.filter(pc.equal(data["type"], MATCH_START))
            if starts.num_rows:
                name = self._published(writer.path_of(writer.parts - 1))
                self.match_starts.append(starts.append_column("file", pa.array([name] * starts.num_rows,
                                                                                pa.string())))

    def close(self) -> None:
        """Write what is buffered, wait for the writes, then close every part file (also after
        a failed write)."""
        try:
            if self.buffers:
                self.flush()
        finally:
            try:
                self.behind.close()
            finally:
                for writer in self.writers.values():
                    writer.close()

    def starts(self) -> tuple[pa.Table, list[str]]:
        """The ``match_start`` rows written, with a ``file`` column naming the ``raw_events`` file
        each is in once the batch is published, and every such file written (sorted)."""
        files = sorted(self._published(w.path_of(k)) for w in self.writers.values() for k in range(w.parts))
        schema = RAW_EVENTS.append(pa.field("file", pa.string()))
        return pa.concat_tables(self.match_starts) if self.match_starts else schema.empty_table(), files

    def _path_of(self, bucket: int) -> Callable[[int], Path]:
        return lambda part: self.store.stage_file(self.batch_id, "raw_events", {"bucket": bucket}, part)

    def _published(self, staged: Path) -> str:
        return self.store.published_name(self.batch_id, "raw_events", staged)


@dataclass(slots=True)
class _Read:
    """One file to read in this run, and what the read found (filled in as it goes)."""

    path: Path
    name: str
    digest: str
    resume: Resume | None
    revisions: dict[str, int] = field(default_factory=dict)
    """Revisions the file declares per match (other than 1): earlier reads' and this one's."""
    opened: Opened | None = None
    rows: int = 0
    malformed: int = 0
    blank: int = 0


def ingest_inbox(
    store: Store,
    state: StoreState,
    batch_id: str,
    *,
    workers: int = 1,
    advance: Advance | None = None,
    on_files: Callable[[int], None] | None = None,
) -> IngestReport:
    """Stage the rows of every new inbox file as raw-event batch ``batch_id``; update ``state``.

    A file whose content was read before (under any name) is skipped. A file read before
    under the same name that has grown is read on from where that read stopped, when the bytes
    read then are unchanged (else it is a new file, read whole; the replay drops the events it
    repeats). Each read gets a record in the state and a row in ``ingested_files``; an empty
    file, a damaged ``.gz`` and an unfinished last line are reported (``IngestReport.problems``).

    Lines are parsed in chunks of ``CHUNK_LINES``, in ``workers`` processes when the new
    files are large enough to pay for starting them. The caller publishes the batch and saves
    ``state`` (the commit). ``on_files`` is told how many files will be read; ``advance`` is
    called as each file's first rows arrive.
    """
    report = IngestReport(batch_id)
    todo: list[_Read] = []
    batch_hashes: set[str] = set()
    latest = {record.name: record for record in state.files.values()}
    for path in inbox_files(store.inbox):
        name = path.relative_to(store.inbox).as_posix()
        digest = _cached_sha256(state, path, name)
        if digest in state.files or digest in batch_hashes:
            report.files_seen_before.append(name)
            seen = state.files.get(digest)
            if seen is not None and seen.name == name and seen.pending:
                report.problems.append(f"{name}: {_unfinished(seen.lines, seen.pending)}")
            continue
        batch_hashes.add(digest)
        previous = latest.get(name)
        resume = previous.resume() if previous else None
        revisions = dict(previous.revisions) if previous and resume else {}
        todo.append(_Read(path, name, digest, resume, revisions))
    if on_files:
        on_files(len(todo))
    if not todo:
        return report
    start_forkserver()
    if sum(item.path.stat().st_size for item in todo) < POOL_MIN_BYTES:
        workers = 1
    writer = _BucketWriter(store, batch_id)
    ingested_at = datetime.now(UTC)
    reads = {item.name: item for item in todo}
    try:
        with ordered_map(parse_chunk, workers) as run:
            for chunk in run(_chunks(todo, report, ingested_at)):
                writer.add(chunk)
                _account(chunk, state, batch_id, report)
                item = reads[chunk.source]
                if advance and not (item.rows or item.blank):
                    advance(1)
                item.rows += chunk.rows
                item.malformed += chunk.malformed
                item.blank += chunk.blank
    finally:
        writer.close()
    report.match_starts, report.raw_files = writer.starts()
    log = [(item, _record(item, batch_id, state, report)) for item in todo if item.opened is not None]
    _write_file_log(store, batch_id, log, ingested_at)
    if report.malformed:
        state.unquarantined.append(batch_id)
        state.malformed_rows += report.malformed
    return report


def _chunks(
    todo: list[_Read], report: IngestReport, ingested_at: datetime
) -> Iterator[tuple[list[bytes], str, int, datetime, str | None, Damage | None, dict[str, int]]]:
    for item in todo:
        opened = item.opened = open_lines(item.path, item.resume)
        if opened is None:
            report.files_unsupported.append(item.name)
            continue
        buffer: list[bytes] = []
        done = 0
        for block in opened.blocks:
            start = 0
            while start < len(block):
                run = block[start:start + CHUNK_LINES - len(buffer)]
                start += len(run)
                if opened.failure is None:
                    _declare_revisions(run, item.revisions)
                buffer.extend(run)
                if len(buffer) >= CHUNK_LINES:
                    yield (buffer, item.name, opened.first_line + done, ingested_at, opened.failure, None,
                           dict(item.revisions))
                    done += len(buffer)
                    buffer = []
        damage = opened.reader.damage if opened.reader else None
        if buffer or damage:
            yield (buffer, item.name, opened.first_line + done, ingested_at, opened.failure, damage,
                   dict(item.revisions))


def _declare_revisions(lines: list[bytes], revisions: dict[str, int]) -> None:
    """Record in ``revisions`` the revision each of ``lines`` declares for its match, in order.

    Only a line containing ``revision`` can declare one (``declared_revision``): the lines are
    searched as one text, since a log without corrections has none (a search per line was a
    sixth of the ingest parent's CPU)."""
    text = b"\n".join(lines)
    at = text.find(b"revision")
    if at < 0:
        return
    ends = list(accumulate(len(line) + 1 for line in lines))
    while at >= 0:
        index = bisect_right(ends, at)
        if declared := declared_revision(lines[index]):
            revisions[declared[0]] = declared[1]
        at = text.find(b"revision", ends[index])


def _record(item: _Read, batch_id: str, state: StoreState, report: IngestReport) -> FileRecord:
    """Record one read in the state's file log and report what needs attention."""
    assert item.opened is not None
    reader = item.opened.reader
    record = FileRecord(
        name=item.name, batch=batch_id, rows=item.rows, first_line=item.opened.first_line,
        revisions=item.revisions,
    )
    if reader is None:
        record.lines = item.rows + item.blank
    else:
        record.lines, record.offset, record.prefix = reader.lines, reader.offset, reader.prefix
        record.terminated, record.pending = reader.terminated, reader.pending
        if item.opened.resumed:
            report.files_resumed.append(item.name)
        if reader.damage is not None:
            kept = (
                f"lines {record.first_line}–{reader.lines} read"
                if reader.lines >= record.first_line
                else "no line readable"
            )
            record.problem = "damaged"
            record.message = (
                f"{reader.damage.message}; {kept}, the damage quarantined as line {reader.lines + 1}"
            )
        elif reader.pending:
            record.problem, record.message = "unfinished_line", _unfinished(reader.lines, reader.pending)
        elif not reader.resumed and item.rows == 0:
            size = item.path.stat().st_size
            record.problem = "empty"
            record.message = (
                "empty file (0 bytes): no events"
                if size == 0
                else f"no events: only {item.blank} blank line(s)"
                if item.blank
                else "no events: no lines (empty once decompressed)"
            )
    if record.problem is not None:
        report.problems.append(f"{item.name}: {record.message}")
    state.files[item.digest] = record
    report.files_read.append(item.name)
    return record


def _unfinished(lines: int, pending: int) -> str:
    return (
        f"line {lines + 1} has no line break yet ({pending} bytes): left for the next run "
        "(end the file with a line break if it is complete)"
    )


def _write_file_log(
    store: Store, batch_id: str, reads: list[tuple[_Read, FileRecord]], ingested_at: datetime
) -> None:
    """Stage this batch's rows of ``ingested_files`` (published with the raw rows, atomically)."""
    if not reads:
        return
    table = pa.Table.from_pylist(
        [
            {
                "source_file": r.name,
                "sha256": item.digest,
                "batch": batch_id,
                "first_line": r.first_line,
                "last_line": r.lines if r.lines >= r.first_line else None,
                "rows": r.rows,
                "malformed": item.malformed,
                "bytes_read": r.offset if r.offset >= 0 else None,
                "pending_bytes": r.pending,
                "resumed": item.opened is not None and item.opened.resumed,
                "problem": r.problem,
                "message": r.message,
                "ingested_at": ingested_at,
            }
            for item, r in reads
        ],
        schema=INGESTED_FILES,
    )
    pq.write_table(table, store.stage_file(batch_id, "ingested_files"))


def _account(chunk: ParsedChunk, state: StoreState, batch_id: str, report: IngestReport) -> None:
    report.rows += chunk.rows
    report.malformed += chunk.malformed
    report.blank_lines += chunk.blank
    report.parse_cpu_s += chunk.cpu_s
    add_cpu(PARSE_CPU, chunk.cpu_s)
    for (match_id, revision), (n, has_end) in sorted(chunk.per_match.items()):
        info = state.matches.get(match_id)
        if info is None:
            info = state.matches[match_id] = MatchInfo(bucket=bucket_of(match_id), revision=revision)
            report.new_matches += 1
        info.add_rows(batch_id, n, bool(has_end), revision)


def _cached_sha256(state: StoreState, path: Path, name: str) -> str:
    stat = path.stat()
    cached = state.fingerprints.get(name)
    if cached and cached[0] == stat.st_size and cached[1] == stat.st_mtime_ns:
        return str(cached[2])
    digest = file_sha256(path)
    state.fingerprints[name] = [stat.st_size, stat.st_mtime_ns, digest]
    return digest
