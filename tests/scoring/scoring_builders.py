"""Hand-built ``matches``/``deals`` frames (schemas/tables.py columns) for the scoring tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import polars as pl
import pyarrow as pa

from schemas.tables import DEALS, MATCHES, PLAYER_MATCHES

T0 = datetime(2026, 6, 18, 13, 0, tzinfo=UTC)


def match(
    match_id: str,
    ew: tuple[str, str],
    ns: tuple[str, str],
    final: tuple[str, str],
    winner: str | None,
    *,
    rules: str = "national",
    event: str | None = "ev",
    rnd: int | None = 1,
    stage: str | None = None,
    passed_a: str | None = None,
    reason: str = "deals",
    failures: tuple[int, int] = (0, 0),
    start: tuple[str, str] = ("2", "2"),
    minute: int = 0,
    status: str = "valid",
) -> dict[str, Any]:
    """One ``matches`` row: EW = (E, W) players, NS = (N, S), final levels (EW, NS)."""
    return {
        "match_id": match_id,
        "event_id": event,
        "stage": stage,
        "round": rnd,
        "rules": rules,
        "player_E": ew[0],
        "player_W": ew[1],
        "player_N": ns[0],
        "player_S": ns[1],
        "status": status,
        "start_level_EW": start[0],
        "start_level_NS": start[1],
        "final_level_EW": final[0],
        "final_level_NS": final[1],
        "passed_a": passed_a,
        "a_failures_EW": failures[0],
        "a_failures_NS": failures[1],
        "winner": winner,
        "end_reason": reason,
        "started_at": T0 + timedelta(minutes=minute),
    }


def deal(
    match_id: str,
    deal_no: int,
    winning_team: str,
    gain: int,
    a_failed: bool = False,
    order: str | None = None,
) -> dict[str, Any]:
    """One ``deals`` row: who won the deal and how many levels it gained (after the cap at A).

    ``order`` (e.g. ``"EWNS"``) sets ``finish_order`` and ``double_win``; without it the row has no
    finish order, as a results-only log may not.
    """
    row: dict[str, Any] = {
        "match_id": match_id,
        "deal_no": deal_no,
        "winning_team": winning_team,
        "level_gain": gain,
        "a_failed": a_failed,
    }
    if order is not None:
        row["finish_order"] = list(order)
        row["double_win"] = {order[0], order[1]} in ({"E", "W"}, {"N", "S"})
    return row


def frame(rows: list[dict[str, Any]], schema: pa.Schema) -> pl.DataFrame:
    """Rows padded with nulls to the full table schema."""
    full = [{f.name: r.get(f.name) for f in schema} for r in rows]
    out = pl.from_arrow(pa.Table.from_pylist(full, schema=schema) if full else schema.empty_table())
    assert isinstance(out, pl.DataFrame)
    return out


def matches(*rows: dict[str, Any]) -> pl.DataFrame:
    """A ``matches`` frame."""
    return frame(list(rows), MATCHES)


def deals(*rows: dict[str, Any]) -> pl.DataFrame:
    """A ``deals`` frame."""
    return frame(list(rows), DEALS)


def player_matches(*rows: dict[str, Any]) -> pl.DataFrame:
    """A ``player_matches`` frame."""
    return frame(list(rows), PLAYER_MATCHES)


def scores(*rows: dict[str, Any]) -> pl.DataFrame:
    """A ``match_scores`` frame from partial rows."""
    from schemas.scoring import MATCH_SCORES

    return frame(list(rows), MATCH_SCORES)


def dan_round(
    match_id: str,
    minute: int,
    ew: tuple[str, str],
    ns: tuple[str, str],
    ew_points: int,
    ns_points: int,
    rules: str = "bcta",
) -> list[dict[str, Any]]:
    """The two ``match_scores`` rows of one round as the dan ledger reads them."""
    at = T0 + timedelta(minutes=minute)
    common = {"match_id": match_id, "rules": rules, "started_at": at, "outcome": "played"}
    return [
        {
            **common,
            "side": "EW",
            "team_id": "+".join(sorted(ew)),
            "player_1": ew[0],
            "player_2": ew[1],
            "result": "win" if ew_points > ns_points else "loss",
            "bcta_dan_points": ew_points,
        },
        {
            **common,
            "side": "NS",
            "team_id": "+".join(sorted(ns)),
            "player_1": ns[0],
            "player_2": ns[1],
            "result": "win" if ns_points > ew_points else "loss",
            "bcta_dan_points": ns_points,
        },
    ]
