"""A writer on object storage cut off at any point of its publish, or killed in the middle of its
work, recovers to the tables of a run never interrupted, and readers meanwhile see a whole run
(docs/deployment.md, "How a store on object storage works").

A publish uploads data files, then each table's Delta log entries, then the commit log's entries,
then deletes what was removed (vacuum). The cut points are taken from the publish order of the
same work never interrupted: the first and a middle data file, the first and a middle table log
entry, the commit log's first and last entries, after the last object (before the copy records
what it published); for `gdan maintain` a middle data file (compacted) and a middle deletion. The
recovery is the next writer's work, on the crashed writer's own copy or on a host that never had
one.

Lean: the stand-in replayer (``pipeline_helpers.fake_replay``) as in the local crash tests
(``test_readers.py``); the work is done once, unpublished, and each case publishes a copy of it
into a copy of the bucket as it was before. Slow all the same (a pipeline run per case on moto):
`make test-s3`, which ``.ci/run`` runs after `make test`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import pytest
from pipeline_helpers import fake_replay, match_events, store_tables, write_jsonl

from pipelines.run.runner import run_pipeline
from pipelines.steps import replaying
from pipelines.storage import delta, mirror, staging, table_writes
from pipelines.storage.mirror import Mirror
from pipelines.storage.object_store import RemoteRoot, client
from pipelines.storage.remote import cache_folder, ingestable, readable, writable
from pipelines.storage.store import Store
from tests.pipeline.s3_server import new_bucket, s3_endpoint, use_test_server

__all__ = ["s3_endpoint"]

pytestmark = pytest.mark.slow

Tables = dict[str, list[tuple[Any, ...]]]
PREFIX = "league"


def _events(prefix: str, n: int) -> list[dict[str, object]]:
    return [e for i in range(n) for e in match_events(f"{prefix}{i}")]


DAYS = (
    {"a.jsonl": match_events("m1")},
    {"b.jsonl": _events("n", 3) + match_events("open", end=False)},
)
"""Two days of input: one match, then three more and one still open (as in ``test_readers``)."""


def _store(bucket: str) -> Path:
    return Path(f"s3://{bucket}/{PREFIX}")


def _ingest(store: Path, day: dict[str, list[dict[str, object]]]) -> None:
    with ingestable(store) as folder:
        for name, events in day.items():
            write_jsonl(folder / "inbox" / name, events)


def _run(store: Path) -> None:
    """What `gdan run` does on an object-storage root: the pipeline in this host's copy, under
    the lease, published at the end."""
    with writable(store) as folder:
        run_pipeline(folder, workers=1)


def _maintain(store: Path) -> None:
    with writable(store) as folder:
        Store(folder).maintain(retention_days=0)


def _read(store: Path) -> Tables:
    return store_tables(readable(store))


def _copy(bucket: str) -> str:
    """A new bucket holding the objects of ``bucket``; its name."""
    s3, copy = boto3.client("s3"), new_bucket()
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        for obj in page.get("Contents", []):
            s3.copy_object(Bucket=copy, Key=obj["Key"], CopySource={"Bucket": bucket, "Key": obj["Key"]})
    return copy


class _Unpublished(Exception):
    """Stops a writer just before its publish (the snapshot of its copy is taken then)."""


def _unpublished(bucket: str, work: Callable[[Path], None], keep: Path) -> Path:
    """``work`` done on the store in ``bucket`` but not published: its writer's copy, kept at ``keep``."""
    folder = cache_folder(RemoteRoot(bucket, PREFIX), "write")

    def stop(self: Mirror, *args: object, **kwargs: object) -> int:
        shutil.copytree(folder, keep)
        raise _Unpublished

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Mirror, "push", stop)
        with pytest.raises(_Unpublished):
            work(_store(bucket))
    return keep


def _publish(unpublished: Path, bucket: str, cache: Path) -> None:
    """Publish the writer's copy ``unpublished`` (made on a bucket holding what ``bucket`` holds)
    to ``bucket``, as the writer whose copies are under ``cache``."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GDAN_CACHE", str(cache))
        folder = cache_folder(RemoteRoot(bucket, PREFIX), "write")
        shutil.copytree(unpublished, folder)  # copy2: the mtimes the copy's manifest knows
        Mirror(client(), RemoteRoot(bucket, PREFIX), folder).push()


def _push_classes(work: Callable[[], None]) -> list[int]:
    """The class of every object the publish in ``work`` uploads or deletes, in its order:
    0 data file, 1 table log entry, 2 commit log entry, 3 deletion (what follows the commit log)."""
    seen: list[int] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(mirror, "push_steps", [lambda relative: seen.append(mirror._push_order(relative)[0])])
        work()
    last_commit = max(i for i, kind in enumerate(seen) if kind == 2)
    return seen[:last_commit + 1] + [3] * (len(seen) - last_commit - 1)


def _counting(real: Callable[..., None], calls: list[int]) -> Callable[..., None]:
    def counted(*args: object, **kwargs: object) -> None:
        calls.append(1)
        real(*args, **kwargs)
    return counted


@dataclass(frozen=True)
class Work:
    """A writer's work done but not published: the bucket before it, its writer's copy, the
    order of its publish, and the tables readers see before and after."""

    bucket: str
    copy: Path
    push: list[int]
    before: Tables
    after: Tables


@dataclass(frozen=True)
class Prepared:
    run: Work
    """Day 2's run, on the store holding day 1's run and day 2's input."""
    maintain: Work
    """A maintain (compaction, vacuum with no retention) after that run."""
    run_writes: int
    """The Delta writes of day 2's run (where a kill may land)."""


@pytest.fixture(scope="module")
def prepared(s3_endpoint: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Prepared]:
    folder = tmp_path_factory.mktemp("s3-crash")
    with pytest.MonkeyPatch.context() as patch:
        use_test_server(patch, s3_endpoint, folder / "preparing-host")
        patch.setattr(replaying, "default_replay_fn", lambda: fake_replay)
        bucket = new_bucket()
        _ingest(_store(bucket), DAYS[0])
        _run(_store(bucket))
        first = _read(_store(bucket))
        _ingest(_store(bucket), DAYS[1])
        writes: list[int] = []
        with pytest.MonkeyPatch.context() as counting:
            counting.setattr(delta, "write_deltalake", _counting(delta.write_deltalake, writes))
            counting.setattr(table_writes, "write_deltalake", _counting(table_writes.write_deltalake, writes))
            counting.setattr(staging, "_commit_adds", _counting(staging._commit_adds, writes))
            ran = _unpublished(bucket, _run, folder / "run")
        ran_bucket = _copy(bucket)
        push = _push_classes(lambda: _publish(ran, ran_bucket, folder / "run-publisher"))
        second = _read(_store(ran_bucket))
        run = Work(bucket, ran, push, first, second)
        maintained = _unpublished(ran_bucket, _maintain, folder / "maintain")
        maintained_bucket = _copy(ran_bucket)
        push = _push_classes(lambda: _publish(maintained, maintained_bucket, folder / "maintain-publisher"))
        assert _read(_store(maintained_bucket)) == second
        yield Prepared(run, Work(ran_bucket, maintained, push, second, second), len(writes))


class Cut:
    """Cuts a publish off (``ConnectionError``) just before its object number ``at`` (counted from
    0), or, ``at`` None, after its last object, before the copy records what was published."""

    def __init__(self, at: int | None) -> None:
        self.at = at
        self.seen = 0

    def step(self, relative: str) -> None:
        if self.seen == self.at:
            raise ConnectionError(f"connection lost before {relative}")
        self.seen += 1

    def listing(self, real: Callable[..., Any]) -> Callable[..., Any]:
        """``list_objects`` failing once the publish has passed its objects (its own last listing)."""
        def listed(*args: Any, **kwargs: Any) -> Any:
            if self.at is None and self.seen:
                raise ConnectionError("connection lost after the last object")
            return real(*args, **kwargs)
        return listed

    @classmethod
    def of(cls, classes: list[int], where: tuple[int, str] | None) -> Cut:
        """The cut before the first, middle or last object of a class (``where``), or after all."""
        if where is None:
            return cls(None)
        kind, which = where
        indexes = [i for i, c in enumerate(classes) if c == kind]
        assert indexes, f"the publish has no object of class {kind}"
        return cls({"first": indexes[0], "middle": indexes[len(indexes) // 2], "last": indexes[-1]}[which])


def _cut_off(work: Work, where: tuple[int, str] | None, cache: Path) -> Path:
    """A copy of the store before ``work``, to which the work's publish was cut off at ``where``."""
    bucket = _copy(work.bucket)
    cut = Cut.of(work.push, where)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(mirror, "push_steps", [cut.step])
        patch.setattr(mirror, "list_objects", cut.listing(mirror.list_objects))
        with pytest.raises(ConnectionError):
            _publish(work.copy, bucket, cache)
    return _store(bucket)


RUN_CUTS: dict[str, tuple[int, str] | None] = {
    "first data file": (0, "first"),
    "a middle data file": (0, "middle"),
    "first table log entry": (1, "first"),
    "a middle table log entry": (1, "middle"),
    "first commit log entry": (2, "first"),
    "last commit log entry": (2, "last"),
    "after the last object": None,
}


@pytest.mark.parametrize(("cut", "recovering_host"), [
    *((name, "crashed-writer") for name in RUN_CUTS),
    ("a middle data file", "another-host"),
    ("last commit log entry", "another-host"),
])
def test_a_run_cut_off_anywhere_in_its_publish_recovers_to_the_uninterrupted_tables(
    prepared: Prepared, cut: str, recovering_host: str, s3_endpoint: str, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    use_test_server(monkeypatch, s3_endpoint, tmp_path / "reader")
    monkeypatch.setattr(replaying, "default_replay_fn", lambda: fake_replay)
    store = _cut_off(prepared.run, RUN_CUTS[cut], tmp_path / "crashed-writer")
    assert _read(store) in (prepared.run.before, prepared.run.after)  # a whole run
    monkeypatch.setenv("GDAN_CACHE", str(tmp_path / recovering_host))
    _run(store)
    monkeypatch.setenv("GDAN_CACHE", str(tmp_path / "reader"))
    assert _read(store) == prepared.run.after
    assert Store(readable(store)).foreign_files() == []


@pytest.mark.parametrize("cut", ["a middle data file", "a middle deletion"])
def test_a_maintain_cut_off_in_its_publish_keeps_the_tables_and_the_next_writer_goes_on(
    prepared: Prepared, cut: str, s3_endpoint: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    use_test_server(monkeypatch, s3_endpoint, tmp_path / "reader")
    monkeypatch.setattr(replaying, "default_replay_fn", lambda: fake_replay)
    where = {"a middle data file": (0, "middle"), "a middle deletion": (3, "middle")}[cut]
    store = _cut_off(prepared.maintain, where, tmp_path / "crashed-writer")
    assert _read(store) == prepared.maintain.after
    monkeypatch.setenv("GDAN_CACHE", str(tmp_path / "crashed-writer"))
    _maintain(store)
    _run(store)  # nothing new: the store's checks pass and the tables stay
    monkeypatch.setenv("GDAN_CACHE", str(tmp_path / "reader"))
    assert _read(store) == prepared.maintain.after
    assert Store(readable(store)).foreign_files() == []


KILLED_AT_WRITE = """
import sys
from functools import partial
from pathlib import Path
from pipeline_helpers import exit_at_delta_write, fake_replay
from pipelines.steps import replaying
from pipelines.run.runner import run_pipeline
from pipelines.storage import lease, remote

replaying.default_replay_fn = lambda: fake_replay
remote.Lease = partial(lease.Lease, seconds=1.0)  # a crashed writer's lease runs out quickly
exit_at_delta_write(int(sys.argv[2]))
with remote.writable(Path(sys.argv[1])) as folder:
    run_pipeline(folder, workers=1)
"""


@pytest.mark.parametrize("kill_at", [0.3, 0.8])
def test_a_run_killed_at_a_delta_write_leaves_the_last_run_and_the_next_run_completes_it(
    prepared: Prepared, kill_at: float, s3_endpoint: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Killed (``os._exit``) in the middle of its work, the writer leaves its copy half-written and
    its lease object behind: the next writer on that host waits out the lease, brings the copy back
    to the bucket's state and ends with the tables of a run never interrupted."""
    use_test_server(monkeypatch, s3_endpoint, tmp_path / "crashed-writer")
    monkeypatch.setattr(replaying, "default_replay_fn", lambda: fake_replay)
    store = _store(_copy(prepared.run.bucket))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent), *sys.path])}
    at = str(max(1, int(prepared.run_writes * kill_at)))
    assert subprocess.run([sys.executable, "-c", KILLED_AT_WRITE, str(store), at], env=env).returncode == 3

    monkeypatch.setenv("GDAN_CACHE", str(tmp_path / "reader"))
    assert _read(store) == prepared.run.before
    monkeypatch.setenv("GDAN_CACHE", str(tmp_path / "crashed-writer"))
    _run(store)
    monkeypatch.setenv("GDAN_CACHE", str(tmp_path / "reader"))
    assert _read(store) == prepared.run.after
    assert Store(readable(store)).foreign_files() == []
