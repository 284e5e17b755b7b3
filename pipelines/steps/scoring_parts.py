"""``match_scores``, ``standings`` and ``duplicate_results`` recomputed partition by partition.

``scoring.round_scores.score_matches`` scores each match from its own row, deals and rulings and
its event's parameters; the bye rows it infers (``bye_rows``) depend on the matches of one
``(event_id, stage)``. So a match with an event belongs to the partition of its event stage and a
match without one is a partition of its own: the partition's ``match_scores`` rows depend on its
matches alone. ``scoring.standings.standings`` ranks each ``(event_id, stage)`` from that stage's
``match_scores`` rows, its parameters and its matches' winners; ``scoring.duplicate``'s
``duplicate_results`` compares the rooms (matches of a duplicate board) of one event stage. The
steps digest their inputs per partition (``pipelines.steps.partitions``), recompute the partitions
whose digest changed and keep the stored rows of the others, in the row order a whole recompute
gives.

A match's digest is its ``matches`` row (every column, ``revision`` and ``n_events`` among them):
a match is replayed once per revision, so its row stands for its deals, which are therefore read
only for the matches of recomputed partitions. Its ``rulings`` rows are digested too (a small
table), as are the scoring parameters its rows are scored with (an event's override, the
ruleset's built-in values). A change to the scoring code itself is not seen: bump
``pipelines.steps.partitions.SCHEME`` with it, as ``TABLES_VERSION`` with a schema. Matches excluded
as duplicates are not among the inputs (``pipelines.steps.scoring_steps``), so excluding one changes
its partition's digest.

Digests do not depend on the order of the rows (``pipelines.steps.partitions``), since the store does
not fix it. ``bye_rows`` takes a bye's ``rules`` from the first match of its stage in the order
given, so for a stage whose matches were played under different rulesets a kept bye row may name
another of them than a whole recompute in another row order would; every other value is the same.
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from pipelines.steps.partitions import PART, combine, digests, empty
from pipelines.storage.store import Store
from scoring.params import ScoringParams

Overrides = Mapping[str, ScoringParams]
"""Per-event scoring parameters by event id (as ``pipelines.steps.scoring_steps.Overrides``)."""


def partition_of() -> pl.Expr:
    """Each row's partition: its ``(event_id, stage)``, or its ``match_id`` without an event."""
    event = pl.col("event_id").is_not_null()
    return (pl.when(event).then(pl.struct("event_id", "stage").struct.json_encode())
            .otherwise(pl.struct("match_id").struct.json_encode()).alias(PART))


def stage_of() -> pl.Expr:
    """Each row's ``(event_id, stage)`` partition (standings and duplicate results are per stage)."""
    return pl.struct("event_id", "stage").struct.json_encode().alias(PART)


def with_params(keyed: pl.DataFrame, overrides: Overrides | None) -> pl.DataFrame:
    """``keyed`` with column ``_params``: the text of the scoring parameters each row is scored
    with (``scoring.params.params_for`` of its ``rules`` and ``event_id``), so that a changed
    override, or built-in parameters changed in the code, change its partition's digest."""
    from scoring.params import params_for

    overridden = pl.Series(list(overrides or {}), dtype=pl.String)
    keyed = keyed.with_columns(
        _event=pl.when(pl.col("event_id").is_in(overridden.implode())).then(pl.col("event_id")))
    keys = keyed.select("rules", "_event").unique()
    known = [repr(params_for(rules or "national", overrides, event)) for rules, event in keys.iter_rows()]
    texts = keys.with_columns(_params=pl.Series(known, dtype=pl.String))
    return keyed.join(texts, on=["rules", "_event"], how="left", nulls_equal=True,
                      maintain_order="left").drop("_event")


def score_digests(matches: pl.DataFrame, rulings: pl.DataFrame | None,
                  overrides: Overrides | None) -> pl.DataFrame:
    """Per ``match_scores`` partition, the digest of its matches, their rulings and its override."""
    keyed = matches.with_columns(partition_of())
    of_matches = digests(with_params(keyed, overrides))
    ruled = empty()
    if rulings is not None and not rulings.is_empty():
        keys = keyed.select("match_id", PART)
        ruled = digests(rulings.join(keys, on="match_id", how="inner", maintain_order="left"))
    return combine(of_matches, ruled)


def kept(stored: pl.DataFrame, partition: pl.Expr, now: pl.DataFrame, todo: set[str]) -> pl.DataFrame:
    """The ``stored`` rows of the partitions (``partition``: each row's, as :func:`partition_of` or
    :func:`stage_of`) still in ``now`` and not in ``todo``: the rows a run keeps."""
    keep = now.filter(~pl.col(PART).is_in(sorted(todo)))[PART]
    return stored.with_columns(partition).filter(pl.col(PART).is_in(keep.implode())).drop(PART)


def rows_of(store: Store, name: str, match_ids: list[str]) -> pl.DataFrame:
    """The rows of table ``name`` of the given matches only, typed by its schema.

    Each Parquet file's ``match_id`` column is read first, and only a file holding one of the
    matches is read further, so the cost is one column of the table plus the files of those
    matches (the files' min/max statistics do not prune: match ids of a batch span the range).
    """
    from schemas.catalog import ALL_TABLES

    schema = ALL_TABLES[name]
    wanted = pa.array(sorted(set(match_ids)), pa.string())
    dataset = store.dataset(name) if match_ids else None
    parts = [schema.empty_table()]
    for fragment in dataset.get_fragments() if dataset is not None else ():
        ids = fragment.to_table(columns=["match_id"])["match_id"].cast(pa.string())
        hit = pc.is_in(ids, value_set=wanted)
        if pc.any(hit).as_py():
            parts.append(fragment.to_table(columns=schema.names).cast(schema).filter(hit))
    out = pl.from_arrow(pa.concat_tables(parts))
    assert isinstance(out, pl.DataFrame)
    return out


def in_whole_order(scores: pl.DataFrame, matches: pl.DataFrame) -> pl.DataFrame:
    """``match_scores`` rows in the order ``score_matches`` gives over ``matches``: each match's
    rows in the matches' order (sides as they are), then the byes by the first match of their
    event stage and by round."""
    position = matches.select("match_id").with_row_index("_pos").unique("match_id", keep="first",
                                                                         maintain_order=True)
    played = scores.filter(pl.col("match_id").is_not_null()).join(
        position, on="match_id", how="left", maintain_order="left").sort("_pos", maintain_order=True)
    byes = scores.filter(pl.col("match_id").is_null())
    if byes.is_empty():
        return played.drop("_pos")
    firsts = (played.filter(pl.col("event_id").is_not_null() & pl.col("round").is_not_null())
              .group_by("event_id", "stage").agg(pl.col("_pos").min().alias("_first")))
    byes = byes.join(firsts, on=["event_id", "stage"], how="left", nulls_equal=True,
                     maintain_order="left").sort("_first", "round", maintain_order=True).drop("_first")
    return pl.concat([played.drop("_pos"), byes], how="vertical_relaxed")


def standings_in_whole_order(table: pl.DataFrame) -> pl.DataFrame:
    """``standings`` rows stage by stage in the order ``standings`` gives (by event id, then
    stage, nulls last; each stage's rows as ranked)."""
    return table.sort("event_id", "stage", nulls_last=True, maintain_order=True)


RESULTS_ORDER = ("event_id", "stage", "board", "deal_no", "direction", "room")
"""The sort key of ``duplicate_results`` (``scoring.duplicate.duplicate_results``; nulls as "")."""


def results_in_whole_order(table: pl.DataFrame) -> pl.DataFrame:
    """``duplicate_results`` rows in the order ``duplicate_results`` gives."""
    text = [c for c in RESULTS_ORDER if table.schema[c] == pl.String]
    keys = [pl.col(c).fill_null("") if c in text else pl.col(c) for c in RESULTS_ORDER]
    return table.sort(keys, maintain_order=True)
