"""The Bombs page's queries over the filtered seat-deals (rules.md §4): bomb plays, bombs per
deal, and deal wins by bombs held and played."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from dashboards.queries.common import Con, dataframe
from dashboards.queries.seats import NO_FILTERS, SeatFilters, seats_cte
from schemas.vocabulary import sql_partner


def coach_bombs(con: Con, *, player: str | None, filters: SeatFilters = NO_FILTERS) -> pd.DataFrame:
    """Bomb plays (rules.md §4) of the filtered seats: ``bomb_class``, ``size``, ``opp_min_left``
    and whether it was played on the partner's play (aggregated by the page).

    Without a filter on the deal, its match or the partner, the player and seat are columns of
    ``plays`` itself, so the plays are read alone (no join with every seat-deal of the store).
    """
    if not replace(filters, seat=None).is_set():
        return dataframe(con, _BOMBS_OF_SEATS, {"player": player, "seat": filters.seat})
    seats, bound = seats_cte(player, filters)
    return dataframe(
        con,
        f"""
        WITH {seats}
        SELECT p.bomb_class, p.combo_size AS size, p.opp_min_left,
               (p.table_seat = {sql_partner("p.seat")}) AS on_partner, count(*) AS n
        FROM plays p SEMI JOIN seats s USING (match_id, deal_no, seat)
        WHERE p.bomb_class IS NOT NULL
        GROUP BY ALL
        """,
        bound,
    )


_BOMBS_OF_SEATS = f"""
    SELECT p.bomb_class, p.combo_size AS size, p.opp_min_left,
           (p.table_seat = {sql_partner("p.seat")}) AS on_partner, count(*) AS n
    FROM plays p
    WHERE p.bomb_class IS NOT NULL
      AND ($player IS NULL OR p.player_id = $player) AND (CAST($seat AS VARCHAR) IS NULL OR p.seat = $seat)
    GROUP BY ALL
"""
"""SQL of :func:`coach_bombs` filtered by player and seat only: ``plays`` alone."""


def coach_win_by_bombs(con: Con, *, player: str | None, filters: SeatFilters = NO_FILTERS) -> pd.DataFrame:
    """Deal wins of the filtered seats' teams by natural bombs held (dealt) and bombs played
    (capped at 4, meaning 4 or more): ``kind`` held|used, ``bombs``, ``wins`` and ``n`` seats.
    Results-only deals are left out (neither is known)."""
    seats, params = seats_cte(player, filters)
    return dataframe(
        con,
        f"""
        WITH {seats},
        h AS (
            SELECT least(natural_bombs, 4) AS held, least(bombs_played, 4) AS used,
                   (winning_team = team) AS won
            FROM seats WHERE winning_team IS NOT NULL AND NOT results_only
        )
        SELECT 'held' AS kind, held AS bombs, count(*) FILTER (WHERE won) AS wins, count(*) AS n
        FROM h WHERE held IS NOT NULL GROUP BY ALL
        UNION ALL
        SELECT 'used', used, count(*) FILTER (WHERE won), count(*) FROM h WHERE used IS NOT NULL GROUP BY ALL
        ORDER BY kind, bombs
        """,
        params,
    )


def coach_bombs_per_deal(con: Con, *, player: str | None, filters: SeatFilters = NO_FILTERS) -> pd.DataFrame:
    """The filtered seat-deals' deals (each once) by the number of bombs played in them, both teams.

    Results-only deals are left out: their bombs are unknown, not 0 (docs/event-extensions.md).
    """
    seats, params = seats_cte(player, filters)
    return dataframe(
        con,
        f"""
        WITH {seats}
        SELECT coalesce(d.bombs_EW, 0) + coalesce(d.bombs_NS, 0) AS bombs, count(*) AS n
        FROM deals d SEMI JOIN seats s USING (match_id, deal_no)
        WHERE d.plays IS NOT NULL
        GROUP BY ALL ORDER BY bombs
        """,
        params,
    )
