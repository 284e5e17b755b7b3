"""Amateur and professional dan (scoring.md §S5): the Dan page's promotions, forecasts and
distribution, and one player's ledger, current dan and forecast on the Player page."""

from __future__ import annotations

import pandas as pd

from dashboards.queries.common import MATCH_OFFSETS, Con, dataframe
from schemas.times import sql_time_label


def dan_ledger(con: Con, *, player: str) -> pd.DataFrame:
    """The player's amateur dan ledger (scoring.md §S5), one row per BCTA round in time order."""
    return dataframe(
        con,
        """
        SELECT seq, started_at, match_id, event_id, round, opponent_dans, counted, round_points,
               points_earned, dan_before, dan_after, total_before, total_after, window_no,
               window_rounds_used, window_size, event
        FROM dan_ledger WHERE player_id = $player ORDER BY seq
        """,
        {"player": player},
    )


def player_dan(con: Con, *, player: str) -> pd.DataFrame:
    """The player's current amateur dan and professional dan (zero or one row)."""
    return dataframe(
        con,
        """
        SELECT dc.dan, dc.points, dc.next_dan, dc.next_threshold, dc.points_to_next, dc.progress,
               dc.window_rounds_used, dc.rounds_left, pd.pro_dan, pd.win_rate AS pro_win_rate,
               pd.rounds AS pro_rounds
        FROM (SELECT CAST($player AS VARCHAR) AS player_id) x
        LEFT JOIN dan_current dc USING (player_id) LEFT JOIN pro_dan pd USING (player_id)
        WHERE dc.player_id IS NOT NULL OR pd.player_id IS NOT NULL
        """,
        {"player": player},
    )


def close_to_promotion(con: Con, *, limit: int = 50) -> pd.DataFrame:
    """Players nearest to their next dan (scoring.md §S5): fewest points to go first; ``last_played``
    in the local time of the player's latest round.

    ``window_points`` are the points earned in the current window (the total less the total held
    on reaching the dan, what a reset clears back to) of the ``window_needed`` it takes from there:
    ``progress`` is their ratio, 0 right after a promotion or a reset whatever the total.
    """
    return dataframe(
        con,
        f"""
        WITH near AS (
            SELECT player_id, dan, next_dan, points, next_threshold, points_to_next, progress,
                   window_rounds_used, rounds_left, last_played
            FROM dan_current WHERE next_dan IS NOT NULL AND points_to_next IS NOT NULL
            ORDER BY points_to_next, rounds_left DESC, player_id LIMIT $limit
        ),
        last_round AS (
            SELECT l.player_id, arg_max(o.utc_offset_min, (l.started_at, l.seq)) AS utc_offset_min,
                   coalesce(arg_max(l.total_after, l.seq) FILTER (WHERE l.event = 'promoted'), 0) AS held
            FROM dan_ledger l SEMI JOIN near USING (player_id) LEFT JOIN {MATCH_OFFSETS} o USING (match_id)
            GROUP BY l.player_id
        )
        SELECT near.player_id, near.dan, near.points,
               near.points - coalesce(last_round.held, 0) AS window_points,
               near.next_threshold - coalesce(last_round.held, 0) AS window_needed,
               near.progress, near.next_dan, near.next_threshold, near.points_to_next,
               near.window_rounds_used, near.rounds_left,
               {sql_time_label("near.last_played", "last_round.utc_offset_min")} AS last_played
        FROM near LEFT JOIN last_round USING (player_id)
        ORDER BY points_to_next, rounds_left DESC, player_id
        """,
        {"limit": limit},
    )


def promotion_forecast(con: Con, *, limit: int = 50) -> pd.DataFrame:
    """Players most likely to reach their next dan before the window resets (``dan_forecast``).

    Ordered by the chance of promotion, then fewest points to go; ``low_data`` marks a forecast
    from too few rated rounds (scoring/dan_forecast.py).
    """
    return dataframe(
        con,
        """
        SELECT player_id, dan, next_dan, points, points_to_next, rounds_left, p_promote,
               expected_rounds, win_chance, rated_rounds, low_data
        FROM dan_forecast
        ORDER BY p_promote DESC NULLS LAST, points_to_next, player_id LIMIT $limit
        """,
        {"limit": limit},
    )


def player_forecast(con: Con, *, player: str) -> pd.DataFrame:
    """The player's promotion forecast (``dan_forecast``): no row at the top dan or without data."""
    return dataframe(
        con,
        """
        SELECT dan, next_dan, points_to_next, rounds_left, p_promote, expected_rounds,
               win_chance, rated_rounds, naive_promote, low_data
        FROM dan_forecast WHERE player_id = $player
        """,
        {"player": player},
    )


def dan_events(con: Con, *, limit: int = 100) -> pd.DataFrame:
    """The latest promotions and window resets (``dan_ledger.event``), newest first; ``started_at``
    is the round's start in its match's local time (``2026-06-18 13:05 (UTC+08:00)``)."""
    return dataframe(
        con,
        f"""
        SELECT {sql_time_label("l.started_at", "o.utc_offset_min")} AS started_at, player_id, event,
               dan_before, dan_after, total_before, total_after, window_no, window_rounds_used,
               window_size, match_id
        FROM dan_ledger l LEFT JOIN {MATCH_OFFSETS} o USING (match_id) WHERE event IS NOT NULL
        ORDER BY l.started_at DESC, player_id LIMIT $limit
        """,
        {"limit": limit},
    )


def dan_distribution(con: Con) -> pd.DataFrame:
    """Players per current amateur dan (0 = none)."""
    return dataframe(con, "SELECT dan, count(*) AS n FROM dan_current GROUP BY dan ORDER BY dan")
