"""The roster, the Leaderboard and the Player page's ratings and results: per player, rating,
results by partner and opponent, finishing positions, luck and decision-review accuracy (exact and
sampled from the player's view), each with the population's figure where the page compares them."""

from __future__ import annotations

import pandas as pd

from dashboards.queries.common import RESULT_COLUMNS, Con, dataframe
from schemas.scoring import PLAYER_RESULTS


def players(con: Con) -> pd.DataFrame:
    """Every player who played a valid or partial match: id, rounds played, and name and club
    from the pipeline's roster (``players``, ``pipelines.steps.roster``: the latest declaration wins)."""
    return dataframe(
        con,
        """
        SELECT pm.player_id, any_value(p.name) AS name, any_value(p.club) AS club, count(*) AS rounds
        FROM player_matches pm LEFT JOIN players p USING (player_id)
        GROUP BY pm.player_id ORDER BY pm.player_id
        """,
    )


def filter_options(con: Con) -> dict[str, list[str]]:
    """Values offered by the page filters: events and rulesets (clubs come from :func:`players`)."""
    events = dataframe(con, "SELECT DISTINCT event_id FROM matches WHERE event_id IS NOT NULL ORDER BY 1")
    rules = dataframe(con, "SELECT DISTINCT rules FROM matches WHERE rules IS NOT NULL ORDER BY 1")
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


def leaderboard(
    con: Con, *, event: str | None = None, rules: str | None = None, min_rounds: int = 0
) -> pd.DataFrame:
    """Per player: rating ± sigma (provisional marked), dan, and the filtered results.

    Rounds, wins, draws, losses, win rate (draw = ½) and levels gained count only the rounds
    that pass the filters; rating and dan are the player's current ones (``ratings``,
    ``dan_current``, ``pro_dan``). Best rating first; unrated players after, by win rate.
    Names and clubs are joined by the page from :func:`players` (computed once per store).
    """
    return dataframe(
        con,
        f"""
        WITH res AS (
            SELECT player_id, {RESULT_COLUMNS}
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
    return dataframe(
        con,
        f"""
        WITH res AS (SELECT player_id, {RESULT_COLUMNS} FROM {PLAYER_RESULTS} WHERE player_id = $player
                     GROUP BY player_id)
        {_BOARD_SELECT}
        """,
        {"player": player},
    )


def rating_history(con: Con, *, player: str) -> pd.DataFrame:
    """The player's rating after each rated round (``rating_history``), in time order."""
    return dataframe(
        con,
        """
        SELECT row_number() OVER (ORDER BY started_at, match_id) AS round_index, started_at, match_id,
               event_id, round, partner_id, result, win_probability, mu_after, sigma_after, rating_after
        FROM rating_history WHERE player_id = $player ORDER BY started_at, match_id
        """,
        {"player": player},
    )


def player_luck(con: Con, *, player: str) -> pd.DataFrame:
    """Levels per deal above what the player's cards led one to expect, with its 95 % interval."""
    return dataframe(
        con,
        """
        SELECT deals, actual_mean, expected_mean, above_expectation, ci_low, ci_high, low_data
        FROM player_luck WHERE player_id = $player
        """,
        {"player": player},
    )


def luck_population(con: Con) -> pd.DataFrame:
    """Every player's levels above expectation with its interval (``player_luck``, small table)."""
    return dataframe(
        con,
        """
        SELECT player_id, deals, above_expectation, ci_low, ci_high, low_data
        FROM player_luck ORDER BY above_expectation, player_id
        """,
    )


def results_by_partner(con: Con, *, player: str) -> pd.DataFrame:
    """The player's rounds, wins, draws, losses and levels gained with each partner."""
    return dataframe(
        con,
        f"""
        SELECT partner_id AS partner, {RESULT_COLUMNS}
        FROM {PLAYER_RESULTS} WHERE player_id = $player
        GROUP BY partner_id ORDER BY rounds DESC, partner
        """,
        {"player": player},
    )


def results_by_opponent(con: Con, *, player: str) -> pd.DataFrame:
    """The player's results against each opponent met (each round counts for both opponents)."""
    return dataframe(
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
    return dataframe(
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


PHASE_ORDER = """CASE phase WHEN 'lead' THEN 0 WHEN 'follow' THEN 1 WHEN 'pass' THEN 2 WHEN 'bomb' THEN 3
                     WHEN 'jie_feng' THEN 4 WHEN 'tribute_return' THEN 5 ELSE 6 END"""
"""Decision phases in the page's order, ``all`` last."""

ACCURACY = """100.0 * p AS accuracy,
               100.0 * (p + z * z / (2 * real) - z * sqrt(p * (1 - p) / real + z * z / (4 * real * real)))
                   / (1 + z * z / real) AS accuracy_low,
               100.0 * (p + z * z / (2 * real) + z * sqrt(p * (1 - p) / real + z * z / (4 * real * real)))
                   / (1 + z * z / real) AS accuracy_high"""
"""The share ``p`` of ``real`` choices that were best, in percent, with its 95 % Wilson interval
(``z`` = 1.96): select list items over a relation with columns ``p``, ``z`` and ``real``."""


def review_accuracy(con: Con, *, player: str | None) -> pd.DataFrame:
    """Decision-review accuracy by phase (and ``all``) of ``player``, or of the population
    (``None``: every row of ``player_reviews``, unknown players included): decisions, how many
    were forced or all-equal (counted, not scored), real choices, the share of them that were best
    with its 95 % Wilson interval, mistakes (levels lost) per 100 real choices, and the
    match-winning chance lost per 100 real choices (percentage points)."""
    return dataframe(
        con,
        f"""
        WITH mine AS (
            SELECT * FROM player_reviews WHERE $player IS NULL OR player_id = $player
        ), phases AS (
            SELECT phase, sum(decisions) AS decisions, sum(forced) AS forced, sum(all_equal) AS all_equal,
                   sum(real) AS real, sum(real_best) AS real_best,
                   sum(loss_1 + loss_2 + loss_3plus) AS mistakes, sum(match_loss_sum) AS match_loss
            FROM mine GROUP BY phase
            UNION ALL
            SELECT 'all', sum(decisions), sum(forced), sum(all_equal), sum(real), sum(real_best),
                   sum(loss_1 + loss_2 + loss_3plus), sum(match_loss_sum)
            FROM mine
        ), shares AS (
            SELECT *, real_best / nullif(real, 0) AS p, 1.96 AS z FROM phases
        )
        SELECT phase,
               coalesce(decisions, 0)::BIGINT AS decisions, coalesce(forced, 0)::BIGINT AS forced,
               coalesce(all_equal, 0)::BIGINT AS all_equal, coalesce(real, 0)::BIGINT AS real,
               {ACCURACY},
               100.0 * mistakes / nullif(real, 0) AS mistakes,
               100.0 * match_loss / nullif(real, 0) AS match_loss
        FROM shares
        ORDER BY {PHASE_ORDER}
        """,
        {"player": player},
    )


def sampled_accuracy(con: Con, *, player: str | None) -> pd.DataFrame:
    """Single-dummy accuracy by phase (``tribute_return`` included, and ``all``) of ``player``, or
    of the population (``None``: every row of ``single_dummy_reviews``, unknown players included):
    real choices judged (every row is one), the share where the action taken had the best mean
    with its 95 % Wilson interval, and mean levels lost per 100 real choices."""
    return dataframe(
        con,
        f"""
        WITH mine AS (
            SELECT * FROM single_dummy_reviews WHERE $player IS NULL OR player_id = $player
        ), phases AS (
            SELECT phase, count(*) AS real, count(*) FILTER (WHERE loss <= 0) AS real_best, sum(loss) AS loss
            FROM mine GROUP BY phase
            UNION ALL
            SELECT 'all', count(*), count(*) FILTER (WHERE loss <= 0), sum(loss) FROM mine
        ), shares AS (
            SELECT *, real_best / nullif(real, 0) AS p, 1.96 AS z FROM phases
        )
        SELECT phase, real::BIGINT AS real, {ACCURACY},
               100.0 * loss / nullif(real, 0) AS levels_lost
        FROM shares
        ORDER BY {PHASE_ORDER}
        """,
        {"player": player},
    )


def decision_skill(con: Con, *, player: str) -> pd.DataFrame:
    """The player's skill from decisions (``decision_skill``, zero or one row): real choices,
    mistakes and the mistake rate with its 95 % interval, the estimate shrunk toward the
    population with its interval and reliability, the combined estimate with the rating and its
    rank among the ``ranked`` players, and the population's mistake rate."""
    return dataframe(
        con,
        """
        WITH everyone AS (
            SELECT sum(mistakes)::DOUBLE / sum(choices) AS population_rate, count(combined) AS ranked
            FROM decision_skill
        )
        SELECT d.choices, d.mistakes, d.mistake_rate, d.rate_low, d.rate_high, d.estimate, d.low,
               d.high, d.reliability, d.combined, d.combined_rank, d.rating_reliability, e.ranked,
               e.population_rate
        FROM decision_skill d, everyone e WHERE d.player_id = $player
        """,
        {"player": player},
    )
