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

from schemas import ALL_TABLES

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


def create_views(con: duckdb.DuckDBPyConnection, store: str | Path) -> list[str]:
    """Create or replace one view per known table; a table with no files yet is an empty view.

    Returns the names of the tables that have data.
    """
    with_data = []
    for name, schema in ALL_TABLES.items():
        folder = table_dir(store, name)
        if any(folder.rglob("*.parquet")):
            pattern = (folder / "**" / "*.parquet").as_posix()
            con.execute(
                f"CREATE OR REPLACE VIEW \"{name}\" AS SELECT * FROM read_parquet("
                f"'{pattern}', hive_partitioning = true, union_by_name = true)"
            )
            with_data.append(name)
        else:
            con.execute(f"CREATE OR REPLACE VIEW \"{name}\" AS {_empty_view_sql(schema)}")
    return with_data


def connect(store: str | Path | None = None) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with a view per table of the store (read-only use)."""
    con = duckdb.connect(":memory:")
    create_views(con, store_path(store))
    return con
