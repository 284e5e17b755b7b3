"""Staged part files (``pipelines.storage.staged_parts``) and the match filter that skips row groups
(``pipelines.storage.delta.of_matches``): what keeps a 1M-deal run's writers and reads bounded."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from pipelines.storage import staged_parts
from pipelines.storage.delta import of_matches
from pipelines.storage.staged_parts import PartWriter

SCHEMA = pa.schema([pa.field("match_id", pa.string()), pa.field("seq", pa.int64())])


def _rows(match: int, n: int) -> pa.Table:
    return pa.table({"match_id": [f"m{match:04d}"] * n, "seq": list(range(n))}, schema=SCHEMA)


def test_rows_are_buffered_into_row_groups_and_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(staged_parts, "PART_ROW_GROUPS", 2)
    writer = PartWriter(lambda k: tmp_path / f"part-{k}.parquet", SCHEMA, row_group_rows=50)
    tables = [_rows(i, 30) for i in range(10)]
    for table in tables:
        writer.write(table)
    writer.write(SCHEMA.empty_table())
    writer.close()
    parts = sorted(tmp_path.glob("part-*.parquet"))
    assert [p.name for p in parts] == ["part-0.parquet", "part-1.parquet", "part-2.parquet"]
    files = [pq.ParquetFile(p) for p in parts]
    groups = [[f.metadata.row_group(g).num_rows for g in range(f.num_row_groups)] for f in files]
    assert groups == [[60, 60], [60, 60], [60]]
    assert pa.concat_tables(pq.read_table(p) for p in parts).equals(pa.concat_tables(tables))


def _one_part(folder: Path, schema: pa.Schema, tables: list[pa.Table], **options: tuple[str, ...]
              ) -> tuple[Path, dict[str, pq.ColumnChunkMetaData]]:
    """Write ``tables`` through a :class:`PartWriter` with ``options`` into one part file of
    ``folder``; that file and its first row group's column chunks by name."""
    writer = PartWriter(lambda k: folder / f"part-{k}.parquet", schema, row_group_rows=50, **options)
    for table in tables:
        writer.write(table)
    writer.close()
    (path,) = folder.glob("part-*.parquet")
    group = pq.ParquetFile(path).metadata.row_group(0)
    return path, {group.column(c).path_in_schema: group.column(c) for c in range(group.num_columns)}


def test_plain_columns_get_no_dictionary_or_statistics_and_the_others_keep_theirs(tmp_path: Path) -> None:
    """The raw lines' payloads are all different: written plain (``ingest.UNIQUE_COLUMNS``),
    while ``match_id`` keeps the statistics that let a read of a few matches skip row groups."""
    schema = pa.schema([*SCHEMA, pa.field("payload", pa.string())])
    tables = [_rows(i, 30).append_column("payload", pa.array([f"line {i} {j}" for j in range(30)]))
              for i in range(4)]
    path, columns = _one_part(tmp_path, schema, tables, plain=("payload",))
    assert not columns["payload"].has_dictionary_page and not columns["payload"].is_stats_set
    assert columns["match_id"].has_dictionary_page and columns["match_id"].statistics.min == "m0000"
    assert columns["seq"].is_stats_set
    assert pq.read_table(path).equals(pa.concat_tables(tables))


def test_undictionaried_columns_get_no_dictionary_but_keep_their_statistics(tmp_path: Path) -> None:
    """A play's ``seq`` and time hardly repeat: no dictionary, but readers keep their statistics."""
    tables = [_rows(i, 30) for i in range(4)]
    path, columns = _one_part(tmp_path, SCHEMA, tables, undictionaried=("seq",))
    assert not columns["seq"].has_dictionary_page and columns["seq"].is_stats_set
    assert columns["match_id"].has_dictionary_page and columns["match_id"].is_stats_set
    assert pq.read_table(path).equals(pa.concat_tables(tables))


def test_a_writer_given_nothing_writes_no_file(tmp_path: Path) -> None:
    writer = PartWriter(lambda k: tmp_path / f"part-{k}.parquet", SCHEMA)
    writer.write(SCHEMA.empty_table())
    writer.close()
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def ordered_file(tmp_path: Path) -> Path:
    """400 matches of 25 rows in arrival (id) order, 4 matches a row group."""
    path = tmp_path / "raw.parquet"
    pq.write_table(pa.concat_tables(_rows(i, 25) for i in range(400)), path, row_group_size=100)
    return path


def test_of_matches_reads_only_the_row_groups_in_the_ids_range(ordered_file: Path) -> None:
    fragment = next(iter(ds.dataset([str(ordered_file)], format="parquet").get_fragments()))
    wanted = [f"m{i:04d}" for i in range(199, 99, -1)]
    kept = fragment.split_by_row_group(of_matches(wanted))
    assert [rg.id for piece in kept for rg in piece.row_groups] == list(range(25, 50))
    everything = fragment.split_by_row_group(ds.field("match_id").isin(pa.array(wanted)))
    assert len(everything) == 100, "isin of 100 ids now skips row groups: of_matches' range may be redundant"


def test_of_matches_selects_exactly_the_given_matches(ordered_file: Path) -> None:
    wanted = {"m0009", "m0013", "m0399", "zzz"}
    rows = ds.dataset([str(ordered_file)], format="parquet").to_table(filter=of_matches(wanted))
    assert set(rows["match_id"].to_pylist()) == {"m0009", "m0013", "m0399"}
    assert rows.num_rows == 75


def test_of_matches_needs_an_id() -> None:
    with pytest.raises(ValueError, match="at least one match id"):
        of_matches([])
