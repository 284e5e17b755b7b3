"""Play-pattern rates with their sample sizes (dashboards/patterns.py): a rate is numerator over
denominator, and a metric without a sample has no value rather than a misleading zero."""

from __future__ import annotations

import pandas as pd
import pytest

from dashboards.patterns import pattern_table

STATS = {
    "pass_beat": 3,
    "able_to_beat": 12,
    "overtakes": 1,
    "facing_partner": 4,
    "bombs": 5,
    "bomb_opp_left": 7.5,
    "deals": 10,
    "returns": 2,
    "return_rank": 6.0,
}


def _one(**values: float) -> pd.DataFrame:
    return pd.DataFrame([values])


@pytest.mark.parametrize(
    ("metric", "player_value", "player_n"),
    [
        ("pass_when_beat", 3 / 12, 12),
        ("overtake_partner", 1 / 4, 4),
        ("bombs_per_deal", 5 / 10, 10),
        ("jie_feng", 2 / 8, 8),
        ("bomb_opp_left", 7.5, 5),
        ("return_rank", 6.0, 2),
    ],
)
def test_rates_and_samples(metric: str, player_value: float, player_n: int) -> None:
    table = pattern_table(_one(**STATS), _one(**STATS), _one(jie_feng=2, deals=8), _one(jie_feng=4, deals=40))
    row = table.set_index("metric").loc[metric]
    assert row["player_value"] == pytest.approx(player_value)
    assert row["player_n"] == player_n


def test_no_sample_means_no_value() -> None:
    empty = {k: 0 for k in STATS} | {"bomb_opp_left": float("nan"), "return_rank": float("nan")}
    table = pattern_table(_one(**empty), _one(**STATS), _one(jie_feng=0, deals=0), _one(jie_feng=4, deals=40))
    assert table["player_value"].isna().all()
    assert (table["player_n"] == 0).all()
    assert table["population_value"].notna().all()
