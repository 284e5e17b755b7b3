"""The results entry page's queries: events and their rounds, the matches already stored for a
round, a match's finishing orders, the roster and the pairing of the next round."""

from __future__ import annotations

import pandas as pd

from dashboards.queries.common import Con, dataframe
from pipelines.reads.pairing_sheet import PairingSheet


def entry_events(con: Con) -> pd.DataFrame:
    """Events (one row per stage) with the ruleset and format of their matches and their last
    round, for the results entry page."""
    return dataframe(
        con,
        """
        SELECT event_id, any_value(event_name) AS event_name, stage, any_value(rules) AS rules,
               any_value(format_kind) AS format_kind, any_value(format_deals) AS format_deals,
               any_value(format_minutes) AS format_minutes, max(round) AS last_round
        FROM matches WHERE event_id IS NOT NULL
        GROUP BY event_id, stage ORDER BY event_id, stage NULLS FIRST
        """,
    )


def entry_round_tables(con: Con, *, event: str, stage: str | None, round_no: int) -> pd.DataFrame:
    """The matches already in the store for one round of an event: table, seats, status, result."""
    return dataframe(
        con,
        """
        SELECT match_id, "table", player_E, player_N, player_W, player_S, status, deals_played,
               final_level_EW, final_level_NS, winner, end_reason, revision
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


def entry_pairing(con: Con, *, event: str, stage: str | None, round_no: int) -> PairingSheet:
    """The tables of round ``round_no`` by scoring.md §S8, as `gdan pair` gives them (raises
    ``pipelines.reads.tournament_data.LookupFailed`` when the event cannot be paired)."""
    from pipelines.reads.pairing_sheet import pairing_sheet

    return pairing_sheet(con, event, stage, round_no, None, 0)
