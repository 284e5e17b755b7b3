"""Decision review of logged deals with the exact endgame solver.

:func:`position_before` rebuilds the :class:`~replay.solver.Position` just before a play or pass of
a v1 log (events.md): the dealt hands, the tribute and return cards moved (rules.md §6), then every
play and pass through :func:`~replay.solver.play_action`, the transition the solver searches with.
The log is assumed valid (``replay_match`` says so); what the rebuild relies on is still checked,
and a log it cannot follow is a ``ValueError``.

:func:`review_deal` scores every decision of a deal from the first position the budget can solve
until the deal ends: the value before it, the best value reachable, the value after the action
taken (all for the deciding team, in levels, rules.md §5.8) and the loss, best − after. Positions
are solved from the end of the deal backwards by one :class:`~replay.solver.Solver`, so each solve
reuses the transposition table of the later ones; the review stops at the first (latest-to-
earliest) position its budget cannot solve, so the rows are the longest solvable tail of the deal.
Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from replay.cards import sort_cards
from replay.events import normalise_level
from replay.moves import Move
from replay.rulesets import BUILTIN, Ruleset
from replay.seats import SEATS, TEAM
from replay.solver import (
    DEFAULT_BUDGET,
    Action,
    Budget,
    DealEnd,
    Position,
    Solver,
    play_action,
    reading_of,
)

DEAL_ENDING_RULINGS = frozenset({"foul", "red_card", "yellow_card", "forfeit_match"})
"""Rulings that can end a deal in play (rules.md §8): the rebuild of a deal stops at them."""


@dataclass(frozen=True, slots=True)
class DecisionReview:
    """One reviewed play or pass: values in levels for the deciding ``team`` (rules.md §5.8).

    ``value_before`` is the position's value and ``best_value`` the most any action reaches; under
    exact play they are equal (both kept). ``loss`` = ``best_value`` −
    ``value_after`` ≥ 0, 0 exactly when ``action`` is one of ``best_moves``.
    """

    seq: int
    seat: str
    team: str
    action: Action
    cards_left: int
    value_before: int
    best_value: int
    value_after: int
    loss: int
    best_moves: tuple[Action, ...]
    nodes: int


@dataclass(frozen=True, slots=True)
class _Step:
    """A logged decision: its seq, the position before it and the action taken."""

    seq: int
    position: Position
    action: Action


def _ordered(events: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return sorted(events, key=lambda e: int(e["seq"]))


def _ruleset(events: list[Mapping[str, Any]], rulesets: Mapping[str, Ruleset] | None) -> Ruleset:
    start = next((e for e in events if e.get("type") == "match_start"), None)
    if start is None:
        raise ValueError("the events hold no match_start (it names the ruleset)")
    found = (rulesets or BUILTIN).get(start["rules"])
    if found is None:
        raise ValueError(f"unknown ruleset {start['rules']!r}")
    return found


def action_of(position: Position, ev: Mapping[str, Any]) -> Action:
    """The action of a logged play or pass event in ``position``, read as the replay reads it
    (events.md "Combination reading")."""
    if ev["type"] == "pass":
        return None
    cards = list(ev["cards"])
    declared = ev.get("combo")
    reading = (declared["type"], declared["rank"]) if declared is not None else None
    return Move(sort_cards(cards), reading_of(position, cards, reading))


def _deal_steps(
    events: list[Mapping[str, Any]], start: int, ruleset: Ruleset
) -> tuple[list[_Step], DealEnd | Position | None]:
    """The decisions of the deal whose ``deal_start`` is ``events[start]``, and what follows the
    last one: the :class:`DealEnd`, or the position the log stops at (a ruling, no more events)."""
    ev = events[start]
    hands = {s: list(ev.get("hands", {}).get(s) or ()) for s in SEATS}
    if any(len(h) == 0 for h in hands.values()):
        raise ValueError(f"deal {ev.get('deal')} does not show all four hands")
    level = normalise_level(ev["level"])
    if level is None:
        raise ValueError(f"deal {ev.get('deal')} has no valid level")
    steps: list[_Step] = []
    position: Position | None = None
    follower = Solver(level, ruleset)
    """Reused by every transition of the deal (``play_action``): hands are canonicalised once."""
    for ev in events[start + 1 :]:
        kind = ev["type"]
        if kind in ("tribute", "return") and position is None:
            hands[ev["from"]].remove(ev["card"])
            hands[ev["to"]].append(ev["card"])
        elif kind in ("play", "pass"):
            if position is None:
                position = Position({s: tuple(h) for s, h in hands.items()}, level, ruleset, ev["seat"])
            if ev["seat"] != position.turn:
                raise ValueError(f"seq {ev['seq']}: {ev['seat']} acts but it is {position.turn}'s turn")
            action = action_of(position, ev)
            steps.append(_Step(int(ev["seq"]), position, action))
            after = play_action(position, action, follower)
            if isinstance(after, DealEnd):
                return steps, after
            position = after
        elif kind in ("deal_end", "deal_start", "match_end") or (
            kind == "ruling" and ev.get("kind") in DEAL_ENDING_RULINGS
        ):
            break
    return steps, position


def _deal_start_index(events: list[Mapping[str, Any]], before_seq: int | None, deal: int | None) -> int:
    """Index of the ``deal_start`` of deal number ``deal``, or of the last one before ``before_seq``,
    or of the only one."""
    starts = [i for i, e in enumerate(events) if e.get("type") == "deal_start"]
    if deal is not None:
        starts = [i for i in starts if events[i].get("deal") == deal]
    elif before_seq is not None:
        starts = [i for i in starts if int(events[i]["seq"]) < before_seq][-1:]
    elif len(starts) > 1:
        raise ValueError("the events hold several deals: name the one to review")
    if not starts:
        raise ValueError("no such deal in the events")
    return starts[-1]


def position_before(
    events: Sequence[Mapping[str, Any]], seq: int, rulesets: Mapping[str, Ruleset] | None = None
) -> Position:
    """The position just before event ``seq``, a play or pass of a v1 log (the events of its match,
    any order; ``rulesets`` as for ``replay_match``). ``ValueError`` when ``seq`` is no play or
    pass of a deal whose four hands the log shows, or the log cannot be followed up to it."""
    ordered = _ordered(events)
    steps, _ = _deal_steps(ordered, _deal_start_index(ordered, seq, None), _ruleset(ordered, rulesets))
    for step in steps:
        if step.seq == seq:
            return step.position
    raise ValueError(f"seq {seq} is no play or pass of a deal in play")


def review_deal(
    events: Sequence[Mapping[str, Any]],
    budget: Budget = DEFAULT_BUDGET,
    *,
    deal: int | None = None,
    max_cards_left: int | None = None,
    rulesets: Mapping[str, Ruleset] | None = None,
) -> list[DecisionReview]:
    """Review the decisions of one deal (module docstring), in log order.

    ``events``: the events of its match (``match_start`` names the ruleset); ``deal``: its number,
    needed when the events hold several deals. ``budget`` applies to each position. Only the
    decisions with at most ``max_cards_left`` cards in all hands are considered (``None``: all).
    """
    ordered = _ordered(events)
    ruleset = _ruleset(ordered, rulesets)
    steps, end = _deal_steps(ordered, _deal_start_index(ordered, None, deal), ruleset)
    if max_cards_left is not None:
        steps = [s for s in steps if s.position.cards_left() <= max_cards_left]
    if not steps:
        return []
    solver = Solver(steps[0].position.level, ruleset)
    after: DealEnd | tuple[str, int]
    """What follows the current decision: the end of the deal, or the team to move next and its value."""
    if isinstance(end, DealEnd):
        after = end
    else:
        last = solver.solve(end, budget) if end is not None else None
        if end is None or last is None or last.value is None:
            return []
        after = (TEAM[end.turn], last.value)
    rows: list[DecisionReview] = []
    for step in reversed(steps):
        p = step.position
        solution = solver.solve(p, budget)
        if solution.value is None:
            break
        team = TEAM[p.turn]
        if isinstance(after, DealEnd):
            value_after = after.value_for(team)
        else:
            value_after = after[1] if after[0] == team else -after[1]
        rows.append(
            DecisionReview(
                seq=step.seq,
                seat=p.turn,
                team=team,
                action=step.action,
                cards_left=p.cards_left(),
                value_before=solution.value,
                best_value=solution.value,
                value_after=value_after,
                loss=solution.value - value_after,
                best_moves=solution.best_moves,
                nodes=solution.nodes,
            )
        )
        after = (team, solution.value)
    rows.reverse()
    return rows
