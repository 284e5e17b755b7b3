"""The pipeline's Dagster assets and asset checks (issue 5): ingest -> replay -> (scoring) -> warehouse.

The assets write the store themselves (append batches, see ``pipelines.steps``) and return
metadata only, so no IO manager is involved. Asset keys of the replayed tables are the table
names, which the scoring assets depend on. (No ``from __future__ import annotations``: Dagster
checks the ``context`` annotation at runtime.)
"""

from collections.abc import Iterator

import duckdb
from dagster import (
    AssetCheckResult,
    AssetChecksDefinition,
    AssetExecutionContext,
    AssetKey,
    AssetsDefinition,
    AssetSpec,
    MaterializeResult,
    asset,
    asset_check,
    multi_asset,
)

from pipelines import checks
from pipelines.player_patterns import write_player_patterns
from pipelines.replaying import WRITTEN
from pipelines.resources import ExecutorResource, StoreResource
from pipelines.reviews import write_player_reviews
from pipelines.roster import write_roster
from pipelines.scoring_assets import ASSETS as SCORING_ASSETS
from pipelines.state import load_state
from pipelines.steps import ingest_step, replay_step
from pipelines.store import Store
from pipelines.warehouse import connect, warehouse_is_current, write_warehouse
from schemas.catalog import ALL_TABLES
from schemas.tables import (
    DERIVED,
    INCOMPLETE_MATCHES,
    PLAYER_REVIEWS,
    PLAYERS,
    RAW_EVENTS,
    REVIEWED,
    SUMMARIES,
    SUPERSEDED,
)


def _doc(schema_doc: bytes | None, fallback: str) -> str:
    return schema_doc.decode() if schema_doc else fallback


@asset(
    key="raw_events",
    group_name="ingest",
    description="Ingest new *.jsonl / *.jsonl.gz (and importable foreign) files from <store>/inbox: "
    "each file read once (content hash), every line kept as received. "
    + _doc((RAW_EVENTS.metadata or {}).get(b"doc"), ""),
)
def raw_events(store: StoreResource) -> MaterializeResult:
    report = ingest_step(Store(store.root), workers=store.replay_workers or None)
    return MaterializeResult(metadata=report.as_metadata())


@multi_asset(
    specs=[
        *(
            AssetSpec(
                name,
                deps=["raw_events"],
                group_name="replay",
                skippable=True,
                description=_doc((schema.metadata or {}).get(b"doc"), name),
            )
            for name, schema in WRITTEN.items()
        ),
        AssetSpec(
            "incomplete_matches",
            deps=["raw_events"],
            group_name="replay",
            skippable=True,
            description=_doc((INCOMPLETE_MATCHES.metadata or {}).get(b"doc"), "incomplete_matches"),
        ),
        AssetSpec(
            "superseded",
            deps=["raw_events"],
            group_name="quality",
            skippable=True,
            description=_doc((SUPERSEDED.metadata or {}).get(b"doc"), "superseded"),
        ),
    ],
    can_subset=False,
)
def replayed_tables(
    context: AssetExecutionContext, store: StoreResource, executor: ExecutorResource
) -> Iterator[MaterializeResult]:
    """Replay every complete, not yet replayed match (``replay.replay_batch``) into the derived tables.

    The batches of whole matches run on the ``executor`` resource (local pool or Dask).

    The step also rewrites ``incomplete_matches`` (the matches still waiting for their ``match_end``)
    and ``superseded`` (the corrected matches' lower revisions).
    When the downstream tables, the published snapshot and the warehouse file are all up to
    date with the committed batches (:func:`_up_to_date`), it reports no materialization, so
    Dagster skips the downstream assets: a rerun with nothing new recomputes nothing.
    ``StoreResource.refresh`` forces the downstream run.
    """
    the_store = Store(store.root)
    report = replay_step(the_store, workers=store.replay_workers or None, executor=executor.executor())
    if not store.refresh and _up_to_date(the_store):
        context.log.info("nothing new since the last complete run: downstream assets skipped")
        return
    summary = report.as_metadata()
    for name in WRITTEN:
        yield MaterializeResult(asset_key=name, metadata={"rows_added": report.rows_written[name], **summary})
    yield MaterializeResult(asset_key="incomplete_matches", metadata={"rows": report.incomplete})
    yield MaterializeResult(asset_key="superseded", metadata={"rows": report.superseded})


PATTERN_TABLES = ("seat_patterns", "player_patterns", "player_leads")


@multi_asset(
    specs=[
        AssetSpec(
            name,
            deps=["plays", "deal_hands", "tributes"],
            group_name="replay",
            skippable=True,
            description=_doc((SUMMARIES[name].metadata or {}).get(b"doc"), name),
        )
        for name in PATTERN_TABLES
    ],
    can_subset=False,
)
def player_pattern_tables(store: StoreResource) -> Iterator[MaterializeResult]:
    """Per-seat-deal and per-player play-pattern counts for the Player page
    (``pipelines.player_patterns``)."""
    rows = write_player_patterns(store.store())
    for name, n in rows.items():
        yield MaterializeResult(asset_key=name, metadata={"rows": n})


@asset(
    key="player_reviews",
    deps=["play_reviews"],
    group_name="replay",
    description=_doc((PLAYER_REVIEWS.metadata or {}).get(b"doc"), "player_reviews"),
)
def player_review_table(store: StoreResource) -> MaterializeResult:
    """Per-player decision-review summary for the Player page (``pipelines.reviews``)."""
    return MaterializeResult(metadata={"rows": write_player_reviews(store.store())})


@asset(
    key="players",
    deps=["raw_events", "matches"],
    group_name="replay",
    description=_doc((PLAYERS.metadata or {}).get(b"doc"), "players"),
)
def roster(store: StoreResource) -> MaterializeResult:
    """The roster (player id → name, club) from ``match_start.players`` (``pipelines.roster``)."""
    return MaterializeResult(metadata={"rows": write_roster(store.store())})


SCORING_KEYS: list[AssetKey] = [
    key for defn in SCORING_ASSETS if isinstance(defn, AssetsDefinition) for key in defn.keys
]
TABLE_KEYS: list[AssetKey] = [
    AssetKey("raw_events"),
    *(AssetKey(n) for n in (*DERIVED, *REVIEWED, *SUMMARIES)),
    AssetKey("superseded"),
    *SCORING_KEYS,
]


DOWNSTREAM: list[str] = [
    *PATTERN_TABLES,
    *(k.to_user_string() for k in SCORING_KEYS if k.to_user_string() in ALL_TABLES),
]
"""The tables the downstream assets recompute from the replayed tables on every run."""


def _up_to_date(store: Store) -> bool:
    """Whether the downstream part of a run would change nothing.

    True when every downstream table was last computed from exactly the last step commit (as
    each asset recorded what it read, ``Store.inputs``), the last published run is of that
    commit, and ``warehouse.duckdb`` holds exactly that run's views.
    """
    committed = store.reading().seq
    inputs = store.inputs()
    if any(inputs.get(name) != committed for name in DOWNSTREAM):
        return False
    published = store.published()
    return (
        published is not None
        and published.seq == committed
        and published.versions == store.snapshot(committed).versions
        and warehouse_is_current(store, published)
    )


@asset(deps=TABLE_KEYS, group_name="warehouse")
def warehouse(store: StoreResource) -> MaterializeResult:
    """Publish the run's snapshot to readers (one run record); DuckDB views over it in warehouse.duckdb.

    Runs last. The snapshot is of the step commit every downstream table was computed from (the
    earliest, should another writer have committed meanwhile: the next run then recomputes):
    the append tables at that commit's versions, every full-replace table at its latest.
    """
    the_store = store.store()
    inputs = the_store.inputs()
    seq = min(inputs.get(name, -1) for name in DOWNSTREAM)
    with the_store.writer_lock():
        snapshot = the_store.snapshot(seq)
        published = the_store.publish(snapshot)
        path = write_warehouse(the_store, snapshot)
    return MaterializeResult(
        metadata={"path": str(path), "commit": seq, "snapshot_changed": published}
    )


CHECK_MEMORY = "512MB"
"""DuckDB memory cap of the asset checks (they scan whole tables; DuckDB spills beyond it)."""


def _con(store: Store) -> duckdb.DuckDBPyConnection:
    """Views over the store's committed tables (not the published snapshot: this run's output)."""
    return connect(store.root, memory_limit=CHECK_MEMORY, snapshot=store.snapshot())


@asset_check(
    asset="raw_events",
    description="every file under tables/ is one the store wrote "
    "(a file written there by anything else is never read, and reported here)",
)
def store_files_check(store: StoreResource) -> AssetCheckResult:
    the_store = store.store()
    with the_store.writer_lock():
        foreign = [f.relative_to(the_store.root).as_posix() for f in the_store.foreign_files()]
    return AssetCheckResult(
        passed=not foreign, metadata={"foreign_files": len(foreign), "files": ", ".join(foreign[:10])}
    )


@asset_check(
    asset="matches",
    description="every ingested match is exactly one of "
    "valid / partial / invalid / incomplete, and every raw row is accounted for",
)
def match_statuses_check(store: StoreResource) -> AssetCheckResult:
    the_store = store.store()
    passed, meta = checks.memoized(
        the_store,
        "match_statuses",
        ["raw_events", "matches", "incomplete_matches"],
        lambda: checks.match_statuses(_con(the_store), load_state(the_store)),
    )
    return AssetCheckResult(passed=passed, metadata=meta)


@asset_check(asset="matches", description="no duplicate match ids in matches")
def unique_match_ids_check(store: StoreResource) -> AssetCheckResult:
    the_store = store.store()
    passed, meta = checks.memoized(
        the_store, "unique_match_ids", ["matches"], lambda: checks.unique_match_ids(_con(the_store))
    )
    return AssetCheckResult(passed=passed, metadata=meta)


@asset_check(
    asset="deals",
    description="card conservation: every fully known deal is two full decks "
    "(rules.md §1), every deal of a valid match has four hands",
)
def card_conservation_check(store: StoreResource) -> AssetCheckResult:
    the_store = store.store()
    passed, meta = checks.memoized(
        the_store,
        "card_conservation",
        ["deal_hands", "deals", "matches"],
        lambda: checks.card_conservation(_con(the_store)),
    )
    return AssetCheckResult(passed=passed, metadata=meta)


PIPELINE_ASSETS: list[AssetsDefinition] = [
    raw_events, replayed_tables, player_pattern_tables, player_review_table, roster, *SCORING_ASSETS,
    warehouse,
]
PIPELINE_CHECKS: list[AssetChecksDefinition] = [
    store_files_check,
    match_statuses_check,
    unique_match_ids_check,
    card_conservation_check,
]
