"""The ``seat_patterns``, ``player_patterns`` and ``player_leads`` tables: play-pattern counts.

The Player page compares a player's play patterns with the population's (``dashboards.patterns``).
Computing them from ``plays`` means scanning every play on each cold page load; these tables hold
the same counts:

- ``seat_patterns``: one row per seat per deal with at least one action, each appended part sorted by
  match and deal. The coach's filtered rates (``dashboards.queries.coach.coach_play_rates``) join it with the
  filtered seat-deals instead of scanning ``plays``, whose row groups mix many matches, so a
  player's few matches still read most of them;
- ``player_patterns``: the ``seat_patterns`` sums per player, with deals and tribute returns,
  so every definition below is written once. Grouping keeps the rows of unknown players (null
  ``player_id``), so the column sums are exactly the population's counts;
- ``player_leads``: leads per player and combination type.

``seat_patterns`` and the per-match counts the other two sum (``player_match_patterns``,
``player_match_leads``) are computed once per replayed chunk (``pipelines.steps.pattern_counts``,
appended by the replay step), so a run reads only those small tables, never every play (issue
17), and a corrected match's retracted revision (``pipelines.steps.corrections``) leaves them with its
other rows. Like ``plays``, they keep matches that ``duplicate_matches`` excludes from scoring only.

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

import pyarrow as pa

from pipelines.steps.pattern_counts import MATCH_COUNTS
from pipelines.storage.store import Store
from schemas.tables import PLAYER_LEADS, PLAYER_PATTERNS


def player_patterns(per_match: pa.Table) -> pa.Table:
    """``player_patterns``: the ``player_match_patterns`` rows summed per player (null last)."""
    rows = per_match.group_by("player_id", use_threads=False).aggregate([(c, "sum") for c in MATCH_COUNTS])
    rows = rows.rename_columns([c.removesuffix("_sum") if c != "player_id" else c for c in rows.column_names])
    return _sorted(rows.select(PLAYER_PATTERNS.names), ["player_id"]).cast(PLAYER_PATTERNS)


def player_leads(per_match: pa.Table) -> pa.Table:
    """``player_leads``: the ``player_match_leads`` rows summed per player and combination type."""
    rows = per_match.group_by(["player_id", "combo_type"], use_threads=False).aggregate([("leads", "sum")])
    rows = rows.rename_columns({"leads_sum": "leads"}).select(PLAYER_LEADS.names)
    return _sorted(rows, ["player_id", "combo_type"]).cast(PLAYER_LEADS)


def write_player_patterns(store: Store | str | Path) -> dict[str, int]:
    """Replace ``player_patterns`` and ``player_leads`` by the sums of the store's per-match rows;
    returns row counts.

    Each table is replaced atomically; unchanged content leaves the files untouched.
    """
    the_store = store if isinstance(store, Store) else Store(store)
    tables = {
        "player_patterns": player_patterns(the_store.read_table("player_match_patterns")),
        "player_leads": player_leads(the_store.read_table("player_match_leads")),
    }
    for name, table in tables.items():
        the_store.write_table(name, table)
    return {name: table.num_rows for name, table in tables.items()}


def _sorted(rows: pa.Table, keys: list[str]) -> pa.Table:
    """``rows`` sorted by ``keys``, nulls last (as the tables have always been)."""
    return rows.sort_by([(k, "ascending", "at_end") for k in keys])
