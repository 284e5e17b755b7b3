"""Ingest bookkeeping: which files were read, which batches are committed, where each match stands.

The pipeline's memory is three Delta tables under ``<store>/state/`` (``Store.memory_path``),
appended to by each step with only what the step changed, so a run's bookkeeping writes
O(new data), never the whole store:

- ``file_log``: the ingested-file log, one row per read of an inbox file (never changed later);
- ``file_fingerprints``: per inbox path its size, mtime and sha256 (skips re-hashing unchanged files);
- ``match_catalogue``: the per-match catalogue, a row each time a match's standing changes.

(Their names differ from every table of ``schemas.ALL_TABLES``: a commit row names both kinds.)

A path's or a match's latest row (highest ``commit``) is its current value. The committed
batches, the two counters (``unquarantined``, ``malformed_rows``) and the summary counts
(matches and rows by status, matches pending replay) are the commit log's (``Store.commit``);
saving the state appends the changed rows and then writes the step's commit row, the step's
commit point. Memory tables are read at the versions the last commit names, so rows a crashed
step appended are never read, and ``Store.recover`` rolls them back.

The catalogue is read only when a step first looks at a match (:class:`Catalogue`): a step
with nothing to do (no new file, nothing pending: the commit row's ``pending`` count) and the
run's summary never read it, so a rerun with nothing new reads no catalogue row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, MutableMapping
from dataclasses import dataclass, field, fields
from typing import Any

import polars as pl
import pyarrow as pa

from pipelines.steps.lines import Resume
from pipelines.storage.delta import new_id
from pipelines.storage.store import Store

INCOMPLETE = "incomplete"
"""Status of a match whose match_end has not arrived; a replayed match has its ``matches.status``."""
PENDING = "pending"
"""Summary count of the matches the replay step has work for (ready, late rows, to retract)."""


@dataclass(slots=True)
class MatchInfo:
    """Where one match stands, by the raw rows of it ingested so far."""

    bucket: int
    status: str = INCOMPLETE
    rows: int = 0
    has_end: bool = False
    batches: list[str] = field(default_factory=list)
    """Raw-event batches holding rows of this match."""
    late_batches: list[str] = field(default_factory=list)
    """Raw-event batches with rows that arrived after the match was replayed (not yet handled)."""
    duplicates: int = 0
    """Rows dropped as exact duplicates of another row (same seq and content)."""
    late_rows: int = 0
    """Rows that arrived after the match was replayed and differ from it (quarantined)."""
    revision: int = 1
    """The highest revision of the match ingested (``match_start.revision``): the one replayed."""
    superseded: list[int] = field(default_factory=list)
    """Lower revisions ingested: kept in ``raw_events``, never replayed (docs/event-extensions.md)."""
    retract: bool = False
    """The derived rows of a lower revision, replayed earlier, are still to be removed."""

    def add_rows(self, batch: str, rows: int, has_end: bool, revision: int = 1) -> None:
        """Record ``rows`` new raw rows of ``revision`` of this match in ``batch``.

        A higher revision than any before takes the match over: it is held as incomplete until
        its own ``match_end`` arrives, and a replayed lower revision is to be retracted. Rows of a
        lower revision are only recorded (their batch, so they can be listed as superseded).
        """
        self.rows += rows
        if revision < self.revision:
            if revision not in self.superseded:
                self.superseded = sorted([*self.superseded, revision])
            if batch not in self.batches:
                self.batches.append(batch)
            return
        if revision > self.revision:
            self.superseded = sorted({*self.superseded, self.revision})
            self.retract = self.retract or self.status != INCOMPLETE
            self.status, self.has_end, self.revision = INCOMPLETE, False, revision
            self.batches.extend(b for b in self.late_batches if b not in self.batches)
            self.late_batches = []
        if self.status == INCOMPLETE:
            self.has_end = self.has_end or has_end
            if batch not in self.batches:
                self.batches.append(batch)
        elif batch not in self.late_batches:
            self.late_batches.append(batch)

    @property
    def ready(self) -> bool:
        """Complete (its ``match_end`` arrived) and not replayed yet."""
        return self.status == INCOMPLETE and self.has_end

    @property
    def pending(self) -> bool:
        """Whether the replay step has work for this match: replay it, quarantine late rows, retract."""
        return self.ready or bool(self.late_batches) or self.retract


INFO_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(MatchInfo))
"""The catalogue row's columns after ``match_id``, in :class:`MatchInfo`'s order."""


def info_row(info: MatchInfo) -> tuple[Any, ...]:
    """``info`` as a catalogue row without ``match_id``: a comparable tuple, its lists copied (so a
    later change to the match does not change the row)."""
    return _row(info, INFO_FIELDS)


def _row(item: object, names: Iterable[str]) -> tuple[Any, ...]:
    """The fields ``names`` of ``item`` as a comparable tuple, each list and dict copied
    (``dataclasses.astuple`` deep-copies every field, ≈ 10× slower)."""
    values = (getattr(item, n) for n in names)
    return tuple(list(v) if isinstance(v, list) else dict(v) if isinstance(v, dict) else v for v in values)


class Catalogue(MutableMapping[str, MatchInfo]):
    """The per-match catalogue as a mapping, read from its memory table on first use.

    ``load`` returns the latest row of every match as columns (``match_id`` and
    :data:`INFO_FIELDS`). Until something asks for a match nothing is read, and an unread
    catalogue has nothing to save (:func:`save_state`). Once read, a :class:`MatchInfo` is built
    only for a match asked for or added, and saving compares only those (:meth:`changed`): a step
    that touches the new data's matches pays for those, not for every match of the store.
    :meth:`where` and :meth:`counts` answer for the others from the columns.
    """

    def __init__(self, load: Callable[[], pl.DataFrame]) -> None:
        self._load: Callable[[], pl.DataFrame] | None = load
        self._frame = pl.DataFrame()
        self._index: dict[str, int] = {}
        self._data: dict[str, MatchInfo] = {}
        """Matches built from their row or added: the ones a save compares."""
        self._saved: dict[str, tuple[Any, ...] | None] = {}
        """Per match of ``_data``: its row as read or last saved (None: never saved)."""
        self._added: dict[str, int] = {}
        """Matches not in the table as read, in the order they were added."""

    @property
    def loaded(self) -> bool:
        return self._load is None

    def _read(self) -> None:
        if self._load is not None:
            load, self._load = self._load, None
            self._frame = load()
            if self._frame.height:
                self._index = {m: i for i, m in enumerate(self._frame["match_id"].to_list())}

    def __getitem__(self, key: str) -> MatchInfo:
        info = self._data.get(key)
        if info is not None:
            return info
        self._read()
        info = MatchInfo(*self._frame.row(self._index[key])[1:])
        self._data[key] = info
        self._saved[key] = info_row(info)
        return info

    def __setitem__(self, key: str, value: MatchInfo) -> None:
        if key not in self._data:
            self._read()
            if key in self._index:
                self._saved[key] = info_row(self[key])
            else:
                self._saved[key] = None
                self._added[key] = len(self._added)
        self._data[key] = value

    def __delitem__(self, key: str) -> None:
        raise TypeError("the match catalogue is append-only: a match stays catalogued")

    def __iter__(self) -> Iterator[str]:
        self._read()
        yield from self._index
        yield from self._added

    def __len__(self) -> int:
        self._read()
        return len(self._index) + len(self._added)

    def where(self, condition: Condition) -> dict[str, MatchInfo]:
        """The matches for which ``condition`` holds, in catalogue order: the rows as read are
        picked by its columns' form, every match built or added since is tested itself."""
        self._read()
        picked = self._frame.filter(condition.rows)["match_id"].to_list() if self._frame.height else []
        candidates = sorted({*picked, *self._data}, key=self._position)
        return {m: self[m] for m in candidates if condition.holds(self[m])}

    def _position(self, key: str) -> int:
        at = self._index.get(key)
        return at if at is not None else len(self._index) + self._added[key]

    def batches(self) -> pl.DataFrame:
        """Every match with its raw-event batches (:attr:`MatchInfo.batches`), in catalogue order,
        as columns ``match_id`` and ``batches``: from the table's columns for the matches not built."""
        self._read()
        read = self._frame.select("match_id", "batches") if self._frame.height else None
        built = [m for m in self._index if m in self._data]
        if read is not None and built:
            fresh = _batches_frame([(m, self._data[m].batches) for m in built])
            read = read.update(fresh, on="match_id", how="left")
        added = _batches_frame([(m, self._data[m].batches) for m in self._added])
        return added if read is None else pl.concat([read, added])

    def counts(self) -> dict[str, int]:
        """Matches and rows by status and the :data:`PENDING` matches (see ``catalogue_counts``)."""
        self._read()
        out: dict[str, int] = {PENDING: 0}
        if self._frame.height:
            untouched = self._frame.filter(~pl.col("match_id").is_in(list(self._data)))
            by_status = untouched.group_by("status", maintain_order=True).agg(pl.len(), pl.col("rows").sum())
            for status, n, rows in by_status.rows():
                out[f"matches_{status}"], out[f"rows_{status}"] = n, rows
            out[PENDING] = untouched.filter(PENDING_MATCH.rows).height
        for info in self._data.values():
            _count(out, info)
        return out

    def __repr__(self) -> str:
        return f"Catalogue({dict(self.items())!r})" if self.loaded else "Catalogue(<not read>)"

    def changed(self) -> dict[str, tuple[Any, ...]]:
        """The rows of the matches built or added that differ from their saved row."""
        rows = {m: info_row(info) for m, info in self._data.items()}
        return {m: row for m, row in rows.items() if row != self._saved.get(m)}

    def mark_saved(self, rows: dict[str, tuple[Any, ...]]) -> None:
        """``rows`` (from :meth:`changed`) are now the saved ones."""
        self._saved.update(rows)


@dataclass(frozen=True, slots=True)
class Condition:
    """A condition on a match, stated on its :class:`MatchInfo` and on the catalogue's columns
    alike: :meth:`Catalogue.where` reads the columns for the matches it has not built."""

    rows: pl.Expr
    holds: Callable[[MatchInfo], bool]


HELD = Condition(pl.col("status") == INCOMPLETE, lambda i: i.status == INCOMPLETE)
"""Held as incomplete (not replayed yet)."""
READY = Condition(HELD.rows & pl.col("has_end"), lambda i: i.ready)
""":attr:`MatchInfo.ready`."""
LATE = Condition(pl.col("late_batches").list.len() > 0, lambda i: bool(i.late_batches))
"""Rows arrived after the match was replayed, not handled yet."""
RETRACTING = Condition(pl.col("retract"), lambda i: i.retract)
"""A replayed lower revision's rows are still to be removed."""
CORRECTED = Condition(pl.col("superseded").list.len() > 0, lambda i: bool(i.superseded))
"""Lower revisions were ingested."""
PENDING_MATCH = Condition(READY.rows | LATE.rows | RETRACTING.rows, lambda i: i.pending)
""":attr:`MatchInfo.pending`."""


def select(matches: MutableMapping[str, MatchInfo], condition: Condition) -> dict[str, MatchInfo]:
    """The matches of ``matches`` for which ``condition`` holds, in order (of a
    :class:`Catalogue`, without building the others: :meth:`Catalogue.where`)."""
    if isinstance(matches, Catalogue):
        return matches.where(condition)
    return {m: i for m, i in matches.items() if condition.holds(i)}


def batches_by_match(matches: MutableMapping[str, MatchInfo]) -> pl.DataFrame:
    """Every match of ``matches`` with its batches, columns ``match_id`` and ``batches``, in
    catalogue order (:meth:`Catalogue.batches`: none is built)."""
    if isinstance(matches, Catalogue):
        return matches.batches()
    return _batches_frame([(m, i.batches) for m, i in matches.items()])


def _batches_frame(pairs: list[tuple[str, list[str]]]) -> pl.DataFrame:
    return pl.DataFrame({"match_id": [m for m, _ in pairs], "batches": [b for _, b in pairs]},
                        schema={"match_id": pl.String, "batches": pl.List(pl.String)})


def _count(out: dict[str, int], info: MatchInfo) -> None:
    out[f"matches_{info.status}"] = out.get(f"matches_{info.status}", 0) + 1
    out[f"rows_{info.status}"] = out.get(f"rows_{info.status}", 0) + info.rows
    out[PENDING] += info.pending


@dataclass(slots=True)
class FileRecord:
    """One read of an inbox file (the ingested-file log): its name, batch, rows and how far it got.

    A file that grows between runs is read on from ``offset`` when its first ``offset`` content
    bytes still hash to ``prefix`` (``pipelines.steps.lines``), so each read has its own record.
    """

    name: str
    batch: str
    rows: int
    first_line: int = 1
    """Line number of the first line this read covered."""
    lines: int = 0
    """Whole lines of the file read so far, this read included (the next read starts after them)."""
    offset: int = -1
    """Content bytes read so far (whole lines; for ``.gz`` decompressed); -1: a read that cannot be
    continued (a converted foreign log), so a changed file is read whole again."""
    prefix: str = ""
    """sha256 of those ``offset`` bytes."""
    terminated: bool = True
    """Whether those bytes end with a line break."""
    pending: int = 0
    """Bytes of an unfinished last line (no line break yet) left for the next read."""
    problem: str | None = None
    """What was wrong with the read: ``empty``, ``damaged`` or ``unfinished_line`` (None: nothing)."""
    message: str | None = None
    """The problem as reported: what and where (line, byte position)."""
    revisions: dict[str, int] = field(default_factory=dict)
    """Match id -> the revision other than 1 that the file's ``match_start`` declares (a later read
    of the grown file gives its rows the same revision)."""

    def resume(self) -> Resume | None:
        """Where a read of a grown version of this file continues (None: read it whole)."""
        if self.offset < 0:
            return None
        return Resume(self.offset, self.lines, self.prefix, self.terminated)


RECORD_FIELDS = tuple(f.name for f in fields(FileRecord))
"""The ``file_log`` columns a :class:`FileRecord` holds, in order (``hash`` and ``commit`` apart)."""


@dataclass(slots=True)
class StoreState:
    """Everything the pipeline must remember between runs (see module docstring)."""

    committed: list[str] = field(default_factory=list)
    files: dict[str, FileRecord] = field(default_factory=dict)
    """Content hash (sha256) -> the read of the file first seen with that content (insertion order
    is read order, so the last record of a name is its latest read)."""
    fingerprints: dict[str, list[Any]] = field(default_factory=dict)
    """Inbox path -> [size, mtime_ns, sha256]: skips re-hashing unchanged files on a rerun."""
    matches: MutableMapping[str, MatchInfo] = field(default_factory=dict)
    unquarantined: list[str] = field(default_factory=list)
    """Raw-event batches whose malformed lines are not in ``quarantine`` yet."""
    malformed_rows: int = 0
    saved: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """What the memory tables hold (as loaded or last saved): :func:`save_state` appends only changes."""

    @property
    def committed_set(self) -> set[str]:
        return set(self.committed)

    def counts(self) -> dict[str, int]:
        """Matches by status, and raw rows by the status of their match (``malformed`` apart)."""
        out = self.catalogue_counts()
        out.pop(PENDING)
        out["rows_malformed"] = self.malformed_rows
        return out

    def catalogue_counts(self) -> dict[str, int]:
        """Matches and rows by status and the :data:`PENDING` matches: the commit row's ``counts``."""
        if isinstance(self.matches, Catalogue):
            return self.matches.counts()
        out: dict[str, int] = {PENDING: 0}
        for info in self.matches.values():
            _count(out, info)
        return out


FILES = pa.schema(
    [
        ("commit", pa.int64()),
        ("hash", pa.string()),
        ("name", pa.string()),
        ("batch", pa.string()),
        ("rows", pa.int64()),
        ("first_line", pa.int64()),
        ("lines", pa.int64()),
        ("offset", pa.int64()),
        ("prefix", pa.string()),
        ("terminated", pa.bool_()),
        ("pending", pa.int64()),
        ("problem", pa.string()),
        ("message", pa.string()),
        ("revisions", pa.list_(pa.struct([("match_id", pa.string()), ("revision", pa.int64())]))),
    ]
)
FINGERPRINTS = pa.schema(
    [("commit", pa.int64()), ("path", pa.string()), ("size", pa.int64()), ("mtime_ns", pa.int64()),
     ("sha256", pa.string())]
)
MATCHES = pa.schema(
    [
        ("commit", pa.int64()),
        ("match_id", pa.string()),
        ("bucket", pa.int64()),
        ("status", pa.string()),
        ("rows", pa.int64()),
        ("has_end", pa.bool_()),
        ("batches", pa.list_(pa.string())),
        ("late_batches", pa.list_(pa.string())),
        ("duplicates", pa.int64()),
        ("late_rows", pa.int64()),
        ("revision", pa.int64()),
        ("superseded", pa.list_(pa.int64())),
        ("retract", pa.bool_()),
    ]
)
MEMORY = {"file_log": FILES, "file_fingerprints": FINGERPRINTS, "match_catalogue": MATCHES}
"""The memory tables under ``<store>/state/`` and their schemas."""


def _latest(table: pa.Table, key: str) -> list[dict[str, Any]]:
    """Rows of ``table``, the latest (highest ``commit``) per ``key``, in first-seen order."""
    return _latest_frame(table, key).to_dicts()


def _latest_frame(table: pa.Table, key: str) -> pl.DataFrame:
    """:func:`_latest` as columns (without ``commit``)."""
    if table.num_rows == 0:
        return pl.DataFrame()
    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)
    picked = (
        frame.select(key, "commit")
        .with_row_index("_i")
        .sort("commit", maintain_order=True)
        .group_by(key)
        .agg(pl.col("_i").last(), pl.col("_i").min().alias("_first"))
        .sort("_first")
    )
    return frame.drop("commit")[picked["_i"]]


def load_state(store: Store) -> StoreState:
    """The state as of the store's commit (see ``Store.reading``); empty for a new store."""
    commit = store.reading()
    files = {
        r.pop("hash"): FileRecord(**{**r, "revisions": _revisions(r["revisions"])})
        for r in _latest(store.read_memory("file_log", FILES), "hash")
    }
    fingerprints = {
        r["path"]: [r["size"], r["mtime_ns"], r["sha256"]]
        for r in _latest(store.read_memory("file_fingerprints", FINGERPRINTS), "path")
    }
    state = StoreState(
        committed=_committed_until(store, commit.seq),
        files=files,
        fingerprints=fingerprints,
        unquarantined=list(commit.unquarantined),
        malformed_rows=commit.malformed_rows,
    )

    def catalogue() -> pl.DataFrame:
        latest = _latest_frame(store.read_memory("match_catalogue", MATCHES), "match_id")
        return latest.select("match_id", *INFO_FIELDS) if latest.height else latest

    state.matches = Catalogue(catalogue)
    state.saved = _image(state)
    return state


def pending(store: Store) -> bool:
    """Whether the replay step has work, by the commit row alone when it records its counts:
    matches pending (:data:`PENDING`) or raw batches whose malformed lines are not quarantined."""
    commit = store.reading()
    if commit.unquarantined:
        return True
    if commit.counts is not None:
        return commit.counts.get(PENDING, 0) > 0
    return any(i.pending for i in load_state(store).matches.values())


def summary_counts(store: Store) -> dict[str, int]:
    """:meth:`StoreState.counts` as of the store's commit, from its row when it records them."""
    commit = store.reading()
    if commit.counts is None:
        return load_state(store).counts()
    out = {k: v for k, v in commit.counts.items() if k != PENDING}
    out["rows_malformed"] = commit.malformed_rows
    return out


def save_state(store: Store, state: StoreState, batch: str | None = None,
               versions: dict[str, int] | None = None) -> None:
    """Append what changed since the state was loaded, then commit the step (``Store.commit``).

    ``batch`` is the step's append batch (None: it only changed the memory) and ``versions``
    the versions its tables were appended at. A crash before the commit row leaves the last
    commit as it was: the next step's ``Store.recover`` rolls the appended rows back.
    """
    with store.writer_lock():
        commit = store.next_seq()
        image = _image(state)
        catalogue = _catalogue_changes(state, image)
        changes = _changes(state.saved, image)
        changes["match_catalogue"] = [{"match_id": m, **dict(zip(INFO_FIELDS, row, strict=True))}
                                      for m, row in catalogue.items()]
        token = new_id()
        written = dict(versions or {})
        for name, rows in changes.items():
            if rows:
                table = pa.Table.from_pylist([{**r, "commit": commit} for r in rows], schema=MEMORY[name])
                written[name] = store.append(store.memory_path(name), table, f"{name}-{token}")
        if batch is not None:
            state.committed.append(batch)
        counts = _catalogue_counts(state)
        store.commit(batch, written, unquarantined=state.unquarantined, malformed_rows=state.malformed_rows,
                     counts=counts)
        state.saved = image
        if isinstance(state.matches, Catalogue):
            state.matches.mark_saved(catalogue)


def _catalogue_counts(state: StoreState) -> dict[str, int] | None:
    """The commit row's counts; None (unchanged) when the step never read the catalogue."""
    if isinstance(state.matches, Catalogue) and not state.matches.loaded:
        return None
    return state.catalogue_counts()


def _image(state: StoreState) -> dict[str, Any]:
    """The file memory tables' current rows by key as comparable tuples, and the catalogue's when
    it is a plain mapping (a :class:`Catalogue` tracks its own changes)."""
    image: dict[str, Any] = {
        "file_log": {h: _row(r, RECORD_FIELDS) for h, r in state.files.items()},
        "file_fingerprints": {p: tuple(v) for p, v in state.fingerprints.items()},
    }
    if not isinstance(state.matches, Catalogue):
        image["match_catalogue"] = {m: info_row(i) for m, i in state.matches.items()}
    return image


def _catalogue_changes(state: StoreState, image: dict[str, Any]) -> dict[str, tuple[Any, ...]]:
    """The catalogue rows to append: matches new or changed since the state was loaded or saved
    (of a plain mapping: by its rows in ``image``, as :func:`_image` took them)."""
    if isinstance(state.matches, Catalogue):
        return state.matches.changed()
    saved = state.saved.get("match_catalogue", {})
    return {m: row for m, row in image["match_catalogue"].items() if saved.get(m) != row}


def _changes(before: dict[str, Any], after: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The file memory tables' rows to append: keys new in ``after`` or with another value."""
    old = {name: before.get(name, {}) for name in ("file_log", "file_fingerprints")}
    return {
        "file_log": [
            _file_row(h, dict(zip(RECORD_FIELDS, v, strict=True)))
            for h, v in after["file_log"].items() if old["file_log"].get(h) != v
        ],
        "file_fingerprints": [
            {"path": p, "size": v[0], "mtime_ns": v[1], "sha256": v[2]}
            for p, v in after["file_fingerprints"].items() if old["file_fingerprints"].get(p) != v
        ],
    }


def _revisions(pairs: list[dict[str, Any]] | None) -> dict[str, int]:
    """A ``file_log`` row's ``revisions`` list of pairs as the mapping ``FileRecord`` holds."""
    return {p["match_id"]: p["revision"] for p in pairs or ()}


def _file_row(digest: str, record: dict[str, Any]) -> dict[str, Any]:
    """A ``file_log`` row of one read (its ``revisions`` mapping as a list of pairs)."""
    pairs = [{"match_id": m, "revision": r} for m, r in sorted(record["revisions"].items())]
    return {"hash": digest, **record, "revisions": pairs}


def _committed_until(store: Store, seq: int) -> list[str]:
    """The batches committed up to step commit ``seq`` (from the commit log's statistics)."""
    return list(store.committed_batches(until=seq))

