"""Arrow schemas of the scoring, standings, dan and rating tables (scoring.md), versioned.

Produced by ``scoring`` from the replayed tables; every table here gets a DuckDB view.
"""

from __future__ import annotations

import pyarrow as pa

SCORING_VERSION = 1

_TS = pa.timestamp("us", tz="UTC")

MATCH_SCORES = pa.schema(
    [
        pa.field("match_id", pa.string()),
        pa.field("event_id", pa.string()),
        pa.field("stage", pa.string()),
        pa.field("round", pa.int32()),
        pa.field("rules", pa.string()),
        pa.field("started_at", _TS),
        pa.field("side", pa.string()),
        pa.field("team_id", pa.string(), nullable=False),
        pa.field("player_1", pa.string()),
        pa.field("player_2", pa.string()),
        pa.field("opp_team_id", pa.string()),
        pa.field("outcome", pa.string(), nullable=False),
        pa.field("result", pa.string(), nullable=False),
        pa.field("level", pa.int32()),
        pa.field("opp_level", pa.int32()),
        pa.field("level_diff", pa.int32()),
        pa.field("levels_gained", pa.int32()),
        pa.field("match_points", pa.float64()),
        pa.field("level_points", pa.int32()),
        pa.field("bcta_round_score", pa.int32()),
        pa.field("bcta_dan_points", pa.int32()),
        pa.field("a_failures", pa.int32()),
        pa.field("deducted_match_points", pa.float64()),
        pa.field("deducted_level_points", pa.float64()),
        pa.field("level_table", pa.string()),
    ],
    metadata={
        "doc": "one row per team per scored match (scoring.md §S2–§S5) and per bye; "
        "outcome played|forfeit|bye; result win|draw|loss|bye; level 1..14 (§S1); "
        "level_diff signed (own − opponents'); team_id = sorted player ids joined by '+'"
    },
)

STANDINGS = pa.schema(
    [
        pa.field("event_id", pa.string(), nullable=False),
        pa.field("stage", pa.string()),
        pa.field("after_round", pa.int32(), nullable=False),
        pa.field("entry", pa.string(), nullable=False),
        pa.field("rank", pa.int32(), nullable=False),
        pa.field("team_id", pa.string(), nullable=False),
        pa.field("player_1", pa.string()),
        pa.field("player_2", pa.string()),
        pa.field("rounds", pa.int32()),
        pa.field("primary_key", pa.string()),
        pa.field("match_points", pa.float64()),
        pa.field("bcta_round_score", pa.int64()),
        pa.field("level_points", pa.float64()),
        pa.field("head_to_head", pa.float64()),
        pa.field("wins", pa.int32()),
        pa.field("draws", pa.int32()),
        pa.field("losses", pa.int32()),
        pa.field("byes", pa.int32()),
        pa.field("raw_level_diff", pa.int32()),
        pa.field("opponents_score", pa.float64()),
        pa.field("previous_rank", pa.int32()),
        pa.field("tied_level_points", pa.float64()),
        pa.field("opponents_level_points", pa.float64()),
        pa.field("levels_gained", pa.int32()),
        pa.field("deducted_match_points", pa.float64()),
        pa.field("deducted_level_points", pa.float64()),
        pa.field("decided_by", pa.string()),
    ],
    metadata={
        "doc": "per event/stage after each round, one row per entry (scoring.md §S7): entry pair, "
        "or individual when partners change between rounds (team_id = the player id); every "
        "tie-break value in its own column; head_to_head and tied_level_points are "
        "computed within the team's tied group (null when not used); decided_by names "
        "the step that put the team below the one ranked just above (null: shared rank)"
    },
)

DAN_LEDGER = pa.schema(
    [
        pa.field("player_id", pa.string(), nullable=False),
        pa.field("seq", pa.int32(), nullable=False),
        pa.field("match_id", pa.string(), nullable=False),
        pa.field("event_id", pa.string()),
        pa.field("round", pa.int32()),
        pa.field("started_at", _TS),
        pa.field("opponent_dans", pa.list_(pa.int8())),
        pa.field("counted", pa.bool_(), nullable=False),
        pa.field("round_points", pa.int32()),
        pa.field("points_earned", pa.int32()),
        pa.field("dan_before", pa.int8()),
        pa.field("dan_after", pa.int8()),
        pa.field("total_before", pa.int64()),
        pa.field("total_after", pa.int64()),
        pa.field("window_no", pa.int32()),
        pa.field("window_rounds_used", pa.int32()),
        pa.field("window_size", pa.int32()),
        pa.field("event", pa.string()),
    ],
    metadata={
        "doc": "amateur dan ledger (scoring.md §S5): one row per player per bcta round in time "
        "order; round_points = the team's dan points, points_earned = what counted; "
        "event promoted|window_reset|null; dan 0 = none"
    },
)

DAN_CURRENT = pa.schema(
    [
        pa.field("player_id", pa.string(), nullable=False),
        pa.field("dan", pa.int8(), nullable=False),
        pa.field("points", pa.int64()),
        pa.field("next_dan", pa.int8()),
        pa.field("next_threshold", pa.int64()),
        pa.field("points_to_next", pa.int64()),
        pa.field("progress", pa.float64()),
        pa.field("window_no", pa.int32()),
        pa.field("window_rounds_used", pa.int32()),
        pa.field("rounds_left", pa.int32()),
        pa.field("rounds", pa.int32()),
        pa.field("counted_rounds", pa.int32()),
        pa.field("last_played", _TS),
    ],
    metadata={
        "doc": "one row per player: current amateur dan (§S5), progress = share of the way from "
        "the points held at this dan to the next threshold; rounds_left in the window"
    },
)

PRO_DAN = pa.schema(
    [
        pa.field("player_id", pa.string(), nullable=False),
        pa.field("rounds", pa.int32()),
        pa.field("wins", pa.int32()),
        pa.field("draws", pa.int32()),
        pa.field("losses", pa.int32()),
        pa.field("win_rate", pa.float64()),
        pa.field("eligible", pa.bool_()),
        pa.field("pro_dan", pa.int8()),
        pa.field("last_n", pa.int32()),
        pa.field("min_rounds", pa.int32()),
    ],
    metadata={
        "doc": "professional dan by win rate over the last N rounds (scoring.md §S6); draws "
        "count half; pro_dan null below min_rounds or below the lowest rate"
    },
)

RATINGS = pa.schema(
    [
        pa.field("player_id", pa.string(), nullable=False),
        pa.field("mu", pa.float64(), nullable=False),
        pa.field("sigma", pa.float64(), nullable=False),
        pa.field("rating", pa.float64(), nullable=False),
        pa.field("provisional", pa.bool_(), nullable=False),
        pa.field("rounds", pa.int32()),
        pa.field("deals", pa.int32()),
        pa.field("last_played", _TS),
        pa.field("model", pa.string()),
        pa.field("model_params", pa.string()),
        pa.field("update_unit", pa.string()),
        pa.field("library", pa.string()),
    ],
    metadata={
        "doc": "current rating per player (Gaussian whole-history fit of per-deal level margins, "
        "docs/ratings.md); mu, sigma in levels per 10 deals; rating = mu − k·sigma (display); "
        "provisional while sigma ≥ threshold; model_params JSON; library = numpy==<version>"
    },
)

RATING_HISTORY = pa.schema(
    [
        pa.field("player_id", pa.string(), nullable=False),
        pa.field("match_id", pa.string(), nullable=False),
        pa.field("event_id", pa.string()),
        pa.field("round", pa.int32()),
        pa.field("started_at", _TS),
        pa.field("partner_id", pa.string()),
        pa.field("result", pa.string()),
        pa.field("win_probability", pa.float64()),
        pa.field("expected_level_diff", pa.float64()),
        pa.field("level_diff_sd", pa.float64()),
        pa.field("level_diff_low", pa.float64()),
        pa.field("level_diff_high", pa.float64()),
        pa.field("level_diff", pa.int32()),
        pa.field("mu_before", pa.float64()),
        pa.field("sigma_before", pa.float64()),
        pa.field("mu_after", pa.float64()),
        pa.field("sigma_after", pa.float64()),
        pa.field("rating_after", pa.float64()),
    ],
    metadata={
        "doc": "one row per player per rated match (round); win_probability and the forecast "
        "of the final level difference (mean, sd, central interval) for the player's team "
        "before the match, and the actual level difference"
    },
)

RATING_STATE = pa.schema(
    [
        pa.field("position", pa.int32(), nullable=False),
        pa.field("player_id", pa.string(), nullable=False),
        pa.field("mu", pa.float64(), nullable=False),
        pa.field("cov", pa.list_(pa.float64()), nullable=False),
        pa.field("rounds", pa.int32(), nullable=False),
        pa.field("deals", pa.int32(), nullable=False),
        pa.field("last_played", _TS),
    ],
    metadata={
        "doc": "where the ratings stopped, one row per rated player in the model's order: the "
        "posterior mean (levels per deal) and the player's row of the posterior covariance, "
        "rounds and deals rated, last start; the next run rates only later rounds from it"
    },
)

RATING_PROGRESS = pa.schema(
    [
        pa.field("model_params", pa.string(), nullable=False),
        pa.field("rounds", pa.int64(), nullable=False),
        pa.field("inputs_digest", pa.string(), nullable=False),
        pa.field("calibration_scale", pa.float64(), nullable=False),
        pa.field("calibration_fitted_at", pa.int64(), nullable=False),
        pa.field("calibration_z", pa.list_(pa.float64()), nullable=False),
        pa.field("calibration_won", pa.list_(pa.float64()), nullable=False),
    ],
    metadata={
        "doc": "one row: the parameters and number of rounds of rating_state, the hash of those "
        "rounds' inputs, and the win calibration's state (its scale and earlier forecasts)"
    },
)

PARTNERS = pa.schema(
    [
        pa.field("player_1", pa.string(), nullable=False),
        pa.field("player_2", pa.string(), nullable=False),
        pa.field("rounds", pa.int32()),
        pa.field("wins", pa.int32()),
        pa.field("draws", pa.int32()),
        pa.field("losses", pa.int32()),
        pa.field("win_rate", pa.float64()),
        pa.field("mu_gain_1", pa.float64()),
        pa.field("mu_gain_2", pa.float64()),
        pa.field("mu_gain", pa.float64()),
        pa.field("first_played", _TS),
        pa.field("last_played", _TS),
    ],
    metadata={
        "doc": "one row per partnership (player_1 < player_2): rounds together, win rate "
        "(draws half), rating gain (mu) of each and together in those rounds"
    },
)

DUPLICATE_RESULTS = pa.schema(
    [
        pa.field("event_id", pa.string()),
        pa.field("stage", pa.string()),
        pa.field("board", pa.string(), nullable=False),
        pa.field("deal_no", pa.int32(), nullable=False),
        pa.field("direction", pa.string(), nullable=False),
        pa.field("room", pa.string()),
        pa.field("match_id", pa.string(), nullable=False),
        pa.field("team_id", pa.string(), nullable=False),
        pa.field("player_1", pa.string()),
        pa.field("player_2", pa.string()),
        pa.field("result", pa.int32(), nullable=False),
        pa.field("mp", pa.int32(), nullable=False),
        pa.field("mp_max", pa.int32(), nullable=False),
        pa.field("place", pa.int32(), nullable=False),
        pa.field("rooms", pa.int32(), nullable=False),
    ],
    metadata={"doc": "one row per pair per duplicate deal played in two or more rooms: the pair's "
                     "signed outcome class by finishing places (+3/+2/+1, −3/−2/−1) and its "
                     "matchpoints against the other rooms (scoring.md §S9)"},
)

DUPLICATE_STANDINGS = pa.schema(
    [
        pa.field("event_id", pa.string()),
        pa.field("stage", pa.string()),
        pa.field("rank", pa.int32(), nullable=False),
        pa.field("team_id", pa.string(), nullable=False),
        pa.field("player_1", pa.string()),
        pa.field("player_2", pa.string()),
        pa.field("matches", pa.int32()),
        pa.field("deals_compared", pa.int32()),
        pa.field("mp", pa.int32()),
        pa.field("mp_max", pa.int32()),
        pa.field("mp_rate", pa.float64()),
        pa.field("place_counts", pa.list_(pa.int32())),
        pa.field("decided_by", pa.string()),
    ],
    metadata={"doc": "one row per pair per duplicate event: MP score rate ranking with seed 004's "
                     "tie-breaks (deals placed 1st, 2nd, …), equal pairs sharing the rank and the next "
                     "rank skipped; matches: board-sets played (the rooms of one board are one match)"},
)

LUCK_MODEL = pa.schema(
    [
        pa.field("feature", pa.string(), nullable=False),
        pa.field("coefficient", pa.float64()),
        pa.field("train_rows", pa.int64()),
        pa.field("test_rows", pa.int64()),
        pa.field("r2_holdout", pa.float64()),
        pa.field("rmse_holdout", pa.float64()),
    ],
    metadata={"doc": "one row per input of the expected-deal-result model (team minus opponents), "
                     "with the model's held-out validation figures"},
)

PLAYER_LUCK = pa.schema(
    [
        pa.field("player_id", pa.string(), nullable=False),
        pa.field("deals", pa.int64()),
        pa.field("actual_mean", pa.float64()),
        pa.field("expected_mean", pa.float64()),
        pa.field("above_expectation", pa.float64()),
        pa.field("ci_low", pa.float64()),
        pa.field("ci_high", pa.float64()),
        pa.field("low_data", pa.bool_()),
    ],
    metadata={"doc": "one row per player: mean signed level result per deal, the mean the dealt "
                     "cards lead one to expect, and the difference (levels above expectation) with "
                     "a 95 % interval"},
)

LUCK_SUMS = [
    pa.field("deals", pa.int64(), nullable=False),
    pa.field("sum_result", pa.int64(), nullable=False),
    pa.field("sum_result_sq", pa.int64(), nullable=False),
    pa.field("sum_x", pa.list_(pa.int64()), nullable=False),
    pa.field("sum_x_result", pa.list_(pa.int64()), nullable=False),
    pa.field("sum_xx", pa.list_(pa.int64()), nullable=False),
]
"""The exact sums of team rows ``scoring.luck`` keeps (``scoring.luck.SUM_COLUMNS``)."""

LUCK_STATISTICS = pa.schema(
    [
        pa.field("match_id", pa.string(), nullable=False),
        pa.field("player_id", pa.string()),
        pa.field("digest", pa.string(), nullable=False),
        pa.field("scheme", pa.string(), nullable=False),
        pa.field("holdout", pa.bool_(), nullable=False),
        *LUCK_SUMS,
    ],
    metadata={"doc": "one row per scored match (player_id null) and per match and player: the exact "
                     "sums the luck model and player_luck are computed from (scoring.luck.statistics), "
                     "with the digest of the match's row they were computed from"},
)

LUCK_TOTALS = pa.schema(
    [
        pa.field("player_id", pa.string()),
        pa.field("holdout", pa.bool_(), nullable=False),
        *LUCK_SUMS,
        pa.field("scheme", pa.string(), nullable=False),
        pa.field("of_version", pa.int64(), nullable=False),
    ],
    metadata={"doc": "the luck_statistics rows added up per player (null: the team rows) and hold-out "
                     "(scoring.luck.statistics_totals), as of luck_statistics version of_version: what "
                     "luck_model and player_luck are computed from, updated by each run's added and "
                     "taken-away matches"},
)

DAN_FORECAST = pa.schema(
    [
        pa.field("player_id", pa.string(), nullable=False),
        pa.field("dan", pa.int8()),
        pa.field("next_dan", pa.int8()),
        pa.field("points", pa.int64()),
        pa.field("points_to_next", pa.int64()),
        pa.field("rounds_left", pa.int32()),
        pa.field("win_chance", pa.float64()),
        pa.field("rated_rounds", pa.int32()),
        pa.field("p_promote", pa.float64()),
        pa.field("expected_rounds", pa.float64()),
        pa.field("naive_promote", pa.float64()),
        pa.field("low_data", pa.bool_()),
    ],
    metadata={"doc": "one row per player below the top dan: chance of promotion before the window "
                     "resets and counted rounds expected to the next dan (scoring.md §S5)"},
)

DECISION_SKILL = pa.schema(
    [
        pa.field("player_id", pa.string(), nullable=False),
        pa.field("choices", pa.int64(), nullable=False),
        pa.field("mistakes", pa.int64(), nullable=False),
        pa.field("mistake_rate", pa.float64(), nullable=False),
        pa.field("rate_low", pa.float64(), nullable=False),
        pa.field("rate_high", pa.float64(), nullable=False),
        pa.field("estimate", pa.float64(), nullable=False),
        pa.field("low", pa.float64(), nullable=False),
        pa.field("high", pa.float64(), nullable=False),
        pa.field("reliability", pa.float64(), nullable=False),
        pa.field("combined", pa.float64()),
        pa.field("combined_rank", pa.int32()),
        pa.field("rating_reliability", pa.float64()),
    ],
    metadata={"doc": "one row per player with a real choice in play_reviews: skill from decisions "
                     "(scoring/decision_skill.py, docs/ratings.md): mistakes (real choices that lost "
                     "anything) and their rate with its 95 % interval, the estimate (minus the rate "
                     "shrunk toward the population's; higher is better) with its interval and "
                     "reliability, and, for a rated player, the combined estimate with the rating "
                     "(z-units) and its rank"},
)

SCORING_PARTITIONS = pa.schema(
    [
        pa.field("table", pa.string(), nullable=False),
        pa.field("partition", pa.string(), nullable=False),
        pa.field("digest", pa.string(), nullable=False),
        pa.field("scheme", pa.string(), nullable=False),
        pa.field("table_digest", pa.string(), nullable=False),
    ],
    metadata={
        "doc": "one row per partition of a partitioned scoring table: the hash of the partition's "
        "inputs when its rows were computed, and the hash of the table's rows they describe"
    },
)

SCORING: dict[str, pa.Schema] = {
    "match_scores": MATCH_SCORES,
    "standings": STANDINGS,
    "dan_ledger": DAN_LEDGER,
    "dan_current": DAN_CURRENT,
    "dan_forecast": DAN_FORECAST,
    "pro_dan": PRO_DAN,
    "ratings": RATINGS,
    "rating_history": RATING_HISTORY,
    "rating_state": RATING_STATE,
    "rating_progress": RATING_PROGRESS,
    "partners": PARTNERS,
    "duplicate_results": DUPLICATE_RESULTS,
    "duplicate_standings": DUPLICATE_STANDINGS,
    "luck_model": LUCK_MODEL,
    "player_luck": PLAYER_LUCK,
    "decision_skill": DECISION_SKILL,
}
"""Tables derived from the replayed tables by ``scoring``, by name."""

SCORING_BOOKKEEPING: dict[str, pa.Schema] = {
    "scoring_partitions": SCORING_PARTITIONS,
    "luck_statistics": LUCK_STATISTICS,
    "luck_totals": LUCK_TOTALS,
}
"""What the scoring steps keep to recompute only what changed, by name: ``scoring_partitions``
(``pipelines.steps.partitions``), written by the ``match_scores``, ``standings``, ``dan`` and
``duplicate_events`` steps beside their tables, and ``luck_statistics`` with ``luck_totals``
(``pipelines.steps.luck_statistics``), written by the luck step; not outputs."""

PLAYER_RESULTS = """(
    SELECT pm.* REPLACE (coalesce(ms.result, pm.result) AS result)
    FROM player_matches pm LEFT JOIN match_scores ms ON ms.match_id = pm.match_id AND ms.side = pm.team
)"""
"""SQL over the warehouse views: ``player_matches`` with each round's **scored** result,
``match_scores.result`` where the round is scored. A round the format ends at equal levels is a
draw there (README "Equal levels", seed 001 "級數相同為平局"), while ``player_matches.result`` keeps
the replay's winner (``bcta``: the declarers). Win, draw and loss counts read this (the dashboards,
the notebooks), so they agree with the standings."""
