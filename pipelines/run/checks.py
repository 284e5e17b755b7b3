"""The pipeline's data checks, as SQL over the store's views.

Each check returns ``(passed, metadata)``; the run plan's checks (``pipelines.run.store_checks``)
and the tests call the same functions. :func:`memoized` skips a check whose tables have not
changed since it last ran (its memos are a Delta table, ``<store>/state/check_memos``), so a rerun
with nothing new does not rescan every deal; after an append, a check with an :class:`Increment`
brings its memo up to date from the files appended since (``pipelines.run.check_increments``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

import duckdb
import numpy as np
import orjson
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from pipelines.steps.state import HELD, INCOMPLETE, StoreState, select
from pipelines.storage.delta import new_id
from pipelines.storage.store import Store
from replay.cards import CARDS

CheckResult = tuple[bool, dict[str, int | str]]


def match_statuses(con: duckdb.DuckDBPyConnection, state: StoreState) -> CheckResult:
    """Every ingested match is exactly one of valid / partial / results_only / invalid / incomplete.

    A match id seen in ``raw_events`` must be either in ``matches`` (with a replayed status)
    or in ``incomplete_matches``, never both and never neither; and every raw row belongs to
    such a match or is a malformed line (rows in = valid + partial + results_only + invalid + incomplete +
    malformed). The ``incomplete_matches`` table must also list exactly the matches the ingest
    state holds as incomplete, with the state's row counts (``incomplete_out_of_step``).
    The whole check, in one scan of ``raw_events`` (its rows per match, once);
    ``pipelines.run.check_increments`` brings its memo up to date after an append.
    """
    row = con.execute(
        f"""
        WITH g AS MATERIALIZED (
               SELECT match_id, count(*) FILTER (WHERE parse_error IS NULL) AS n, count(*) AS rows_in,
                      count(*) FILTER (WHERE parse_error IS NOT NULL) AS malformed
               FROM raw_events GROUP BY match_id),
             r AS (SELECT match_id, n FROM g WHERE n > 0),
             m AS (SELECT match_id, status FROM matches),
             i AS (SELECT match_id, events FROM incomplete_matches)
        SELECT
          (SELECT count(*) FROM r WHERE match_id NOT IN (SELECT match_id FROM m)
                                    AND match_id NOT IN (SELECT match_id FROM i)) AS neither,
          (SELECT count(*) FROM m WHERE match_id IN (SELECT match_id FROM i)) AS both,
          (SELECT count(*) FROM m WHERE match_id NOT IN (SELECT match_id FROM r)) AS replayed_not_raw,
          (SELECT count(*) FROM i WHERE match_id NOT IN (SELECT match_id FROM r)) AS incomplete_not_raw,
          (SELECT count(*) FROM m WHERE status NOT IN {REPLAYED_STATUSES}) AS bad_status,
          (SELECT coalesce(sum(rows_in), 0) FROM g) AS rows_in,
          (SELECT coalesce(sum(malformed), 0) FROM g) AS rows_malformed,
          (SELECT coalesce(sum(n), 0) FROM r JOIN m USING (match_id)) AS rows_replayed,
          (SELECT coalesce(sum(n), 0) FROM r JOIN i USING (match_id)) AS rows_incomplete,
          (SELECT count(*) FROM i) AS incomplete
        """
    ).fetchone()
    assert row is not None
    names = [k for k in STATUS_COUNTS if k != "incomplete_out_of_step"]
    counts: dict[str, int] = dict(zip(names, (int(v) for v in row), strict=True))
    incomplete = con.execute("SELECT match_id, events FROM incomplete_matches").to_arrow_table()
    counts["incomplete_out_of_step"] = out_of_step(incomplete, state)
    by_status = con.execute("SELECT status, count(*) FROM matches GROUP BY status").fetchall()
    return status_result(counts, {s: int(n) for s, n in by_status}, incomplete["match_id"].to_pylist())


REPLAYED_STATUSES = ("valid", "partial", "results_only", "invalid")
"""The statuses of a replayed match (``matches.status``)."""


def out_of_step(incomplete: pa.Table, state: StoreState) -> int:
    """Rows of ``incomplete`` (``incomplete_matches``' ``match_id`` and ``events``) and matches
    the state holds as incomplete that are not on both sides with the same row count."""
    held = [(m, i.rows) for m, i in select(state.matches, HELD).items()]
    expected = pa.table(
        {"match_id": [m for m, _ in held], "rows": [n for _, n in held]},
        schema=pa.schema([("match_id", pa.string()), ("rows", pa.int64())]),
    )
    con = duckdb.connect()
    try:
        con.register("i", incomplete)
        con.register("h", expected)
        row = con.execute(
            "SELECT count(*) FROM i FULL JOIN h USING (match_id) WHERE i.events IS DISTINCT FROM h.rows"
        ).fetchone()
    finally:
        con.close()
    return int(row[0]) if row else 0


STATUS_COUNTS = (
    "neither",
    "both",
    "replayed_not_raw",
    "incomplete_not_raw",
    "bad_status",
    "incomplete_out_of_step",
    "rows_in",
    "rows_malformed",
    "rows_replayed",
    "rows_incomplete",
    f"matches_{INCOMPLETE}",
)
""":func:`match_statuses`' counts; the first six must be 0."""

INCOMPLETE_IDS = "incomplete_ids"
"""Metadata of :func:`match_statuses`: the JSON list of the ids in ``incomplete_matches``. The
incremental check (``pipelines.run.check_increments``) needs the ones of its memo: a match leaving
that table changes the counts. As long as the incomplete matches, not the store."""


def status_result(
    counts: Mapping[str, int], by_status: Mapping[str, int], incomplete: list[str]
) -> CheckResult:
    """:func:`match_statuses`' result from its counts, the ``matches`` rows per status and the
    ids listed in ``incomplete_matches`` (the whole check's and the incremental one's alike)."""
    meta: dict[str, int | str] = {k: int(counts[k]) for k in STATUS_COUNTS}
    meta.update({f"matches_{s}": n for s, n in sorted(by_status.items())})
    meta[INCOMPLETE_IDS] = orjson.dumps(sorted(incomplete)).decode()
    accounted = counts["rows_malformed"] + counts["rows_replayed"] + counts["rows_incomplete"]
    rows_ok = counts["rows_in"] == accounted
    return rows_ok and all(counts[k] == 0 for k in STATUS_COUNTS[:6]), meta


def unique_match_ids(con: duckdb.DuckDBPyConnection) -> CheckResult:
    """No match id occurs twice in ``matches``."""
    dupes = con.execute(
        "SELECT match_id, count(*) AS n FROM matches GROUP BY match_id HAVING n > 1 ORDER BY match_id LIMIT 5"
    ).fetchall()
    total = con.execute("SELECT count(*) - count(DISTINCT match_id) FROM matches").fetchone()
    extra = int(total[0]) if total else 0
    return extra == 0, {"duplicate_rows": extra, "examples": ", ".join(m for m, _ in dupes)}


HANDS_PER_BATCH = 50_000
"""Hands :func:`card_conservation` counts at a time: bounded memory at any size (the whole
100k-deal store unnested in one query, ~11 M cards, ran out of the checks' DuckDB memory cap)."""

_DEAL = ["match_id", "deal_no"]
_UNKNOWN = len(CARDS)
"""The count column of codes that are no card (rules.md §1 has 54)."""
_COUNTS = [f"card_{i}" for i in range(len(CARDS) + 1)]


@cache
def _card_codes() -> pa.Array:
    """The card codes as an Arrow array, built on first use (``pa.array`` imports pandas, ≈ 0.3 s,
    which a rerun with nothing new, importing this module, never needs)."""
    return pa.array(CARDS)


def _counts_per_deal(batch: pa.RecordBatch) -> pl.DataFrame:
    """Per deal in ``batch`` (rows of ``deal_hands`` with a known hand): its hands, and how many
    of each card code they hold (the last column: codes that are no card)."""
    hand = batch.column("hand")
    owner = pc.list_parent_indices(hand).to_numpy().astype(np.int64)
    code = pc.index_in(pc.list_flatten(hand), value_set=_card_codes()).fill_null(_UNKNOWN).to_numpy()
    width = len(_COUNTS)
    counts = np.bincount(owner * width + code, minlength=batch.num_rows * width)
    per_hand = pl.from_numpy(counts.reshape(batch.num_rows, width).astype(np.uint16), schema=_COUNTS)
    per_hand = per_hand.with_columns(pl.from_arrow(batch.select(_DEAL)), hands=pl.lit(1, pl.UInt16))
    return per_hand.group_by(_DEAL).agg(pl.all().sum())


def _two_decks() -> pl.Expr:
    """Every card code counted exactly twice, nothing else (rules.md §1)."""
    return pl.all_horizontal([pl.col(c) == 2 for c in _COUNTS[:_UNKNOWN]]) & (pl.col(_COUNTS[_UNKNOWN]) == 0)


def _deal_verdicts(batches: Iterable[pa.RecordBatch]) -> pl.DataFrame:
    """Per deal with four known hands: whether they are two full decks (``two_decks``).

    A deal whose four hands came in one batch is judged there and keeps only its verdict; the
    counts of the others are added up over all batches first. A deal is full if it has four
    known hands in all, whatever the order of the rows.
    """
    whole = pl.col("hands") == 4
    judged: list[pl.DataFrame] = []
    open_counts: list[pl.DataFrame] = []
    for batch in batches:
        per_deal = _counts_per_deal(batch)
        judged.append(per_deal.filter(whole).select(*_DEAL, "hands", two_decks=_two_decks()))
        open_counts.append(per_deal.filter(~whole))
    if not judged:
        return pl.DataFrame(schema={"match_id": pl.String, "deal_no": pl.Int32, "two_decks": pl.Boolean})
    added = pl.concat(open_counts).group_by(_DEAL).agg(pl.all().sum())
    judged.append(added.select(*_DEAL, "hands", two_decks=_two_decks()))
    every = pl.concat(judged).group_by(_DEAL).agg(pl.col("hands").sum(), pl.col("two_decks").all())
    return every.filter(whole).drop("hands")


def card_conservation(con: duckdb.DuckDBPyConnection) -> CheckResult:
    """Every deal with all four hands known was dealt exactly two full decks (rules.md §1).

    108 cards, each of the 54 card codes exactly twice; and every deal of a ``valid`` match
    has its four hands (a deal with a missing hand makes the match ``partial``, events.md).
    The cards of :data:`HANDS_PER_BATCH` hands are counted at a time. ``examples`` are the first
    five bad deals by their name (``match#deal``), so results over disjoint deals combine exactly
    (:func:`combine_card_conservation`).
    """
    reader = con.execute("SELECT match_id, deal_no, hand FROM deal_hands WHERE hand IS NOT NULL")
    verdicts = _deal_verdicts(reader.to_arrow_reader(HANDS_PER_BATCH))
    bad = verdicts.filter(~pl.col("two_decks")).select(deal=pl.format("{}#{}", *_DEAL)).sort("deal")
    con.register("full_deals", verdicts.select(_DEAL).to_arrow())
    try:
        missing = con.execute(
            """
            SELECT count(*) FROM (SELECT d.match_id, d.deal_no FROM deals d JOIN matches m USING (match_id)
                                  WHERE m.status = 'valid') v
            ANTI JOIN full_deals USING (match_id, deal_no)
            """
        ).fetchone()
    finally:
        con.unregister("full_deals")
    valid_without_hands = int(missing[0]) if missing else 0
    meta: dict[str, int | str] = {
        "deals_checked": len(verdicts),
        "deals_not_two_decks": len(bad),
        "valid_deals_without_four_hands": valid_without_hands,
        "examples": ", ".join(bad["deal"].head(5)),
    }
    return bad.is_empty() and valid_without_hands == 0, meta


def combine_card_conservation(before: CheckResult, new: CheckResult) -> CheckResult:
    """The :func:`card_conservation` result of two disjoint sets of deals, from each one's.

    Exact because a replay batch holds whole matches (a deal's hands, its row and its match's
    status come in one batch) and the examples are the first five by name on both sides.
    """
    meta_a, meta_b = before[1], new[1]
    counted = ("deals_checked", "deals_not_two_decks", "valid_deals_without_four_hands")
    meta: dict[str, int | str] = {k: int(meta_a[k]) + int(meta_b[k]) for k in counted}
    examples = [e for m in (meta_a, meta_b) for e in str(m["examples"]).split(", ") if e]
    meta["examples"] = ", ".join(sorted(examples)[:5])
    return meta["deals_not_two_decks"] == 0 and meta["valid_deals_without_four_hands"] == 0, meta


MEMOS = pa.schema(
    [("name", pa.string()), ("key", pa.string()), ("passed", pa.bool_()), ("metadata", pa.string())]
)
"""The check memos (memory table ``check_memos``): one row per check computed; a check's last row
counts. ``key``: the JSON object of the Delta version of each table the check read."""

Gained = Mapping[str, list[str]]
"""Per table, the Parquet files it gained since a memo (appended batches)."""

FilesCheck = Callable[[Gained], CheckResult]
"""A check over given Parquet files per table (the files a table gained since the last memo)."""


@dataclass(frozen=True, slots=True)
class Increment:
    """How a check is brought up to date from its memo: ``update(memo, gained)`` is the check's
    result now, from the memo's result and the files each table gained since (None: the memo
    lacks what the update needs, e.g. one of an older form; the check is computed whole).

    ``replaced``: tables the update reads whole (small ones rewritten on every run, such as
    ``incomplete_matches``): their losing files does not force the whole check.
    """

    update: Callable[[CheckResult, Gained], CheckResult | None]
    replaced: frozenset[str] = frozenset()


def combining(
    over_files: FilesCheck, combine: Callable[[CheckResult, CheckResult], CheckResult]
) -> Increment:
    """The increment of a check whose results over disjoint data combine: run over the gained
    files (``over_files``) and ``combine`` with the memo's result."""
    return Increment(lambda memo, gained: combine(memo, over_files(gained)))


def memoized(
    store: Store,
    name: str,
    tables: list[str],
    compute: Callable[[], CheckResult],
    increment: Increment | None = None,
) -> CheckResult:
    """``compute()``, or its saved result when the Delta versions of ``tables`` are unchanged.

    The key is the version of each table as the store reads it: a Delta version is never
    rewritten, so an equal key means equal data. With an ``increment``, when every table only
    gained files since the memo (appended batches; no file removed by a deletion, a rollback or
    a compaction; a table the increment reads whole, ``Increment.replaced``, may lose files), the
    memo is brought up to date from the gained files (``Increment.update``), so its cost follows
    the new data; otherwise it is recomputed whole. A computed result is appended to the memos
    (one row per check computed: the memos grow by one row per run, whatever the store's size).
    """
    versions = {t: store.version(t) for t in tables}
    key = orjson.dumps(versions, option=orjson.OPT_SORT_KEYS).decode()
    memos = store.read_memory("check_memos", MEMOS, latest=True).filter(pc.field("name") == name).to_pylist()
    same = next((m for m in memos if m["key"] == key), None)
    if same is not None:
        cached = {**orjson.loads(same["metadata"]), "cached": "tables unchanged since the last check"}
        return bool(same["passed"]), cached
    base = _latest_memo(memos, versions) if increment is not None else None
    result = None
    if increment is not None and base is not None:
        result = _updated(store, increment, base, versions)
    passed, meta = result if result is not None else compute()
    row = {"name": name, "key": key, "passed": passed, "metadata": orjson.dumps(meta).decode()}
    memo_row = pa.Table.from_pylist([row], schema=MEMOS)
    store.append(store.memory_path("check_memos"), memo_row, f"check-{new_id()}", step=False)
    return passed, meta


def _updated(
    store: Store,
    increment: Increment,
    base: tuple[dict[str, int | None], dict[str, Any]],
    versions: Mapping[str, int | None],
) -> CheckResult | None:
    """The memo ``base`` (its versions, its row) brought up to ``versions`` by ``increment``; None
    when only a whole check is right (a table lost files, or the update cannot use the memo)."""
    gained = _gained_files(store, base[0], versions, increment.replaced)
    if gained is None:
        return None
    return increment.update((bool(base[1]["passed"]), orjson.loads(base[1]["metadata"])), gained)


def _latest_memo(
    memos: list[dict[str, Any]], versions: Mapping[str, int | None]
) -> tuple[dict[str, int | None], dict[str, Any]] | None:
    """The memo of the latest versions not past ``versions`` (its versions, the memo), if any.

    By versions, not by row order: the memos' files are listed in no particular order, and a
    table's versions only grow. A memo whose key is not a versions object of the same tables
    (an older form) is passed over.
    """
    out: tuple[list[int], dict[str, int | None], dict[str, Any]] | None = None
    for memo in memos:
        try:
            before = orjson.loads(memo["key"])
        except orjson.JSONDecodeError:
            continue
        if not isinstance(before, dict) or set(before) != set(versions):
            continue
        rank = [_rank(before[t]) for t in sorted(versions)]
        now = [_rank(versions[t]) for t in sorted(versions)]
        if all(b <= n for b, n in zip(rank, now, strict=True)) and (out is None or rank > out[0]):
            out = (rank, before, memo)
    return None if out is None else (out[1], out[2])


def _rank(version: int | None) -> int:
    """A version for ordering memos (-1: no table yet)."""
    return -1 if version is None else version


def _gained_files(
    store: Store,
    before: Mapping[str, int | None],
    versions: Mapping[str, int | None],
    replaced: frozenset[str],
) -> dict[str, list[str]] | None:
    """Per table, the Parquet files its version in ``versions`` has and the one in ``before``
    had not; None when a table not in ``replaced`` lost a file since (rows deleted, rolled back
    or compacted): then only a whole check is right."""
    out = {}
    for table, version in versions.items():
        old = set(store.data_files(table, before[table])) if before[table] is not None else set()
        now = store.data_files(table, version) if version is not None else []
        if table not in replaced and not old <= set(now):
            return None
        out[table] = [f for f in now if f not in old]
    return out
