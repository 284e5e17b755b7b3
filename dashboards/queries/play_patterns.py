"""Play patterns of one player and of everyone (the Player page): leads, passes, overtakes,
bombs, 接风 and return cards, from the pipeline's per-player tables (``player_patterns``,
``player_leads``)."""

from __future__ import annotations

import pandas as pd

from dashboards.queries.common import Con, dataframe
from schemas.vocabulary import sql_rank


def lead_types(con: Con, *, player: str) -> pd.DataFrame:
    """Combination types of the player's leads and of all leads (rules.md §3 type ids).

    From ``player_leads`` (the pipeline's per-player lead counts), not a scan of ``plays``.
    """
    return dataframe(
        con,
        """
        SELECT combo_type,
               coalesce(sum(leads) FILTER (WHERE player_id = $player), 0) AS player_n,
               sum(leads) AS population_n
        FROM player_leads GROUP BY combo_type ORDER BY population_n DESC, combo_type
        """,
        {"player": player},
    )


def play_stats(con: Con, *, player: str | None) -> pd.DataFrame:
    """Play-pattern counts of one player (or everyone with ``player=None``), with denominators.

    Read from ``player_patterns`` (see ``pipelines.steps.player_patterns`` for the definitions); the
    population is the sum over every row, unknown players included. Columns: ``pass_beat`` /
    ``able_to_beat``, ``overtakes`` / ``facing_partner``, ``bombs`` / ``deals``, the mean
    ``bomb_opp_left`` over ``bombs``, and the mean ``return_rank`` (2 = 2 … A = 14) over ``returns``.
    """
    return dataframe(
        con,
        """
        SELECT coalesce(sum(pass_beat), 0) AS pass_beat,
               coalesce(sum(able_to_beat), 0) AS able_to_beat,
               coalesce(sum(overtakes), 0) AS overtakes,
               coalesce(sum(facing_partner), 0) AS facing_partner,
               coalesce(sum(bombs), 0) AS bombs,
               sum(bomb_opp_left_sum) / nullif(sum(bomb_opp_left_n), 0) AS bomb_opp_left,
               coalesce(sum(deals), 0) AS deals,
               coalesce(sum(returns), 0) AS returns,
               sum(return_rank_sum) / nullif(sum(return_rank_n), 0) AS return_rank
        FROM player_patterns WHERE ($player IS NULL OR player_id = $player)
        """,
        {"player": player},
    )


def jie_feng_received(con: Con, *, player: str | None) -> pd.DataFrame:
    """接风 (rules.md §5.6) received and deals played, by one player or by everyone.

    A lead is a jie feng when the last play before it was the partner's final card. A player's
    count comes from ``player_patterns``; for the population each jie feng of ``deals.jie_feng``
    is received by one of the four seats.
    """
    if player is None:
        return dataframe(
            con,
            "SELECT coalesce(sum(jie_feng), 0) AS jie_feng, 4 * count(*) AS deals FROM deals",
        )
    return dataframe(
        con,
        """
        SELECT coalesce(sum(jie_feng), 0) AS jie_feng, coalesce(sum(deals), 0) AS deals
        FROM player_patterns WHERE player_id = $player
        """,
        {"player": player},
    )


def return_ranks(con: Con, *, player: str) -> pd.DataFrame:
    """Ranks of the return cards (还贡, rules.md §6) given by the player and by everyone."""
    return dataframe(
        con,
        f"""
        SELECT {sql_rank("return_card")} AS rank,
               count(*) FILTER (WHERE receiver_player = $player) AS player_n,
               count(*) AS population_n
        FROM tributes WHERE return_card IS NOT NULL
        GROUP BY ALL
        """,
        {"player": player},
    )
