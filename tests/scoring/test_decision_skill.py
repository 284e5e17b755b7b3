"""Skill from decisions: more mistakes per real choice ranks lower, however many levels each one
lost; few choices are shrunk toward the population; the combined estimate follows both sources."""

from __future__ import annotations

import polars as pl
from hypothesis import given
from hypothesis import strategies as st

from scoring.decision_skill import combined, decision_skill, decision_skill_table, reliability


def test_more_mistakes_rank_lower_and_few_choices_shrink() -> None:
    losses = {
        "careful": [0.0] * 40 + [1.0] * 2,
        "careless": [0.0] * 30 + [1.0] * 12,
        "average": [0.0] * 35 + [1.0] * 7,
        "unseen": [1.0],
    }
    skill = decision_skill(losses)
    assert skill["careful"].estimate > skill["average"].estimate > skill["careless"].estimate
    for s in skill.values():
        assert s.low <= s.estimate <= s.high and s.rate_low <= s.mistake_rate <= s.rate_high
    assert skill["unseen"].mistake_rate == 1.0 and skill["unseen"].mistakes == 1
    assert -skill["unseen"].estimate < 1.0  # shrunk toward the population's mistake rate
    assert skill["unseen"].reliability < skill["careful"].reliability
    assert 0 < reliability(skill) < 1
    both = combined({"careful": 1.0, "careless": -1.0, "average": 0.0}, skill, 0.9)
    assert both["careful"] > both["average"] > both["careless"]
    flipped = combined({"careful": -1.0, "careless": 1.0, "average": 0.0}, skill, 0.99)
    assert flipped["careless"] > flipped["careful"]  # a near-certain rating outweighs the decisions
    assert combined({"careful": -1.0, "careless": 1.0, "average": 0.0}, skill, 0.0)["careful"] > 0


def test_a_mistake_counts_once_however_many_levels_it_lost() -> None:
    """One 4-level swing is one mistake: the player with three 1-level mistakes ranks lower."""
    losses = {
        "one_big_swing": [0.0] * 27 + [4.0],
        "three_small": [0.0] * 25 + [1.0] * 3,
        "clean": [0.0] * 28,
        "sloppy": [0.0] * 20 + [1.0, 2.0] * 4,
    }
    skill = decision_skill(losses)
    assert skill["one_big_swing"].mistakes == 1 and skill["three_small"].mistakes == 3
    assert skill["one_big_swing"].estimate > skill["three_small"].estimate


@given(st.dictionaries(st.sampled_from("abcdef"), st.lists(st.integers(0, 6), min_size=1, max_size=30),
                       min_size=1))
def test_rates_and_intervals_stay_between_none_and_all(losses: dict[str, list[int]]) -> None:
    for s in decision_skill({p: [float(x) for x in v] for p, v in losses.items()}).values():
        assert 0.0 <= s.rate_low <= s.mistake_rate <= s.rate_high <= 1.0
        assert -1.0 <= s.low <= s.estimate <= s.high <= 0.0
        assert 0.0 < s.reliability <= 1.0


def test_the_table_counts_real_choices_only() -> None:
    """Forced passes and all-equal positions neither count as choices nor as mistakes."""
    reviews = pl.DataFrame({
        "player_id": ["p1"] * 4 + ["p2"] * 3 + [None],
        "choice": ["real", "real", "forced", "all_equal", "real", "real", "real", "real"],
        "loss": [2, 0, 0, 0, 1, 1, 0, 3],
    })
    ratings = pl.DataFrame({"player_id": ["p1", "p2"], "mu": [1.0, -1.0], "sigma": [0.5, 0.5]})
    table = {r["player_id"]: r for r in decision_skill_table(reviews, ratings).iter_rows(named=True)}
    assert set(table) == {"p1", "p2"}
    assert (table["p1"]["choices"], table["p1"]["mistakes"]) == (2, 1)
    assert (table["p2"]["choices"], table["p2"]["mistakes"]) == (3, 2)
    assert table["p1"]["combined_rank"] == 1 and table["p2"]["combined_rank"] == 2
