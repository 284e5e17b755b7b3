"""`gdan sql` only reads the store's tables: writes, file output, ATTACH, INSTALL/LOAD, settings
and reading files outside the store are refused with a clear message (exit 1)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner, Result

from gdan import app
from gdan.sandbox import RefusedQueryError, check_query
from pipelines.storage.store import Store

runner = CliRunner()


def _sql(store: Path, query: str) -> Result:
    return runner.invoke(app, ["sql", query, "--store", str(store), "-f", "csv"], env={"COLUMNS": "200"})


def _said(result: Result) -> str:
    return " ".join(result.stderr.split())


@pytest.mark.parametrize(
    ("query", "kind"),
    [
        ("DROP VIEW matches", "DROP"),
        ("CREATE TABLE t AS SELECT 1", "CREATE"),
        ("INSERT INTO matches SELECT * FROM matches", "INSERT"),
        ("ATTACH 'other.duckdb' AS other", "ATTACH"),
        ("INSTALL httpfs", "LOAD"),
        ("LOAD httpfs", "LOAD"),
        ("SET enable_external_access = true", "SET"),
        ("EXPORT DATABASE 'dump'", "EXPORT"),
        ("SELECT 1; DROP VIEW matches", "DROP"),
        ("EXPLAIN ANALYZE DROP VIEW matches", "DROP"),
    ],
)
def test_statements_that_write_or_reconfigure_are_refused(sim_store: Path, query: str, kind: str) -> None:
    result = _sql(sim_store, query)
    assert result.exit_code == 1
    assert "refused: `gdan sql` only reads" in _said(result) and f"a {kind} statement" in _said(result)
    assert result.stdout == ""
    assert _sql(sim_store, "SELECT count(*) AS n FROM matches").stdout.splitlines()[0] == "n"


def test_copy_to_a_file_is_refused_and_writes_nothing(sim_store: Path, tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    result = _sql(sim_store, f"COPY (SELECT * FROM matches) TO '{target}'")
    assert result.exit_code == 1
    assert "a COPY statement" in _said(result)
    assert not target.exists()


def test_reading_files_outside_the_store_fails_even_in_a_select(sim_store: Path, tmp_path: Path) -> None:
    """Also through a path that starts inside the store's tables and climbs out with ``..``."""
    secret = tmp_path / "secret.csv"
    secret.write_text("a\n424242\n")
    parquet = tmp_path / "other.parquet"
    duckdb.sql(f"COPY (SELECT 424242 AS a) TO '{parquet}'")
    tables = Store(sim_store).tables_dir
    climbing = f"{tables}/{os.path.relpath(parquet, tables)}"
    for query in (
        f"SELECT * FROM read_csv('{secret}')",
        f"SELECT * FROM read_parquet('{parquet}')",
        f"SELECT * FROM read_parquet('{climbing}')",
        "SELECT * FROM read_text('/etc/hostname')",
    ):
        result = _sql(sim_store, query)
        assert result.exit_code == 1, query
        assert "query failed" in _said(result) and "424242" not in result.stdout


@pytest.mark.parametrize(
    "query",
    [
        "SELECT status, count(*) AS n FROM matches GROUP BY ALL",
        "FROM deals LIMIT 1",
        "DESCRIBE matches",
        "SUMMARIZE deals",
        "EXPLAIN SELECT * FROM plays",
        "SELECT 1 AS a; SELECT 2 AS b",
    ],
)
def test_reading_queries_still_work(sim_store: Path, query: str) -> None:
    result = _sql(sim_store, query)
    assert result.exit_code == 0, result.output
    assert result.stdout.strip()


def test_the_check_looks_at_every_statement() -> None:
    check_query("SELECT 1; SELECT 2")
    with pytest.raises(RefusedQueryError, match="a DROP statement"):
        check_query("SELECT 1; DROP VIEW x")


def test_duckdbs_spill_folder_does_not_open_the_working_directory(
    sim_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DuckDB lets a query read its spill folder, by default ``.tmp`` in the working directory:
    a file there is outside the store like any other. The private spill folder ``gdan sql`` uses
    instead is removed when the query is done."""
    (tmp_path / ".tmp").mkdir()
    (tmp_path / ".tmp" / "secret.txt").write_text("424242\n")
    temp_root = tmp_path / "temp_root"
    temp_root.mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(temp_root))
    for query in (
        "SELECT * FROM read_text('.tmp/secret.txt')",
        f"SELECT * FROM read_text('{tmp_path}/.tmp/*')",
    ):
        result = _sql(sim_store, query)
        assert result.exit_code == 1, query
        assert "query failed" in _said(result) and "424242" not in result.stdout
    assert _sql(sim_store, "SELECT count(*) AS n FROM matches").exit_code == 0
    assert list(temp_root.iterdir()) == []
