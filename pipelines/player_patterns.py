"""The ``player_patterns`` and ``player_leads`` tables: per-player play-pattern counts (issue 7 Player page).

The Player page compares a player's play patterns with the population's (``dashboards.patterns``).
Computing the population from ``plays`` means scanning every play on each cold page load; these
two small tables hold the same counts per player, computed once per pipeline run with DuckDB
over the Parquet views, so the page reads a few hundred rows instead. Grouping keeps the rows of
unknown players (null ``player_id``), so the column sums are exactly the population's counts.

Definitions (the Player page's metrics; seats and partners per rules.md §1):

- pass when able to beat: passes with ``could_beat`` over every turn where the seat could beat
  (every following play, plus passes with ``could_beat``); only known hands count;
- overtaking the partner: plays marked ``overtook_partner`` over every following turn where the
  table card is the partner's;
- bombs: plays with a ``bomb_class``; ``bomb_opp_left_*`` = sum and count of ``opp_min_left``;
- 接风 (rules.md §5.6): the player's leads right after the partner played their last card, in
  deals where the player holds a hand;
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
from schemas.tables import PLAYER_LEADS, PLAYER_PATTERNS
from schemas.vocabulary import sql_partner, sql_rank, sql_rank_value

INPUTS = ("plays", "deal_hands", "tributes")
"""The tables both summaries are computed from (only their views are created)."""
MEMORY = "1GB"
"""DuckDB memory cap while computing (the plays scan spills beyond it)."""

_RETURN_RANK = sql_rank_value(sql_rank("return_card"))
"""SQL: the natural rank of the return card as 2 … 14 (null for a joker or no card)."""

PATTERNS_SQL = f"""
WITH a AS (
    SELECT player_id,
        count(*) FILTER (WHERE action = 'pass' AND could_beat) AS pass_beat,
        count(*) FILTER (WHERE (action = 'pass' AND could_beat) OR (action = 'play' AND NOT is_lead))
            AS able_to_beat,
        count(*) FILTER (WHERE overtook_partner) AS overtakes,
        count(*) FILTER (WHERE NOT is_lead AND table_seat = {sql_partner("seat")}) AS facing_partner,
        count(*) FILTER (WHERE bomb_class IS NOT NULL) AS bombs,
        coalesce(sum(opp_min_left) FILTER (WHERE bomb_class IS NOT NULL), 0) AS bomb_opp_left_sum,
        count(opp_min_left) FILTER (WHERE bomb_class IS NOT NULL) AS bomb_opp_left_n
    FROM plays GROUP BY player_id
),
d AS (SELECT player_id, count(*) AS deals FROM deal_hands GROUP BY player_id),
w AS (
    SELECT match_id, deal_no, seat, player_id, is_lead,
           last_value(CASE WHEN action = 'play' THEN seat END IGNORE NULLS) OVER win AS prev_seat,
           last_value(CASE WHEN action = 'play' THEN went_out END IGNORE NULLS) OVER win AS prev_out
    FROM plays
    WINDOW win AS (PARTITION BY match_id, deal_no ORDER BY seq
                   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
),
j AS (
    SELECT w.player_id, count(*) AS jie_feng
    FROM w SEMI JOIN deal_hands h
        ON w.match_id = h.match_id AND w.deal_no = h.deal_no AND w.player_id = h.player_id
    WHERE w.is_lead AND w.prev_out AND w.prev_seat = {sql_partner("w.seat")}
    GROUP BY w.player_id
),
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
       coalesce(j.jie_feng, 0) AS jie_feng,
       coalesce(r.returns, 0) AS returns,
       coalesce(r.return_rank_sum, 0) AS return_rank_sum,
       coalesce(r.return_rank_n, 0) AS return_rank_n
FROM ids
LEFT JOIN a ON a.player_id IS NOT DISTINCT FROM ids.player_id
LEFT JOIN d ON d.player_id IS NOT DISTINCT FROM ids.player_id
LEFT JOIN j ON j.player_id IS NOT DISTINCT FROM ids.player_id
LEFT JOIN r ON r.player_id IS NOT DISTINCT FROM ids.player_id
ORDER BY ids.player_id NULLS LAST
"""

LEADS_SQL = """
SELECT player_id, coalesce(combo_type, '?') AS combo_type, count(*) AS leads
FROM plays WHERE is_lead AND action = 'play'
GROUP BY ALL ORDER BY player_id NULLS LAST, combo_type
"""


def compute(con: duckdb.DuckDBPyConnection) -> dict[str, pa.Table]:
    """``player_patterns`` and ``player_leads`` from the views of ``con`` (typed by their schemas)."""
    return {
        "player_patterns": con.execute(PATTERNS_SQL).to_arrow_table().cast(PLAYER_PATTERNS),
        "player_leads": con.execute(LEADS_SQL).to_arrow_table().cast(PLAYER_LEADS),
    }


def write_player_patterns(store: Store | str | Path) -> dict[str, int]:
    """Recompute both tables from the store's replayed tables and replace them; returns row counts.

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
