"""A deal's content fingerprint, from its replayed rows: what ``duplicate_matches`` compares.

The fingerprint is the md5 (hex) of ``<hands>|<actions>``: ``<hands>`` is each dealt hand as
``seat=card,card,…`` (cards sorted), joined by ``;`` in seat order (E, N, S, W as text), and
``<actions>`` each play or pass as ``seat:action:card,card,…`` (no cards: empty), joined by ``;``
in seq order. Unknown hands are left out (no hand known: ``<hands>`` is empty). Only deals with
at least one action get one: a results-only deal's hands alone would match the other room of a
duplicate board (``pipelines.steps.duplicates``).

Computed per replayed chunk in the replay step's worker (``pipelines.steps.chunk_summaries``), so only
pyarrow and hashlib: a deal's fingerprint needs only the deal's own rows.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipelines.steps.pattern_counts import deal_starts, in_deal_order
from schemas.tables import DEAL_FINGERPRINTS

DEAL = ["match_id", "deal_no"]
PLAYS_COLUMNS = [*DEAL, "seq", "seat", "action", "cards"]
"""The ``plays`` columns a fingerprint reads."""
HANDS_COLUMNS = [*DEAL, "seat", "hand"]
"""The ``deal_hands`` columns a fingerprint reads."""


def deal_fingerprints(plays: pa.Table, deal_hands: pa.Table, *, ordered: bool = False) -> pa.Table:
    """One ``deal_fingerprints`` row per deal of ``plays``, sorted by match and deal (``ordered``:
    ``plays`` are already in deal order, as ``in_deal_order`` returns them)."""
    if plays.num_rows == 0:
        return DEAL_FINGERPRINTS.empty_table()
    plays = plays.select(PLAYS_COLUMNS) if ordered else in_deal_order(plays, PLAYS_COLUMNS)
    cards = pc.fill_null(pc.binary_join(plays["cards"], ","), "")
    action = pc.binary_join_element_wise(plays["seat"], plays["action"], cards, ":")
    actions = _joined(plays, action, "actions")
    hands = deal_hands.select(HANDS_COLUMNS).filter(pc.is_valid(deal_hands["hand"]))
    hands = hands.sort_by([(c, "ascending") for c in (*DEAL, "seat")])
    dealt = pc.binary_join_element_wise(hands["seat"], pc.binary_join(_sorted_lists(hands["hand"]), ","), "=")
    deals = actions.join(_joined(hands, dealt, "hands"), DEAL, join_type="left outer")
    deals = deals.sort_by([(c, "ascending") for c in DEAL])
    texts = pc.binary_join_element_wise(pc.fill_null(deals["hands"], ""), deals["actions"], "|")
    digests = [hashlib.md5(t.encode()).hexdigest() for t in texts.to_pylist()]
    return pa.table({"match_id": deals["match_id"], "deal_no": deals["deal_no"],
                     "fingerprint": pa.array(digests, pa.string())}).cast(DEAL_FINGERPRINTS)


def _joined(rows: pa.Table, text: pa.ChunkedArray | pa.Array, name: str) -> pa.Table:
    """Per deal of ``rows`` (sorted by match and deal), its rows' ``text`` joined by ``;`` in row order."""
    text = text.combine_chunks() if isinstance(text, pa.ChunkedArray) else text
    n = rows.num_rows
    match = rows["match_id"].combine_chunks()
    deal = rows["deal_no"].combine_chunks()
    starts = pc.indices_nonzero(deal_starts(rows))
    offsets = pa.concat_arrays([starts.cast(pa.int32()), pa.array([n], pa.int32())])
    return pa.table({"match_id": pc.take(match, starts), "deal_no": pc.take(deal, starts),
                     name: pc.binary_join(pa.ListArray.from_arrays(offsets, text), ";")})


def _sorted_lists(lists: pa.ChunkedArray) -> pa.ListArray:
    """Each (non-null) list of strings with its items sorted (bytewise, as SQL's ``list_sort``).

    The items (cards) take few distinct values, so each list's items are sorted as integer keys
    (list, rank among the sorted distinct values), not as strings."""
    flat = lists.combine_chunks()
    values = pc.list_flatten(flat)
    if values.null_count:
        owner = pc.list_parent_indices(flat)
        order = pa.table({"owner": owner, "value": values}).sort_by([("owner", "ascending"),
                                                                     ("value", "ascending")])
        items = order["value"].combine_chunks()
    else:
        distinct = pc.unique(values)
        ranked = pc.take(distinct, pc.sort_indices(distinct))
        rank = pc.index_in(values, value_set=ranked).to_numpy().astype(np.int64)
        owner = pc.list_parent_indices(flat).to_numpy().astype(np.int64)
        keys = np.sort(owner * len(ranked) + rank)
        items = pc.take(ranked, pa.array(keys % len(ranked)))
    sizes = pc.list_value_length(flat).cast(pa.int32())
    offsets = pa.concat_arrays([pa.array([0], pa.int32()), pc.cumulative_sum(sizes).cast(pa.int32())])
    return pa.ListArray.from_arrays(offsets, items)
