"""Run the whole pipeline in-process (``gdan run``, ``gdan demo``, tests): the run plan, no Dagster.

The steps are called directly (``pipelines.run.plan``), so a run pays no Dagster instance start-up
or event bookkeeping, Ctrl-C and SIGTERM reach the steps as plain Python exceptions, and the
stages report progress through ``pipelines.exec.progress``. ``dagster dev`` shows the same steps as
assets (``pipelines.definitions``).
"""

from __future__ import annotations

import logging
from pathlib import Path

from pipelines.exec.executor import Executor
from pipelines.run.plan import run_plan
from pipelines.steps.step_reports import RunReport

log = logging.getLogger(__name__)


class PipelineFailedError(RuntimeError):
    """A check did not pass (a step that raises raises its own error)."""


def run_pipeline(
    root: str | Path,
    *,
    workers: int = 0,
    refresh: bool = False,
    executor: Executor | None = None,
    log_level: str = "WARNING",
    reviews: bool = True,
) -> RunReport:
    """Run every step and every check over the store at ``root``; returns the run's report.

    The replay's batches of whole matches run on ``executor`` (default: the local process pool).
    Downstream steps are skipped when nothing new was committed since the last complete run,
    unless ``refresh``. Without ``reviews`` the matches this run replays get no ``play_reviews``
    rows (``replay_step``). ``log_level`` is the level of this module's log of the steps run
    and skipped.

    Raises :class:`PipelineFailedError` naming the failed checks when a check does not pass.
    """
    log.setLevel(log_level)
    report = run_plan(root, workers=workers, refresh=refresh, executor=executor, reviews=reviews)
    log.info("steps run: %s; skipped: %s", [s.name for s in report.steps], report.skipped)
    if report.failed:
        raise PipelineFailedError("asset checks failed: " + "; ".join(c.describe() for c in report.failed))
    return report
