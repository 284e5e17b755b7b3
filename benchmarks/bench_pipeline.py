"""Benchmark of the pipeline (issue 5): N deals end to end, peak memory, and a rerun with nothing new.

Simulates about ``--deals`` deals (independent 10-deal matches, ``simulator.simulate_to_dir``)
into a fresh store's inbox, then times ``gdan run`` (ingest -> replay in a process pool ->
scoring -> warehouse) as a subprocess while sampling the resident memory of its whole process
tree (``/proc``) every 0.2 s, then times a second ``gdan run`` with nothing new. Targets:
100,000 deals in <= 10 min on 2 cores, peak memory <= 2 GiB, rerun <= 10 s. Also prints the
CPU seconds of the run (process tree), which is steadier than wall time on a shared machine.

Run: ``.venv/bin/python benchmarks/bench_pipeline.py [--deals 100000] [--dir /tmp/gdan-bench]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

PAGE = os.sysconf("SC_PAGE_SIZE")
DEALS_PER_MATCH = 10


def tree_rss(root_pid: int) -> int:
    """Resident bytes of ``root_pid`` and all its descendants (Linux ``/proc``)."""
    parent: dict[int, int] = {}
    rss: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry.name}/statm") as handle:
                resident = int(handle.read().split()[1]) * PAGE
        except (OSError, IndexError, ValueError):
            continue
        parent[int(entry.name)] = int(fields[1])
        rss[int(entry.name)] = resident
    total, todo = 0, [root_pid]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo.extend(child for child, ppid in parent.items() if ppid == pid)
    return total


def timed_run(store: Path, workers: int) -> tuple[float, int, float]:
    """Wall seconds, peak tree RSS (bytes) and CPU seconds of one ``gdan run``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    gdan = Path(sys.executable).with_name("gdan")
    start = time.perf_counter()
    process = subprocess.Popen([str(gdan), "run", "--store", str(store), "--workers", str(workers)],
                               stdout=subprocess.DEVNULL)
    peak = 0
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not stop.is_set():
            peak = max(peak, tree_rss(process.pid))
            stop.wait(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    code = process.wait()
    wall = time.perf_counter() - start
    stop.set()
    sampler.join()
    if code:
        raise SystemExit(f"gdan run failed with exit code {code}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, peak, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=100_000, help="deals to simulate (about)")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/gdan-bench-pipeline"), help="work folder")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="simulation/pipeline processes")
    parser.add_argument("--keep", action="store_true", help="reuse simulated input already in --dir")
    args = parser.parse_args()

    from simulator import simulate_to_dir

    inbox_copy = args.dir / "input"
    if not (args.keep and inbox_copy.exists()):
        shutil.rmtree(args.dir, ignore_errors=True)
        start = time.perf_counter()
        matches = max(1, args.deals // (DEALS_PER_MATCH - 1))
        summary = simulate_to_dir(inbox_copy, kind="matches", matches=matches, players=64,
                                  format=f"deals:{DEALS_PER_MATCH}", seed=7, workers=args.workers)
        print(f"simulated {summary.matches} matches, {summary.deals} deals, {summary.events} events "
              f"in {time.perf_counter() - start:.0f} s")
    store = args.dir / "store"
    shutil.rmtree(store, ignore_errors=True)
    shutil.copytree(inbox_copy, store / "inbox")
    size = sum(p.stat().st_size for p in (store / "inbox").rglob("*") if p.is_file())
    print(f"input: {size / 2**20:.0f} MiB")

    wall, peak, cpu = timed_run(store, args.workers)
    print(f"first run : {wall:7.1f} s wall, {cpu:7.1f} CPU-s, peak RSS {peak / 2**20:7.0f} MiB "
          "(process tree)")
    wall2, peak2, cpu2 = timed_run(store, args.workers)
    print(f"rerun     : {wall2:7.1f} s wall, {cpu2:7.1f} CPU-s, peak RSS {peak2 / 2**20:7.0f} MiB")
    query = [str(Path(sys.executable).with_name("gdan")), "sql", "SELECT count(*) FROM deals",
             "--store", str(store), "--format", "csv"]
    deals = subprocess.run(query, capture_output=True, text=True, check=True)
    print(f"deals in store: {deals.stdout.splitlines()[1]}")


if __name__ == "__main__":
    main()
