"""Every `gdan` command and every worker pool stops on SIGTERM and Ctrl-C, whatever the parent
ignored; an interrupted run says that the store keeps its last committed state; a second writer
says whom it waits for.

The processes run as a background job would: under ``trap '' INT`` (SIGINT ignored, inherited
through ``exec``), in their own session so the test can see and always kill every process they
started. Waits are bounded; nothing asserts how long anything took.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from rich.progress import Progress

from pipelines.exec.progress import show_with, track
from pipelines.run.runner import run_pipeline
from simulator import simulate_to_dir

BIN = Path(sys.executable).parent
GIVE_UP_S = 240.0
"""Bound of every wait: far beyond what each step needs, so reaching it means it never would."""


def _background(command: list[str], log: Path, ignore: str = "INT") -> subprocess.Popen[bytes]:
    """Start ``command`` as a background job would be: signals in ``ignore`` ignored, own session."""
    script = f"trap '' {ignore}; exec \"$@\""
    with open(log, "wb") as out:
        return subprocess.Popen(
            ["bash", "-c", script, "bash", *command],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )


def _wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + GIVE_UP_S
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"gave up waiting for {what}")
        time.sleep(0.1)


def _alive_in_group(pgid: int) -> list[int]:
    """Processes of process group ``pgid`` that are still running (zombies do not count)."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            alive.append(int(stat.parent.name))
    return alive


@pytest.fixture
def cleanup() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Processes started by a test; their whole groups are killed afterwards, whatever happened."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def _sample_store(root: Path) -> Path:
    """A store whose inbox holds a simulated tournament: enough work for a run to be stopped in."""
    simulate_to_dir(root / "inbox", kind="tournament", pairs=8, rounds=3, format="deals:2", seed=11)
    return root


PAUSED_RUN = """
import sys, time
from pathlib import Path

marker, point = Path(sys.argv[1]), sys.argv[2]
from pipelines.exec import pool
from pipelines.run import plan
from pipelines.steps import replaying, transactions

replaying.CHUNK_EVENTS = 200  # several replay tasks, so the replay runs in the worker pool


def pausing(module, name):
    real = getattr(module, name)

    def pause_then(*args, **kwargs):
        out = real(*args, **kwargs)
        if not marker.exists():
            marker.write_text(point)
            while True:
                time.sleep(0.05)
        return out

    setattr(module, name, pause_then)


PLACES = {
    "ingest": (transactions, "ingest_inbox"),
    "pool-start": (pool._RecycledPools, "submit"),
    "pool-result": (replaying, "_record_statuses"),
    "publish": (plan, "write_warehouse"),
}


class PauseOnImport:
    # Pauses the import of the app, which gdan.main does after installing its handlers.

    def find_spec(self, name, path=None, target=None):
        if name == "gdan.cli" and not marker.exists():
            marker.write_text(point)
            while True:
                time.sleep(0.05)
        return None


if point == "imports":
    sys.meta_path.insert(0, PauseOnImport())
else:
    pausing(*PLACES[point])
sys.argv = ["gdan", *sys.argv[3:]]
from gdan import main

main()
"""
"""`gdan run` that pauses once at a point of the run (after the named function returns) and
writes the marker file: the test signals it there, so where the signal lands does not depend on
how fast the machine is, and the run cannot finish before it. The pause is short sleeps, as a
main thread at work runs Python code: CPython runs a signal's handler in the main thread only,
and a signal the kernel gives another thread (the pool's, the progress bar's) does not end a
long sleep of the main one."""

POINTS = [
    "imports",
    "ingest",
    "pool-start",
    "pool-result",
    "publish",
]
"""While the command's modules are imported (seconds on a loaded machine), in the ingest step
(under the writer lock), just after the replay's first task went to a worker pool starting up,
after the pool's first result, in the warehouse publish."""


@pytest.mark.parametrize("point", POINTS)
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_run_in_the_background_stops_on_a_signal_and_says_the_store_is_safe(
    tmp_path: Path, cleanup: list[subprocess.Popen[bytes]], signum: signal.Signals, point: str
) -> None:
    store = _sample_store(tmp_path / "store")
    log, marker = tmp_path / "run.log", tmp_path / "paused"
    command = [sys.executable, "-c", PAUSED_RUN, str(marker), point,
               "run", "--store", str(store), "--workers", "2"]
    run = _background(command, log)
    cleanup.append(run)
    _wait_for(lambda: marker.exists() or run.poll() is not None, f"the run to reach {point}")
    assert run.poll() is None, log.read_text()
    os.kill(run.pid, signum)
    _wait_for(lambda: run.poll() is not None, f"gdan run to stop on {signum.name}")
    said = " ".join(log.read_text().split())
    assert run.returncode == 130, said
    assert "interrupted: the store keeps its last committed state" in said
    assert "Traceback" not in said
    _wait_for(lambda: not _alive_in_group(run.pid), "the run's worker processes to stop")
    if signum is signal.SIGINT and point in ("pool-result", "publish"):
        again = subprocess.run([str(BIN / "gdan"), "run", "--store", str(store), "--workers", "2"],
                               capture_output=True, text=True, timeout=GIVE_UP_S)
        assert again.returncode == 0, again.stderr


def test_a_second_writer_says_which_process_it_waits_for(
    tmp_path: Path, cleanup: list[subprocess.Popen[bytes]]
) -> None:
    store = tmp_path / "store"
    (store / "inbox").mkdir(parents=True)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from pipelines.storage.store import Store; "
            "lock = Store(sys.argv[1]).writer_lock(); lock.__enter__(); print('locked', flush=True); "
            "sys.stdin.read()",
            str(store),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    cleanup.append(holder)
    assert holder.stdout is not None and holder.stdout.readline().strip() == b"locked"
    log = tmp_path / "run.log"
    run = _background([str(BIN / "gdan"), "run", "--store", str(store), "--workers", "1"], log)
    cleanup.append(run)
    expected = f"waiting for the writer (pid {holder.pid})"
    _wait_for(lambda: expected in " ".join(log.read_text().split()), "the waiting notice")
    assert holder.stdin is not None
    holder.stdin.close()
    _wait_for(lambda: run.poll() is not None, "the run to finish once the lock is free")
    assert run.returncode == 0, log.read_text()


def test_simulator_workers_stop_when_the_parent_ignores_sigint_and_sigterm(
    tmp_path: Path, cleanup: list[subprocess.Popen[bytes]]
) -> None:
    """What Dagster leaves behind in a process that ignores SIGINT: SIGTERM ignored too. The
    workers inherit both; the pool must still shut down (a test once hung 19 minutes)."""
    code = (
        "import sys; from simulator import simulate_to_dir; "
        "simulate_to_dir(sys.argv[1], kind='tournament', pairs=4, rounds=2, format='deals:1', seed=1, "
        "workers=2); print('simulated')"
    )
    log = tmp_path / "sim.log"
    sim = _background([sys.executable, "-c", code, str(tmp_path / "out")], log, ignore="INT TERM")
    cleanup.append(sim)
    _wait_for(lambda: sim.poll() is not None, "the simulation with 2 workers to finish")
    assert sim.returncode == 0 and "simulated" in log.read_text()


def test_run_pipeline_gives_sigterm_back_its_disposition(tmp_path: Path) -> None:
    (tmp_path / "inbox").mkdir()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN), signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        run_pipeline(tmp_path, workers=1)
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    finally:
        signal.signal(signal.SIGINT, previous[0])
        signal.signal(signal.SIGTERM, previous[1])


def test_an_interrupted_stage_keeps_its_bar_where_it_stopped() -> None:
    progress = Progress()
    with show_with(progress), pytest.raises(KeyboardInterrupt), track("replay events", total=10) as bar:
        bar.advance(3)
        raise KeyboardInterrupt
    (task,) = progress.tasks
    assert (task.completed, task.total) == (3, 10)
    assert "interrupted" in task.description


def test_a_finished_stage_fills_its_bar() -> None:
    progress = Progress()
    with show_with(progress), track("ingest files") as bar:
        bar.total(4)
        bar.advance(4)
    (task,) = progress.tasks
    assert task.completed == task.total == 4


def test_the_dashboards_server_stops_with_gdan(
    sim_store: Path, tmp_path: Path, cleanup: list[subprocess.Popen[bytes]]
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = tmp_path / "dashboard.log"
    served = _background(
        [str(BIN / "gdan"), "dashboard", "--store", str(sim_store), "--port", str(port)], log
    )
    cleanup.append(served)

    def listening() -> bool:
        if served.poll() is not None:
            pytest.fail(f"gdan dashboard exited early:\n{log.read_text()}")
        with socket.socket() as client:
            return client.connect_ex(("127.0.0.1", port)) == 0

    _wait_for(listening, "the dashboards to listen")
    os.kill(served.pid, signal.SIGTERM)
    _wait_for(lambda: served.poll() is not None, "gdan dashboard to stop on SIGTERM")
    _wait_for(lambda: not _alive_in_group(served.pid), "the Streamlit server to stop with gdan")
