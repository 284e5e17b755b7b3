"""The Tournament page's queries: events, their rounds, results, standings with every tie-break
(scoring.md §S7) and duplicate events' matchpoints (scoring.md §S8)."""

from __future__ import annotations

import pandas as pd

from dashboards.queries.common import Con, dataframe
from schemas.times import sql_time_label
from schemas.vocabulary import TEAMS, sql_level_order


def events(con: Con) -> pd.DataFrame:
    """Events with their name, rounds and matches, and whether it is a duplicate (複式) event:
    some match has a ``duplicate_board`` (scoring.md §S8)."""
    return dataframe(
        con,
        """
        SELECT event_id, any_value(event_name) AS event_name, max(round) AS rounds, count(*) AS matches,
               bool_or(duplicate_board IS NOT NULL) AS duplicate
        FROM matches WHERE event_id IS NOT NULL
        GROUP BY event_id ORDER BY event_id
        """,
    )


def event_rounds(con: Con, *, event: str) -> pd.DataFrame:
    """The rounds of an event that have matches or standings."""
    return dataframe(
        con,
        """
        SELECT DISTINCT round FROM (
            SELECT round FROM matches WHERE event_id = $event AND round IS NOT NULL
            UNION SELECT after_round FROM standings WHERE event_id = $event
        ) ORDER BY round
        """,
        {"event": event},
    )


_LEVEL_NO = {
    side: f"{sql_level_order(f'final_level_{side}')} + CASE WHEN passed_a = '{side}' THEN 1 ELSE 0 END"
    for side in TEAMS
}
"""SQL per side: its final level as a number, 2 = 0 … A = 12, 13 after passing A (scoring.md §S1)."""


def round_results(con: Con, *, event: str, round_no: int | None = None) -> pd.DataFrame:
    """The matches (and byes) of an event, one round or all: when each started (local time with its
    offset, schemas/times.py), teams, final levels, 级差, winner, and each side's match points and
    level-difference points (scoring.md §S1–§S3) when scored.
    """
    return dataframe(
        con,
        f"""
        WITH m AS (
            SELECT *,
                   {_LEVEL_NO["EW"]} AS lv_ew,
                   {_LEVEL_NO["NS"]} AS lv_ns
            FROM matches WHERE event_id = $event AND ($round IS NULL OR round = $round)
        )
        SELECT * FROM (
        SELECT m.round, m."table", {sql_time_label("m.started_at", "m.utc_offset_min")} AS started,
               m.stage, m.match_id,
               m.player_E || ' / ' || m.player_W AS team_EW, m.player_N || ' / ' || m.player_S AS team_NS,
               m.final_level_EW, m.final_level_NS, abs(m.lv_ew - m.lv_ns) AS level_diff,
               m.winner, ew.match_points AS match_points_EW, ns.match_points AS match_points_NS,
               ew.level_points AS level_points_EW, ns.level_points AS level_points_NS,
               m.end_reason, m.deals_played, m.status
        FROM m
        LEFT JOIN match_scores ew ON ew.match_id = m.match_id AND ew.side = 'EW'
        LEFT JOIN match_scores ns ON ns.match_id = m.match_id AND ns.side = 'NS'
        UNION ALL
        SELECT round, NULL, NULL, stage, NULL, coalesce(player_1 || ' / ' || player_2, team_id), NULL,
               NULL, NULL, NULL, 'bye', match_points, NULL, level_points, NULL, 'bye', 0, NULL
        FROM match_scores
        WHERE outcome = 'bye' AND event_id = $event AND ($round IS NULL OR round = $round)
        ) ORDER BY round, try_cast("table" AS INTEGER), "table", match_id
        """,
        {"event": event, "round": round_no},
    )


def standings(con: Con, *, event: str, round_no: int | None = None) -> pd.DataFrame:
    """Standings of an event after a round (default: the latest), with every tie-break column
    (scoring.md §S7) and ``decided_by``, the step that separated a team from the one above."""
    return dataframe(
        con,
        """
        SELECT stage, after_round, rank, entry, team_id, player_1, player_2, rounds, match_points,
               bcta_round_score, level_points, head_to_head, wins, draws, losses, byes, raw_level_diff,
               opponents_score, previous_rank, tied_level_points, opponents_level_points, levels_gained,
               deducted_match_points, deducted_level_points, primary_key, decided_by
        FROM standings
        WHERE event_id = $event
          AND after_round = coalesce($round, (SELECT max(after_round) FROM standings WHERE event_id = $event))
        ORDER BY stage, rank, team_id
        """,
        {"event": event, "round": round_no},
    )


def duplicate_standings(con: Con, *, event: str, after_round: int | None = None) -> pd.DataFrame:
    """A duplicate event's pairs by MP score rate (``duplicate_standings``, scoring.md §S9); after
    an earlier round (``after_round``), ranked again from the boards of the rounds up to it."""
    if after_round is not None:
        from scoring.duplicate import duplicate_standings as rank

        results = con.execute(
            "SELECT r.* FROM duplicate_results r JOIN matches m USING (match_id) "
            "WHERE r.event_id = $event AND m.round <= $after",
            {"event": event, "after": after_round},
        ).pl()
        if results.is_empty():
            return dataframe(con, "SELECT * FROM duplicate_standings WHERE false")
        table = rank(results).sort("stage", "rank", "team_id", nulls_last=False)
        return table.drop("event_id").to_pandas()
    return dataframe(
        con,
        """
        SELECT stage, rank, team_id, player_1, player_2, matches, deals_compared, mp, mp_max, mp_rate,
               place_counts, decided_by
        FROM duplicate_standings WHERE event_id = $event
        ORDER BY stage NULLS FIRST, rank, team_id
        """,
        {"event": event},
    )


def duplicate_results(con: Con, *, event: str) -> pd.DataFrame:
    """A duplicate event's results per board and deal: each pair's outcome class and matchpoints (§S9)."""
    return dataframe(
        con,
        """
        SELECT stage, board, deal_no, direction, room, team_id, player_1, player_2, result, mp, mp_max,
               place, rooms, match_id
        FROM duplicate_results WHERE event_id = $event
        ORDER BY stage NULLS FIRST, board, deal_no, direction, place, room
        """,
        {"event": event},
    )
