"""The Head-to-head page's queries: one player's record with and against another, everyone
they met, and leaderboards per month or season."""

from __future__ import annotations

import pandas as pd

from dashboards.queries.common import MATCH_OFFSETS, RESULT_COLUMNS, Con, dataframe
from schemas.scoring import PLAYER_RESULTS
from schemas.times import sql_local_day


def head_to_head(con: Con, *, player: str, other: str) -> pd.DataFrame:
    """``player``'s record with ``other`` as partner and against ``other``: ``relation``
    (partner|opponent), rounds, wins, draws, losses, levels gained (zero rows never met)."""
    return dataframe(
        con,
        f"""
        SELECT CASE WHEN partner_id = $other THEN 'partner' ELSE 'opponent' END AS relation,
               count(*) AS rounds,
               count(*) FILTER (WHERE result = 'win') AS wins,
               count(*) FILTER (WHERE result = 'draw') AS draws,
               count(*) FILTER (WHERE result = 'loss') AS losses,
               sum(levels_gained) AS levels_gained
        FROM {PLAYER_RESULTS}
        WHERE player_id = $player AND (partner_id = $other OR list_contains(opponent_ids, $other))
        GROUP BY ALL ORDER BY relation DESC
        """,
        {"player": player, "other": other},
    )


def rivals(con: Con, *, player: str) -> pd.DataFrame:
    """Everyone ``player`` met, as partner or opponent: ``relation``, ``other``, rounds, wins,
    draws, losses (a draw counts half in the page's rate). Nemesis and best partner come from it."""
    return dataframe(
        con,
        f"""
        WITH met AS (
            SELECT 'partner' AS relation, partner_id AS other, result FROM {PLAYER_RESULTS}
            WHERE player_id = $player AND partner_id IS NOT NULL
            UNION ALL
            SELECT 'opponent', unnest(opponent_ids), result FROM {PLAYER_RESULTS} WHERE player_id = $player
        )
        SELECT relation, other, count(*) AS rounds,
               count(*) FILTER (WHERE result = 'win') AS wins,
               count(*) FILTER (WHERE result = 'draw') AS draws,
               count(*) FILTER (WHERE result = 'loss') AS losses
        FROM met WHERE other IS NOT NULL
        GROUP BY ALL ORDER BY relation, rounds DESC, other
        """,
        {"player": player},
    )


PERIODS: dict[str, str] = {
    "month": "strftime(local_day, '%Y-%m')",
    "season": "strftime(local_day, '%Y') || '-Q' || quarter(local_day)::VARCHAR",
}
"""SQL of each leaderboard period's name from ``local_day`` (the match's local day,
schemas/times.py): a month, or a season (a quarter)."""


_PERIOD = "CASE $period " + " ".join(f"WHEN '{k}' THEN {sql}" for k, sql in PERIODS.items()) + " END"
"""SQL: the name of the period (``$period``, a key of :data:`PERIODS`) holding ``local_day``."""


_LOCAL_DAYS = sql_local_day("t.started_at", "o.utc_offset_min")
"""SQL: the local day of a row ``t`` of a per-match table joined to its match's offset ``o``."""


_DATED: dict[str, str] = {
    table: f"(SELECT t.*, {_LOCAL_DAYS} AS local_day FROM {rows} t"
    f" LEFT JOIN {MATCH_OFFSETS} o USING (match_id) WHERE t.started_at IS NOT NULL)"
    for table, rows in (("player_matches", PLAYER_RESULTS), ("rating_history", "rating_history"))
}
"""SQL: the rows of a per-match table that have a start time, with ``local_day``, the day in
their match's local time (what a period holds)."""


def _period(period: str) -> str:
    """``period`` checked against :data:`PERIODS` (an unknown one would silently match nothing)."""
    if period not in PERIODS:
        raise ValueError("unknown period " + repr(period) + "; expected one of " + ", ".join(PERIODS))
    return period


def periods(con: Con, *, period: str) -> pd.DataFrame:
    """The periods (:data:`PERIODS`) with rounds played, newest first."""
    return dataframe(
        con,
        f"""
        SELECT {_PERIOD} AS period, count(*) AS rounds FROM {_DATED["player_matches"]}
        GROUP BY ALL ORDER BY period DESC
        """,
        {"period": _period(period)},
    )


def period_leaderboard(con: Con, *, period: str, name: str, scale: float = 10.0) -> pd.DataFrame:
    """Per player over the rounds of one period: rounds, wins, draws, losses, win rate (draw = ½)
    and levels gained; and ``skill_change``, the change of the rating's μ over the period's rated
    rounds (last ``mu_after`` minus first ``mu_before``, times ``scale``: levels per
    ``RatingParams.display_deals`` deals, the display rating's unit) with the ``rated_rounds``
    behind it. The μ change is "most improved" without the σ shrinking every new player's
    display rating gains. Most levels gained first."""
    return dataframe(
        con,
        f"""
        WITH res AS (
            SELECT player_id, {RESULT_COLUMNS} FROM {_DATED["player_matches"]}
            WHERE {_PERIOD} = $name GROUP BY player_id
        ),
        rated AS (
            SELECT player_id, count(*) AS rated_rounds,
                   $scale * (arg_max(mu_after, (started_at, match_id))
                             - arg_min(mu_before, (started_at, match_id))) AS skill_change
            FROM {_DATED["rating_history"]} WHERE {_PERIOD} = $name
            GROUP BY player_id
        )
        SELECT res.player_id, res.rounds, res.wins, res.draws, res.losses, res.win_rate, res.levels_gained,
               coalesce(rated.rated_rounds, 0) AS rated_rounds, rated.skill_change
        FROM res LEFT JOIN rated USING (player_id)
        ORDER BY res.levels_gained DESC, res.win_rate DESC, res.player_id
        """,
        {"period": _period(period), "name": name, "scale": scale},
    )
