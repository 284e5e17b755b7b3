"""Benchmark of the downstream steps of a run adding deals to a store: wall and CPU
seconds of each step of ``pipelines.run.plan.DOWNSTREAM_STEPS``, incremental and whole.

Copies ``--store`` (a store a whole run left, e.g. ``bench_pipeline.py``'s), copies ``--added``
(simulated input, under its own name) into the copy's inbox and runs ingest and replay, then runs
the downstream steps one by one, timing each (wall; CPU of this process and its children). Each
mode runs in a process of its own (``--mode``; both by default), so both pay the imports. In
``whole`` mode the roster's parsed declarations (``state/roster_declarations``) and the scoring
digests (``scoring_partitions``) are deleted first, so the roster, ``match_scores`` and
``standings`` are computed from the whole store, as every run did before they were incremental.

Run: ``.venv/bin/python benchmarks/bench_downstream_steps.py --store DIR --added DIR [--work DIR]
[--mode incremental|whole]``.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

from pipelines.run.plan import DOWNSTREAM_STEPS, ingest, replay
from pipelines.storage.store import Store

MODES = ("incremental", "whole")


def cpu_seconds() -> float:
    """CPU seconds (user + system) of this process and its waited-for children."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def prepare(base: Path, added: Path, root: Path, mode: str) -> None:
    """A copy of ``base`` with ``added`` ingested and replayed; ``whole``: without the memos."""
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(base, root)
    shutil.copytree(added, root / "inbox" / f"added-{added.name}")
    ingest(Store(root))
    replay(Store(root), refresh=True)
    if mode == "whole":
        store = Store(root)
        shutil.rmtree(store.memory_path("roster_declarations"), ignore_errors=True)
        shutil.rmtree(store.table_path("scoring_partitions"), ignore_errors=True)


def timed_steps(root: Path) -> dict[str, tuple[float, float]]:
    """Wall and CPU seconds of each downstream step, run in turn on ``root``."""
    out = {}
    for step in DOWNSTREAM_STEPS:
        wall, cpu = time.perf_counter(), cpu_seconds()
        step.run(Store(root).pinned())
        out[step.name] = (time.perf_counter() - wall, cpu_seconds() - cpu)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", type=Path, required=True, help="a store a whole run left")
    parser.add_argument("--added", type=Path, required=True, help="simulated input to add")
    parser.add_argument("--work", type=Path, default=Path("/tmp/gdan-bench-downstream"), help="work folder")
    parser.add_argument("--mode", choices=MODES, help="one mode in this process (default: each in its own)")
    args = parser.parse_args()
    if args.mode is None:
        for mode in MODES:
            subprocess.run([sys.executable, __file__, *sys.argv[1:], "--mode", mode], check=True)
        return
    root = args.work / args.mode
    prepare(args.store, args.added, root, args.mode)
    figures = timed_steps(root)
    print(f"{args.mode}: step wall / CPU s")
    for name, (wall, cpu) in figures.items():
        print(f"  {name:<20}{wall:>7.2f} / {cpu:>6.2f}")
    wall, cpu = (sum(f[i] for f in figures.values()) for i in (0, 1))
    print(f"  {'total':<20}{wall:>7.2f} / {cpu:>6.2f}")


if __name__ == "__main__":
    main()
