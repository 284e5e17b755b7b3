"""The luck step's sums kept per match (``luck_statistics``) and their totals (``luck_totals``),
so a run's cost follows the new data.

``scoring.luck`` computes ``luck_model`` and ``player_luck`` from exact integer sums per match and
per match and player (``scoring.luck.statistics``), added up per player and hold-out
(``scoring.luck.statistics_totals``). The step keeps the per-match rows with the digest of the
match's ``matches`` row (every column, ``revision`` and ``n_events`` among them: a match is
replayed once per revision, so its row stands for its deals, hands and tributes, as in
``pipelines.steps.scoring_parts``), and the totals with the ``luck_statistics`` version they add up.

A run reads the kept rows' match ids and digests only; computes the sums of the matches whose
digest is new or changed, reading only their rows; replaces the rows of the matches changed or
gone (a match excluded as a duplicate, a retracted one) and appends the new ones
(``Store.replace_rows``: the files touched, not the table); and updates the totals by adding the
new sums and taking away the replaced ones. The sums are integers, so the totals do not depend
on which runs added them: the tables are those of computing every match at once.

The kept rows are used only when every match's is of this :data:`SCHEME`; otherwise, or with no
rows, every match is computed (``statistics: whole`` in the step's report, else ``added``). The
totals are used only when they are of this scheme and of the ``luck_statistics`` version the
store holds; otherwise (a run stopped between the two writes, ``gdan maintain`` compacted the
rows, the totals were deleted) they are added up again from every kept row.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from pipelines.steps import partitions
from pipelines.storage.delta import of_matches
from pipelines.storage.store import Store
from schemas.catalog import ALL_TABLES
from scoring.frames import typed_table

TABLE = "luck_statistics"
TOTALS = "luck_totals"
SCHEME = f"luck-1/{partitions.SCHEME}"
"""How the sums and digests are computed: bump the number when ``scoring.luck.statistics`` or its
features change what they compute."""


@dataclass(frozen=True)
class Plan:
    """What a run does: the matches it computes and the matches whose kept rows it replaces."""

    todo: list[str]
    """New or changed matches, in id order: their sums are computed."""
    gone: list[str]
    """Matches whose kept rows are taken away: changed, or no longer scored."""
    whole: bool
    """Every match is computed and the kept rows, if any, are not used."""


def match_digests(matches: pl.DataFrame) -> pl.DataFrame:
    """Per scored match (``match_id``), the digest of its ``matches`` row (``digest``)."""
    keyed = matches.with_columns(pl.col("match_id").alias(partitions.PART))
    return partitions.digests(keyed).select(pl.col(partitions.PART).alias("match_id"),
                                            pl.col(partitions.DIGEST).alias("digest"))


def plan(store: Store, now: pl.DataFrame) -> Plan:
    """The matches to compute (new or changed) and those whose kept rows go (changed or gone),
    from the kept team rows' ids and digests; every match when those rows cannot be used."""
    every = now["match_id"].sort().to_list()
    if not store.has_data(TABLE):
        return Plan(every, [], whole=True)
    keys = _frame(store.read_table(TABLE, ["match_id", "digest", "scheme"], pc.field("player_id").is_null()))
    if keys.height == 0 or not (keys["scheme"] == SCHEME).all():
        return Plan(every, [], whole=True)
    keys = keys.select("match_id", "digest")
    todo = now.join(keys, on=["match_id", "digest"], how="anti")["match_id"].sort().to_list()
    gone = keys.join(now, on=["match_id", "digest"], how="anti")["match_id"].sort().to_list()
    return Plan(todo, gone, whole=False)


def with_digests(sums: pl.DataFrame, todo: list[str], now: pl.DataFrame) -> pl.DataFrame:
    """``scoring.luck.statistics`` rows of the matches ``todo`` with their match's digest and
    :data:`SCHEME`, in the table's columns; a match without a team row (no deal with all four
    hands known) gets a row of zeros, so that it is not computed again on the next run."""
    from scoring.luck import empty_sums

    missing = sorted(set(todo) - set(sums["match_id"].to_list()))
    both = pl.concat([sums, empty_sums(missing)], how="vertical_relaxed") if missing else sums
    schema = _frame(ALL_TABLES[TABLE].empty_table()).schema
    return (both.join(now, on="match_id", how="left", maintain_order="left")
            .with_columns(scheme=pl.lit(SCHEME)).select(schema.names()).cast(schema))


def update(store: Store, plan: Plan, fresh: Iterable[pl.DataFrame]) -> pl.DataFrame:
    """Write the ``fresh`` rows of ``plan``, given chunk by chunk in match id order (the whole
    table, or in place of the rows of ``plan.gone``) and the totals of every kept row; returns
    those totals.

    Computing every match, each chunk is added to the totals and kept as Arrow as it comes, so
    the chunks' frames and their totals are never all in memory at once (the 1M store's first
    luck step peaked 1.4 GiB above its start, docs/performance.md)."""
    from scoring.luck import statistics_totals

    before = None if plan.whole else _stored_totals(store)
    if plan.whole:
        schema = ALL_TABLES[TABLE]
        parts, chunk_totals = [], []
        for rows in fresh:
            if rows.height:
                parts.append(rows.sort("match_id", "player_id", nulls_last=False).to_arrow().cast(schema))
            chunk_totals.append(statistics_totals((rows, 1)))
        store.write_table(TABLE, pa.concat_tables(parts) if parts else schema.empty_table())
        totals = statistics_totals(*((part, 1) for part in chunk_totals))
    else:
        new = pl.concat(list(fresh), how="vertical_relaxed")
        if before is not None:
            removed = (_frame(store.read_table(TABLE, where=of_matches(plan.gone))) if plan.gone
                       else new.clear())
            _replace(store, plan, new)
            totals = statistics_totals((before, 1), (removed, -1), (new, 1))
        else:
            _replace(store, plan, new)
            totals = statistics_totals((_frame(store.read_table(TABLE)), 1))
    version = store.version(TABLE)
    assert version is not None
    kept = totals.with_columns(scheme=pl.lit(SCHEME), of_version=pl.lit(version, pl.Int64))
    store.write_table(TOTALS, typed_table(kept, ALL_TABLES[TOTALS]))
    return totals


def _replace(store: Store, plan: Plan, fresh: pl.DataFrame) -> None:
    """Replace the kept rows of ``plan.gone`` by ``fresh`` (nothing when there is neither)."""
    if plan.gone or fresh.height:
        store.replace_rows(TABLE, "match_id", plan.gone, typed_table(fresh, ALL_TABLES[TABLE]))


def _stored_totals(store: Store) -> pl.DataFrame | None:
    """The kept totals when they are of this :data:`SCHEME` and of the ``luck_statistics``
    version the store holds, else None."""
    if not store.has_data(TOTALS):
        return None
    totals = _frame(store.read_table(TOTALS))
    usable = (totals.height > 0 and (totals["scheme"] == SCHEME).all()
              and (totals["of_version"] == store.version(TABLE)).all())
    return totals if usable else None


def _frame(table: pa.Table) -> pl.DataFrame:
    out = pl.from_arrow(table)
    assert isinstance(out, pl.DataFrame)
    return out
