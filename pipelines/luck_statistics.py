"""The luck step's sums kept per match (``luck_statistics``), so a run's cost follows the new data
(issue 17).

``scoring.luck`` computes ``luck_model`` and ``player_luck`` from exact integer sums per match and
per match and player (``scoring.luck.statistics``). The step keeps those rows with the digest of
the match's ``matches`` row (every column, ``revision`` and ``n_events`` among them: a match is
replayed once per revision, so its row stands for its deals, hands and tributes, as in
``pipelines.scoring_parts``). A run computes the sums of the matches whose digest is new or
changed, reading only their rows; drops those of matches gone (a match excluded as a duplicate, a
retracted one); keeps the others; and refits from the total. The sums are integers, so their total
does not depend on which runs added them: the tables are those of computing every match at once.

The stored rows are used only when every one is of this :data:`SCHEME`; otherwise, or with no
rows, every match is computed (``statistics: whole`` in the step's report, else ``added``).
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from pipelines import partitions
from pipelines.store import Store
from schemas.catalog import ALL_TABLES

TABLE = "luck_statistics"
SCHEME = f"luck-1/{partitions.SCHEME}"
"""How the sums and digests are computed: bump the number when ``scoring.luck.statistics`` or its
features change what they compute."""


@dataclass(frozen=True)
class Plan:
    """What a run does: the stored rows it keeps and the matches it computes."""

    kept: pl.DataFrame
    todo: list[str]
    whole: bool


def match_digests(matches: pl.DataFrame) -> dict[str, str]:
    """Per scored match, the SHA-256 of its ``matches`` row."""
    return partitions.digests(matches.with_columns(pl.col("match_id").alias(partitions.PART)))


def stored(store: Store) -> pl.DataFrame | None:
    """The stored sums if there are any and all are of this :data:`SCHEME`, else None."""
    if not store.has_data(TABLE):
        return None
    rows = pl.from_arrow(store.read_table(TABLE))
    assert isinstance(rows, pl.DataFrame)
    return rows if rows.height and (rows["scheme"] == SCHEME).all() else None


def plan(store: Store, now: dict[str, str]) -> Plan:
    """The stored rows of the matches whose digest is unchanged, and the matches to compute (new
    or changed, in id order); every match when the stored rows cannot be used."""
    rows = stored(store)
    if rows is None:
        return Plan(pl.DataFrame(schema=_polars_schema()), sorted(now), whole=True)
    current = pl.DataFrame({"match_id": list(now), "digest": list(now.values())},
                           schema={"match_id": pl.String, "digest": pl.String})
    kept = rows.join(current, on=["match_id", "digest"], how="semi", maintain_order="left")
    done = set(kept["match_id"].to_list())
    return Plan(kept, sorted(m for m in now if m not in done), whole=False)


def with_digests(sums: pl.DataFrame, todo: list[str], now: dict[str, str]) -> pl.DataFrame:
    """``scoring.luck.statistics`` rows of the matches ``todo`` with their match's digest and
    :data:`SCHEME`, in the table's columns; a match without a team row (no deal with all four
    hands known) gets a row of zeros, so that it is not computed again on the next run."""
    from scoring.luck import empty_sums

    missing = sorted(set(todo) - set(sums["match_id"].to_list()))
    both = pl.concat([sums, empty_sums(missing)], how="vertical_relaxed") if missing else sums
    return both.with_columns(
        digest=pl.col("match_id").replace_strict(now, return_dtype=pl.String),
        scheme=pl.lit(SCHEME),
    ).select(ALL_TABLES[TABLE].names)


def merged(kept: pl.DataFrame, fresh: pl.DataFrame) -> pl.DataFrame:
    """The table's rows: kept and fresh, by match and player (null first), one chunk (the same rows
    give the same bytes)."""
    both = pl.concat([kept.select(ALL_TABLES[TABLE].names), fresh], how="vertical_relaxed")
    return both.sort("match_id", "player_id", nulls_last=False).rechunk()


def save(store: Store, rows: pl.DataFrame) -> None:
    """Replace ``luck_statistics`` by ``rows``."""
    schema = ALL_TABLES[TABLE]
    store.write_table(TABLE, rows.to_arrow().cast(schema) if rows.height else schema.empty_table())


def _polars_schema() -> pl.Schema:
    """The table's columns as polars types (for an empty frame)."""
    empty = pl.from_arrow(ALL_TABLES[TABLE].empty_table())
    assert isinstance(empty, pl.DataFrame)
    return empty.schema
