"""Polars frames with the exact column types of an Arrow schema from ``schemas``, and back."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl
import pyarrow as pa


def frame(rows: Sequence[dict[str, Any]], schema: pa.Schema) -> pl.DataFrame:
    """A polars frame of ``rows`` typed and ordered as ``schema`` (empty rows: an empty typed frame).

    Going through Arrow keeps the Parquet files identical to the contract in ``schemas/``.
    """
    table = pa.Table.from_pylist(list(rows), schema=schema) if rows else schema.empty_table()
    out = pl.from_arrow(table)
    assert isinstance(out, pl.DataFrame)
    return out


def typed_table(rows: pl.DataFrame, schema: pa.Schema) -> pa.Table:
    """``rows`` as an Arrow table of ``schema`` in one chunk, in their order (an empty frame,
    typed or not: the schema's empty table). What a step writes, and what reading it back gives."""
    return rows.rechunk().to_arrow().cast(schema) if rows.height else schema.empty_table()
