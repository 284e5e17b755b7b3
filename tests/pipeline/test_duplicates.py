"""``pipelines.steps.duplicates.duplicate_matches`` against the module docs' rule, stated directly.

The step drops the store's matches without a repeated fingerprint before its sorts and joins
(its cost follows the new data); this property checks the rows it gives against a plain reading
of the rule on any table of fingerprints: each fingerprint's original is its first match by ingest
order (then match id); a later match is listed under the earlier match it shares most deals with (then the
earliest, then the lowest id), excluded when every deal of it is such a copy.
"""

from __future__ import annotations

from collections import Counter

import polars as pl
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.steps.duplicates import duplicate_matches
from schemas.tables import DEAL_FINGERPRINTS

Row = tuple[str, int, str]


def _reference(rows: list[Row], order: dict[str, int]) -> list[tuple[str, str, int, int, bool]]:
    last = max(order.values(), default=-1) + 1

    def rank(match: str) -> tuple[int, str]:
        return order.get(match, last), match

    holder: dict[str, str] = {}
    for match, _, fingerprint in sorted(rows, key=lambda r: (rank(r[0]), r[1])):
        holder.setdefault(fingerprint, match)
    deals = Counter(match for match, _, _ in rows)
    shared = Counter((m, holder[f]) for m, _, f in rows if holder[f] != m)
    out = []
    for match in sorted({m for m, _ in shared}, key=rank):
        best = min((o for m, o in shared if m == match), key=lambda o: (-shared[(match, o)], rank(o)))
        n = shared[(match, best)]
        out.append((match, best, n, deals[match], n == deals[match]))
    return out


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from("abcdefgh"), st.integers(1, 4), st.sampled_from("pqrstuvw")),
             max_size=24, unique_by=lambda r: (r[0], r[1])),
    st.dictionaries(st.sampled_from("abcdefgh"), st.integers(0, 3)),
)
def test_duplicate_matches_follow_the_rule(rows: list[Row], order: dict[str, int]) -> None:
    columns = {"match_id": [r[0] for r in rows], "deal_no": [r[1] for r in rows],
               "fingerprint": [r[2] for r in rows]}
    schema = pa.schema([DEAL_FINGERPRINTS.field(n) for n in columns])
    ranks = pl.DataFrame({"match_id": list(order), "order": list(order.values())},
                         schema={"match_id": pl.String, "order": pl.Int64})
    got = duplicate_matches(pa.table(columns, schema=schema), ranks)
    assert [(r["match_id"], r["duplicate_of"], r["deals"], r["match_deals"], r["excluded"])
            for r in got.to_pylist()] == _reference(rows, order)
