"""The Puzzles page's data: the store's reviewed mistakes turned into solver-verified puzzles.

The exact review (``play_reviews``) names the decisions that lost a level or more; each is rebuilt
from its match's events (``raw_events`` of the revision in force) and kept when one action class
alone keeps the best value (``replay.puzzles``, verified class by class by the solver). The
result is cached per store run like every query (``dashboards.ui.run``).
"""

from __future__ import annotations

from typing import Any

from dashboards.queries.common import Con, dataframe
from dashboards.queries.replayer import match_events
from replay.puzzles import MIN_LOSS, puzzle_at, to_json
from replay.solver import Budget

PUZZLE_BUDGET = Budget(nodes=100_000)
"""Nodes the solver may search per position while verifying a puzzle."""


def puzzle_candidates(con: Con, *, limit: int = 60) -> list[tuple[str, int, int]]:
    """The (match, deal, seq) of the reviewed decisions that lost at least ``MIN_LOSS`` levels,
    the costliest first, at most ``limit``."""
    df = dataframe(
        con,
        """
        SELECT match_id, deal_no, seq FROM play_reviews WHERE loss >= $min_loss
        ORDER BY loss DESC, match_id, seq LIMIT $limit
        """,
        {"min_loss": MIN_LOSS, "limit": limit},
    )
    rows = zip(df["match_id"], df["deal_no"], df["seq"], strict=True)
    return [(str(m), int(d), int(s)) for m, d, s in rows]


def store_puzzles(con: Con, *, limit: int = 60) -> list[dict[str, Any]]:
    """The puzzles of the store (``replay.puzzles.to_json`` form), from the costliest reviewed
    mistakes (at most ``limit`` looked at); a decision the solver cannot verify is left out."""
    found: list[dict[str, Any]] = []
    events_of: dict[str, list[dict[str, Any]]] = {}
    for match, deal, seq in puzzle_candidates(con, limit=limit):
        events = events_of.get(match)
        if events is None:
            events = events_of[match] = match_events(con, match=match)
        try:
            puzzle = puzzle_at(events, match, deal, seq, PUZZLE_BUDGET)
        except ValueError:
            continue
        if puzzle is not None:
            found.append(to_json(puzzle))
    return found
