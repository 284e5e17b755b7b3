"""Turn the play-pattern counts of ``play_stats``/``jie_feng_received``
(``dashboards.queries.play_patterns``) into rates.

Pure pandas, no Streamlit: each row is one metric with the player's value and sample size next
to the population's, so that the page never shows a rate without the count behind it.
"""

from __future__ import annotations

import math

import pandas as pd

METRICS: list[tuple[str, str, str]] = [
    ("pass_when_beat", "pass_beat", "able_to_beat"),
    ("overtake_partner", "overtakes", "facing_partner"),
    ("bombs_per_deal", "bombs", "deals"),
    ("jie_feng", "jie_feng", "deals"),
]
"""(label key, numerator column, denominator column) of the rate metrics."""

MEANS: list[tuple[str, str, str]] = [
    ("bomb_opp_left", "bomb_opp_left", "bombs"),
    ("return_rank", "return_rank", "returns"),
]
"""(label key, mean column, sample-size column) of the mean metrics."""


def _value(num: float | None, den: float | None) -> float | None:
    """``num / den``, or ``None`` without a sample."""
    if den is None or num is None or math.isnan(den) or den == 0:
        return None
    return float(num) / float(den)


def _mean(value: float | None) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)


def pattern_table(
    player: pd.DataFrame,
    population: pd.DataFrame,
    jie_feng_player: pd.DataFrame,
    jie_feng_population: pd.DataFrame,
) -> pd.DataFrame:
    """One row per metric: ``metric`` (label key), player value and n, population value and n.

    The inputs are the one-row results of ``play_stats`` and ``jie_feng_received``; the jie-feng
    frames supply the ``jie_feng`` count and its own ``deals`` denominator.
    """
    rows = []
    p = {**player.iloc[0].to_dict()}
    pop = {**population.iloc[0].to_dict()}
    jp, jq = jie_feng_player.iloc[0].to_dict(), jie_feng_population.iloc[0].to_dict()
    for key, num, den in METRICS:
        mine, everyone = (jp, jq) if key == "jie_feng" else (p, pop)
        rows.append(
            {
                "metric": key,
                "player_value": _value(mine.get(num), mine.get(den)),
                "player_n": int(mine.get(den) or 0),
                "population_value": _value(everyone.get(num), everyone.get(den)),
                "population_n": int(everyone.get(den) or 0),
            }
        )
    for key, col, n in MEANS:
        rows.append(
            {
                "metric": key,
                "player_value": _mean(p.get(col)),
                "player_n": int(p.get(n) or 0),
                "population_value": _mean(pop.get(col)),
                "population_n": int(pop.get(n) or 0),
            }
        )
    return pd.DataFrame(rows)


def rates_table(
    player: pd.DataFrame, population: pd.DataFrame, jie_feng_population: pd.DataFrame
) -> pd.DataFrame:
    """The rate rows of :func:`pattern_table` (no means) for a filtered player: ``player`` is the
    one-row ``coach_play_rates`` (``dashboards.queries.coach``, which carries its own ``jie_feng`` and
    ``deals``), next
    to the unfiltered population of ``play_stats`` and ``jie_feng_received``."""
    table = pattern_table(player, population, player[["jie_feng", "deals"]], jie_feng_population)
    return table[table["metric"].isin([key for key, _, _ in METRICS])].reset_index(drop=True)


def low_sample_marks(table: pd.DataFrame, minimum: int) -> pd.Series:
    """Per row of a :func:`pattern_table`: whether the player's sample is below ``minimum``."""
    return table["player_n"] < minimum
