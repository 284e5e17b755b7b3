"""Puzzles from reviewed deals: positions with one winning idea, where the player missed it.

A puzzle is a decision of a logged deal (its exact review, ``replay.review``: all hands visible,
double-dummy) where **one action class alone** keeps the position's best value and the action
taken lost at least one level (rules.md §5.8). Action classes are the single-dummy review's
(``replay.single_dummy.action_classes``: plays the solver cannot tell apart, and the pass).

Uniqueness is verified by the solver, not read off the review: every other class's resulting
position is solved and must be worth strictly less than the solution's, within the budget;
a position any of whose classes the budget cannot settle is no puzzle. :func:`line_after` plays a
chosen action out with best play on both sides (the answer the Puzzles page shows), and
:func:`to_json` / :func:`from_json` carry a puzzle in plain JSON (``gdan puzzles export``).
Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from replay.combos import Combo
from replay.moves import Move, legal_moves
from replay.review import action_of, position_before, review_deal
from replay.rulesets import BUILTIN, Ruleset
from replay.seats import TEAM
from replay.single_dummy import action_classes, value_after
from replay.solver import Action, Budget, DealEnd, Position, Solver, play_action

MIN_LOSS = 1
"""Levels the action taken must have lost for a decision to become a puzzle."""


@dataclass(frozen=True, slots=True)
class Puzzle:
    """One puzzle: where it comes from (``match``, ``deal``, ``seq``), the ``position``, every move
    of the one winning class (``solution``), the action taken, the best ``value`` for the player's
    team and what the action taken reached (``played_value``), in levels."""

    match: str
    deal: int
    seq: int
    position: Position
    solution: tuple[Move, ...]
    played: Action
    value: int
    played_value: int

    @property
    def id(self) -> str:
        """A stable name for links: match, deal and seq."""
        return f"{self.match}:{self.deal}:{self.seq}"


def _class_key(position: Position, action: Action, solver: Solver) -> object:
    after = play_action(position, action, solver)
    return ("end", after.gain, after.order[0]) if isinstance(after, DealEnd) else solver.key(after)


def value_of(position: Position, action: Action, solver: Solver, budget: Budget) -> int | None:
    """The exact value for the player to move of taking ``action`` (``None``: budget too small)."""
    return value_after(play_action(position, action, solver), TEAM[position.turn], solver, budget)


def unique_solution(
    position: Position, solver: Solver, budget: Budget
) -> tuple[tuple[Move, ...], int] | None:
    """The moves of the only action class that keeps the best value and that value, verified
    against every other class (module docstring); ``None`` when there is no such single class or
    the budget cannot settle one of them."""
    classes = action_classes(position, solver)
    values: list[int] = []
    for action, _, _ in classes:
        v = value_of(position, action, solver, budget)
        if v is None:
            return None
        values.append(v)
    best = max(values)
    winners = [i for i, v in enumerate(values) if v == best]
    if len(winners) != 1 or classes[winners[0]][0] is None:
        return None
    key = classes[winners[0]][2]
    hand = position.hands[position.turn]
    moves = legal_moves(
        hand, position.level, position.table, full_house_joker_pair=position.ruleset.full_house_joker_pair
    )
    return tuple(m for m in moves if _class_key(position, m, solver) == key), best


def puzzle_at(
    events: Sequence[Mapping[str, Any]],
    match: str,
    deal: int,
    seq: int,
    budget: Budget,
    rulesets: Mapping[str, Ruleset] | None = None,
) -> Puzzle | None:
    """The puzzle at decision ``seq`` of a match's ``events`` (module docstring), or ``None`` when
    it is none: no single winning class, a loss under ``MIN_LOSS``, or the budget too small.
    ``ValueError`` when ``seq`` is no play or pass the log lets the review follow."""
    position = position_before(events, seq, rulesets)
    by_seq = {int(e["seq"]): e for e in events}
    played = action_of(position, by_seq[seq])
    solver = Solver(position.level, position.ruleset)
    found = unique_solution(position, solver, budget)
    if found is None:
        return None
    solution, value = found
    played_value = value_of(position, played, solver, budget)
    if played_value is None or value - played_value < MIN_LOSS:
        return None
    return Puzzle(match, deal, seq, position, solution, played, value, played_value)


def find_puzzles(
    events: Sequence[Mapping[str, Any]],
    budget: Budget,
    *,
    deal: int | None = None,
    max_cards_left: int | None = 16,
    rulesets: Mapping[str, Ruleset] | None = None,
) -> list[Puzzle]:
    """The puzzles of one deal (module docstring), in log order; ``deal`` and ``rulesets`` as for
    ``review_deal``, which reviews the decisions with at most ``max_cards_left`` cards left."""
    rows = review_deal(events, budget, deal=deal, max_cards_left=max_cards_left, rulesets=rulesets)
    match = str(next(iter(events))["match"]) if events else ""
    puzzles: list[Puzzle] = []
    for row in rows:
        if row.loss < MIN_LOSS:
            continue
        dealt = deal if deal is not None else _deal_of(events, row.seq)
        puzzle = puzzle_at(events, match, dealt, row.seq, budget, rulesets)
        if puzzle is not None:
            puzzles.append(puzzle)
    return puzzles


def _deal_of(events: Sequence[Mapping[str, Any]], seq: int) -> int:
    starts = [e for e in events if e.get("type") == "deal_start" and int(e["seq"]) < seq]
    return int(max(starts, key=lambda e: int(e["seq"]))["deal"])


def line_after(
    position: Position, action: Action, budget: Budget
) -> tuple[list[tuple[str, Action]], int | None]:
    """The line after ``action`` with best play on both sides (the first best action each time)
    and its value for the player to move; the line stops early, value ``None``, when a position
    cannot be solved within ``budget``."""
    solver = Solver(position.level, position.ruleset)
    team = TEAM[position.turn]
    line: list[tuple[str, Action]] = [(position.turn, action)]
    after = play_action(position, action, solver)
    while not isinstance(after, DealEnd):
        solution = solver.solve(after, budget)
        if solution.value is None:
            return line, None
        move = solution.best_moves[0]
        line.append((after.turn, move))
        after = play_action(after, move, solver)
    return line, after.value_for(team)


# ---- JSON ---------------------------------------------------------------------------------------


def _action_json(action: Action) -> dict[str, Any] | None:
    if action is None:
        return None
    return {"cards": list(action.cards), "type": action.combo.type, "rank": action.combo.rank}


def _action_from(data: Mapping[str, Any] | None) -> Action:
    if data is None:
        return None
    cards = tuple(data["cards"])
    return Move(cards, Combo(data["type"], data["rank"], len(cards)))


def to_json(puzzle: Puzzle) -> dict[str, Any]:
    """A puzzle as plain JSON (the position in full: every hand, the table and who is out)."""
    p = puzzle.position
    table = None if p.table is None else {"type": p.table.type, "rank": p.table.rank, "size": p.table.size}
    return {
        "id": puzzle.id,
        "match": puzzle.match,
        "deal": puzzle.deal,
        "seq": puzzle.seq,
        "rules": p.ruleset.id,
        "level": p.level,
        "turn": p.turn,
        "hands": {s: list(h) for s, h in p.hands.items()},
        "table": table,
        "table_seat": p.table_seat,
        "passes": p.passes,
        "out": list(p.out),
        "solution": [_action_json(m) for m in puzzle.solution],
        "played": _action_json(puzzle.played),
        "value": puzzle.value,
        "played_value": puzzle.played_value,
        "verdict": "exact, all hands visible (double-dummy)",
    }


def from_json(data: Mapping[str, Any], rulesets: Mapping[str, Ruleset] | None = None) -> Puzzle:
    """A puzzle from :func:`to_json`'s form; ``KeyError``/``ValueError`` name what is wrong."""
    ruleset = (rulesets or BUILTIN).get(data["rules"])
    if ruleset is None:
        raise ValueError(f"puzzle {data.get('id')}: unknown ruleset {data['rules']!r}")
    t = data["table"]
    position = Position(
        hands={s: tuple(h) for s, h in data["hands"].items()},
        level=data["level"],
        ruleset=ruleset,
        turn=data["turn"],
        table=None if t is None else Combo(t["type"], t["rank"], t["size"]),
        table_seat=data["table_seat"],
        passes=int(data["passes"]),
        out=tuple(data["out"]),
    )
    solution = tuple(m for m in (_action_from(s) for s in data["solution"]) if m is not None)
    return Puzzle(
        str(data["match"]),
        int(data["deal"]),
        int(data["seq"]),
        position,
        solution,
        _action_from(data["played"]),
        int(data["value"]),
        int(data["played_value"]),
    )
