"""Read access to the store: an in-memory DuckDB with one view per table, at one run's Delta versions.

The store's system of record is Delta Lake (``pipelines.storage.store``). Readers (dashboards, notebooks,
``gdan sql``) never open the pipeline's DuckDB file: they call :func:`connect`, which creates a
view per table over the exact Parquet files of its Delta version in the run the pipeline
published last (or in an older run: ``as_of``), so reading never conflicts with a running
pipeline and a join never sees half a batch. A version names its exact Parquet files, so a file
someone else dropped into a table folder is not read. A connection keeps the versions it was
opened on; reconnect to see a later run. (DuckDB's own delta extension downloads at run time,
so the store does not use it.)

``warehouse.duckdb``, for SQL tools that want a file, holds views over the same versions' file
lists (:func:`view_statements`); the pipeline's own SQL steps use those statements too.
"""

from __future__ import annotations

import functools
import hashlib
import os
import threading
from collections.abc import Iterable
from pathlib import Path

import duckdb
import orjson
import pyarrow as pa

from pipelines.storage.commit_log import EMPTY, Snapshot
from pipelines.storage.store import Store
from schemas.catalog import ALL_TABLES

DEFAULT_STORE = Path("data")


def store_path(store: str | Path | None = None) -> Path:
    """The store folder: the argument, else ``$GDAN_STORE``, else ``./data``."""
    if store is not None:
        return Path(store)
    return Path(os.environ.get("GDAN_STORE", DEFAULT_STORE))


def _empty_view_sql(schema: pa.Schema) -> str:
    """A typed, empty SELECT for a table that has no Parquet files yet."""
    types = _duckdb_types(schema)
    cols = ", ".join(f'CAST(NULL AS {t}) AS "{f.name}"' for f, t in zip(schema, types, strict=True))
    return f"SELECT {cols} WHERE FALSE"


def path_literal(path: str) -> str:
    """``path`` as a DuckDB string literal that ``read_parquet`` takes literally (no glob).

    DuckDB expands ``*``, ``?`` and ``[…]`` in file names; each such character is written as a
    one-character class (``[*]``), which matches exactly itself.
    """
    text = "".join(f"[{c}]" if c in "*?[]" else c for c in path)
    return "'" + text.replace("'", "''") + "'"


_types_lock = threading.Lock()
"""Held while :func:`_types_connection` answers."""


@functools.cache
def _duckdb_types(schema: pa.Schema) -> tuple[str, ...]:
    """DuckDB's name of each column type of ``schema``: asked once per schema and process, of one
    connection per process (a connection costs tens of milliseconds, and every view statement
    needs the types), by one thread at a time (a connection is not for concurrent use; steps
    may run two at a time, ``pipelines.run.lanes``)."""
    with _types_lock:
        return tuple(str(t) for t in _types_connection().from_arrow(schema.empty_table()).types)


@functools.cache
def _types_connection() -> duckdb.DuckDBPyConnection:
    """The in-memory connection :func:`_duckdb_types` asks (it holds no data)."""
    return duckdb.connect()


SUBMISSIONS = "submissions"
"""A view over ``raw_events``: the audit record of every match submitted from the entry page."""
_SUBMISSIONS_SQL = f"""CREATE OR REPLACE VIEW "{SUBMISSIONS}" AS
SELECT match_id, revision,
       json_extract_string(payload, '$.entry.by') AS entered_by,
       json_extract_string(payload, '$.entry.via') AS entered_via,
       CAST(json_extract_string(payload, '$.entry.at') AS TIMESTAMPTZ) AS entered_at,
       CAST(json_extract_string(payload, '$.entry.replaces') AS INTEGER) AS replaces_revision,
       json_extract_string(payload, '$.entry.replaces_file') AS replaces_file,
       json_extract_string(payload, '$.event.id') AS event_id,
       json_extract_string(payload, '$.event.stage') AS stage,
       TRY_CAST(json_extract_string(payload, '$.event.round') AS INTEGER) AS round,
       json_extract_string(payload, '$.event.table') AS "table",
       source_file, ingested_at
FROM raw_events
WHERE type = 'match_start' AND json_extract(payload, '$.entry') IS NOT NULL"""
"""``match_start.entry`` (docs/event-extensions.md) as columns, one row per submitted file: who
entered it, how, when, and the revision it replaces. A view, so the log stays the only record."""


def view_statements(
    store: Store, snapshot: Snapshot, names: Iterable[str] | None = None
) -> dict[str, str]:
    """The ``CREATE OR REPLACE VIEW`` statement of every table of ``names`` (default: every known
    table), by name, and of the view :data:`SUBMISSIONS` with ``raw_events``.

    Each view reads exactly the Parquet files of its table's version in ``snapshot`` and selects
    exactly the schema's columns, cast to their types (a partition column's value is in the
    file's path, not in the file). A table without a version is a typed empty view. Paths are
    absolute, so a database file holding these views works from any directory.

    The files are bound by the first one's columns, which DuckDB matches by name in the others
    (a file a Delta ``DELETE`` rewrote holds ``string_view`` strings: cast like the rest): every
    file of one Delta version has the table's columns (an append of other columns is refused, an
    overwrite replaces every file). Binding by the union of every file's columns
    (``union_by_name``) read each file's footer when a view was made: 0.9 s of every connection
    to a store of 1M deals (638 ``raw_events`` files, docs/performance.md).
    """
    out = {}
    for name in ALL_TABLES if names is None else names:
        schema = ALL_TABLES[name]
        version = snapshot.versions.get(name)
        files = store.data_files(name, version) if version is not None else []
        if files:
            listed = ", ".join(path_literal(f) for f in files)
            types = _duckdb_types(schema)
            cols = ", ".join(
                f'CAST("{f.name}" AS {t}) AS "{f.name}"' for f, t in zip(schema, types, strict=True)
            )
            body = (
                f"SELECT {cols} FROM read_parquet([{listed}], hive_partitioning = true)"
            )
        else:
            body = _empty_view_sql(schema)
        out[name] = f'CREATE OR REPLACE VIEW "{name}" AS {body}'
    if "raw_events" in out:
        out[SUBMISSIONS] = _SUBMISSIONS_SQL
    return out


def create_views(
    con: duckdb.DuckDBPyConnection, store: Store, snapshot: Snapshot, names: Iterable[str] | None = None
) -> list[str]:
    """One view per table of ``names`` (default: every known table) over the Parquet files of its
    Delta version in ``snapshot`` (:func:`view_statements`). Returns the names of those with data.

    The views read the files with DuckDB's own Parquet reader, not through an Arrow dataset of
    delta-rs registered on ``con``: a process whose connections held such datasets could abort
    at exit (``terminate called without an active exception``).
    """
    with_data = []
    for name, statement in view_statements(store, snapshot, names).items():
        con.execute(statement)
        if snapshot.versions.get(name) is not None and "read_parquet" in statement:
            with_data.append(name)
    return with_data


def _catalog(database: Path) -> str | None:
    """A digest of every user object of a DuckDB file (kind, name, definition); None if unreadable.

    Reads the catalog only (no view is bound, no Parquet file opened). A file held open for
    writing by a SQL tool cannot be opened and gives None.
    """
    try:
        con = duckdb.connect(str(database), read_only=True)
    except duckdb.Error:
        return None
    try:
        rows = con.execute(
            "SELECT 'view', view_name, sql FROM duckdb_views() WHERE NOT internal "
            "UNION ALL SELECT 'table', table_name, sql FROM duckdb_tables() "
            "UNION ALL SELECT 'function', function_name, macro_definition FROM duckdb_functions() "
            "WHERE NOT internal UNION ALL SELECT 'sequence', sequence_name, NULL FROM duckdb_sequences() "
            "ORDER BY ALL"
        ).fetchall()
    finally:
        con.close()
    return hashlib.sha256(orjson.dumps(rows)).hexdigest()


def _script(store: Store, snapshot: Snapshot) -> str:
    return ";\n".join(view_statements(store, snapshot).values()) + ";\n"


VIEWS_FORMAT = 3
"""The form of :func:`view_statements`' SQL: raise it with any change to that form, so that a
warehouse built by the code before is rebuilt (:func:`_inputs`)."""


def _inputs(store: Store, snapshot: Snapshot) -> str:
    """A digest of everything :func:`view_statements` builds the views from: the store's root,
    every table's schema, version and file list, and :data:`VIEWS_FORMAT`. Cheaper than the
    statements: no column types are asked of DuckDB, which imports pyarrow.dataset and pandas
    (≈ 0.3 s of a rerun with nothing new)."""
    tables = []
    for name, schema in ALL_TABLES.items():
        version = snapshot.versions.get(name)
        files = store.data_files(name, version) if version is not None else []
        tables.append([name, schema.to_string(show_schema_metadata=False), version, files])
    key = {"format": VIEWS_FORMAT, "root": str(store.root.absolute()), "tables": tables}
    return hashlib.sha256(orjson.dumps(key)).hexdigest()


def warehouse_is_current(store: Store, snapshot: Snapshot) -> bool:
    """Whether ``warehouse.duckdb`` holds exactly the views of ``snapshot`` and nothing else.

    The file's real catalog is compared with the catalog the last build produced (recorded with
    the statements it ran and what they were built from, :func:`_inputs`), so a view replaced,
    or an object added, by a SQL user counts as a difference, and so does a build for another
    snapshot. A file that cannot be opened (held open for writing by a SQL tool) counts as one
    too: it is rebuilt.
    """
    record = orjson.loads(store.warehouse_record.read_bytes()) if store.warehouse_record.exists() else {}
    if record.get("inputs") != _inputs(store, snapshot) and (
        record.get("statements") != hashlib.sha256(_script(store, snapshot).encode()).hexdigest()
    ):
        return False
    return store.warehouse_file.exists() and _catalog(store.warehouse_file) == record.get("catalog")


def write_warehouse(store: Store, snapshot: Snapshot) -> Path:
    """(Re)build ``<store>/warehouse.duckdb``, a file of views over ``snapshot``, atomically.

    Built in a temp file and renamed over the old one, so an open reader keeps a consistent
    file; left untouched when it already holds exactly these views (a rerun with nothing new
    writes nothing). Holds the writer lock, so recovery never removes a temp file being built.
    Only the pipeline's ``warehouse`` asset calls this; readers use :func:`connect`.
    """
    target = store.warehouse_file
    with store.writer_lock():
        if warehouse_is_current(store, snapshot):
            return target
        script = _script(store, snapshot)
        tmp = store.warehouse_tmp()
        tmp.unlink(missing_ok=True)
        con = duckdb.connect(str(tmp))
        try:
            con.execute(script)
            con.execute("CHECKPOINT")
        finally:
            con.close()
        record = {"statements": hashlib.sha256(script.encode()).hexdigest(), "catalog": _catalog(tmp),
                  "inputs": _inputs(store, snapshot)}
        os.replace(tmp, target)
        tmp_record = store.warehouse_record.with_name(f".{store.warehouse_record.name}-{os.getpid()}")
        tmp_record.write_bytes(orjson.dumps(record))
        os.replace(tmp_record, store.warehouse_record)
    return target


class UnknownRunError(LookupError):
    """``as_of`` names a run the store has not published."""


def connect(
    store: str | Path | None = None,
    *,
    memory_limit: str | None = None,
    snapshot: Snapshot | None = None,
    as_of: int | None = None,
    tables: Iterable[str] | None = None,
) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with a view per table (read-only use).

    The views read ``snapshot``, by default the one the last whole pipeline run published, or
    run ``as_of`` (its number, ``Store.runs``); empty views before any run. ``memory_limit``
    (e.g. ``"512MB"``) caps DuckDB's memory; larger work spills to disk. ``tables`` limits the
    views to those tables (default: every known table): listing a table's files loads its Delta
    log, which for the raw events of 1M deals holds some 300 MiB in this process.
    """
    config: dict[str, str | bool | int | float | list[str]] = {}
    if memory_limit:
        config["memory_limit"] = memory_limit
    the_store = Store(store_path(store))
    if snapshot is None:
        snapshot = the_store.published(as_of)
        if snapshot is None and as_of is not None:
            known = ", ".join(str(r.run) for r in the_store.runs()) or "none yet"
            raise UnknownRunError(f"no run {as_of} in {the_store.root}; published runs: {known}")
    con = duckdb.connect(":memory:", config=config)
    create_views(con, the_store, snapshot or EMPTY, tables)
    return con
