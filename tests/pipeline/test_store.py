"""The store's table I/O: typed reads, atomic full replace, append batches and crash recovery."""

from __future__ import annotations

import threading
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pipeline_helpers import committed

from pipelines.state import StoreState, save_state
from pipelines.store import Store, UnknownTableError
from pipelines.warehouse import connect
from schemas.catalog import ALL_TABLES
from schemas.tables import DEALS, MATCHES


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


def test_write_replaces_whole_table_and_keeps_one_previous_version(tmp_path: Path) -> None:
    store = Store(tmp_path)
    files = []
    for ids in (["a"], ["b"], ["c", "d"]):
        store.write_table("matches", _matches(ids))
        files.append(store.files("matches"))
    assert sorted(store.read_table("matches")["match_id"].to_pylist()) == ["c", "d"]
    assert [all(f.exists() for f in version) for version in files] == [False, True, True]
    assert committed(tmp_path).execute("SELECT count(*) FROM matches").fetchone() == (2,)


def test_versions_of_the_published_snapshot_are_kept(tmp_path: Path) -> None:
    """Readers of the published snapshot keep reading while later runs replace its tables."""
    store = Store(tmp_path)
    store.write_table("matches", _matches(["a"]))
    store.publish(store.snapshot())
    reader = connect(tmp_path)
    for ids in (["b"], ["c"], ["d"]):
        store.write_table("matches", _matches(ids))
    assert reader.execute("SELECT match_id FROM matches").fetchall() == [("a",)]
    store.publish(store.snapshot())
    assert connect(tmp_path).execute("SELECT match_id FROM matches").fetchall() == [("d",)]


def test_writing_the_same_content_again_changes_nothing(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.write_table("matches", _matches(["a", "b"]))
    live = store.table_path("matches").resolve()
    store.write_table("matches", _matches(["a", "b"]))
    assert store.table_path("matches").resolve() == live
    store.write_table("matches", _matches(["b", "a"]))
    assert store.table_path("matches").resolve() != live


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
    folders = {p.name for p in store.table_path("deals").iterdir() if not p.name.startswith(".")}
    assert folders == {"rules=national", "rules=bcta"}
    got = store.read_table("deals").sort_by("match_id")
    assert got.schema.equals(DEALS, check_metadata=False)
    assert got["rules"].to_pylist() == ["national", "bcta"]


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


def _commit(store: Store, batches: list[str]) -> None:
    save_state(store.state_dir, StoreState(committed=batches))


def test_published_batch_appends_once_committed_and_uncommitted_batches_are_recovered(tmp_path: Path) -> None:
    store = Store(tmp_path)
    for batch, ids in (("b1", ["a"]), ("b2", ["b"])):
        pq.write_table(_matches(ids), store.stage_file(batch, "matches"))
        assert store.publish_batch(batch) == ["matches"]
    assert store.read_table("matches").num_rows == 0
    _commit(store, ["b1", "b2"])
    assert sorted(store.read_table("matches")["match_id"].to_pylist()) == ["a", "b"]
    pq.write_table(_matches(["c"]), store.stage_file("b3", "matches"))
    _commit(store, ["b1"])
    assert store.read_table("matches")["match_id"].to_pylist() == ["a"]
    assert store.recover(committed={"b1"}) == [("matches", "b2")]
    assert not store.staging_dir.exists()
    assert store.batch_ids("matches") == {"b1"}


def test_staged_batch_is_invisible_to_readers(tmp_path: Path) -> None:
    store = Store(tmp_path)
    pq.write_table(_matches(["a"]), store.stage_file("b1", "matches"))
    assert store.read_table("matches").num_rows == 0
    assert committed(tmp_path).execute("SELECT count(*) FROM matches").fetchone() == (0,)


def test_batch_files_of_one_partition(tmp_path: Path) -> None:
    store = Store(tmp_path)
    for bucket in (1, 2):
        pq.write_table(_matches([f"m{bucket}"]), store.stage_file("b1", "matches", {"bucket": bucket}))
    store.publish_batch("b1")
    _commit(store, ["b1"])
    files = store.batch_files("matches", ["b1"], {"bucket": 2})
    assert store.read_files(files)["match_id"].to_pylist() == ["m2"]
    assert len(store.files("matches")) == 2


def test_files_written_by_others_are_not_read_and_are_reported(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.write_table("matches", _matches(["a"]))
    pq.write_table(_matches(["b"]), store.stage_file("b1", "matches"))
    store.publish_batch("b1")
    _commit(store, ["b1"])
    assert store.foreign_files() == []
    pq.write_table(_matches(["evil"]), store.table_path("matches") / "evil.parquet")
    batch_folder = next(f.parent for f in store.files("matches") if "b1" in str(f))
    pq.write_table(_matches(["evil"]), batch_folder / "evil.parquet")
    (store.tables_dir / "stray.txt").write_text("x")
    assert sorted(store.read_table("matches")["match_id"].to_pylist()) == ["a", "b"]
    foreign = store.foreign_files()
    assert len(foreign) == 3
    assert store.table_path("matches") / "evil.parquet" in foreign
    assert store.tables_dir / "stray.txt" in foreign


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


def _locked(store: Store, order: list[str]) -> None:
    with store.writer_lock():
        order.append("second")


def test_store_root_is_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert Store("data").root == tmp_path / "data"
