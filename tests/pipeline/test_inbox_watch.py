"""The inbox watcher of ``gdan serve``: a new file brings one run, nothing new brings none, and a
failing run is reported while the watching goes on. The runner is injected (no pipeline, no clock)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pipeline_helpers import match_events, write_jsonl

from pipelines.run.inbox_watch import InboxWatcher, RunResult


class Runs:
    """A stand-in pipeline: counts its runs, publishes run 1, 2, … or raises what it is given."""

    def __init__(self, *failures: Exception | None) -> None:
        self.count = 0
        self.failures = list(failures)

    def __call__(self) -> RunResult:
        self.count += 1
        failure = self.failures.pop(0) if self.failures else None
        if failure is not None:
            raise failure
        return RunResult(published=self.count, quarantined=0)


def _watcher(inbox: Path, runs: Runs) -> tuple[InboxWatcher, list[str]]:
    said: list[str] = []
    return InboxWatcher(inbox, runs, report=said.append, clock=lambda: 0.0), said


def test_a_new_file_brings_one_run_and_nothing_new_none(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    runs = Runs()
    watcher, said = _watcher(inbox, runs)
    assert not watcher.poll().ran and runs.count == 0  # no inbox yet

    write_jsonl(inbox / "entry" / "a.jsonl", match_events("a"))
    (inbox / "entry" / ".b.jsonl.123.tmp").write_text("{}")  # a submission still being written
    first = watcher.poll()
    assert first.files == 1 and runs.count == 1
    assert first.result == RunResult(published=1)
    assert said[-1] == "ingested 1 file(s), published run 1 in 0.0 s"

    assert not watcher.poll().ran and not watcher.poll().ran
    assert runs.count == 1

    write_jsonl(inbox / "entry" / "b.jsonl", match_events("b"))
    write_jsonl(inbox / "c.jsonl", match_events("c"))
    assert watcher.poll().files == 2 and runs.count == 2


def test_a_file_written_again_is_new_again(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    path = write_jsonl(inbox / "a.jsonl", match_events("a"))
    runs = Runs()
    watcher, _ = _watcher(inbox, runs)
    watcher.poll()
    write_jsonl(path, match_events("a", deals=2))
    os.utime(path, ns=(1, 1))  # a different modification time whatever the clock's resolution
    assert watcher.poll().files == 1 and runs.count == 2


def test_a_failing_run_is_reported_and_the_watching_goes_on(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    write_jsonl(inbox / "a.jsonl", match_events("a"))
    runs = Runs(RuntimeError("asset checks failed: unique match ids"))
    watcher, said = _watcher(inbox, runs)
    polls: list[float] = []

    def keep_going() -> bool:
        if len(polls) == 1:  # after the failed run, a new file arrives
            write_jsonl(inbox / "b.jsonl", match_events("b"))
        return len(polls) < 3

    watcher.watch(2.0, keep_going, wait=polls.append)
    assert polls == [2.0, 2.0, 2.0]
    assert runs.count == 2  # the failed run is not repeated at every poll; the next file runs again
    failed = [line for line in said if line.startswith("run failed")]
    assert len(failed) == 1 and "asset checks failed: unique match ids" in failed[0]
    assert "keeps its last committed state" in failed[0]
    assert said[-1] == "ingested 1 file(s), published run 2 in 0.0 s"


def test_an_interrupt_is_not_swallowed(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    write_jsonl(inbox / "a.jsonl", match_events("a"))
    watcher, _ = _watcher(inbox, Runs(KeyboardInterrupt()))  # type: ignore[arg-type]
    with pytest.raises(KeyboardInterrupt):
        watcher.poll()


def test_a_run_with_nothing_new_and_quarantined_rows_say_so(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    write_jsonl(inbox / "a.jsonl", match_events("a"))
    said: list[str] = []
    watcher = InboxWatcher(inbox, lambda: RunResult(published=None, quarantined=3), report=said.append,
                           clock=lambda: 0.0)
    watcher.poll()
    assert said[0].startswith("1 file(s) in the inbox at start: running the pipeline")
    assert said[1] == "looked at 1 file(s): nothing new to publish (0.0 s)"
    assert said[2].startswith("3 quarantine row(s) added by this run")
