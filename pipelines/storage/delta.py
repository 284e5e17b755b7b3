"""Delta Lake tables on local disk, as the store uses them: opening a table at its latest or at a
version (kept open per process), appends made once per transaction id, row counts and file lists
from the Delta log, and the store's errors. Knows paths and versions, not the store's layout."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING

import orjson
import pyarrow as pa
import pyarrow.parquet as pq
from deltalake import CommitProperties, DeltaTable, Transaction, write_deltalake
from deltalake.exceptions import TableNotFoundError

from schemas.catalog import ALL_TABLES

if TYPE_CHECKING:
    import pyarrow.dataset as ds

DELTA_LOG = "_delta_log"
BATCH = "batch"
"""The partition column carrying the batch id, in tables read by batch (:data:`BATCHED`)."""
BATCHED = frozenset({"raw_events"})
"""Append tables read batch by batch (the replay gathers a match's rows from the batches holding it)."""
APP = "gdan-batch-"
"""Prefix of the Delta app transaction id of an append batch (the batch id follows)."""
BATCH_KEY = "gdan.batch"
"""Commit metadata of an append: its batch (or memory transaction) id."""
INPUTS = "gdan.inputs"
"""Table property of a derived table: the commit (seq) its writer read."""

READS: dict[str, int] = {}
"""Rows read from Parquet in this process, per commit-log or memory table name: how tests and
benchmarks check that bookkeeping reads grow with new data, not with the store."""


def new_id() -> str:
    """A fresh id for a batch."""
    return uuid.uuid4().hex[:16]


def of_matches(match_ids: Collection[str]) -> ds.Expression:
    """A filter for the rows of ``match_ids``: their ``isin`` and their range of ids.

    The range lets a Parquet read skip each row group whose ``match_id`` statistics fall outside
    it; ``isin`` of more than about 60 ids (a replay slice holds about 115 matches) decodes every
    row group (pyarrow 26; at 1M deals each slice of the replay read its whole bucket,
    15 times over). Ids that arrive in order (a league's, a simulation's)
    have narrow row groups; others are read as before.
    """
    import pyarrow.compute as pc

    ids = sorted(match_ids)
    if not ids:
        raise ValueError("of_matches needs at least one match id")
    field = pc.field("match_id")
    return (field >= ids[0]) & (field <= ids[-1]) & field.isin(pa.array(ids, pa.string()))


def scan(dataset: ds.Dataset, columns: list[str] | None, where: ds.Expression | None) -> pa.Table:
    """The rows of ``dataset`` that ``where`` keeps.

    A file rewritten by a Delta ``DELETE`` (``Store.delete_rows``) stores its strings as
    ``string_view``, which pyarrow's comparison and ``is_in`` kernels do not take (pyarrow 26):
    a filter pushed down to such a file fails. Then each batch is read in the dataset's plain
    types and filtered in memory, which decodes every row group but keeps only the rows wanted.
    """
    try:
        return dataset.to_table(columns=columns, filter=where)
    except pa.ArrowNotImplementedError:
        if where is None:
            raise
        kept = pa.Table.from_batches((b.filter(where) for b in dataset.to_batches()), schema=dataset.schema)
        return kept.select(columns) if columns else kept


class StorePathError(ValueError):
    """A store path delta-rs cannot open: it panics on ``[`` or ``]`` anywhere in a table's path
    (it builds an object-store URL whose host holds the path), plain, percent-encoded or through
    a symlink (it resolves links)."""


class StoreLayoutError(StorePathError):
    """A store written by a version before the Delta Lake layout (its memory in
    ``state/state.json``): its tables cannot be read or extended, only rebuilt from its events."""


class UnknownTableError(KeyError):
    """A table name that ``schemas.ALL_TABLES`` does not define."""


def schema_of(name: str) -> pa.Schema:
    try:
        return ALL_TABLES[name]
    except KeyError:
        raise UnknownTableError(f"unknown table {name!r}; known: {', '.join(sorted(ALL_TABLES))}") from None


_logs: dict[Path, tuple[DeltaTable, tuple[int, int]]] = {}
"""Each table read at its latest version, kept open and brought up to date incrementally."""
_versions: dict[tuple[Path, int, tuple[int, int]], DeltaTable] = {}
"""Tables opened at a version (:func:`at_version`), at most :data:`_VERSIONS_KEPT` of them."""
_VERSIONS_KEPT = 1024
_cache_lock = threading.Lock()


def log_identity(path: Path, version: int) -> tuple[int, int]:
    """Which file is the Delta log entry of ``version`` at ``path`` (inode, mtime; -1s: none):
    a table created anew at the same path has other entries, so nothing cached for it is reused."""
    try:
        entry = (path / DELTA_LOG / f"{version:020d}.json").stat()
    except FileNotFoundError:
        return (-1, -1)
    return (entry.st_ino, entry.st_mtime_ns)


def latest_table(path: Path) -> DeltaTable | None:
    """The Delta table at ``path`` at its latest version, for reading only (None: no table).

    Kept open per path and updated with the log entries added since (``update_incremental``),
    so the many "which version" questions of a step do not re-read a table's whole Delta log; a
    table created anew at the same path (its first log entry another file) is opened afresh.
    Every version has its own log entry, so while the next one's does not exist the table is up
    to date and is not asked (``update_incremental`` lists the log: ≈ 1.3 ms, 237 times in a
    rerun). Writers and maintenance open their own (:func:`open_table`).
    """
    identity = log_identity(path, 0)
    with _cache_lock:
        cached = _logs.get(path)
        if cached is not None and cached[1] == identity and identity[0] >= 0:
            kept = cached[0]
            if (path / DELTA_LOG / f"{kept.version() + 1:020d}.json").exists():
                kept.update_incremental()
            return kept
        table = open_table(path)
        if table is None:
            _logs.pop(path, None)
        else:
            _logs[path] = (table, identity)
        return table


def open_table(path: Path) -> DeltaTable | None:
    """The Delta table at ``path`` (latest version), None when there is none."""
    try:
        return DeltaTable(table_uri(path))
    except TableNotFoundError:
        return None


def at_version(path: Path, version: int) -> DeltaTable:
    """The Delta table at ``path`` as of ``version``, for reading only.

    A version never changes once written, so each is opened once per process (its log entry's
    identity guards against a table created anew at the same path; :func:`log_identity`).
    """
    key = (path, version, log_identity(path, version))
    with _cache_lock:
        table = _versions.get(key)
    if table is None:
        table = DeltaTable(table_uri(path), version=version)
        with _cache_lock:
            if len(_versions) >= _VERSIONS_KEPT:
                _versions.clear()
            _versions[key] = table
    return table


def forget_under(folder: Path) -> None:
    """Drop the tables kept open under ``folder``: its files were replaced behind delta-rs's back (a
    store's local copy brought in line with object storage), so a kept table may name versions or
    files that are gone."""
    with _cache_lock:
        for path in [p for p in _logs if p.is_relative_to(folder)]:
            del _logs[path]
        for key in [k for k in _versions if k[0].is_relative_to(folder)]:
            del _versions[key]


def files_at(path: Path, version: int) -> list[str]:
    """The data file URIs of the Delta table at ``path`` as of ``version``: from the table kept
    open at its latest (:func:`latest_table`) when that is the version asked, as it mostly is (opening
    one at a version costs ≈ 6 ms: the warehouse's check of a rerun asked for 37), else
    :func:`at_version`'s. Read under the cache's lock, so no update moves the table meanwhile; not
    from a table since created anew at the same path (:func:`log_identity`)."""
    identity = log_identity(path, 0)
    with _cache_lock:
        cached = _logs.get(path)
        same = cached is not None and cached[1] == identity and identity[0] >= 0
        if cached is not None and same and cached[0].version() == version:
            return list(cached[0].file_uris())
    return list(at_version(path, version).file_uris())


def table_uri(path: Path) -> str:
    """The ``file://`` URL delta-rs is given for the table folder ``path`` (:class:`StorePathError`
    for a path it cannot open; the inbox of such a store still takes files)."""
    if {"[", "]"} & set(str(path)):
        raise StorePathError(
            f"store path {path.parent}: a path with '[' or ']' cannot hold Delta tables "
            "(delta-rs refuses it); rename the folder or choose another --store"
        )
    return path.as_uri()


def local_path(uri: str) -> str:
    """A local path from a Delta file URI (delta-rs gives ``file://`` URIs or plain paths)."""
    return unquote_path(uri.removeprefix("file://"))


def unquote_path(path: str) -> str:
    from urllib.parse import unquote

    return unquote(path)


def add_actions(table: DeltaTable) -> pa.Table:
    """The table's add actions (one row per data file, statistics flattened) as an Arrow table,
    taken over the Arrow stream interface: ``pa.table()`` first asks whether its argument is a
    pandas frame, importing pandas (≈ 0.3 s) into a rerun that otherwise never needs it."""
    return pa.RecordBatchReader.from_stream(table.get_add_actions(flatten=True)).read_all()


def rows_logged(table: DeltaTable) -> int:
    """Rows of ``table`` at its version, from its add actions' ``numRecords`` (every file the store
    writes has them; a file without is read)."""
    actions = add_actions(table).select(["path", "num_records"]).to_pylist()
    base = Path(local_path(table.table_uri))
    return sum(pq.ParquetFile(base / unquote_path(a["path"])).metadata.num_rows if a["num_records"] is None
               else a["num_records"] for a in actions)


def empty_table(schema: pa.Schema) -> pa.Table:
    """A table of ``schema`` without rows (``Schema.empty_table`` imports pandas: :func:`add_actions`)."""
    return pa.Table.from_batches([], schema=schema)


def logged_files(table_dir: Path) -> set[str]:
    """Every data file (relative path) that a commit of the Delta table at ``table_dir`` added.

    The commit files hold every add; the current version's files are added too, should old
    commit files have been cleaned up after a checkpoint.
    """
    out = set()
    for entry in sorted((table_dir / DELTA_LOG).glob("*.json")):
        for line in entry.read_bytes().splitlines():
            action = orjson.loads(line)
            if "add" in action:
                out.add(unquote_path(action["add"]["path"]))
    table = latest_table(table_dir)
    if table is not None:
        out |= {Path(local_path(u)).relative_to(table_dir).as_posix() for u in table.file_uris()}
    return out


def commit_once(path: Path, app: str, commit: Callable[[DeltaTable | None], object]) -> int:
    """Make the Delta commit ``commit`` (given the table's latest version, None: no table yet),
    which carries app transaction ``app``, unless the table at ``path`` already holds it; returns
    the table's version. A commit that raised but did land (a lost answer) counts as done."""
    current = latest_table(path)
    if current is not None and current.transaction_version(app) is not None:
        return current.version()
    try:
        commit(current)
    except Exception:
        landed = latest_table(path)
        if landed is None or landed.transaction_version(app) is None:
            raise
    written = latest_table(path)
    assert written is not None
    return written.version()


def append_once(
    path: Path,
    table: pa.Table | pa.RecordBatchReader,
    txn: str,
    partition_by: list[str] | None = None,
    *,
    step: bool = True,
) -> int:
    """Append ``table`` to the Delta table at ``path`` once per ``txn``; returns its version.

    ``txn`` is recorded as the commit's Delta app transaction: an append already recorded is
    not repeated, and a failed write whose commit did land (a lost answer) counts as done.
    Used for the memory tables (``pipelines.steps.state``) as for the batches. ``step``: the append
    is part of a step, whose commit row will name the version (False: memory outside step
    commits, the check memos, which :meth:`recover` leaves alone).
    """
    app = f"{APP}{txn}"
    return commit_once(path, app, lambda _: write_deltalake(
        table_uri(path), table, mode="append", partition_by=partition_by,
        commit_properties=CommitProperties(app_transactions=[Transaction(app_id=app, version=1)],
                                           custom_metadata={BATCH_KEY: txn} if step else None),
    ))


def is_uncommitted_append(table: DeltaTable) -> bool:
    """Whether ``table``, which no step commit names, was appended to by a step (which then
    crashed before its commit row): its latest commit carries a batch id."""
    history = table.history(1)
    return bool(history) and history[0].get(BATCH_KEY) is not None
