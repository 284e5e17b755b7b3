"""The commit log: one row per committed step (its commit point, naming the version of every
append and memory table) and per published run (the snapshot readers see).

Why: a step appends its batch to several Delta tables, one Delta commit each, so the step's
commit point is one row of this log; nothing reads past the versions the last row names. Readers
read the versions of the last *run* row, written at the end of each whole run, so a join never
sees half a batch; an older run stays readable (``gdan sql --as-of``) until vacuumed.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from pipelines.storage.delta import READS, add_actions, append_once, latest_table, unquote_path
from pipelines.storage.layout import StoreLayout
from pipelines.storage.lock import WriterLock

COMMITS = "commits"
STEP, RUN = "step", "run"

COMMIT_SCHEMA = pa.schema(
    [
        ("seq", pa.int64()),
        ("kind", pa.string()),
        ("batch", pa.string()),
        ("of_seq", pa.int64()),
        ("at", pa.timestamp("us", tz="UTC")),
        ("versions", pa.list_(pa.struct([("table", pa.string()), ("version", pa.int64())]))),
        ("unquarantined", pa.list_(pa.string())),
        ("malformed_rows", pa.int64()),
        ("counts", pa.list_(pa.struct([("name", pa.string()), ("value", pa.int64())]))),
    ]
)
"""The commit log. ``step``: one step's commit (``batch``: its append batch, null when it only
changed the memory; ``versions``: every append and memory table). ``run``: what readers see
(``of_seq``: the step commit it is a snapshot of; ``versions``: every table with data).
``unquarantined`` and ``malformed_rows`` carry the ingest state's two counters, ``counts`` its
summary (matches and rows by status, matches pending replay: ``pipelines.steps.state``), so a step with
nothing to do and ``gdan run``'s summary read one commit row, not the per-match catalogue.

A step's question "what is committed" is answered from the Delta log's statistics of the commit
log (each commit row is one appended file whose min/max give its seq, kind and batch) and one
row file read; no step reads the whole log (:data:`READS` counts what is read)."""


@dataclass(frozen=True, slots=True)
class Commit:
    """One row of the commit log (see :data:`COMMIT_SCHEMA`)."""

    seq: int
    kind: str
    batch: str | None
    of_seq: int
    versions: Mapping[str, int]
    unquarantined: tuple[str, ...] = ()
    malformed_rows: int = 0
    counts: Mapping[str, int] | None = None
    """The state's summary counts as of this commit (None: not recorded, e.g. an older row)."""


@dataclass(frozen=True, slots=True)
class _Entry:
    """One commit-log row as the Delta log's file statistics give it (no data file read)."""

    seq: int
    kind: str
    batch: str | None
    file: str


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The Delta version of every table with data, as of the step commit ``seq`` (-1: none).

    ``run`` is the run record's seq when the snapshot was published (None: not published).
    """

    seq: int
    versions: Mapping[str, int]
    run: int | None = None


EMPTY = Snapshot(seq=-1, versions={})
NO_COMMIT = Commit(seq=-1, kind=STEP, batch=None, of_seq=-1, versions={}, counts={})
"""The commit of a store before its first step."""


class CommitLog:
    """The commit log of the store at ``layout``, appended to under ``lock``.

    A step's question "what is committed" is answered from the Delta log's statistics of the
    log (each row is one appended file whose min/max give its seq, kind and batch) and one row
    file read; no step reads the whole log.
    """

    def __init__(self, layout: StoreLayout, lock: WriterLock) -> None:
        self.layout = layout
        self.lock = lock

    def commits(self) -> list[Commit]:
        """Every row of the commit log, in commit order (reads the whole log: listings only)."""
        return [self._at_entry(e) for e in self._entries()]

    def last_commit(self) -> Commit | None:
        """The last step commit (None before any); reads one row of the commit log."""
        entry = next((e for e in reversed(self._entries()) if e.kind == STEP), None)
        return None if entry is None else self._at_entry(entry)

    def committed_batches(self, until: int | None = None) -> tuple[str, ...]:
        """The append batches committed so far (up to commit ``until``), in commit order.

        From the commit log's statistics: no row is read.
        """
        return tuple(e.batch for e in self._entries()
                     if e.kind == STEP and e.batch and (until is None or e.seq <= until))

    def commit(
        self,
        batch: str | None,
        versions: Mapping[str, int],
        *,
        unquarantined: Sequence[str] = (),
        malformed_rows: int = 0,
        counts: Mapping[str, int] | None = None,
    ) -> Commit:
        """Append the commit row of one step (its commit point); returns it.

        ``versions`` are the versions the step wrote; those of the previous commit it does not
        name are carried over, so every row names every append and memory table. ``counts``
        (None: unchanged) are the state's summary counts, carried over likewise.
        """
        with self.lock.hold():
            last = self.last_commit()
            merged = {**(last.versions if last else {}), **versions}
            row = Commit(
                seq=self.next_seq(),
                kind=STEP,
                batch=batch,
                of_seq=-1,
                versions=merged,
                unquarantined=tuple(unquarantined),
                malformed_rows=malformed_rows,
                counts=counts if counts is not None else (last.counts if last else None),
            )
            self._log(row)
            return row

    def step(self, seq: int) -> Commit:
        if seq < 0:
            return NO_COMMIT
        return self._at_entry(next(e for e in self._entries() if e.seq == seq and e.kind == STEP))

    def next_seq(self) -> int:
        """The seq the next commit-log row gets (from the log's statistics)."""
        entries = self._entries()
        return entries[-1].seq + 1 if entries else 0

    def publish(self, snapshot: Snapshot) -> bool:
        """Make ``snapshot`` what readers see: one run row in the commit log; False when unchanged."""
        with self.lock.hold():
            entry = next((e for e in reversed(self._entries()) if e.kind == RUN), None)
            last = None if entry is None else self._at_entry(entry)
            same = last is not None and dict(last.versions) == dict(snapshot.versions)
            if same and last is not None and last.of_seq == snapshot.seq:
                return False
            row = Commit(
                seq=self.next_seq(), kind=RUN, batch=None, of_seq=snapshot.seq,
                versions=dict(snapshot.versions),
            )
            self._log(row)
            return True

    def runs(self) -> list[Snapshot]:
        """Every published run, oldest first (``run`` = its number for ``gdan sql --as-of``)."""
        return [self._run(e) for e in self._entries() if e.kind == RUN]

    def published(self, run: int | None = None) -> Snapshot | None:
        """The snapshot of run ``run`` (default: the last published), None when there is none.

        Reads that one run record of the commit log.
        """
        runs = (e for e in reversed(self._entries()) if e.kind == RUN and (run is None or e.seq == run))
        entry = next(runs, None)
        return None if entry is None else self._run(entry)

    def last_run(self) -> int | None:
        """The number of the last published run (None before any): what readers read now.

        From the Delta log's statistics of the commit log (no row read), so open pages may ask it
        every few seconds."""
        return next((e.seq for e in reversed(self._entries()) if e.kind == RUN), None)

    def _run(self, entry: _Entry) -> Snapshot:
        row = self._at_entry(entry)
        return Snapshot(seq=row.of_seq, versions=row.versions, run=row.seq)

    def _entries(self) -> list[_Entry]:
        """The commit log's rows by seq, as the Delta log's statistics of its files give them.

        Every commit row is appended alone, so each file's min and max give its seq, kind and
        batch without reading it; a file of several rows (compacted by hand) is read.
        """
        table = latest_table(self.layout.memory_path(COMMITS))
        if table is None:
            return []
        columns = ("path", "num_records", "min.seq", "max.seq", "min.kind", "max.kind", "min.batch")
        actions = add_actions(table)
        listed = actions.select([c for c in columns if c in actions.column_names]).to_pydict()
        out = []
        base = self.layout.memory_path(COMMITS)
        for i, file in enumerate(listed["path"]):
            path = str(base / unquote_path(file))
            first, last = listed["min.seq"][i], listed["max.seq"][i]
            kind = listed["min.kind"][i]
            if listed["num_records"][i] == 1 and first == last and kind == listed["max.kind"][i]:
                out.append(_Entry(first, kind, listed["min.batch"][i], path))
            else:
                out.extend(_Entry(c.seq, c.kind, c.batch, path) for c in _commit_rows(path))
        return sorted(out, key=lambda e: e.seq)

    @staticmethod
    def _at_entry(entry: _Entry) -> Commit:
        return next(c for c in _commit_rows(entry.file) if c.seq == entry.seq)

    def _log(self, row: Commit) -> None:
        versions = [{"table": t, "version": v} for t, v in sorted(row.versions.items())]
        record = {
            "seq": row.seq, "kind": row.kind, "batch": row.batch, "of_seq": row.of_seq,
            "at": datetime.now(UTC), "versions": versions, "unquarantined": list(row.unquarantined),
            "malformed_rows": row.malformed_rows,
            "counts": None if row.counts is None else [
                {"name": k, "value": v} for k, v in sorted(row.counts.items())
            ],
        }
        log = pa.Table.from_pylist([record], schema=COMMIT_SCHEMA)
        append_once(self.layout.memory_path(COMMITS), log, f"commit-{row.seq}", step=False)


_commit_files: dict[str, tuple[Commit, ...]] = {}
"""Commit-log rows by file (a file never changes once written): each is read once per process."""
_commit_files_lock = threading.Lock()


def _commit_rows(file: str) -> tuple[Commit, ...]:
    """The commit rows of one file of the commit log (read once per process, counted in READS)."""
    with _commit_files_lock:
        cached = _commit_files.get(file)
    if cached is not None:
        return cached
    # Not pq.read_table: it imports pyarrow.dataset (and pandas); nor the ``at`` column, whose
    # time zone's conversion to Python imports pandas too (a rerun imports none: test_run.py).
    data = pq.ParquetFile(file).read(columns=[n for n in COMMIT_SCHEMA.names if n != "at"])
    READS[COMMITS] = READS.get(COMMITS, 0) + data.num_rows
    rows = tuple(_commit(r) for r in data.to_pylist())
    with _commit_files_lock:
        _commit_files[file] = rows
    return rows


def _commit(r: Mapping[str, Any]) -> Commit:
    counts = r.get("counts")
    return Commit(
        seq=r["seq"],
        kind=r["kind"],
        batch=r["batch"],
        of_seq=r["of_seq"],
        versions={v["table"]: v["version"] for v in r["versions"]},
        unquarantined=tuple(r["unquarantined"] or ()),
        malformed_rows=r["malformed_rows"] or 0,
        counts=None if counts is None else {c["name"]: c["value"] for c in counts},
    )
