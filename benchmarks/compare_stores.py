"""Whether two stores hold the same tables: every table of the catalogue, row for row as readers
see them (the last published run), without the columns that name a run, its clock or a table
version (they differ between any two stores).

A change that should not change results (a faster step, another library call) is checked by
running the pipeline on the same input before and after it and comparing the two stores: the
rows of each table are compared as multisets in DuckDB (``EXCEPT ALL`` both ways), where
floats compare exactly, and the row counts must match.

Run: ``.venv/bin/python benchmarks/compare_stores.py STORE_A STORE_B``; exit status 1 when a
table differs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import duckdb
import pyarrow as pa

from pipelines.storage.layout import StoreLayout
from pipelines.storage.warehouse import connect
from schemas.catalog import ALL_TABLES

RUN_COLUMNS = {"batch", "ingested_at", "first_ingested_at", "last_ingested_at", "of_version"}
"""Columns that name the run, its clock or a table version (as ``tests/pipeline``'s helpers)."""


def table_rows(root: Path, name: str) -> pa.Table:
    """Table ``name`` of the store at ``root`` without :data:`RUN_COLUMNS`."""
    con = connect(root, tables=[name])
    try:
        dropped = [n for n in ALL_TABLES[name].names if n in RUN_COLUMNS]
        exclude = f" EXCLUDE ({', '.join(dropped)})" if dropped else ""
        return con.execute(f"SELECT *{exclude} FROM {name}").to_arrow_table()
    finally:
        con.close()


def differences(a: pa.Table, b: pa.Table) -> tuple[int, int]:
    """Rows of ``a`` not in ``b`` and rows of ``b`` not in ``a``, counted as multisets."""
    con = duckdb.connect(":memory:")
    try:
        con.register("a", a)
        con.register("b", b)
        only_a = con.execute("SELECT count(*) FROM (SELECT * FROM a EXCEPT ALL SELECT * FROM b)").fetchone()
        only_b = con.execute("SELECT count(*) FROM (SELECT * FROM b EXCEPT ALL SELECT * FROM a)").fetchone()
        assert only_a is not None and only_b is not None
        return int(only_a[0]), int(only_b[0])
    finally:
        con.close()


def check_store(root: Path) -> None:
    """Refuse a folder without a published ``raw_events`` table: every table of it would read as
    empty, and two such folders as the same."""
    if not (StoreLayout(root).table_path("raw_events") / "_delta_log").is_dir():
        raise SystemExit(f"{root}: not a store a pipeline has run on (no raw_events table)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    args = parser.parse_args()
    check_store(args.a)
    check_store(args.b)
    same = True
    for name in ALL_TABLES:
        a, b = table_rows(args.a, name), table_rows(args.b, name)
        only_a, only_b = differences(a, b) if a.schema == b.schema else (a.num_rows, b.num_rows)
        equal = a.schema == b.schema and a.num_rows == b.num_rows and only_a == only_b == 0
        same = same and equal
        print(f"{'same' if equal else 'DIFFERENT':9} {name}: {a.num_rows} / {b.num_rows} rows"
              + ("" if equal else f", {only_a} only in A, {only_b} only in B"))
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
