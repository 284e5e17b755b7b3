"""The Tributes page's queries over the filtered seat-deals (rules.md §6): tribute kinds, the
ranks of the cards paid and returned, and the level gain of payers and receivers."""

from __future__ import annotations

import pandas as pd

from dashboards.queries.common import Con, dataframe
from dashboards.queries.seats import NO_FILTERS, SeatFilters, seats_cte
from schemas.vocabulary import sql_rank, sql_team


def coach_tribute_kinds(con: Con, *, player: str | None, filters: SeatFilters = NO_FILTERS) -> pd.DataFrame:
    """Deals after the first (rules.md §6) among the filtered seat-deals' deals, by tribute kind.

    Results-only deals are left out: without their play a sheet may show no tribute at all, which
    is not "none" (the page says how many, :func:`dashboards.queries.coach.coach_results_only`).
    """
    seats, params = seats_cte(player, filters)
    return dataframe(
        con,
        f"""
        WITH {seats}
        SELECT coalesce(tribute_kind, 'none') AS kind, count(DISTINCT (match_id, deal_no)) AS n
        FROM seats WHERE deal_no > 1 AND NOT results_only
        GROUP BY ALL ORDER BY n DESC, kind
        """,
        params,
    )


def coach_tribute_cards(con: Con, *, player: str | None, filters: SeatFilters = NO_FILTERS) -> pd.DataFrame:
    """Ranks of the cards paid (进贡) by the filtered seats and returned (还贡) by them (rules.md §6)."""
    seats, params = seats_cte(player, filters)
    return dataframe(
        con,
        f"""
        WITH {seats},
        t AS (SELECT * FROM tributes WHERE kind IN ('single', 'double')),
        paid AS (SELECT {sql_rank("card")} AS rank, count(*) AS paid
                 FROM t SEMI JOIN seats s ON t.match_id = s.match_id AND t.deal_no = s.deal_no
                                          AND t.giver = s.seat
                 WHERE card IS NOT NULL GROUP BY 1),
        ret AS (SELECT {sql_rank("return_card")} AS rank, count(*) AS returned
                FROM t SEMI JOIN seats s ON t.match_id = s.match_id AND t.deal_no = s.deal_no
                                         AND t.receiver = s.seat
                WHERE return_card IS NOT NULL GROUP BY 1)
        SELECT rank, coalesce(paid, 0) AS paid, coalesce(returned, 0) AS returned
        FROM paid FULL OUTER JOIN ret USING (rank)
        """,
        params,
    )


def coach_level_gain(con: Con, *, player: str | None, filters: SeatFilters = NO_FILTERS) -> pd.DataFrame:
    """Level gain in the deal (rules.md §5.8) of the paying team and of the receiving team, over
    the teams of the filtered seats in deals with a tribute paid (each deal once per team).

    Rows: ``side`` (payer|receiver), ``gain`` (0 when the other team won the deal), ``n`` deals.
    Results-only deals are left out, as in :func:`coach_tribute_kinds`.
    """
    seats, params = seats_cte(player, filters)
    return dataframe(
        con,
        f"""
        WITH {seats},
        payers AS (
            SELECT DISTINCT match_id, deal_no, {sql_team("giver")} AS payer_team
            FROM tributes WHERE kind IN ('single', 'double') AND giver IS NOT NULL
        ),
        sides AS (
            SELECT DISTINCT s.match_id, s.deal_no, s.team, s.winning_team, s.level_gain,
                   CASE WHEN s.team = p.payer_team THEN 'payer' ELSE 'receiver' END AS side
            FROM seats s JOIN payers p USING (match_id, deal_no)
            WHERE s.winning_team IS NOT NULL AND NOT s.results_only
        )
        SELECT side, CASE WHEN winning_team = team THEN level_gain ELSE 0 END AS gain, count(*) AS n
        FROM sides GROUP BY ALL ORDER BY side, gain
        """,
        params,
    )
