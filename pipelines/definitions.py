"""The Dagster code location: ``dagster dev -m pipelines.definitions`` (or ``dagster dev`` here).

A UI over the run plan (``pipelines.run.plan``): every step is an asset (or multi-asset) whose body
calls the step, every store check an asset check, so the graph shows what ``gdan run`` does and
the ``pipeline`` job runs the same code. ``gdan run`` does not go through Dagster.
Resources come from the environment: the store is ``$GDAN_STORE`` or ``./data``.
"""

from __future__ import annotations

from dagster import AssetSelection, Definitions, define_asset_job

from pipelines.defs.assets import PIPELINE_ASSETS, PIPELINE_CHECKS
from pipelines.defs.resources import ExecutorResource, StoreResource

pipeline_job = define_asset_job(
    "pipeline", selection=AssetSelection.all(), description="ingest -> replay -> scoring -> warehouse"
)

defs = Definitions(
    assets=PIPELINE_ASSETS,
    asset_checks=PIPELINE_CHECKS,
    jobs=[pipeline_job],
    resources={"store": StoreResource(), "executor": ExecutorResource()},
)
