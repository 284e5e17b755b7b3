"""The match_statuses and unique_match_ids checks brought up to date from their memos (so
a run's checks cost O(new data)); ``checks.memoized`` calls them when the tables only gained files.

Both are exact: the result equals the whole check's (``checks.match_statuses``,
``checks.unique_match_ids``) over the same store.

- ``unique_match_ids``: the gained ``matches`` rows' ids are looked up in the older files (a
  filtered read of those ids only). Duplicate rows = rows - distinct ids, so the memo's count
  grows by the gained rows less the gained ids not seen before; the duplicated ids are the memo's
  and the gained ids now on more than one row, so the first five by name of both are the first
  five of the store.
- ``match_statuses``: its counts are sums over match ids of a term of three per-match numbers:
  r (raw rows, malformed lines apart), m (``matches`` rows), i (``incomplete_matches`` rows); see
  :func:`_terms`. Only the matches touched since the memo can have changed numbers: the ids of the
  gained raw and ``matches`` rows and of ``incomplete_matches`` now and at the memo (the memo
  lists those, ``checks.INCOMPLETE_IDS``). For them the older numbers are read (their raw rows in
  the older files of their batches and bucket, by the catalogue; their older ``matches`` rows by a
  filtered read), their terms before are subtracted and their terms now added. Rows in, malformed
  rows, bad statuses and rows per status only add up over the gained files; ``incomplete_matches``
  (small, rewritten on every run) is read whole.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import orjson
import pyarrow as pa
import pyarrow.compute as pc

from pipelines.run import checks
from pipelines.steps.state import INCOMPLETE, StoreState, load_state
from pipelines.storage.delta import BATCH, of_matches
from pipelines.storage.store import Store
from schemas.tables import MATCHES, RAW_EVENTS

_ADDED = ("neither", "both", "replayed_not_raw", "incomplete_not_raw", "rows_replayed", "rows_incomplete")
"""The counts of ``checks.match_statuses`` that are sums of per-match terms (:func:`_terms`)."""

BUCKET = "bucket"
"""The partition column of ``raw_events`` after ``batch`` (``pipelines.steps.ingest``)."""


def unique_match_ids(store: Store) -> checks.Increment:
    """``checks.unique_match_ids`` from its memo and the ``matches`` files gained since."""
    return checks.Increment(partial(_update_unique_ids, store))


def match_statuses(store: Store) -> checks.Increment:
    """``checks.match_statuses`` from its memo and the files gained since (``incomplete_matches``
    read whole)."""
    return checks.Increment(partial(_update_statuses, store), frozenset({"incomplete_matches"}))


def _update_unique_ids(store: Store, memo: checks.CheckResult, gained: checks.Gained) -> checks.CheckResult:
    added = _counts(_read(gained["matches"], ["match_id"], MATCHES)["match_id"])
    before = _replayed_before(store, gained, added)
    extra = int(memo[1]["duplicate_rows"]) + sum(added.values()) - sum(1 for m in added if m not in before)
    duplicated = {m for m, n in added.items() if n + before.get(m, 0) > 1}
    examples = {e for e in str(memo[1]["examples"]).split(", ") if e} | duplicated
    return extra == 0, {"duplicate_rows": extra, "examples": ", ".join(sorted(examples)[:5])}


def _update_statuses(
    store: Store, memo: checks.CheckResult, gained: checks.Gained
) -> checks.CheckResult | None:
    """None when the memo does not list its incomplete matches (an older memo): check whole."""
    meta = memo[1]
    if checks.INCOMPLETE_IDS not in meta:
        return None
    state = load_state(store)
    raw = _read(gained["raw_events"], ["match_id", "parse_error"], RAW_EVENTS)
    replayed = _read(gained["matches"], ["match_id", "status"], MATCHES)
    incomplete = store.read_table("incomplete_matches", ["match_id", "events"])
    added = _Numbers(_counts(raw.filter(pc.is_null(raw["parse_error"]))["match_id"]),
                     _counts(replayed["match_id"]), Counter())
    i_before = Counter(orjson.loads(str(meta[checks.INCOMPLETE_IDS])))
    i_now = _counts(incomplete["match_id"])
    touched = {*added.raw, *added.replayed, *i_before, *i_now}
    before = _Numbers(_raw_counts(store, state, touched, set(gained["raw_events"])),
                      _replayed_before(store, gained, touched), i_before)
    now = _Numbers(before.raw + added.raw, before.replayed + added.replayed, i_now)
    counts = {k: int(meta[k]) for k in checks.STATUS_COUNTS}
    for match_id in touched:
        was, now_terms = before.terms(match_id), now.terms(match_id)
        for k in _ADDED:
            counts[k] += now_terms[k] - was[k]
    statuses = _counts(replayed["status"])
    counts["rows_in"] += raw.num_rows
    counts["rows_malformed"] += raw.num_rows - added.raw.total()
    counts["bad_status"] += sum(n for s, n in statuses.items() if s not in checks.REPLAYED_STATUSES)
    counts["incomplete_out_of_step"] = checks.out_of_step(incomplete, state)
    counts["matches_incomplete"] = incomplete.num_rows
    return checks.status_result(counts, _by_status(meta) + statuses, list(i_now.elements()))


@dataclass(frozen=True, slots=True)
class _Numbers:
    """Per match id: its raw rows (malformed lines apart), ``matches`` rows and
    ``incomplete_matches`` rows, at one version of the tables (or gained since)."""

    raw: Counter[str]
    replayed: Counter[str]
    incomplete: Counter[str]

    def terms(self, match_id: str) -> dict[str, int]:
        """The match's terms of the counts of :data:`_ADDED`."""
        return _terms(self.raw[match_id], self.replayed[match_id], self.incomplete[match_id])


def _by_status(meta: Mapping[str, int | str]) -> Counter[str]:
    """The ``matches`` rows per status of a :func:`checks.match_statuses` result."""
    return Counter({k.removeprefix("matches_"): int(v) for k, v in meta.items()
                    if k.startswith("matches_") and k != f"matches_{INCOMPLETE}"})


def _terms(r: int, m: int, i: int) -> dict[str, int]:
    """One match's terms of the counts of :data:`_ADDED`, from its raw rows (malformed lines apart),
    ``matches`` rows and ``incomplete_matches`` rows (the whole check's SQL, per match)."""
    return {
        "neither": int(r > 0 and m == 0 and i == 0),
        "both": m * (i > 0),
        "replayed_not_raw": m * (r == 0),
        "incomplete_not_raw": i * (r == 0),
        "rows_replayed": r * m,
        "rows_incomplete": r * i,
    }


def _raw_counts(store: Store, state: StoreState, ids: Collection[str], skip: set[str]) -> Counter[str]:
    """Raw rows (malformed lines apart) of ``ids`` in the ``raw_events`` files not in ``skip``.

    Only the files of the matches' own batches (the catalogue's, late ones included) in their
    hash bucket are read (picked from one listing of the table by their ``batch=``/``bucket=``
    folders), filtered by id (``of_matches``): raw files are never rewritten, so their columns are
    plain strings and the filter is pushed down.
    """
    by_bucket: dict[str, tuple[list[str], set[str]]] = {}
    for match_id in ids:
        info = state.matches.get(match_id)
        if info is not None:
            wanted, batches = by_bucket.setdefault(f"{BUCKET}={info.bucket}", ([], set()))
            wanted.append(match_id)
            batches.update(f"{BATCH}={b}" for b in (*info.batches, *info.late_batches))
    files: dict[str, list[Path]] = {}
    for file in store.data_files("raw_events") if by_bucket else []:
        path = Path(file)
        bucket, batch = path.parent.name, path.parent.parent.name
        if file not in skip and bucket in by_bucket and batch in by_bucket[bucket][1]:
            files.setdefault(bucket, []).append(path)
    out: Counter[str] = Counter()
    for bucket, paths in files.items():
        where = of_matches(by_bucket[bucket][0]) & pc.field("parse_error").is_null()
        rows = store.read_files("raw_events", paths, columns=["match_id"], where=where)
        out.update(_counts(rows["match_id"]))
    return out


def _replayed_before(store: Store, gained: checks.Gained, ids: Collection[str]) -> Counter[str]:
    """The ``matches`` rows of ``ids`` at the memo: in all files but the gained ones (the table
    lost none since). Some may be files a DELETE rewrote (``Store.read_files`` reads those too)."""
    new = set(gained["matches"])
    older = [f for f in store.data_files("matches") if f not in new]
    if not older or not ids:
        return Counter()
    rows = store.read_files("matches", [Path(f) for f in older], columns=["match_id"], where=of_matches(ids))
    return _counts(rows["match_id"])


def _read(files: list[str], columns: list[str], schema: pa.Schema) -> pa.Table:
    """``columns`` of the given Parquet files of a table, typed by ``schema`` (no filter: any file)."""
    import pyarrow.dataset as ds

    typed = pa.schema([schema.field(c) for c in columns])
    if not files:
        return typed.empty_table()
    return ds.dataset(files, schema=typed, format="parquet").to_table(columns=columns)


def _counts(values: pa.ChunkedArray) -> Counter[str]:
    """How often each value occurs."""
    if len(values) == 0:
        return Counter()
    counted = pc.value_counts(values)
    return Counter(dict(zip(counted.field("values").to_pylist(), counted.field("counts").to_pylist(),
                            strict=True)))
