"""The Dagster resources: the store every asset reaches, and the executor the replay runs on."""

from __future__ import annotations

from typing import Literal

from dagster import ConfigurableResource
from pydantic import Field

from pipelines.exec.executor import Executor, ExecutorKind
from pipelines.storage.object_store import remote_root
from pipelines.storage.store import Store
from pipelines.storage.warehouse import store_path


def default_root() -> str:
    """``$GDAN_STORE`` when set, else ``./data`` (resolved when the resource is built)."""
    return str(store_path())


class StoreResource(ConfigurableResource):
    """The store folder the assets read and write; ``root`` defaults to ``$GDAN_STORE`` or ``./data``."""

    root: str = Field(default_factory=default_root, description="store folder (inbox, tables, state)")
    replay_workers: int = Field(default=0, description="parsing and replay processes; 0 = one per CPU core")
    refresh: bool = Field(default=False, description="recompute the downstream assets (scoring, warehouse) "
                          "even when no new batch was committed since the last complete run")

    def store(self) -> Store:
        """The :class:`~pipelines.storage.store.Store` over ``root``, pinned to the batches committed now.

        An asset that calls this first reads every append table as of that moment and records
        those batches as the inputs of each table it writes (``Store.inputs``), so a batch
        another writer commits meanwhile counts as not yet read.
        """
        return self.plain_store().pinned()

    def plain_store(self) -> Store:
        """The store over ``root``, not pinned (maintenance, the inbox). An ``s3://`` root is refused:
        the assets write the store in place, which only a folder allows (docs/deployment.md)."""
        root = remote_root(self.root)
        if root is not None:
            raise ValueError(
                f"{root}: the Dagster code location needs a store folder; a store on object storage is "
                "run with `gdan run --store s3://…` (docs/deployment.md)"
            )
        return Store(self.root)


class ExecutorResource(ConfigurableResource):
    """Where the replay's batches of whole matches run: ``gdan run --executor`` as a resource."""

    kind: Literal["pool", "dask"] = Field(
        default="pool", description="pool: worker processes here; dask: a Dask distributed cluster"
    )
    address: str = Field(
        default="", description="Dask scheduler address (tcp://host:8786); empty: a local cluster "
        "of replay_workers processes, started for the run"
    )

    def executor(self) -> Executor:
        """The :class:`~pipelines.exec.executor.Executor` this resource configures."""
        return Executor(ExecutorKind(self.kind), self.address or None)
