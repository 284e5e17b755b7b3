"""The run plan: ``gdan run`` calls the steps directly, without Dagster,
and its report says which steps ran, which were skipped, and every check's outcome."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from pipeline_helpers import fake_replay, match_events, write_jsonl

from pipelines.run import plan
from pipelines.run.runner import run_pipeline
from pipelines.run.store_checks import REPLAY_CHECKS
from pipelines.steps import replaying
from pipelines.storage.store import Store

DOWNSTREAM_NAMES = [step.name for step in plan.DOWNSTREAM_STEPS]


@pytest.fixture(autouse=True)
def stand_in_replayer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replaying, "default_replay_fn", lambda: fake_replay)


def test_the_runner_does_not_import_dagster() -> None:
    code = "import sys, pipelines.run.runner, gdan.pipeline; print('dagster' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out.stderr


def test_a_run_reports_every_step_in_order_and_a_rerun_skips_the_downstream_ones(tmp_path: Path) -> None:
    write_jsonl(Store(tmp_path).inbox / "a.jsonl", match_events("m1", deals=2))
    first = run_pipeline(tmp_path, workers=1)
    assert [s.name for s in first.steps] == ["ingest", "replay", *DOWNSTREAM_NAMES]
    assert first.steps[-1].name == "warehouse" and first.skipped == []
    assert first.step("replay").outputs["matches"]["matches_replayed"] == 1
    assert first.step("match_scores").outputs["match_scores"]["rows"] == 2
    assert first.step("warehouse").outputs["warehouse"]["snapshot_changed"] is True
    assert {c.name for c in first.checks} >= {"store_files_check", *(c.name for c in REPLAY_CHECKS)}

    again = run_pipeline(tmp_path, workers=1)
    assert [s.name for s in again.steps] == ["ingest", "replay"]
    assert again.skipped == [*DOWNSTREAM_NAMES, *(c.name for c in REPLAY_CHECKS)]
    assert [c.name for c in again.checks] == ["store_files_check"] and again.success
    with pytest.raises(KeyError, match="match_scores"):
        again.step("match_scores")

    forced = run_pipeline(tmp_path, workers=1, refresh=True)
    assert [s.name for s in forced.steps] == ["ingest", "replay", *DOWNSTREAM_NAMES]
    assert forced.step("warehouse").outputs["warehouse"]["snapshot_changed"] is False


def test_the_skip_rule_sees_a_stale_warehouse_file(tmp_path: Path) -> None:
    write_jsonl(Store(tmp_path).inbox / "a.jsonl", match_events("m1"))
    run_pipeline(tmp_path, workers=1)
    assert plan.up_to_date(Store(tmp_path))
    Store(tmp_path).warehouse_file.unlink()
    assert not plan.up_to_date(Store(tmp_path))
    assert "warehouse" in run_pipeline(tmp_path, workers=1).materialized
    assert plan.up_to_date(Store(tmp_path))


def test_a_warehouse_built_by_other_view_code_is_rebuilt_unless_its_statements_are_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The warehouse check compares what the views are built from (``VIEWS_FORMAT`` among it)
    and, when that differs, the statements themselves: a record from other view code whose
    statements are these is still current; one whose statements differ is rebuilt."""
    import orjson

    from pipelines.storage import warehouse

    write_jsonl(Store(tmp_path).inbox / "a.jsonl", match_events("m1"))
    run_pipeline(tmp_path, workers=1)
    monkeypatch.setattr(warehouse, "VIEWS_FORMAT", warehouse.VIEWS_FORMAT + 1)
    assert plan.up_to_date(Store(tmp_path))
    record_file = Store(tmp_path).warehouse_record
    record = orjson.loads(record_file.read_bytes())
    record_file.write_bytes(orjson.dumps({**record, "statements": "of other code"}))
    assert not plan.up_to_date(Store(tmp_path))
    assert "warehouse" in run_pipeline(tmp_path, workers=1).materialized
    assert plan.up_to_date(Store(tmp_path))


def test_a_failed_check_is_in_the_report_and_names_itself(tmp_path: Path) -> None:
    write_jsonl(Store(tmp_path).inbox / "a.jsonl", match_events("m1"))
    plan.run_plan(tmp_path, workers=1)
    stray = Store(tmp_path).table_path("matches") / "stray.parquet"
    stray.write_bytes(b"not the store's")
    report = plan.run_plan(tmp_path, workers=1)
    assert not report.success
    (failed,) = report.failed
    assert failed.describe().startswith("raw_events:store_files_check ")
    assert failed.metadata["files"] == stray.relative_to(tmp_path).as_posix()
