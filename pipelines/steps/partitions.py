"""Per-partition digests of a scoring table's inputs: a run recomputes only the partitions whose
inputs changed and keeps the other partitions' rows (cost proportional to new data).

A partitioned table (``match_scores``, ``standings``) is a concatenation of independent parts:
each partition's rows depend only on that partition's input rows (the pure functions in
``scoring`` are per event stage, or per match for a match without an event). The digest of a
partition is a hash of its input rows (of their row hashes, in sorted order: the store does
not fix the order of a table's rows, and the same rows delivered in other runs give the same
digest), the parameters that apply to it among them (a column of the rows). The digests are stored in
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

import polars as pl

from pipelines.storage.store import Store
from schemas.catalog import ALL_TABLES
from scoring.frames import typed_table

TABLE = "scoring_partitions"
SCHEME = f"4/polars-{pl.__version__}"
"""How digests are computed, and the version of the scoring code they stand for: a stored digest
of another scheme (or polars, whose hashes it relies on: they are stable within one version
only) is not compared. Bump the number
when ``scoring``'s functions of a partitioned table change what they compute."""
PART = "_partition"
"""The column naming each input row's partition while digesting."""


DIGEST = "_digest"
"""The column of a partition's digest in a frame of digests: one row per partition (column
:data:`PART`), as :func:`digests`, :func:`combine` and :func:`stored` give them."""

SEEDS = (0x6764616E, 0x6C656E73)
"""The two seeds of a digest's two 64-bit polars hashes (128 bits: a changed partition keeps its
old digest with a chance of 2⁻¹²⁸)."""


def _hashed(first: pl.Expr, second: pl.Expr) -> pl.Expr:
    """The digest of each row from its two 64-bit hashes, as text."""
    return pl.concat_str([first, second], separator="-").alias(DIGEST)


def empty() -> pl.DataFrame:
    """A frame of no digests."""
    return pl.DataFrame(schema={PART: pl.String, DIGEST: pl.String})


def of(partition: str, digest: str) -> pl.DataFrame:
    """The frame of one partition's digest."""
    return pl.DataFrame({PART: [partition], DIGEST: [digest]}, schema=empty().schema)


def lookup(frame: pl.DataFrame, partition: str) -> str | None:
    """The digest ``frame`` holds for ``partition``, if any."""
    found = frame.filter(pl.col(PART) == partition)[DIGEST]
    return found[0] if found.len() else None


def digests(inputs: pl.DataFrame) -> pl.DataFrame:
    """Per partition (column :data:`PART` of ``inputs``), the digest of its rows, whatever their
    order: the hash of the sorted hashes of its rows' other columns."""
    if inputs.is_empty():
        return empty()
    body = inputs.drop(PART)
    hashed = pl.DataFrame({PART: inputs[PART].cast(pl.String), "_h0": body.hash_rows(seed=SEEDS[0]),
                           "_h1": body.hash_rows(seed=SEEDS[1])})
    per = hashed.group_by(PART).agg(pl.col("_h0").sort(), pl.col("_h1").sort())
    return per.select(PART, _hashed(pl.col("_h0").hash(seed=SEEDS[0]), pl.col("_h1").hash(seed=SEEDS[1])))


def table_digest(rows: pl.DataFrame) -> str:
    """A SHA-256 of a table's rows, whatever their order (of their sorted row hashes)."""
    if not rows.height:
        return hashlib.sha256(b"").hexdigest()
    hashes = pl.DataFrame({f"h{i}": rows.hash_rows(seed=seed) for i, seed in enumerate(SEEDS)})
    return hashlib.sha256(hashes.sort("h0", "h1").to_numpy().tobytes()).hexdigest()


def combine(*parts: pl.DataFrame) -> pl.DataFrame:
    """One digest per partition of several inputs' digests (a partition missing from one input
    has no rows there)."""
    if not parts:
        return empty()
    tagged = [p.select(PART, pl.col(DIGEST).alias(f"_d{i}")) for i, p in enumerate(parts)]
    keys = pl.concat([t.select(PART) for t in tagged]).unique()
    for frame in tagged:
        keys = keys.join(frame, on=PART, how="left")
    text = pl.concat_str([pl.col(f"_d{i}").fill_null("") for i in range(len(tagged))], separator="|")
    return keys.select(PART, _hashed(text.hash(seed=SEEDS[0]), text.hash(seed=SEEDS[1])))


def changed(now: pl.DataFrame, before: pl.DataFrame) -> set[str]:
    """The partitions of ``now`` whose digest is not the one ``before`` holds."""
    return set(now.join(before, on=[PART, DIGEST], how="anti")[PART].to_list())


def _read(store: Store, name: str) -> pl.DataFrame:
    out = pl.from_arrow(store.read_table(name))
    assert isinstance(out, pl.DataFrame)
    return out


def stored(store: Store, table: str, rows: pl.DataFrame) -> pl.DataFrame | None:
    """The digests stored for ``table`` if they describe its stored ``rows``, else None
    (recompute ``table`` whole)."""
    if not store.has_data(TABLE):
        return None
    mine = _read(store, TABLE).filter(pl.col("table") == table)
    if mine.is_empty() or (mine["scheme"] != SCHEME).any():
        return None
    if (mine["table_digest"] != table_digest(rows)).any():
        return None
    return mine.select(pl.col("partition").alias(PART), pl.col("digest").alias(DIGEST))


def save(store: Store, table: str, current: pl.DataFrame, rows: pl.DataFrame) -> None:
    """Store ``current`` as ``table``'s digests, describing ``rows``, the rows it holds now (just
    written), typed as the store reads them (``scoring.frames.typed_table``)."""
    whole = table_digest(rows)
    others = _read(store, TABLE).filter(pl.col("table") != table) if store.has_data(TABLE) else None
    mine = current.select(pl.lit(table).alias("table"), pl.col(PART).alias("partition"),
                          pl.col(DIGEST).alias("digest"), pl.lit(SCHEME).alias("scheme"),
                          pl.lit(whole).alias("table_digest"))
    rows = mine if others is None else pl.concat([others, mine])
    store.write_table(TABLE, typed_table(rows.sort("table", "partition"), ALL_TABLES[TABLE]))
