"""The parts of a store on object storage, against moto's S3 server: the writer lease (one
writer; a dead holder's lease runs out; a writer that lost its lease publishes nothing), and the
local copy (pushed and pulled in reader-safe order, never over another writer's version, and
brought back in line with the store when it holds work that was never published)."""

from __future__ import annotations

from pathlib import Path

import boto3
import pyarrow as pa
import pytest
from deltalake import write_deltalake

from pipelines.storage.layout import StoreLayout
from pipelines.storage.lease import Lease, LeaseLostError
from pipelines.storage.mirror import PUBLISHING, Mirror, PushConflictError, push_steps
from pipelines.storage.object_store import ObjectStoreError, RemoteRoot, list_objects, remote_root
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


FIRST_LOG_ENTRY = "00000000000000000000.json"


def _table_files(folder: Path) -> tuple[str, str, str]:
    """A table (``deals``) with one data file and one log entry, and the commit log's first entry, in a
    store folder; their keys (data, table log, commit log), as the store's layout places them."""
    table = StoreLayout(folder).table_path("deals")
    commits = StoreLayout(folder).state_dir / "commits" / "_delta_log"
    for log in (table / "_delta_log", commits):
        log.mkdir(parents=True)
        (log / FIRST_LOG_ENTRY).write_text("{}")
    (table / "part-1.parquet").write_bytes(b"data")
    (StoreLayout(folder).state_dir / "warehouse.json").write_text("{}")
    files = (table / "part-1.parquet", table / "_delta_log" / FIRST_LOG_ENTRY, commits / FIRST_LOG_ENTRY)
    data, table_log, commit_log = (f.relative_to(folder).as_posix() for f in files)
    return data, table_log, commit_log


def test_a_push_uploads_data_then_table_logs_then_the_commit_log(s3_store: str, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "copy"
    keys = _table_files(folder)
    order: list[str] = []
    monkeypatch.setattr("pipelines.storage.mirror.push_steps", [order.append])
    assert Mirror(boto3.client("s3"), _root(s3_store), folder).push() == 3
    assert order == list(keys)
    assert push_steps == []


def test_a_pull_downloads_the_commit_log_last_and_says_when_it_is_behind(
    s3_store: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    s3, root = boto3.client("s3"), _root(s3_store)
    keys = _table_files(tmp_path / "writer")
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
    assert order == list(keys)
    assert not reader.behind("state/commits/")


def test_a_pull_undoes_what_was_never_published(s3_store: str, tmp_path: Path) -> None:
    s3, root = boto3.client("s3"), _root(s3_store)
    writer = Mirror(s3, root, tmp_path / "copy")
    data, table_log, _ = _table_files(writer.folder)
    writer.push()
    log = (writer.folder / table_log).parent
    (log / "00000000000000000001.json").write_text('{"unpublished": 1}')
    (writer.folder / data).write_bytes(b"changed here")
    assert writer.pull() == 1
    assert sorted(p.name for p in log.iterdir()) == [FIRST_LOG_ENTRY]
    assert (writer.folder / data).read_bytes() == b"data"
    assert (writer.folder / "state" / "warehouse.json").exists()  # this host's own, never pulled away


def test_a_version_another_writer_published_is_never_overwritten(s3_store: str, tmp_path: Path) -> None:
    s3, root = boto3.client("s3"), _root(s3_store)
    ours, theirs = Mirror(s3, root, tmp_path / "ours"), Mirror(s3, root, tmp_path / "theirs")
    for mirror in (ours, theirs):
        _, entry, _ = _table_files(mirror.folder)
    (theirs.folder / entry).write_text('{"theirs": 1}')
    theirs.push()
    with pytest.raises(PushConflictError, match="already exists"):
        ours.push()
    assert s3.get_object(Bucket=root.bucket, Key=root.key(entry))["Body"].read() == b'{"theirs": 1}'
    commits = s3.list_objects_v2(Bucket=root.bucket, Prefix=root.key("state/commits/"))
    assert commits["KeyCount"] == 1  # theirs: ours stopped before its commit log


def test_data_files_a_cut_off_push_left_unlogged_are_deleted_by_the_next_writer(
    s3_store: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    s3, root = boto3.client("s3"), _root(s3_store)
    writer = Mirror(s3, root, tmp_path / "writer")
    table = StoreLayout(writer.folder).table_path("deals")
    write_deltalake(str(table), pa.table({"x": [1]}))
    writer.push()
    published = {p.relative_to(writer.folder).as_posix() for p in table.glob("*.parquet")}
    write_deltalake(str(table), pa.table({"x": [2]}), mode="append")
    [appended] = {p.relative_to(writer.folder).as_posix() for p in table.glob("*.parquet")} - published

    def cut(relative: str) -> None:
        if "/_delta_log/" in relative:
            raise ConnectionError(f"connection lost before {relative}")

    monkeypatch.setattr("pipelines.storage.mirror.push_steps", [cut])
    with pytest.raises(ConnectionError):
        writer.push()
    monkeypatch.setattr("pipelines.storage.mirror.push_steps", [])
    deals = table.relative_to(writer.folder).as_posix()
    dropped_in = f"{deals}/dropped-in-by-hand.parquet"
    s3.put_object(Bucket=root.bucket, Key=root.key(dropped_in), Body=b"not the store's")

    next_writer = Mirror(s3, root, tmp_path / "next-writer")
    next_writer.pull()
    assert (next_writer.folder / appended).exists()  # in the bucket, added by no log
    assert next_writer.drop_cut_off_publish() == 1
    data = {k for k in list_objects(s3, root, f"{deals}/") if "/_delta_log/" not in k}
    assert data == published | {dropped_in}  # only what the cut-off push uploaded is deleted
    assert not (next_writer.folder / appended).exists()
    assert next_writer.drop_cut_off_publish() == 0  # its record is gone with it


def test_a_writer_whose_lease_was_lost_during_its_data_files_publishes_no_log_entry(
    s3_store: str, tmp_path: Path
) -> None:
    s3, root = boto3.client("s3"), _root(s3_store)
    data, _, _ = _table_files(tmp_path / "copy")

    def lost() -> None:
        raise LeaseLostError("taken over while the data files went up")

    with pytest.raises(LeaseLostError):
        Mirror(s3, root, tmp_path / "copy").push(before_logs=lost)
    assert set(list_objects(s3, root)) == {data, PUBLISHING}  # the next writer drops the data file
