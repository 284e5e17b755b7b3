"""Play-pattern counts of replayed matches in Arrow: ``seat_patterns`` and the per-match rows that
``player_patterns`` and ``player_leads`` sum (computed once per replayed chunk).

Every count is a sum over one match's rows, so a chunk of whole matches gives its matches' rows
exactly, and the store's tables are the chunks' rows appended (``pipelines.steps.chunk_summaries``).
The definitions are those of ``pipelines.steps.player_patterns`` (the Player page's metrics; seats and
partners per rules.md §1). Only pyarrow: this runs in the replay step's worker processes, which
import neither DuckDB nor polars (``pipelines.steps.replay_task``).
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from schemas.tables import PLAYER_MATCH_LEADS, PLAYER_MATCH_PATTERNS, SEAT_PATTERNS
from schemas.vocabulary import PARTNER, RANK_VALUE

SEAT_KEYS = ["match_id", "deal_no", "seat", "player_id"]
"""A ``seat_patterns`` row's key (the player is constant within a seat-deal)."""
COUNTS = [name for name in SEAT_PATTERNS.names if name not in SEAT_KEYS]
"""The play-pattern counts of a seat-deal, as ``seat_patterns`` names them."""
MATCH_KEYS = ["match_id", "player_id"]
MATCH_COUNTS = [name for name in PLAYER_MATCH_PATTERNS.names if name not in MATCH_KEYS]
"""The counts of a player's match: the seat-deal counts, deals and tribute returns."""
PLAYS_COLUMNS = ["match_id", "deal_no", "seq", "seat", "player_id", "action", "is_lead", "could_beat",
                 "overtook_partner", "table_seat", "bomb_class", "opp_min_left", "went_out", "combo_type"]
"""The ``plays`` columns the counts read."""
HANDS_COLUMNS = ["match_id", "deal_no", "seat", "player_id"]
TRIBUTES_COLUMNS = ["match_id", "kind", "receiver_player", "return_card"]
RETURN_KINDS = ("single", "double")
"""Tribute kinds with a return card (rules.md §6); ``anti`` has none."""


@cache
def _partners() -> tuple[pa.Array, pa.Array]:
    """The seats and their partners' seats as Arrow arrays. Built on first use, as
    :func:`_rank_values` is: ``pa.array`` imports pandas (≈ 0.3 s), which a rerun with nothing
    new, importing this module, never needs."""
    return pa.array(list(PARTNER), pa.string()), pa.array(list(PARTNER.values()), pa.string())


@cache
def _rank_values() -> tuple[pa.Array, pa.Array]:
    """The rank letters and their values as Arrow arrays (see :func:`_partners`)."""
    return pa.array(list(RANK_VALUE), pa.string()), pa.array(list(RANK_VALUE.values()), pa.int64())


def seat_patterns(plays: pa.Table, deal_hands: pa.Table, *, ordered: bool = False) -> pa.Table:
    """One ``seat_patterns`` row per seat per deal of ``plays``, sorted by match, deal and seat
    (``ordered``: ``plays`` are already in deal order, as :func:`in_deal_order` returns them).

    - ``pass_beat``: passes with ``could_beat``; ``able_to_beat``: those plus every following play;
    - ``overtakes``: plays marked ``overtook_partner``; ``facing_partner``: following turns whose
      table card is the partner's;
    - ``bombs``: plays with a ``bomb_class``; ``bomb_opp_left_sum``/``_n``: sum and count of their
      ``opp_min_left``;
    - ``jie_feng`` (接风, rules.md §5.6): leads right after the partner's play that took them out,
      counted only for seat-deals with a ``deal_hands`` row.
    """
    if plays.num_rows == 0:
        return SEAT_PATTERNS.empty_table()
    plays = plays.select(PLAYS_COLUMNS) if ordered else in_deal_order(plays, PLAYS_COLUMNS)
    is_play = pc.equal(plays["action"], "play")
    following = pc.invert(plays["is_lead"])
    seats, partners = _partners()
    partner = pc.take(partners, pc.index_in(plays["seat"], value_set=seats))
    pass_beat = pc.and_(pc.equal(plays["action"], "pass"), pc.fill_null(plays["could_beat"], False))
    bomb = pc.is_valid(plays["bomb_class"])
    opp_left = plays["opp_min_left"].cast(pa.int64())
    jie_feng = _jie_feng(plays, is_play, partner)
    counts = {
        "pass_beat": pass_beat,
        "able_to_beat": pc.or_(pass_beat, pc.and_(is_play, following)),
        "overtakes": pc.fill_null(plays["overtook_partner"], False),
        "facing_partner": pc.and_(following, pc.fill_null(pc.equal(plays["table_seat"], partner), False)),
        "bombs": bomb,
        "bomb_opp_left_sum": pc.if_else(bomb, pc.fill_null(opp_left, 0), 0),
        "bomb_opp_left_n": pc.and_(bomb, pc.is_valid(opp_left)),
        "jie_feng": jie_feng,
    }
    rows = pa.table({**{k: plays[k] for k in SEAT_KEYS},
                     **{k: v.cast(pa.int64()) for k, v in counts.items()}})
    out = _sum(rows, SEAT_KEYS, COUNTS)
    out = out.set_column(out.schema.get_field_index("jie_feng"), "jie_feng",
                         pc.if_else(_has_hand(out, deal_hands), out["jie_feng"], 0))
    return out.sort_by([(k, "ascending") for k in SEAT_KEYS[:3]]).cast(SEAT_PATTERNS)


def in_deal_order(rows: pa.Table, columns: list[str]) -> pa.Table:
    """``rows``' ``columns`` sorted by match, deal and seq (not sorted again when they already are,
    as the replayer's rows usually are)."""
    keys = ["match_id", "deal_no", "seq"]
    rows = rows.select(columns)
    if _ordered(rows, keys):
        return rows
    return rows.sort_by([(k, "ascending") for k in keys])


def _ordered(rows: pa.Table, keys: list[str]) -> bool:
    """Whether ``rows`` are sorted by ``keys`` (lexicographically, ascending)."""
    n = rows.num_rows
    if n < 2:
        return True
    after: pa.Array = pa.array(np.zeros(n - 1, dtype=bool))
    same: pa.Array = pa.array(np.ones(n - 1, dtype=bool))
    for key in keys:
        column = rows[key].combine_chunks()
        later, earlier = column.slice(1), column.slice(0, n - 1)
        after = pc.or_(after, pc.and_(same, pc.greater(later, earlier)))
        same = pc.and_(same, pc.equal(later, earlier))
    return bool(pc.all(pc.or_(after, same)).as_py())


def player_match_patterns(seats: pa.Table, deal_hands: pa.Table, tributes: pa.Table) -> pa.Table:
    """One ``player_match_patterns`` row per player per match: the sums of the player's
    ``seat_patterns`` rows, the player's ``deal_hands`` rows (``deals``) and the return cards the
    player gave (还贡, rules.md §6: ``returns``, and the sum and count of their natural ranks,
    2 … 14; a joker has none). A null ``player_id`` gathers the seats of unknown players."""
    hands = deal_hands.select(HANDS_COLUMNS)
    given = tributes.select(TRIBUTES_COLUMNS).filter(pc.is_in(tributes["kind"], pa.array(RETURN_KINDS)))
    card = given["return_card"]
    ranks, values = _rank_values()
    rank = pc.take(values, pc.index_in(pc.utf8_slice_codeunits(card, 1, 2), value_set=ranks))
    parts = [
        _sum(seats.select([*MATCH_KEYS, *COUNTS]), MATCH_KEYS, COUNTS),
        pa.table({"match_id": hands["match_id"], "player_id": hands["player_id"],
                  "deals": _ones(hands.num_rows)}),
        pa.table({"match_id": given["match_id"], "player_id": given["receiver_player"],
                  "returns": pc.is_valid(card).cast(pa.int64()),
                  "return_rank_sum": pc.fill_null(rank, 0),
                  "return_rank_n": pc.is_valid(rank).cast(pa.int64())}),
    ]
    rows = pa.concat_tables([_with_zeros(part) for part in parts])
    out = _sum(rows, MATCH_KEYS, MATCH_COUNTS).sort_by([(k, "ascending") for k in MATCH_KEYS])
    return out.cast(PLAYER_MATCH_PATTERNS)


def player_match_leads(plays: pa.Table) -> pa.Table:
    """Leads (a trick's first play) per match, player and combination type (``?``: unread)."""
    leads = plays.filter(pc.and_(plays["is_lead"], pc.equal(plays["action"], "play")))
    rows = pa.table({"match_id": leads["match_id"], "player_id": leads["player_id"],
                     "combo_type": pc.fill_null(leads["combo_type"], "?"),
                     "leads": _ones(leads.num_rows)})
    keys = ["match_id", "player_id", "combo_type"]
    return _sum(rows, keys, ["leads"]).sort_by([(k, "ascending") for k in keys]).cast(PLAYER_MATCH_LEADS)


def _jie_feng(plays: pa.Table, is_play: pa.ChunkedArray, partner: pa.ChunkedArray) -> pa.ChunkedArray:
    """Per row of ``plays`` (sorted by match, deal and seq): a lead whose deal's last play before
    it was the partner's and took the partner out (the last such play with a known ``went_out``)."""
    n = plays.num_rows
    index = pa.array(np.arange(n, dtype=np.int64))
    start = _running_max(pc.if_else(deal_starts(plays), index, -1))
    last_play = _before(pc.if_else(is_play, index, -1))
    known_out = _before(pc.if_else(pc.and_(is_play, pc.is_valid(plays["went_out"])), index, -1))
    prev_seat = pc.take(plays["seat"], _within(last_play, start))
    prev_out = pc.take(plays["went_out"], _within(known_out, start))
    hit = pc.and_(pc.and_(plays["is_lead"], pc.fill_null(prev_out, False)),
                  pc.fill_null(pc.equal(prev_seat, partner), False))
    return hit if isinstance(hit, pa.ChunkedArray) else pa.chunked_array([hit])


def deal_starts(plays: pa.Table) -> pa.Array:
    """Whether each row (sorted by match and deal) is the first of its deal."""
    n = plays.num_rows
    if n == 0:
        return pa.array([], pa.bool_())
    match = plays["match_id"].combine_chunks()
    deal = plays["deal_no"].combine_chunks()
    changed = pc.or_(pc.not_equal(match.slice(1), match.slice(0, n - 1)),
                     pc.not_equal(deal.slice(1), deal.slice(0, n - 1)))
    return pa.concat_arrays([pa.array([True]), changed])


def _running_max(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    out = pc.cumulative_max(values)
    return out.combine_chunks() if isinstance(out, pa.ChunkedArray) else out


def _before(indices: pa.Array | pa.ChunkedArray) -> pa.Array:
    """Per row, the largest of ``indices`` strictly before it (-1: none)."""
    running = _running_max(indices)
    return pa.concat_arrays([pa.array([-1], pa.int64()), running.slice(0, max(len(running) - 1, 0))])


def _within(found: pa.Array, start: pa.Array) -> pa.Array:
    """``found`` where it lies in the row's own deal (at or after its first row), else null."""
    return pc.if_else(pc.and_(pc.greater_equal(found, 0), pc.greater_equal(found, start)), found, None)


def _has_hand(seats: pa.Table, deal_hands: pa.Table) -> pa.Array:
    """Whether each row's seat-deal has a ``deal_hands`` row."""
    return pc.is_in(_seat_deal(seats), value_set=_seat_deal(deal_hands).combine_chunks())


def _seat_deal(table: pa.Table) -> pa.ChunkedArray:
    return pc.binary_join_element_wise(table["match_id"], table["deal_no"].cast(pa.string()),
                                       table["seat"], "\0")


def _ones(n: int) -> pa.Array:
    return pa.array(np.ones(n, dtype=np.int64))


def _with_zeros(part: pa.Table) -> pa.Table:
    """``part`` with every count of :data:`MATCH_COUNTS` it lacks as zeros, in one column order."""
    zeros = pa.array(np.zeros(part.num_rows, dtype=np.int64))
    columns = {k: part[k] for k in MATCH_KEYS}
    columns.update({k: part[k] if k in part.column_names else zeros for k in MATCH_COUNTS})
    return pa.table(columns)


def _sum(rows: pa.Table, keys: list[str], counts: list[str]) -> pa.Table:
    """``rows`` summed per ``keys`` (a null key is a group of its own, as in SQL's GROUP BY)."""
    out = rows.group_by(keys, use_threads=False).aggregate([(c, "sum") for c in counts])
    names = {f"{c}_sum": c for c in counts}
    return out.rename_columns([names.get(c, c) for c in out.column_names]).select([*keys, *counts])
