"""The ``play_reviews`` and ``player_reviews`` tables: decisions scored by the exact endgame solver.

``review_chunk`` runs in the replay step's worker tasks, on the same chunk of whole matches that
``replay.replay_batch`` just replayed (``pipelines.steps.replaying``): the events are already in the
worker's memory, and the replay's own output says which matches are valid and who sits where, so
no second read of the raw rows or second pass over the store is needed. Each deal of a ``valid``
match whose ``deal_start`` shows all four hands is reviewed by ``replay.review.review_deal`` in the
default window (decisions with at most ``MAX_CARDS_LEFT`` cards in all hands, ``BUDGET`` per
position): the rows are the longest tail of the deal the budget solves.

``write_player_reviews`` then sums the rows per player with DuckDB (like ``pipelines.steps.player_patterns``):
decisions reviewed, and mistakes by loss of 1, 2 and ≥ 3 levels. It imports DuckDB and the store
when called: every replay worker imports this module for ``review_chunk``, and those imports
would add about 70 MiB to each worker.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
import pyarrow as pa

from replay.review import review_deal
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


def action_text(action: Action) -> str:
    """A play as its cards separated by spaces, a pass as ``pass`` (the ``best_moves`` text)."""
    return "pass" if action is None else " ".join(action.cards)


def review_chunk(events: pa.Table, replayed: Mapping[str, pa.Table]) -> pa.Table:
    """``play_reviews`` rows of the valid matches of a replayed chunk (``RAW_EVENTS`` rows and the
    tables ``replay.replay_batch`` returned for them)."""
    valid = _valid_matches(replayed.get("matches"))
    seats = _deal_seats(replayed.get("deal_hands"), valid)
    left = _cards_left(replayed.get("plays"), valid)
    by_match: dict[str, list[dict[str, Any]]] = {}
    for match_id, payload, error in zip(events["match_id"].to_pylist(), events["payload"].to_pylist(),
                                        events["parse_error"].to_pylist(), strict=True):
        if match_id in valid and error is None:
            by_match.setdefault(match_id, []).append(orjson.loads(payload))
    played = {(m, deal) for (m, _), (deal, _) in left.items()}
    rows: list[dict[str, Any]] = []
    for match_id, evs in by_match.items():
        for deal_no, players in seats.get(match_id, {}).items():
            if (match_id, deal_no) in played:
                rows.extend(_deal_rows(match_id, deal_no, evs, players, left))
    return pa.Table.from_pylist(rows, schema=PLAY_REVIEWS)


def _deal_rows(match_id: str, deal_no: int, events: Sequence[Mapping[str, Any]],
               players: Mapping[str, str | None], left: Left
               ) -> list[dict[str, Any]]:
    try:
        reviews = review_deal(events, BUDGET, deal=deal_no, max_cards_left=MAX_CARDS_LEFT)
    except ValueError:  # a deal the rebuild cannot follow (not expected of a valid match): left out
        return []
    return [
        {
            "match_id": match_id, "deal_no": deal_no, "seq": r.seq, "seat": r.seat,
            "player_id": players.get(r.seat), "team": r.team,
            "action": "pass" if r.action is None else "play",
            "cards": None if r.action is None else list(r.action.cards),
            "cards_left": r.cards_left,
            **{f"left_{s}": n for s, n in zip(SEATS, left[(match_id, r.seq)][1], strict=True)},
            "value_before": r.value_before, "best_value": r.best_value, "value_after": r.value_after,
            "loss": r.loss, "best_moves": " | ".join(action_text(m) for m in r.best_moves),
            "nodes": r.nodes,
        }
        for r in reviews
    ]


def _valid_matches(matches: pa.Table | None) -> set[str]:
    if matches is None:
        return set()
    return {m for m, s in zip(matches["match_id"].to_pylist(), matches["status"].to_pylist(), strict=True)
            if s == "valid"}


def _deal_seats(hands: pa.Table | None, valid: set[str]) -> dict[str, dict[int, dict[str, str | None]]]:
    """Per valid match and deal showing all four hands: seat → player id."""
    if hands is None:
        return {}
    seen: dict[str, dict[int, dict[str, str | None]]] = {}
    incomplete: set[tuple[str, int]] = set()
    for row in hands.select(["match_id", "deal_no", "seat", "player_id", "hand"]).to_pylist():
        if row["match_id"] not in valid:
            continue
        if not row["hand"]:
            incomplete.add((row["match_id"], row["deal_no"]))
        seen.setdefault(row["match_id"], {}).setdefault(row["deal_no"], {})[row["seat"]] = row["player_id"]
    return {
        m: {d: p for d, p in deals.items() if (m, d) not in incomplete and len(p) == len(SEATS)}
        for m, deals in seen.items()
    }


Left = dict[tuple[str, int], tuple[int, tuple[int, ...]]]
"""(match, seq) of a play or pass → its deal and the cards held per seat before it."""


def _cards_left(plays: pa.Table | None, valid: set[str]) -> Left:
    """(match, seq) of every play or pass of a valid match → its deal and the cards held per seat
    before it (``plays.left_X``)."""
    if plays is None:
        return {}
    cols = plays.select(["match_id", "deal_no", "seq", *(f"left_{s}" for s in SEATS)]).to_pydict()
    return {
        (m, q): (cols["deal_no"][i], tuple(cols[f"left_{s}"][i] for s in SEATS))
        for i, (m, q) in enumerate(zip(cols["match_id"], cols["seq"], strict=True)) if m in valid
    }


SUMMARY_SQL = """
SELECT player_id,
       count(*) AS decisions,
       count(DISTINCT (match_id, deal_no)) AS deals,
       count(*) FILTER (WHERE loss = 1) AS loss_1,
       count(*) FILTER (WHERE loss = 2) AS loss_2,
       count(*) FILTER (WHERE loss >= 3) AS loss_3plus,
       coalesce(sum(loss), 0) AS loss_sum
FROM play_reviews GROUP BY player_id ORDER BY player_id NULLS LAST
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
