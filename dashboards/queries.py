"""Every SQL query of the dashboards, over the read-only views of ``pipelines.warehouse``.

Each function takes a DuckDB connection (or cursor) and keyword parameters and returns a pandas
DataFrame. User input only ever reaches DuckDB as bound ``$name`` parameters, never through
string formatting. A filter parameter of ``None`` means "all". Table and column meanings are
those of ``schemas/tables.py`` and ``schemas/scoring.py``; seats and teams follow rules.md §1
(partners sit opposite: E–W, N–S).
"""

from __future__ import annotations

import warnings
from dataclasses import asdict, astuple, dataclass, replace
from datetime import date
from typing import Any

import duckdb
import pandas as pd
from pandas.errors import Pandas4Warning

from pipelines.pairing_sheet import PairingSheet
from schemas.scoring import PLAYER_RESULTS
from schemas.times import sql_local_day, sql_time_label
from schemas.vocabulary import (
    PARTNER,
    TEAMS,
    sql_level_order,
    sql_other_team,
    sql_partner,
    sql_rank,
    sql_team,
)

Con = duckdb.DuckDBPyConnection

_DUCKDB_INPLACE_WARNING = r"The inplace keyword in DataFrame\.drop is deprecated"
_RULES_MATCH = "($rules IS NULL OR match_id IN (SELECT match_id FROM matches WHERE rules = $rules))"

_MATCH_DAY = sql_local_day("started_at", "utc_offset_min")
"""SQL: the local day a ``matches`` row started (schemas/times.py: its ``utc_offset_min``)."""

_OFFSETS = "(SELECT match_id, utc_offset_min FROM matches)"
"""SQL: each match's UTC offset, to show a scoring table's times in the match's local time."""


# --- results entry -------------------------------------------------------------------------


def entry_events(con: Con) -> pd.DataFrame:
    """Events (one row per stage) with the ruleset and format of their matches and their last
    round, for the results entry page."""
    return _df(
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
    return _df(
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
    return _df(
        con,
        "SELECT deal_no, finish_order FROM deals WHERE match_id = $match ORDER BY deal_no",
        {"match": match},
    )


def entry_roster(con: Con) -> pd.DataFrame:
    """The roster (``players``): id, name and club of every player the logs declare."""
    return _df(con, "SELECT player_id, name, club FROM players ORDER BY player_id")


def entry_pairing(con: Con, *, event: str, stage: str | None, round_no: int) -> PairingSheet:
    """The tables of round ``round_no`` by scoring.md §S8, as `gdan pair` gives them (raises
    ``pipelines.tournament_data.LookupFailed`` when the event cannot be paired)."""
    from pipelines.pairing_sheet import pairing_sheet

    return pairing_sheet(con, event, stage, round_no, None, 0)


def _df(con: Con, sql: str, params: dict[str, Any] | None = None) -> pd.DataFrame:
    """Run one parameterized query and return its rows as a DataFrame.

    DuckDB's own pandas conversion of time-zone-aware timestamps calls ``DataFrame.drop(...,
    inplace=True)``, which pandas 3.1 deprecates (``Pandas4Warning``) on every such query; that
    one warning is silenced here, as it is DuckDB's to fix.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_DUCKDB_INPLACE_WARNING, category=Pandas4Warning)
        return con.execute(sql, params or {}).df()


# --- overview -------------------------------------------------------------------------------


def overview_totals(con: Con) -> pd.DataFrame:
    """One row: matches, deals, players, events, log events and the time span of the store: its
    first start and last end as instants (``first_start``, ``last_end``) and as the local days of
    those matches (``first_day``, ``last_day``, schemas/times.py)."""
    return _df(
        con,
        f"""
        SELECT
            (SELECT count(*) FROM matches) AS matches,
            (SELECT count(*) FROM deals) AS deals,
            (SELECT count(DISTINCT player_id) FROM player_matches) AS players,
            (SELECT count(DISTINCT event_id) FROM matches WHERE event_id IS NOT NULL) AS events,
            (SELECT count(*) FROM raw_events) AS raw_events,
            (SELECT min(started_at) FROM matches) AS first_start,
            (SELECT max(coalesce(ended_at, started_at)) FROM matches) AS last_end,
            (SELECT min({_MATCH_DAY}) FROM matches) AS first_day,
            (SELECT max({sql_local_day("coalesce(ended_at, started_at)", "utc_offset_min")}) FROM matches)
                AS last_day
        """,
    )


def status_counts(con: Con) -> pd.DataFrame:
    """Matches by validation status (events.md "Validation"): valid, partial, invalid."""
    return _df(con, "SELECT status, count(*) AS n FROM matches GROUP BY status ORDER BY status")


def matches_per_day(con: Con) -> pd.DataFrame:
    """Matches started per local day (the day of the match's own time zone) and ruleset."""
    return _df(
        con,
        f"""
        SELECT {_MATCH_DAY} AS day, coalesce(rules, '?') AS rules, count(*) AS n
        FROM matches WHERE started_at IS NOT NULL
        GROUP BY ALL ORDER BY day, rules
        """,
    )


def matches_by_ruleset(con: Con) -> pd.DataFrame:
    """Matches per ruleset and status."""
    return _df(
        con,
        """
        SELECT coalesce(rules, '?') AS rules, status, count(*) AS n
        FROM matches GROUP BY ALL ORDER BY rules, status
        """,
    )


# --- players and filters --------------------------------------------------------------------


def players(con: Con) -> pd.DataFrame:
    """Every player who played a valid or partial match: id, rounds played, and name and club
    from the pipeline's roster (``players``, ``pipelines.roster``: the latest declaration wins)."""
    return _df(
        con,
        """
        SELECT pm.player_id, any_value(p.name) AS name, any_value(p.club) AS club, count(*) AS rounds
        FROM player_matches pm LEFT JOIN players p USING (player_id)
        GROUP BY pm.player_id ORDER BY pm.player_id
        """,
    )


def filter_options(con: Con) -> dict[str, list[str]]:
    """Values offered by the page filters: events and rulesets (clubs come from :func:`players`)."""
    events = _df(con, "SELECT DISTINCT event_id FROM matches WHERE event_id IS NOT NULL ORDER BY 1")
    rules = _df(con, "SELECT DISTINCT rules FROM matches WHERE rules IS NOT NULL ORDER BY 1")
    return {"event": events["event_id"].tolist(), "rules": rules["rules"].tolist()}


_BOARD_SELECT = """
    SELECT res.player_id, r.rating, r.mu, r.sigma, r.provisional, dc.dan, pd.pro_dan, res.rounds,
           res.wins, res.draws, res.losses, res.win_rate, res.levels_gained
    FROM res
    LEFT JOIN ratings r USING (player_id)
    LEFT JOIN dan_current dc USING (player_id)
    LEFT JOIN pro_dan pd USING (player_id)
"""
"""Rating, dan and results of the players in ``res`` (a CTE of per-player result counts)."""

_RESULTS = """
    count(*) AS rounds,
    count(*) FILTER (WHERE result = 'win') AS wins,
    count(*) FILTER (WHERE result = 'draw') AS draws,
    count(*) FILTER (WHERE result = 'loss') AS losses,
    (count(*) FILTER (WHERE result = 'win') + 0.5 * count(*) FILTER (WHERE result = 'draw'))
        / count(*) AS win_rate,
    sum(levels_gained) AS levels_gained
"""
"""Per-player result columns over :data:`PLAYER_RESULTS` rows; a draw counts half a win."""


def leaderboard(
    con: Con, *, event: str | None = None, rules: str | None = None, min_rounds: int = 0
) -> pd.DataFrame:
    """Per player: rating ± sigma (provisional marked), dan, and the filtered results.

    Rounds, wins, draws, losses, win rate (draw = ½) and levels gained count only the rounds
    that pass the filters; rating and dan are the player's current ones (``ratings``,
    ``dan_current``, ``pro_dan``). Best rating first; unrated players after, by win rate.
    Names and clubs are joined by the page from :func:`players` (computed once per store).
    """
    return _df(
        con,
        f"""
        WITH res AS (
            SELECT player_id, {_RESULTS}
            FROM {PLAYER_RESULTS}
            WHERE ($event IS NULL OR event_id = $event) AND ($rules IS NULL OR rules = $rules)
            GROUP BY player_id
            HAVING count(*) >= $min_rounds
        )
        {_BOARD_SELECT}
        ORDER BY r.rating DESC NULLS LAST, res.win_rate DESC, res.rounds DESC, res.player_id
        """,
        {"event": event, "rules": rules, "min_rounds": min_rounds},
    )


def player_summary(con: Con, *, player: str) -> pd.DataFrame:
    """One player's rating, dan and results over all rounds (zero or one row)."""
    return _df(
        con,
        f"""
        WITH res AS (SELECT player_id, {_RESULTS} FROM {PLAYER_RESULTS} WHERE player_id = $player
                     GROUP BY player_id)
        {_BOARD_SELECT}
        """,
        {"player": player},
    )


def rating_history(con: Con, *, player: str) -> pd.DataFrame:
    """The player's rating after each rated round (``rating_history``), in time order."""
    return _df(
        con,
        """
        SELECT row_number() OVER (ORDER BY started_at, match_id) AS round_index, started_at, match_id,
               event_id, round, partner_id, result, win_probability, mu_after, sigma_after, rating_after
        FROM rating_history WHERE player_id = $player ORDER BY started_at, match_id
        """,
        {"player": player},
    )


def dan_ledger(con: Con, *, player: str) -> pd.DataFrame:
    """The player's amateur dan ledger (scoring.md §S5), one row per BCTA round in time order."""
    return _df(
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
    return _df(
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


# --- dan promotion --------------------------------------------------------------------------


def close_to_promotion(con: Con, *, limit: int = 50) -> pd.DataFrame:
    """Players nearest to their next dan (scoring.md §S5): fewest points to go first; ``last_played``
    in the local time of the player's latest round."""
    return _df(
        con,
        f"""
        WITH near AS (
            SELECT player_id, dan, next_dan, points, next_threshold, points_to_next, progress,
                   window_rounds_used, rounds_left, last_played
            FROM dan_current WHERE next_dan IS NOT NULL AND points_to_next IS NOT NULL
            ORDER BY points_to_next, rounds_left DESC, player_id LIMIT $limit
        ),
        last_round AS (
            SELECT l.player_id, arg_max(o.utc_offset_min, (l.started_at, l.seq)) AS utc_offset_min
            FROM dan_ledger l SEMI JOIN near USING (player_id) LEFT JOIN {_OFFSETS} o USING (match_id)
            GROUP BY l.player_id
        )
        SELECT near.* REPLACE ({sql_time_label("near.last_played", "last_round.utc_offset_min")}
                               AS last_played)
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
    return _df(
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
    return _df(
        con,
        """
        SELECT dan, next_dan, points_to_next, rounds_left, p_promote, expected_rounds,
               win_chance, rated_rounds, naive_promote, low_data
        FROM dan_forecast WHERE player_id = $player
        """,
        {"player": player},
    )


def player_luck(con: Con, *, player: str) -> pd.DataFrame:
    """Levels per deal above what the player's cards led one to expect, with its 95 % interval."""
    return _df(
        con,
        """
        SELECT deals, actual_mean, expected_mean, above_expectation, ci_low, ci_high, low_data
        FROM player_luck WHERE player_id = $player
        """,
        {"player": player},
    )


def luck_population(con: Con) -> pd.DataFrame:
    """Every player's levels above expectation with its interval (``player_luck``, small table)."""
    return _df(
        con,
        """
        SELECT player_id, deals, above_expectation, ci_low, ci_high, low_data
        FROM player_luck ORDER BY above_expectation, player_id
        """,
    )


def dan_events(con: Con, *, limit: int = 100) -> pd.DataFrame:
    """The latest promotions and window resets (``dan_ledger.event``), newest first; ``started_at``
    is the round's start in its match's local time (``2026-06-18 13:05 (UTC+08:00)``)."""
    return _df(
        con,
        f"""
        SELECT {sql_time_label("l.started_at", "o.utc_offset_min")} AS started_at, player_id, event,
               dan_before, dan_after, total_before, total_after, window_no, window_rounds_used,
               window_size, match_id
        FROM dan_ledger l LEFT JOIN {_OFFSETS} o USING (match_id) WHERE event IS NOT NULL
        ORDER BY l.started_at DESC, player_id LIMIT $limit
        """,
        {"limit": limit},
    )


def dan_distribution(con: Con) -> pd.DataFrame:
    """Players per current amateur dan (0 = none)."""
    return _df(con, "SELECT dan, count(*) AS n FROM dan_current GROUP BY dan ORDER BY dan")


# --- one player -----------------------------------------------------------------------------


def results_by_partner(con: Con, *, player: str) -> pd.DataFrame:
    """The player's rounds, wins, draws, losses and levels gained with each partner."""
    return _df(
        con,
        f"""
        SELECT partner_id AS partner, count(*) AS rounds,
               count(*) FILTER (WHERE result = 'win') AS wins,
               count(*) FILTER (WHERE result = 'draw') AS draws,
               count(*) FILTER (WHERE result = 'loss') AS losses,
               (count(*) FILTER (WHERE result = 'win') + 0.5 * count(*) FILTER (WHERE result = 'draw'))
                   / count(*) AS win_rate,
               sum(levels_gained) AS levels_gained
        FROM {PLAYER_RESULTS} WHERE player_id = $player
        GROUP BY partner_id ORDER BY rounds DESC, partner
        """,
        {"player": player},
    )


def results_by_opponent(con: Con, *, player: str) -> pd.DataFrame:
    """The player's results against each opponent met (each round counts for both opponents)."""
    return _df(
        con,
        f"""
        SELECT opponent, count(*) AS rounds,
               count(*) FILTER (WHERE result = 'win') AS wins,
               count(*) FILTER (WHERE result = 'draw') AS draws,
               count(*) FILTER (WHERE result = 'loss') AS losses,
               (count(*) FILTER (WHERE result = 'win') + 0.5 * count(*) FILTER (WHERE result = 'draw'))
                   / count(*) AS win_rate
        FROM (SELECT unnest(opponent_ids) AS opponent, result FROM {PLAYER_RESULTS} WHERE player_id = $player)
        GROUP BY opponent ORDER BY rounds DESC, opponent
        """,
        {"player": player},
    )


def finish_positions(con: Con, *, player: str) -> pd.DataFrame:
    """Finishing positions (1 上游 … 4 下游, rules.md §5.5): the player's counts and the population's.

    A deal lost 双下 (the opponents went out first and second) ends before the losers finish, so
    their ``finish_position`` is null; those seats count as ``position`` ``double_loss`` instead
    of being left out (which would make a player who loses 双下 often look better).
    """
    return _df(
        con,
        """
        SELECT coalesce(h.finish_position::VARCHAR, 'double_loss') AS position,
               count(*) FILTER (WHERE h.player_id = $player) AS player_n,
               count(*) AS population_n
        FROM deal_hands h JOIN deals d USING (match_id, deal_no)
        WHERE h.finish_position IS NOT NULL OR (d.double_win AND h.team <> d.winning_team)
        GROUP BY ALL ORDER BY position
        """,
        {"player": player},
    )


def lead_types(con: Con, *, player: str) -> pd.DataFrame:
    """Combination types of the player's leads and of all leads (rules.md §3 type ids).

    From ``player_leads`` (the pipeline's per-player lead counts), not a scan of ``plays``.
    """
    return _df(
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

    Read from ``player_patterns`` (see ``pipelines.player_patterns`` for the definitions); the
    population is the sum over every row, unknown players included. Columns: ``pass_beat`` /
    ``able_to_beat``, ``overtakes`` / ``facing_partner``, ``bombs`` / ``deals``, the mean
    ``bomb_opp_left`` over ``bombs``, and the mean ``return_rank`` (2 = 2 … A = 14) over ``returns``.
    """
    return _df(
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
        return _df(
            con,
            "SELECT coalesce(sum(jie_feng), 0) AS jie_feng, 4 * count(*) AS deals FROM deals",
        )
    return _df(
        con,
        """
        SELECT coalesce(sum(jie_feng), 0) AS jie_feng, coalesce(sum(deals), 0) AS deals
        FROM player_patterns WHERE player_id = $player
        """,
        {"player": player},
    )


def return_ranks(con: Con, *, player: str) -> pd.DataFrame:
    """Ranks of the return cards (还贡, rules.md §6) given by the player and by everyone."""
    return _df(
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


# --- tributes -------------------------------------------------------------------------------


def tribute_kinds(con: Con, *, rules: str | None = None) -> pd.DataFrame:
    """Deals after the first by tribute kind (rules.md §6): none, single, double, anti."""
    return _df(
        con,
        """
        SELECT coalesce(tribute_kind, 'none') AS kind, count(*) AS n
        FROM deals WHERE deal_no > 1 AND ($rules IS NULL OR rules = $rules)
        GROUP BY ALL ORDER BY n DESC
        """,
        {"rules": rules},
    )


def tribute_card_ranks(con: Con, *, rules: str | None = None) -> pd.DataFrame:
    """Ranks of the cards paid (进贡) and returned (还贡), rules.md §6."""
    return _df(
        con,
        f"""
        WITH t AS (SELECT * FROM tributes WHERE kind IN ('single', 'double') AND {_RULES_MATCH}),
        paid AS (SELECT {sql_rank("card")} AS rank, count(*) AS paid FROM t
                 WHERE card IS NOT NULL GROUP BY 1),
        ret AS (SELECT {sql_rank("return_card")} AS rank, count(*) AS returned FROM t
                WHERE return_card IS NOT NULL GROUP BY 1)
        SELECT rank, coalesce(paid, 0) AS paid, coalesce(returned, 0) AS returned
        FROM paid FULL OUTER JOIN ret USING (rank)
        """,
        {"rules": rules},
    )


def level_gain_after_tribute(con: Con, *, rules: str | None = None) -> pd.DataFrame:
    """Level gain in the deal (rules.md §5.8) of the team that paid tribute and of its receivers.

    Rows: ``side`` (payer|receiver), ``gain`` (0 when the other team won the deal), ``n`` deals.
    """
    return _df(
        con,
        f"""
        WITH payers AS (
            SELECT DISTINCT match_id, deal_no, {sql_team("giver")} AS team
            FROM tributes WHERE kind IN ('single', 'double') AND giver IS NOT NULL
        ),
        sides AS (
            SELECT d.match_id, d.deal_no, d.winning_team, d.level_gain, p.team AS payer_team,
                   {sql_other_team("p.team")} AS receiver_team
            FROM deals d JOIN payers p USING (match_id, deal_no)
            WHERE ($rules IS NULL OR d.rules = $rules) AND d.winning_team IS NOT NULL
        )
        SELECT 'payer' AS side, CASE WHEN winning_team = payer_team THEN level_gain ELSE 0 END AS gain,
               count(*) AS n
        FROM sides GROUP BY ALL
        UNION ALL
        SELECT 'receiver', CASE WHEN winning_team = receiver_team THEN level_gain ELSE 0 END, count(*)
        FROM sides GROUP BY ALL
        ORDER BY side, gain
        """,
        {"rules": rules},
    )


# --- bombs ----------------------------------------------------------------------------------


def bombs_per_deal(con: Con, *, rules: str | None = None) -> pd.DataFrame:
    """Deals by the number of bombs played in them (both teams)."""
    return _df(
        con,
        """
        SELECT coalesce(bombs_EW, 0) + coalesce(bombs_NS, 0) AS bombs, count(*) AS n
        FROM deals WHERE ($rules IS NULL OR rules = $rules)
        GROUP BY ALL ORDER BY bombs
        """,
        {"rules": rules},
    )


def bombs_by_class(con: Con, *, rules: str | None = None) -> pd.DataFrame:
    """Bomb plays by class (rules.md §4 strength classes) and number of cards."""
    return _df(
        con,
        f"""
        SELECT bomb_class, combo_size AS size, count(*) AS n
        FROM plays WHERE bomb_class IS NOT NULL AND {_RULES_MATCH}
        GROUP BY ALL ORDER BY bomb_class, size
        """,
        {"rules": rules},
    )


def bomb_timing(con: Con, *, rules: str | None = None) -> pd.DataFrame:
    """Bomb plays by the opponents' fewest cards left before the bomb (``opp_min_left``)."""
    return _df(
        con,
        f"""
        SELECT opp_min_left, count(*) AS n
        FROM plays WHERE bomb_class IS NOT NULL AND opp_min_left IS NOT NULL AND {_RULES_MATCH}
        GROUP BY ALL ORDER BY opp_min_left
        """,
        {"rules": rules},
    )


def bomb_summary(con: Con, *, rules: str | None = None) -> pd.DataFrame:
    """One row: bombs played, bombs on the partner's play, 四大天王, 同花顺, and deals."""
    return _df(
        con,
        f"""
        SELECT count(*) AS bombs,
               count(*) FILTER (WHERE table_seat = {sql_partner("seat")}) AS on_partner,
               count(*) FILTER (WHERE bomb_class = 'joker_bomb') AS joker_bombs,
               count(*) FILTER (WHERE bomb_class = 'straight_flush') AS straight_flushes,
               (SELECT count(*) FROM deals WHERE ($rules IS NULL OR rules = $rules)) AS deals
        FROM plays WHERE bomb_class IS NOT NULL AND {_RULES_MATCH}
        """,
        {"rules": rules},
    )


def win_by_bombs(con: Con, *, rules: str | None = None) -> pd.DataFrame:
    """Deal win rate of a seat's team by natural bombs held (dealt) and by bombs it played.

    ``bombs`` is capped at 4 (meaning 4 or more). A seat "wins" when its team won the deal.
    """
    return _df(
        con,
        """
        WITH h AS (
            SELECT least(dh.natural_bombs, 4) AS held, least(dh.bombs_played, 4) AS used,
                   (d.winning_team = dh.team) AS won
            FROM deal_hands dh JOIN deals d USING (match_id, deal_no)
            WHERE d.winning_team IS NOT NULL AND ($rules IS NULL OR d.rules = $rules)
        )
        SELECT 'held' AS kind, held AS bombs, count(*) AS n, avg(CAST(won AS DOUBLE)) AS win_rate
        FROM h WHERE held IS NOT NULL GROUP BY ALL
        UNION ALL
        SELECT 'used', used, count(*), avg(CAST(won AS DOUBLE))
        FROM h WHERE used IS NOT NULL GROUP BY ALL
        ORDER BY kind, bombs
        """,
        {"rules": rules},
    )


# --- tournament -----------------------------------------------------------------------------


def events(con: Con) -> pd.DataFrame:
    """Events with their name, rounds and matches, and whether it is a duplicate (複式) event:
    some match has a ``duplicate_board`` (scoring.md §S8)."""
    return _df(
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
    return _df(
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
    return _df(
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
    return _df(
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


def duplicate_standings(con: Con, *, event: str) -> pd.DataFrame:
    """A duplicate event's pairs by MP score rate (``duplicate_standings``, scoring.md §S8)."""
    return _df(
        con,
        """
        SELECT stage, rank, team_id, player_1, player_2, deals_compared, mp, mp_max, mp_rate,
               place_counts, decided_by
        FROM duplicate_standings WHERE event_id = $event
        ORDER BY stage NULLS FIRST, rank, team_id
        """,
        {"event": event},
    )


def duplicate_results(con: Con, *, event: str) -> pd.DataFrame:
    """A duplicate event's results per board and deal: each pair's level result and matchpoints."""
    return _df(
        con,
        """
        SELECT stage, board, deal_no, direction, room, team_id, player_1, player_2, result, mp, mp_max,
               place, rooms, match_id
        FROM duplicate_results WHERE event_id = $event
        ORDER BY stage NULLS FIRST, board, deal_no, direction, place, room
        """,
        {"event": event},
    )


# --- hand replayer --------------------------------------------------------------------------


def find_matches(con: Con, *, search: str = "", limit: int = 500) -> pd.DataFrame:
    """The first ``limit`` matches with deals whose id, event, players' ids or players' names
    contain ``search`` (case-insensitive), oldest first, with ``started``, the match's start in its
    local time (the Replayer's header), and ``total``, how many matches the search finds in all."""
    return _df(
        con,
        f"""
        SELECT match_id, event_id, round, "table", rules, status, deals_played,
               {sql_time_label("started_at", "utc_offset_min")} AS started, count(*) OVER () AS total
        FROM matches m
        WHERE coalesce(deals_played, 0) > 0
          AND ($q = '' OR concat_ws(' ', match_id, event_id, player_E, player_N, player_W, player_S)
                          ILIKE '%' || $q || '%'
               OR EXISTS (SELECT 1 FROM players p
                          WHERE p.player_id IN (m.player_E, m.player_N, m.player_W, m.player_S)
                            AND p.name ILIKE '%' || $q || '%'))
        ORDER BY started_at, match_id LIMIT $limit
        """,
        {"q": search, "limit": limit},
    )


def match_deals(con: Con, *, match: str) -> pd.DataFrame:
    """The deals of one match with their level, declarers, tribute kind and result, and when each
    started (``started``, in the match's local time with its offset)."""
    return _df(
        con,
        f"""
        SELECT deal_no, level, declarers, tribute_kind, leader, finish_order, winning_team, level_gain,
               double_win, jie_feng, bombs_EW, bombs_NS,
               {sql_time_label("d.started_at", "o.utc_offset_min")} AS started
        FROM deals d LEFT JOIN {_OFFSETS} o USING (match_id) WHERE match_id = $match ORDER BY deal_no
        """,
        {"match": match},
    )


def deal_hands(con: Con, *, match: str, deal: int) -> pd.DataFrame:
    """The four dealt hands of one deal (null ``hand`` when unknown)."""
    return _df(
        con,
        """
        SELECT seat, player_id, team, hand, finish_position, bombs_played
        FROM deal_hands WHERE match_id = $match AND deal_no = $deal ORDER BY seat
        """,
        {"match": match, "deal": deal},
    )


def deal_tributes(con: Con, *, match: str, deal: int) -> pd.DataFrame:
    """Tributes, returns and resisted tributes of one deal."""
    return _df(
        con,
        """
        SELECT kind, giver, receiver, card, return_card, equal_double, anti_seats
        FROM tributes WHERE match_id = $match AND deal_no = $deal ORDER BY giver
        """,
        {"match": match, "deal": deal},
    )


def deal_plays(con: Con, *, match: str, deal: int) -> pd.DataFrame:
    """Every play and pass of one deal, in order, with its derived flags."""
    return _df(
        con,
        """
        SELECT seq, trick_no, pos_in_trick, is_lead, seat, player_id, action, cards, combo_type,
               combo_rank, bomb_class, reading_inferred, overtook_partner, could_beat, went_out,
               left_after
        FROM plays WHERE match_id = $match AND deal_no = $deal ORDER BY seq
        """,
        {"match": match, "deal": deal},
    )


def deal_reviews(con: Con, *, match: str, deal: int) -> pd.DataFrame:
    """The decisions of one deal reviewed by the endgame solver (``play_reviews``), in order."""
    return _df(
        con,
        """
        SELECT seq, seat, action, cards, cards_left, value_before, value_after, loss, best_moves
        FROM play_reviews WHERE match_id = $match AND deal_no = $deal ORDER BY seq
        """,
        {"match": match, "deal": deal},
    )


def review_accuracy(con: Con, *, player: str | None) -> pd.DataFrame:
    """Decisions reviewed and mistakes per 100 decisions by loss (1, 2, ≥ 3 levels) of ``player``,
    or of the population (``None``: every row of ``player_reviews``, unknown players included)."""
    return _df(
        con,
        """
        SELECT coalesce(sum(decisions), 0)::BIGINT AS decisions,
               100.0 * sum(loss_1) / nullif(sum(decisions), 0) AS loss_1,
               100.0 * sum(loss_2) / nullif(sum(decisions), 0) AS loss_2,
               100.0 * sum(loss_3plus) / nullif(sum(decisions), 0) AS loss_3plus,
               100.0 * sum(loss_1 + loss_2 + loss_3plus) / nullif(sum(decisions), 0) AS mistakes
        FROM player_reviews WHERE $player IS NULL OR player_id = $player
        """,
        {"player": player},
    )


def critical_moments(con: Con, *, player: str, limit: int = 10) -> pd.DataFrame:
    """The reviewed decisions of ``player`` that lost the most levels (largest loss first)."""
    return _df(
        con,
        """
        SELECT match_id, deal_no, seq, seat, action, cards, cards_left, value_before, value_after,
               loss, best_moves
        FROM play_reviews WHERE player_id = $player AND loss > 0
        ORDER BY loss DESC, match_id, deal_no, seq LIMIT $limit
        """,
        {"player": player, "limit": limit},
    )


# --- data quality ---------------------------------------------------------------------------


def quarantine_by_code(con: Con) -> pd.DataFrame:
    """Quarantined rows per error code (replay/errors.py vocabulary)."""
    return _df(con, "SELECT code, count(*) AS n FROM quarantine GROUP BY code ORDER BY n DESC, code")


def quarantine_rows(con: Con, *, code: str | None = None, limit: int = 1000) -> pd.DataFrame:
    """Quarantined rows with file, line, match, seq, code and message (most recent files first)."""
    return _df(
        con,
        """
        SELECT source_file, line_no, match_id, seq, code, message
        FROM quarantine WHERE ($code IS NULL OR code = $code)
        ORDER BY source_file, line_no LIMIT $limit
        """,
        {"code": code, "limit": limit},
    )


def problem_matches(con: Con) -> pd.DataFrame:
    """Replayed matches that are partial or invalid (events.md "Validation"), with the first error."""
    return _df(
        con,
        """
        SELECT match_id, status, error_code, error_seq, error_message, deals_played, end_reason, rules
        FROM matches WHERE status <> 'valid'
        ORDER BY status, match_id LIMIT 5000
        """,
    )


def incomplete_matches(con: Con) -> pd.DataFrame:
    """Matches still waiting for their ``match_end`` (``incomplete_matches``), latest arrivals first,
    with their age: hours since their latest row arrived (an old one is likely abandoned). The
    match's start and the arrival times are written in the match's local time (its
    ``match_start``'s offset; UTC before that has arrived), with the offset (schemas/times.py)."""
    return _df(
        con,
        f"""
        SELECT match_id, {sql_time_label("i.started_at", "i.utc_offset_min")} AS started, events, first_seq,
               last_seq, last_type, array_to_string(source_files, ', ') AS source_files,
               {sql_time_label("i.first_ingested_at", "i.utc_offset_min")} AS first_ingested_at,
               {sql_time_label("i.last_ingested_at", "i.utc_offset_min")} AS last_ingested_at,
               date_diff('minute', i.last_ingested_at, now()::TIMESTAMPTZ) / 60.0 AS age_hours
        FROM incomplete_matches i
        ORDER BY i.last_ingested_at DESC, match_id LIMIT 5000
        """,
    )


def parse_error_count(con: Con) -> pd.DataFrame:
    """One row: malformed input lines kept in ``raw_events`` (with ``parse_error``)."""
    return _df(con, "SELECT count(*) AS n FROM raw_events WHERE parse_error IS NOT NULL")


def duplicate_matches(con: Con) -> pd.DataFrame:
    """Matches repeating an earlier match's deals under another id (``duplicate_matches``)."""
    return _df(
        con,
        """
        SELECT match_id, duplicate_of, deals, match_deals, excluded, reason
        FROM duplicate_matches ORDER BY excluded DESC, match_id LIMIT 5000
        """,
    )


def file_problems(con: Con) -> pd.DataFrame:
    """Inbox files whose latest read has a problem (``ingested_files.problem``: empty, damaged,
    unfinished line); a file read fine later (e.g. its last line completed) is not listed. The
    read time is the pipeline's clock, in UTC with the offset shown."""
    return _df(
        con,
        f"""
        SELECT source_file, problem, message, rows, malformed, pending_bytes,
               {sql_time_label("f.ingested_at", "NULL")} AS ingested_at
        FROM ingested_files f
        QUALIFY row_number() OVER (PARTITION BY source_file ORDER BY f.ingested_at DESC, batch DESC) = 1
            AND problem IS NOT NULL
        ORDER BY f.ingested_at DESC, source_file LIMIT 5000
        """,
    )


def superseded_revisions(con: Con) -> pd.DataFrame:
    """Lower revisions of corrected matches (``superseded``): kept in ``raw_events``, not replayed;
    when they arrived, in the pipeline's clock (UTC, offset shown)."""
    return _df(
        con,
        f"""
        SELECT match_id, revision, superseded_by, array_to_string(source_files, ', ') AS source_files,
               {sql_time_label("s.ingested_at", "NULL")} AS ingested_at, events
        FROM superseded s ORDER BY s.ingested_at DESC, match_id, revision LIMIT 5000
        """,
    )


def submissions(con: Con) -> pd.DataFrame:
    """Results entered in the browser (the view ``submissions`` over ``raw_events``, the audit
    record ``match_start.entry``), latest first: who, how, when (UTC) and the revision replaced."""
    return _df(
        con,
        """
        SELECT entered_at, event_id, round, "table", match_id, revision, entered_by, entered_via,
               replaces_revision, source_file
        FROM submissions ORDER BY entered_at DESC, match_id, revision LIMIT 5000
        """,
    )


def match_entry(con: Con, match: str) -> pd.DataFrame:
    """The audit record of the revision in force of ``match`` (none when it was not entered in the
    browser): who entered it, when, and the revision it replaces."""
    return _df(
        con,
        """
        SELECT s.entered_by, s.entered_via, s.entered_at, s.replaces_revision
        FROM submissions s JOIN matches m USING (match_id)
        WHERE s.match_id = $match AND s.revision = coalesce(m.revision, 1)
        ORDER BY s.ingested_at DESC LIMIT 1
        """,
        {"match": match},
    )


# ---- coach
# The coach's pages (issue 18): filtered seat-deals, the player's match list, head-to-head,
# period leaderboards. The filters are one :class:`SeatFilters` value.


@dataclass(frozen=True)
class SeatFilters:
    """The filters of the Player, Tributes and Bombs pages, passed whole to every coach query:
    date range (local days of the matches, schemas/times.py; both ends included), event, ruleset,
    partner (a player id), seat and the deal's level (rules.md §1–§2). ``None`` means "all".

    Frozen, so the dashboards' query cache (``dashboards.ui.run``) hashes it like any parameter.
    """

    start: date | None = None
    end: date | None = None
    event: str | None = None
    rules: str | None = None
    partner: str | None = None
    seat: str | None = None
    level: str | None = None

    def is_set(self) -> bool:
        """Whether any filter is set (the pipeline's unfiltered population tables then do not apply)."""
        return any(value is not None for value in astuple(self))


NO_FILTERS = SeatFilters()
"""Every seat-deal: no filter set."""

_PARTNER_PLAYER = "CASE h.seat " + " ".join(
    f"WHEN '{seat}' THEN m.player_{partner}" for seat, partner in PARTNER.items()
) + " END"
"""SQL: the player id of the partner of seat ``h.seat`` in match ``m`` (rules.md §1)."""

_SEAT_DAY = sql_local_day("m.started_at", "m.utc_offset_min")
"""SQL: the local day of the match ``m`` of a seat-deal: what the date filters compare."""

_SEAT_PREDICATES: dict[str, str] = {
    "player": "h.player_id = $player",
    "start": f"{_SEAT_DAY} >= CAST($start AS DATE)",
    "end": f"{_SEAT_DAY} <= CAST($end AS DATE)",
    "event": "m.event_id = $event",
    "rules": "d.rules = $rules",
    "partner": f"{_PARTNER_PLAYER} = $partner",
    "seat": "h.seat = $seat",
    "level": "d.level = $level",
}
"""SQL: the condition on a seat-deal (``deal_hands h`` of ``deals d`` of ``matches m``) of each
filter (and ``player``), for the filters that are set."""

_MATCH_FILTERS = frozenset({"start", "end", "event", "partner"})
"""The filters that read the seat-deal's match (``matches m``)."""


def _seats(
    player: str | None, filters: SeatFilters, *, partner_column: bool = False
) -> tuple[str, dict[str, Any]]:
    """The CTE ``seats`` (one row per seat per deal of ``player``, or of everyone for ``None``,
    passing ``filters``) and its bound parameters.

    Only the filters that are set become conditions (their values are bound, never written into
    the SQL), and ``matches`` is joined only when a filter or the ``partner_id`` column
    (``partner_column``) needs it: on the 100k-deal store an unfiltered ``seats`` is 400k rows,
    and evaluating every unset filter and joining every match on each cost more than the rest of
    most coach queries.
    """
    params = {"player": player, **asdict(filters)}
    bound = {name: value for name, value in params.items() if value is not None}
    with_match = partner_column or not _MATCH_FILTERS.isdisjoint(bound)
    partner = f", {_PARTNER_PLAYER} AS partner_id" if partner_column else ""
    match = " JOIN matches m USING (match_id)" if with_match else ""
    where = " AND ".join(_SEAT_PREDICATES[name] for name in bound) or "TRUE"
    cte = f"""
    seats AS (
        SELECT h.match_id, h.deal_no, h.seat, h.player_id, h.team, h.finish_position, h.bombs_played,
               h.natural_bombs, d.level, d.winning_team, d.double_win, d.level_gain, d.tribute_kind,
               d.rules{partner}
        FROM deal_hands h JOIN deals d USING (match_id, deal_no){match}
        WHERE {where}
    )
    """
    return cte, bound


def coach_options(con: Con) -> pd.DataFrame:
    """One row: the events, rulesets and deal levels present and the first and last (local) day
    played, for the coach's filters."""
    return _df(
        con,
        f"""
        SELECT (SELECT list(DISTINCT event_id ORDER BY event_id) FROM matches WHERE event_id IS NOT NULL)
                   AS events,
               (SELECT list(DISTINCT rules ORDER BY rules) FROM matches WHERE rules IS NOT NULL) AS rules,
               (SELECT list(DISTINCT level ORDER BY {sql_level_order("level")}) FROM deals
                WHERE level IS NOT NULL) AS levels,
               (SELECT min({_MATCH_DAY}) FROM matches) AS first_day,
               (SELECT max({_MATCH_DAY}) FROM matches) AS last_day
        """,
    )


def coach_partners(con: Con, *, player: str) -> pd.DataFrame:
    """The partners ``player`` has played with, most rounds first (the partner filter's options)."""
    return _df(
        con,
        """
        SELECT partner_id AS partner, count(*) AS rounds FROM player_matches
        WHERE player_id = $player AND partner_id IS NOT NULL
        GROUP BY ALL ORDER BY rounds DESC, partner
        """,
        {"player": player},
    )


def coach_match_list(con: Con, *, player: str, filters: SeatFilters = NO_FILTERS) -> pd.DataFrame:
    """The player's matches with at least one deal passing the filters, newest first: when
    (``started``: the match's local time with its offset, ``2026-06-18 23:30 (UTC+08:00)``), event,
    round, partner, opponents, result, the final levels (own – opponents') and the first such deal
    (``deal``, where the replayer opens) with the number of such deals."""
    seats, params = _seats(player, filters)
    return _df(
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
    seats, params = _seats(player, filters)
    return _df(
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


def coach_finish_positions(con: Con, *, player: str, filters: SeatFilters = NO_FILTERS) -> pd.DataFrame:
    """Finishing positions (rules.md §5.5) of the player's seat-deals passing the filters and of
    everyone's under the same filters but the partner (``player_n``, ``population_n``).

    Every finished deal counts once per seat: a seat that lost 双下 (§5.7) has no position (the
    deal ends before the losers finish) and counts as ``double_loss``; only deals with no
    recorded end (no ``winning_team``) are left out.
    """
    with_partner = filters.partner is not None
    seats, params = _seats(None, replace(filters, partner=None), partner_column=with_partner)
    params |= {"me": player} | ({"my_partner": filters.partner} if with_partner else {})
    mine = "player_id = $me" + (" AND partner_id = $my_partner" if with_partner else "")
    return _df(
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
    instead read most of its row groups for a player's few matches (issue 18 "Speed").
    """
    seats, params = _seats(player, filters)
    sums = ", ".join(
        f"coalesce(sum(p.{c}), 0)::BIGINT AS {c}"
        for c in ("pass_beat", "able_to_beat", "overtakes", "facing_partner", "bombs", "jie_feng")
    )
    return _df(
        con,
        f"""
        WITH {seats}
        SELECT {sums}, count(*) AS deals
        FROM seats s LEFT JOIN seat_patterns p USING (match_id, deal_no, seat)
        """,
        params,
    )


def coach_tribute_kinds(con: Con, *, player: str | None, filters: SeatFilters = NO_FILTERS) -> pd.DataFrame:
    """Deals after the first (rules.md §6) among the filtered seat-deals' deals, by tribute kind."""
    seats, params = _seats(player, filters)
    return _df(
        con,
        f"""
        WITH {seats}
        SELECT coalesce(tribute_kind, 'none') AS kind, count(DISTINCT (match_id, deal_no)) AS n
        FROM seats WHERE deal_no > 1
        GROUP BY ALL ORDER BY n DESC, kind
        """,
        params,
    )


def coach_tribute_cards(con: Con, *, player: str | None, filters: SeatFilters = NO_FILTERS) -> pd.DataFrame:
    """Ranks of the cards paid (进贡) by the filtered seats and returned (还贡) by them (rules.md §6)."""
    seats, params = _seats(player, filters)
    return _df(
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
    """
    seats, params = _seats(player, filters)
    return _df(
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
            WHERE s.winning_team IS NOT NULL
        )
        SELECT side, CASE WHEN winning_team = team THEN level_gain ELSE 0 END AS gain, count(*) AS n
        FROM sides GROUP BY ALL ORDER BY side, gain
        """,
        params,
    )


def coach_bombs(con: Con, *, player: str | None, filters: SeatFilters = NO_FILTERS) -> pd.DataFrame:
    """Bomb plays (rules.md §4) of the filtered seats: ``bomb_class``, ``size``, ``opp_min_left``
    and whether it was played on the partner's play (aggregated by the page).

    Without a filter on the deal, its match or the partner, the player and seat are columns of
    ``plays`` itself, so the plays are read alone (no join with every seat-deal of the store).
    """
    if not replace(filters, seat=None).is_set():
        return _df(con, _BOMBS_OF_SEATS, {"player": player, "seat": filters.seat})
    seats, bound = _seats(player, filters)
    return _df(
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
    (capped at 4, meaning 4 or more): ``kind`` held|used, ``bombs``, ``wins`` and ``n`` seats."""
    seats, params = _seats(player, filters)
    return _df(
        con,
        f"""
        WITH {seats},
        h AS (
            SELECT least(natural_bombs, 4) AS held, least(bombs_played, 4) AS used,
                   (winning_team = team) AS won
            FROM seats WHERE winning_team IS NOT NULL
        )
        SELECT 'held' AS kind, held AS bombs, count(*) FILTER (WHERE won) AS wins, count(*) AS n
        FROM h WHERE held IS NOT NULL GROUP BY ALL
        UNION ALL
        SELECT 'used', used, count(*) FILTER (WHERE won), count(*) FROM h WHERE used IS NOT NULL GROUP BY ALL
        ORDER BY kind, bombs
        """,
        params,
    )


def head_to_head(con: Con, *, player: str, other: str) -> pd.DataFrame:
    """``player``'s record with ``other`` as partner and against ``other``: ``relation``
    (partner|opponent), rounds, wins, draws, losses, levels gained (zero rows never met)."""
    return _df(
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
    return _df(
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
    table: f"(SELECT t.*, {_LOCAL_DAYS} AS local_day FROM {rows} t LEFT JOIN {_OFFSETS} o USING (match_id)"
    " WHERE t.started_at IS NOT NULL)"
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
    return _df(
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
    return _df(
        con,
        f"""
        WITH res AS (
            SELECT player_id, {_RESULTS} FROM {_DATED["player_matches"]}
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


def coach_bombs_per_deal(con: Con, *, player: str | None, filters: SeatFilters = NO_FILTERS) -> pd.DataFrame:
    """The filtered seat-deals' deals (each once) by the number of bombs played in them, both teams."""
    seats, params = _seats(player, filters)
    return _df(
        con,
        f"""
        WITH {seats}
        SELECT coalesce(d.bombs_EW, 0) + coalesce(d.bombs_NS, 0) AS bombs, count(*) AS n
        FROM deals d SEMI JOIN seats s USING (match_id, deal_no)
        GROUP BY ALL ORDER BY bombs
        """,
        params,
    )
