"""The replay on a Dask cluster: every table equals the local pool's run.

The same simulated inbox (clean and corrupted matches, so the quarantine paths run too) goes
through the pipeline three times: on the local process pool, on a Dask cluster the test starts
(2 worker processes of one thread, no dashboard) and passes by address, and on the local
cluster the executor starts itself (``--executor dask`` without ``--address``). The chunk size
is lowered so the replay is many tasks, which must come back in order.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dask.utils import key_split
from distributed import Client, LocalCluster, get_task_stream
from distributed.client import FutureCancelledError
from pipeline_helpers import store_tables
from test_cli_signals import BIN, _alive_in_group, _background, _wait_for, cleanup
from typer.testing import CliRunner

from gdan import app
from pipelines.exec import pool
from pipelines.exec.dask_pool import _Resubmitted
from pipelines.exec.executor import Executor, ExecutorKind
from pipelines.run.runner import run_pipeline
from pipelines.steps import replaying
from simulator import simulate_to_dir

__all__ = ["cleanup"]  # the fixture of test_cli_signals, used here too

CHUNK_EVENTS = 150
"""Events per replay task in these tests: about one match each (small chunks of several buckets
are joined up to this size), so a dozen tasks or more."""


@pytest.fixture(scope="module")
def inbox(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("executor-inbox")
    simulate_to_dir(out / "t", kind="tournament", pairs=8, rounds=3, format="deals:2", seed=17)
    simulate_to_dir(out / "c", kind="tournament", pairs=4, rounds=2, format="deals:2", seed=18,
                    corrupt=1.0)
    return out


@pytest.fixture
def many_tasks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replaying, "CHUNK_EVENTS", CHUNK_EVENTS)


@pytest.fixture
def cluster() -> Iterator[LocalCluster]:
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        yield c


def _store(root: Path, inbox: Path) -> Path:
    shutil.copytree(inbox, root / "inbox")
    return root


@pytest.fixture(scope="module")
def pool_tables(inbox: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[tuple[Any, ...]]]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(replaying, "CHUNK_EVENTS", CHUNK_EVENTS)
        root = _store(tmp_path_factory.mktemp("pool"), inbox)
        run_pipeline(root, workers=2)
    return store_tables(root)


def _assert_same(tables: dict[str, list[tuple[Any, ...]]], pool: dict[str, list[tuple[Any, ...]]]) -> None:
    assert pool["matches"] and pool["quarantine"] and pool["plays"], "the input must reach every path"
    assert set(tables) == set(pool)
    for name in pool:
        assert tables[name] == pool[name], name


def test_a_dask_cluster_by_address_gives_every_table_of_the_local_pool(
    inbox: Path, tmp_path: Path, cluster: LocalCluster, many_tasks: None,
    pool_tables: dict[str, list[tuple[Any, ...]]],
) -> None:
    root = _store(tmp_path, inbox)
    with Client(cluster) as client, get_task_stream(client) as stream:
        run_pipeline(root, workers=2, executor=Executor(ExecutorKind.DASK, cluster.scheduler_address))
    ran = [t for t in stream.data if key_split(t["key"]) == "replay_task"]
    assert len(ran) > 10, "the replay must have run on the cluster, as many tasks"
    _assert_same(store_tables(root), pool_tables)


def test_gdan_run_with_executor_dask_starts_its_own_cluster(
    inbox: Path, tmp_path: Path, many_tasks: None, pool_tables: dict[str, list[tuple[Any, ...]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The local process pool is out of reach of the replay here (ingest keeps its own)."""

    def no_pool(*_args: object) -> None:
        raise AssertionError("the replay used the local pool")

    monkeypatch.setattr(pool, "ordered_map", no_pool)
    root = _store(tmp_path, inbox)
    result = CliRunner().invoke(app, ["run", "--store", str(root), "--workers", "2", "--executor", "dask"])
    assert result.exit_code == 3, result.output  # 3: the corrupted matches were quarantined
    _assert_same(store_tables(root), pool_tables)


def test_an_address_without_the_dask_executor_is_refused(tmp_path: Path) -> None:
    (tmp_path / "inbox").mkdir()
    result = CliRunner().invoke(app, ["run", "--store", str(tmp_path), "--address", "tcp://x:8786"])
    assert result.exit_code == 1
    assert "--executor dask" in result.output


def test_gdan_run_on_dask_stops_on_sigterm_with_its_workers(
    tmp_path: Path, cleanup: list[subprocess.Popen[bytes]]
) -> None:
    """As on the pool (test_cli_signals): SIGTERM during the replay on the local cluster ends the
    run with 130 and the usual message, and none of the cluster's processes outlives it.

    The input is above one replay task (so the cluster starts) and below the size at which
    ingest starts its own pool, so the processes ``gdan`` spawns are the cluster's workers."""
    store = tmp_path / "store"
    simulate_to_dir(store / "inbox", kind="matches", matches=30, players=16, format="deals:10", seed=11)
    log = tmp_path / "run.log"
    command = [str(BIN / "gdan"), "run", "--store", str(store), "--workers", "2", "--executor", "dask"]
    run = _background(command, log)
    cleanup.append(run)
    _wait_for(lambda: len(_alive_in_group(run.pid)) >= 3 or run.poll() is not None, "the cluster's workers")
    os.kill(run.pid, signal.SIGTERM)
    _wait_for(lambda: run.poll() is not None, "gdan run to stop on SIGTERM")
    said = " ".join(log.read_text().split())
    assert run.returncode == 130, said
    assert "interrupted: the store keeps its last committed state" in said
    assert "Traceback" not in said
    _wait_for(lambda: not _alive_in_group(run.pid), "the cluster's processes to stop")


class _Done:
    """A finished task's future."""

    def __init__(self, value: int) -> None:
        self.value = value

    def result(self) -> int:
        return self.value


class _Cancelled:
    """A task Dask cancelled: the worker holding its scattered data was lost."""

    def result(self) -> int:
        raise FutureCancelledError("key", "lost dependencies")


def test_a_task_whose_scatter_or_worker_was_lost_is_submitted_again() -> None:
    """The scheduler raises a ``KeyError`` naming a worker removed while its scatter was recorded,
    or a connection error; a task whose data went with its worker is cancelled: each is
    submitted again, and what other errors the submit or the task raise go on as they are."""
    outcomes: list[object] = [KeyError("tcp://10.0.0.1:4321"), _Cancelled(), OSError("refused"), _Done(7)]
    submitted: list[tuple[Any, ...]] = []

    def submit(task: tuple[Any, ...]) -> Any:
        submitted.append(task)
        outcome = outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    assert _Resubmitted(submit, (1, 2)).result() == 7
    assert submitted == [(1, 2)] * 4

    def failing(task: tuple[Any, ...]) -> Any:
        raise ValueError("not a lost worker")

    with pytest.raises(ValueError, match="not a lost worker"):
        _Resubmitted(failing, (1,))
