"""Replay step: complete matches -> derived tables, in parallel processes.

A match is replayed once, when its ``match_end`` has arrived (until then it is held as
``incomplete``). Its events are gathered from every raw batch that holds some of them, and an
event delivered again by another file, or by another read of the same file (one re-read whole
after it changed), is dropped: same match, seq and content (canonical JSON, so another layout of
the same event is a copy) as an event of an earlier read.
A line repeated *within* one read of a file is kept: that log itself is faulty, and the replay
reports ``duplicate_seq`` (the simulator's corruption manifest expects this).
Whole matches are sent in chunks to ``replay.replay_batch`` in a process pool; the same task
then computes the chunk's summary tables (``pipelines.steps.chunk_summaries``: ``seat_patterns``, deal
fingerprints, per-match pattern and lead counts) and reviews the chunk's valid deals with the
endgame solver (``pipelines.steps.reviews``: ``play_reviews``). Raw rows are
read in slices of whole matches of one hash bucket and results are written as they come, so
memory stays bounded however large the input.

Corrections (docs/event-extensions.md): only a match's winning revision, the highest ingested
(``MatchInfo.revision``), is gathered, deduplicated (by match, revision, seq and content) and
replayed; rows of other revisions stay in ``raw_events`` only. When a higher revision takes over a
replayed match, the lower revision's rows are first removed from every table this step writes
(``pipelines.steps.corrections.retract_matches``), so the match's rows are replaced, not doubled.

Nothing is lost: malformed lines become ``quarantine`` rows (``malformed_line``), and rows
that arrive after their match was replayed are dropped when they repeat an event of it, else
quarantined (``duplicate_seq`` when the seq exists with other content, else
``event_out_of_place``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl
import pyarrow as pa

from pipelines import release_freed_memory
from pipelines.exec.cpu import add_cpu
from pipelines.exec.executor import Executor
from pipelines.steps.corrections import retract_matches
from pipelines.steps.parsing import MALFORMED_BUCKET, canonical_hash
from pipelines.steps.replay_task import ReplayFn, ReviewFn, replay_task
from pipelines.steps.state import LATE, READY, RETRACTING, MatchInfo, StoreState, select
from pipelines.storage.delta import of_matches
from pipelines.storage.staged_parts import PartWriter
from pipelines.storage.store import Store
from pipelines.storage.write_behind import WriteBehind
from replay.errors import ErrorCode
from schemas.tables import CHUNK_SUMMARIES, DERIVED, QUARANTINE, RAW_EVENTS, REVIEWED

if TYPE_CHECKING:
    import pyarrow.dataset as ds

REPLAY_CPU, SUMMARY_CPU, REVIEW_CPU = "replay", "summaries", "reviews"
"""Stages of :data:`pipelines.exec.cpu.CPU_S` this step counts: ``replay_batch``, the chunks' summary
tables and the reviews."""
WRITTEN: dict[str, pa.Schema] = {**DERIVED, **CHUNK_SUMMARIES, **REVIEWED}
"""Every table the replay step appends to."""
CHUNK_EVENTS = 20_000
"""Events per task sent to a worker: whole matches, about 150 deals."""
SLICE_EVENTS = 100_000
"""Raw rows read into memory at once (whole matches, of one bucket or of several)."""
REPLAYED_COLUMNS = ["source_file", "line_no", "match_id", "seq", "payload", "parse_error"]
"""The ``raw_events`` columns a chunk sent to a worker holds: what ``replay.replay_batch`` and the
reviews read (not the type, hash, time and revision they do not: less to read and to send)."""
KEY_COLUMNS = ["match_id", "seq", "revision", "source_file", "line_no"]
"""The columns of a bucket's rows that choose and order them (and name a late row)."""
READ_COLUMNS = [*REPLAYED_COLUMNS, "revision"]
"""The ``raw_events`` columns the replay reads."""
UNDICTIONARIED = {"plays": ("seq", "t")}
"""Columns of the written tables with few repeated values, written without a dictionary
(``PartWriter``'s ``undictionaried``)."""


def default_replay_fn() -> ReplayFn:
    """``replay.replay_batch_with_events``: the tables, and the parsed events for the reviews
    (imported late: the replayer is a separate part)."""
    from replay import replay_batch_with_events

    return replay_batch_with_events


def default_review_fn() -> ReviewFn:
    """``pipelines.steps.reviews.review_chunk`` (imported late, like the replayer)."""
    from pipelines.steps.reviews import review_chunk

    return review_chunk


@dataclass(slots=True)
class ReplayReport:
    """What one replay run did (asset metadata, CLI summary)."""

    batch_id: str
    matches: int = 0
    events: int = 0
    duplicates: int = 0
    late_rows: int = 0
    malformed_quarantined: int = 0
    rows_written: dict[str, int] = field(default_factory=lambda: dict.fromkeys(WRITTEN, 0))
    statuses: dict[str, int] = field(default_factory=dict)
    missing_from_replay: list[str] = field(default_factory=list)
    replay_cpu_s: float = 0.0
    """CPU seconds the workers spent in ``replay_batch``, summed over the chunks."""
    summary_cpu_s: float = 0.0
    """CPU seconds the workers spent on the chunks' summary tables (``pipelines.steps.chunk_summaries``)."""
    review_cpu_s: float = 0.0
    """CPU seconds the workers spent reviewing the chunks (0 for a run without reviews)."""
    retracted: int = 0
    """Matches whose replayed lower revision was removed for a higher one (corrections)."""
    superseded: int = 0
    """Superseded revisions after this run (rows of ``superseded``)."""
    incomplete: int = 0
    """Matches still waiting for their ``match_end`` after this run (rows of ``incomplete_matches``)."""

    def as_metadata(self) -> dict[str, int | str]:
        return {
            "batch": self.batch_id,
            "matches_replayed": self.matches,
            "events_replayed": self.events,
            "duplicates_dropped": self.duplicates,
            "late_rows": self.late_rows,
            "malformed_quarantined": self.malformed_quarantined,
            "matches_incomplete": self.incomplete,
            "matches_retracted": self.retracted,
            "revisions_superseded": self.superseded,
            "replay_cpu_ms": round(self.replay_cpu_s * 1000),
            "summary_cpu_ms": round(self.summary_cpu_s * 1000),
            "review_cpu_ms": round(self.review_cpu_s * 1000),
            **{f"matches_{k}": v for k, v in sorted(self.statuses.items())},
        }


class _TableWriters:
    """The staged part files of each derived table in the batch, appended chunk by chunk, in a
    thread of their own (``pipelines.storage.write_behind``): the next chunks are read, cut and
    sent meanwhile."""

    def __init__(self, store: Store, batch_id: str, report: ReplayReport) -> None:
        self.store = store
        self.batch_id = batch_id
        self.report = report
        self.writers: dict[str, PartWriter] = {}
        self.behind = WriteBehind("replay-writes")

    def write(self, name: str, table: pa.Table) -> None:
        if table.num_rows == 0:
            return
        self.report.rows_written[name] += table.num_rows
        self.behind.submit(lambda: self._write(name, table))

    def _write(self, name: str, table: pa.Table) -> None:
        schema = WRITTEN[name]
        writer = self.writers.get(name)
        if writer is None:
            writer = self.writers[name] = PartWriter(
                lambda part: self.store.stage_file(self.batch_id, name, part=part), schema,
                undictionaried=UNDICTIONARIED.get(name, ()),
            )
        if not table.schema.equals(schema):  # the replay's tables already are: a cast per column costs
            table = table.select(schema.names).cast(schema)
        writer.write(table)

    def close(self) -> None:
        """Wait for the writes, then close every part file (also after a failed write)."""
        try:
            self.behind.close()
        finally:
            for writer in self.writers.values():
                writer.close()


def replay_ready(
    store: Store,
    state: StoreState,
    batch_id: str,
    *,
    replay_fn: ReplayFn | None = None,
    workers: int | None = None,
    executor: Executor | None = None,
    reviews: bool = True,
    on_total: Callable[[int], None] | None = None,
    advance: Callable[[int], None] | None = None,
) -> ReplayReport:
    """Replay every ready match into staged batch ``batch_id`` and update ``state``.

    The chunks run on ``executor`` (default: the local process pool). Without ``reviews`` the
    chunks are not reviewed: no ``play_reviews`` rows for these matches (the exact review costs
    about 8× the replay, docs/performance.md). The caller publishes the
    batch and saves ``state`` (the commit). ``on_total`` gets the
    number of events to replay, ``advance`` the events done per finished chunk. The raw events
    are read through the store pinned to the last commit (the step holds the writer lock, so it
    is the store's current one): each bucket's file listing then asks no commit-log question.
    """
    fn = replay_fn or default_replay_fn()
    review = default_review_fn() if reviews else None
    workers = workers or os.cpu_count() or 1
    report = ReplayReport(batch_id)
    ready = select(state.matches, READY)
    late = select(state.matches, LATE)
    retracting = sorted(select(state.matches, RETRACTING))
    if on_total:
        on_total(sum(i.rows for i in ready.values()))
    retract_matches(store, retracting, list(WRITTEN))
    for match_id in retracting:
        state.matches[match_id].retract = False
    report.retracted = len(retracting)
    raw = store.pinned()
    writers = _TableWriters(store, batch_id, report)
    try:
        _quarantine_malformed(raw, state, writers, report)
        chunks = ((fn, review, ids, table)
                  for ids, table in _combined(_ready_chunks(raw, ready, late, writers, report)))
        pool_size = workers if sum(i.rows for i in ready.values()) > CHUNK_EVENTS else 1
        with (executor or Executor()).ordered_map(replay_task, pool_size) as run:
            for match_ids, rows, out, cpu in run(chunks):
                report.replay_cpu_s += cpu.replay
                report.summary_cpu_s += cpu.summaries
                report.review_cpu_s += cpu.review
                add_cpu(REPLAY_CPU, cpu.replay)
                add_cpu(SUMMARY_CPU, cpu.summaries)
                add_cpu(REVIEW_CPU, cpu.review)
                if "matches" in out:
                    out["matches"] = _with_revisions(out["matches"], state)
                for name in WRITTEN:
                    if name in out:
                        writers.write(name, out[name])
                _record_statuses(state, match_ids, out.get("matches"), report)
                if advance:
                    advance(rows)
    finally:
        writers.close()
    report.matches = len(ready)
    return report


def _quarantine_malformed(
    store: Store, state: StoreState, writers: _TableWriters, report: ReplayReport
) -> None:
    for batch in state.unquarantined:
        files = _raw_files(store, [batch], MALFORMED_BUCKET)
        if not files:
            continue
        columns = ["source_file", "line_no", "parse_error", "payload"]
        raw = store.read_files("raw_events", files, columns=columns)
        writers.write(
            "quarantine",
            pa.table(
                {
                    "source_file": raw["source_file"],
                    "line_no": raw["line_no"],
                    "match_id": pa.nulls(raw.num_rows, pa.string()),
                    "seq": pa.nulls(raw.num_rows, pa.int64()),
                    "code": pa.array([ErrorCode.MALFORMED_LINE.value] * raw.num_rows, pa.string()),
                    "message": raw["parse_error"],
                    "payload": raw["payload"],
                },
                schema=QUARANTINE,
            ),
        )
        report.malformed_quarantined += raw.num_rows
    state.unquarantined = []


def _raw_files(store: Store, batches: list[str], bucket: int | list[int]) -> list[Path]:
    """The raw-event files of ``batches`` in hash bucket ``bucket`` (``MALFORMED_BUCKET``: malformed)
    or in any of a list of buckets."""
    return store.batch_files("raw_events", batches, {"bucket": bucket})


def _ready_chunks(
    store: Store,
    ready: dict[str, MatchInfo],
    late: dict[str, MatchInfo],
    writers: _TableWriters,
    report: ReplayReport,
) -> Iterator[tuple[list[str], pa.Table]]:
    """Yield (match ids, events) chunks of whole, deduplicated ready matches, slice by slice.

    A slice is a set of matches holding at most ``SLICE_EVENTS`` raw rows (by the state's
    counts), so the rows in memory are bounded however large a bucket grows. The next slice is
    read in a thread of its own while this one is cut and sent (Parquet decoding leaves the
    interpreter's lock): two slices in memory at most.
    """
    slices = list(_slices(ready, late))
    with ThreadPoolExecutor(1, thread_name_prefix="replay-reads") as reads:
        ahead = reads.submit(_read_matches, store, *slices[0]) if slices else None
        for k, (b_ready, b_late) in enumerate(slices):
            assert ahead is not None
            table, keys = ahead.result()
            ahead = reads.submit(_read_matches, store, *slices[k + 1]) if k + 1 < len(slices) else None
            if b_late:
                _handle_late(keys, table, b_late, writers, report)
            if b_ready:
                yield from _chunk_matches(keys.filter(_winning(b_ready)), table, b_ready, report)
            del table, keys
            release_freed_memory()


def _read_matches(
    store: Store, b_ready: dict[str, MatchInfo], b_late: dict[str, MatchInfo]
) -> tuple[pa.Table, pl.DataFrame]:
    """:func:`_read_slice` of the raw rows of a slice's ready and late matches."""
    batches = _ordered_union(
        [i.batches for i in b_ready.values()] + [i.batches + i.late_batches for i in b_late.values()]
    )
    buckets = sorted({i.bucket for i in (*b_ready.values(), *b_late.values())})
    return _read_slice(store, batches, buckets, of_matches([*b_ready, *b_late]))


def _combined(chunks: Iterator[tuple[list[str], pa.Table]]) -> Iterator[tuple[list[str], pa.Table]]:
    """Consecutive chunks joined until each holds :data:`CHUNK_EVENTS` events (the last may hold
    fewer). A run adding a few matches to each of many buckets then sends a few tasks, not one
    per bucket: a task has a fixed cost (the worker's calls, a row group per table written)."""
    ids: list[str] = []
    parts: list[pa.Table] = []
    size = 0
    for chunk_ids, table in chunks:
        ids.extend(chunk_ids)
        parts.append(table)
        size += table.num_rows
        if size >= CHUNK_EVENTS:
            yield ids, pa.concat_tables(parts)
            ids, parts, size = [], [], 0
    if parts:
        yield ids, pa.concat_tables(parts)


def _winning(infos: dict[str, MatchInfo]) -> pl.Expr:
    """Rows of the given matches in their winning revision (a filter: it keeps the arrival order)."""
    wanted = [f"{m}\0{i.revision}" for m, i in infos.items()]
    key = pl.concat_str([pl.col("match_id"), pl.col("revision").cast(pl.String)], separator="\0")
    return key.is_in(wanted)


def _with_revisions(matches: pa.Table, state: StoreState) -> pa.Table:
    """``matches`` rows with the revision replayed (the state's: also for a log without a readable
    ``match_start``)."""
    revisions = [state.matches[m].revision for m in matches["match_id"].to_pylist()]
    column = matches.schema.get_field_index("revision")
    return matches.set_column(column, "revision", pa.array(revisions, pa.int32()))


def _slices(
    ready: dict[str, MatchInfo], late: dict[str, MatchInfo]
) -> Iterator[tuple[dict[str, MatchInfo], dict[str, MatchInfo]]]:
    """Ready and late matches in (bucket, match id) order, cut into slices of at most
    ``SLICE_EVENTS`` rows. A slice may span buckets: a run adding a few matches to each of many
    buckets reads them as one slice, not one a bucket (each slice has a fixed cost: a file
    listing and a scan per batch, the polars work on its keys; 63 slices took 2.1 s of a run
    adding 1,000 deals)."""
    matches = [(m, i, False) for m, i in ready.items()] + [(m, i, True) for m, i in late.items()]
    b_ready: dict[str, MatchInfo] = {}
    b_late: dict[str, MatchInfo] = {}
    rows = 0
    for match_id, info, is_late in sorted(matches, key=lambda x: (x[1].bucket, x[0])):
        if rows and rows + info.rows > SLICE_EVENTS:
            yield b_ready, b_late
            b_ready, b_late, rows = {}, {}, 0
        (b_late if is_late else b_ready)[match_id] = info
        rows += info.rows
    if b_ready or b_late:
        yield b_ready, b_late


def _frame(table: pa.Table) -> pl.DataFrame:
    """An Arrow table as a polars frame (``pl.from_arrow`` is typed to return a Series too)."""
    out = pl.from_arrow(table)
    assert isinstance(out, pl.DataFrame)
    return out


def _read_slice(
    store: Store, batches: list[str], buckets: list[int], wanted: ds.Expression
) -> tuple[pa.Table, pl.DataFrame]:
    """The raw rows of the ``wanted`` matches in the given buckets, in arrival order (the
    :data:`READ_COLUMNS`), and their keys as a frame: :data:`KEY_COLUMNS`, the row's ``_batch``
    and its ``_arrival`` (its index in the table).

    Only the keys go to polars: the payloads (most of the bytes) stay in Arrow until the chunks
    take their rows, instead of being copied into polars and back.
    """
    parts: list[pa.Table] = []
    keys: list[pl.DataFrame] = []
    for batch in batches:
        files = _raw_files(store, [batch], buckets)
        if files:
            part = store.read_files("raw_events", files, columns=READ_COLUMNS, where=wanted)
            parts.append(part)
            keys.append(_frame(part.select(KEY_COLUMNS)).with_columns(_batch=pl.lit(batch)))
    if not parts:
        parts = [RAW_EVENTS.empty_table().select(READ_COLUMNS)]
        keys = [_frame(parts[0].select(KEY_COLUMNS)).with_columns(_batch=pl.lit("", pl.String))]
    return pa.concat_tables(parts), pl.concat(keys).with_row_index("_arrival")


def _ordered_union(lists: list[list[str]]) -> list[str]:
    seen: dict[str, None] = {}
    for items in lists:
        seen.update(dict.fromkeys(items))
    return list(seen)


def _chunk_matches(
    keys: pl.DataFrame, table: pa.Table, infos: dict[str, MatchInfo], report: ReplayReport
) -> Iterator[tuple[list[str], pa.Table]]:
    """Chunks of the rows of whole matches (their first reads, in seq order) of ``table``, whose
    rows ``keys`` lists (by ``_arrival``); the matches in (bucket, match id) order, as the
    replay has always written them."""
    before = keys.group_by("match_id").len()
    unique = _first_reads(keys, table["payload"])
    order = {m: i for i, m in enumerate(sorted(infos, key=lambda m: (infos[m].bucket, m)))}
    unique = unique.with_columns(_order=pl.col("match_id").replace_strict(order, return_dtype=pl.Int64))
    unique = unique.sort(["_order", "seq", "_arrival"], nulls_last=True)
    sizes = unique.group_by("match_id", maintain_order=True).len()
    kept = dict(zip(sizes["match_id"].to_list(), sizes["len"].to_list(), strict=True))
    for match_id, n in zip(before["match_id"].to_list(), before["len"].to_list(), strict=True):
        dropped = n - kept[match_id]
        infos[match_id].duplicates += dropped
        report.duplicates += dropped
    # Each chunk takes its own rows: a slice of one table taken for the whole slice would be
    # pickled to its worker with every row of that table (Arrow pickles a slice's whole buffers).
    # The columns are made one chunk first: a take from the many small chunks of the raw row
    # groups costs about three times the copy and the take (docs/performance.md).
    columns = table.select(REPLAYED_COLUMNS).combine_chunks()
    order = unique["_arrival"].to_arrow()
    start = 0
    ids: list[str] = []
    size = 0
    offset = 0
    for match_id, n in kept.items():
        ids.append(match_id)
        size += n
        offset += n
        if size >= CHUNK_EVENTS:
            yield ids, columns.take(order.slice(start, offset - start))
            start, ids, size = offset, [], 0
    if ids:
        yield ids, columns.take(order.slice(start, offset - start))
    report.events += len(order)


def _first_reads(keys: pl.DataFrame, payloads: pa.ChunkedArray) -> pl.DataFrame:
    """The rows of ``keys`` whose copy of their event (match, seq, content) came with the first
    read that brought it: a copy that a later read repeats is dropped. Without a (match, seq)
    that occurs twice there is no such copy, and the frame is returned as it is (most slices: the
    window over every row cost more than sorting them). The content of a repeated (match, seq) is
    its canonical JSON (:func:`pipelines.steps.parsing.canonical_hash`; ``payloads[_arrival]`` is a
    row's line): a copy in another layout is the same event."""
    repeated = keys.select(pl.struct("match_id", "seq").is_duplicated()).to_series()
    if not repeated.any():
        return keys
    where = keys.filter(repeated)["_arrival"]
    canonical = [canonical_hash(p) for p in payloads.take(where.to_arrow()).to_pylist()]
    content = pl.repeat(None, keys.height, dtype=pl.String, eager=True)
    content = content.scatter(repeated.arg_true(), canonical)
    read = pl.concat_str(["source_file", "_batch"], separator="\0")
    return (
        keys.with_columns(content.alias("_content"))
        .filter(read == read.first().over(["match_id", "seq", "_content"]))
        .drop("_content")
    )


def _handle_late(
    keys: pl.DataFrame, table: pa.Table, infos: dict[str, MatchInfo], writers: _TableWriters,
    report: ReplayReport
) -> None:
    """Drop late rows that repeat an event of their replayed match; quarantine the others
    (``keys``: the rows of ``table`` by ``_arrival``, as :func:`_read_slice` gives them)."""
    for match_id, info in infos.items():
        rows = keys.filter(pl.col("match_id") == match_id)
        payloads = table["payload"].take(rows["_arrival"].to_arrow()).to_pylist()
        late_set = set(info.late_batches)
        old_keys: set[tuple[int | None, str]] = set()
        old_seqs: set[int | None] = set()
        quarantined: list[dict[str, object]] = []
        for row, payload in zip(rows.iter_rows(named=True), payloads, strict=True):
            if row["revision"] != info.revision:
                continue  # a superseded revision: kept in raw_events, listed in `superseded`
            key = (row["seq"], canonical_hash(payload))
            if row["_batch"] not in late_set:
                old_keys.add(key)
                old_seqs.add(row["seq"])
                continue
            if key in old_keys:
                info.duplicates += 1
                report.duplicates += 1
                continue
            code = ErrorCode.DUPLICATE_SEQ if row["seq"] in old_seqs else ErrorCode.EVENT_OUT_OF_PLACE
            quarantined.append(
                {
                    "source_file": row["source_file"],
                    "line_no": row["line_no"],
                    "match_id": match_id,
                    "seq": row["seq"],
                    "code": code.value,
                    "message": f"arrived after match {match_id!r} was complete and replayed "
                    f"(status {info.status}); kept here, the match is not replayed again",
                    "payload": payload,
                }
            )
            old_keys.add(key)
            old_seqs.add(row["seq"])
        if quarantined:
            writers.write("quarantine", pa.Table.from_pylist(quarantined, schema=QUARANTINE))
        info.late_rows += len(quarantined)
        report.late_rows += len(quarantined)
        info.batches.extend(b for b in info.late_batches if b not in info.batches)
        info.late_batches = []


def _record_statuses(
    state: StoreState, match_ids: list[str], matches: pa.Table | None, report: ReplayReport
) -> None:
    got: dict[str, str] = {}
    if matches is not None and matches.num_rows:
        got = dict(zip(matches["match_id"].to_pylist(), matches["status"].to_pylist(), strict=True))
    for match_id in match_ids:
        status = got.get(match_id)
        if status is None:
            report.missing_from_replay.append(match_id)
            status = "invalid"
        state.matches[match_id].status = status
        report.statuses[status] = report.statuses.get(status, 0) + 1
