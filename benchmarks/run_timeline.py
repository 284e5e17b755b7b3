"""A pipeline run that prints when each phase and each step after the replay starts and ends, in
which thread: the schedule of the steps two at a time (``pipelines.run.lanes``), and which chain
of steps the run waits for.

Times are seconds since this script started (its imports included). Put new files in the
store's inbox first (say, ``bench_pipeline.py``'s ``--add`` input); the store is changed as a
run would change it.

Run: ``.venv/bin/python benchmarks/run_timeline.py STORE [--workers 2] [--reviews]``.
"""

from __future__ import annotations

import time

STARTED = time.perf_counter()

import argparse  # noqa: E402  (after the clock starts: the imports are part of the run)
import os  # noqa: E402
import threading  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from pipelines.run import plan  # noqa: E402
from pipelines.run.runner import run_pipeline  # noqa: E402
from pipelines.steps.step_reports import Step, StepReport  # noqa: E402


def stamp(what: str) -> None:
    """One line: seconds since the start, the thread, what happened."""
    print(f"{time.perf_counter() - STARTED:7.2f}  {threading.current_thread().name:<22} {what}", flush=True)


def timed(name: str, run: Callable[..., Any]) -> Callable[..., Any]:
    """``run``, stamping its start and end as ``name``."""

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        stamp(f"start {name}")
        out = run(*args, **kwargs)
        stamp(f"end   {name}")
        return out

    return wrapped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store", type=Path, help="the store to run on")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="worker processes")
    parser.add_argument("--reviews", action="store_true", help="replay with the endgame reviews")
    args = parser.parse_args()
    stamp("imported")
    real_step = plan._run_step

    def run_step(step: Step, root: Path) -> StepReport:
        report: StepReport = timed(step.name, real_step)(step, root)
        return report

    plan._run_step = run_step
    plan.ingest = timed("ingest", plan.ingest)
    plan.replay = timed("replay", plan.replay)
    run_pipeline(args.store, workers=args.workers, reviews=args.reviews)
    stamp("done")


if __name__ == "__main__":
    main()
