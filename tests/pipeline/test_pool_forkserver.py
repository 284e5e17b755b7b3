"""The pool's workers fork from a server that imported their modules once (``pipelines.exec.pool``).

A spawned worker imported pyarrow and the replay engine itself, 1–3 CPU-s per worker and once
per ``TASKS_PER_WORKER`` tasks; forked from the preloaded server it starts with them imported
and frozen out of the collector's scans. The server is stopped when the run's process exits,
so no process outlives a run and the workers' CPU counts to the run (what benchmarks measure).
A run killed outside its handlers leaves no worker behind either: each watches the run's process.
"""

from __future__ import annotations

import gc
import os
import resource
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import psutil
import pytest

from pipelines.exec import pool as pool_module
from pipelines.exec.pool import ordered_map

BURN = """
import math
from multiprocessing import forkserver
from pipelines.exec import pool as pool_module
from pipelines.exec.pool import ordered_map
if __name__ == "__main__":
    with ordered_map(math.factorial, 2) as run:
        list(run([(170_000,)] * 6))
    print(forkserver._forkserver._forkserver_pid)
"""


def test_workers_start_with_the_modules_imported_and_frozen() -> None:
    with ordered_map(gc.get_freeze_count, 2) as run:
        frozen = list(run([()] * 4))
    assert all(count > 10_000 for count in frozen), frozen
    with ordered_map(os.getpid, 2) as run:
        assert os.getpid() not in set(run([()] * 4))


def test_workers_start_with_pandas_imported() -> None:
    """pyarrow imports pandas at a process's first conversion of Python values: a worker that
    had to import it then spent 0.15–0.2 CPU-s of its first task on that."""
    from worker_probe import imported

    with ordered_map(imported, 2) as run:
        assert list(run([("pandas",)] * 4)) == [True] * 4


def test_the_server_is_stopped_at_exit_and_its_workers_cpu_counts_to_the_run() -> None:
    """Six tasks of about half a CPU-second each: the run's reaped children account for them."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, "-c", BURN], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    children = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert children >= 1.5, children
    with pytest.raises(ProcessLookupError):
        os.kill(int(done.stdout.split()[-1]), 0)


HOLD = """
import os, threading, time
import psutil
from pipelines.exec import pool as pool_module
from pipelines.exec.pool import ordered_map
if __name__ == "__main__":
    with ordered_map(time.sleep, 2) as run:
        threading.Thread(target=lambda: list(run([(120,)] * 4)), daemon=True).start()
        workers = []
        while len(workers) < 2:
            time.sleep(0.1)
            workers = [p.pid for p in psutil.Process().children(recursive=True) if p.ppid() != os.getpid()]
        print(*workers, flush=True)
        time.sleep(120)
"""
"""Starts two workers on two-minute tasks, prints their pids, then waits to be killed."""


def _running(pid: int) -> bool:
    """Whether process ``pid`` exists and has not exited (a zombie nobody reaps has)."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_workers_end_when_the_process_that_started_them_is_killed() -> None:
    """A plain SIGKILL of the run (no handler, no cleanup) leaves no worker running its task on."""
    run = subprocess.Popen([sys.executable, "-c", HOLD], stdout=subprocess.PIPE, text=True)
    assert run.stdout is not None
    workers = [int(pid) for pid in run.stdout.readline().split()]
    assert len(workers) == 2 and all(_running(pid) for pid in workers)
    run.kill()
    run.wait()
    deadline = time.monotonic() + 20
    while any(_running(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [pid for pid in workers if _running(pid)]
    for pid in left:
        os.kill(pid, 9)
    assert not left, f"workers still running after their parent was killed: {left}"


RECYCLING = """
import collections, os
from pipelines.exec import pool
if __name__ == "__main__":
    pool.TASKS_PER_WORKER = 2
    with pool.ordered_map(os.getpid, 2) as run:
        tasks = collections.Counter(run([()] * 400))
    print(sum(tasks.values()), len(tasks), max(tasks.values()))
"""
"""Four hundred tasks on two workers replaced every two tasks: prints the tasks run, the worker
processes that ran them and the most tasks one process ran."""


def test_workers_retiring_every_few_tasks_are_replaced_until_the_last_task() -> None:
    """The pool is recycled whole every ``workers * TASKS_PER_WORKER`` tasks, so no worker runs
    more than that and no pool retires a worker itself: Python 3.11's ``ProcessPoolExecutor``
    hung under load in that path (``KeyError`` in ``self.processes.pop(result_item.exit_pid)``).
    In a child with a timeout, so a hang fails here; the counts do not depend on timing."""
    done = subprocess.run([sys.executable, "-c", RECYCLING], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    tasks, processes, most = map(int, done.stdout.split()[-3:])
    assert tasks == 400
    assert most <= 4, most
    assert processes >= 100, processes


def test_no_pool_retires_its_own_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    """The executor's own worker retirement (``max_tasks_per_child``) is the path that hung."""
    made: list[dict[str, object]] = []
    real = pool_module.ProcessPoolExecutor

    def recording(*args: Any, **kwargs: Any) -> ProcessPoolExecutor:
        made.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(pool_module, "TASKS_PER_WORKER", 3)
    monkeypatch.setattr(pool_module, "ProcessPoolExecutor", recording)
    with ordered_map(abs, 2) as run:
        assert list(run([(-i,) for i in range(20)])) == list(range(20))
    assert len(made) == 4
    assert all(kwargs.get("max_tasks_per_child") is None for kwargs in made)


SIX_DELIVERED = """
import os, time
GOT_SIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "got-6")

def wait_for_six():
    deadline = time.monotonic() + 120
    while not os.path.exists(GOT_SIX) and time.monotonic() < deadline:
        time.sleep(0.01)

def collect(run, tasks):
    done = []
    try:
        for result in run(tasks):
            done.append(result if isinstance(result, int) else len(done))
            if done[-1] == 6:
                open(GOT_SIX, "w").close()
    except Exception as exc:
        print(*done, type(exc).__name__)
"""
"""Task 7 goes wrong only once the run has task 6's result, so how many results come before the
failure does not depend on which worker is quicker: the other worker may otherwise still be on
task 6 when the pool breaks, and its result is then lost with the pool."""

LOSING = SIX_DELIVERED + """
from pipelines.exec import pool

def die_on_7(i):
    if i == 7:
        wait_for_six()
        os._exit(9)
    return i

if __name__ == "__main__":
    with pool.ordered_map(die_on_7, 2) as run:
        collect(run, [(i,) for i in range(50)])
"""
"""A worker dies in the middle of the map (its process exits in task 7). Run from a file: the
workers import its functions from there (a ``-c`` script's functions cannot reach them)."""


def _run_script(code: str, folder: Path) -> subprocess.CompletedProcess[str]:
    script = folder / "script.py"
    script.write_text(code)
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)


def test_a_worker_that_dies_fails_the_map_instead_of_hanging_it(tmp_path: Path) -> None:
    """The tasks before the lost one give their results; the map then fails."""
    done = _run_script(LOSING, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [*map(str, range(7)), "BrokenProcessPool"], done.stdout


CUT_OFF = SIX_DELIVERED + """
import struct
from multiprocessing import connection
from pipelines.exec import pool

def send_half_then_die(self, buf):
    self._send(struct.pack("!i", len(buf)))
    self._send(bytes(buf)[: len(buf) // 2])
    os._exit(9)

def big_result(i):
    if i == 7:
        wait_for_six()
        connection.Connection._send_bytes = send_half_then_die
    return bytes(4_000_000)

if __name__ == "__main__":
    with pool.ordered_map(big_result, 2) as run:
        collect(run, [(i,) for i in range(50)])
"""
"""A worker dies part-way through sending its result (task 7's four megabytes): the pool's manager
thread has read the message's length and half of it, and would wait for the rest forever."""


def test_a_worker_that_dies_sending_its_result_fails_the_map_instead_of_hanging_it(tmp_path: Path) -> None:
    """In a child with a timeout, so a hang fails here; where the worker dies does not depend on
    timing (it cuts its own message off)."""
    done = _run_script(CUT_OFF, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [*map(str, range(7)), "BrokenProcessPool"], done.stdout
