"""Skill from decisions: real choices exclude forced passes and all-equal positions; more levels
lost per real choice ranks lower; few choices are shrunk toward the population; the combined
estimate follows both sources."""

from __future__ import annotations

from replay.combos import Combo
from replay.moves import legal_moves
from replay.rulesets import BUILTIN
from replay.solver import Position, solve
from scoring.decision_skill import combined, decision_skill, is_real_choice, reliability

NATIONAL = BUILTIN["national"]


def test_a_forced_pass_is_no_real_choice() -> None:
    """rules.md §5.3: a player who cannot beat the table can only pass."""
    p = Position(
        {"E": ("S3",), "N": ("SA",), "W": ("S4",), "S": ("S5",)},
        "2",
        NATIONAL,
        "E",
        table=Combo("single", "R", 1),
        table_seat="S",
    )
    assert not is_real_choice(p, (None,))


def test_a_choice_with_a_worse_action_is_real_and_all_best_is_not() -> None:
    """E leads: the ace first keeps the lead (N's king cannot beat it), the three first lets N
    out first; with every legal action best (or a single card to lead) nothing can be lost."""
    p = Position({"E": ("S3", "SA"), "N": ("SK",), "W": ("S4", "S4"), "S": ("S5", "S6")}, "2", NATIONAL, "E")
    best = solve(p).best_moves
    assert [m.cards for m in best if m is not None] == [("SA",)]
    assert is_real_choice(p, best)
    every = legal_moves(p.hands["E"], p.level, None)
    assert not is_real_choice(p, tuple(every))
    alone = Position({"E": ("SA",), "N": ("SK",), "W": ("S4",), "S": ("S5",)}, "2", NATIONAL, "E")
    assert not is_real_choice(alone, solve(alone).best_moves)


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
