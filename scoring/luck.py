"""Luck against skill: the deal outcome the dealt cards lead one to expect, and each player's
results above that expectation.

A deal's result for a team is its signed level result (+gain when the team won the deal, −gain
when the other team did; rules.md §5.7). Much of it is the cards: jokers, wild cards, bombs and
straight-flush chances in the two hands (``deal_hands`` features), and who paid tribute
(rules.md §6). A ridge regression on the team-minus-opponents difference of those features gives
the expected result; the model is symmetric (the other team's row is the mirror image), so it has
no intercept. A player's *levels above expectation* is the mean of actual − expected over the
deals they played, with a normal 95 % interval; fewer than ``LOW_DATA_DEALS`` deals is flagged.

The fit is validated on held-out matches (a hash of the match id picks them, so the split is the
same on every run): R² and a calibration table (mean expected vs mean actual per band of the
expectation), reported in ``luck_model`` and ``docs/ratings.md``.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

import numpy as np
import polars as pl

from schemas.scoring import LUCK_MODEL, PLAYER_LUCK
from schemas.vocabulary import OTHER_TEAM, TEAM
from scoring.frames import frame

HAND_FEATURES: tuple[str, ...] = (
    "jokers",
    "big_jokers",
    "wilds",
    "level_cards",
    "natural_bombs",
    "straight_flush_chances",
)
"""``deal_hands`` columns summed over a team's two hands."""
FEATURES: tuple[str, ...] = (*HAND_FEATURES, "tributes_paid", "declaring")
"""Model inputs, each as team minus opponents: the hand features, tributes paid, declaring side."""
RIDGE = 1.0
HOLDOUT_SHARE = 0.2
LOW_DATA_DEALS = 30
Z95 = 1.96
CALIBRATION_BANDS = 5


@dataclass(frozen=True)
class LuckModel:
    """Coefficients of the expected signed level result per unit of feature difference."""

    coefficients: tuple[float, ...]

    def expect(self, x: np.ndarray) -> np.ndarray:
        return x @ np.asarray(self.coefficients)


def team_deals(deal_hands: pl.DataFrame, deals: pl.DataFrame, tributes: pl.DataFrame) -> pl.DataFrame:
    """One row per team per deal with all four hands known: feature differences and the result."""
    known = deal_hands.filter(pl.all_horizontal(pl.col(f).is_not_null() for f in HAND_FEATURES))
    complete = known.group_by("match_id", "deal_no").len().filter(pl.col("len") == 4).drop("len")
    sums = (
        known.join(complete, on=["match_id", "deal_no"])
        .group_by("match_id", "deal_no", "team")
        .agg(pl.col(f).cast(pl.Int32).sum() for f in HAND_FEATURES)
    )
    paid = (
        tributes.filter(pl.col("kind").is_in(["single", "double"]))
        .with_columns(team=pl.col("giver").replace_strict(TEAM))
        .group_by("match_id", "deal_no", "team")
        .agg(tributes_paid=pl.len().cast(pl.Int32))
    )
    rows = (
        sums.join(paid, on=["match_id", "deal_no", "team"], how="left")
        .with_columns(pl.col("tributes_paid").fill_null(0))
        .join(
            deals.select("match_id", "deal_no", "declarers", "winning_team", "level_gain"),
            on=["match_id", "deal_no"],
        )
        .filter(pl.col("winning_team").is_not_null())
    )
    opp = rows.select(
        "match_id",
        "deal_no",
        pl.col("team").replace_strict(OTHER_TEAM),
        *(pl.col(f).alias(f"opp_{f}") for f in (*HAND_FEATURES, "tributes_paid")),
    )
    both = rows.join(opp, on=["match_id", "deal_no", "team"])
    return both.select(
        "match_id",
        "deal_no",
        "team",
        *(
            (pl.col(f) - pl.col(f"opp_{f}")).cast(pl.Float64).alias(f)
            for f in (*HAND_FEATURES, "tributes_paid")
        ),
        declaring=pl.when(pl.col("declarers").is_null())
        .then(0.0)
        .when(pl.col("declarers") == pl.col("team"))
        .then(1.0)
        .otherwise(-1.0),
        result=pl.when(pl.col("winning_team") == pl.col("team"))
        .then(pl.col("level_gain"))
        .otherwise(-pl.col("level_gain"))
        .cast(pl.Float64),
    ).sort("match_id", "deal_no", "team")


def fit(rows: pl.DataFrame, ridge: float = RIDGE) -> LuckModel:
    """Ridge least squares of the result on the feature differences (no intercept: symmetric)."""
    x, y = _xy(rows)
    beta = (
        np.linalg.solve(x.T @ x + ridge * np.eye(x.shape[1]), x.T @ y) if len(y) else np.zeros(len(FEATURES))
    )
    return LuckModel(tuple(float(b) for b in beta))


def _xy(rows: pl.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    return rows.select(FEATURES).to_numpy().astype(float), rows["result"].to_numpy().astype(float)


def is_holdout(match_id: str, share: float = HOLDOUT_SHARE) -> bool:
    """Whether a match belongs to the validation set (a stable hash of its id)."""
    return int(hashlib.sha1(match_id.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF < share


@dataclass(frozen=True)
class Validation:
    """How well a model fitted on the other matches predicts held-out deals."""

    train_rows: int
    test_rows: int
    r2: float | None
    rmse: float | None
    calibration: list[tuple[float, float, int]]
    """Per band of the expectation (lowest first): mean expected, mean actual, rows."""


def validate(rows: pl.DataFrame) -> Validation:
    """Fit on the matches not held out, score the held-out ones."""
    ids = rows["match_id"].unique()
    held_ids = ids.filter(pl.Series([is_holdout(m) for m in ids], dtype=pl.Boolean))
    held = rows["match_id"].is_in(held_ids.implode())
    train, test = rows.filter(~held), rows.filter(held)
    if train.height == 0 or test.height == 0:
        return Validation(train.height, test.height, None, None, [])
    x, y = _xy(test)
    expected = fit(train).expect(x)
    residual = y - expected
    total = float(((y - y.mean()) ** 2).sum())
    order = np.argsort(expected, kind="stable")
    bands = [b for b in np.array_split(order, CALIBRATION_BANDS) if len(b)]
    return Validation(
        train.height,
        test.height,
        1 - float((residual**2).sum()) / total if total else None,
        math.sqrt(float((residual**2).mean())),
        [(float(expected[b].mean()), float(y[b].mean()), len(b)) for b in bands],
    )


def luck_model_table(model: LuckModel, validation: Validation) -> pl.DataFrame:
    """The coefficients with the held-out validation figures (one row per feature)."""
    return frame(
        [
            {
                "feature": f,
                "coefficient": c,
                "train_rows": validation.train_rows,
                "test_rows": validation.test_rows,
                "r2_holdout": validation.r2,
                "rmse_holdout": validation.rmse,
            }
            for f, c in zip(FEATURES, model.coefficients, strict=True)
        ],
        LUCK_MODEL,
    )


def player_luck(rows: pl.DataFrame, deal_hands: pl.DataFrame, model: LuckModel) -> pl.DataFrame:
    """Per player: mean actual and expected result per deal, their difference with a 95 % interval.

    Each player's deals are summed in (match, deal) order, so the floats are the same whatever
    order the input rows came in (a store's files, an executor's batches)."""
    if rows.height == 0:
        return frame([], PLAYER_LUCK)
    x, _ = _xy(rows)
    scored = rows.with_columns(expected=pl.Series(model.expect(x)))
    seats = deal_hands.filter(pl.col("player_id").is_not_null()).select(
        "match_id", "deal_no", "team", "player_id"
    )
    per = (
        seats.join(scored, on=["match_id", "deal_no", "team"])
        .with_columns(residual=pl.col("result") - pl.col("expected"))
        .sort("player_id", "match_id", "deal_no")
        .group_by("player_id", maintain_order=True)
        .agg(
            deals=pl.len(),
            actual_mean=pl.col("result").mean(),
            expected_mean=pl.col("expected").mean(),
            above_expectation=pl.col("residual").mean(),
            sd=pl.col("residual").std(),
        )
    )
    half = Z95 * pl.col("sd").fill_null(0.0) / pl.col("deals").cast(pl.Float64).sqrt()
    out = (
        per.with_columns(
            ci_low=pl.col("above_expectation") - half,
            ci_high=pl.col("above_expectation") + half,
            low_data=pl.col("deals") < LOW_DATA_DEALS,
        )
        .drop("sd")
        .sort("player_id")
    )
    return frame(out.to_dicts(), PLAYER_LUCK)


def luck_tables(
    deal_hands: pl.DataFrame, deals: pl.DataFrame, tributes: pl.DataFrame
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``luck_model`` and ``player_luck`` from the replayed tables (the model fitted on all deals)."""
    rows = team_deals(deal_hands, deals, tributes)
    model = fit(rows)
    return luck_model_table(model, validate(rows)), player_luck(rows, deal_hands, model)
