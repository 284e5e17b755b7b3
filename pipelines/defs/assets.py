"""The pipeline's Dagster assets for ``dagster dev``: the run plan's steps, made by one factory.

Each asset body is one call into a step of ``pipelines.run.plan`` (which ``gdan run`` calls
directly), its report turned into Dagster events (``pipelines.defs.asset_events``). The steps write
the store themselves, so no IO manager is involved. Asset keys are the table names; every step
after the replay becomes a multi-asset by :func:`step_asset`, its dependencies the tables the
step declares it reads (``pipelines.steps.step_reports.Step``), so the graph is written once.
When the replay step reports no outputs (nothing new since the last complete run,
``plan.up_to_date``), the replay asset materializes nothing and Dagster skips the downstream
assets. (No ``from __future__ import annotations``:
Dagster reads the ``context`` and ``config`` annotations at runtime.)
"""

import inspect
from collections.abc import Iterator

from dagster import (
    AssetCheckResult,
    AssetCheckSpec,
    AssetExecutionContext,
    AssetsDefinition,
    AssetSpec,
    Config,
    MaterializeResult,
    asset,
    multi_asset,
)
from pydantic import Field

from pipelines.defs.asset_events import step_events
from pipelines.defs.resources import ExecutorResource, StoreResource
from pipelines.run import plan
from pipelines.steps.replaying import WRITTEN
from pipelines.steps.scoring_steps import Overrides
from pipelines.steps.step_reports import Step
from schemas.catalog import ALL_TABLES
from schemas.tables import (
    INCOMPLETE_MATCHES,
    RAW_EVENTS,
    SUPERSEDED,
)
from scoring.params import load_event_overrides

Events = Iterator[MaterializeResult | AssetCheckResult]


def _doc(schema_doc: bytes | None, fallback: str) -> str:
    return schema_doc.decode() if schema_doc else fallback


class ScoringConfig(Config):
    """Run configuration of the steps that take per-event scoring parameters."""

    overrides_file: str = Field(default="", description="per-event scoring parameters (.toml/.json), "
                                "see scoring.params.load_event_overrides; empty: none")

    def overrides(self) -> Overrides | None:
        """The per-event parameters of ``overrides_file``; None when it is empty."""
        return load_event_overrides(self.overrides_file) if self.overrides_file else None


@asset(
    key="raw_events",
    group_name="ingest",
    description="Ingest new *.jsonl / *.jsonl.gz (and importable foreign) files from <store>/inbox: "
    "each file read once (content hash), every line kept as received. "
    + _doc((RAW_EVENTS.metadata or {}).get(b"doc"), ""),
)
def raw_events(store: StoreResource) -> Events:
    yield from step_events(plan.ingest(store.plain_store(), workers=store.replay_workers))


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
    report = plan.replay(store.plain_store(), workers=store.replay_workers, executor=executor.executor(),
                         refresh=store.refresh)
    if not report.outputs:
        context.log.info("nothing new since the last complete run: downstream assets skipped")
    yield from step_events(report)


def _takes_overrides(step: Step) -> bool:
    return "overrides" in inspect.signature(step.run).parameters


PRIVATE: frozenset[str] = frozenset(t for step in plan.DOWNSTREAM_STEPS for t in step.keeps)
"""Tables a step keeps for itself (not assets: no other step reads them)."""


def step_asset(step: Step) -> AssetsDefinition:
    """The multi-asset of a declared step: one asset per table it writes, depending on the tables
    it reads, with the checks its report carries; its body runs the step on a pinned store."""
    specs = [
        AssetSpec(
            table,
            deps=[t for t in step.reads if t not in step.writes and t not in PRIVATE],
            group_name=step.group,
            skippable=True,
            description=_doc((ALL_TABLES[table].metadata or {}).get(b"doc") if table in ALL_TABLES else None,
                             inspect.getdoc(step.run) or table),
        )
        for table in step.writes
    ]
    checks = [AssetCheckSpec(name, asset=table) for name, table in step.checks]
    if _takes_overrides(step):

        @multi_asset(name=step.name, specs=specs, check_specs=checks, can_subset=False)
        def configured(config: ScoringConfig, store: StoreResource) -> Events:
            yield from step_events(step.run(store.store(), config.overrides()))

        return configured

    @multi_asset(name=step.name, specs=specs, check_specs=checks, can_subset=False)
    def plain(store: StoreResource) -> Events:
        yield from step_events(step.run(store.store()))

    return plain


PIPELINE_ASSETS: list[AssetsDefinition] = [
    raw_events, replayed_tables, *(step_asset(step) for step in plan.DOWNSTREAM_STEPS),
]
