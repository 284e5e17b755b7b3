"""Benchmark of the replay executors: the local process pool vs Dask distributed.

Simulates about ``--deals`` deals (independent 10-deal matches) into an inbox and ingests it
once into a store. Each trial copies that ingested store and times the replay step alone
(``pipelines.steps.transactions.replay_step``: read the ready matches, replay and review them in batches of
whole matches, write the batch) on one executor:

- ``pool``: the local process pool of ``--workers`` processes (the default of ``gdan run``);
- ``dask-own``: ``--executor dask`` without an address: a Dask LocalCluster of ``--workers``
  worker processes × 1 thread, started and closed inside the step (start-up included);
- ``dask-running``: the same LocalCluster started beforehand, passed by address: the steady
  state of a cluster that outlives the run.

Trials alternate the executors so the machine's load drifts over all of them alike. Prints the
wall seconds and deals/s of every trial and the median of each executor against the pool's
(target: within 20 %). Run under ``nice`` on a shared machine:
``nice .venv/bin/python benchmarks/bench_executor.py [--deals 10000] [--trials 3]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from pipelines.exec.executor import Executor, ExecutorKind

DEALS_PER_MATCH = 10


def prepare(work: Path, deals: int, workers: int, keep: bool) -> tuple[Path, int]:
    """An ingested store of about ``deals`` simulated deals (reused with ``keep``), and its deals."""
    from pipelines.steps.transactions import ingest_step
    from pipelines.storage.store import Store
    from simulator import simulate_to_dir

    base = work / "ingested"
    marker = work / "deals.txt"
    if keep and marker.exists():
        return base, int(marker.read_text())
    shutil.rmtree(work, ignore_errors=True)
    matches = max(1, deals // (DEALS_PER_MATCH - 1))
    summary = simulate_to_dir(base / "inbox", kind="matches", matches=matches, players=64,
                              format=f"deals:{DEALS_PER_MATCH}", seed=7, workers=workers)
    ingest_step(Store(base), workers=workers)
    marker.write_text(str(summary.deals))
    print(f"simulated and ingested {summary.matches} matches, {summary.deals} deals, "
          f"{summary.events} events")
    return base, summary.deals


def timed_replay(base: Path, trial: Path, workers: int, executor: Executor) -> float:
    """Wall seconds of the replay step over a fresh copy of ``base`` at ``trial``."""
    from pipelines.steps.transactions import replay_step
    from pipelines.storage.store import Store

    shutil.rmtree(trial, ignore_errors=True)
    shutil.copytree(base, trial, symlinks=True)
    start = time.perf_counter()
    report = replay_step(Store(trial), workers=workers, executor=executor)
    wall = time.perf_counter() - start
    assert report.matches, "nothing was replayed: the copy was not an ingested store"
    shutil.rmtree(trial)
    return wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=10_000, help="deals to simulate (about)")
    parser.add_argument("--trials", type=int, default=3, help="trials per executor")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="pool processes = Dask worker processes (1 thread each)")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/gdan-bench-executor"), help="work folder")
    parser.add_argument("--keep", action="store_true", help="reuse the ingested store already in --dir")
    args = parser.parse_args()

    import logging

    from distributed import LocalCluster

    base, deals = prepare(args.dir, args.deals, args.workers, args.keep)
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                      dashboard_address=None, silence_logs=logging.ERROR) as cluster:
        executors: dict[str, Callable[[], Executor]] = {
            "pool": Executor,
            "dask-own": lambda: Executor(ExecutorKind.DASK),
            "dask-running": lambda: Executor(ExecutorKind.DASK, cluster.scheduler_address),
        }
        walls: dict[str, list[float]] = {name: [] for name in executors}
        for trial in range(args.trials):
            for name, make in executors.items():
                wall = timed_replay(base, args.dir / "trial", args.workers, make())
                walls[name].append(wall)
                print(f"trial {trial + 1} {name:<13} {wall:7.1f} s  {deals / wall:7.0f} deals/s", flush=True)
    pool = statistics.median(walls["pool"])
    print(f"\n{deals} deals, {args.workers} workers x 1 thread, median of {args.trials} trials:")
    for name, times in walls.items():
        median = statistics.median(times)
        print(f"{name:<13} {median:7.1f} s  {deals / median:7.0f} deals/s  "
              f"throughput {pool / median:6.1%} of the pool's")


if __name__ == "__main__":
    main()
