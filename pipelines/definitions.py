"""The Dagster code location: ``dagster dev -m pipelines.definitions`` (or ``dagster dev`` here).

Resources come from the environment: the store is ``$GDAN_STORE`` or ``./data``.
"""

from __future__ import annotations

from dagster import AssetSelection, Definitions, define_asset_job

from pipelines.assets import PIPELINE_ASSETS, PIPELINE_CHECKS
from pipelines.resources import ExecutorResource, StoreResource

pipeline_job = define_asset_job(
    "pipeline", selection=AssetSelection.all(), description="ingest -> replay -> scoring -> warehouse"
)

defs = Definitions(
    assets=PIPELINE_ASSETS,
    asset_checks=PIPELINE_CHECKS,
    jobs=[pipeline_job],
    resources={"store": StoreResource(), "executor": ExecutorResource()},
)
