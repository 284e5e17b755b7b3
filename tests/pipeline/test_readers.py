"""What readers of the store see, through the whole pipeline with the
stand-in replayer: only committed, whole runs; only files the store wrote; a warehouse file that
holds exactly its views; any store path."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest
from pipeline_helpers import fake_replay, match_events, write_jsonl

from pipelines.run.runner import PipelineFailedError, run_pipeline
from pipelines.steps import incomplete, replaying
from pipelines.steps.transactions import ingest_step, replay_step
from pipelines.storage.delta import StorePathError
from pipelines.storage.staging import Staging
from pipelines.storage.store import Store
from pipelines.storage.warehouse import connect


@pytest.fixture(autouse=True)
def stand_in_replayer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replaying, "default_replay_fn", lambda: fake_replay)


def _counts(con: duckdb.DuckDBPyConnection) -> tuple[int, int, int, int]:
    """Rows of matches, deals, deal_hands and raw_events."""
    row = con.execute(
        "SELECT (SELECT count(*) FROM matches), (SELECT count(*) FROM deals), "
        "(SELECT count(*) FROM deal_hands), (SELECT count(*) FROM raw_events)"
    ).fetchone()
    assert row is not None
    return row


def _warehouse_counts(store: Store) -> tuple[int, int, int, int]:
    con = duckdb.connect(str(store.warehouse_file), read_only=True)
    try:
        return _counts(con)
    finally:
        con.close()


def _events(prefix: str, n: int) -> list[dict[str, object]]:
    return [e for i in range(n) for e in match_events(f"{prefix}{i}")]


def _one_match_run(root: Path) -> Store:
    store = Store(root)
    write_jsonl(store.inbox / "a.jsonl", match_events("m1"))
    run_pipeline(root, workers=1)
    return store


ONE_MATCH = (1, 1, 4, 5)
"""matches, deals, deal_hands and raw_events of one match of one deal."""


# -- item 15: readers see only committed, whole runs -----------------------------------------


def test_a_connection_can_hold_views_of_some_tables_only(tmp_path: Path) -> None:
    _one_match_run(tmp_path)
    con = connect(tmp_path, tables=["matches", "deals"])
    listed = con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()
    views = {name for (name,) in listed}
    assert views == {"matches", "deals"}
    assert con.execute("SELECT count(*) FROM matches").fetchone() == (1,)


def test_a_batch_published_but_not_committed_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _one_match_run(tmp_path)
    write_jsonl(store.inbox / "b.jsonl", _events("n", 12))
    ingest_step(store)

    def crash(*args: object) -> None:
        raise OSError("power cut at the commit point")

    monkeypatch.setattr("pipelines.steps.transactions.save_state", crash)
    with pytest.raises(OSError, match="power cut"):
        replay_step(store, replay_fn=fake_replay, workers=1)
    assert _counts(connect(tmp_path)) == ONE_MATCH
    assert _warehouse_counts(store) == ONE_MATCH
    assert store.read_table("matches").num_rows == 1


def test_a_torn_batch_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A crash while a batch is appended table by table (deals appended, matches not): the
    appended versions are named by no commit, so nobody reads them and the next run rolls them
    back and completes the work with the same result as an uninterrupted run."""
    store = _one_match_run(tmp_path)
    write_jsonl(store.inbox / "b.jsonl", _events("n", 12))
    ingest_step(store)
    real_append = Staging._append_staged
    appended: list[str] = []

    def append(self: Staging, name: str, batch_id: str, folder: Path) -> int:
        if name == "matches":
            raise OSError("power cut between two tables")
        appended.append(name)
        return real_append(self, name, batch_id, folder)

    monkeypatch.setattr(Staging, "_append_staged", append)
    with pytest.raises(OSError, match="power cut"):
        replay_step(store, replay_fn=fake_replay, workers=1)
    monkeypatch.setattr(Staging, "_append_staged", real_append)
    assert appended == ["deal_hands", "deals"]
    assert _counts(connect(tmp_path)) == ONE_MATCH
    assert store.read_table("deals").num_rows == 1
    run_pipeline(tmp_path, workers=1)
    assert _counts(connect(tmp_path)) == (13, 13, 52, 5 * 13)
    assert store.read_table("deals").num_rows == 13


def test_during_a_run_readers_see_the_last_whole_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A match replayed by the running pipeline is never in both matches and incomplete_matches,
    and the new matches appear only once the run is whole."""
    store = Store(tmp_path)
    events = match_events("m1", deals=2)
    write_jsonl(store.inbox / "part1.jsonl", events[:4])
    run_pipeline(tmp_path, workers=1)
    seen: list[tuple[int, int]] = []
    real = incomplete.incomplete_table

    def look(*args, **kwargs):  # type: ignore[no-untyped-def]
        row = (
            connect(tmp_path)
            .execute(
                "SELECT (SELECT count(*) FROM matches JOIN incomplete_matches USING (match_id)), "
                "(SELECT count(*) FROM matches)"
            )
            .fetchone()
        )
        seen.append(row)
        return real(*args, **kwargs)

    monkeypatch.setattr(incomplete, "incomplete_table", look)
    write_jsonl(store.inbox / "part2.jsonl", events[4:])
    run_pipeline(tmp_path, workers=1)
    assert seen == [(0, 0)]
    assert connect(tmp_path).execute("SELECT match_id FROM matches").fetchall() == [("m1",)]


# -- item 16: each downstream step records exactly the inputs it read -------------------------


def test_batches_another_writer_commits_during_scoring_are_scored_by_the_next_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import scoring.round_scores

    store = _one_match_run(tmp_path)
    real = scoring.round_scores.score_matches
    other_writer: list[int] = []

    def score_while_another_writer_commits(*args, **kwargs):  # type: ignore[no-untyped-def]
        out = real(*args, **kwargs)
        if not other_writer:
            other_writer.append(1)
            write_jsonl(store.inbox / "c.jsonl", _events("late", 12))
            ingest_step(Store(tmp_path))
            replay_step(Store(tmp_path), replay_fn=fake_replay, workers=1)
        return out

    monkeypatch.setattr(scoring.round_scores, "score_matches", score_while_another_writer_commits)
    write_jsonl(store.inbox / "b.jsonl", match_events("m2"))
    run_pipeline(tmp_path, workers=1)
    assert other_writer == [1]
    run_pipeline(tmp_path, workers=1)
    con = connect(tmp_path)
    scored = {m for (m,) in con.execute("SELECT DISTINCT match_id FROM match_scores").fetchall()}
    valid = {m for (m,) in con.execute("SELECT match_id FROM matches WHERE status = 'valid'").fetchall()}
    assert len(valid) == 14
    assert scored == valid


# -- item 14: tampering is repaired or reported ------------------------------------------------


def test_a_foreign_file_in_a_table_folder_is_reported_and_not_read(tmp_path: Path) -> None:
    store = _one_match_run(tmp_path)
    evil = store.table_path("matches") / "evil.parquet"
    duckdb.connect().execute(f"COPY (SELECT 42 AS match_id) TO '{evil}' (FORMAT parquet)")
    assert _counts(connect(tmp_path)) == ONE_MATCH
    with pytest.raises(PipelineFailedError, match=r"store_files_check.*matches/evil\.parquet"):
        run_pipeline(tmp_path, workers=1)
    evil.unlink()
    assert run_pipeline(tmp_path, workers=1).success


@pytest.mark.parametrize("refresh", [False, True], ids=["run", "run --refresh"])
def test_a_tampered_warehouse_file_is_rebuilt(tmp_path: Path, refresh: bool) -> None:
    store = _one_match_run(tmp_path)
    sql_user = duckdb.connect(str(store.warehouse_file))
    sql_user.execute("CREATE OR REPLACE VIEW plays AS SELECT 42 AS answer")
    sql_user.execute("CREATE TABLE notes AS SELECT 'mine' AS note")
    sql_user.close()
    run_pipeline(tmp_path, workers=1, refresh=refresh)
    con = duckdb.connect(str(store.warehouse_file), read_only=True)
    try:
        assert "answer" not in {d[0] for d in con.execute("SELECT * FROM plays LIMIT 0").description}
        assert con.execute("SELECT count(*) FROM duckdb_tables()").fetchone() == (0,)
        assert _counts(con) == ONE_MATCH
    finally:
        con.close()


# -- item 17: any store path; no debris of a crashed warehouse build ---------------------------


def test_a_store_path_with_glob_characters(tmp_path: Path) -> None:
    """The store's own path is never a pattern: not even a folder it would match is read.

    (``[``/``]`` are refused by the store itself, below: delta-rs cannot open such a path.)
    """
    decoy = Store(tmp_path / "glob1-decoy")
    write_jsonl(decoy.inbox / "a.jsonl", _events("d", 2))
    run_pipeline(decoy.root, workers=1)
    store = _one_match_run(tmp_path / "glob1*")
    assert _counts(connect(store.root)) == ONE_MATCH
    assert _warehouse_counts(store) == ONE_MATCH


def test_a_store_path_with_brackets_is_refused_clearly(tmp_path: Path) -> None:
    with pytest.raises(StorePathError, match=r"glob\[1\].*'\[' or '\]'.*rename the folder"):
        Store(tmp_path / "glob[1]" / "store").read_table("matches")


CRASH_IN_WAREHOUSE = """
import os, sys
from pipeline_helpers import fake_replay
from pipelines.steps import replaying
from pipelines.storage import warehouse
from pipelines.run.runner import run_pipeline

replaying.default_replay_fn = lambda: fake_replay
real_replace = os.replace

def replace(src, dst):
    if os.fspath(dst).endswith("warehouse.duckdb"):
        os._exit(3)
    real_replace(src, dst)

warehouse.os.replace = replace
run_pipeline(sys.argv[1], workers=1)
"""


def test_a_warehouse_file_left_by_a_crashed_run_is_removed(tmp_path: Path) -> None:
    store = Store(tmp_path)
    write_jsonl(store.inbox / "a.jsonl", match_events("m1"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent), *sys.path])}
    crashed = subprocess.run([sys.executable, "-c", CRASH_IN_WAREHOUSE, str(tmp_path)], env=env, check=False)
    assert crashed.returncode == 3
    debris = {p for p in tmp_path.iterdir() if p.suffix == ".duckdb"}
    assert debris and store.warehouse_file not in debris
    run_pipeline(tmp_path, workers=1)
    assert {p for p in tmp_path.iterdir() if p.suffix == ".duckdb"} == {store.warehouse_file}
    assert _warehouse_counts(store) == ONE_MATCH


KILL_AT_WRITE = """
import sys
from pipeline_helpers import exit_at_delta_write, fake_replay
from pipelines.steps import replaying
from pipelines.run.runner import run_pipeline

replaying.default_replay_fn = lambda: fake_replay
exit_at_delta_write(int(sys.argv[2]))
run_pipeline(sys.argv[1], workers=1)
"""


def _content(root: Path) -> dict[str, list[tuple[object, ...]]]:
    con = connect(root)
    queries = {
        "matches": "SELECT match_id, status FROM matches",
        "deals": "SELECT match_id, deal_no FROM deals",
        "raw_events": "SELECT source_file, line_no, match_id, seq FROM raw_events",
        "incomplete": "SELECT match_id, events FROM incomplete_matches",
        "scores": "SELECT * FROM match_scores",
    }
    return {name: sorted(con.execute(q).fetchall(), key=repr) for name, q in queries.items()}


@pytest.mark.parametrize("kill_at", [0.05, 0.25, 0.5, 0.75, 0.95])
def test_a_run_killed_at_any_delta_write_keeps_the_last_run_and_the_next_run_completes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kill_at: float
) -> None:
    """Killed (``os._exit``) at a Delta write or add-action commit (a fraction of those an
    uninterrupted run makes; killed at a commit of add actions, the batch's files are in the
    table's folder, uncommitted): readers still see a whole run, and the next run ends with
    exactly the tables of a run that was never interrupted and leaves no foreign file."""
    from pipelines.storage import delta, staging, table_writes

    expected_root = tmp_path / "uninterrupted"
    for root in (expected_root, tmp_path / "killed"):
        write_jsonl(root / "inbox" / "a.jsonl", match_events("m1"))
        run_pipeline(root, workers=1)
        write_jsonl(root / "inbox" / "b.jsonl", _events("n", 3) + match_events("open", end=False))
    writes: list[int] = []

    def counting(real: Callable[..., None]) -> Callable[..., None]:
        def counted(*args: object, **kwargs: object) -> None:
            writes.append(1)
            real(*args, **kwargs)
        return counted

    with monkeypatch.context() as patched:
        patched.setattr(delta, "write_deltalake", counting(delta.write_deltalake))
        patched.setattr(table_writes, "write_deltalake", counting(table_writes.write_deltalake))
        patched.setattr(staging, "_commit_adds", counting(staging._commit_adds))
        run_pipeline(expected_root, workers=1)
    root = tmp_path / "killed"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent), *sys.path])}
    command = [sys.executable, "-c", KILL_AT_WRITE, str(root), str(max(1, int(len(writes) * kill_at)))]
    killed = subprocess.run(command, env=env, check=False)
    assert killed.returncode == 3
    assert _counts(connect(root)) in (ONE_MATCH, _counts(connect(expected_root)))
    run_pipeline(root, workers=1)
    assert _content(root) == _content(expected_root)
    assert Store(root).foreign_files() == []
