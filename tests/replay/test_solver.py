"""The endgame solver: properties on random endgames, hand-made positions with known
answers (cited by rules.md §), budgets and the checks on a position."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_solver_brute import brute_value, random_endgame

from replay import TEAM, Move, get_ruleset, legal_moves
from replay.combos import combo
from replay.solver import Action, Budget, DealEnd, Position, Solver, play_action, solve

NATIONAL = get_ruleset("national")


def value_after(p: Position, action: Action) -> int:
    """The value, for the team that acted, of the position after ``action`` (solved exactly)."""
    after = play_action(p, action)
    team = TEAM[p.turn]
    if isinstance(after, DealEnd):
        return after.value_for(team)
    s = solve(after, Budget(nodes=None))
    assert s.value is not None
    return s.value if TEAM[after.turn] == team else -s.value


def actions(p: Position) -> list[Action]:
    """Every legal action: the plays, then a pass when following."""
    plays: list[Action] = list(
        legal_moves(p.hands[p.turn], p.level, p.table, full_house_joker_pair=p.ruleset.full_house_joker_pair)
    )
    return plays + ([None] if p.table is not None else [])


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32))
def test_best_moves_keep_the_value_and_nothing_does_better(seed: int) -> None:
    """A reported best action leads to a position of the same value (for the same team);
    no legal action does better; the best actions are exactly those that reach the value."""
    p = random_endgame(random.Random(seed), 3, 10)
    s = solve(p, Budget(nodes=None))
    assert s.solved and s.value is not None and s.best_moves
    values = {a: value_after(p, a) for a in actions(p)}
    assert max(values.values()) == s.value
    assert set(s.best_moves) == {a for a, v in values.items() if v == s.value}


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 2**32))
def test_a_shared_table_never_changes_a_value(seed: int, other: int) -> None:
    """Canonicalisation and reuse never change a value: a solver that has solved other positions of
    the same level and ruleset first (its table filled) answers as a fresh one and as minimax."""
    p = random_endgame(random.Random(seed), 3, 8)
    rng = random.Random(other)
    solver = Solver(p.level, p.ruleset)
    for _ in range(5):
        q = random_endgame(rng, 3, 8)
        if (q.level, q.ruleset) == (p.level, p.ruleset):
            solver.solve(q)
    assert solver.solve(p).value == solve(p).value == brute_value(p)


def test_forced_double_win() -> None:
    """rules.md §5.7–§5.8: E goes out with a single only W can beat; whether W overtakes (out at
    once) or passes (接风, §5.6), W leads next and is out 2nd: a double win, +3 for EW."""
    p = Position({"E": ["S9"], "N": ["S3", "S3"], "W": ["SK"], "S": ["S4", "S4"]}, "2", NATIONAL, "E")
    s = solve(p)
    assert s.value == 3
    assert s.best_moves == (Move(("S9",), combo("single", "9")),)


def test_jie_feng_saves_the_deal() -> None:
    """rules.md §5.6: E goes out with the big joker, nobody can beat it, and the lead passes to E's
    partner W, who goes out with the pair: a double win (+3). Had the lead gone on to N (the next
    seat), N would be out with the ace."""
    p = Position({"E": ["HR"], "N": ["SA"], "W": ["S5", "S5"], "S": ["SK"]}, "2", NATIONAL, "E")
    assert solve(p).value == 3
    after = play_action(p, Move(("HR",), combo("single", "R")))
    for seat in ("N", "W", "S"):
        assert isinstance(after, Position) and after.turn == seat
        after = play_action(after, None)
    assert isinstance(after, Position) and after.turn == "W" and after.table is None and after.out == ("E",)


def test_bomb_that_must_be_kept() -> None:
    """rules.md §4: E may bomb S's queen now (every other card passes, E leads the 9 and is out
    first, but N's jack stops W: +2) or keep the bomb for later; keeping it wins a double (+3)."""
    p = Position(
        {"E": ["S7", "H7", "C7", "D7", "C9"], "N": ["DJ", "C3"], "W": ["ST"], "S": ["C5", "S8"]},
        "2",
        NATIONAL,
        "E",
        table=combo("single", "Q"),
        table_seat="S",
    )
    s = solve(p)
    assert s.value == 3 == brute_value(p)
    assert s.best_moves == (None,)
    bomb = Move(("S7", "H7", "C7", "D7"), combo("bomb", "7", 4))
    assert value_after(p, bomb) == 2


def test_out_of_budget_is_unsolved_never_a_guess() -> None:
    """A node budget that runs out gives ``solved=False`` and no value or moves."""
    p = random_endgame(random.Random(5), 3, 12)
    full = solve(p, Budget(nodes=None))
    assert full.solved and full.nodes > 1
    s = solve(p, Budget(nodes=1))
    assert (s.solved, s.value, s.best_moves) == (False, None, ())
    assert not solve(p, Budget(nodes=None, seconds=0.0)).solved


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"out": ("N",)}, "is out but holds cards"),
        ({"turn": "X"}, "turn"),
        ({"table": combo("single", "5")}, "table seat"),
        ({"table": combo("single", "5"), "table_seat": "S", "passes": 2}, "passes"),
        ({"hands": {"E": ["S3"] * 3, "N": ["S4"], "W": ["S5"], "S": ["S6"]}}, "more than two copies"),
    ],
)
def test_positions_the_play_cannot_reach_are_refused(change: dict[str, object], message: str) -> None:
    """rules.md §1, §5: a position with impossible cards, seats out, turn or passes is a ValueError."""
    fields: dict[str, object] = {
        "hands": {"E": ["S3"], "N": ["S4"], "W": ["S5"], "S": ["S6"]},
        "level": "2",
        "ruleset": NATIONAL,
        "turn": "E",
        **change,
    }
    with pytest.raises(ValueError, match=message):
        solve(Position(**fields))  # type: ignore[arg-type]
