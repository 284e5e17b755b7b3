"""Typed rows and columns (``replay.rows``) to Arrow tables of the ``schemas.tables`` schemas. The only replay
module that loads pyarrow: ``replay.batch.replay_batch`` imports it when it runs, so ``import replay``
stays light.

On import, every row type is checked against its table's schema: the same column names, each
field mapped to its column by name (:data:`COLUMN_FIELDS`), so a field added, dropped or renamed
on one side only fails at once instead of writing a column into another.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from replay import native
from replay.rows import ROW_FIELDS, PlayColumns, PlayTable, Row
from schemas.tables import DERIVED

__all__ = ["COLUMN_FIELDS", "DERIVED", "columns_to_table", "plays_to_table", "rows_to_table"]


def _column_fields(name: str, schema: pa.Schema) -> tuple[int, ...]:
    """For each column of ``schema``, the index of the field of that name in the table's row type."""
    fields = ROW_FIELDS[name]
    missing = [c for c in schema.names if c not in fields]
    extra = [f for f in fields if f not in schema.names]
    if missing or extra or len(fields) != len(schema.names):
        raise TypeError(
            f"replay.rows: the {name} row type does not match schemas.tables: "
            f"columns without a field {missing}, fields without a column {extra}"
        )
    return tuple(fields.index(c) for c in schema.names)


COLUMN_FIELDS: dict[str, tuple[int, ...]] = {name: _column_fields(name, s) for name, s in DERIVED.items()}
"""Per derived table, the row-type field index of each schema column, in schema order."""


_BUFFERS = native.core("_replay")


def _array(values: Sequence[Any], type_: pa.DataType) -> pa.Array:
    """``pa.array(values, type=type_)``; where the Cython buffers are built and in use
    (``replay.native.core``), their :func:`column`, the same array built in C for strings, lists
    of strings and times."""
    if _BUFFERS is None:
        return pa.array(values, type=type_)
    array: pa.Array = _BUFFERS.column(values, type_)
    return array


def rows_to_table(name: str, rows: Sequence[Row]) -> pa.Table:
    """Rows of table ``name`` to a table of its schema: one transpose, then :func:`columns_to_table`."""
    columns = list(zip(*rows, strict=True)) if rows else [() for _ in ROW_FIELDS[name]]
    return columns_to_table(name, columns)


def columns_to_table(name: str, columns: Sequence[Sequence[Any]]) -> pa.Table:
    """Columns of table ``name``, in its row type's field order, to a table of its schema: one
    array per column."""
    schema = DERIVED[name]
    arrays = [_array(columns[i], f.type) for i, f in zip(COLUMN_FIELDS[name], schema, strict=True)]
    return pa.Table.from_arrays(arrays, schema=schema)


def plays_to_table(plays: PlayTable) -> pa.Table:
    """The ``plays`` rows to a table of its schema: :class:`~replay.rows.PlayColumns` column by
    column through :func:`columns_to_table`; the Cython buffers (``replay._replay.PlayBuffer``)
    build their arrays themselves, from typed buffers, for the schema's columns by name."""
    schema = DERIVED["plays"]
    if isinstance(plays, PlayColumns):
        return columns_to_table("plays", plays.columns())
    arrays: list[pa.Array] = plays.arrays(schema)  # type: ignore[attr-defined]
    return pa.Table.from_arrays(arrays, schema=schema)
