"""The ``seat_patterns``, ``player_patterns`` and ``player_leads`` tables: play-pattern counts (issue 7, 18).

The Player page compares a player's play patterns with the population's (``dashboards.patterns``).
Computing them from ``plays`` means scanning every play on each cold page load; these tables hold
the same counts, computed once per pipeline run with DuckDB over the Parquet views:

- ``seat_patterns``: one row per seat per deal with at least one action, sorted by match and
  deal. The coach's filtered rates (``dashboards.queries.coach_play_rates``) join it with the
  filtered seat-deals instead of scanning ``plays``, whose row groups mix many matches, so a
  player's few matches still read most of them (issue 18 "Speed");
- ``player_patterns``: the ``seat_patterns`` sums per player, with deals and tribute returns,
  so every definition below is written once. Grouping keeps the rows of unknown players (null
  ``player_id``), so the column sums are exactly the population's counts;
- ``player_leads``: leads per player and combination type.

All three are full recomputes from the committed ``plays``, ``deal_hands`` and ``tributes``, so
a corrected match's retracted revision (``pipelines.corrections``) is gone from them too, and,
like those tables, they keep matches that ``duplicate_matches`` excludes from scoring only.

Definitions (the Player page's metrics; seats and partners per rules.md §1):

- pass when able to beat: passes with ``could_beat`` over every turn where the seat could beat
  (every following play, plus passes with ``could_beat``); only known hands count;
- overtaking the partner: plays marked ``overtook_partner`` over every following turn where the
  table card is the partner's;
- bombs: plays with a ``bomb_class``; ``bomb_opp_left_*`` = sum and count of ``opp_min_left``;
- 接风 (rules.md §5.6): the seat's leads right after the partner played their last card, in
  seat-deals with a ``deal_hands`` row;
- tribute returns (还贡, rules.md §6): return cards given, and the sum and count of their natural
  ranks (2 = 2 … A = 14);
- deals: the player's ``deal_hands`` rows.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow as pa

from pipelines.store import Store
from pipelines.warehouse import create_views
from schemas.tables import PLAYER_LEADS, PLAYER_PATTERNS, SEAT_PATTERNS
from schemas.vocabulary import sql_partner, sql_rank, sql_rank_value

INPUTS = ("plays", "deal_hands", "tributes")
"""The tables the summaries are computed from (only their views are created)."""
MEMORY = "1GB"
"""DuckDB memory cap while computing (the plays scan spills beyond it)."""

_RETURN_RANK = sql_rank_value(sql_rank("return_card"))
"""SQL: the natural rank of the return card as 2 … 14 (null for a joker or no card)."""

SEAT_PATTERNS_SQL = f"""
WITH a AS (
    SELECT match_id, deal_no, seat, player_id,
        count(*) FILTER (WHERE action = 'pass' AND could_beat) AS pass_beat,
        count(*) FILTER (WHERE (action = 'pass' AND could_beat) OR (action = 'play' AND NOT is_lead))
            AS able_to_beat,
        count(*) FILTER (WHERE overtook_partner) AS overtakes,
        count(*) FILTER (WHERE NOT is_lead AND table_seat = {sql_partner("seat")}) AS facing_partner,
        count(*) FILTER (WHERE bomb_class IS NOT NULL) AS bombs,
        coalesce(sum(opp_min_left) FILTER (WHERE bomb_class IS NOT NULL), 0) AS bomb_opp_left_sum,
        count(opp_min_left) FILTER (WHERE bomb_class IS NOT NULL) AS bomb_opp_left_n
    FROM plays GROUP BY match_id, deal_no, seat, player_id
),
w AS (
    SELECT match_id, deal_no, seat, is_lead,
           last_value(CASE WHEN action = 'play' THEN seat END IGNORE NULLS) OVER win AS prev_seat,
           last_value(CASE WHEN action = 'play' THEN went_out END IGNORE NULLS) OVER win AS prev_out
    FROM plays
    WINDOW win AS (PARTITION BY match_id, deal_no ORDER BY seq
                   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
),
j AS (
    SELECT w.match_id, w.deal_no, w.seat, count(*) AS jie_feng
    FROM w SEMI JOIN deal_hands h USING (match_id, deal_no, seat)
    WHERE w.is_lead AND w.prev_out AND w.prev_seat = {sql_partner("w.seat")}
    GROUP BY ALL
)
SELECT a.*, coalesce(j.jie_feng, 0) AS jie_feng
FROM a LEFT JOIN j USING (match_id, deal_no, seat)
ORDER BY a.match_id, a.deal_no, a.seat
"""
"""One ``seat_patterns`` row per seat per deal with at least one action, sorted by deal."""

PATTERNS_SQL = f"""
WITH a AS (
    SELECT player_id, sum(pass_beat) AS pass_beat, sum(able_to_beat) AS able_to_beat,
           sum(overtakes) AS overtakes, sum(facing_partner) AS facing_partner, sum(bombs) AS bombs,
           sum(bomb_opp_left_sum) AS bomb_opp_left_sum, sum(bomb_opp_left_n) AS bomb_opp_left_n,
           sum(jie_feng) AS jie_feng
    FROM seat_patterns GROUP BY player_id
),
d AS (SELECT player_id, count(*) AS deals FROM deal_hands GROUP BY player_id),
r AS (
    SELECT receiver_player AS player_id, count(return_card) AS returns,
           coalesce(sum({_RETURN_RANK}), 0) AS return_rank_sum,
           count({_RETURN_RANK}) AS return_rank_n
    FROM tributes WHERE kind IN ('single', 'double') GROUP BY receiver_player
),
ids AS (
    SELECT player_id FROM a UNION SELECT player_id FROM d UNION SELECT player_id FROM r
)
SELECT ids.player_id,
       coalesce(d.deals, 0) AS deals,
       coalesce(a.pass_beat, 0) AS pass_beat,
       coalesce(a.able_to_beat, 0) AS able_to_beat,
       coalesce(a.overtakes, 0) AS overtakes,
       coalesce(a.facing_partner, 0) AS facing_partner,
       coalesce(a.bombs, 0) AS bombs,
       coalesce(a.bomb_opp_left_sum, 0) AS bomb_opp_left_sum,
       coalesce(a.bomb_opp_left_n, 0) AS bomb_opp_left_n,
       coalesce(a.jie_feng, 0) AS jie_feng,
       coalesce(r.returns, 0) AS returns,
       coalesce(r.return_rank_sum, 0) AS return_rank_sum,
       coalesce(r.return_rank_n, 0) AS return_rank_n
FROM ids
LEFT JOIN a ON a.player_id IS NOT DISTINCT FROM ids.player_id
LEFT JOIN d ON d.player_id IS NOT DISTINCT FROM ids.player_id
LEFT JOIN r ON r.player_id IS NOT DISTINCT FROM ids.player_id
ORDER BY ids.player_id NULLS LAST
"""
"""One ``player_patterns`` row per player: the ``seat_patterns`` sums, deals and tribute returns."""

LEADS_SQL = """
SELECT player_id, coalesce(combo_type, '?') AS combo_type, count(*) AS leads
FROM plays WHERE is_lead AND action = 'play'
GROUP BY ALL ORDER BY player_id NULLS LAST, combo_type
"""


def compute(con: duckdb.DuckDBPyConnection) -> dict[str, pa.Table]:
    """``seat_patterns``, ``player_patterns`` and ``player_leads`` from the views of ``con``
    (typed by their schemas); ``player_patterns`` sums the ``seat_patterns`` computed here."""
    seats = con.execute(SEAT_PATTERNS_SQL).to_arrow_table().cast(SEAT_PATTERNS)
    con.register("seat_patterns", seats)
    try:
        players = con.execute(PATTERNS_SQL).to_arrow_table().cast(PLAYER_PATTERNS)
    finally:
        con.unregister("seat_patterns")
    return {
        "seat_patterns": seats,
        "player_patterns": players,
        "player_leads": con.execute(LEADS_SQL).to_arrow_table().cast(PLAYER_LEADS),
    }


def write_player_patterns(store: Store | str | Path) -> dict[str, int]:
    """Recompute the three tables from the store's replayed tables and replace them; returns row counts.

    Each table is replaced atomically; unchanged content leaves the files untouched.
    """
    the_store = store if isinstance(store, Store) else Store(store)
    con = duckdb.connect(":memory:", config={"memory_limit": MEMORY})
    try:
        con.execute("SET enable_progress_bar = false")
        create_views(con, the_store, the_store.snapshot(), INPUTS)
        tables = compute(con)
    finally:
        con.close()
    for name, table in tables.items():
        the_store.write_table(name, table)
    return {name: table.num_rows for name, table in tables.items()}
