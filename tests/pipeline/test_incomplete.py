"""``incomplete_matches`` (every ingested match is exactly one of valid / partial / invalid /
incomplete): a match in pieces is listed until its ``match_end`` arrives (events.md
"Validation"), through the whole pipeline with the stand-in replayer."""

from __future__ import annotations

from pathlib import Path

import pytest
from pipeline_helpers import committed, fake_replay, match_events, write_jsonl

from pipelines.run import checks
from pipelines.run.runner import run_pipeline
from pipelines.steps import replaying
from pipelines.steps.incomplete import incomplete_table, write_incomplete
from pipelines.steps.state import MatchInfo, load_state
from pipelines.steps.transactions import ingest_step
from pipelines.storage.store import Store
from pipelines.storage.warehouse import connect


@pytest.fixture(autouse=True)
def stand_in_replayer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replaying, "default_replay_fn", lambda: fake_replay)


def _incomplete(root: Path) -> dict[str, dict]:
    rows = connect(root).execute("SELECT * FROM incomplete_matches").to_arrow_table().to_pylist()
    return {r["match_id"]: r for r in rows}


def _statuses(root: Path) -> dict[str, str]:
    con = connect(root)
    replayed = dict(con.execute("SELECT match_id, status FROM matches").fetchall())
    held = {m: "incomplete" for (m,) in con.execute("SELECT match_id FROM incomplete_matches").fetchall()}
    assert not replayed.keys() & held.keys()
    return {**replayed, **held}


def test_a_match_in_pieces_is_incomplete_until_its_match_end_arrives(tmp_path: Path) -> None:
    store = Store(tmp_path)
    events = match_events("m1", deals=2)
    write_jsonl(store.inbox / "part1.jsonl", events[:3])
    write_jsonl(store.inbox / "whole.jsonl", match_events("m2"))
    run_pipeline(tmp_path, workers=1)
    assert _statuses(tmp_path) == {"m1": "incomplete", "m2": "valid"}
    row = _incomplete(tmp_path)["m1"]
    assert (row["events"], row["first_seq"], row["last_seq"], row["last_type"]) == (3, 0, 2, "play")
    assert row["source_files"] == ["part1.jsonl"]

    write_jsonl(store.inbox / "part2.jsonl", events[3:6])
    run_pipeline(tmp_path, workers=1)
    row = _incomplete(tmp_path)["m1"]
    assert (row["events"], row["last_seq"], row["last_type"]) == (6, 5, "play")
    assert row["source_files"] == ["part1.jsonl", "part2.jsonl"]
    assert row["first_ingested_at"] < row["last_ingested_at"]

    write_jsonl(store.inbox / "part3.jsonl", events[6:])
    run_pipeline(tmp_path, workers=1)  # the match_statuses check passes (else this raises)
    assert _incomplete(tmp_path) == {}
    assert _statuses(tmp_path) == {"m1": "valid", "m2": "valid"}


def test_table_lists_exactly_the_matches_the_state_holds(tmp_path: Path) -> None:
    store = Store(tmp_path)
    write_jsonl(store.inbox / "a.jsonl", match_events("m1", end=False) + match_events("m2", end=False))
    ingest_step(store)
    assert write_incomplete(store) == 2
    state = load_state(store)
    passed, meta = checks.match_statuses(committed(tmp_path), state)
    assert passed, meta
    assert meta["matches_incomplete"] == 2
    state.matches["ghost"] = MatchInfo(bucket=0, rows=1)
    passed, meta = checks.match_statuses(committed(tmp_path), state)
    assert not passed
    assert meta["incomplete_out_of_step"] == 1


def test_no_incomplete_match_gives_a_typed_empty_table(tmp_path: Path) -> None:
    table = incomplete_table(Store(tmp_path), {})
    assert table.num_rows == 0
    assert "source_files" in table.schema.names
