"""The store's data checks as run steps: each reads the committed tables and returns a
:class:`~pipelines.steps.step_reports.CheckOutcome` (the SQL is in ``pipelines.run.checks``).

A check whose tables did not change since it last ran returns its memo (``checks.memoized``), so
a run with nothing new does not rescan every deal. After an append each is brought up to date
from its memo at the cost of the new data: card conservation checks only the deals appended
since; unique_match_ids looks up the new match ids among the older rows; match_statuses recounts
only the matches the new files touch (``pipelines.run.check_increments``). After a deletion (a
correction's retraction), a rollback or a compaction they are computed whole. ``gdan run`` calls
them through ``pipelines.run.plan``; the Dagster asset checks of ``pipelines.defs.assets`` call the same
functions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import duckdb

from pipelines.run import check_increments, checks
from pipelines.steps.state import load_state
from pipelines.steps.step_reports import CheckOutcome
from pipelines.storage.store import Store
from pipelines.storage.warehouse import connect
from schemas.catalog import ALL_TABLES

CHECK_MEMORY = "512MB"
"""DuckDB memory cap of the checks (they scan whole tables; DuckDB spills beyond it)."""


def _con(store: Store, tables: list[str]) -> duckdb.DuckDBPyConnection:
    """Views over the given committed tables (not the published snapshot: this run's output)."""
    return connect(store.root, memory_limit=CHECK_MEMORY, snapshot=store.snapshot(), tables=tables)


def store_files(store: Store) -> CheckOutcome:
    """Every file under tables/ is one the store wrote (another file is never read: reported here)."""
    with store.writer_lock():
        foreign = [f.relative_to(store.root).as_posix() for f in store.foreign_files()]
    return CheckOutcome("store_files_check", "raw_events", not foreign,
                        {"foreign_files": len(foreign), "files": ", ".join(foreign[:10])})


MATCH_STATUSES_TABLES = ["raw_events", "matches", "incomplete_matches"]
"""The tables the match-status check reads."""


def match_statuses(store: Store) -> CheckOutcome:
    """Every ingested match is exactly one of valid / partial / invalid / incomplete, every raw row
    accounted for (``checks.match_statuses``); after an append, from its memo and the matches the
    new files touch (``check_increments.match_statuses``)."""
    passed, meta = checks.memoized(
        store, "match_statuses", MATCH_STATUSES_TABLES,
        lambda: checks.match_statuses(_con(store, MATCH_STATUSES_TABLES), load_state(store)),
        check_increments.match_statuses(store),
    )
    return CheckOutcome("match_statuses_check", "matches", passed, meta)


UNIQUE_MATCH_IDS_TABLES = ["matches"]
"""The tables the unique-ids check reads."""


def unique_match_ids(store: Store) -> CheckOutcome:
    """No duplicate match ids in ``matches``; after an append, from its memo and the new ids
    (``check_increments.unique_match_ids``)."""
    passed, meta = checks.memoized(store, "unique_match_ids", UNIQUE_MATCH_IDS_TABLES,
                                   lambda: checks.unique_match_ids(_con(store, UNIQUE_MATCH_IDS_TABLES)),
                                   check_increments.unique_match_ids(store))
    return CheckOutcome("unique_match_ids_check", "matches", passed, meta)


def _files_con(files: Mapping[str, list[str]]) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection with one view per table over exactly the given Parquet files."""
    import pyarrow.dataset as ds  # only when a check runs (a rerun with nothing new runs none)

    con = duckdb.connect(config={"memory_limit": CHECK_MEMORY})
    for name, paths in files.items():
        con.register(name, ds.dataset(paths, schema=ALL_TABLES[name], format="parquet"))
    return con


def _card_conservation_over(files: Mapping[str, list[str]]) -> checks.CheckResult:
    con = _files_con(files)
    try:
        return checks.card_conservation(con)
    finally:
        con.close()


CARD_CONSERVATION_INCREMENT = checks.combining(_card_conservation_over, checks.combine_card_conservation)
"""Card conservation over the deals batches added since its memo, combined with it."""


CARD_CONSERVATION_TABLES = ["deal_hands", "deals", "matches"]
"""The tables card conservation reads."""


def card_conservation(store: Store) -> CheckOutcome:
    """Every fully known deal is two full decks (rules.md §1), every deal of a valid match has four hands.

    Over the deals appended since the check last ran, combined with its memo; whole when rows
    were deleted since or there is no memo (``checks.memoized``).
    """
    passed, meta = checks.memoized(store, "card_conservation", CARD_CONSERVATION_TABLES,
                                   lambda: checks.card_conservation(_con(store, CARD_CONSERVATION_TABLES)),
                                   CARD_CONSERVATION_INCREMENT)
    return CheckOutcome("card_conservation_check", "deals", passed, meta)


@dataclass(frozen=True, slots=True)
class StoreCheck:
    """A check, the table (asset key) it guards and what it verifies (the Dagster UI's text)."""

    run: Callable[[Store], CheckOutcome]
    name: str
    table: str
    description: str


INGEST_CHECKS: tuple[StoreCheck, ...] = (
    StoreCheck(store_files, "store_files_check", "raw_events",
               "every file under tables/ is one the store wrote "
               "(a file written there by anything else is never read, and reported here)"),
)
"""Checks of the ingest step: they run on every run."""

REPLAY_CHECKS: tuple[StoreCheck, ...] = (
    StoreCheck(match_statuses, "match_statuses_check", "matches",
               "every ingested match is exactly one of valid / partial / invalid / incomplete, "
               "and every raw row is accounted for"),
    StoreCheck(unique_match_ids, "unique_match_ids_check", "matches", "no duplicate match ids in matches"),
    StoreCheck(card_conservation, "card_conservation_check", "deals",
               "card conservation: every fully known deal is two full decks (rules.md §1), "
               "every deal of a valid match has four hands"),
)
"""Checks of the replayed tables: skipped with the downstream steps when nothing is new."""
