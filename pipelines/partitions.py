"""Per-partition digests of a scoring table's inputs: a run recomputes only the partitions whose
inputs changed and keeps the other partitions' rows (issue 17, cost proportional to new data).

A partitioned table (``match_scores``, ``standings``) is a concatenation of independent parts:
each partition's rows depend only on that partition's input rows (the pure functions in
``scoring`` are per event stage, or per match for a match without an event). The digest of a
partition is a SHA-256 of its input rows (each row JSON-encoded, in sorted order: the store does
not fix the order of a table's rows, and the same rows delivered in other runs give the same
digest) and of the parameters that apply to it. The digests are stored in
``scoring_partitions`` with ``table_digest``, a hash of the rows of the table they describe
(of their sorted row hashes). A run compares: an equal digest keeps the stored rows, any other partition is
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
SCHEME = f"2/polars-{pl.__version__}"
"""How digests are computed, and the version of the scoring code they stand for: a stored digest
of another scheme (or polars, whose JSON encoding and hashes it relies on: they are stable within
one version only) is not compared. Bump the number
when ``scoring``'s functions of a partitioned table change what they compute."""
PART = "_partition"
"""The column naming each input row's partition while digesting."""


def _encoded(frame: pl.DataFrame) -> pl.Expr:
    """Each row of ``frame`` but :data:`PART` as JSON text."""
    return pl.struct([c for c in frame.columns if c != PART]).struct.json_encode().alias("_row")


SEEDS = (0x6764616E, 0x6C656E73)
"""The two seeds of a digest's two 64-bit polars hashes (128 bits: a changed partition keeps its
old digest with a chance of 2⁻¹²⁸)."""


def _hashed(text: pl.Expr) -> pl.Expr:
    """The digest of each string of ``text``: its two seeded hashes, as text."""
    return pl.concat_str([text.hash(seed=SEEDS[0]), text.hash(seed=SEEDS[1])], separator="-")


def _as_dict(frame: pl.DataFrame, column: str) -> dict[str, str]:
    return dict(zip(frame[PART].to_list(), frame[column].to_list(), strict=True))


def digests(inputs: pl.DataFrame, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """Per partition (column :data:`PART` of ``inputs``), the digest of its rows (in sorted order)
    and of ``extra[partition]`` (its parameters, say)."""
    if inputs.is_empty():
        return {}
    joined = (inputs.select(pl.col(PART), _encoded(inputs)).group_by(PART)
              .agg(pl.col("_row").sort().str.join("\n")))
    if extra:
        texts = pl.DataFrame({PART: list(extra), "_extra": list(extra.values())},
                             schema={PART: joined.schema[PART], "_extra": pl.String})
        joined = joined.join(texts, on=PART, how="left")
    else:
        joined = joined.with_columns(_extra=pl.lit(None, pl.String))
    text = pl.concat_str([pl.col("_extra").fill_null(""), pl.col("_row")], separator="\n")
    return _as_dict(joined.select(PART, _hashed(text).alias("_digest")), "_digest")


def table_digest(rows: pl.DataFrame) -> str:
    """A SHA-256 of a table's rows, whatever their order (of their sorted row hashes)."""
    if not rows.height:
        return hashlib.sha256(b"").hexdigest()
    hashes = pl.DataFrame({f"h{i}": rows.hash_rows(seed=seed) for i, seed in enumerate(SEEDS)})
    return hashlib.sha256(hashes.sort("h0", "h1").to_numpy().tobytes()).hexdigest()


def combine(*parts: Mapping[str, str]) -> dict[str, str]:
    """One digest per partition of several inputs' digests (a partition missing from one input
    has no rows there)."""
    frames = [pl.DataFrame({PART: list(p), f"_d{i}": list(p.values())},
                           schema={PART: pl.String, f"_d{i}": pl.String}) for i, p in enumerate(parts)]
    if not frames:
        return {}
    keys = pl.concat([f.select(PART) for f in frames]).unique()
    for frame in frames:
        keys = keys.join(frame, on=PART, how="left")
    text = pl.concat_str([pl.col(f"_d{i}").fill_null("") for i in range(len(frames))], separator="|")
    return _as_dict(keys.select(PART, _hashed(text).alias("_digest")), "_digest")


def _read(store: Store, name: str) -> pl.DataFrame:
    out = pl.from_arrow(store.read_table(name))
    assert isinstance(out, pl.DataFrame)
    return out


def as_stored(table: str, rows: pl.DataFrame) -> pl.DataFrame:
    """``rows`` typed by ``table``'s schema, as reading them back from the store gives them (so
    their :func:`table_digest` is that of the stored rows without reading them)."""
    schema = ALL_TABLES[table]
    out = pl.from_arrow(rows.rechunk().to_arrow().cast(schema) if rows.height else schema.empty_table())
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


def save(store: Store, table: str, current: Mapping[str, str], rows: pl.DataFrame) -> None:
    """Store ``current`` as ``table``'s digests, describing ``rows``, the rows it holds now (just
    written), typed as the store reads them (:func:`as_stored`)."""
    whole = table_digest(rows)
    others = _read(store, TABLE).filter(pl.col("table") != table) if store.has_data(TABLE) else None
    mine = pl.DataFrame(
        {"table": [table] * len(current), "partition": list(current), "digest": list(current.values()),
         "scheme": [SCHEME] * len(current), "table_digest": [whole] * len(current)},
        schema={name: pl.String for name in ALL_TABLES[TABLE].names},
    )
    rows = mine if others is None else pl.concat([others, mine])
    ordered = rows.sort("table", "partition").rechunk()  # one chunk: the same rows, the same bytes
    store.write_table(TABLE, ordered.to_arrow().cast(ALL_TABLES[TABLE]))
