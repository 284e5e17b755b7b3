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
same on every run): R² and RMSE in ``luck_model``; :func:`validate` adds a calibration table (mean
expected vs mean actual per band of the expectation, ``benchmarks/bench_luck.py``,
``docs/ratings.md``).

Both tables are computed from exact additive sums (:class:`Sums`, :func:`statistics`): per match
the integer n, Σy, Σy², Σx, Σxy and Σxxᵀ of its team rows, and the same per match and player.
The ridge fit needs only the first; a player's mean and variance of y − x·β follow from theirs
for any β, so a match's sums can be added or taken away (``luck_statistics``, the luck step of
``pipelines.steps.scoring_steps``) and the tables are the same, bit for bit, as from every match at once.
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
    return Sums.of(_ints(rows)).fit(ridge)


def _xy(rows: pl.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    return rows.select(FEATURES).to_numpy().astype(float), rows["result"].to_numpy().astype(float)


def _ints(rows: pl.DataFrame) -> pl.DataFrame:
    """``rows`` with the features and the result as Int64: every value is a whole number, so
    their sums are exact and do not depend on the order the rows are added in."""
    return rows.with_columns(pl.col(*FEATURES, "result").cast(pl.Int64))


PAIRS: tuple[tuple[int, int], ...] = tuple((i, j) for i in range(len(FEATURES))
                                           for j in range(i, len(FEATURES)))
"""The entries of the symmetric Σxxᵀ that are stored: row ≤ column, row by row (36 of 64)."""
SUM_COLUMNS: tuple[str, ...] = ("deals", "sum_result", "sum_result_sq", "sum_x", "sum_x_result", "sum_xx")
"""The columns of ``luck_statistics`` that hold sums (``schemas.scoring.LUCK_STATISTICS``)."""


def _grouped_sums(ints: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """:data:`SUM_COLUMNS` per group of ``keys`` of Int64 team rows (``_ints``): the products
    are columns first, so the group-by only adds plain columns."""
    y = pl.col("result")
    x = [pl.col(f) for f in FEATURES]
    terms = [y.alias("_y"), (y * y).alias("_yy"), *(c.alias(f"_x{i}") for i, c in enumerate(x)),
             *((c * y).alias(f"_xy{i}") for i, c in enumerate(x)),
             *((x[i] * x[j]).alias(f"_xx{n}") for n, (i, j) in enumerate(PAIRS))]
    k = range(len(FEATURES))
    summed = ints.select(*keys, *terms).group_by(keys).agg(pl.len().cast(pl.Int64).alias("deals"),
                                                           pl.exclude(keys).sum())
    return summed.select(*keys, "deals", pl.col("_y").alias("sum_result"),
                         pl.col("_yy").alias("sum_result_sq")).with_columns(
        _as_list(summed, [f"_x{i}" for i in k], "sum_x"),
        _as_list(summed, [f"_xy{i}" for i in k], "sum_x_result"),
        _as_list(summed, [f"_xx{n}" for n in range(len(PAIRS))], "sum_xx"))


def _as_list(frame: pl.DataFrame, columns: list[str], name: str) -> pl.Series:
    """The Int64 ``columns`` of each row of ``frame`` as one list (numpy: ``pl.concat_list`` of
    36 columns costs seconds at a million deals)."""
    flat = pl.Series(name, frame.select(columns).to_numpy().astype(np.int64).reshape(-1))
    return flat.reshape((frame.height, len(columns))).cast(pl.List(pl.Int64)) if frame.height else (
        pl.Series(name, [], pl.List(pl.Int64)))


@dataclass(frozen=True)
class Sums:
    """Exact sufficient statistics of a set of team rows (x, y): n, Σy, Σy², Σx, Σxy and the
    upper triangle of Σxxᵀ (:data:`PAIRS`), in integers.

    They give the ridge fit of those rows, and for any coefficients β the mean and the sum of
    squares of the residual y − x·β, so rows can be added (a new match) and taken away (a
    retracted one) without revisiting the others."""

    n: int
    y: int
    yy: int
    x: np.ndarray
    xy: np.ndarray
    xx: np.ndarray

    @staticmethod
    def of(rows: pl.DataFrame) -> Sums:
        """The sums of Int64 team rows (``_ints``)."""
        if rows.height == 0:
            return Sums.from_matrix(np.zeros((1, SUM_WIDTH), dtype=np.int64))
        return Sums.from_matrix(sum_matrix(_grouped_sums(rows.with_columns(_all=pl.lit(0)), ["_all"])))

    @staticmethod
    def from_matrix(matrix: np.ndarray) -> Sums:
        """The total of the rows of a :func:`sum_matrix`."""
        total = matrix.sum(axis=0, dtype=np.int64)
        k = len(FEATURES)
        return Sums(int(total[0]), int(total[1]), int(total[2]), total[3 : 3 + k], total[3 + k : 3 + 2 * k],
                    total[3 + 2 * k :])

    def fit(self, ridge: float = RIDGE) -> LuckModel:
        """The ridge solution (XᵀX + ridge·I) β = Xᵀy; zeros without rows."""
        if self.n == 0:
            return LuckModel(tuple(0.0 for _ in FEATURES))
        gram = _symmetric(self.xx).astype(float)
        beta = np.linalg.solve(gram + ridge * np.eye(len(FEATURES)), self.xy.astype(float))
        return LuckModel(tuple(float(b) for b in beta))

    def residual_sq(self, beta: np.ndarray) -> float:
        """Σ(y − x·β)² = Σy² − 2βᵀΣxy + βᵀΣxxᵀβ."""
        return float(self.yy - 2 * beta @ self.xy + beta @ _symmetric(self.xx) @ beta)


SUM_WIDTH = 3 + 2 * len(FEATURES) + len(PAIRS)
"""Numbers per row of a :func:`sum_matrix`: n, Σy, Σy², Σx, Σxy, the Σxxᵀ triangle."""


def sum_matrix(sums: pl.DataFrame) -> np.ndarray:
    """The :data:`SUM_COLUMNS` of each row of ``sums`` as one int64 row of :data:`SUM_WIDTH`."""
    k = len(FEATURES)
    lists = [np.asarray(sums[c].explode(empty_as_null=False).to_numpy(), dtype=np.int64)
             .reshape(sums.height, w) for c, w in (("sum_x", k), ("sum_x_result", k), ("sum_xx", len(PAIRS)))]
    scalars = sums.select(SUM_COLUMNS[:3]).to_numpy().astype(np.int64).reshape(sums.height, 3)
    return np.hstack([scalars, *lists])


def _symmetric(triangle: np.ndarray) -> np.ndarray:
    """The full Σxxᵀ from its upper triangle (:data:`PAIRS`)."""
    full = np.zeros((len(FEATURES), len(FEATURES)), dtype=np.int64)
    rows, cols = zip(*PAIRS, strict=True)
    full[rows, cols] = triangle
    full[cols, rows] = triangle
    return full


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
    """Per band of the expectation (lowest first): mean expected, mean actual, rows (empty when
    computed from sums alone: :func:`validate_sums`)."""


def validate_sums(train: Sums, test: Sums) -> Validation:
    """R² and RMSE on the held-out rows ``test`` of the model fitted on ``train``, from sums alone."""
    if train.n == 0 or test.n == 0:
        return Validation(train.n, test.n, None, None, [])
    squares = test.residual_sq(np.asarray(train.fit().coefficients))
    total = (test.n * test.yy - test.y * test.y) / test.n  # Σ(y − ȳ)², exact in integers
    return Validation(train.n, test.n, 1 - squares / total if total else None,
                      math.sqrt(max(squares, 0.0) / test.n), [])


def _split(rows: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The rows of the matches not held out, and those of the held-out ones."""
    ids = rows["match_id"].unique()
    held_ids = ids.filter(pl.Series([is_holdout(m) for m in ids], dtype=pl.Boolean))
    held = rows["match_id"].is_in(held_ids.implode())
    return rows.filter(~held), rows.filter(held)


def validate(rows: pl.DataFrame) -> Validation:
    """Fit on the matches not held out, score the held-out ones; with the calibration table
    (bands of the held-out expectation, which need the rows themselves: no table stores it)."""
    train, test = _split(rows)
    check = validate_sums(Sums.of(_ints(train)), Sums.of(_ints(test)))
    if check.r2 is None and check.rmse is None:
        return check
    x, y = _xy(test)
    expected = fit(train).expect(x)
    order = np.argsort(expected, kind="stable")
    bands = [b for b in np.array_split(order, CALIBRATION_BANDS) if len(b)]
    calibration = [(float(expected[b].mean()), float(y[b].mean()), len(b)) for b in bands]
    return Validation(check.train_rows, check.test_rows, check.r2, check.rmse, calibration)


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


def statistics(rows: pl.DataFrame, deal_hands: pl.DataFrame) -> pl.DataFrame:
    """The sums (:data:`SUM_COLUMNS`) of each match's team rows (``player_id`` null) and of each
    match's player's rows (the rows of the team they sat in), with the match's ``holdout``,
    sorted by match and player (null first): the additive statistics ``luck_statistics`` keeps."""
    ints = _ints(rows)
    seats = deal_hands.filter(pl.col("player_id").is_not_null()).select("match_id", "deal_no", "team",
                                                                         "player_id")
    per_match = _grouped_sums(ints, ["match_id"]).with_columns(player_id=pl.lit(None, pl.String))
    seated = seats.join(ints, on=["match_id", "deal_no", "team"])
    per_player = _grouped_sums(seated, ["match_id", "player_id"])
    both = pl.concat([per_match.select("match_id", "player_id", *SUM_COLUMNS),
                      per_player.select("match_id", "player_id", *SUM_COLUMNS)])
    ids = both["match_id"].unique()
    held = ids.filter(pl.Series([is_holdout(m) for m in ids], dtype=pl.Boolean))
    return both.with_columns(holdout=pl.col("match_id").is_in(held.implode())).sort(
        "match_id", "player_id", nulls_last=False)


def empty_sums(match_ids: list[str]) -> pl.DataFrame:
    """A :func:`statistics` row of zeros per match (``player_id`` null): a match without team rows."""
    k = len(FEATURES)
    return pl.DataFrame(
        {"match_id": match_ids, "player_id": [None] * len(match_ids), "deals": [0] * len(match_ids),
         "sum_result": [0] * len(match_ids), "sum_result_sq": [0] * len(match_ids),
         "sum_x": [[0] * k] * len(match_ids), "sum_x_result": [[0] * k] * len(match_ids),
         "sum_xx": [[0] * len(PAIRS)] * len(match_ids), "holdout": [is_holdout(m) for m in match_ids]},
        schema={"match_id": pl.String, "player_id": pl.String, "deals": pl.Int64, "sum_result": pl.Int64,
                "sum_result_sq": pl.Int64, "sum_x": pl.List(pl.Int64), "sum_x_result": pl.List(pl.Int64),
                "sum_xx": pl.List(pl.Int64), "holdout": pl.Boolean},
    )


TOTAL_KEYS: tuple[str, ...] = ("player_id", "holdout")
"""What :func:`statistics_totals` adds sums up by: the player (null: the team rows) and hold-out."""


def statistics_totals(*parts: tuple[pl.DataFrame, int]) -> pl.DataFrame:
    """The :data:`SUM_COLUMNS` of :func:`statistics` rows added up by :data:`TOTAL_KEYS`, the rows of
    each ``(rows, sign)`` counted ``sign`` times (1: added, −1: taken away), sorted by player (null
    first) and hold-out: always both team rows, and the players with a deal left.

    :func:`tables_from_statistics` gives the same tables from these few rows (two and one or two
    per player) as from the rows they add up, so a run can add its new matches' sums to the
    totals kept and take away those of matches changed or gone, whatever the store's size."""
    teams = pl.DataFrame({"player_id": [None, None], "holdout": [False, True]},
                         schema={"player_id": pl.String, "holdout": pl.Boolean})
    keys = pl.concat([teams, *(rows.select(TOTAL_KEYS) for rows, _ in parts)])
    signed = (sum_matrix(rows) * sign for rows, sign in parts)
    matrix = np.vstack([np.zeros((2, SUM_WIDTH), np.int64), *signed])
    flat = pl.DataFrame(matrix, schema=[f"_s{i}" for i in range(SUM_WIDTH)], orient="row")
    summed = (keys.hstack(flat.get_columns()).group_by(TOTAL_KEYS).agg(pl.all().sum())
              .filter(pl.col("player_id").is_null() | (pl.col("_s0") != 0))
              .sort(TOTAL_KEYS, nulls_last=False))
    edges = np.cumsum([3, len(FEATURES), len(FEATURES), len(PAIRS)])
    lists = [_as_list(summed, [f"_s{i}" for i in range(lo, hi)], name)
             for name, lo, hi in zip(SUM_COLUMNS[3:], edges[:-1], edges[1:], strict=True)]
    return summed.select(*TOTAL_KEYS, *(pl.col(f"_s{i}").alias(c) for i, c in enumerate(SUM_COLUMNS[:3]))
                         ).with_columns(lists)


def player_luck(rows: pl.DataFrame, deal_hands: pl.DataFrame, model: LuckModel) -> pl.DataFrame:
    """Per player: mean actual and expected result per deal, their difference with a 95 % interval."""
    return player_table(statistics(rows, deal_hands), model)


def player_table(stats: pl.DataFrame, model: LuckModel) -> pl.DataFrame:
    """``player_luck`` from the per-match player sums of ``stats`` (:func:`statistics`).

    Each player's integer sums are added up, so the figures are the same whatever order the
    matches come in; the residual's mean and variance follow from them for ``model``'s β."""
    players = stats.filter(pl.col("player_id").is_not_null())
    if players.height == 0:
        return frame([], PLAYER_LUCK)
    which = (players["player_id"].rank("dense") - 1).to_numpy()
    ids = players["player_id"].unique().sort().to_list()
    order = np.argsort(which, kind="stable")
    starts = np.searchsorted(which[order], np.arange(len(ids)))
    per = np.add.reduceat(sum_matrix(players)[order], starts, axis=0)
    return frame([_player_row(str(p), Sums.from_matrix(row[None, :]), model) for p, row in
                  zip(ids, per, strict=True)], PLAYER_LUCK)


def _player_row(player: str, sums: Sums, model: LuckModel) -> dict[str, object]:
    """One ``player_luck`` row from a player's sums: a normal 95 % interval of the mean residual."""
    beta = np.asarray(model.coefficients)
    expected = float(sums.x @ beta)
    above = (sums.y - expected) / sums.n
    variance = (sums.residual_sq(beta) - sums.n * above * above) / (sums.n - 1) if sums.n > 1 else 0.0
    half = Z95 * math.sqrt(max(variance, 0.0)) / math.sqrt(sums.n)
    return {"player_id": player, "deals": sums.n, "actual_mean": sums.y / sums.n,
            "expected_mean": expected / sums.n, "above_expectation": above, "ci_low": above - half,
            "ci_high": above + half, "low_data": sums.n < LOW_DATA_DEALS}


def tables_from_statistics(stats: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``luck_model`` and ``player_luck`` from the sums of :func:`statistics` (any set of matches'
    rows of it): the model is fitted on every match, validated by fitting the matches not held out."""
    teams = stats.filter(pl.col("player_id").is_null())
    matrix = sum_matrix(teams)
    held = teams["holdout"].to_numpy().astype(bool)
    whole, train, test = (Sums.from_matrix(matrix[m]) for m in (np.ones(len(held), bool), ~held, held))
    model = whole.fit()
    return luck_model_table(model, validate_sums(train, test)), player_table(stats, model)


def luck_tables(
    deal_hands: pl.DataFrame, deals: pl.DataFrame, tributes: pl.DataFrame
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``luck_model`` and ``player_luck`` from the replayed tables (the model fitted on all deals)."""
    return tables_from_statistics(statistics(team_deals(deal_hands, deals, tributes), deal_hands))
