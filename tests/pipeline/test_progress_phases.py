"""Every phase of `gdan run` and `gdan demo` shows progress: the ingest and the replay, each step
after it (patterns, reviews, roster, every scoring step, the publish), the checks, and the
demo's simulation; none runs silent for minutes on a loaded machine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pipeline_helpers import match_events, write_jsonl
from rich.progress import Progress
from typer.testing import CliRunner

import simulator
from gdan import app
from gdan import pipeline as gdan_pipeline
from pipelines.exec.progress import show_with
from pipelines.run.plan import DOWNSTREAM_STEPS, run_plan
from pipelines.run.store_checks import INGEST_CHECKS, REPLAY_CHECKS


def test_each_phase_of_a_run_has_a_bar_filled_when_it_is_done(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "inbox" / "a.jsonl", match_events("m1", deals=2))
    progress = Progress()
    with show_with(progress):
        run_plan(tmp_path, workers=1)
    bars = {task.description: (task.completed, task.total) for task in progress.tasks}
    phases = ["ingest files", "replay events", *(step.name for step in DOWNSTREAM_STEPS), "checks"]
    assert [name for name in phases if name not in bars] == []
    assert all(done == total for done, total in bars.values()), bars
    assert bars["checks"][1] == len(INGEST_CHECKS) + len(REPLAY_CHECKS)


def test_a_run_with_nothing_new_still_shows_its_checks(tmp_path: Path) -> None:
    (tmp_path / "inbox").mkdir()
    progress = Progress()
    with show_with(progress):
        run_plan(tmp_path, workers=1)
    assert {"ingest files", "checks"} <= {task.description for task in progress.tasks}


def test_the_demo_simulation_shows_its_progress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(simulator, "simulate_to_dir", lambda out, **kwargs: calls.append(kwargs))
    monkeypatch.setattr(gdan_pipeline, "_run", lambda store, workers: 0)
    result = CliRunner().invoke(app, ["demo", "--store", str(tmp_path / "store"), "--no-dashboard"])
    assert result.exit_code == 0, result.output
    assert [call["kind"] for call in calls] == ["tournament", "league"]
    assert all(call.get("progress") is True for call in calls)
