"""BCTA professional dan by win rate (scoring.md §S6).

The source table (9 dans, 96 % … 40 %) is cut off after the rates, so the window is policy
(``ProDanParams``): the player's last ``last_n`` rounds in sanctioned events, at least
``min_rounds`` of them, draws counting ``draw_value`` of a win. Byes are not rounds played and
do not count; forfeits count as the result they gave.
"""

from __future__ import annotations

import polars as pl

from schemas.scoring import PRO_DAN
from scoring.frames import frame
from scoring.params import ProDanParams


def pro_dan_for(win_rate: float, p: ProDanParams) -> int | None:
    """The highest dan whose minimum win rate is reached (§S6), ``None`` below dan 1."""
    reached = [d + 1 for d, rate in enumerate(p.min_win_rate) if win_rate >= rate - 1e-12]
    return max(reached) if reached else None


def player_results(scores: pl.DataFrame) -> pl.DataFrame:
    """One row per player per played or forfeited match: player_id, match_id, event_id, started_at, result."""
    played = scores.filter(pl.col("match_id").is_not_null())
    return (
        played.select(
            "match_id",
            "event_id",
            "started_at",
            "result",
            pl.concat_list("player_1", "player_2").alias("player_id"),
        )
        .explode("player_id", empty_as_null=True)
        .drop_nulls("player_id")
    )


def pro_dan(scores: pl.DataFrame, p: ProDanParams | None = None) -> pl.DataFrame:
    """The ``pro_dan`` table from ``match_scores``: one row per player."""
    p = p or ProDanParams()
    results = player_results(scores)
    if p.sanctioned_events is not None:
        results = results.filter(pl.col("event_id").is_in(sorted(p.sanctioned_events)))
    last = (
        results.sort("started_at", "match_id", nulls_last=True)
        .group_by("player_id", maintain_order=True)
        .tail(p.last_n)
        .group_by("player_id")
        .agg(
            pl.len().alias("rounds"),
            (pl.col("result") == "win").sum().alias("wins"),
            (pl.col("result") == "draw").sum().alias("draws"),
            (pl.col("result") == "loss").sum().alias("losses"),
        )
        .sort("player_id")
    )
    rows = []
    for r in last.iter_rows(named=True):
        rate = (r["wins"] + p.draw_value * r["draws"]) / r["rounds"]
        eligible = r["rounds"] >= p.min_rounds
        rows.append(
            {
                **r,
                "win_rate": rate,
                "eligible": eligible,
                "pro_dan": pro_dan_for(rate, p) if eligible else None,
                "last_n": p.last_n,
                "min_rounds": p.min_rounds,
            }
        )
    return frame(rows, PRO_DAN)
