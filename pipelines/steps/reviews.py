"""The ``play_reviews`` and ``player_reviews`` tables: decisions scored by the exact endgame solver.

``review_chunk`` runs in the replay step's worker tasks, on the same chunk of whole matches that
``replay.replay_batch`` just replayed (``pipelines.steps.replaying``): the events are already in the
worker's memory, parsed (``replay.replay_batch_with_events`` hands them over), and the replay's own
output says which matches are valid and who sits where, so no second read or parse of the raw rows
and no second pass over the store is needed. Each ``valid`` match is
followed once by ``replay.review.review_match``; its deals whose ``deal_start`` shows all four
hands are reviewed in the default window (decisions with at most ``MAX_CARDS_LEFT`` cards in all
hands, ``BUDGET`` per position): the rows are the longest tail of the deal the budget solves, each
with its kind (exact, double-dummy), whether it was a real choice, its phase and its cost in match
terms (``replay.match_value``) and the severity that cost gives it (:func:`severity`).

``write_player_reviews`` then sums the rows per player and phase with DuckDB (like
``pipelines.steps.player_patterns``): decisions, forced and all-equal ones (counted, not scored),
real choices, the best ones among them, mistakes by loss of 1, 2 and ≥ 3 levels and the
match-winning chance lost. It imports DuckDB and the store
when called: every replay worker imports this module for ``review_chunk``, and those imports
would add about 70 MiB to each worker.
"""

from __future__ import annotations

from collections.abc import Container, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
import pyarrow as pa
import pyarrow.compute as pc

from replay.replayer import paused_gc
from replay.review import DecisionReview, review_match
from replay.solver import Action, Budget
from schemas.tables import PLAY_REVIEWS, PLAYER_REVIEWS
from schemas.vocabulary import SEATS

if TYPE_CHECKING:
    import duckdb

    from pipelines.storage.store import Store

MAX_CARDS_LEFT = 12
"""Review window: decisions with at most this many cards in all four hands (docs/performance.md)."""
BUDGET = Budget(nodes=5_000)
"""Solver work per position; the review of a deal stops at the first position it cannot solve."""

SEVERITY_LIMITS = ((0.10, "blunder"), (0.02, "mistake"))
"""Match-winning chance lost from which a decision that loses levels is a blunder or a mistake;
below 0.02 it is an inaccuracy (levels the match hardly feels, e.g. above A's cap)."""


def severity(review: DecisionReview) -> str:
    """``best`` for a decision that loses nothing; else by the match-winning chance it lost
    (:data:`SEVERITY_LIMITS`): ``blunder``, ``mistake`` or ``inaccuracy``; by levels when the
    match state is unknown (3 or more: blunder)."""
    if review.loss == 0:
        return "best"
    lost = review.match_loss
    if lost is None:
        return "blunder" if review.loss >= 3 else "mistake"
    return next((word for limit, word in SEVERITY_LIMITS if lost >= limit), "inaccuracy")


def action_text(action: Action) -> str:
    """A play as its cards separated by spaces, a pass as ``pass`` (the ``best_moves`` text)."""
    return "pass" if action is None else " ".join(action.cards)


def review_chunk(events: pa.Table, replayed: Mapping[str, pa.Table],
                 parsed: Mapping[str, Sequence[Mapping[str, Any]]] | None = None) -> pa.Table:
    """``play_reviews`` rows of the valid matches of a replayed chunk (``RAW_EVENTS`` rows and the
    tables ``replay.replay_batch`` returned for them). ``parsed``: the events the replay parsed, by
    match (``replay.replay_batch_with_events``); without them, the payloads of the matches with a
    deal to review are parsed here. The cyclic garbage collector is paused meanwhile, as for the
    replay (``replay.replayer.paused_gc``: parsed events and solver states hold no cycles)."""
    seats = _deal_seats(replayed.get("deal_hands"), _valid_matches(replayed.get("matches")))
    with paused_gc():
        by_match = _parsed_events(events, seats) if parsed is None else {
            match_id: evs for match_id, evs in parsed.items() if match_id in seats}
        rows: list[dict[str, Any]] = []
        for match_id, evs in by_match.items():
            rows.extend(_match_rows(match_id, evs, seats[match_id]))
        return pa.Table.from_pylist(rows, schema=PLAY_REVIEWS)


def _parsed_events(events: pa.Table, matches: Container[str]) -> dict[str, list[dict[str, Any]]]:
    """The parsed payloads of the well-formed rows of ``matches``, by match (row order)."""
    by_match: dict[str, list[dict[str, Any]]] = {}
    for match_id, payload, error in zip(events["match_id"].to_pylist(), events["payload"].to_pylist(),
                                        events["parse_error"].to_pylist(), strict=True):
        if match_id in matches and error is None:
            by_match.setdefault(match_id, []).append(orjson.loads(payload))
    return by_match


def _match_rows(match_id: str, events: Sequence[Mapping[str, Any]],
                seats: Mapping[int, Mapping[str, str | None]]) -> list[dict[str, Any]]:
    try:
        reviewed = review_match(events, BUDGET, max_cards_left=MAX_CARDS_LEFT, deals=list(seats))
    except ValueError:  # a match the review cannot follow (not expected of a valid match): left out
        return []
    return [review_row(match_id, deal.deal, r, seats[deal.deal].get(r.seat))
            for deal in reviewed for r in deal.rows]


def review_row(match_id: str, deal_no: int, r: DecisionReview, player_id: str | None) -> dict[str, Any]:
    """The ``play_reviews`` row of one reviewed decision."""
    return {
        "match_id": match_id, "deal_no": deal_no, "seq": r.seq, "seat": r.seat,
        "player_id": player_id, "team": r.team,
        "action": "pass" if r.action is None else "play",
        "cards": None if r.action is None else list(r.action.cards),
        "cards_left": r.cards_left,
        **{f"left_{s}": n for s, n in zip(SEATS, r.held, strict=True)},
        "value_before": r.value_before, "best_value": r.best_value, "value_after": r.value_after,
        "loss": r.loss, "best_moves": " | ".join(action_text(m) for m in r.best_moves),
        "nodes": r.nodes, "hand": list(r.hand), "kind": r.kind, "choice": r.choice, "phase": r.phase,
        "win_best": r.win_best, "win_after": r.win_after, "match_loss": r.match_loss,
        "severity": severity(r),
    }


def _valid_matches(matches: pa.Table | None) -> set[str]:
    if matches is None:
        return set()
    return {m for m, s in zip(matches["match_id"].to_pylist(), matches["status"].to_pylist(), strict=True)
            if s == "valid"}


def _deal_seats(hands: pa.Table | None, valid: set[str]) -> dict[str, dict[int, dict[str, str | None]]]:
    """Per valid match with a deal showing all four hands, per such deal: seat → player id (the
    hands themselves are not turned into Python values)."""
    if hands is None:
        return {}
    shown = pc.fill_null(pc.list_value_length(hands["hand"]), 0)
    table = hands.select(["match_id", "deal_no", "seat", "player_id"]).append_column("shown", shown)
    seen: dict[str, dict[int, dict[str, str | None]]] = {}
    incomplete: set[tuple[str, int]] = set()
    for row in table.to_pylist():
        if row["match_id"] not in valid:
            continue
        if not row["shown"]:
            incomplete.add((row["match_id"], row["deal_no"]))
        seen.setdefault(row["match_id"], {}).setdefault(row["deal_no"], {})[row["seat"]] = row["player_id"]
    found = {
        m: {d: p for d, p in deals.items() if (m, d) not in incomplete and len(p) == len(SEATS)}
        for m, deals in seen.items()
    }
    return {m: deals for m, deals in found.items() if deals}


SUMMARY_SQL = """
SELECT player_id, phase,
       count(*) AS decisions,
       count(DISTINCT (match_id, deal_no)) AS deals,
       count(*) FILTER (WHERE choice = 'forced') AS forced,
       count(*) FILTER (WHERE choice = 'all_equal') AS all_equal,
       count(*) FILTER (WHERE choice = 'real') AS real,
       count(*) FILTER (WHERE choice = 'real' AND loss = 0) AS real_best,
       count(*) FILTER (WHERE loss = 1) AS loss_1,
       count(*) FILTER (WHERE loss = 2) AS loss_2,
       count(*) FILTER (WHERE loss >= 3) AS loss_3plus,
       coalesce(sum(loss), 0) AS loss_sum,
       coalesce(sum(match_loss), 0)::DOUBLE AS match_loss_sum
FROM play_reviews GROUP BY player_id, phase ORDER BY player_id NULLS LAST, phase
"""


def compute_player_reviews(con: duckdb.DuckDBPyConnection) -> pa.Table:
    """``player_reviews`` from the ``play_reviews`` view of ``con``."""
    return con.execute(SUMMARY_SQL).to_arrow_table().cast(PLAYER_REVIEWS)


def write_player_reviews(store: Store | str | Path) -> int:
    """Recompute ``player_reviews`` from ``play_reviews`` and replace it; returns its row count."""
    import duckdb

    from pipelines.storage.store import Store
    from pipelines.storage.warehouse import create_views

    the_store = store if isinstance(store, Store) else Store(store)
    con = duckdb.connect(":memory:")
    try:
        con.execute("SET enable_progress_bar = false")
        create_views(con, the_store, the_store.snapshot(), ["play_reviews"])
        table = compute_player_reviews(con)
    finally:
        con.close()
    the_store.write_table("player_reviews", table)
    return table.num_rows
