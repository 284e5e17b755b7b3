"""The pipeline's bookkeeping reads grow with new data, not with the store.

"What is committed" is answered from the commit log's Delta statistics and one commit row
(``Store.last_commit``), whether the replay step has work from that row's counts, and the
per-match catalogue is read only by a step that looks at a match, and then once per process
(later versions add files, only those are read). ``pipelines.storage.delta.READS`` counts the rows
each process reads from the commit log and the memory tables.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from deltalake import DeltaTable
from pipeline_helpers import fake_replay, match_events, write_jsonl

from pipelines.run.runner import run_pipeline
from pipelines.steps import replaying
from pipelines.steps.state import load_state, summary_counts
from pipelines.storage import commit_log, delta, memory
from pipelines.storage.commit_log import COMMITS
from pipelines.storage.delta import READS
from pipelines.storage.store import Store


@pytest.fixture(autouse=True)
def stand_in_replayer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replaying, "default_replay_fn", lambda: fake_replay)


def _fresh_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forget what this process read, as a new ``gdan run`` process starts with nothing cached."""
    monkeypatch.setattr(commit_log, "_commit_files", {})
    monkeypatch.setattr(delta, "_logs", {})
    monkeypatch.setattr(memory, "_memory", {})
    READS.clear()


def _runs(root: Path, first: int, count: int) -> None:
    for i in range(first, first + count):
        write_jsonl(Store(root).inbox / f"f{i}.jsonl", match_events(f"m{i}"))
        assert run_pipeline(root, workers=1).success


def _noop_rerun_reads(root: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    _fresh_process(monkeypatch)
    assert run_pipeline(root, workers=1).success
    return dict(READS)


def test_a_rerun_with_nothing_new_reads_a_few_commit_rows_and_no_catalogue(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _runs(tmp_path, 0, 1)
    early = _noop_rerun_reads(tmp_path, monkeypatch)
    _runs(tmp_path, 1, 3)
    log_rows = len(Store(tmp_path).commits())
    late = _noop_rerun_reads(tmp_path, monkeypatch)
    assert log_rows >= 12  # an ingest, a replay and a run record per run at least
    assert late.get(COMMITS, 0) == early.get(COMMITS, 0) <= 3, (early, late, log_rows)
    assert late.get("match_catalogue", 0) == 0
    assert late.get("file_log", 0) == 4  # one row per ingested file: the inbox is listed anyway
    READS.clear()
    _runs(tmp_path, 4, 1)
    catalogue = DeltaTable(Store(tmp_path).memory_path("match_catalogue").as_uri()).to_pyarrow_table()
    # read whole once by the first step that looks at a match, then only the rows appended since
    assert READS["match_catalogue"] <= catalogue.num_rows, (READS, catalogue.num_rows)


def test_the_summary_counts_come_from_the_last_commit_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _runs(tmp_path, 0, 1)
    write_jsonl(Store(tmp_path).inbox / "open.jsonl", match_events("open", end=False))
    assert run_pipeline(tmp_path, workers=1).success
    _fresh_process(monkeypatch)
    counts = summary_counts(Store(tmp_path))
    assert READS.get("match_catalogue", 0) == 0
    assert counts == load_state(Store(tmp_path)).counts()
    assert counts["matches_incomplete"] == 1 and counts["matches_valid"] == 1


def test_a_commit_log_compacted_by_hand_answers_the_same(tmp_path: Path) -> None:
    """Each commit row is one file, so its statistics name it; a file of several rows is read."""
    _runs(tmp_path, 0, 2)
    store = Store(tmp_path)
    before = (store.commits(), store.last_commit(), store.committed_batches(), store.published())
    DeltaTable(store.memory_path(COMMITS).as_uri()).optimize.compact()
    assert len(DeltaTable(store.memory_path(COMMITS).as_uri()).file_uris()) == 1
    after = (store.commits(), store.last_commit(), store.committed_batches(), store.published())
    assert after == before
    assert len(before[2]) == 4
