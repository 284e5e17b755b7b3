"""Derived rows to Arrow tables of the ``schemas.tables`` schemas: the only replay module that loads
pyarrow, imported by ``replay.batch.replay_batch`` when it runs, so ``import replay`` stays light."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from schemas.tables import DERIVED

__all__ = ["DERIVED", "rows_to_table", "tuples_to_table"]


def rows_to_table(rows: list[dict[str, Any]], schema: pa.Schema) -> pa.Table:
    """Rows to a table of ``schema``, column by column (faster than ``Table.from_pylist``)."""
    columns = [pa.array([r.get(f.name) for r in rows], type=f.type) for f in schema]
    return pa.Table.from_arrays(columns, schema=schema)


def tuples_to_table(rows: Sequence[tuple[Any, ...]], schema: pa.Schema) -> pa.Table:
    """Row tuples in ``schema`` column order to a table: one transpose, then one array per column."""
    columns = list(zip(*rows, strict=True)) if rows else [() for _ in schema]
    arrays = [pa.array(col, type=f.type) for col, f in zip(columns, schema, strict=True)]
    return pa.Table.from_arrays(arrays, schema=schema)
