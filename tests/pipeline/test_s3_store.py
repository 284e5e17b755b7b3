"""A store on S3-compatible object storage (moto's server) gives the tables of a local folder:
`gdan ingest`, `gdan run` and `gdan sql` on ``s3://bucket/prefix``, a publish cut off at any point
leaves readers the last whole run and a rerun the same tables, one writer at a time."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from gdan import app
from pipelines.storage import mirror
from pipelines.storage.remote import readable
from tests.pipeline.pipeline_helpers import store_tables
from tests.pipeline.s3_server import s3_endpoint, s3_store

__all__ = ["s3_endpoint", "s3_store"]

runner = CliRunner()
QUERY = "SELECT match_id, status, deals_played FROM matches ORDER BY match_id"


def _corpus(folder: Path, seed: int) -> Path:
    from simulator import simulate_to_dir

    simulate_to_dir(folder, "tournament", pairs=4, rounds=1, format="deals:2", seed=seed)
    return folder


def _gdan(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output + repr(result.exception)
    return result.stdout


def _ingest_and_run(store: str, source: Path) -> str:
    """`gdan ingest`, `gdan run` and `gdan sql` on ``store``; returns the query's CSV."""
    _gdan("ingest", str(source), "--store", store)
    _gdan("run", "--store", store, "--workers", "1")
    return _gdan("sql", QUERY, "--store", store, "--format", "csv")


@pytest.mark.parametrize("where", ["local", "s3"])
def test_ingest_run_and_sql_give_the_tables_of_a_local_folder(
    where: str, s3_store: str, tmp_path: Path
) -> None:
    source = _corpus(tmp_path / "day", seed=3)
    local = str(tmp_path / "local")
    expected = _ingest_and_run(local, source)
    store = s3_store if where == "s3" else str(tmp_path / "second")
    assert _ingest_and_run(store, source) == expected
    assert len(expected.splitlines()) > 1
    assert store_tables(readable(Path(store))) == store_tables(Path(local))


def test_a_publish_cut_off_leaves_the_last_run_and_the_rerun_gives_the_same_tables(
    s3_store: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = _corpus(tmp_path / "day1", seed=5), _corpus(tmp_path / "day2", seed=6)
    local = str(tmp_path / "local")
    after_first = _ingest_and_run(local, first)
    _ingest_and_run(local, second)
    assert _ingest_and_run(s3_store, first) == after_first
    _gdan("ingest", str(second), "--store", s3_store)

    def cut(relative: str) -> None:
        if relative.startswith(mirror.COMMIT_LOG_PREFIX):
            raise ConnectionError(f"connection lost before {relative}")

    monkeypatch.setattr(mirror, "push_steps", [cut])
    crashed = runner.invoke(app, ["run", "--store", s3_store, "--workers", "1"])
    assert crashed.exit_code != 0 and isinstance(crashed.exception, ConnectionError)
    monkeypatch.setattr(mirror, "push_steps", [])

    monkeypatch.setenv("GDAN_CACHE", str(tmp_path / "reader-host"))
    assert _gdan("sql", QUERY, "--store", s3_store, "--format", "csv") == after_first
    for host in ("host-a", "host-b"):  # the crashed writer's own copy, and a fresh one
        monkeypatch.setenv("GDAN_CACHE", str(tmp_path / host))
        _gdan("run", "--store", s3_store, "--workers", "1")
    monkeypatch.setenv("GDAN_CACHE", str(tmp_path / "reader-host"))
    assert store_tables(readable(Path(s3_store))) == store_tables(Path(local))
