"""The partner view: per partnership, rounds together, win rate and rating gain together.

Built from ``match_scores`` (every played or forfeited round, byes excluded) and
``rating_history`` (the mu change of each partner in the rated rounds they played together).
Win rate counts a draw as half a win, as §S6 does for the professional dan.
"""

from __future__ import annotations

import polars as pl

from schemas.scoring import PARTNERS
from scoring.frames import frame


def partners(scores: pl.DataFrame, history: pl.DataFrame) -> pl.DataFrame:
    """The ``partners`` table: one row per pair (player_1 < player_2) that played together."""
    rounds = (
        scores.filter(
            pl.col("match_id").is_not_null()
            & pl.col("player_1").is_not_null()
            & pl.col("player_2").is_not_null()
        )
        .with_columns(
            pl.min_horizontal("player_1", "player_2").alias("a"),
            pl.max_horizontal("player_1", "player_2").alias("b"),
        )
        .group_by("a", "b")
        .agg(
            pl.len().alias("rounds"),
            (pl.col("result") == "win").sum().alias("wins"),
            (pl.col("result") == "draw").sum().alias("draws"),
            (pl.col("result") == "loss").sum().alias("losses"),
            pl.col("started_at").min().alias("first_played"),
            pl.col("started_at").max().alias("last_played"),
        )
    )
    gains = (
        history.drop_nulls("partner_id")
        .group_by("player_id", "partner_id")
        .agg((pl.col("mu_after") - pl.col("mu_before")).sum().alias("gain"))
    )
    g1 = gains.rename({"player_id": "a", "partner_id": "b", "gain": "mu_gain_1"})
    g2 = gains.rename({"player_id": "b", "partner_id": "a", "gain": "mu_gain_2"})
    out = (
        rounds.join(g1, on=["a", "b"], how="left")
        .join(g2, on=["a", "b"], how="left")
        .with_columns(
            ((pl.col("wins") + 0.5 * pl.col("draws")) / pl.col("rounds")).alias("win_rate"),
            (pl.col("mu_gain_1").fill_null(0.0) + pl.col("mu_gain_2").fill_null(0.0)).alias("mu_gain"),
        )
        .rename({"a": "player_1", "b": "player_2"})
        .sort("player_1", "player_2")
    )
    return frame(out.select([f.name for f in PARTNERS]).to_dicts(), PARTNERS)
