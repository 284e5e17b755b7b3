"""Referee deductions (rules.md §8, events.md ``ruling`` kind ``deduction``) per match and team.

A deduction comes off the team's event total, not the round (`national` Art. 51–52), so it is
carried on the ``match_scores`` row of the match where it was ruled and subtracted in the
standings. The event gives it as ``points: {"level_points": -1}`` or ``{"match_points": -0.5}``;
the replayer's ``rulings`` table carries it either as those two numeric columns or as the
``points`` JSON text, and names the team or a seat of it. Amounts here are positive (what is
taken off).
"""

from __future__ import annotations

import json

import polars as pl

_SEAT_TEAM = {"E": "EW", "W": "EW", "N": "NS", "S": "NS"}
KINDS = ("deduction",)


def _points(row: dict[str, object], key: str) -> float:
    value = row.get(key)
    if value is None and isinstance(row.get("points"), str):
        value = json.loads(str(row["points"])).get(key)
    return abs(float(value)) if value is not None else 0.0  # type: ignore[arg-type]


def deductions(rulings: pl.DataFrame) -> pl.DataFrame:
    """Per (match_id, team): total ``match_points`` and ``level_points`` deducted (positive)."""
    rows = []
    for r in rulings.filter(pl.col("kind").is_in(KINDS)).iter_rows(named=True):
        team = r.get("team") or _SEAT_TEAM.get(str(r.get("seat")))
        if team is None:
            continue
        rows.append(
            {
                "match_id": r["match_id"],
                "team": team,
                "match_points": _points(r, "match_points"),
                "level_points": _points(r, "level_points"),
            }
        )
    schema = {
        "match_id": pl.String,
        "team": pl.String,
        "match_points": pl.Float64,
        "level_points": pl.Float64,
    }
    return (
        pl.DataFrame(rows, schema=schema)
        .group_by("match_id", "team")
        .agg(pl.col("match_points").sum(), pl.col("level_points").sum())
        .sort("match_id", "team")
    )
