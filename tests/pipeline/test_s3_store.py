"""A store on S3-compatible object storage (moto's server) gives the tables of a local folder:
`gdan ingest`, `gdan run`, `gdan sql`, `gdan ratings` and `gdan maintain` on
``s3://bucket/prefix`` (a publish cut off at any point: ``test_s3_crash.py``)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gdan import app
from pipelines.storage.remote import readable
from tests.pipeline.pipeline_helpers import store_tables
from tests.pipeline.s3_server import s3_endpoint, s3_store

__all__ = ["s3_endpoint", "s3_store"]

runner = CliRunner()
QUERY = "SELECT match_id, status FROM matches ORDER BY match_id"


def _gdan(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output + repr(result.exception)
    return result.stdout


def _matches(store: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(_gdan("sql", QUERY, "--store", store, "--format", "csv"))))[1:]


def _day(folder: Path, seed: int) -> Path:
    """A small simulated tournament (4 pairs, 1 round of 2 deals) in ``folder``."""
    from simulator import simulate_to_dir

    simulate_to_dir(folder, "tournament", pairs=4, rounds=1, format="deals:2", seed=seed)
    return folder


@pytest.fixture(params=["local", "s3"])
def store_root(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A store root: a local folder, or ``s3://…`` on the test server."""
    if request.param == "local":
        return str(tmp_path / "store")
    return str(request.getfixturevalue("s3_store"))


@pytest.mark.slow  # three runs, ratings and maintain per root: run with -m slow
def test_ingest_run_rerun_and_sql(store_root: str, tmp_path: Path) -> None:
    _gdan("ingest", str(_day(tmp_path / "one", seed=3)), "--store", store_root)
    _gdan("run", "--store", store_root, "--workers", "1")
    first = _matches(store_root)
    assert first and {status for _, status in first} == {"valid"}
    _gdan("run", "--store", store_root, "--workers", "1")
    assert _matches(store_root) == first
    _gdan("ingest", str(_day(tmp_path / "two", seed=4)), "--store", store_root)
    _gdan("run", "--store", store_root, "--workers", "1")
    both = _matches(store_root)
    assert set(map(tuple, first)) < set(map(tuple, both)) and {s for _, s in both} == {"valid"}
    assert "rating" in _gdan("ratings", "--store", store_root)
    _gdan("maintain", "--store", store_root, "--retention-days", "0")
    assert _matches(store_root) == both


def test_a_simulated_corpus_gives_the_tables_of_a_local_folder(s3_store: str, tmp_path: Path) -> None:
    source = _day(tmp_path / "day", seed=3)
    local = str(tmp_path / "local")
    for store in (local, s3_store):
        _gdan("ingest", str(source), "--store", store)
        _gdan("run", "--store", store, "--workers", "1")
    assert _matches(s3_store) == _matches(local) != []
    assert store_tables(readable(Path(s3_store))) == store_tables(Path(local))


def test_a_missing_bucket_is_one_clear_line(s3_store: str) -> None:
    result = runner.invoke(app, ["sql", QUERY, "--store", "s3://gdan-no-such-bucket/league"])
    assert result.exit_code == 1
    assert "bucket 'gdan-no-such-bucket' cannot be used" in " ".join(result.output.split())


@pytest.mark.parametrize("command", [["serve"], ["users", "list"],
                                     ["export", "slips", "--event", "spring", "--round", "1"]])
def test_a_command_that_needs_a_folder_refuses_an_s3_store(command: list[str], tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, [*command, "--store", "s3://gdan-bucket/league"])
    assert result.exit_code == 2
    assert "needs a store folder" in " ".join(result.output.split())
    assert list(tmp_path.iterdir()) == []
