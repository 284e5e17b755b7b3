"""``run_pipeline`` (the run plan) and the ``gdan`` store commands, with the stand-in replayer."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import duckdb
import pytest
from pipeline_helpers import fake_replay, hands, match_events, write_jsonl
from typer.testing import CliRunner

from gdan import app
from pipelines.run.runner import PipelineFailedError, run_pipeline
from pipelines.steps import replaying
from pipelines.storage.store import Store
from pipelines.storage.warehouse import connect


@pytest.fixture(autouse=True)
def stand_in_replayer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replaying, "default_replay_fn", lambda: fake_replay)


def _tree(root: Path) -> list[tuple[str, int]]:
    return sorted((str(p.relative_to(root)), p.stat().st_mtime_ns) for p in root.rglob("*")
                  if not p.name.endswith(".lock"))


def test_run_materializes_everything_and_rerun_is_a_no_op(tmp_path: Path) -> None:
    store = Store(tmp_path)
    write_jsonl(store.inbox / "a.jsonl", match_events("m1", deals=2) + match_events("m2"))
    result = run_pipeline(tmp_path, workers=1)
    assert result.success
    assert {"raw_events", "matches", "deals", "quarantine", "warehouse"} <= result.materialized
    assert len(result.checks) == 9 and all(c.passed for c in result.checks)
    con = duckdb.connect(str(store.warehouse_file), read_only=True)
    assert con.execute("SELECT count(*) FROM deals").fetchone() == (3,)
    con.close()
    before = _tree(tmp_path)
    assert run_pipeline(tmp_path, workers=1).success
    assert _tree(tmp_path) == before


def test_a_rerun_with_nothing_new_imports_neither_pandas_nor_the_arrow_datasets(tmp_path: Path) -> None:
    """A rerun with nothing new reads no table and builds no view statement (the ≤ 3 s target
    on a 1M store): importing pandas, as pyarrow does for ``pa.array``, ``pa.table`` or a time
    zone's conversion, or pyarrow.dataset, as DuckDB does for Arrow input, was ≈ 0.3 s of it."""
    import subprocess
    import sys

    store = Store(tmp_path)
    write_jsonl(store.inbox / "a.jsonl", match_events("m1", deals=2))
    assert run_pipeline(tmp_path, workers=1).success
    probe = ("import sys; from pipelines.run.runner import run_pipeline; "
             f"assert run_pipeline({str(tmp_path)!r}, workers=1).materialized == {{'raw_events'}}; "
             "print(sorted(m for m in ('pandas', 'pyarrow.dataset') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_downstream_assets_run_only_when_something_was_committed(tmp_path: Path) -> None:
    store = Store(tmp_path)
    write_jsonl(store.inbox / "a.jsonl", match_events("m1"))
    assert "match_scores" in run_pipeline(tmp_path, workers=1).materialized
    assert run_pipeline(tmp_path, workers=1).materialized == {"raw_events"}
    assert "match_scores" in run_pipeline(tmp_path, workers=1, refresh=True).materialized
    write_jsonl(store.inbox / "b.jsonl", match_events("m2", end=False))
    assert "warehouse" in run_pipeline(tmp_path, workers=1).materialized
    con = duckdb.connect(str(store.warehouse_file), read_only=True)
    assert con.execute("SELECT count(*) FROM raw_events").fetchone() == (5 + 4,)
    con.close()


def test_readers_never_conflict_with_a_running_pipeline(tmp_path: Path) -> None:
    """A SQL user holding warehouse.duckdb open and an in-memory reader both keep working while
    the pipeline rebuilds the tables and the warehouse file (no DuckDB lock conflicts): each keeps
    the snapshot it opened, whole; a new connection sees the new run."""
    store = Store(tmp_path)
    write_jsonl(store.inbox / "a.jsonl", match_events("m1"))
    run_pipeline(tmp_path, workers=1)
    sql_user = duckdb.connect(str(store.warehouse_file), read_only=True)
    reader = connect(tmp_path)
    write_jsonl(store.inbox / "b.jsonl", match_events("m2"))
    run_pipeline(tmp_path, workers=1)
    for con in (sql_user, reader):
        assert con.execute("SELECT count(*), count(DISTINCT d.match_id) FROM matches JOIN deals d "
                           "USING (match_id)").fetchone() == (1, 1)
    assert connect(tmp_path).execute("SELECT count(*) FROM matches").fetchone() == (2,)
    sql_user.close()
    later = duckdb.connect(str(store.warehouse_file), read_only=True)
    assert later.execute("SELECT count(*) FROM matches").fetchone() == (2,)
    later.close()


def test_failed_card_conservation_fails_the_run(tmp_path: Path) -> None:
    store = Store(tmp_path)
    events = match_events("m1")
    short = hands()
    short["E"] = [*short["E"][:-1], "HR"]
    events[1]["hands"] = short
    write_jsonl(store.inbox / "a.jsonl", events)
    with pytest.raises(PipelineFailedError, match="card_conservation_check"):
        run_pipeline(tmp_path, workers=1)


runner = CliRunner()


def test_cli_ingest_run_and_sql(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "src" / "day1.jsonl", match_events("m1") + match_events("m2"))
    store = str(tmp_path / "store")
    result = runner.invoke(app, ["ingest", str(source), "--store", store])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "store" / "inbox" / "day1.jsonl").read_bytes() == source.read_bytes()
    again = runner.invoke(app, ["ingest", str(source.parent), "--store", store])
    assert again.exit_code == 0, again.output
    result = runner.invoke(app, ["run", "--store", store, "--workers", "1"])
    assert result.exit_code == 0, result.output
    query = "SELECT match_id, status FROM matches ORDER BY match_id"
    as_csv = runner.invoke(app, ["sql", query, "--store", store, "--format", "csv"])
    assert list(csv.reader(io.StringIO(as_csv.stdout))) == [["match_id", "status"], ["m1", "valid"],
                                                            ["m2", "valid"]]
    as_json = runner.invoke(app, ["sql", query, "--store", store, "-f", "json"])
    assert json.loads(as_json.stdout) == [{"match_id": "m1", "status": "valid"},
                                         {"match_id": "m2", "status": "valid"}]
    as_table = runner.invoke(app, ["sql", query, "--store", store])
    assert "m1" in as_table.stdout and "valid" in as_table.stdout


def test_cli_sql_reports_bad_queries(tmp_path: Path) -> None:
    Store(tmp_path).tables_dir.mkdir()
    result = runner.invoke(app, ["sql", "SELECT * FROM no_such_table", "--store", str(tmp_path)])
    assert result.exit_code == 1
    assert "no_such_table" in result.output


def test_cli_store_from_environment(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "inbox" / "a.jsonl", match_events("m1"))
    env = {"GDAN_STORE": str(tmp_path)}
    assert runner.invoke(app, ["run", "--workers", "1"], env=env).exit_code == 0
    result = runner.invoke(app, ["sql", "SELECT count(*) AS n FROM raw_events", "-f", "csv"], env=env)
    assert result.stdout.splitlines() == ["n", "5"]


@pytest.mark.parametrize("command", ["ingest", "run", "sql", "dashboard", "demo"])
def test_cli_help(command: str) -> None:
    result = runner.invoke(app, [command, "--help"])
    assert result.exit_code == 0
    assert "--store" in result.output


def test_cli_run_reports_a_failing_step_and_keeps_the_last_state(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    write_jsonl(tmp_path / "inbox" / "a.jsonl", match_events("m1"))

    def broken(events):  # type: ignore[no-untyped-def]
        raise RuntimeError("replayer bug")

    monkeypatch.setattr(replaying, "default_replay_fn", lambda: broken)
    result = runner.invoke(app, ["run", "--store", str(tmp_path), "--workers", "1"])
    assert result.exit_code == 1
    assert "pipeline failed" in result.output and "last committed state" in result.output
    assert Store(tmp_path).read_table("matches").num_rows == 0
    monkeypatch.setattr(replaying, "default_replay_fn", lambda: fake_replay)
    assert runner.invoke(app, ["run", "--store", str(tmp_path), "--workers", "1"]).exit_code == 0
    assert Store(tmp_path).read_table("matches").num_rows == 1
