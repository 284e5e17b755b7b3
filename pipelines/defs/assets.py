"""The pipeline's Dagster assets and asset checks for ``dagster dev``: a thin adapter over the run plan.

Each asset body is one call into a step of ``pipelines.run.plan`` (which ``gdan run`` calls
directly), its report turned into Dagster events (``pipelines.defs.asset_events``). The steps write
the store themselves, so no IO manager is involved. Asset keys of the replayed tables are the
table names, which the downstream assets depend on. When the replay step reports no outputs
(nothing new since the last complete run, ``plan.up_to_date``), the replay asset materializes
nothing and Dagster skips the downstream assets. (No ``from __future__ import annotations``:
Dagster checks the ``context`` annotation at runtime.)
"""

from collections.abc import Iterator

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

from pipelines.defs.asset_events import check_result, step_events
from pipelines.defs.resources import ExecutorResource, StoreResource
from pipelines.defs.scoring_assets import ASSETS as SCORING_ASSETS
from pipelines.run import plan
from pipelines.run.store_checks import INGEST_CHECKS, REPLAY_CHECKS, StoreCheck
from pipelines.steps.replaying import WRITTEN
from pipelines.storage.store import Store
from schemas.tables import (
    CHUNK_SUMMARIES,
    DERIVED,
    INCOMPLETE_MATCHES,
    PLAYER_REVIEWS,
    PLAYERS,
    RAW_EVENTS,
    REVIEWED,
    SUMMARIES,
    SUPERSEDED,
)

Events = Iterator[MaterializeResult | AssetCheckResult]


def _doc(schema_doc: bytes | None, fallback: str) -> str:
    return schema_doc.decode() if schema_doc else fallback


@asset(
    key="raw_events",
    group_name="ingest",
    description="Ingest new *.jsonl / *.jsonl.gz (and importable foreign) files from <store>/inbox: "
    "each file read once (content hash), every line kept as received. "
    + _doc((RAW_EVENTS.metadata or {}).get(b"doc"), ""),
)
def raw_events(store: StoreResource) -> Events:
    yield from step_events(plan.ingest(Store(store.root), workers=store.replay_workers))


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
) -> Events:
    """``plan.replay``: every complete, not yet replayed match into the derived tables, on the
    ``executor`` resource; nothing materialized (downstream skipped) when nothing is new."""
    report = plan.replay(Store(store.root), workers=store.replay_workers, executor=executor.executor(),
                         refresh=store.refresh)
    if not report.outputs:
        context.log.info("nothing new since the last complete run: downstream assets skipped")
    yield from step_events(report)


@multi_asset(
    specs=[
        AssetSpec(
            name,
            deps=["player_match_patterns", "player_match_leads"],
            group_name="replay",
            skippable=True,
            description=_doc((SUMMARIES[name].metadata or {}).get(b"doc"), name),
        )
        for name in plan.PATTERN_TABLES
    ],
    can_subset=False,
)
def player_pattern_tables(store: StoreResource) -> Events:
    """``plan.patterns``: per-player play-pattern and lead counts for the Player page."""
    yield from step_events(plan.patterns(store.store()))


@asset(
    key="player_reviews",
    deps=["play_reviews"],
    group_name="replay",
    description=_doc((PLAYER_REVIEWS.metadata or {}).get(b"doc"), "player_reviews"),
)
def player_review_table(store: StoreResource) -> Events:
    """``plan.player_reviews``: the per-player decision-review summary for the Player page."""
    yield from step_events(plan.player_reviews(store.store()))


@asset(
    key="players",
    deps=["raw_events", "matches"],
    group_name="replay",
    description=_doc((PLAYERS.metadata or {}).get(b"doc"), "players"),
)
def roster(store: StoreResource) -> Events:
    """``plan.roster``: the roster (player id → name, club) from ``match_start.players``."""
    yield from step_events(plan.roster(store.store()))


SCORING_KEYS: list[AssetKey] = [
    key for defn in SCORING_ASSETS if isinstance(defn, AssetsDefinition) for key in defn.keys
]
TABLE_KEYS: list[AssetKey] = [
    AssetKey("raw_events"),
    *(AssetKey(n) for n in (*DERIVED, *REVIEWED, *CHUNK_SUMMARIES, *SUMMARIES)),
    AssetKey("superseded"),
    *SCORING_KEYS,
]


@asset(deps=TABLE_KEYS, group_name="warehouse")
def warehouse(store: StoreResource) -> Events:
    """``plan.publish``: the run's snapshot published to readers; DuckDB views over it in warehouse.duckdb."""
    yield from step_events(plan.publish(store.store()))


def _asset_check(check: StoreCheck) -> AssetChecksDefinition:
    """The Dagster asset check of one of the plan's store checks."""

    @asset_check(asset=check.table, name=check.name, description=check.description)
    def run_check(store: StoreResource) -> AssetCheckResult:
        return check_result(check.run(store.store()))

    return run_check


PIPELINE_ASSETS: list[AssetsDefinition] = [
    raw_events, replayed_tables, player_pattern_tables, player_review_table, roster, *SCORING_ASSETS,
    warehouse,
]
PIPELINE_CHECKS: list[AssetChecksDefinition] = [_asset_check(c) for c in (*INGEST_CHECKS, *REPLAY_CHECKS)]
