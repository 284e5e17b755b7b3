"""The endgame solver's search in C (``replay/_search.pyx``) against the Python search it stands in
for (``replay.solver.Solver`` with ``engine=None``): the same value, the same best moves in the
same order, the same node count and the same verdict (solved or not) on every position.

Positions come from two sources: the decisions of simulated matches of all five rulesets once at
most ``--max-left`` cards are left (the review's workload), and random small deals of every level
and ruleset followed along a random line of play (tables of every kind, passes, 接风, seats out).
Each deal is solved by one pair of solvers, its positions from the last to the first as the review
does, so the transposition tables carry over between solves; node budgets are drawn per position
(small ones run out mid-search, so ``solved=False`` must come at the same node), and
``--tt-limit`` makes the tables clear often (their rule must match too).

Run: ``.venv/bin/python benchmarks/check_native_search.py [--matches N] [--random N] [--seed S]``
(defaults check over 10,000 positions). Prints the counts and every difference (exit status 1 if
any); ``tests/replay/test_native_search.py`` runs the same comparison on fewer positions in
``make test``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from replay import DECK, RANKS, SEATS, native
from replay import solver as solver_module
from replay.review import position_before
from replay.rulesets import BUILTIN
from replay.solver import Budget, DealEnd, Position, SearchState, Solution, Solver
from simulator.api import simulate_match

RULES = ("national", "huaian", "bcta", "jiangsu", "njupt")
BUDGETS = (40, 300, 2_000, 20_000)
"""Node budgets drawn per position: the small ones run out mid-search."""

Deal = list[Position]
"""The positions of one deal, in the order they are solved (one pair of solvers per deal)."""


def built_search() -> ModuleType | None:
    """The built search in C when it is up to date with its ``.pyx``."""
    return native.built_core("_search")


def simulated_deals(matches: int, max_left: int) -> Iterator[Deal]:
    """Per deal of ``matches`` simulated matches (rulesets in turn), the positions before every
    play or pass with at most ``max_left`` cards left, last first."""
    for i in range(matches):
        events = simulate_match(RULES[i % len(RULES)], seed=i)
        starts = [k for k, e in enumerate(events) if e["type"] == "deal_start"]
        for n, start in enumerate(starts):
            end = starts[n + 1] if n + 1 < len(starts) else len(events)
            deal: Deal = []
            for e in reversed(events[start:end]):
                if e["type"] not in ("play", "pass"):
                    continue
                p = position_before(events, e["seq"])
                if p.cards_left() > max_left:
                    break
                deal.append(p)
            if deal:
                yield deal


def random_deals(rng: random.Random, count: int, max_cards: int = 7) -> Iterator[Deal]:
    """``count`` random small deals (1–``max_cards`` cards a seat, every level and ruleset), each
    followed along a random line of play; its positions last first."""
    for _ in range(count):
        level = rng.choice(RANKS)
        ruleset = rng.choice(list(BUILTIN.values()))
        pool = list(DECK)
        rng.shuffle(pool)
        hands = {s: [pool.pop() for _ in range(rng.randint(1, max_cards))] for s in SEATS}
        stepper = Solver(level, ruleset, engine=None)
        state: SearchState | DealEnd = stepper.state_of(
            Position(hands=hands, level=level, ruleset=ruleset, turn=rng.choice(SEATS))
        )
        deal: Deal = []
        while not isinstance(state, DealEnd):
            deal.append(stepper.position_of(state))
            groups = stepper._groups(state[0][state[1]], state[3])
            actions: list[Any] = [m for g in groups for m in g[4]]
            if state[2] is not None:
                actions.append(None)
            state = stepper.step(state, rng.choice(actions))
        deal.reverse()
        yield deal


@dataclass
class Report:
    positions: int = 0
    solved: int = 0
    nodes: int = 0
    python_s: float = 0.0
    native_s: float = 0.0
    differences: list[str] = field(default_factory=list)


def compare_deal(search: ModuleType, deal: Deal, rng: random.Random, report: Report) -> None:
    """Solve ``deal``'s positions with a Python and a C solver pair; record every difference."""
    first = deal[0]
    python = Solver(first.level, first.ruleset, engine=None)
    c_search = Solver(first.level, first.ruleset, engine=search)
    for p in deal:
        budget = Budget(nodes=rng.choice(BUDGETS))
        t0 = time.process_time()
        want = python.solve(p, budget)
        t1 = time.process_time()
        got = c_search.solve(p, budget)
        t2 = time.process_time()
        report.python_s += t1 - t0
        report.native_s += t2 - t1
        report.positions += 1
        report.solved += want.solved
        report.nodes += want.nodes
        if _answer(got) != _answer(want):
            report.differences.append(
                f"{p} budget {budget.nodes}: C {_answer(got)} vs Python {_answer(want)}"
            )


def _answer(s: Solution) -> tuple[object, ...]:
    return (s.value, s.best_moves, s.nodes, s.solved)


def compare(search: ModuleType, deals: Iterator[Deal], rng: random.Random, tt_limit: int | None) -> Report:
    """:func:`compare_deal` over ``deals``, the tables' limit set to ``tt_limit`` if given."""
    report = Report()
    saved = solver_module.TT_LIMIT
    if tt_limit is not None:
        solver_module.TT_LIMIT = tt_limit  # type: ignore[misc]
    try:
        for deal in deals:
            compare_deal(search, deal, rng, report)
    finally:
        solver_module.TT_LIMIT = saved  # type: ignore[misc]
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=10, help="simulated matches (rulesets in turn)")
    parser.add_argument("--max-left", type=int, default=16, help="positions with at most this many cards")
    parser.add_argument("--random", type=int, default=600, help="random small deals")
    parser.add_argument(
        "--tt-limit", type=int, default=None, help="transposition-table limit (default: the solver's)"
    )
    parser.add_argument("--seed", type=int, default=46)
    args = parser.parse_args()
    search = built_search()
    if search is None:
        sys.exit("no up-to-date replay/_search build in this checkout (build it first)")
    rng = random.Random(args.seed)
    for name, deals in (
        ("simulated", simulated_deals(args.matches, args.max_left)),
        ("random", random_deals(rng, args.random)),
    ):
        r = compare(search, deals, rng, args.tt_limit)
        print(
            f"{name}: {r.positions:,} positions ({r.solved:,} solved), {r.nodes:,} nodes; Python "
            f"{r.python_s:.2f} CPU-s, C {r.native_s:.2f} CPU-s; {len(r.differences)} differences"
        )
        for d in r.differences[:20]:
            print("  ", d)
        if r.differences:
            sys.exit(1)


if __name__ == "__main__":
    main()
