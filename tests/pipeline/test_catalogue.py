"""The per-match catalogue (``pipelines.steps.state.Catalogue``) builds only the matches a step touches.

A run adding a few matches to a large store used to build every match's ``MatchInfo`` and
compare every row when saving, several times per run (bookkeeping O(new data)). The
catalogue now answers ``where``, ``counts`` and ``batches`` for the untouched matches from the
columns; these properties check that it gives exactly what a plain mapping of every match
gives, after any mix of reads, changes and additions, and that saving appends only the rows
that changed.
"""

from __future__ import annotations

import copy

import polars as pl
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.steps.state import (
    HELD,
    INCOMPLETE,
    INFO_FIELDS,
    PENDING_MATCH,
    RETRACTING,
    Catalogue,
    MatchInfo,
    StoreState,
    batches_by_match,
    info_row,
    select,
)

STATUSES = (INCOMPLETE, "valid", "invalid", "partial")
infos = st.builds(
    MatchInfo,
    bucket=st.integers(0, 3),
    status=st.sampled_from(STATUSES),
    rows=st.integers(0, 50),
    has_end=st.booleans(),
    batches=st.lists(st.sampled_from("abcd"), max_size=3, unique=True),
    late_batches=st.lists(st.sampled_from("ef"), max_size=2, unique=True),
    superseded=st.lists(st.integers(1, 3), max_size=2, unique=True),
    retract=st.booleans(),
)
EDITS = ("read", "status", "late", "batch", "rows", "new")
edits = st.lists(st.tuples(st.integers(0, 30), st.sampled_from(EDITS)), max_size=12)


def _frame(matches: dict[str, MatchInfo]) -> pl.DataFrame:
    rows = [{"match_id": m, **dict(zip(INFO_FIELDS, info_row(i), strict=True))} for m, i in matches.items()]
    return pl.DataFrame(rows, schema={"match_id": pl.String, "bucket": pl.Int64, "status": pl.String,
                                      "rows": pl.Int64, "has_end": pl.Boolean, "batches": pl.List(pl.String),
                                      "late_batches": pl.List(pl.String), "duplicates": pl.Int64,
                                      "late_rows": pl.Int64, "revision": pl.Int64,
                                      "superseded": pl.List(pl.Int64), "retract": pl.Boolean})


def _apply(matches: dict[str, MatchInfo] | Catalogue, edit: list[tuple[int, str]], n: int) -> None:
    for at, what in edit:
        if what != "new" and not n:
            continue
        key = f"new{at}" if what == "new" else f"m{at % n}"
        if what == "new":
            matches[key] = MatchInfo(bucket=at % 4, has_end=at % 2 == 0)
        elif what == "read":
            assert matches[key].bucket >= 0
        elif what == "status":
            matches[key].status = "valid"
        elif what == "late":
            matches[key].late_batches.append(f"late{at}")
        elif what == "batch":
            matches[key].batches.append(f"b{at}")
        else:
            matches[key].rows += 1


@settings(max_examples=150, deadline=None)
@given(st.lists(infos, max_size=12), edits)
def test_the_catalogue_answers_as_a_mapping_of_every_match(stored: list[MatchInfo],
                                                           edit: list[tuple[int, str]]) -> None:
    plain = {f"m{i}": info for i, info in enumerate(stored)}
    catalogue = Catalogue(lambda: _frame(plain))
    expected = copy.deepcopy(plain)
    _apply(expected, edit, len(stored))
    _apply(catalogue, edit, len(stored))

    assert list(catalogue) == list(expected)
    assert len(catalogue) == len(expected)
    assert {m: info_row(i) for m, i in catalogue.items()} == {m: info_row(i) for m, i in expected.items()}
    for condition in (HELD, PENDING_MATCH, RETRACTING):
        fresh = Catalogue(lambda: _frame(plain))
        _apply(fresh, edit, len(stored))
        assert list(select(fresh, condition)) == list(select(expected, condition))
    fresh = Catalogue(lambda: _frame(plain))
    _apply(fresh, edit, len(stored))
    assert fresh.counts() == StoreState(matches=expected).catalogue_counts()
    assert batches_by_match(fresh).equals(batches_by_match(expected))
    changed = {m: info_row(i) for m, i in expected.items()
               if m not in plain or info_row(i) != info_row(plain[m])}
    assert fresh.changed() == changed


def test_only_the_matches_touched_are_built_and_saved_rows_are_not_appended_again() -> None:
    stored = {f"m{i}": MatchInfo(bucket=i % 4, status="valid", rows=10) for i in range(1000)}
    catalogue = Catalogue(lambda: _frame(stored))
    catalogue["m7"].late_batches.append("b9")
    catalogue["x"] = MatchInfo(bucket=1)
    assert catalogue.counts()["matches_valid"] == 1000
    assert select(catalogue, HELD) == {"x": MatchInfo(bucket=1)}
    assert len(catalogue._data) == 2
    changed = catalogue.changed()
    assert set(changed) == {"m7", "x"}
    catalogue.mark_saved(changed)
    assert catalogue.changed() == {}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("pqrst"), st.integers(0, 4), st.integers(-9, 9)), max_size=30))
def test_a_memory_table_reads_as_each_keys_latest_row_in_first_seen_order(
        rows: list[tuple[str, int, int]]) -> None:
    """A memory table's current value per key is its row of the highest ``commit`` (of two in one
    commit, the later), the keys in the order they first appear (module docstring)."""
    from pipelines.steps.state import _latest_frame

    schema = pa.schema([("key", pa.string()), ("commit", pa.int64()), ("value", pa.int64())])
    table = pa.Table.from_pylist([dict(zip(schema.names, r, strict=True)) for r in rows], schema=schema)
    latest: dict[str, tuple[int, int]] = {}
    for key, commit, value in rows:
        if key not in latest or commit >= latest[key][0]:
            latest[key] = (commit, value)
    order = list(dict.fromkeys(r[0] for r in rows))
    got = _latest_frame(table, "key")
    assert (got.rows() if rows else []) == [(k, latest[k][1]) for k in order]
