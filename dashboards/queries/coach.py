"""The Player page's filtered figures over the seat-deals passing the coach's filters
(:mod:`dashboards.queries.seats`): deal record, match list, finishing positions and play rates."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from dashboards.queries.common import Con, dataframe
from dashboards.queries.seats import NO_FILTERS, SeatFilters, seats_cte
from schemas.scoring import PLAYER_RESULTS
from schemas.times import sql_time_label


def coach_match_list(con: Con, *, player: str, filters: SeatFilters = NO_FILTERS) -> pd.DataFrame:
    """The player's matches with at least one deal passing the filters, newest first: when
    (``started``: the match's local time with its offset, ``2026-06-18 23:30 (UTC+08:00)``), event,
    round, partner, opponents, result, the final levels (own – opponents') and the first such deal
    (``deal``, where the replayer opens) with the number of such deals."""
    seats, params = seats_cte(player, filters)
    return dataframe(
        con,
        f"""
        WITH {seats},
        picked AS (SELECT match_id, min(deal_no) AS deal, count(*) AS deals FROM seats GROUP BY match_id)
        SELECT {sql_time_label("m.started_at", "m.utc_offset_min")} AS started, pm.event_id,
               m.event_name, pm.round, pm.partner_id AS partner,
               array_to_string(pm.opponent_ids, ' · ') AS opponents, pm.result,
               coalesce(pm.final_level,
                        CASE pm.team WHEN 'EW' THEN m.final_level_EW ELSE m.final_level_NS END, '?')
                   || ' – '
                   || coalesce(pm.opp_final_level,
                               CASE pm.team WHEN 'EW' THEN m.final_level_NS ELSE m.final_level_EW END, '?')
                   AS levels,
               pm.levels_gained, picked.deals, pm.match_id, picked.deal
        FROM {PLAYER_RESULTS} pm JOIN picked USING (match_id) JOIN matches m USING (match_id)
        WHERE pm.player_id = $player
        ORDER BY pm.started_at DESC NULLS LAST, pm.match_id
        """,
        params,
    )


def coach_deal_record(con: Con, *, player: str | None, filters: SeatFilters = NO_FILTERS) -> pd.DataFrame:
    """One row over the seat-deals passing the filters: ``deals``, ``deals_won`` (the seat's team
    won the deal, rules.md §5.8), ``double_wins`` and ``double_losses`` (双下, §5.7), the levels
    won, ``bombs`` played and ``deals_known`` (hands known, the bombs' denominator)."""
    seats, params = seats_cte(player, filters)
    return dataframe(
        con,
        f"""
        WITH {seats}
        SELECT count(*) AS deals,
               count(*) FILTER (WHERE winning_team = team) AS deals_won,
               count(*) FILTER (WHERE double_win AND winning_team = team) AS double_wins,
               count(*) FILTER (WHERE double_win AND winning_team <> team) AS double_losses,
               coalesce(sum(level_gain) FILTER (WHERE winning_team = team), 0) AS levels_won,
               coalesce(sum(bombs_played), 0) AS bombs,
               count(bombs_played) AS deals_known
        FROM seats
        """,
        params,
    )


def coach_results_only(con: Con, *, player: str | None, filters: SeatFilters = NO_FILTERS) -> pd.DataFrame:
    """One row: the filtered seat-deals' results-only deals (each once; docs/event-extensions.md),
    which the Tributes and Bombs pages leave out for want of play: ``deals`` and ``after_first``
    (those after a match's first deal, the ones that could have had a tribute, rules.md §6)."""
    seats, params = seats_cte(player, filters)
    return dataframe(
        con,
        f"""
        WITH {seats}
        SELECT count(DISTINCT (match_id, deal_no)) AS deals,
               count(DISTINCT (match_id, deal_no)) FILTER (WHERE deal_no > 1) AS after_first
        FROM seats WHERE results_only
        """,
        params,
    )


def coach_finish_positions(con: Con, *, player: str, filters: SeatFilters = NO_FILTERS) -> pd.DataFrame:
    """Finishing positions (rules.md §5.5) of the player's seat-deals passing the filters and of
    everyone's under the same filters but the partner (``player_n``, ``population_n``).

    Every finished deal counts once per seat: a seat that lost 双下 (§5.7) has no position (the
    deal ends before the losers finish) and counts as ``double_loss``; only deals with no
    recorded end (no ``winning_team``) are left out.
    """
    with_partner = filters.partner is not None
    seats, params = seats_cte(None, replace(filters, partner=None), partner_column=with_partner)
    params |= {"me": player} | ({"my_partner": filters.partner} if with_partner else {})
    mine = "player_id = $me" + (" AND partner_id = $my_partner" if with_partner else "")
    return dataframe(
        con,
        f"""
        WITH {seats}
        SELECT coalesce(finish_position::VARCHAR, 'double_loss') AS position,
               count(*) FILTER (WHERE {mine})
                   AS player_n,
               count(*) AS population_n
        FROM seats WHERE winning_team IS NOT NULL
        GROUP BY ALL ORDER BY position
        """,
        params,
    )


def coach_play_rates(con: Con, *, player: str | None, filters: SeatFilters = NO_FILTERS) -> pd.DataFrame:
    """One row of play-pattern counts over the seat-deals passing the filters, with the same
    definitions as ``player_patterns`` (pipelines/player_patterns.py): ``pass_beat`` /
    ``able_to_beat``, ``overtakes`` / ``facing_partner``, ``bombs`` / ``deals``, ``jie_feng`` (接风,
    rules.md §5.6) / ``deals``.

    Sums the pipeline's ``seat_patterns`` rows of the filtered seat-deals: scanning ``plays``
    instead read most of its row groups for a player's few matches.
    """
    seats, params = seats_cte(player, filters)
    sums = ", ".join(
        f"coalesce(sum(p.{c}), 0)::BIGINT AS {c}"
        for c in ("pass_beat", "able_to_beat", "overtakes", "facing_partner", "bombs", "jie_feng")
    )
    return dataframe(
        con,
        f"""
        WITH {seats}
        SELECT {sums}, count(*) AS deals
        FROM seats s LEFT JOIN seat_patterns p USING (match_id, deal_no, seat)
        """,
        params,
    )
