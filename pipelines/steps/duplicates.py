"""``duplicate_matches``: one match ingested twice under two ids, found by the content of its deals.

A log copied under a new match id (re-exported, renamed, merged twice) replays as a second,
valid match, and would count twice in ratings and dan points. Match ids cannot catch it, so the
deals are compared by content: a deal's fingerprint is the md5 of its dealt hands (each seat's
cards, sorted) and of its sequence of actions (seat, play or pass, cards; in seq order). Two
independent deals with the same 108-card deal and the same play are, in practice, impossible
(a duplicate-format board in its other room has the same hands but other plays), so a shared
fingerprint means a copy. Deals without a play or pass (results-only deals) are not compared:
their hands alone would match the other room of a duplicate board.

The earlier match (by ingest order: the first raw batch holding it, then match id) is the
original. A later match all of whose compared deals repeat deals of one earlier match is a copy:
``excluded``, and the scoring assets leave it out. A later match sharing only some deals is
listed, for a person to judge, and still scored. Both stay in ``raw_events`` and ``matches``.

The fingerprints are computed once per deal, when its match is replayed
(``pipelines.steps.fingerprints``, the ``deal_fingerprints`` table), so this step reads that small
table and the ingest order, not the store's plays.
"""

from __future__ import annotations

import polars as pl
import pyarrow as pa

from pipelines.steps.state import StoreState, batches_by_match
from schemas.tables import DUPLICATE_MATCHES


def ingest_order(state: StoreState) -> pl.DataFrame:
    """Each match's position in ingest order (``match_id``, ``order``): the index of the first
    committed batch holding it (the number of committed batches when none does)."""
    positions = pl.DataFrame({"batch": state.committed, "order": range(len(state.committed))},
                             schema={"batch": pl.String, "order": pl.Int64})
    held = batches_by_match(state.matches).explode("batches", empty_as_null=True).rename({"batches": "batch"})
    firsts = held.join(positions, on="batch", how="left").group_by("match_id", maintain_order=True).agg(
        pl.col("order").min())
    return firsts.with_columns(pl.col("order").fill_null(len(state.committed)))


def duplicate_matches(fingerprints: pa.Table, order: pl.DataFrame) -> pa.Table:
    """The ``duplicate_matches`` rows of the deals' ``fingerprints`` (``deal_fingerprints`` rows;
    see the module docs).

    ``order`` ranks matches by ingest order (:func:`ingest_order`); ties go by match id, and a
    match it does not rank comes after those it does.
    """
    deals = pl.from_arrow(fingerprints.select(["match_id", "deal_no", "fingerprint"]))
    assert isinstance(deals, pl.DataFrame)
    involved = deals.filter(pl.col("fingerprint").is_duplicated())["match_id"].unique()
    if involved.is_empty():
        return DUPLICATE_MATCHES.empty_table()
    # Only a match holding a fingerprint that occurs twice can be a copy or an original; all of
    # such a match's deals are kept (its count of deals), the store's other deals dropped before
    # the sorts and joins below (1M deals: ≈ 1 s of a run adding 1,000).
    deals = deals.filter(pl.col("match_id").is_in(involved.implode()))
    ranks = order.select("match_id", pl.col("order").cast(pl.Int64).alias("_order"))
    last = ranks.select(pl.col("_order").max().fill_null(-1) + 1).item()
    deals = (
        deals.join(ranks, on="match_id", how="left")
        .with_columns(pl.col("_order").fill_null(last))
        .sort(["_order", "match_id", "deal_no"])
    )
    holders = deals.group_by("fingerprint", maintain_order=True).agg(original=pl.col("match_id").first())
    per_deal = deals.join(holders, on="fingerprint")
    match_deals = per_deal.group_by("match_id").agg(match_deals=pl.len(), _order=pl.col("_order").first())
    copies = (
        per_deal.filter(pl.col("original") != pl.col("match_id"))
        .group_by("match_id", "original")
        .agg(deals=pl.len())
    )
    if copies.is_empty():
        return DUPLICATE_MATCHES.empty_table()
    originals = match_deals.select(original="match_id", _original_order="_order")
    best = (
        copies.join(originals, on="original")
        .sort(["match_id", "deals", "_original_order", "original"], descending=[False, True, False, False])
        .group_by("match_id", maintain_order=True)
        .first()
        .join(match_deals, on="match_id")
    )
    rows = []
    for row in best.sort(["_order", "match_id"]).iter_rows(named=True):
        excluded = row["deals"] == row["match_deals"]
        what = f"every deal ({row['deals']})" if excluded else f"{row['deals']} of {row['match_deals']} deals"
        rows.append(
            {
                "match_id": row["match_id"],
                "duplicate_of": row["original"],
                "deals": row["deals"],
                "match_deals": row["match_deals"],
                "excluded": excluded,
                "reason": f"{what} with the same hands and plays as in match {row['original']!r}, ingested "
                "earlier" + ("; left out of scoring" if excluded else "; still scored, check it"),
            }
        )
    return pa.Table.from_pylist(rows, schema=DUPLICATE_MATCHES)
