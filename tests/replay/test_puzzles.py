"""Puzzles from reviewed deals: each one's unique solution is re-verified move by move with a fresh
solver, the action taken lost at least a level, the JSON form round-trips and the answer line
ends the deal with the solution's value (rules.md §5.8)."""

from __future__ import annotations

import json
from functools import cache

from replay.moves import legal_moves
from replay.puzzles import MIN_LOSS, Puzzle, find_puzzles, from_json, line_after, to_json, value_of
from replay.solver import Budget, Solver
from simulator.api import simulate_match

BUDGET = Budget(nodes=100_000)


@cache
def _puzzles() -> list[Puzzle]:
    events = simulate_match("national", seed=1)
    deals = sorted({e["deal"] for e in events if e["type"] == "deal_start"})
    found = [p for d in deals for p in find_puzzles(events, BUDGET, deal=d, max_cards_left=12)]
    assert found, "the simulated match yields no puzzle"
    return found


def test_each_solution_is_unique_and_the_action_taken_lost() -> None:
    """Every legal move (and the pass, when following) valued afresh: the solution's moves, and
    only they, reach the best value; the action taken is ≥ MIN_LOSS levels worse."""
    for puzzle in _puzzles():
        p = puzzle.position
        solver = Solver(p.level, p.ruleset)
        moves = legal_moves(
            p.hands[p.turn], p.level, p.table, full_house_joker_pair=p.ruleset.full_house_joker_pair
        )
        values = {m: value_of(p, m, solver, BUDGET) for m in moves}
        best = [m for m, v in values.items() if v == puzzle.value]
        assert set(best) == set(puzzle.solution)
        assert all(v is not None and v <= puzzle.value for v in values.values())
        if p.table is not None:
            passed = value_of(p, None, solver, BUDGET)
            assert passed is not None and passed < puzzle.value
        assert value_of(p, puzzle.played, solver, BUDGET) == puzzle.played_value
        assert puzzle.value - puzzle.played_value >= MIN_LOSS


def test_json_round_trip_and_answer_line() -> None:
    """A puzzle survives JSON; the line after the solution ends the deal at the puzzle's value,
    the line after the action taken at the value it reached."""
    for puzzle in _puzzles()[:3]:
        assert from_json(json.loads(json.dumps(to_json(puzzle)))) == puzzle
        line, value = line_after(puzzle.position, puzzle.solution[0], BUDGET)
        assert value == puzzle.value
        assert line[0] == (puzzle.position.turn, puzzle.solution[0])
        assert line_after(puzzle.position, puzzle.played, BUDGET)[1] == puzzle.played_value
