"""The store on disk: Delta Lake tables under ``<root>/tables/``, one commit log naming their versions.

Layout (see README "Store layout"); this module is the only one that spells it::

    <root>/inbox/                  files waiting to be ingested (kept after ingest)
    <root>/tables/<name>/          one Delta table per table of ``schemas.ALL_TABLES`` (_delta_log/, Parquet)
    <root>/tables/raw_events/batch=<id>/bucket=<n>/   raw events, partitioned by batch and hash bucket
    <root>/staging/<id>/<name>/    an append batch being written (invisible to readers)
    <root>/state/commits/          the commit log (a Delta table): one row per committed step or run
    <root>/state/<memory>/         the pipeline's memory (``pipelines.steps.state``, ``pipelines.run.checks``)
    <root>/state/.lock             the writer lock
    <root>/state/warehouse.json    what the last warehouse build ran, and the catalog it produced
    <root>/.warehouse-<pid>.duckdb the warehouse file being rebuilt (removed by :meth:`Store.recover`)
    <root>/annotations/            coaches' notes and tags on deals (``pipelines.reads.annotations``)

Why this shape: every table is a Delta table (delta-rs, ``deltalake``): appends and full replaces
are atomic per table, the schema is enforced by the table, old versions stay readable (time
travel), and any Delta reader (DuckDB over Arrow, Polars, Spark) can open it. A step appends its
batch to several tables, one Delta commit each, so the step's commit point is one row of the
commit log naming the version of every append table and memory table (:meth:`Store.commit`).
Nothing reads past the versions the last commit names: a version appended by a step that crashed
before its commit row is rolled back by :meth:`Store.recover` (``DeltaTable.restore``), and a
batch retried after a failed commit is not appended twice (its id is a Delta app transaction).
Readers (``pipelines.storage.warehouse.connect``) read the versions of the last *run* record, which the
pipeline writes at the end of each whole run (:meth:`Store.publish`), so a join never sees half a
batch; an older run stays readable (``gdan sql --as-of``) until ``gdan maintain`` vacuums it.
"""

from __future__ import annotations

import fcntl
import hashlib
import io
import os
import shutil
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import orjson
import pyarrow as pa
import pyarrow.parquet as pq
from deltalake import CommitProperties, DeltaTable, Schema, Transaction, write_deltalake
from deltalake.exceptions import TableNotFoundError
from deltalake.transaction import AddAction, create_table_with_add_actions

from schemas.catalog import ALL_TABLES

if TYPE_CHECKING:
    import pyarrow.dataset as ds
    from typing_extensions import Buffer

DELTA_LOG = "_delta_log"
BATCH = "batch"
"""The partition column carrying the batch id, in tables read by batch (:data:`BATCHED`)."""
BATCHED = frozenset({"raw_events"})
"""Append tables read batch by batch (the replay gathers a match's rows from the batches holding it)."""
COMMITS = "commits"
APP = "gdan-batch-"
"""Prefix of the Delta app transaction id of an append batch (the batch id follows)."""
FINGERPRINT = "gdan.fingerprint"
"""Table property of a full-replace table: the content hash of its last write."""
INPUTS = "gdan.inputs"
"""Table property of a derived table: the commit (seq) its writer read."""
WAREHOUSE_TMP = ".warehouse-"
BATCH_KEY = "gdan.batch"
"""Commit metadata of an append: its batch (or memory transaction) id."""
STEP, RUN = "step", "run"
OLD_LAYOUT_MEMORY = "state.json"
"""The memory file of the layout before Delta Lake (found in ``state/``: :class:`StoreLayoutError`)."""

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

APPEND_ROWS = 65_536
"""Rows per record batch when a staged batch is streamed into its Delta table."""

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
    row group (pyarrow 26; issue 17: at 1M deals each slice of the replay read its whole bucket,
    15 times over). Ids that arrive in order (a league's, a simulation's)
    have narrow row groups; others are read as before.
    """
    import pyarrow.compute as pc

    ids = sorted(match_ids)
    if not ids:
        raise ValueError("of_matches needs at least one match id")
    field = pc.field("match_id")
    return (field >= ids[0]) & (field <= ids[-1]) & field.isin(pa.array(ids, pa.string()))


def _scan(dataset: ds.Dataset, columns: list[str] | None, where: ds.Expression | None) -> pa.Table:
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


class Store:
    """A store folder: inbox, Delta tables, the pipeline's memory and the commit log.

    Only one writer runs at a time (:meth:`writer_lock`); any number of readers may read
    while it writes. A store made by :meth:`pinned` reads append tables as of the commit
    that was the last when it was made, and records it as the input of every table it writes.
    """

    def __init__(self, root: str | Path, *, pin: Commit | None = None) -> None:
        self.root = Path(root).absolute()
        self.pin = pin

    def __repr__(self) -> str:
        return f"Store({str(self.root)!r})"

    def pinned(self) -> Store:
        """This store, reading as of the step committed last (see :meth:`inputs`)."""
        return Store(self.root, pin=self.last_commit() or _NO_COMMIT)

    # -- paths ---------------------------------------------------------------------------
    @property
    def inbox(self) -> Path:
        """Where ``gdan ingest`` copies files and the ingest asset looks for new ones."""
        return self.root / "inbox"

    @property
    def annotations_dir(self) -> Path:
        """Coaches' notes and tags on deals (``pipelines.reads.annotations``): JSON Lines beside the logs,
        never part of them."""
        return self.root / "annotations"

    @property
    def tables_dir(self) -> Path:
        return self.root / "tables"

    @property
    def state_dir(self) -> Path:
        return self.root / "state"

    @property
    def staging_dir(self) -> Path:
        return self.root / "staging"

    @property
    def warehouse_file(self) -> Path:
        """The DuckDB file of views for ``dagster``/SQL users (written only by the warehouse asset)."""
        return self.root / "warehouse.duckdb"

    @property
    def warehouse_record(self) -> Path:
        """What the last warehouse build ran and the catalog it produced (``pipelines.storage.warehouse``)."""
        return self.state_dir / "warehouse.json"

    def warehouse_tmp(self) -> Path:
        """Where this process builds the next warehouse file before renaming it into place."""
        return self.root / f"{WAREHOUSE_TMP}{os.getpid()}.duckdb"

    def table_path(self, name: str) -> Path:
        """The Delta table folder of table ``name``."""
        _schema(name)
        return self.tables_dir / name

    def check_table_path(self) -> None:
        """Raise :class:`StorePathError` when delta-rs could not open tables under this store, and
        :class:`StoreLayoutError` when the store has the layout before Delta Lake."""
        _uri(self.tables_dir)
        if (self.state_dir / OLD_LAYOUT_MEMORY).exists():
            raise StoreLayoutError(
                f"store {self.root} was written before the Delta Lake layout ({self.state_dir.name}/"
                f"{OLD_LAYOUT_MEMORY}): rebuild it from its events, e.g. gdan run --create --store NEW "
                f"after copying {self.inbox} to NEW/inbox"
            )

    def memory_path(self, name: str) -> Path:
        """The Delta table folder of the pipeline's memory table ``name`` (``pipelines.steps.state``)."""
        return self.state_dir / name

    # -- the commit log ------------------------------------------------------------------
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

    def reading(self) -> Commit:
        """The step commit this store reads: its pin, else the last one."""
        if self.pin is not None:
            return self.pin
        return self.last_commit() or _NO_COMMIT

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
        with self.writer_lock():
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

    # -- versions and snapshots ----------------------------------------------------------
    def version(self, name: str) -> int | None:
        """The version of table ``name`` this store reads (None: no table yet).

        An append table is read at the version the store's commit names; a full-replace table
        (not named by step commits) at its latest version.
        """
        named = self.reading().versions.get(name)
        if named is not None:
            return named
        table = _latest(self.table_path(name))
        return None if table is None or self._is_uncommitted_append(table) else table.version()

    def snapshot(self, seq: int | None = None) -> Snapshot:
        """Every table's version as of the step commit ``seq`` (default: the one this store reads).

        Append tables at that commit's versions, full-replace tables at their latest version.
        """
        commit = self.reading() if seq is None else self._step(seq)
        reader = Store(self.root, pin=commit)
        versions = {name: v for name in ALL_TABLES if (v := reader.version(name)) is not None}
        return Snapshot(seq=commit.seq, versions=versions)

    def has_data(self, name: str) -> bool:
        """Whether table ``name`` has at least one row file at the version this store reads."""
        version = self.version(name)
        return bool(self.data_files(name, version)) if version is not None else False

    def inputs(self) -> dict[str, int]:
        """Per table written by a pinned store: the step commit (seq) its writer read."""
        return {name: seq for name in ALL_TABLES if (seq := self.input_of(name)) is not None}

    def input_of(self, name: str) -> int | None:
        """The step commit (seq) table ``name`` was last computed from (:meth:`inputs`), if recorded."""
        table = _latest(self.table_path(name))
        value = table.metadata().configuration.get(INPUTS) if table is not None else None
        return None if value is None else int(value)

    def row_count(self, name: str) -> int:
        """Rows of table ``name`` at its latest version, from the Delta log (no data file read)."""
        table = _latest(self.table_path(name))
        return 0 if table is None else _rows_logged(table)

    def committed_rows(self, name: str) -> int:
        """Rows of table ``name`` at the version this store reads (:meth:`version`), from the Delta
        log's file statistics, so counting reads no data file (``gdan run``'s quarantine count)."""
        version = self.version(name)
        return 0 if version is None else _rows_logged(_at(self.table_path(name), version))

    # -- reading -------------------------------------------------------------------------
    def dataset(self, name: str, version: int | None = None) -> ds.Dataset | None:
        """The Arrow dataset of table ``name`` at ``version`` (default :meth:`version`); None: no table.

        Over exactly the version's Parquet files, read by pyarrow's own file system with the
        partition columns from the paths (not delta-rs's ``to_pyarrow_dataset``, whose file
        system handler could abort the process at exit).
        """
        import pyarrow.dataset as ds  # a rerun with nothing new reads no table (it imports pandas)

        version = self.version(name) if version is None else version
        if version is None:
            return None
        path = self.table_path(name)
        table = _at(path, version)
        schema = _schema(name)
        keys = list(table.metadata().partition_columns)
        fields = [
            schema.field(k) if k in schema.names else pa.field(k, pa.string() if k == BATCH else pa.int32())
            for k in keys
        ]
        full = pa.schema([*schema, *(f for f in fields if f.name not in schema.names)])
        files = [_local(u) for u in table.file_uris()]
        partitioning = ds.partitioning(pa.schema(fields), flavor="hive") if keys else None
        return ds.dataset(files, schema=full, format="parquet", partitioning=partitioning,
                          partition_base_dir=str(path))

    def data_files(self, name: str, version: int | None = None) -> list[str]:
        """The absolute paths of the Parquet files of table ``name`` at ``version`` (:meth:`version`)."""
        version = self.version(name) if version is None else version
        if version is None:
            return []
        return [_local(u) for u in _files_at(self.table_path(name), version)]

    def read_table(
        self,
        name: str,
        columns: list[str] | None = None,
        where: ds.Expression | None = None,
    ) -> pa.Table:
        """All rows of table ``name`` at the version this store reads, typed by its schema.

        Partition columns that are not schema columns (``batch``, ``bucket``) are dropped.
        A table with no rows yet is a typed empty table. A whole read (no ``where``) is kept for
        the next one of the same columns at the same version (:func:`_kept_read`).
        """
        schema = _schema(name)
        wanted = columns or schema.names
        out_schema = pa.schema([schema.field(c) for c in wanted])
        version = self.version(name)
        if version is None:
            return out_schema.empty_table()
        path = self.table_path(name)
        key = (path, version, _identity(path, version), tuple(wanted))
        kept = _kept_read(key) if where is None else None
        if kept is not None:
            return kept
        dataset = self.dataset(name, version)
        assert dataset is not None
        table = _scan(dataset, wanted, where).cast(out_schema)
        if where is None:
            _keep_read(key, table)
        return table

    def batch_files(
        self, name: str, batches: Sequence[str], partition: Mapping[str, object] | None = None
    ) -> list[Path]:
        """The Parquet files of the given committed batches of table ``name`` (one of :data:`BATCHED`).

        ``partition`` (e.g. ``{"bucket": 3}``) keeps the files of that partition; a list value
        (``{"bucket": [3, 5]}``) the files of any of those.
        """
        version = self.version(name)
        if version is None or not batches:
            return []
        filters: list[tuple[str, str, Any]] = [
            (k, "in", [str(x) for x in v]) if isinstance(v, list) else (k, "=", str(v))
            for k, v in (partition or {}).items()
        ]
        filters.append((BATCH, "in", list(batches)))
        uris = _at(self.table_path(name), version).file_uris(file_pruning_predicate=filters)
        return [Path(_local(u)) for u in uris]

    def read_files(
        self,
        name: str,
        files: list[Path],
        columns: list[str] | None = None,
        where: ds.Expression | None = None,
    ) -> pa.Table:
        """Rows of the given Parquet files of table ``name``, typed by its schema (no partition columns)."""
        import pyarrow.dataset as ds

        if not files:
            raise ValueError("read_files needs at least one file")
        dataset = ds.dataset([str(f) for f in files], schema=_schema(name), format="parquet")
        return _scan(dataset, columns, where)

    # -- full replace --------------------------------------------------------------------
    def write_table(self, name: str, table: pa.Table, partition_by: list[str] | None = None) -> None:
        """Replace table ``name`` by ``table`` (one Delta overwrite commit).

        ``table`` is cast to the table's schema first, so a wrong column fails here, before
        anything on disk changes. ``partition_by`` columns become partitions. Writing the
        same content again (same rows in the same order) changes nothing on disk, so assets
        that recompute a table on every run keep a rerun with no new input a no-op. A pinned
        store records its pin as the table's input (:meth:`inputs`). Holds the writer lock.
        """
        schema = _schema(name)
        data = table.select(schema.names).cast(schema)
        properties = {FINGERPRINT: _fingerprint(data, partition_by)}
        if self.pin is not None:
            properties[INPUTS] = str(self.pin.seq)
        path = self.table_path(name)
        with self.writer_lock():
            current = _latest(path)
            config = current.metadata().configuration if current is not None else {}
            if all(config.get(k) == v for k, v in properties.items()):
                return
            writer = _open(path) if current is not None else None
            if writer is None or config.get(FINGERPRINT) != properties[FINGERPRINT]:
                write_deltalake(
                    writer if writer is not None else _uri(path), data, mode="overwrite",
                    partition_by=partition_by, schema_mode="overwrite" if writer is not None else None,
                )
            # One handle for the overwrite and the properties (each opening costs ≈ 10 ms here).
            handle = writer or DeltaTable(_uri(path))
            handle.alter.set_table_properties(properties, raise_if_not_exists=False)

    # -- removing rows (corrections) -------------------------------------------------------
    def delete_rows(self, name: str, column: str, values: Sequence[str]) -> int:
        """Remove the committed rows of table ``name`` whose ``column`` is one of ``values``.

        Returns how many. One Delta ``DELETE`` commit (a new version; readers of the published
        run keep the old one): only the files holding such rows are rewritten, the others stay
        as they are, so the cost follows the files touched, not the table. Nothing changes when
        no row matches. The new version is named by the step's commit (:meth:`unnamed_versions`);
        a crash before it is rolled back by :meth:`recover`. Holds the writer lock.
        """
        _schema(name)
        if not values:
            return 0
        listed = ", ".join("'" + v.replace("'", "''") + "'" for v in values)
        with self.writer_lock():
            table = _open(self.table_path(name))
            if table is None:
                return 0
            metrics = table.delete(f'"{column}" IN ({listed})')
            return int(metrics.get("num_deleted_rows", 0))

    def replace_rows(self, name: str, column: str, values: Sequence[str], rows: pa.Table) -> int:
        """Replace the rows of full-replace table ``name`` whose ``column`` is one of ``values``
        by ``rows``; returns the table's version after.

        A Delta ``DELETE`` (:meth:`delete_rows`: only the files holding such rows are rewritten)
        and an append of ``rows``, so the cost follows the rows replaced, not the table (the luck
        step's per-match sums, issue 17). The table's content fingerprint is cleared, so that the
        next :meth:`write_table` writes whatever it is given, and a pinned store records its pin
        as the table's input. Two commits, not one: a caller that must tell a crash in between
        from a whole replacement records the version returned (``pipelines.steps.luck_statistics``).
        """
        schema = _schema(name)
        path = self.table_path(name)
        properties = {FINGERPRINT: ""}
        if self.pin is not None:
            properties[INPUTS] = str(self.pin.seq)
        with self.writer_lock():
            self.delete_rows(name, column, values)
            if rows.num_rows:
                self.append(path, rows.select(schema.names).cast(schema), new_id(), step=False)
            DeltaTable(_uri(path)).alter.set_table_properties(properties, raise_if_not_exists=False)
            return DeltaTable(_uri(path)).version()

    def unnamed_versions(self) -> dict[str, int]:
        """Tables named by the last step commit whose latest Delta version is past the one named.

        A step's :meth:`delete_rows` leaves such versions; its commit names them with its appends.
        """
        named = self.reading().versions
        out = {}
        for name in ALL_TABLES:
            table = _latest(self.table_path(name)) if name in named else None
            if table is not None and table.version() > named[name]:
                out[name] = table.version()
        return out

    # -- append batches ------------------------------------------------------------------
    def stage_file(
        self, batch_id: str, name: str, partition: Mapping[str, object] | None = None, part: int = 0
    ) -> Path:
        """Parquet file ``part`` of append batch ``batch_id`` of table ``name`` (in one partition).

        Its folder is created; the file is the caller's to write. Every part is appended with
        the batch by :meth:`publish_batch`.
        """
        _schema(name)
        folder = self.staging_dir / batch_id / name
        for key, value in (partition or {}).items():
            folder = folder / f"{key}={value}"
        folder.mkdir(parents=True, exist_ok=True)
        return folder / f"part-{part:05d}.parquet"

    def publish_batch(self, batch_id: str) -> dict[str, int]:
        """Append every staged table of ``batch_id`` to its Delta table; returns the new versions.

        One Delta commit per table adding the staged files themselves (:meth:`_append_staged`:
        linked into the table, not rewritten), carrying the app transaction ``gdan-batch-<id>``:
        a table that already holds this batch (a retry after a commit whose answer was lost) is
        not appended again. Readers and the next steps see the batch only once :meth:`commit`
        names these versions; until then :meth:`recover` would roll them back.
        """
        staged = self.staging_dir / batch_id
        names = sorted(p.name for p in staged.iterdir()) if staged.exists() else []
        versions = {}
        for name in names:
            versions[name] = self._append_staged(name, batch_id, staged / name)
        self.discard_batch(batch_id)
        return versions

    def append(
        self,
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
        return _commit_once(path, app, lambda _: write_deltalake(
            _uri(path), table, mode="append", partition_by=partition_by,
            commit_properties=CommitProperties(app_transactions=[Transaction(app_id=app, version=1)],
                                               custom_metadata={BATCH_KEY: txn} if step else None),
        ))

    def read_memory(self, name: str, schema: pa.Schema, *, latest: bool = False) -> pa.Table:
        """Memory table ``name`` at the version the store's commit names, or its ``latest``.

        A typed empty table when there is none. ``latest`` is for memory outside step commits
        (the check memos), which a crash cannot leave half written (one append each).
        Memory tables are append-only between rollbacks, so this process keeps what it read and
        reads only the files a later version added (a version without some file read before, a
        rollback, is read whole).
        """
        path = self.memory_path(name)
        if latest:
            table = _latest(path)
        else:
            version = self.reading().versions.get(name)
            table = None if version is None else _at(path, version)
        if table is None:
            return _empty_table(schema)
        files = [_local(u) for u in table.file_uris()]
        with _cache_lock:
            known, rows = _memory.get(path, ((), _empty_table(schema)))
        if not set(known) <= set(files) or not rows.schema.equals(schema):
            known, rows = (), _empty_table(schema)
        new = [f for f in files if f not in set(known)]
        parts = [pq.ParquetFile(f).read().select(schema.names).cast(schema) for f in new]
        data = pa.concat_tables([rows, *parts]) if parts else rows
        READS[name] = READS.get(name, 0) + data.num_rows - rows.num_rows
        with _cache_lock:
            _memory[path] = ((*known, *new), data)
        return data

    def discard_batch(self, batch_id: str) -> None:
        """Drop a staged batch that will not be published (nothing to commit)."""
        shutil.rmtree(self.staging_dir / batch_id, ignore_errors=True)
        if self.staging_dir.exists() and not any(self.staging_dir.iterdir()):
            self.staging_dir.rmdir()

    def recover(self) -> list[str]:
        """Undo a crashed step: drop staging, temp files and the files a crashed publish linked
        into a table without committing them (:meth:`_remove_orphans`), roll back versions no
        commit names.

        A table (or memory table) whose latest version is past the last commit's is restored
        to that version's content (a new version, which a commit row then names, so the next
        recovery finds nothing to do); one the last commit does not name at all, created by the
        crashed step, is removed. Returns the tables rolled back or removed.
        """
        self._remove_orphans()
        if self.staging_dir.exists():
            shutil.rmtree(self.staging_dir)
        for tmp in self.root.glob(f"{WAREHOUSE_TMP}*"):
            tmp.unlink(missing_ok=True)
        last = self.last_commit() or _NO_COMMIT
        named = last.versions
        out = []
        restored = {}
        candidates = [(n, self.table_path(n)) for n in ALL_TABLES]
        memory = sorted(self.state_dir.glob("*"))
        candidates += [(p.name, p) for p in memory if p.name != COMMITS and p.is_dir()]
        for name, path in candidates:
            table = _latest(path)
            if table is None:
                continue
            version = named.get(name)
            if version is not None and table.version() > version:
                DeltaTable(_uri(path)).restore(version)
                restored[name] = DeltaTable(_uri(path)).version()
                out.append(name)
            elif version is None and self._is_uncommitted_append(table):
                shutil.rmtree(path)
                out.append(name)
        if restored:
            self.commit(None, restored, unquarantined=last.unquarantined, malformed_rows=last.malformed_rows)
        return sorted(out)

    # -- the readers' snapshot -----------------------------------------------------------
    def publish(self, snapshot: Snapshot) -> bool:
        """Make ``snapshot`` what readers see: one run row in the commit log; False when unchanged."""
        with self.writer_lock():
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

    def foreign_files(self) -> list[Path]:
        """Files under ``tables/`` that no table's Delta log ever added, sorted.

        Such a file is never read (Delta readers read the files the log names); it is reported.
        """
        if not self.tables_dir.exists():
            return []
        out = []
        for entry in sorted(self.tables_dir.iterdir()):
            if entry.name not in ALL_TABLES or not entry.is_dir() or _latest(entry) is None:
                out.extend(_walk(entry))
                continue
            known = _logged_files(entry)
            for f in _walk(entry):
                relative = f.relative_to(entry)
                if DELTA_LOG not in relative.parts and relative.as_posix() not in known:
                    out.append(f)
        return sorted(out)

    # -- maintenance ---------------------------------------------------------------------
    def maintain(self, retention_days: float = 7) -> dict[str, int]:
        """Compact small files and vacuum files unreferenced for ``retention_days``; bytes before/after.

        Compaction rewrites small files of each partition into larger ones (a new Delta version
        with the same rows, so nothing a reader sees changes); vacuum deletes the files that
        no version younger than the retention needs. The pipeline never needs it to be correct.
        Runs of which a table version was vacuumed can no longer be read with ``--as-of``.
        """
        with self.writer_lock():
            self.recover()
            before = _size(self.tables_dir) + _size(self.state_dir)
            compacted, vacuumed = 0, 0
            rewritten: dict[str, int] = {}
            paths = {n: self.table_path(n) for n in ALL_TABLES}
            paths |= {p.name: p for p in sorted(self.state_dir.glob("*")) if p.is_dir() and p.name != COMMITS}
            for name, path in paths.items():
                table = _open(path)
                if table is None:
                    continue
                removed = int(table.optimize.compact().get("numFilesRemoved", 0))
                if removed:
                    compacted += removed
                    rewritten[name] = DeltaTable(_uri(path)).version()
            self._adopt(rewritten)
            for path in [*paths.values(), self.memory_path(COMMITS)]:
                if _open(path) is not None:
                    vacuumed += len(
                        DeltaTable(_uri(path)).vacuum(
                            retention_hours=int(retention_days * 24), dry_run=False,
                            enforce_retention_duration=False,
                        )
                    )
            after = _size(self.tables_dir) + _size(self.state_dir)
        return {"bytes_before": before, "bytes_after": after, "files_compacted": compacted,
                "files_vacuumed": vacuumed}

    def _adopt(self, rewritten: Mapping[str, int]) -> None:
        """Name the compacted versions (same rows) in a new step commit and run record.

        So the next step does not roll the compaction back, and readers of the last run read
        the compacted files (vacuum may then delete the ones they replace).
        """
        last = self.last_commit()
        named = {n: v for n, v in rewritten.items() if last is not None and n in last.versions}
        commit = last
        if last is not None and named:
            commit = self.commit(
                None, named, unquarantined=last.unquarantined, malformed_rows=last.malformed_rows
            )
        run = self.published()
        if run is not None and commit is not None:
            versions = {**run.versions, **{n: v for n, v in rewritten.items() if n in run.versions}}
            of_seq = commit.seq if last is not None and run.seq == last.seq else run.seq
            self.publish(Snapshot(seq=of_seq, versions=versions))

    # -- locking -------------------------------------------------------------------------
    @contextmanager
    def writer_lock(self) -> Iterator[None]:
        """Hold the store's single-writer lock (blocks until a concurrent writer finishes).

        Across processes an ``flock`` on ``state/.lock``; within a process a re-entrant lock
        per store root, so a writer may call another writing method while holding it.
        """
        with _thread_lock(self.root):
            depth = _lock_depth.get(self.root, 0)
            _lock_depth[self.root] = depth + 1
            try:
                if depth:
                    yield
                    return
                self.state_dir.mkdir(parents=True, exist_ok=True)
                with open(self.state_dir / ".lock", "a+") as handle:
                    _lock_exclusive(handle)
                    try:
                        yield
                    finally:
                        fcntl.flock(handle, fcntl.LOCK_UN)
            finally:
                _lock_depth[self.root] = depth

    # -- internals -----------------------------------------------------------------------
    def _step(self, seq: int) -> Commit:
        if seq < 0:
            return _NO_COMMIT
        return self._at_entry(next(e for e in self._entries() if e.seq == seq and e.kind == STEP))

    def _run(self, entry: _Entry) -> Snapshot:
        row = self._at_entry(entry)
        return Snapshot(seq=row.of_seq, versions=row.versions, run=row.seq)

    def next_seq(self) -> int:
        """The seq the next commit-log row gets (from the log's statistics)."""
        entries = self._entries()
        return entries[-1].seq + 1 if entries else 0

    def _entries(self) -> list[_Entry]:
        """The commit log's rows by seq, as the Delta log's statistics of its files give them.

        Every commit row is appended alone, so each file's min and max give its seq, kind and
        batch without reading it; a file of several rows (compacted by hand) is read.
        """
        table = _latest(self.memory_path(COMMITS))
        if table is None:
            return []
        columns = ("path", "num_records", "min.seq", "max.seq", "min.kind", "max.kind", "min.batch")
        actions = _add_actions(table)
        listed = actions.select([c for c in columns if c in actions.column_names]).to_pydict()
        out = []
        base = self.memory_path(COMMITS)
        for i, file in enumerate(listed["path"]):
            path = str(base / _unquote(file))
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
        self.append(self.memory_path(COMMITS), log, f"commit-{row.seq}", step=False)

    def _append_staged(self, name: str, batch_id: str, folder: Path) -> int:
        """Append the staged Parquet files of one table of a batch as Delta add actions.

        Each staged file is linked into the table's folder under its partition path
        (:func:`_target`) and the links are committed in one Delta commit
        (``create_write_transaction``, or ``create_table_with_add_actions`` for the table's first
        batch), so no row is decoded or encoded again (issue 17: ``write_deltalake`` re-encoded
        every appended row). A staged file whose Arrow schema is not exactly the table's is
        rewritten once, cast to it, so every file of the table reads with the table's schema.
        The links a crashed publish left uncommitted are removed by :meth:`recover`.
        """
        files = sorted(folder.rglob("*.parquet"))
        if not files:
            return self.version(name) or 0
        keys = [p.split("=", 1)[0] for p in files[0].relative_to(folder).parts[:-1]]
        batched = name in BATCHED
        partition_by = [BATCH, *keys] if batched else keys
        schema = _schema(name)
        out = pa.schema([*schema, *(pa.field(k, pa.int32()) for k in keys),
                         *([pa.field(BATCH, pa.string())] if batched else [])])
        path = self.table_path(name)
        app = f"{APP}{batch_id}"
        properties = CommitProperties(app_transactions=[Transaction(app_id=app, version=1)],
                                      custom_metadata={BATCH_KEY: batch_id})

        def link_and_commit(current: DeltaTable | None) -> None:
            actions = []
            for file in files:
                values = _partition_values(folder, file, batch_id if batched else None)
                target = _target(path, batch_id, values, file.name)
                _place(file, target, schema)
                actions.append(_add_action(path, target, values))
            _commit_adds(path, current, actions, out, partition_by, properties)

        return _commit_once(path, app, link_and_commit)

    def _remove_orphans(self) -> list[Path]:
        """Remove the files a crashed :meth:`publish_batch` linked into a table but did not commit.

        They are found from the staged batches still in ``staging/`` (a publish drops its batch
        only after every table's commit): each staged file's link in its table (:func:`_target`)
        is an orphan when that table does not hold the batch's app transaction. Returns them.
        """
        out = []
        for staged in sorted(self.staging_dir.glob("*/*")) if self.staging_dir.exists() else []:
            batch_id, name = staged.parent.name, staged.name
            if name not in ALL_TABLES or not staged.is_dir():
                continue
            path = self.table_path(name)
            table = _open(path)
            if table is not None and table.transaction_version(f"{APP}{batch_id}") is not None:
                continue
            for file in sorted(staged.rglob("*.parquet")):
                values = _partition_values(staged, file, batch_id if name in BATCHED else None)
                target = _target(path, batch_id, values, file.name)
                if target.exists():
                    target.unlink()
                    out.append(target)
                    _prune_empty(target.parent, path)
            if table is None and path.exists() and not any(path.rglob("*")):
                path.rmdir()
        return out

    @staticmethod
    def _is_uncommitted_append(table: DeltaTable) -> bool:
        """Whether ``table``, which no step commit names, was appended to by a step (which then
        crashed before its commit row): its latest commit carries a batch id."""
        history = table.history(1)
        return bool(history) and history[0].get(BATCH_KEY) is not None


_NO_COMMIT = Commit(seq=-1, kind=STEP, batch=None, of_seq=-1, versions={}, counts={})

_commit_files: dict[str, tuple[Commit, ...]] = {}
"""Commit-log rows by file (a file never changes once written): each is read once per process."""
_logs: dict[Path, tuple[DeltaTable, tuple[int, int]]] = {}
"""Each table read at its latest version, kept open and brought up to date incrementally."""
_versions: dict[tuple[Path, int, tuple[int, int]], DeltaTable] = {}
"""Tables opened at a version (:func:`_at`), at most :data:`_VERSIONS_KEPT` of them."""
_VERSIONS_KEPT = 1024
_memory: dict[Path, tuple[tuple[str, ...], pa.Table]] = {}
"""Per memory table: the files this process read and their rows (see :meth:`Store.read_memory`)."""
_cache_lock = threading.Lock()
_ReadKey = tuple[Path, int, tuple[int, int], tuple[str, ...]]
"""A whole read: the table's path, version, that version's log entry identity, the columns."""
_reads: OrderedDict[_ReadKey, pa.Table] = OrderedDict()
"""Whole tables read (:meth:`Store.read_table`), by path, version, its log entry's identity and
columns, least recently used first: a run's steps read ``match_scores`` six times, ``matches``
four, ``scoring_partitions`` eight (≈ 1.2 s of a run adding 1,000 deals to a 1M store)."""
READS_KEPT_BYTES = 96 * 2**20
"""At most this many bytes of :data:`_reads` (a table over half of it is not kept): at 1M deals
``match_scores``, ``matches`` and ``scoring_partitions`` (95 MiB together) are kept, and the
first run's scoring steps, whose peaks came within 150 MiB of the 2 GiB target, gain no more."""


def _kept_read(key: _ReadKey) -> pa.Table | None:
    """A whole read kept by :func:`_keep_read` (a version never changes once written)."""
    with _cache_lock:
        table = _reads.get(key)
        if table is not None:
            _reads.move_to_end(key)
        return table


def _keep_read(key: _ReadKey, table: pa.Table) -> None:
    """Keep ``table`` for :func:`_kept_read`, dropping the least recently used over the budget."""
    if key[2][0] < 0 or table.nbytes > READS_KEPT_BYTES // 2:
        return
    with _cache_lock:
        _reads[key] = table
        while sum(t.nbytes for t in _reads.values()) > READS_KEPT_BYTES:
            _reads.popitem(last=False)


def _identity(path: Path, version: int) -> tuple[int, int]:
    """Which file is the Delta log entry of ``version`` at ``path`` (inode, mtime; -1s: none):
    a table created anew at the same path has other entries, so nothing cached for it is reused."""
    try:
        entry = (path / DELTA_LOG / f"{version:020d}.json").stat()
    except FileNotFoundError:
        return (-1, -1)
    return (entry.st_ino, entry.st_mtime_ns)


def _latest(path: Path) -> DeltaTable | None:
    """The Delta table at ``path`` at its latest version, for reading only (None: no table).

    Kept open per path and updated with the log entries added since (``update_incremental``),
    so the many "which version" questions of a step do not re-read a table's whole Delta log; a
    table created anew at the same path (its first log entry another file) is opened afresh.
    Every version has its own log entry, so while the next one's does not exist the table is up
    to date and is not asked (``update_incremental`` lists the log: ≈ 1.3 ms, 237 times in a
    rerun). Writers and maintenance open their own (:func:`_open`).
    """
    identity = _identity(path, 0)
    with _cache_lock:
        cached = _logs.get(path)
        if cached is not None and cached[1] == identity and identity[0] >= 0:
            kept = cached[0]
            if (path / DELTA_LOG / f"{kept.version() + 1:020d}.json").exists():
                kept.update_incremental()
            return kept
        table = _open(path)
        if table is None:
            _logs.pop(path, None)
        else:
            _logs[path] = (table, identity)
        return table


def _commit_rows(file: str) -> tuple[Commit, ...]:
    """The commit rows of one file of the commit log (read once per process, counted in READS)."""
    with _cache_lock:
        cached = _commit_files.get(file)
    if cached is not None:
        return cached
    # Not pq.read_table: it imports pyarrow.dataset (and pandas); nor the ``at`` column, whose
    # time zone's conversion to Python imports pandas too (a rerun imports none: test_run.py).
    data = pq.ParquetFile(file).read(columns=[n for n in COMMIT_SCHEMA.names if n != "at"])
    READS[COMMITS] = READS.get(COMMITS, 0) + data.num_rows
    rows = tuple(_commit(r) for r in data.to_pylist())
    with _cache_lock:
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


def _rows_logged(table: DeltaTable) -> int:
    """Rows of ``table`` at its version, from its add actions' ``numRecords`` (every file the store
    writes has them; a file without is read)."""
    actions = _add_actions(table).select(["path", "num_records"]).to_pylist()
    base = Path(_local(table.table_uri))
    return sum(pq.ParquetFile(base / _unquote(a["path"])).metadata.num_rows if a["num_records"] is None
               else a["num_records"] for a in actions)


def _empty_table(schema: pa.Schema) -> pa.Table:
    """A table of ``schema`` without rows (``Schema.empty_table`` imports pandas: :func:`_add_actions`)."""
    return pa.Table.from_batches([], schema=schema)


def _add_actions(table: DeltaTable) -> pa.Table:
    """The table's add actions (one row per data file, statistics flattened) as an Arrow table,
    taken over the Arrow stream interface: ``pa.table()`` first asks whether its argument is a
    pandas frame, importing pandas (≈ 0.3 s) into a rerun that otherwise never needs it."""
    return pa.RecordBatchReader.from_stream(table.get_add_actions(flatten=True)).read_all()


def _open(path: Path) -> DeltaTable | None:
    """The Delta table at ``path`` (latest version), None when there is none."""
    try:
        return DeltaTable(_uri(path))
    except TableNotFoundError:
        return None


def _at(path: Path, version: int) -> DeltaTable:
    """The Delta table at ``path`` as of ``version``, for reading only.

    A version never changes once written, so each is opened once per process (its log entry's
    identity guards against a table created anew at the same path; :func:`_identity`).
    """
    key = (path, version, _identity(path, version))
    with _cache_lock:
        table = _versions.get(key)
    if table is None:
        table = DeltaTable(_uri(path), version=version)
        with _cache_lock:
            if len(_versions) >= _VERSIONS_KEPT:
                _versions.clear()
            _versions[key] = table
    return table


def _files_at(path: Path, version: int) -> list[str]:
    """The data file URIs of the Delta table at ``path`` as of ``version``: from the table kept
    open at its latest (:func:`_latest`) when that is the version asked, as it mostly is (opening
    one at a version costs ≈ 6 ms: the warehouse's check of a rerun asked for 37), else
    :func:`_at`'s. Read under the cache's lock, so no update moves the table meanwhile; not
    from a table since created anew at the same path (:func:`_identity`)."""
    identity = _identity(path, 0)
    with _cache_lock:
        cached = _logs.get(path)
        same = cached is not None and cached[1] == identity and identity[0] >= 0
        if cached is not None and same and cached[0].version() == version:
            return list(cached[0].file_uris())
    return list(_at(path, version).file_uris())


def _uri(path: Path) -> str:
    """The ``file://`` URL delta-rs is given for the table folder ``path`` (:class:`StorePathError`
    for a path it cannot open; the inbox of such a store still takes files)."""
    if {"[", "]"} & set(str(path)):
        raise StorePathError(
            f"store path {path.parent}: a path with '[' or ']' cannot hold Delta tables "
            "(delta-rs refuses it); rename the folder or choose another --store"
        )
    return path.as_uri()


def _local(uri: str) -> str:
    """A local path from a Delta file URI (delta-rs gives ``file://`` URIs or plain paths)."""
    return _unquote(uri.removeprefix("file://"))


def _logged_files(table_dir: Path) -> set[str]:
    """Every data file (relative path) that a commit of the Delta table at ``table_dir`` added.

    The commit files hold every add; the current version's files are added too, should old
    commit files have been cleaned up after a checkpoint.
    """
    out = set()
    for entry in sorted((table_dir / DELTA_LOG).glob("*.json")):
        for line in entry.read_bytes().splitlines():
            action = orjson.loads(line)
            if "add" in action:
                out.add(_unquote(action["add"]["path"]))
    table = _latest(table_dir)
    if table is not None:
        out |= {Path(_local(u)).relative_to(table_dir).as_posix() for u in table.file_uris()}
    return out


def _commit_once(path: Path, app: str, commit: Callable[[DeltaTable | None], object]) -> int:
    """Make the Delta commit ``commit`` (given the table's latest version, None: no table yet),
    which carries app transaction ``app``, unless the table at ``path`` already holds it; returns
    the table's version. A commit that raised but did land (a lost answer) counts as done."""
    current = _latest(path)
    if current is not None and current.transaction_version(app) is not None:
        return current.version()
    try:
        commit(current)
    except Exception:
        landed = _latest(path)
        if landed is None or landed.transaction_version(app) is None:
            raise
    written = _latest(path)
    assert written is not None
    return written.version()


def _partition_values(folder: Path, file: Path, batch_id: str | None) -> dict[str, str]:
    """The partition values of staged ``file`` from its path under ``folder`` (``key=value``
    folders), the batch first when the table is partitioned by batch (``batch_id`` given)."""
    values = dict(p.split("=", 1) for p in file.relative_to(folder).parts[:-1])
    return {BATCH: batch_id, **values} if batch_id is not None else values


def _target(table_dir: Path, batch_id: str, values: Mapping[str, str], name: str) -> Path:
    """Where staged file ``name`` of batch ``batch_id`` is linked in the table at ``table_dir``:
    under its partition path (``values`` in partition order), named after the batch."""
    folder = table_dir.joinpath(*(f"{k}={v}" for k, v in values.items()))
    return folder / f"part-{batch_id}-{name}"


def _place(staged: Path, target: Path, schema: pa.Schema) -> None:
    """Put the staged Parquet file at ``target`` in its table: a hard link when its Arrow schema
    is exactly ``schema`` (types, nullability, field order), else a copy cast to ``schema``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)
    if pq.read_schema(staged).remove_metadata().equals(schema.remove_metadata()):
        os.link(staged, target)
        return
    source = pq.ParquetFile(staged)
    with pq.ParquetWriter(target, schema, compression="zstd", store_schema=False) as writer:
        for batch in source.iter_batches(batch_size=APPEND_ROWS, columns=schema.names):
            writer.write_table(pa.Table.from_batches([batch]).select(schema.names).cast(schema))


STATS_COLUMNS = 32
"""Leading columns with min/max/null-count statistics in an add action (Delta's default
``delta.dataSkippingNumIndexedCols``)."""
_STATS_TYPES = (pa.types.is_integer, pa.types.is_string)
"""Column types whose Parquet footer min/max are exact in Delta's statistics (timestamps are
kept to milliseconds there and floats have NaN, so those get a null count only)."""
_STRING_STATS = 32
"""Longest string min/max kept (Delta truncates longer ones; such a column gets no min/max)."""


def _add_action(table_dir: Path, file: Path, values: Mapping[str, str]) -> AddAction:
    """The Delta add action of the Parquet ``file`` in the table at ``table_dir``, with the
    statistics its footer gives (rows; min, max and nulls of flat columns: data skipping)."""
    info = file.stat()
    return AddAction(
        path=file.relative_to(table_dir).as_posix(),
        size=info.st_size,
        partition_values=dict(values),
        modification_time=info.st_mtime_ns // 1_000_000,
        data_change=True,
        stats=orjson.dumps(_file_stats(pq.ParquetFile(file).metadata)).decode(),
    )


def _file_stats(meta: pq.FileMetaData) -> dict[str, Any]:
    """Delta's ``stats`` of one Parquet file from its footer: ``numRecords``, and per flat column
    among the first :data:`STATS_COLUMNS` its ``nullCount`` and, when exact, ``minValues``/``maxValues``."""
    arrow = meta.schema.to_arrow_schema()
    mins: dict[str, Any] = {}
    maxs: dict[str, Any] = {}
    nulls: dict[str, int] = {}
    leaves = {meta.schema.column(i).path: i for i in range(meta.num_columns)}
    for field in list(arrow)[:STATS_COLUMNS]:
        index = leaves.get(field.name)
        if index is None:
            continue
        stats = [meta.row_group(g).column(index).statistics for g in range(meta.num_row_groups)]
        if not all(s is not None and s.has_null_count for s in stats):
            continue
        nulls[field.name] = sum(s.null_count for s in stats)
        ranged = [s for s in stats if s.num_values]
        exact = any(check(field.type) for check in _STATS_TYPES)
        if not exact or not ranged or not all(s.has_min_max for s in ranged):
            continue
        low, high = min(s.min for s in ranged), max(s.max for s in ranged)
        if isinstance(low, str) and max(len(low), len(high)) > _STRING_STATS:
            continue
        mins[field.name], maxs[field.name] = low, high
    return {"numRecords": meta.num_rows, "minValues": mins, "maxValues": maxs, "nullCount": nulls}


def _commit_adds(
    table_dir: Path,
    current: DeltaTable | None,
    actions: list[AddAction],
    schema: pa.Schema,
    partition_by: list[str],
    properties: CommitProperties,
) -> None:
    """Commit ``actions`` (files already in the table's folder) as one Delta append; the first
    commit of a table creates it with ``schema`` (schema columns, then partition columns)."""
    if current is None:
        create_table_with_add_actions(
            _uri(table_dir), Schema.from_arrow(schema), actions, mode="append",
            partition_by=partition_by or None, commit_properties=properties,
        )
        return
    current.create_write_transaction([*actions], mode="append", schema=current.schema(),
                                     partition_by=partition_by or None, commit_properties=properties)


def _prune_empty(folder: Path, top: Path) -> None:
    """Remove ``folder`` and its parents up to (not including) ``top`` while they are empty."""
    while folder != top and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent


def _unquote(path: str) -> str:
    from urllib.parse import unquote

    return unquote(path)


lock_wait_notices: list[Callable[[int | None], None]] = []
"""Called with the holder's pid (None if unknown) when the writer lock is busy, before waiting."""


def _lock_exclusive(handle: IO[str]) -> None:
    """``flock`` the open lock file; if another process holds it, tell :data:`lock_wait_notices`
    (so a user is not left staring at a silent wait), then wait. The holder writes its pid in."""
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        text = handle.read().strip()
        for notice in list(lock_wait_notices):
            notice(int(text) if text.isdigit() else None)
        fcntl.flock(handle, fcntl.LOCK_EX)
    handle.seek(0)
    handle.truncate()
    handle.write(str(os.getpid()))
    handle.flush()


_thread_locks: dict[Path, threading.RLock] = {}
_lock_depth: dict[Path, int] = {}
_registry_lock = threading.Lock()


def _thread_lock(root: Path) -> threading.RLock:
    with _registry_lock:
        return _thread_locks.setdefault(root, threading.RLock())


def _walk(path: Path) -> list[Path]:
    """Every file (or symlink) at or under ``path``."""
    if path.is_symlink() or not path.is_dir():
        return [path]
    return [p for p in path.rglob("*") if p.is_symlink() or not p.is_dir()]


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in _walk(path) if p.is_file()) if path.exists() else 0


def _fingerprint(data: pa.Table, partition_by: list[str] | None) -> str:
    """A hash of the table's content (Arrow IPC bytes) and partitioning.

    The IPC stream goes straight into the hash: held in a buffer it was one more copy of every
    table written whole (the luck sums of the 1M store: ≈ 300 MB)."""
    digest = hashlib.sha256()
    with _HashSink(digest) as sink, pa.ipc.new_stream(sink, data.schema) as writer:
        writer.write_table(data)
    digest.update(repr(partition_by).encode())
    return digest.hexdigest()


class _HashSink(io.RawIOBase):
    """A write-only file that feeds what is written to a hash."""

    def __init__(self, digest: hashlib._Hash) -> None:
        super().__init__()
        self.digest = digest

    def writable(self) -> bool:
        return True

    def write(self, data: Buffer) -> int:
        view = memoryview(data)
        self.digest.update(view)
        return view.nbytes


def _schema(name: str) -> pa.Schema:
    try:
        return ALL_TABLES[name]
    except KeyError:
        raise UnknownTableError(f"unknown table {name!r}; known: {', '.join(sorted(ALL_TABLES))}") from None
