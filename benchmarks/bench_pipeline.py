"""Benchmark of the pipeline: N deals end to end, peak memory, the CPU split, a
rerun with nothing new and a run adding ``--add`` deals.

Simulates about ``--deals`` deals (independent 10-deal matches, ``simulator.simulate_to_dir``;
``--input DIR`` reuses a folder simulated before, as this script or ``gdan simulate`` wrote it)
into a fresh store's inbox, then times a whole pipeline run (``run_pipeline``: ingest -> replay
in a process pool -> scoring -> warehouse) in a child process while sampling the memory of its
whole process tree (``/proc``: summed RSS and summed PSS, :class:`TreeMemory`, :class:`PeakMemory`),
then a second run with nothing new, then
(``--add N``) a run after N more simulated deals arrived, in matches that start after the
store's latest (a league going on). For each run it prints wall time, the
CPU seconds of the process tree (steadier than wall time on a shared machine) and their split
as the workers measured it (``pipelines.exec.cpu``): parse (ingest), ``replay_batch`` and the
endgame reviews; "replay's own" is parse + ``replay_batch``. ``--no-reviews`` runs without the
reviews (``gdan run --no-reviews``). The targets for 100k deals: pipeline CPU <= 2x the
replay's own, peak <= 1.5 GiB, rerun <= 3 s, the added run proportional to the new data.

Run: ``.venv/bin/python benchmarks/bench_pipeline.py [--deals 100000] [--dir /tmp/gdan-bench]
[--input DIR] [--no-reviews] [--add 1000]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

PAGE = os.sysconf("SC_PAGE_SIZE")
DEALS_PER_MATCH = 10


@dataclass(frozen=True)
class TreeMemory:
    """The memory of a process tree, two ways. ``rss``: resident bytes summed over its processes,
    which counts a page shared by forked processes (the forkserver's preloaded modules in each
    replay worker) once per process. ``pss``: proportional set sizes summed, each shared page
    split among its sharers: the tree's part of the machine's memory."""

    rss: int
    pss: int

    def max(self, other: TreeMemory) -> TreeMemory:
        """Each figure's larger value (the peaks of two samples)."""
        return TreeMemory(max(self.rss, other.rss), max(self.pss, other.pss))


def tree_memory(root_pid: int, *, pss: bool = True) -> TreeMemory:
    """:class:`TreeMemory` of ``root_pid`` and all its descendants (Linux ``/proc``); without
    ``pss`` only the RSS is read (``pss`` is then 0)."""
    rss = total_pss = 0
    for pid in _tree(root_pid):
        try:
            with open(f"/proc/{pid}/statm") as handle:
                rss += int(handle.read().split()[1]) * PAGE
            if pss:
                with open(f"/proc/{pid}/smaps_rollup") as handle:
                    total_pss += next(int(line.split()[1]) * 1024 for line in handle
                                      if line.startswith("Pss:"))
        except (OSError, IndexError, ValueError, StopIteration):
            continue
    return TreeMemory(rss, total_pss)


class PeakMemory:
    """The peak memory of a process tree since the last :meth:`reset`, sampled on a thread:
    summed RSS every ``RSS_EVERY_S``; summed PSS every ``PSS_EVERY_S``, and sooner whenever the
    RSS has grown by ``PSS_ON_GROWTH`` since the last PSS read (so a short run's peak is read too).

    PSS is read less often because reading it is not free: the kernel walks every page table
    of the tree for ``smaps_rollup``, and at 10 reads a second of a 1.3 GiB tree that walk took
    about a quarter of the pipeline process's CPU on this 2-core machine (perf, 2026-12-04),
    so it slowed the run it measured. A PSS peak that comes and goes between two reads without
    the RSS growing by that much first can be missed.
    """

    RSS_EVERY_S = 0.1
    PSS_EVERY_S = 2.0
    PSS_ON_GROWTH = 1.1

    def __init__(self, root_pid: int, *, clock: Callable[[], float] = time.monotonic) -> None:
        """Start sampling ``root_pid``'s tree; ``clock`` times the PSS schedule (a test stops it, so
        that only the RSS's growth triggers PSS reads)."""
        self.root_pid = root_pid
        self.clock = clock
        self.peak = TreeMemory(0, 0)
        self.samples = 0  # samples taken so far: a test waits for one taken after what it looks for
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()

    def _sample(self) -> None:
        pss_rss, pss_at = 0, float("-inf")
        while not self.stop.is_set():
            now = tree_memory(self.root_pid, pss=False)
            if now.rss > pss_rss * self.PSS_ON_GROWTH or self.clock() - pss_at >= self.PSS_EVERY_S:
                now = tree_memory(self.root_pid)
                pss_rss, pss_at = now.rss, self.clock()
            with self.lock:
                self.peak = self.peak.max(now)
                self.samples += 1
            self.stop.wait(self.RSS_EVERY_S)

    def reset(self) -> TreeMemory:
        """Start a new peak from the memory held now; return it."""
        now = tree_memory(self.root_pid)
        with self.lock:
            self.peak = now
        return now

    def close(self) -> TreeMemory:
        """Stop sampling; the peak, with one last full sample."""
        self.stop.set()
        self.thread.join()
        return self.peak.max(tree_memory(self.root_pid))


def _tree(root_pid: int) -> list[int]:
    """``root_pid`` and every process descended from it."""
    parent: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as handle:
                parent[int(entry.name)] = int(handle.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
    tree, todo = [], [root_pid]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(child for child, ppid in parent.items() if ppid == pid)
    return tree


CHILD = """
import json, pathlib, sys
from pipelines.exec.cpu import CPU_S
from pipelines.run.runner import run_pipeline
run_pipeline(sys.argv[1], workers=int(sys.argv[2]), reviews=sys.argv[3] == "1")
pathlib.Path(sys.argv[4]).write_text(json.dumps(CPU_S))
"""
"""The child process of a timed run: the pipeline, then its workers' CPU split as JSON in a file
(not on stdout: the pipeline's libraries may print there or leave without flushing it)."""


def timed_run(store: Path, workers: int, reviews: bool) -> tuple[float, TreeMemory, float, dict[str, float]]:
    """Wall seconds, peak tree memory, CPU seconds and the workers' CPU split of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    split_file = store.with_name("cpu-split.json")
    split_file.unlink(missing_ok=True)
    process = subprocess.Popen([sys.executable, "-c", CHILD, str(store), str(workers), str(int(reviews)),
                                str(split_file)], stdout=subprocess.DEVNULL)
    memory = PeakMemory(process.pid)
    process.wait()
    wall = time.perf_counter() - start
    peak = memory.close()
    if process.returncode:
        raise SystemExit(f"the pipeline run failed with exit code {process.returncode}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    split = json.loads(split_file.read_text()) if split_file.exists() else {}
    return wall, peak, cpu, split


def report(label: str, run: tuple[float, TreeMemory, float, dict[str, float]]) -> None:
    """One line per run: wall, CPU, peak, and the CPU split with the pipeline/replay ratio."""
    wall, peak, cpu, split = run
    parse, replay, reviews = (split.get(k, 0.0) for k in ("parse", "replay", "reviews"))
    own = parse + replay
    ratio = f"{cpu / own:5.2f}x" if own else "  n/a"
    rest = cpu - own - reviews
    print(f"{label:<10}: {wall:7.1f} s wall, {cpu:7.1f} CPU-s, peak RSS {peak.rss / 2**20:6.0f} MiB "
          f"(PSS {peak.pss / 2**20:6.0f}) | "
          f"parse {parse:6.1f} + replay_batch {replay:6.1f} = replay's own {own:6.1f} CPU-s "
          f"(pipeline {ratio}), reviews {reviews:7.1f}, the rest {rest:6.1f}")


def simulate(out: Path, deals: int, workers: int, seed: int, after: datetime | None = None) -> None:
    """About ``deals`` deals of independent 10-deal matches into ``out``, starting after ``after``."""
    from simulator import simulate_to_dir
    from simulator.api import MATCHES_START

    start = time.perf_counter()
    first = MATCHES_START if after is None else after + timedelta(hours=2)
    summary = simulate_to_dir(out, kind="matches", matches=max(1, deals // (DEALS_PER_MATCH - 1)),
                              players=64, format=f"deals:{DEALS_PER_MATCH}", seed=seed, workers=workers,
                              start=first)
    print(f"simulated {summary.matches} matches, {summary.deals} deals, {summary.events} events "
          f"in {time.perf_counter() - start:.0f} s")


def query(store: Path, sql: str) -> str:
    """The one value ``sql`` gives on the store (``gdan sql``, CSV)."""
    gdan = str(Path(sys.executable).with_name("gdan"))
    command = [gdan, "sql", sql, "--store", str(store), "--format", "csv"]
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout.splitlines()[1]


def last_start(store: Path) -> datetime:
    """When the store's latest match started: added matches start after it, as a league's next
    rounds do (so the ratings go on from the last run's instead of rating every round again)."""
    latest = query(store, "SELECT strftime(max(started_at), '%Y-%m-%dT%H:%M:%S+00:00') FROM matches")
    return datetime.fromisoformat(latest)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=100_000, help="deals to simulate (about)")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/gdan-bench-pipeline"), help="work folder")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="simulation/pipeline processes")
    parser.add_argument("--keep", action="store_true", help="reuse simulated input already in --dir")
    parser.add_argument("--input", type=Path, help="simulated input to use (not simulated again)")
    parser.add_argument("--no-reviews", dest="reviews", action="store_false",
                        help="run without the endgame reviews (gdan run --no-reviews)")
    parser.add_argument("--add", type=int, default=0, help="then time a run adding about N deals")
    args = parser.parse_args()

    inbox_copy = args.input or args.dir / "input"
    if args.input is None and not (args.keep and inbox_copy.exists()):
        shutil.rmtree(args.dir, ignore_errors=True)
        simulate(inbox_copy, args.deals, args.workers, seed=7)
    store = args.dir / "store"
    shutil.rmtree(store, ignore_errors=True)
    shutil.copytree(inbox_copy, store / "inbox", copy_function=os.link)
    size = sum(p.stat().st_size for p in (store / "inbox").rglob("*") if p.is_file())
    print(f"input: {size / 2**20:.0f} MiB")

    report("first run", timed_run(store, args.workers, args.reviews))
    report("rerun", timed_run(store, args.workers, args.reviews))
    if args.add:
        added = args.dir / "added"
        shutil.rmtree(added, ignore_errors=True)
        simulate(added, args.add, args.workers, seed=8, after=last_start(store))
        shutil.copytree(added, store / "inbox" / "added")
        report(f"+{args.add} deals", timed_run(store, args.workers, args.reviews))
    print(f"deals in store: {query(store, 'SELECT count(*) FROM deals')}")


if __name__ == "__main__":
    main()
