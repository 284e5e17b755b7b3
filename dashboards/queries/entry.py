"""The results entry page's queries: events and their rounds, the matches already stored for a
round, a match's finishing orders, the roster and the pairing of the next round."""

from __future__ import annotations

import pandas as pd

from dashboards.queries.common import Con, dataframe
from pipelines.reads.pairing_sheet import PairingSheet
from scoring.pairing import System


def entry_events(con: Con) -> pd.DataFrame:
    """Events (one row per stage) with the ruleset and format of their matches, their last
    round, whether partners rotate (``individual``: no pairing) and whether its matches are rooms of
    duplicate boards (``duplicate``, scoring.md §S9), for the results entry page."""
    return dataframe(
        con,
        """
        SELECT m.event_id, any_value(m.event_name) AS event_name, m.stage, any_value(m.rules) AS rules,
               any_value(m.format_kind) AS format_kind, any_value(m.format_deals) AS format_deals,
               any_value(m.format_minutes) AS format_minutes, max(m.round) AS last_round,
               coalesce(any_value(i.individual), false) AS individual,
               bool_or(m.duplicate_board IS NOT NULL) AS duplicate
        FROM matches m
        LEFT JOIN (SELECT event_id, stage, bool_or(entry = 'individual') AS individual
                   FROM standings GROUP BY ALL) i
          ON i.event_id = m.event_id AND i.stage IS NOT DISTINCT FROM m.stage
        WHERE m.event_id IS NOT NULL
        GROUP BY m.event_id, m.stage ORDER BY m.event_id, m.stage NULLS FIRST
        """,
    )


def entry_round_tables(con: Con, *, event: str, stage: str | None, round_no: int) -> pd.DataFrame:
    """The matches already in the store for one round of an event: table, seats, status, result,
    and a duplicate round's board and room."""
    return dataframe(
        con,
        """
        SELECT match_id, "table", player_E, player_N, player_W, player_S, status, deals_played,
               final_level_EW, final_level_NS, winner, end_reason, revision, duplicate_board, duplicate_room
        FROM matches
        WHERE event_id = $event AND stage IS NOT DISTINCT FROM $stage AND round = $round
        ORDER BY try_cast("table" AS INTEGER), "table", match_id
        """,
        {"event": event, "stage": stage, "round": round_no},
    )


def entry_match_orders(con: Con, *, match: str) -> pd.DataFrame:
    """A replayed match's deals with their finishing order, to correct it on the entry page."""
    return dataframe(
        con,
        "SELECT deal_no, finish_order FROM deals WHERE match_id = $match ORDER BY deal_no",
        {"match": match},
    )


def entry_roster(con: Con) -> pd.DataFrame:
    """The roster (``players``): id, name and club of every player the logs declare."""
    return dataframe(con, "SELECT player_id, name, club FROM players ORDER BY player_id")


def entry_pairing(
    con: Con,
    *,
    event: str,
    stage: str | None,
    round_no: int,
    drawn: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] | None = None,
    allow_missing: bool = False,
    system: System | None = None,
) -> PairingSheet:
    """The tables of round ``round_no`` by scoring.md §S8/§S9, as `gdan pair` gives them (raises
    ``pipelines.reads.tournament_data.LookupFailed`` when the event cannot be paired); ``drawn``: the
    round before as the registry drew it (table, (seat, player)…), ``allow_missing``: pair
    although that round lacks results; ``system``: the pairing system (None: `gdan pair`'s auto,
    snake seating for a duplicate event)."""
    from pipelines.reads.pairing_sheet import pairing_sheet

    tables = None if drawn is None else {table: dict(seats) for table, seats in drawn}
    return pairing_sheet(con, event, stage, round_no, system, 0, None, tables, allow_missing)
