"""openskill ratings, their metadata, history and the partner view."""

from __future__ import annotations

import json
import random

import polars as pl
import pytest
from scipy.stats import spearmanr
from scoring_builders import dan_round, deal, deals, scores

from scoring.params import RatingParams
from scoring.partners import partners
from scoring.ratings import rate


def round_robin_league(n_rounds: int, seed: int = 7) -> pl.DataFrame:
    """Random partnerships of 8 players; the lower the player's index, the likelier the win."""
    rng = random.Random(seed)
    players = [f"p{i}" for i in range(8)]
    rows = []
    for i in range(n_rounds):
        four = rng.sample(players, 4)
        ew, ns = (four[0], four[1]), (four[2], four[3])
        strength = sum(8 - int(p[1:]) for p in ew) - sum(8 - int(p[1:]) for p in ns)
        ew_wins = rng.random() < 1 / (1 + 10 ** (-strength / 4))
        rows.extend(dan_round(f"m{i:04d}", i, ew, ns, int(ew_wins), int(not ew_wins)))
    return scores(*rows)


def test_stronger_players_rate_higher() -> None:
    ratings, history = rate(round_robin_league(400))
    strength = [8 - int(p[1:]) for p in ratings["player_id"]]
    assert spearmanr(strength, ratings["mu"].to_list()).statistic >= 0.8
    assert history.height == 4 * 400
    assert ratings["rounds"].sum() == 4 * 400


def test_model_parameters_and_library_are_stored() -> None:
    ratings, _ = rate(round_robin_league(10))
    row = ratings.row(0, named=True)
    assert row["model"] == "PlackettLuce"
    assert row["library"] == "openskill==6.2.0"
    params = json.loads(row["model_params"])
    assert (params["beta"], params["update_unit"]) == (RatingParams().beta, "round")
    assert row["rating"] == pytest.approx(row["mu"] - 3 * row["sigma"])


def test_provisional_until_sigma_below_threshold() -> None:
    ratings, _ = rate(round_robin_league(400))
    threshold = RatingParams().provisional_sigma
    assert (ratings["provisional"] == (ratings["sigma"] >= threshold)).all()
    assert not ratings["provisional"].all()
    few, _ = rate(round_robin_league(2))
    assert few["provisional"].all()


def test_history_chains_and_predicts_before_the_update() -> None:
    _, history = rate(round_robin_league(50))
    for _, rows in history.sort("started_at").group_by("player_id", maintain_order=True):
        assert rows["mu_before"][1:].to_list() == pytest.approx(rows["mu_after"][:-1].to_list())
    first = history.sort("started_at").head(4)
    assert first["win_probability"].to_list() == pytest.approx([0.5] * 4)


def test_per_deal_updates_use_each_deal() -> None:
    """A won round whose deals went mostly the other way moves the round's loser up per deal."""
    s = scores(*dan_round("m1", 0, ("a", "b"), ("c", "d"), 1, 0))
    d = deals(deal("m1", 1, "NS", 1), deal("m1", 2, "NS", 1), deal("m1", 3, "EW", 3))
    per_round, _ = rate(s, d, RatingParams(update_unit="round"))
    per_deal, _ = rate(s, d, RatingParams(update_unit="deal"))
    mu = {r["player_id"]: r["mu"] for r in per_round.iter_rows(named=True)}
    mu_deal = {r["player_id"]: r["mu"] for r in per_deal.iter_rows(named=True)}
    assert mu["a"] > mu["c"]
    assert mu_deal["c"] > mu_deal["a"]
    assert per_deal["deals"].to_list() == [3, 3, 3, 3]
    assert per_deal["update_unit"].unique().to_list() == ["deal"]


def test_forfeits_and_byes_are_not_rated() -> None:
    rows = dan_round("m1", 0, ("a", "b"), ("c", "d"), 1, 0)
    for r in rows:
        r["outcome"] = "forfeit"
    ratings, history = rate(scores(*rows))
    assert ratings.is_empty() and history.is_empty()


def test_partners_rounds_win_rate_and_gain() -> None:
    rows = (dan_round("m1", 0, ("a", "b"), ("c", "d"), 1, 0)
            + dan_round("m2", 1, ("b", "a"), ("c", "d"), 0, 1)
            + dan_round("m3", 2, ("a", "c"), ("b", "d"), 1, 0))
    s = scores(*rows)
    _, history = rate(s)
    table = partners(s, history)
    ab = table.filter((pl.col("player_1") == "a") & (pl.col("player_2") == "b")).row(0, named=True)
    assert (ab["rounds"], ab["wins"], ab["losses"], ab["win_rate"]) == (2, 1, 1, 0.5)
    gain_a = history.filter((pl.col("player_id") == "a") & (pl.col("partner_id") == "b"))
    assert ab["mu_gain_1"] == pytest.approx((gain_a["mu_after"] - gain_a["mu_before"]).sum())
    assert ab["mu_gain"] == pytest.approx(ab["mu_gain_1"] + ab["mu_gain_2"])
    assert table.height == 4
