"""Append batches are committed as Delta add actions of the staged files themselves: no row is
re-encoded, the table reads whole with DuckDB, polars and pyarrow,
the files carry data-skipping statistics, and a publish that crashed between placing its files
and committing them leaves nothing that a later run reads or that the store check reports."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from deltalake import DeltaTable

from pipelines.storage import staging
from pipelines.storage.store import Store
from schemas.tables import DEAL_HANDS, RAW_EVENTS

AT = datetime(2026, 1, 1, tzinfo=UTC)


def _raw(ids: list[str], parse_error: str | None = None) -> pa.Table:
    rows = [{"source_file": "a.jsonl", "line_no": i, "match_id": m, "seq": i, "type": "match_start",
             "payload": "{}", "content_hash": f"h{i}", "parse_error": parse_error, "ingested_at": AT,
             "revision": None} for i, m in enumerate(ids)]
    return pa.Table.from_pylist(rows, schema=RAW_EVENTS)


def _hands(ids: list[str]) -> pa.Table:
    rows = [{"match_id": m, "deal_no": 1, "seat": s, "hand": ["S2", "HR"], "jokers": None}
            for m in ids for s in "ENWS"]
    return pa.Table.from_pylist(rows, schema=DEAL_HANDS)


def _publish(store: Store, batch: str, raw: dict[int, list[str]], hands: list[str]) -> dict[str, int]:
    for bucket, ids in raw.items():
        pq.write_table(_raw(ids), store.stage_file(batch, "raw_events", {"bucket": bucket}))
    pq.write_table(_hands(hands), store.stage_file(batch, "deal_hands"))
    versions = store.publish_batch(batch)
    store.commit(batch, versions)
    return versions


def test_a_published_batch_is_its_staged_files_added_not_rewritten(tmp_path: Path) -> None:
    store = Store(tmp_path)
    staged = store.stage_file("b1", "deal_hands")
    pq.write_table(_hands(["m1"]), staged, store_schema=False)
    inode = staged.stat().st_ino
    store.commit("b1", store.publish_batch("b1"))
    files = store.data_files("deal_hands")
    assert [Path(f).stat().st_ino for f in files] == [inode], "the staged file itself, linked"
    history = DeltaTable(store.table_path("deal_hands").as_uri()).history()
    assert history[0]["gdan.batch"] == "b1"


def test_a_table_of_add_actions_reads_whole_with_duckdb_polars_and_pyarrow(tmp_path: Path) -> None:
    store = Store(tmp_path)
    _publish(store, "b1", {0: ["m1", "m2"], 3: ["m3"]}, ["m1", "m2"])
    _publish(store, "b2", {3: ["m4"]}, ["m3"])
    for name, expected in (("raw_events", ["m1", "m2", "m3", "m4"]), ("deal_hands", ["m1", "m2", "m3"])):
        uri = store.table_path(name).as_uri()
        arrow = DeltaTable(uri).to_pyarrow_table()
        frame = pl.read_delta(uri)
        files = ", ".join(f"'{f}'" for f in DeltaTable(uri).file_uris())
        with duckdb.connect() as con:
            duck = con.execute(
                f"SELECT DISTINCT match_id FROM read_parquet([{files}], hive_partitioning = true) ORDER BY 1"
            ).fetchall()
        assert sorted(set(arrow["match_id"].to_pylist())) == expected
        assert sorted(set(frame["match_id"].to_list())) == expected
        assert [m for (m,) in duck] == expected
        assert frame.height == arrow.num_rows == store.row_count(name)
        table_schema = DeltaTable(uri).schema().to_arrow()
        partitions = DeltaTable(uri).metadata().partition_columns
        data_schema = pa.schema([f for f in pa.schema(table_schema) if f.name not in partitions])
        for f in store.data_files(name):
            assert pq.read_schema(f).remove_metadata().equals(data_schema), f
    raw = DeltaTable(store.table_path("raw_events").as_uri()).to_pyarrow_table()
    assert sorted(zip(raw["match_id"].to_pylist(), raw["bucket"].to_pylist(), raw["batch"].to_pylist(),
                      strict=True)) == [("m1", 0, "b1"), ("m2", 0, "b1"), ("m3", 3, "b1"), ("m4", 3, "b2")]
    assert pl.read_delta(store.table_path("raw_events").as_uri()).filter(pl.col("bucket") == 3).height == 2


def test_add_actions_carry_the_footer_statistics(tmp_path: Path) -> None:
    store = Store(tmp_path)
    staged = store.stage_file("b1", "raw_events", {"bucket": 1})
    pq.write_table(_raw(["m2", "m1", "m9"], parse_error="bad"), staged)
    store.commit("b1", store.publish_batch("b1"))
    table = DeltaTable(store.table_path("raw_events").as_uri())
    (row,) = pa.table(table.get_add_actions(flatten=True)).to_pylist()
    assert row["num_records"] == 3
    assert (row["min.match_id"], row["max.match_id"]) == ("m1", "m9")
    assert (row["min.line_no"], row["max.line_no"]) == (0, 2)
    assert row["null_count.parse_error"] == 0 and row["null_count.revision"] == 3
    assert row["partition.batch"] == "b1" and row["partition.bucket"] == 1
    pruned = table.file_uris(file_pruning_predicate=[("match_id", "=", "zz")])
    assert pruned == [], "a file whose match ids are all below 'zz' is skipped by its statistics"


def test_a_staged_file_of_another_schema_is_rewritten_in_the_tables(tmp_path: Path) -> None:
    store = Store(tmp_path)
    loose = pa.schema([pa.field(f.name, f.type) for f in reversed(DEAL_HANDS)])  # nullable, reordered
    pq.write_table(_hands(["m1"]).select(loose.names).cast(loose), store.stage_file("b1", "deal_hands"))
    store.commit("b1", store.publish_batch("b1"))
    (file,) = store.data_files("deal_hands")
    assert pq.read_schema(file).remove_metadata().equals(DEAL_HANDS.remove_metadata())
    assert store.read_table("deal_hands").num_rows == 4


def test_a_retried_publish_adds_each_file_once(tmp_path: Path) -> None:
    store = Store(tmp_path)
    pq.write_table(_hands(["m1"]), store.stage_file("b1", "deal_hands"))
    first = store.publish_batch("b1")
    pq.write_table(_hands(["m1"]), store.stage_file("b1", "deal_hands"))
    assert store.publish_batch("b1") == first
    assert DeltaTable(store.table_path("deal_hands").as_uri()).to_pyarrow_table().num_rows == 4


@pytest.mark.parametrize("first", [True, False], ids=["first batch of the table", "later batch"])
def test_files_of_a_publish_that_crashed_before_its_commit_are_removed_by_recover(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, first: bool
) -> None:
    store = Store(tmp_path)
    if not first:
        _publish(store, "b0", {1: ["m0"]}, ["m0"])
    before = {n: store.data_files(n) for n in ("raw_events", "deal_hands")}

    def crash(*args: object, **kwargs: object) -> None:
        raise OSError("power cut between placing the files and committing them")

    monkeypatch.setattr(staging, "_commit_adds", crash)
    pq.write_table(_raw(["m1"]), store.stage_file("b1", "raw_events", {"bucket": 1}))
    pq.write_table(_hands(["m1"]), store.stage_file("b1", "deal_hands"))
    with pytest.raises(OSError, match="power cut"):
        store.publish_batch("b1")
    placed = [p for p in store.tables_dir.rglob("part-b1-*")]
    assert placed and set(store.foreign_files()) >= set(placed), "not committed: foreign until recovered"
    store.recover()
    assert store.foreign_files() == []
    assert not [p for p in store.tables_dir.rglob("part-b1-*")]
    assert {n: store.data_files(n) for n in ("raw_events", "deal_hands")} == before
    if first:
        assert not store.tables_dir.exists() or not any(store.tables_dir.iterdir())
    monkeypatch.undo()
    _publish(store, "b2", {1: ["m1"]}, ["m1"])
    assert sorted(set(store.read_table("deal_hands")["match_id"].to_pylist())) == (
        ["m1"] if first else ["m0", "m1"])


def test_committed_rows_count_from_the_log_what_a_read_returns(tmp_path: Path) -> None:
    """``gdan run`` counts the quarantine rows from the add actions' ``numRecords`` (no file read),
    also after a correction's ``delete_rows`` and while a batch is published but not committed."""
    store = Store(tmp_path)
    assert store.committed_rows("deal_hands") == 0
    _publish(store, "b1", {1: ["m1"]}, ["m1", "m2", "m3"])
    store.delete_rows("deal_hands", "match_id", ["m2"])
    store.commit(None, store.unnamed_versions())
    pq.write_table(_hands(["m4"]), store.stage_file("b2", "deal_hands"))
    store.publish_batch("b2")
    assert store.committed_rows("deal_hands") == store.read_table("deal_hands").num_rows == 8
    assert store.committed_rows("raw_events") == 1
