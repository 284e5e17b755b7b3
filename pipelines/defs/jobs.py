"""The Dagster jobs: the whole pipeline (every asset and check, as ``gdan run``; not the opt-in
single-dummy review, ``pipelines.defs.single_dummy``), and the store's maintenance (``gdan maintain``)."""

from dagster import AssetSelection, Config, OpExecutionContext, define_asset_job, job, op

from pipelines.defs.resources import StoreResource
from pipelines.defs.single_dummy import GROUP as SINGLE_DUMMY_GROUP

pipeline_job = define_asset_job(
    "pipeline",
    selection=AssetSelection.all() - AssetSelection.groups(SINGLE_DUMMY_GROUP),
    description="ingest -> replay -> scoring -> warehouse (not the opt-in single-dummy review)",
)


class MaintainConfig(Config):
    """``gdan maintain --retention-days``."""

    retention_days: float = 7


@op
def maintain_store(context: OpExecutionContext, config: MaintainConfig, store: StoreResource) -> None:
    """Compact small files and vacuum files unreferenced for ``retention_days`` (``Store.maintain``)."""
    report = store.plain_store().maintain(config.retention_days)
    context.log.info(f"maintained {store.root}: {report}")


@job(description="gdan maintain: compact and vacuum the store's tables")
def maintain_job() -> None:
    maintain_store()
