"""The luck model from exact sums (``scoring.luck.Sums``, ``statistics``): the same fit, residuals
and per-player figures as computing them from the rows directly, and a match's sums can be taken
away again (a retracted match) to give, bit for bit, the tables without it.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_luck import bomb_league

from scoring.luck import (
    FEATURES,
    RIDGE,
    Z95,
    Sums,
    _ints,
    luck_tables,
    statistics,
    statistics_totals,
    tables_from_statistics,
    team_deals,
)


def random_rows(seed: int, deals: int = 400) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Team rows of small integer features and results (both teams of a deal: mirror images),
    and the seats: players p0–p9 at random, two per team."""
    rng = np.random.default_rng(seed)
    x = rng.integers(-3, 4, size=(deals, len(FEATURES)))
    y = rng.integers(-3, 4, size=deals)
    keys = {"match_id": [f"m{k // 4:03d}" for k in range(deals)],
            "deal_no": [k % 4 + 1 for k in range(deals)]}
    ew = pl.DataFrame({**keys, "team": ["EW"] * deals, **{f: x[:, i] for i, f in enumerate(FEATURES)},
                       "result": y})
    ns = ew.with_columns(pl.lit("NS").alias("team"), *(-pl.col(c) for c in (*FEATURES, "result")))
    rows = pl.concat([ew, ns]).with_columns(pl.col(*FEATURES, "result").cast(pl.Float64))
    seats = pl.DataFrame({
        "match_id": keys["match_id"] * 4, "deal_no": keys["deal_no"] * 4,
        "team": ["EW"] * 2 * deals + ["NS"] * 2 * deals,
        "player_id": [f"p{i}" for i in rng.integers(0, 10, size=4 * deals)],
    })
    return rows, seats


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_fit_from_sums_is_the_ridge_least_squares(seed: int) -> None:
    rows, _ = random_rows(seed)
    x, y = rows.select(FEATURES).to_numpy(), rows["result"].to_numpy()
    direct = np.linalg.solve(x.T @ x + RIDGE * np.eye(len(FEATURES)), x.T @ y)
    sums = Sums.of(_ints(rows))
    np.testing.assert_allclose(sums.fit().coefficients, direct, rtol=1e-12, atol=1e-12)
    beta = np.random.default_rng(seed).normal(size=len(FEATURES))
    assert sums.residual_sq(beta) == pytest.approx(float(((y - x @ beta) ** 2).sum()), rel=1e-10)
    assert (sums.n, sums.y, sums.yy) == (len(y), int(y.sum()), int((y * y).sum()))


@pytest.mark.parametrize("seed", [1, 2])
def test_player_figures_from_sums_are_those_of_their_residuals(seed: int) -> None:
    """Mean actual, expected, their difference and its interval (sample sd), per player."""
    rows, seats = random_rows(seed)
    model, players = tables_from_statistics(statistics(rows, seats))
    beta = np.asarray(model["coefficient"].to_list())
    joined = seats.join(rows, on=["match_id", "deal_no", "team"])
    for r in players.to_dicts():
        mine = joined.filter(pl.col("player_id") == r["player_id"])
        x, y = mine.select(FEATURES).to_numpy(), mine["result"].to_numpy()
        residual = y - x @ beta
        half = Z95 * residual.std(ddof=1) / np.sqrt(len(y))
        assert r["deals"] == len(y)
        assert r["actual_mean"] == pytest.approx(y.mean(), abs=1e-12)
        assert r["expected_mean"] == pytest.approx((x @ beta).mean(), abs=1e-12)
        assert r["above_expectation"] == pytest.approx(residual.mean(), abs=1e-12)
        assert r["ci_high"] - r["above_expectation"] == pytest.approx(half, rel=1e-9)


def test_taking_a_match_away_restores_the_tables_without_it() -> None:
    """The sums of a match added, then dropped (a retraction): the tables are those computed
    without it, bit for bit; with it they differ."""
    dh, ds, tr = bomb_league(500)
    rows = team_deals(dh, ds, tr)
    stats = statistics(rows, dh)
    without = luck_tables(dh.filter(pl.col("match_id") != "m7"), ds.filter(pl.col("match_id") != "m7"), tr)
    with_it = tables_from_statistics(stats)
    dropped = tables_from_statistics(stats.filter(pl.col("match_id") != "m7"))
    assert not with_it[0].equals(without[0])
    assert dropped[0].equals(without[0]) and dropped[1].equals(without[1])


def test_the_sums_do_not_depend_on_how_the_matches_are_grouped() -> None:
    """Sums of two halves computed apart equal the sums of all rows computed together."""
    dh, ds, tr = bomb_league(300)
    rows = team_deals(dh, ds, tr)
    first = rows["match_id"].unique().sort()[:30]
    parts = [statistics(part, dh) for part in (rows.filter(pl.col("match_id").is_in(first.implode())),
                                               rows.filter(~pl.col("match_id").is_in(first.implode())))]
    together = pl.concat(parts).sort("match_id", "player_id", nulls_last=False)
    assert together.equals(statistics(rows, dh))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), taken=st.sets(st.integers(0, 5)), added_later=st.sets(st.integers(0, 5)))
def test_totals_kept_and_updated_give_the_tables_of_the_rows_they_stand_for(
    seed: int, taken: set[int], added_later: set[int]
) -> None:
    """The luck step's totals (``statistics_totals``): matches added in two runs, then some taken
    away, give, bit for bit, the tables of the rows left; every team row and player with a
    deal is there, none with none."""
    rows, seats = random_rows(seed, deals=24)
    stats = statistics(rows, seats)
    ids = sorted(set(stats["match_id"].to_list()))
    later = stats["match_id"].is_in([ids[i] for i in added_later])
    gone = stats["match_id"].is_in([ids[i] for i in taken])
    first = statistics_totals((stats.filter(~later), 1))
    totals = statistics_totals((first, 1), (stats.filter(later), 1), (stats.filter(gone), -1))
    left = stats.filter(~gone)
    model, players = tables_from_statistics(left)
    kept_model, kept_players = tables_from_statistics(totals)
    assert kept_model.equals(model) and kept_players.equals(players)
    team_rows = totals.filter(pl.col("player_id").is_null())
    assert team_rows["holdout"].to_list() == [False, True]
    assert set(totals["player_id"].drop_nulls().to_list()) == set(left["player_id"].drop_nulls().to_list())
