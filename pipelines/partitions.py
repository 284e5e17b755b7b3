"""Per-partition digests of a scoring table's inputs: a run recomputes only the partitions whose
inputs changed and keeps the other partitions' rows (issue 17, cost proportional to new data).

A partitioned table (``match_scores``, ``standings``) is a concatenation of independent parts:
each partition's rows depend only on that partition's input rows (the pure functions in
``scoring`` are per event stage, or per match for a match without an event). The digest of a
partition is a SHA-256 of its input rows (each row JSON-encoded, in sorted order: the store does
not fix the order of a table's rows, and the same rows delivered in other runs give the same
digest) and of the parameters that apply to it. The digests are stored in
``scoring_partitions`` with ``table_digest``, a hash of the rows of the table they describe
(sorted likewise). A run compares: an equal digest keeps the stored rows, any other partition is
recomputed, a partition gone is dropped. The stored digests count only when the table's rows
are still the ones they describe and they are of this :data:`SCHEME` (else, say after a run
killed between the two writes, or a table written by something else, the table is recomputed
whole), so what is kept is always what a whole recompute gives. Every column is a function of
the data alone, so two stores of the same matches hold the same rows whatever runs built them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

import polars as pl

from pipelines.store import Store
from schemas.catalog import ALL_TABLES

TABLE = "scoring_partitions"
SCHEME = f"1/polars-{pl.__version__}"
"""How digests are computed, and the version of the scoring code they stand for: a stored digest
of another scheme (or polars, whose JSON encoding it relies on) is not compared. Bump the number
when ``scoring``'s functions of a partitioned table change what they compute."""
PART = "_partition"
"""The column naming each input row's partition while digesting."""


def _encoded(frame: pl.DataFrame) -> pl.Expr:
    """Each row of ``frame`` but :data:`PART` as JSON text."""
    return pl.struct([c for c in frame.columns if c != PART]).struct.json_encode().alias("_row")


def digests(inputs: pl.DataFrame, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """Per partition (column :data:`PART` of ``inputs``), the SHA-256 of its rows (in sorted
    order) and of ``extra[partition]`` (its parameters, say)."""
    if inputs.is_empty():
        return {}
    encoded = (inputs.select(pl.col(PART), _encoded(inputs)).group_by(PART)
               .agg(pl.col("_row").sort().str.join("\n")))
    out = {}
    for part, rows in encoded.iter_rows():
        text = f"{(extra or {}).get(part, '')}\n{rows}"
        out[part] = hashlib.sha256(text.encode()).hexdigest()
    return out


def table_digest(rows: pl.DataFrame) -> str:
    """The SHA-256 of a table's rows, in sorted order."""
    lines = rows.select(_encoded(rows))["_row"].sort().str.join("\n").item() if rows.height else ""
    return hashlib.sha256(lines.encode()).hexdigest()


def combine(*parts: Mapping[str, str]) -> dict[str, str]:
    """One digest per partition of several inputs' digests (a partition missing from one input
    has no rows there)."""
    keys = sorted({k for p in parts for k in p})
    return {k: hashlib.sha256("|".join(p.get(k, "") for p in parts).encode()).hexdigest() for k in keys}


def _read(store: Store, name: str) -> pl.DataFrame:
    out = pl.from_arrow(store.read_table(name))
    assert isinstance(out, pl.DataFrame)
    return out


def stored(store: Store, table: str, rows: pl.DataFrame) -> dict[str, str] | None:
    """The digests stored for ``table`` if they describe its stored ``rows``, else None
    (recompute ``table`` whole)."""
    if not store.has_data(TABLE):
        return None
    mine = _read(store, TABLE).filter(pl.col("table") == table)
    if mine.is_empty() or (mine["scheme"] != SCHEME).any():
        return None
    if (mine["table_digest"] != table_digest(rows)).any():
        return None
    return dict(zip(mine["partition"].to_list(), mine["digest"].to_list(), strict=True))


def save(store: Store, table: str, current: Mapping[str, str]) -> None:
    """Store ``current`` as ``table``'s digests, describing the rows it holds now (just written)."""
    whole = table_digest(_read(store, table))
    others = _read(store, TABLE).filter(pl.col("table") != table) if store.has_data(TABLE) else None
    mine = pl.DataFrame(
        {"table": [table] * len(current), "partition": list(current), "digest": list(current.values()),
         "scheme": [SCHEME] * len(current), "table_digest": [whole] * len(current)},
        schema={name: pl.String for name in ALL_TABLES[TABLE].names},
    )
    rows = mine if others is None else pl.concat([others, mine])
    ordered = rows.sort("table", "partition").rechunk()  # one chunk: the same rows, the same bytes
    store.write_table(TABLE, ordered.to_arrow().cast(ALL_TABLES[TABLE]))
