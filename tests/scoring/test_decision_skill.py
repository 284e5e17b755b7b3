"""Skill from decisions: more levels lost per real choice ranks lower; few choices are shrunk
toward the population; the combined estimate follows both sources."""

from __future__ import annotations

from scoring.decision_skill import combined, decision_skill, reliability


def test_more_loss_ranks_lower_and_few_choices_shrink() -> None:
    losses = {
        "careful": [0.0] * 40 + [1.0] * 2,
        "careless": [0.0] * 30 + [1.0] * 12,
        "average": [0.0] * 35 + [1.0] * 7,
        "unseen": [1.0],
    }
    skill = decision_skill(losses)
    assert skill["careful"].estimate > skill["average"].estimate > skill["careless"].estimate
    for s in skill.values():
        assert s.low <= s.estimate <= s.high and s.loss_low <= s.mean_loss <= s.loss_high
    assert skill["unseen"].mean_loss == 1.0
    assert -skill["unseen"].estimate < 1.0  # shrunk toward the population's mean loss
    assert skill["unseen"].reliability < skill["careful"].reliability
    assert 0 < reliability(skill) < 1
    both = combined({"careful": 1.0, "careless": -1.0, "average": 0.0}, skill, 0.9)
    assert both["careful"] > both["average"] > both["careless"]
    flipped = combined({"careful": -1.0, "careless": 1.0, "average": 0.0}, skill, 0.99)
    assert flipped["careless"] > flipped["careful"]  # a near-certain rating outweighs the decisions
    assert combined({"careful": -1.0, "careless": 1.0, "average": 0.0}, skill, 0.0)["careful"] > 0
