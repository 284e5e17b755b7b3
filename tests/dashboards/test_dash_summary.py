"""The Player page's play patterns from the pipeline's summaries (``player_patterns``,
``player_leads``) equal the per-play computation they replace, for every player and for the
population, on the simulated and the hand-made store.

The reference below is the SQL the page ran over ``plays`` before the summaries existed (the
definitions of ``pipelines/steps/player_patterns.py``; partners per rules.md §1, 接风 §5.6, 还贡 §6).
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pandas as pd
import pytest

from dashboards.patterns import pattern_table
from dashboards.queries.play_patterns import jie_feng_received, lead_types, play_stats
from dashboards.queries.players import players
from pipelines.storage.warehouse import connect

_PARTNER = "CASE {s} WHEN 'E' THEN 'W' WHEN 'W' THEN 'E' WHEN 'N' THEN 'S' WHEN 'S' THEN 'N' END"
_RANK = ("CASE WHEN return_card = 'SB' THEN 'B' WHEN return_card = 'HR' THEN 'R' "
         "ELSE substr(return_card, 2, 1) END")

REFERENCE_PLAY_STATS = f"""
WITH p AS (SELECT * FROM plays WHERE ($player IS NULL OR player_id = $player)),
a AS (
    SELECT
        count(*) FILTER (WHERE action = 'pass' AND could_beat) AS pass_beat,
        count(*) FILTER (WHERE (action = 'pass' AND could_beat)
                         OR (action = 'play' AND NOT is_lead)) AS able_to_beat,
        count(*) FILTER (WHERE overtook_partner) AS overtakes,
        count(*) FILTER (WHERE NOT is_lead AND table_seat = {_PARTNER.format(s="seat")}) AS facing_partner,
        count(*) FILTER (WHERE bomb_class IS NOT NULL) AS bombs,
        avg(opp_min_left) FILTER (WHERE bomb_class IS NOT NULL) AS bomb_opp_left
    FROM p
),
d AS (SELECT count(*) AS deals FROM deal_hands WHERE ($player IS NULL OR player_id = $player)),
r AS (
    SELECT count(return_card) AS returns,
           avg(list_position({list("23456789TJQKA")!r}, {_RANK}) + 1) AS return_rank
    FROM tributes
    WHERE kind IN ('single', 'double') AND ($player IS NULL OR receiver_player = $player)
)
SELECT * FROM a, d, r
"""

REFERENCE_JIE_FENG = f"""
WITH mine AS (SELECT match_id, deal_no FROM deal_hands WHERE player_id = $player),
p AS (
    SELECT pl.*,
           last_value(CASE WHEN action = 'play' THEN seat END IGNORE NULLS) OVER w AS prev_seat,
           last_value(CASE WHEN action = 'play' THEN went_out END IGNORE NULLS) OVER w AS prev_out
    FROM plays pl SEMI JOIN mine USING (match_id, deal_no)
    WINDOW w AS (PARTITION BY match_id, deal_no ORDER BY seq
                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
)
SELECT count(*) FILTER (WHERE is_lead AND player_id = $player AND prev_out
                        AND prev_seat = {_PARTNER.format(s="seat")}) AS jie_feng,
       (SELECT count(*) FROM mine) AS deals
FROM p
"""

REFERENCE_JIE_FENG_POPULATION = f"""
WITH p AS (
    SELECT pl.*,
           last_value(CASE WHEN action = 'play' THEN seat END IGNORE NULLS) OVER w AS prev_seat,
           last_value(CASE WHEN action = 'play' THEN went_out END IGNORE NULLS) OVER w AS prev_out
    FROM plays pl
    WINDOW w AS (PARTITION BY match_id, deal_no ORDER BY seq
                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
)
SELECT count(*) FILTER (WHERE is_lead AND prev_out AND prev_seat = {_PARTNER.format(s="seat")}) AS jie_feng,
       (SELECT count(*) FROM deal_hands) AS deals
FROM p
"""
"""接风 received by anyone, counted play by play; deals = seats dealt (four per deal)."""

REFERENCE_LEADS = """
SELECT coalesce(combo_type, '?') AS combo_type,
       count(*) FILTER (WHERE player_id = $player) AS player_n,
       count(*) AS population_n
FROM plays WHERE is_lead AND action = 'play'
GROUP BY ALL ORDER BY population_n DESC, combo_type
"""


def _ref(con: duckdb.DuckDBPyConnection, sql: str, player: str | None) -> pd.DataFrame:
    return con.execute(sql, {"player": player}).df()


def _same(summary: pd.DataFrame, reference: pd.DataFrame) -> None:
    for column in reference.columns:
        got, want = summary[column].iloc[0], reference[column].iloc[0]
        if pd.isna(want):
            assert pd.isna(got), column
        else:
            assert float(got) == pytest.approx(float(want), rel=1e-12), column


@pytest.fixture(params=["sim", "mini"])
def store_con(request: pytest.FixtureRequest) -> duckdb.DuckDBPyConnection:
    return connect(Path(request.getfixturevalue(f"{request.param}_store")))


def test_play_stats_equal_the_per_play_computation(store_con: duckdb.DuckDBPyConnection) -> None:
    ids = players(store_con)["player_id"].tolist()
    assert ids
    for player in [None, *ids]:
        _same(play_stats(store_con, player=player), _ref(store_con, REFERENCE_PLAY_STATS, player))


def test_jie_feng_equals_the_per_play_computation(store_con: duckdb.DuckDBPyConnection) -> None:
    ids = players(store_con)["player_id"].tolist()
    assert ids
    received = 0
    for player in ids:
        reference = _ref(store_con, REFERENCE_JIE_FENG, player)
        _same(jie_feng_received(store_con, player=player), reference)
        received += int(reference["jie_feng"].iloc[0])
    assert received > 0  # some player received 接风: not only 0 == 0


def test_lead_types_equal_the_per_play_computation(store_con: duckdb.DuckDBPyConnection) -> None:
    for player in players(store_con)["player_id"].tolist()[:12]:
        got = lead_types(store_con, player=player).sort_values("combo_type", ignore_index=True)
        want = _ref(store_con, REFERENCE_LEADS, player).sort_values("combo_type", ignore_index=True)
        assert got["combo_type"].tolist() == want["combo_type"].tolist()
        assert got["player_n"].astype(int).tolist() == want["player_n"].astype(int).tolist()
        assert got["population_n"].astype(int).tolist() == want["population_n"].astype(int).tolist()


def _expected_row(metric: str, player: pd.Series, population: pd.Series, num: str, den: str) -> dict:
    """A rate row of ``pattern_table`` written out: count / sample size, none without a sample."""
    return {"metric": metric,
            "player_value": player[num] / player[den] if player[den] else None,
            "player_n": int(player[den]),
            "population_value": population[num] / population[den] if population[den] else None,
            "population_n": int(population[den])}


def _expected_mean(metric: str, player: pd.Series, population: pd.Series, mean: str, n: str) -> dict:
    """A mean row of ``pattern_table`` written out: the mean and its sample size."""
    return {"metric": metric,
            "player_value": None if pd.isna(player[mean]) else float(player[mean]),
            "player_n": int(player[n]),
            "population_value": None if pd.isna(population[mean]) else float(population[mean]),
            "population_n": int(population[n])}


def test_pattern_table_is_unchanged(sim_store: Path) -> None:
    """``dashboards.patterns`` over the summaries gives the rates and sample sizes of the per-play
    computation, for the player and for the population (接风 included)."""
    con = connect(sim_store)
    player = players(con)["player_id"].iloc[0]
    got = pattern_table(play_stats(con, player=player), play_stats(con, player=None),
                        jie_feng_received(con, player=player),
                        jie_feng_received(con, player=None))
    mine, everyone = (_ref(con, REFERENCE_PLAY_STATS, p).iloc[0] for p in (player, None))
    jf_mine = _ref(con, REFERENCE_JIE_FENG, player).iloc[0]
    jf_everyone = con.execute(REFERENCE_JIE_FENG_POPULATION).df().iloc[0]
    want = pd.DataFrame([
        _expected_row("pass_when_beat", mine, everyone, "pass_beat", "able_to_beat"),
        _expected_row("overtake_partner", mine, everyone, "overtakes", "facing_partner"),
        _expected_row("bombs_per_deal", mine, everyone, "bombs", "deals"),
        _expected_row("jie_feng", jf_mine, jf_everyone, "jie_feng", "deals"),
        _expected_mean("bomb_opp_left", mine, everyone, "bomb_opp_left", "bombs"),
        _expected_mean("return_rank", mine, everyone, "return_rank", "returns"),
    ])
    pd.testing.assert_frame_equal(got, want, check_exact=False, rtol=1e-12)
    assert got["player_n"].gt(0).all()
    assert got["population_n"].gt(got["player_n"]).all()
