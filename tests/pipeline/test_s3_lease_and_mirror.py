"""The parts of a store on object storage, against moto's S3 server: the writer lease (one
writer; a dead holder's lease runs out; a writer that lost its lease publishes nothing), and the
local copy (pushed and pulled in reader-safe order, never over another writer's version, and
brought back in line with the store when it holds work that was never published)."""

from __future__ import annotations

from pathlib import Path

import boto3
import pytest

from pipelines.storage.lease import Lease, LeaseLostError
from pipelines.storage.mirror import Mirror, PushConflictError, push_steps
from pipelines.storage.object_store import ObjectStoreError, RemoteRoot, remote_root
from tests.pipeline.s3_server import s3_endpoint, s3_store

__all__ = ["s3_endpoint", "s3_store"]


def _root(s3_store: str) -> RemoteRoot:
    return RemoteRoot.parse(s3_store)


def test_a_root_is_parsed_from_either_spelling() -> None:
    assert remote_root("s3://bucket/a/b/") == RemoteRoot("bucket", "a/b")
    assert remote_root(Path("s3://bucket/a/b")) == RemoteRoot("bucket", "a/b")
    assert remote_root(Path("data")) is None
    with pytest.raises(ObjectStoreError, match="no bucket"):
        RemoteRoot.parse("s3:///prefix")


def test_one_writer_holds_the_lease(s3_store: str) -> None:
    s3 = boto3.client("s3")
    first, second = Lease(s3, _root(s3_store)), Lease(s3, _root(s3_store))
    assert first.try_acquire() is None
    holder = second.try_acquire()
    assert holder is not None and "pid" in holder
    first.renew()
    assert second.try_acquire() is not None
    first.release()
    assert second.try_acquire() is None


def test_a_lease_not_renewed_in_time_is_taken_over_and_its_writer_publishes_nothing(s3_store: str) -> None:
    s3 = boto3.client("s3")
    dead = Lease(s3, _root(s3_store), seconds=0)
    assert dead.try_acquire() is None
    taker = Lease(s3, _root(s3_store))
    assert taker.try_acquire() is None
    with pytest.raises(LeaseLostError):
        dead.check()
    dead.release()  # not its lock any more: left alone
    assert Lease(s3, _root(s3_store)).try_acquire() is not None


def _table_files(folder: Path) -> None:
    (folder / "tables" / "t" / "_delta_log").mkdir(parents=True)
    (folder / "tables" / "t" / "part-1.parquet").write_bytes(b"data")
    (folder / "tables" / "t" / "_delta_log" / "00000000000000000000.json").write_text("{}")
    (folder / "state" / "commits" / "_delta_log").mkdir(parents=True)
    (folder / "state" / "commits" / "_delta_log" / "00000000000000000000.json").write_text("{}")
    (folder / "state" / "warehouse.json").write_text("{}")


def test_a_push_uploads_data_then_table_logs_then_the_commit_log(s3_store: str, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "copy"
    _table_files(folder)
    order: list[str] = []
    monkeypatch.setattr("pipelines.storage.mirror.push_steps", [order.append])
    assert Mirror(boto3.client("s3"), _root(s3_store), folder).push() == 3
    assert order == ["tables/t/part-1.parquet", "tables/t/_delta_log/00000000000000000000.json",
                     "state/commits/_delta_log/00000000000000000000.json"]
    assert push_steps == []


def test_a_pull_downloads_the_commit_log_last_and_says_when_it_is_behind(
    s3_store: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    s3, root = boto3.client("s3"), _root(s3_store)
    _table_files(tmp_path / "writer")
    Mirror(s3, root, tmp_path / "writer").push()
    reader = Mirror(s3, root, tmp_path / "reader")
    assert reader.behind("state/commits/")
    order: list[str] = []
    download = s3.download_file

    def recorded(bucket: str, key: str, target: str) -> None:
        order.append(root.relative(key))
        download(bucket, key, target)

    monkeypatch.setattr(s3, "download_file", recorded)
    assert reader.pull(("state", "tables")) == 3
    assert order == ["tables/t/part-1.parquet", "tables/t/_delta_log/00000000000000000000.json",
                     "state/commits/_delta_log/00000000000000000000.json"]
    assert not reader.behind("state/commits/")


def test_a_pull_undoes_what_was_never_published(s3_store: str, tmp_path: Path) -> None:
    s3, root = boto3.client("s3"), _root(s3_store)
    writer = Mirror(s3, root, tmp_path / "copy")
    _table_files(writer.folder)
    writer.push()
    log = writer.folder / "tables" / "t" / "_delta_log"
    (log / "00000000000000000001.json").write_text('{"unpublished": 1}')
    (writer.folder / "tables" / "t" / "part-1.parquet").write_bytes(b"changed here")
    assert writer.pull() == 1
    assert sorted(p.name for p in log.iterdir()) == ["00000000000000000000.json"]
    assert (writer.folder / "tables" / "t" / "part-1.parquet").read_bytes() == b"data"
    assert (writer.folder / "state" / "warehouse.json").exists()  # this host's own, never pulled away


def test_a_version_another_writer_published_is_never_overwritten(s3_store: str, tmp_path: Path) -> None:
    s3, root = boto3.client("s3"), _root(s3_store)
    ours, theirs = Mirror(s3, root, tmp_path / "ours"), Mirror(s3, root, tmp_path / "theirs")
    for mirror in (ours, theirs):
        _table_files(mirror.folder)
    entry = "tables/t/_delta_log/00000000000000000000.json"
    (theirs.folder / entry).write_text('{"theirs": 1}')
    theirs.push()
    with pytest.raises(PushConflictError, match="already exists"):
        ours.push()
    assert s3.get_object(Bucket=root.bucket, Key=root.key(entry))["Body"].read() == b'{"theirs": 1}'
    commits = s3.list_objects_v2(Bucket=root.bucket, Prefix=root.key("state/commits/"))
    assert commits["KeyCount"] == 1  # theirs: ours stopped before its commit log
