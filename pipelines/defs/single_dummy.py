"""The opt-in single-dummy review as a Dagster asset and job, outside the default pipeline.

``single_dummy_reviews`` reviews the store's valid matches not reviewed yet from each player's
view (``pipelines.steps.single_dummy``), within a budget of seconds, logging progress per match.
It is in its own group, left out of the ``pipeline`` job (``pipelines.defs.jobs``), so a default
run never pays for it; the ``single_dummy`` job (or materializing the asset) starts it. (No
``from __future__ import annotations``: Dagster reads the ``context`` and ``config`` annotations
at runtime.)
"""

from dagster import AssetExecutionContext, AssetSelection, Config, MaterializeResult, asset, define_asset_job
from pydantic import Field

from pipelines.defs.resources import StoreResource
from pipelines.steps.single_dummy import write_single_dummy_reviews
from replay.single_dummy import Settings
from schemas.tables import SINGLE_DUMMY_REVIEWS

GROUP = "single_dummy"
"""The asset group the default ``pipeline`` job leaves out."""


class SingleDummyConfig(Config):
    """How much the job does: layouts per decision, candidates, seed and the budget."""

    layouts: int = Field(default=32, description="layouts of the unseen cards sampled per decision")
    candidates: int = Field(default=6, description="action classes valued per decision at most")
    seed: int = Field(default=0, description="seed of the layouts and rollouts")
    seconds: float = Field(default=3600.0, description="start no new match after this many seconds")


@asset(
    key="single_dummy_reviews",
    deps=["raw_events", "matches"],
    group_name=GROUP,
    description=(SINGLE_DUMMY_REVIEWS.metadata or {}).get(b"doc", b"").decode(),
)
def single_dummy_reviews(
    context: AssetExecutionContext, config: SingleDummyConfig, store: StoreResource
) -> MaterializeResult:
    settings = Settings(layouts=config.layouts, seed=config.seed, max_candidates=config.candidates)

    def progress(done: int, total: int) -> None:
        context.log.info(f"single-dummy review: {done} of {total} matches")

    report = write_single_dummy_reviews(store.store(), settings, seconds=config.seconds, on_match=progress)
    for failure in report.failed or ():
        context.log.warning(f"cannot review {failure}")
    return MaterializeResult(
        metadata={"deals": report.deals, "matches_left": report.skipped, "failed": len(report.failed or ())}
    )


single_dummy_job = define_asset_job(
    "single_dummy",
    selection=AssetSelection.groups(GROUP),
    description="opt-in: single-dummy review of the matches not reviewed yet (slow; budgeted)",
)
