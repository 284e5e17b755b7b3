"""The Dagster jobs: the whole pipeline (every asset and check, as ``gdan run``), and the store's
maintenance (``gdan maintain``)."""

from dagster import AssetSelection, Config, OpExecutionContext, define_asset_job, job, op

from pipelines.defs.resources import StoreResource

pipeline_job = define_asset_job(
    "pipeline", selection=AssetSelection.all(), description="ingest -> replay -> scoring -> warehouse"
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
