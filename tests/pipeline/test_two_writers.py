"""Two writers serialized by the store's lock: each reports only the quarantine rows and file
warnings of its own steps, so the rows one run quarantined are never claimed again by the other
(the quarantine table holds them once, and the two runs' counts add up to it). The file holds
seven malformed lines and a match the real replayer quarantines too."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gdan import app
from pipelines.run import runner as runner_module
from pipelines.steps.step_reports import RunReport
from pipelines.storage.store import Store
from tests.pipeline.pipeline_helpers import match_events, write_jsonl

BIN = Path(sys.executable).parent
GIVE_UP_S = 240.0
"""Bound of every wait: far beyond what each step needs, so reaching it means it never would."""
MALFORMED = tuple(f"not json {i}" for i in range(7))


def _inbox_with_seven_malformed_lines(root: Path) -> None:
    write_jsonl(root / "inbox" / "a.jsonl", match_events("m1"), extra_lines=MALFORMED)


def _claimed(output: str) -> int:
    found = re.search(r"(\d+) quarantine row\(s\) added by this run", " ".join(output.split()))
    return int(found.group(1)) if found else 0


def test_a_run_that_waited_does_not_claim_the_rows_the_other_quarantined(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run A does all its steps after run B started and before B's first step (as when B waits
    for A's lock): B quarantined nothing, says nothing about it and exits 0."""
    _inbox_with_seven_malformed_lines(tmp_path)
    real_plan = runner_module.run_plan
    other: list[int] = []

    def the_other_writer_first(*args: Any, **kwargs: Any) -> RunReport:
        report = real_plan(tmp_path, workers=1)
        other.append(sum(int(s.outputs.get("quarantine", {}).get("rows_added", 0) or 0)
                         for s in report.steps))
        return real_plan(*args, **kwargs)

    monkeypatch.setattr(runner_module, "run_plan", the_other_writer_first)
    result = CliRunner().invoke(app, ["run", "--store", str(tmp_path), "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert _claimed(result.output) == 0
    assert "a.jsonl" not in result.output
    assert other == [Store(tmp_path).read_table("quarantine").num_rows]
    assert other[0] >= len(MALFORMED)


def _wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + GIVE_UP_S
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"gave up waiting for {what}")
        time.sleep(0.1)


def _says(log: Path, text: str) -> bool:
    return text in log.read_text()


def _finished(process: subprocess.Popen[bytes]) -> bool:
    return process.poll() is not None


def test_two_gdan_runs_waiting_for_one_lock_claim_each_row_once(tmp_path: Path) -> None:
    """Both runs start while a third process holds the lock, so both have started before either
    writes; whichever order they then take the lock in, the rows are claimed once in all."""
    store = tmp_path / "store"
    _inbox_with_seven_malformed_lines(store)
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys; from pipelines.storage.store import Store; "
         "lock = Store(sys.argv[1]).writer_lock(); lock.__enter__(); print('locked', flush=True); "
         "sys.stdin.read()", str(store)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
    )
    runs: list[tuple[subprocess.Popen[bytes], Path]] = []
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == b"locked"
        for name in ("a", "b"):
            log = tmp_path / f"{name}.log"
            with open(log, "wb") as out:
                run = subprocess.Popen([str(BIN / "gdan"), "run", "--store", str(store), "--workers", "1"],
                                       stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            runs.append((run, log))
            _wait_for(partial(_says, log, "waiting for the writer"), f"run {name} to wait")
        assert holder.stdin is not None
        holder.stdin.close()
        for run, _ in runs:
            _wait_for(partial(_finished, run), "the runs to finish")
    finally:
        for process in [holder, *(run for run, _ in runs)]:
            if process.poll() is None:
                process.kill()
            process.wait()
    said = [log.read_text() for _, log in runs]
    codes = sorted(run.returncode for run, _ in runs)
    assert codes == [0, 3], said
    rows = Store(store).read_table("quarantine").num_rows
    assert rows >= len(MALFORMED)
    assert sorted(_claimed(text) for text in said) == [0, rows], said
