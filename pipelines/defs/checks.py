"""The run plan's store checks as Dagster asset checks (the steps' own checks are declared on
their assets by ``pipelines.defs.assets.step_asset``)."""

from dagster import AssetCheckResult, AssetChecksDefinition, asset_check

from pipelines.defs.asset_events import check_result
from pipelines.defs.resources import StoreResource
from pipelines.run.store_checks import INGEST_CHECKS, REPLAY_CHECKS, StoreCheck


def store_asset_check(check: StoreCheck) -> AssetChecksDefinition:
    """The Dagster asset check of one of the plan's store checks."""

    @asset_check(asset=check.table, name=check.name, description=check.description)
    def run_check(store: StoreResource) -> AssetCheckResult:
        return check_result(check.run(store.store()))

    return run_check


PIPELINE_CHECKS: list[AssetChecksDefinition] = [
    store_asset_check(c) for c in (*INGEST_CHECKS, *REPLAY_CHECKS)
]
