"""The Gaussian whole-history rating (scoring/ratings.py): evidence, exactness, uncertainty, tables."""

from __future__ import annotations

import json
import math
import random
from dataclasses import replace

import numpy as np
import polars as pl
import pytest
from scipy.stats import spearmanr
from scoring_builders import dan_round, deals, scores

from scoring.params import RatingParams
from scoring.partners import partners
from scoring.ratings import SEATS, GaussianRatings, deal_margin, rate, rated_rounds

PLAYERS = [f"p{i}" for i in range(8)]
STRENGTH = {p: (7 - i) / 7 for i, p in enumerate(PLAYERS)}
"""p0 strongest … p7 weakest."""
_TEAM = {"E": "EW", "W": "EW", "N": "NS", "S": "NS"}


def simulated(n_rounds: int, seed: int = 7, deals_per_round: int = 6) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``match_scores`` and ``deals`` of random tables of 8 players; stronger players go out earlier."""
    rng = random.Random(seed)
    score_rows, deal_rows = [], []
    for i in range(n_rounds):
        four = rng.sample(PLAYERS, 4)
        seats = dict(zip(SEATS, four, strict=True))
        margin = 0
        for k in range(deals_per_round):
            keys = {s: STRENGTH[p] * 2 + rng.gauss(0, 1) for s, p in seats.items()}
            order = sorted(SEATS, key=lambda s: -keys[s])
            d = deal_margin(order, False, False)
            margin += d.margin
            double = _TEAM[order[0]] == _TEAM[order[1]]
            deal_rows.append(
                {
                    "match_id": f"m{i:04d}",
                    "deal_no": k + 1,
                    "winning_team": _TEAM[order[0]],
                    "finish_order": order[:2] if double else order,
                    "double_win": double,
                    "foul": False,
                    "level_gain": abs(d.margin),
                }
            )
        ew, ns = (seats["E"], seats["W"]), (seats["N"], seats["S"])
        rows = dan_round(f"m{i:04d}", i, ew, ns, int(margin > 0), int(margin < 0))
        for r in rows:
            r["level_diff"] = margin if r["side"] == "EW" else -margin
            r["result"] = "draw" if margin == 0 else r["result"]
        score_rows.extend(rows)
    return scores(*score_rows), deals(*deal_rows)


# rules.md §5.8 and seed 001 單局勝出: "同隊選手為頭游和二游升三級；…頭游和三游升二級；…頭游和末游升一級".
MARGINS = [
    # (finish order, double win, foul, EW margin, places)
    ("EW", True, False, 3, {"E": 1, "W": 2}),
    ("EWSN", True, False, 3, {"E": 1, "W": 2}),
    ("ENWS", False, False, 2, {"E": 1, "N": 2, "W": 3, "S": 4}),
    ("ENS", False, False, 1, {"E": 1, "N": 2, "S": 3, "W": 4}),
    ("NEWS", False, False, -1, {"N": 1, "E": 2, "W": 3, "S": 4}),
    ("SN", True, False, -3, {"S": 1, "N": 2}),
    ("NSEW", True, True, -3, {}),
]


@pytest.mark.parametrize(("order", "double", "foul", "margin", "places"), MARGINS)
def test_deal_margin_by_finishing_places(
    order: str, double: bool, foul: bool, margin: int, places: dict[str, int]
) -> None:
    """A deal's evidence: the 升級 of its winners by finishing places; no places after a foul."""
    d = deal_margin(list(order), double, foul)
    assert (d.margin, d.places) == (margin, places)


def test_stronger_players_rate_higher() -> None:
    ratings, history = rate(*simulated(300))
    assert spearmanr([STRENGTH[p] for p in ratings["player_id"]], ratings["mu"].to_list()).statistic >= 0.95
    assert history.height == 4 * 300
    assert ratings["rounds"].sum() == 4 * 300
    assert ratings["deals"].sum() == 4 * 300 * 6


def test_posterior_after_the_last_round_is_the_whole_history_fit() -> None:
    """Online updates give exactly the ridge solution on every deal (the Bayesian posterior mean)."""
    s, d = simulated(60)
    p = RatingParams()
    rounds = rated_rounds(s, d)
    model = GaussianRatings(p)
    for r in rounds:
        model.update(r)
    n = len(model.index)
    precision = np.eye(n) / p.prior_sd**2
    vector = np.zeros(n)
    for r in rounds:
        idx = [model.index[r.players[seat]] for seat in SEATS]
        j, b = model.evidence(r)
        precision[np.ix_(idx, idx)] += j
        vector[idx] += b
    assert model.mu == pytest.approx(np.linalg.solve(precision, vector), abs=1e-9)
    assert model.cov == pytest.approx(np.linalg.inv(precision), abs=1e-9)


def test_partner_places_separate_partners() -> None:
    """Two players only ever partnered: the team margin cannot split them, their places can."""
    rows, deal_rows = [], []
    for i in range(20):
        rows.extend(dan_round(f"m{i}", i, ("a", "b"), (f"x{i}", f"y{i}"), 1, 0))
        for k in range(4):
            deal_rows.append(
                {
                    "match_id": f"m{i}",
                    "deal_no": k + 1,
                    "winning_team": "EW",
                    "finish_order": ["E", "N", "W", "S"],
                    "double_win": False,
                    "foul": False,
                }
            )
    s, d = scores(*rows), deals(*deal_rows)
    with_places, _ = rate(s, d)
    without, _ = rate(s, d, replace(RatingParams(), within_weight=0.0))
    mu = dict(zip(with_places["player_id"], with_places["mu"], strict=True))
    mu0 = dict(zip(without["player_id"], without["mu"], strict=True))
    assert mu["a"] > mu["b"]
    assert mu["a"] + mu["b"] > 0 and mu0["a"] + mu0["b"] > 0
    assert mu0["a"] == pytest.approx(mu0["b"])


def test_uncertainty_shrinks_and_provisional_until_threshold() -> None:
    ratings, history = rate(*simulated(200))
    threshold = RatingParams().provisional_sigma
    assert (ratings["provisional"] == (ratings["sigma"] >= threshold)).all()
    assert not ratings["provisional"].any()
    few, _ = rate(*simulated(2))
    assert few["provisional"].all()
    for _, rows in history.sort("started_at").group_by("player_id", maintain_order=True):
        sigma = rows["sigma_after"].to_list()
        assert sigma == sorted(sigma, reverse=True)


def test_history_forecasts_before_the_update() -> None:
    """Each history row holds the state before its round; the last round's "after" is the final rating.

    A player's mu may move between two of their rounds (a former partner's or opponent's results
    revise what was learnt about them), so "before" is not the previous "after"."""
    p = RatingParams()
    ratings, history = rate(*simulated(50))
    history = history.sort("started_at", "match_id")
    first = history.head(4)
    assert first["win_probability"].to_list() == pytest.approx([0.5] * 4)
    assert first["expected_level_diff"].to_list() == pytest.approx([0.0] * 4)
    assert first["mu_before"].to_list() == pytest.approx([0.0] * 4)
    assert first["sigma_before"].to_list() == pytest.approx([p.display_deals * p.prior_sd] * 4)
    last = history.tail(4)
    final = ratings.filter(pl.col("player_id").is_in(last["player_id"].to_list())).sort("player_id")
    assert last.sort("player_id")["mu_after"].to_list() == pytest.approx(final["mu"].to_list())
    row = history.row(10, named=True)
    assert row["level_diff_low"] < row["expected_level_diff"] < row["level_diff_high"]
    by_match = history.group_by("match_id").agg(pl.col("win_probability").sum(), pl.col("level_diff").sum())
    assert by_match["win_probability"].to_list() == pytest.approx([2.0] * by_match.height)  # 2 + 2 seats
    assert by_match["level_diff"].to_list() == [0] * by_match.height


def test_model_parameters_and_library_are_stored() -> None:
    ratings, _ = rate(*simulated(10))
    row = ratings.row(0, named=True)
    assert (row["model"], row["update_unit"]) == ("gaussian_deal_margins", "deal")
    assert row["library"].startswith("numpy==")
    params = json.loads(row["model_params"])
    assert params["prior_sd"] == RatingParams().prior_sd
    assert row["rating"] == pytest.approx(row["mu"] - RatingParams().display_k * row["sigma"])


def test_forfeits_and_byes_are_not_rated() -> None:
    rows = dan_round("m1", 0, ("a", "b"), ("c", "d"), 1, 0)
    for r in rows:
        r["outcome"] = "forfeit"
    ratings, history = rate(scores(*rows), deals())
    assert ratings.is_empty() and history.is_empty()


def test_partners_rounds_win_rate_and_gain() -> None:
    s, d = simulated(30)
    _, history = rate(s, d)
    table = partners(s, history)
    first = table.row(0, named=True)
    pair = history.filter(
        (pl.col("player_id") == first["player_1"]) & (pl.col("partner_id") == first["player_2"])
    )
    assert first["rounds"] == pair.height
    assert first["mu_gain_1"] == pytest.approx((pair["mu_after"] - pair["mu_before"]).sum())
    assert first["mu_gain"] == pytest.approx(first["mu_gain_1"] + first["mu_gain_2"])
    assert first["win_rate"] == pytest.approx((first["wins"] + 0.5 * first["draws"]) / first["rounds"])


def test_win_calibration_recovers_the_scale_of_past_forecasts_only() -> None:
    """The probit scale is fitted on earlier forecasts and results: forecasts twice too cautious
    (true p = Φ(2 · Φ⁻¹(p₀))) give a ≈ 2; before ``minimum`` decided rounds it stays 1, and
    drawn rounds are not evidence."""
    import numpy as np
    from scipy.stats import norm

    from scoring.ratings import WinCalibration

    rng = np.random.default_rng(3)
    cal = WinCalibration(minimum=50, refit=1.1)
    for i, p0 in enumerate(rng.uniform(0.05, 0.95, 4000)):
        cal.learn(float(p0), "draw")
        if i == 10:
            assert cal.scale == 1.0
            assert cal.apply(0.7) == 0.7
        truth = float(norm.cdf(2 * norm.ppf(p0)))
        cal.learn(float(p0), "win" if rng.random() < truth else "loss")
    assert len(cal.z) == 4000
    assert cal.scale == pytest.approx(2.0, abs=0.15)
    assert cal.apply(0.7) == pytest.approx(float(norm.cdf(cal.scale * norm.ppf(0.7))))


def test_recalibrated_win_chance_is_calibrated_when_rounds_are_shorter_than_assumed() -> None:
    """Rounds of 4 deals forecast with the parameters of 7.2-deal rounds: the Gaussian's P(win) is
    too sure of itself; the online probit scale (fitted on earlier forecasts only) brings the later
    forecasts back to their observed win rates and improves their log-loss."""
    s, d = simulated(1500, seed=11, deals_per_round=4)
    model = GaussianRatings(RatingParams())
    raw, recalibrated, won = [], [], []
    for i, r in enumerate(rated_rounds(s, d)):
        fc, fc_raw = model.forecast(r), model.raw_forecast(r)
        if i >= 500 and r.result["EW"] in ("win", "loss"):
            raw.append(fc_raw.p_ew)
            recalibrated.append(fc.p_ew)
            won.append(r.result["EW"] == "win")
        model.update(r)
    p, p0, y = np.array(recalibrated), np.array(raw), np.array(won, dtype=float)
    assert model.calibration is not None and model.calibration.scale < 0.9

    def log_loss(q: np.ndarray) -> float:
        q = np.clip(q, 1e-9, 1 - 1e-9)
        return float(-np.mean(y * np.log(q) + (1 - y) * np.log(1 - q)))

    assert log_loss(p) < log_loss(p0) - 0.01

    def worst_band(q: np.ndarray) -> float:
        """The largest gap between win rate and mean forecast over 5 bands, in standard errors."""
        bands = np.digitize(q, [0.2, 0.4, 0.6, 0.8])
        gaps = []
        for band in range(5):
            sel = bands == band
            if sel.sum() >= 50:
                m = float(q[sel].mean())
                gaps.append(abs(float(y[sel].mean()) - m) / math.sqrt(m * (1 - m) / sel.sum()))
        return max(gaps)

    assert worst_band(p) < 3.0
    assert worst_band(p0) > 3.0
