"""The store's Delta tables: typed reads, atomic full replace, idempotent append batches, the commit log,
crash recovery and maintenance."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from deltalake import DeltaTable, write_deltalake
from filelock import FileLock
from pipeline_helpers import committed

from pipelines.storage import lock as lock_module
from pipelines.storage.commit_log import Snapshot
from pipelines.storage.delta import UnknownTableError, of_matches
from pipelines.storage.store import Store
from pipelines.storage.warehouse import UnknownRunError, connect
from schemas.catalog import ALL_TABLES
from schemas.tables import DEALS, MATCHES, PLAYERS, RAW_EVENTS


def _matches(ids: list[str], status: str = "valid") -> pa.Table:
    return pa.Table.from_pylist([{"match_id": m, "status": status} for m in ids], schema=MATCHES)


@pytest.mark.parametrize("name", sorted(ALL_TABLES))
def test_empty_table_is_typed(tmp_path: Path, name: str) -> None:
    table = Store(tmp_path).read_table(name)
    assert table.num_rows == 0
    assert table.schema.equals(ALL_TABLES[name], check_metadata=False)


def test_unknown_table_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(UnknownTableError, match=r"unknown table 'nope'; known: .*matches"):
        Store(tmp_path).read_table("nope")


def test_write_then_read_round_trips(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.write_table("matches", _matches(["a", "b"]))
    got = store.read_table("matches")
    assert got.schema.equals(MATCHES, check_metadata=False)
    assert sorted(got["match_id"].to_pylist()) == ["a", "b"]


def test_write_replaces_whole_table_and_old_versions_stay_readable(tmp_path: Path) -> None:
    store = Store(tmp_path)
    versions = []
    for ids in (["a"], ["b"], ["c", "d"]):
        store.write_table("matches", _matches(ids))
        versions.append(store.version("matches"))
    assert sorted(store.read_table("matches")["match_id"].to_pylist()) == ["c", "d"]
    assert versions == sorted(set(versions))
    old = Snapshot(seq=-1, versions={"matches": versions[0]})
    assert connect(tmp_path, snapshot=old).execute("SELECT match_id FROM matches").fetchall() == [("a",)]
    assert committed(tmp_path).execute("SELECT count(*) FROM matches").fetchone() == (2,)


def test_a_version_written_by_another_writer_is_seen(tmp_path: Path) -> None:
    """The table this process keeps open at its latest version learns of a version another
    writer (another process, here another Delta handle) committed since: its log entry exists."""
    store = Store(tmp_path)
    store.write_table("matches", _matches(["a"]))
    seen = store.version("matches")
    assert seen is not None and store.data_files("matches") == store.data_files("matches", seen)
    path = store.table_path("matches")
    write_deltalake(f"file://{path}", _matches(["b", "c"]), mode="overwrite")
    assert store.version("matches") == seen + 1
    assert sorted(store.read_table("matches")["match_id"].to_pylist()) == ["b", "c"]
    assert len(store.data_files("matches", seen)) == 1
    assert store.data_files("matches") != store.data_files("matches", seen)


def test_a_table_created_anew_at_its_path_is_read_anew(tmp_path: Path) -> None:
    """A table removed and written again up to the same version number is another table: its
    files, not those the process kept open for the old one, are listed."""
    import shutil

    store = Store(tmp_path)
    uri = f"file://{store.table_path('matches')}"
    for ids in (["a"], ["b"]):
        write_deltalake(uri, _matches(ids), mode="overwrite")
    version = store.version("matches")
    assert version == 1
    old = store.data_files("matches", version)
    shutil.rmtree(store.table_path("matches"))
    for ids in (["c"], ["d"]):
        write_deltalake(uri, _matches(ids), mode="overwrite")
    new = store.data_files("matches", version)
    assert new != old and pq.read_table(new[0])["match_id"].to_pylist() == ["d"]


def test_a_whole_read_is_kept_for_the_next_at_the_same_version(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A second whole read of a table's version (same columns) reads no file; a new version, other
    columns or a filter are read from the files."""
    from pipelines.storage import tables

    store = Store(tmp_path)
    store.write_table("matches", _matches(["a", "b"]))
    first = store.read_table("matches")
    scans = []
    real_scan = tables.scan
    monkeypatch.setattr(tables, "scan", lambda *a: scans.append(a) or real_scan(*a))
    assert store.read_table("matches") is first
    assert scans == []
    assert store.read_table("matches", ["match_id"])["match_id"].to_pylist() == ["a", "b"]
    assert store.read_table("matches", where=of_matches(["a"])).num_rows == 1
    assert len(scans) == 2
    store.write_table("matches", _matches(["c"]))
    assert store.read_table("matches")["match_id"].to_pylist() == ["c"]
    assert len(scans) == 3


def test_a_table_is_a_delta_table_with_the_schema_enforced(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.write_table("matches", _matches(["a"]))
    table = DeltaTable(str(store.table_path("matches")))
    assert table.schema().to_arrow().names == MATCHES.names
    with pytest.raises(Exception, match=r"(?i)schema"):
        write_deltalake(str(store.table_path("matches")), pa.table({"match_id": [1]}), mode="append")
    assert store.read_table("matches")["match_id"].to_pylist() == ["a"]


def test_readers_of_a_published_run_keep_it(tmp_path: Path) -> None:
    """Readers of the published snapshot keep reading while later runs replace its tables."""
    store = Store(tmp_path)
    store.write_table("matches", _matches(["a"]))
    store.publish(store.snapshot())
    reader = connect(tmp_path)
    for ids in (["b"], ["c"], ["d"]):
        store.write_table("matches", _matches(ids))
    assert reader.execute("SELECT match_id FROM matches").fetchall() == [("a",)]
    assert store.publish(store.snapshot())
    assert not store.publish(store.snapshot())
    assert connect(tmp_path).execute("SELECT match_id FROM matches").fetchall() == [("d",)]
    first = store.runs()[0].run
    assert first is not None
    assert connect(tmp_path, as_of=first).execute("SELECT match_id FROM matches").fetchall() == [("a",)]
    with pytest.raises(UnknownRunError, match=r"no run 99 .* published runs: 0, 1"):
        connect(tmp_path, as_of=99)


def test_writing_the_same_content_again_changes_nothing(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.write_table("matches", _matches(["a", "b"]))
    live = store.version("matches")
    store.write_table("matches", _matches(["a", "b"]))
    assert store.version("matches") == live
    store.write_table("matches", _matches(["b", "a"]))
    assert store.version("matches") != live


def test_partitioned_write_reads_back_with_partition_column_typed(tmp_path: Path) -> None:
    store = Store(tmp_path)
    table = pa.Table.from_pylist(
        [
            {"match_id": "a", "deal_no": 1, "rules": "national"},
            {"match_id": "b", "deal_no": 2, "rules": "bcta"},
        ],
        schema=DEALS,
    )
    store.write_table("deals", table, partition_by=["rules"])
    folders = {p.name for p in store.table_path("deals").iterdir() if not p.name.startswith("_")}
    assert folders == {"rules=national", "rules=bcta"}
    got = store.read_table("deals").sort_by("match_id")
    assert got.schema.equals(DEALS, check_metadata=False)
    assert got["rules"].to_pylist() == ["national", "bcta"]
    view = committed(tmp_path).execute("SELECT rules FROM deals ORDER BY match_id").fetchall()
    assert view == [("national",), ("bcta",)]


def test_bad_table_fails_before_anything_changes(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.write_table("matches", _matches(["a"]))
    with pytest.raises(KeyError):
        store.write_table("matches", pa.table({"wrong": [1]}))
    assert store.read_table("matches")["match_id"].to_pylist() == ["a"]


def test_reader_never_sees_a_half_written_table(tmp_path: Path) -> None:
    """Concurrent full replaces of a 2-row table: every read sees exactly 2 rows (atomic swap)."""
    store = Store(tmp_path)
    store.write_table("matches", _matches(["x0", "y0"]))
    stop = threading.Event()

    def writer() -> None:
        i = 0
        while not stop.is_set():
            i += 1
            store.write_table("matches", _matches([f"x{i}", f"y{i}"]))

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        sizes = {store.read_table("matches").num_rows for _ in range(200)}
    finally:
        stop.set()
        thread.join()
    assert sizes == {2}


def _raw(ids: list[str]) -> pa.Table:
    at = datetime(2026, 6, 18, tzinfo=UTC)
    rows = [{"source_file": "a.jsonl", "line_no": 1, "match_id": m, "payload": "{}", "content_hash": "h",
             "ingested_at": at} for m in ids]
    return pa.Table.from_pylist(rows, schema=RAW_EVENTS)


def test_an_appended_batch_is_read_once_committed_and_rolled_back_when_not(tmp_path: Path) -> None:
    store = Store(tmp_path)
    for batch, ids in (("b1", ["a"]), ("b2", ["b"])):
        pq.write_table(_matches(ids), store.stage_file(batch, "matches"))
        versions = store.publish_batch(batch)
        assert list(versions) == ["matches"]
        assert store.read_table("matches").num_rows == (0 if batch == "b1" else 1)
        store.commit(batch, versions)
    assert sorted(store.read_table("matches")["match_id"].to_pylist()) == ["a", "b"]
    assert store.committed_batches() == ("b1", "b2")
    pq.write_table(_matches(["c"]), store.stage_file("b3", "matches"))
    store.publish_batch("b3")
    assert sorted(store.read_table("matches")["match_id"].to_pylist()) == ["a", "b"]
    assert store.recover() == ["matches"]
    assert not store.staging_dir.exists()
    latest = DeltaTable(str(store.table_path("matches"))).to_pyarrow_table()
    assert sorted(latest["match_id"].to_pylist()) == ["a", "b"]
    assert store.recover() == []


def test_a_retried_batch_is_not_appended_twice(tmp_path: Path) -> None:
    store = Store(tmp_path)
    path = store.table_path("matches")
    first = store.append(path, _matches(["a"]), "b1")
    assert store.append(path, _matches(["a"]), "b1") == first
    assert DeltaTable(str(path)).to_pyarrow_table().num_rows == 1


def test_a_table_a_crashed_first_step_created_is_removed(tmp_path: Path) -> None:
    store = Store(tmp_path)
    pq.write_table(_matches(["a"]), store.stage_file("b1", "matches"))
    store.publish_batch("b1")
    assert store.read_table("matches").num_rows == 0
    assert store.recover() == ["matches"]
    assert not store.table_path("matches").exists()


def test_staged_batch_is_invisible_to_readers(tmp_path: Path) -> None:
    store = Store(tmp_path)
    pq.write_table(_matches(["a"]), store.stage_file("b1", "matches"))
    assert store.read_table("matches").num_rows == 0
    assert committed(tmp_path).execute("SELECT count(*) FROM matches").fetchone() == (0,)


def test_batch_files_of_one_partition(tmp_path: Path) -> None:
    store = Store(tmp_path)
    for batch in ("b1", "b2"):
        for bucket in (1, 2):
            staged = store.stage_file(batch, "raw_events", {"bucket": bucket})
            pq.write_table(_raw([f"{batch}m{bucket}"]), staged)
        store.commit(batch, store.publish_batch(batch))
    files = store.batch_files("raw_events", ["b2"], {"bucket": 2})
    assert store.read_files("raw_events", files)["match_id"].to_pylist() == ["b2m2"]
    assert len(store.batch_files("raw_events", ["b1", "b2"])) == 4
    assert store.read_table("raw_events").schema.equals(RAW_EVENTS, check_metadata=False)


def test_files_written_by_others_are_not_read_and_are_reported(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.write_table("matches", _matches(["a"]))
    pq.write_table(_raw(["b"]), store.stage_file("b1", "raw_events", {"bucket": 1}))
    store.commit("b1", store.publish_batch("b1"))
    assert store.foreign_files() == []
    pq.write_table(_matches(["evil"]), store.table_path("matches") / "evil.parquet")
    batch_folder = Path(store.batch_files("raw_events", ["b1"])[0]).parent
    pq.write_table(_raw(["evil"]), batch_folder / "evil.parquet")
    (store.tables_dir / "stray.txt").write_text("x")
    assert store.read_table("matches")["match_id"].to_pylist() == ["a"]
    assert store.read_table("raw_events")["match_id"].to_pylist() == ["b"]
    foreign = store.foreign_files()
    assert foreign == sorted([store.table_path("matches") / "evil.parquet", batch_folder / "evil.parquet",
                              store.tables_dir / "stray.txt"])


def test_maintain_compacts_and_vacuums_and_keeps_the_rows(tmp_path: Path) -> None:
    store = Store(tmp_path)
    for i in range(4):
        batch = f"b{i}"
        pq.write_table(_matches([f"m{i}"]), store.stage_file(batch, "matches"))
        store.commit(batch, store.publish_batch(batch))
    store.publish(store.snapshot())
    for ids in (["x"], ["y"]):
        players = [{"player_id": p, "declared_in": "m", "matches": 1} for p in ids]
        store.write_table("players", pa.Table.from_pylist(players, schema=PLAYERS))
    store.publish(store.snapshot())
    rows = sorted(store.read_table("matches")["match_id"].to_pylist())
    kept = store.maintain(retention_days=7)
    assert kept["files_compacted"] >= 4
    assert kept["files_vacuumed"] == 0
    assert kept["bytes_after"] > 0
    report = store.maintain(retention_days=0)
    assert report["files_vacuumed"] >= 4 + 1
    assert report["bytes_after"] < report["bytes_before"]
    after = connect(tmp_path).execute("SELECT match_id FROM matches").fetchall()
    assert sorted(after) == [(m,) for m in rows]
    assert connect(tmp_path).execute("SELECT player_id FROM players").fetchall() == [("y",)]


def test_filtered_reads_of_files_a_delete_rewrote(tmp_path: Path) -> None:
    """A Delta DELETE rewrites a file with ``string_view`` strings, which pyarrow's filter kernels
    refuse; reads by match keep working on it and on the untouched files beside it."""
    store = Store(tmp_path)
    for batch, ids in (("b0", ["m0", "m1", "m2"]), ("b1", ["m3", "m4"])):
        pq.write_table(_matches(ids), store.stage_file(batch, "matches"))
        store.commit(batch, store.publish_batch(batch))
    assert store.delete_rows("matches", "match_id", ["m0"]) == 1
    store.commit(None, store.unnamed_versions())
    files = [Path(f) for f in store.data_files("matches")]
    assert {str(pq.read_schema(f).field("match_id").type) for f in files} == {"string", "string_view"}
    wanted = of_matches(["m1", "m4", "m9"])
    by_table = store.read_table("matches", ["match_id"], where=wanted)["match_id"].to_pylist()
    assert sorted(by_table) == ["m1", "m4"]
    read = store.read_files("matches", files, columns=["match_id", "status"], where=wanted)
    assert read.schema == pa.schema([MATCHES.field("match_id"), MATCHES.field("status")])
    assert sorted(read["match_id"].to_pylist()) == ["m1", "m4"]
    assert store.read_files("matches", files, columns=["match_id"]).num_rows == 4


@pytest.mark.parametrize("first", ["string", "string_view"])
def test_views_read_files_a_delete_rewrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, first: str
) -> None:
    """A view binds its table's files by the first one's columns: a file of ``string_view``
    strings (rewritten by a Delta DELETE) and plain files read together, whichever comes first."""
    store = Store(tmp_path)
    for batch, ids in (("b0", ["m0", "m1", "m2"]), ("b1", ["m3", "m4"])):
        pq.write_table(_matches(ids), store.stage_file(batch, "matches"))
        store.commit(batch, store.publish_batch(batch))
    store.delete_rows("matches", "match_id", ["m0"])
    store.commit(None, store.unnamed_versions())
    listed = store.data_files("matches")
    ordered = sorted(listed, key=lambda f: str(pq.read_schema(f).field("match_id").type) != first)
    monkeypatch.setattr(Store, "data_files", lambda self, name, version=None: ordered)
    assert str(pq.read_schema(ordered[0]).field("match_id").type) == first
    con = connect(tmp_path, snapshot=store.snapshot(), tables=["matches"])
    rows = con.execute("SELECT match_id, status FROM matches ORDER BY match_id").fetchall()
    assert rows == [(m, "valid") for m in ("m1", "m2", "m3", "m4")]


def test_writer_lock_is_exclusive(tmp_path: Path) -> None:
    store = Store(tmp_path)
    order: list[str] = []
    with store.writer_lock():
        thread = threading.Thread(target=lambda: _locked(store, order))
        thread.start()
        thread.join(timeout=0.2)
        order.append("first done")
    thread.join()
    assert order == ["first done", "second"]


def test_writer_lock_is_reentrant_in_one_thread(tmp_path: Path) -> None:
    store = Store(tmp_path)
    with store.writer_lock(), Store(tmp_path).writer_lock():
        store.write_table("matches", _matches(["a"]))
    assert store.read_table("matches").num_rows == 1


def test_waiting_for_another_thread_of_this_process_is_silent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Steps running two at a time wait for each other's writes without the "waiting for the
    writer (pid …)" notice, which is about other processes: another holder of the file lock (here
    a lock object of its own, as another process has) is announced."""
    notices: list[int | None] = []
    monkeypatch.setattr(lock_module, "lock_wait_notices", [notices.append])
    refused = threading.Event()
    real = lock_module._acquired_now

    def try_once(lock: FileLock) -> bool:
        got = real(lock)
        if not got:
            refused.set()
        return got

    monkeypatch.setattr(lock_module, "_acquired_now", try_once)
    store = Store(tmp_path)
    order: list[str] = []
    with store.writer_lock():
        thread = threading.Thread(target=lambda: _locked(store, order))
        thread.start()
        assert refused.wait(60)
        order.append("first done")
    thread.join()
    assert order == ["first done", "second"]
    assert notices == []
    other = FileLock(store.lock.path, is_singleton=False, thread_local=False)
    with other:
        refused.clear()
        thread = threading.Thread(target=lambda: _locked(store, order))
        thread.start()
        assert refused.wait(60)
    thread.join()
    assert len(notices) == 1


def _locked(store: Store, order: list[str]) -> None:
    with store.writer_lock():
        order.append("second")


def test_store_root_is_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert Store("data").root == tmp_path / "data"


def test_a_table_fingerprint_is_the_hash_of_its_ipc_stream_and_partitioning() -> None:
    """``write_table`` skips a write whose fingerprint the table already carries: it is the
    sha256 of the Arrow IPC stream (hashed as it is written, never held whole) and the partition
    columns, so the same rows in the same batches always give the same fingerprint."""
    import hashlib

    from pipelines.storage.table_writes import _fingerprint

    chunk = pa.table({"match_id": [f"m{i}" for i in range(5000)], "seq": list(range(5000))})
    table = pa.concat_tables([chunk, chunk.slice(10, 300), chunk])
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    for partition_by in (None, ["match_id"]):
        expected = hashlib.sha256(sink.getvalue().to_pybytes() + repr(partition_by).encode()).hexdigest()
        assert _fingerprint(table, partition_by) == expected
    assert _fingerprint(table, None) != _fingerprint(table.slice(1), None)
