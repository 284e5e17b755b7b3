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


def puzzle_candidates(con: Con, *, limit: int = 60) -> list[dict[str, Any]]:
    """The reviewed decisions that lost at least ``MIN_LOSS`` levels, the costliest first, at most
    ``limit``: ``match_id``, ``deal_no``, ``seq`` and what names them to a coach (``player``: the
    decider's name, else id; ``event_id``, ``match_round``, ``match_table``)."""
    df = dataframe(
        con,
        """
        SELECT r.match_id, r.deal_no, r.seq, coalesce(nullif(p.name, ''), r.player_id) AS player,
               m.event_id, m.round AS match_round, m."table" AS match_table
        FROM play_reviews r
        LEFT JOIN players p USING (player_id)
        LEFT JOIN matches m USING (match_id)
        WHERE r.loss >= $min_loss
        ORDER BY r.loss DESC, r.match_id, r.seq LIMIT $limit
        """,
        {"min_loss": MIN_LOSS, "limit": limit},
    )
    return [
        {k: (None if v is None or v != v else v) for k, v in row.items()}  # NaN (no value) → None
        for row in df.to_dict("records")
    ]


def store_puzzles(con: Con, *, limit: int = 60) -> list[dict[str, Any]]:
    """The puzzles of the store (``replay.puzzles.to_json`` form, with the candidate's ``player``,
    ``event_id``, ``match_round`` and ``match_table``), from the costliest reviewed mistakes (at
    most ``limit`` looked at); a decision the solver cannot verify is left out."""
    found: list[dict[str, Any]] = []
    events_of: dict[str, list[dict[str, Any]]] = {}
    for c in puzzle_candidates(con, limit=limit):
        match, deal, seq = str(c["match_id"]), int(c["deal_no"]), int(c["seq"])
        events = events_of.get(match)
        if events is None:
            events = events_of[match] = match_events(con, match=match)
        try:
            puzzle = puzzle_at(events, match, deal, seq, PUZZLE_BUDGET)
        except ValueError:
            continue
        if puzzle is not None:
            named = {k: c[k] for k in ("player", "event_id", "match_round", "match_table")}
            found.append({**to_json(puzzle), **named})
    return found
