"""Read access to the store: an in-memory DuckDB with one view per table, over exact file lists.

The store's system of record is Parquet (``pipelines.store``). Readers (dashboards, notebooks,
``gdan sql``) never open the pipeline's DuckDB file: they call :func:`connect`, which builds views
over the files of the snapshot the pipeline published at the end of its last whole run, so
reading never conflicts with a running pipeline and never sees a run half done. The views list
their files one by one (no glob), so an uncommitted batch or a file someone else dropped into a
table folder is not read. A connection keeps the snapshot it was opened on; reconnect to see a
later run.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import duckdb
import orjson
import pyarrow as pa

from pipelines.store import Snapshot, Store
from schemas.catalog import ALL_TABLES

DEFAULT_STORE = Path("data")


def store_path(store: str | Path | None = None) -> Path:
    """The store folder: the argument, else ``$GDAN_STORE``, else ``./data``."""
    if store is not None:
        return Path(store)
    return Path(os.environ.get("GDAN_STORE", DEFAULT_STORE))


def _empty_view_sql(schema: pa.Schema) -> str:
    """A typed, empty SELECT for a table that has no Parquet files yet."""
    con = duckdb.connect()
    try:
        types = con.from_arrow(schema.empty_table()).types
    finally:
        con.close()
    cols = ", ".join(f'CAST(NULL AS {t}) AS "{f.name}"' for f, t in zip(schema, types, strict=True))
    return f"SELECT {cols} WHERE FALSE"


def _literal(path: Path) -> str:
    """``path`` as a DuckDB string literal that ``read_parquet`` takes literally (no glob).

    DuckDB expands ``*``, ``?`` and ``[…]`` in file names; each such character is written as a
    one-character class (``[*]``), which matches exactly itself.
    """
    text = "".join(f"[{c}]" if c in "*?[]" else c for c in path.as_posix())
    return "'" + text.replace("'", "''") + "'"


def view_statements(snapshot: Snapshot) -> dict[str, str]:
    """The ``CREATE OR REPLACE VIEW`` statement of every known table, by name.

    Each view reads exactly the snapshot's files of its table and selects exactly the schema's
    columns (partition folders are storage detail, not data). A table with no files is a
    typed empty view. Paths are absolute, so a database file holding these views works from
    any directory.
    """
    out = {}
    for name, schema in ALL_TABLES.items():
        files = snapshot.files.get(name, ())
        if files:
            listed = ", ".join(_literal(f) for f in files)
            cols = ", ".join(f'"{f.name}"' for f in schema)
            body = (
                f"SELECT {cols} FROM read_parquet([{listed}], hive_partitioning = true, union_by_name = true)"
            )
        else:
            body = _empty_view_sql(schema)
        out[name] = f'CREATE OR REPLACE VIEW "{name}" AS {body}'
    return out


def create_views(con: duckdb.DuckDBPyConnection, snapshot: Snapshot) -> list[str]:
    """Create or replace one view per known table (see :func:`view_statements`).

    Returns the names of the tables that have data.
    """
    for statement in view_statements(snapshot).values():
        con.execute(statement)
    return [name for name in ALL_TABLES if snapshot.files.get(name)]


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


def _script(snapshot: Snapshot) -> str:
    return ";\n".join(view_statements(snapshot).values()) + ";\n"


def warehouse_is_current(store: Store, snapshot: Snapshot) -> bool:
    """Whether ``warehouse.duckdb`` holds exactly the views of ``snapshot`` and nothing else.

    The file's real catalog is compared with the catalog the last build produced (recorded with
    the statements it ran), so a view replaced, or an object added, by a SQL user counts as a
    difference, and so does a build for another snapshot. A file that cannot be opened (held
    open for writing by a SQL tool) counts as one too: it is rebuilt.
    """
    record = orjson.loads(store.warehouse_record.read_bytes()) if store.warehouse_record.exists() else {}
    if record.get("statements") != hashlib.sha256(_script(snapshot).encode()).hexdigest():
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
        script = _script(snapshot)
        tmp = store.warehouse_tmp()
        tmp.unlink(missing_ok=True)
        con = duckdb.connect(str(tmp))
        try:
            con.execute(script)
            con.execute("CHECKPOINT")
        finally:
            con.close()
        record = {"statements": hashlib.sha256(script.encode()).hexdigest(), "catalog": _catalog(tmp)}
        os.replace(tmp, target)
        tmp_record = store.warehouse_record.with_name(f".{store.warehouse_record.name}-{os.getpid()}")
        tmp_record.write_bytes(orjson.dumps(record))
        os.replace(tmp_record, store.warehouse_record)
    return target


def connect(
    store: str | Path | None = None, *, memory_limit: str | None = None, snapshot: Snapshot | None = None
) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with a view per table (read-only use).

    The views read ``snapshot``, by default the one the last whole pipeline run published
    (empty views before any). ``memory_limit`` (e.g. ``"512MB"``) caps DuckDB's memory; larger
    work spills to disk.
    """
    config: dict[str, str | bool | int | float | list[str]] = {}
    if memory_limit:
        config["memory_limit"] = memory_limit
    con = duckdb.connect(":memory:", config=config)
    if snapshot is None:
        snapshot = Store(store_path(store)).published() or Snapshot(batches=(), files={})
    create_views(con, snapshot)
    return con
