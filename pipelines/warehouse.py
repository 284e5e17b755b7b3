"""Read access to the store: an in-memory DuckDB with one view per Parquet table.

The store's system of record is Parquet under ``<store>/tables/<name>/`` (hive-partitioned).
Readers (dashboards, notebooks, ``gdan sql``) never open the pipeline's DuckDB file: they call
:func:`connect`, which builds views over the Parquet files, so reading never conflicts with a
running pipeline.
"""

from __future__ import annotations

import os
from pathlib import Path

import duckdb
import pyarrow as pa

from schemas.catalog import ALL_TABLES

DEFAULT_STORE = Path("data")


def store_path(store: str | Path | None = None) -> Path:
    """The store folder: the argument, else ``$GDAN_STORE``, else ``./data``."""
    if store is not None:
        return Path(store)
    return Path(os.environ.get("GDAN_STORE", DEFAULT_STORE))


def table_dir(store: str | Path, name: str) -> Path:
    """The folder that holds table ``name``'s Parquet files."""
    return Path(store) / "tables" / name


def _empty_view_sql(schema: pa.Schema) -> str:
    """A typed, empty SELECT for a table that has no Parquet files yet."""
    con = duckdb.connect()
    try:
        types = con.from_arrow(schema.empty_table()).types
    finally:
        con.close()
    cols = ", ".join(f'CAST(NULL AS {t}) AS "{f.name}"' for f, t in zip(schema, types, strict=True))
    return f"SELECT {cols} WHERE FALSE"


def view_statements(store: str | Path) -> dict[str, str]:
    """The ``CREATE OR REPLACE VIEW`` statement of every known table, by name.

    Each view selects exactly the schema's columns: the store's own partition folders
    (``batch=``, ``bucket=``) are storage detail, not data. A table with no files yet is a
    typed empty view. Paths are absolute, so a database file holding these views works from
    any directory.
    """
    out = {}
    for name, schema in ALL_TABLES.items():
        folder = table_dir(Path(store).absolute(), name)
        if any(folder.rglob("*.parquet")):
            pattern = (folder / "**" / "*.parquet").as_posix().replace("'", "''")
            cols = ", ".join(f'"{f.name}"' for f in schema)
            body = (f"SELECT {cols} FROM read_parquet('{pattern}', hive_partitioning = true, "
                    "union_by_name = true)")
        else:
            body = _empty_view_sql(schema)
        out[name] = f'CREATE OR REPLACE VIEW "{name}" AS {body}'
    return out


def create_views(con: duckdb.DuckDBPyConnection, store: str | Path) -> list[str]:
    """Create or replace one view per known table (see :func:`view_statements`).

    Returns the names of the tables that have data.
    """
    with_data = []
    for name, statement in view_statements(store).items():
        con.execute(statement)
        if "read_parquet(" in statement:
            with_data.append(name)
    return with_data


def write_warehouse(store: str | Path) -> Path:
    """(Re)build ``<store>/warehouse.duckdb``, a file of views for SQL users, atomically.

    Built in a temp file and renamed over the old one, so an open reader keeps a consistent
    file; left untouched when its views would not change (a rerun with nothing new writes
    nothing). Only the pipeline's ``warehouse`` asset calls this; readers use :func:`connect`.
    """
    root = Path(store).absolute()
    target = root / "warehouse.duckdb"
    script = ";\n".join(view_statements(root).values()) + ";\n"
    record = root / "state" / "warehouse.sql"
    if target.exists() and record.exists() and record.read_text() == script:
        return target
    tmp = target.with_name(f".warehouse-{os.getpid()}.duckdb")
    tmp.unlink(missing_ok=True)
    con = duckdb.connect(str(tmp))
    try:
        con.execute(script)
        con.execute("CHECKPOINT")
    finally:
        con.close()
    os.replace(tmp, target)
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(script)
    return target


def connect(store: str | Path | None = None, *, memory_limit: str | None = None) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with a view per table of the store (read-only use).

    ``memory_limit`` (e.g. ``"512MB"``) caps DuckDB's memory; larger work spills to disk.
    """
    config = {"memory_limit": memory_limit} if memory_limit else {}
    con = duckdb.connect(":memory:", config=config)
    create_views(con, store_path(store))
    return con
