"""Run the whole pipeline in-process (``gdan run``, ``gdan demo``, tests): Dagster ``materialize``.

Uses an ephemeral Dagster instance (no run history on disk) and quiet Dagster logging; the
stages report progress through ``pipelines.progress``.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from dagster import DagsterInstance, ExecuteInProcessResult, materialize

from pipelines.assets import PIPELINE_ASSETS, PIPELINE_CHECKS
from pipelines.pool import Executor
from pipelines.resources import ExecutorResource, StoreResource
from pipelines.steps import ingest_step, replay_step
from pipelines.store import Store


class PipelineFailedError(RuntimeError):
    """A step raised or an asset check failed."""


@contextmanager
def _sigterm_kept() -> Iterator[None]:
    """Give SIGTERM back the disposition it had before Dagster ran.

    Dagster's interrupt handling (``dagster._utils.interrupts``) sets SIGTERM to whatever SIGINT
    has when it leaves, so in a process that ignores SIGINT (a background job, ``nohup``) SIGTERM
    stays ignored after a run: the process, and every worker it spawns later, could no longer
    be stopped with ``kill``.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.getsignal(signal.SIGTERM)
    try:
        yield
    finally:
        if before is not None:
            signal.signal(signal.SIGTERM, before)


def run_pipeline(
    root: str | Path,
    *,
    workers: int = 0,
    refresh: bool = False,
    executor: Executor | None = None,
    log_level: str = "WARNING",
    reviews: bool = True,
) -> ExecuteInProcessResult:
    """Materialize every asset and run every asset check over the store at ``root``.

    The replay's batches of whole matches run on ``executor`` (default: the local process pool).

    Downstream assets are skipped when nothing new was committed since the last complete run,
    unless ``refresh``. Without ``reviews`` the matches this run replays get no ``play_reviews``
    rows (``replay_step``): ingest and replay run first, so the assets find them done.

    Raises :class:`PipelineFailedError` naming the failed checks when a check does not pass.
    """
    on = executor or Executor()
    with _sigterm_kept():
        if not reviews:
            ingest_step(Store(root), workers=workers or None)
            replay_step(Store(root), workers=workers or None, executor=on, reviews=False)
        result = materialize(
            [*PIPELINE_ASSETS, *PIPELINE_CHECKS],
            resources={
                "store": StoreResource(
                    root=str(Path(root).absolute()), replay_workers=workers, refresh=refresh
                ),
                "executor": ExecutorResource(kind=on.kind.value, address=on.address or ""),
            },
            instance=DagsterInstance.ephemeral(),
            run_config={"loggers": {"console": {"config": {"log_level": log_level}}}},
        )
    failed = [
        f"{e.asset_check_key.asset_key.to_user_string()}:{e.asset_check_key.name} {e.metadata}"
        for e in result.get_asset_check_evaluations()
        if not e.passed
    ]
    if failed:
        raise PipelineFailedError("asset checks failed: " + "; ".join(failed))
    return result
