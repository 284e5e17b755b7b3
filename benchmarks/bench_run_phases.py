"""Benchmark of one pipeline run phase by phase: wall, CPU and peak memory of ingest,
the replay, each downstream step and each check, on a store as it is.

Runs what ``pipelines.run.plan.run_plan`` runs, in the same order, handing freed memory back after
each phase as it does, timing each phase: wall seconds, CPU seconds of this process and its
waited-for children, and the peak memory of this process tree during the phase (summed RSS, and
summed PSS, which counts a page the forked workers share once; ``/proc``, sampled by
:class:`bench_pipeline.PeakMemory`; a phase starts from what the earlier ones left resident,
printed as ``start``, and ``end`` is what it leaves after the release). Put new files in the
store's inbox first (say, ``bench_pipeline.py``'s ``--add`` input) to time a run adding them;
with nothing new only ingest, the replay's up-to-date test and the ingest checks run. The store
is changed as a run would change it.

``--profile DIR`` also writes each phase's ``cProfile`` statistics of this process (not of the
replay's workers) to ``DIR/<phase>.prof`` (read them with ``python -m pstats``); the profiler
slows the phases, so time a run without it.

Run: ``.venv/bin/python benchmarks/bench_run_phases.py STORE [--workers 2] [--no-reviews]
[--profile DIR]``.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from bench_downstream_steps import cpu_seconds
from bench_pipeline import PeakMemory, tree_memory

from pipelines import release_freed_memory
from pipelines.run.plan import DOWNSTREAM_STEPS, ingest, replay
from pipelines.run.store_checks import INGEST_CHECKS, REPLAY_CHECKS
from pipelines.storage.store import Store

T = TypeVar("T")


def timed(name: str, memory: PeakMemory, phase: Callable[[], T], profile: Path | None = None) -> T:
    """Run ``phase`` and print its wall and CPU seconds and the peak memory while it ran; with
    ``profile``, a folder, write its ``cProfile`` statistics to ``<profile>/<name>.prof``."""
    start = memory.reset()
    profiler = cProfile.Profile() if profile else None
    wall, cpu = time.perf_counter(), cpu_seconds()
    out = profiler.runcall(phase) if profiler else phase()
    release_freed_memory()
    seconds, cpu_s = time.perf_counter() - wall, cpu_seconds() - cpu
    if profiler and profile:
        profile.mkdir(parents=True, exist_ok=True)
        profiler.dump_stats(profile / f"{name.replace(' ', '_')}.prof")
    time.sleep(PeakMemory.RSS_EVERY_S)
    end, peak = tree_memory(os.getpid()), memory.peak
    print(f"{name:<30} {seconds:7.2f} s {cpu_s:7.2f} CPU-s  RSS start {start.rss / 2**20:6.0f}  "
          f"peak {peak.rss / 2**20:6.0f}  end {end.rss / 2**20:6.0f} MiB  "
          f"PSS peak {peak.pss / 2**20:6.0f} MiB", flush=True)
    return out


def on_pinned_store(root: Path, run: Callable[[Store], T]) -> Callable[[], T]:
    """``run`` of a store at ``root`` pinned when the phase starts, as ``run_plan`` opens it."""
    return lambda: run(Store(root).pinned())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store", type=Path, help="the store to run on")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="pipeline processes")
    parser.add_argument("--no-reviews", dest="reviews", action="store_false",
                        help="replay without the endgame reviews (gdan run --no-reviews)")
    parser.add_argument("--profile", type=Path, help="write each phase's cProfile statistics here")
    args = parser.parse_args()
    root = args.store.absolute()
    memory = PeakMemory(os.getpid())
    start, cpu = time.perf_counter(), cpu_seconds()
    timed("ingest", memory, lambda: ingest(Store(root), workers=args.workers), args.profile)
    replayed = timed("replay", memory,
                     lambda: replay(Store(root), workers=args.workers, reviews=args.reviews), args.profile)
    for step in DOWNSTREAM_STEPS if replayed.outputs else ():
        timed(step.name, memory, on_pinned_store(root, step.run), args.profile)
    for check in [*INGEST_CHECKS, *(REPLAY_CHECKS if replayed.outputs else ())]:
        timed(f"check {check.name}", memory, on_pinned_store(root, check.run), args.profile)
    print(f"{'total':<30} {time.perf_counter() - start:7.2f} s {cpu_seconds() - cpu:7.2f} CPU-s")


if __name__ == "__main__":
    main()
