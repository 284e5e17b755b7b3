"""The store's folders and files: the one place that spells the layout on disk.

Layout (see README "Store layout")::

    <root>/inbox/                  files waiting to be ingested (kept after ingest)
    <root>/tables/<name>/          one Delta table per table of ``schemas.ALL_TABLES`` (_delta_log/, Parquet)
    <root>/tables/raw_events/batch=<id>/bucket=<n>/   raw events, partitioned by batch and hash bucket
    <root>/staging/<id>/<name>/    an append batch being written (invisible to readers)
    <root>/state/commits/          the commit log (a Delta table): one row per committed step or run
    <root>/state/<memory>/         the pipeline's memory (``pipelines.steps.state``, ``pipelines.run.checks``)
    <root>/state/.lock             the writer lock
    <root>/state/warehouse.json    what the last warehouse build ran, and the catalog it produced
    <root>/.warehouse-<pid>.duckdb the warehouse file being rebuilt (removed by recovery)
    <root>/annotations/            coaches' notes and tags on deals (``pipelines.reads.annotations``)
"""

from __future__ import annotations

import os
from pathlib import Path

from pipelines.storage.delta import StoreLayoutError, schema_of, table_uri

WAREHOUSE_TMP = ".warehouse-"
OLD_LAYOUT_MEMORY = "state.json"
"""The memory file of the layout before Delta Lake (found in ``state/``: :class:`StoreLayoutError`)."""
LOCK_FILE = ".lock"
"""The writer lock's file, in ``state/``."""


class StoreLayout:
    """Where everything of the store at ``root`` lives."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root).absolute()

    @property
    def inbox(self) -> Path:
        """Where ``gdan ingest`` copies files and the ingest asset looks for new ones."""
        return self.root / "inbox"

    @property
    def annotations_dir(self) -> Path:
        """Coaches' notes and tags on deals (``pipelines.reads.annotations``): JSON Lines beside the logs,
        never part of them."""
        return self.root / "annotations"

    @property
    def tables_dir(self) -> Path:
        return self.root / "tables"

    @property
    def state_dir(self) -> Path:
        return self.root / "state"

    @property
    def staging_dir(self) -> Path:
        return self.root / "staging"

    @property
    def warehouse_file(self) -> Path:
        """The DuckDB file of views for ``dagster``/SQL users (written only by the warehouse asset)."""
        return self.root / "warehouse.duckdb"

    @property
    def warehouse_record(self) -> Path:
        """What the last warehouse build ran and the catalog it produced (``pipelines.storage.warehouse``)."""
        return self.state_dir / "warehouse.json"

    def warehouse_tmp(self) -> Path:
        """Where this process builds the next warehouse file before renaming it into place."""
        return self.root / f"{WAREHOUSE_TMP}{os.getpid()}.duckdb"

    @property
    def lock_file(self) -> Path:
        """The file the writer lock is taken on."""
        return self.state_dir / LOCK_FILE

    def table_path(self, name: str) -> Path:
        """The Delta table folder of table ``name``."""
        schema_of(name)
        return self.tables_dir / name

    def check_table_path(self) -> None:
        """Raise :class:`StorePathError` when delta-rs could not open tables under this store, and
        :class:`StoreLayoutError` when the store has the layout before Delta Lake."""
        table_uri(self.tables_dir)
        if (self.state_dir / OLD_LAYOUT_MEMORY).exists():
            raise StoreLayoutError(
                f"store {self.root} was written before the Delta Lake layout ({self.state_dir.name}/"
                f"{OLD_LAYOUT_MEMORY}): rebuild it from its events, e.g. gdan run --create --store NEW "
                f"after copying {self.inbox} to NEW/inbox"
            )

    def memory_path(self, name: str) -> Path:
        """The Delta table folder of the pipeline's memory table ``name`` (``pipelines.steps.state``)."""
        return self.state_dir / name
