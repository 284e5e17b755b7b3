"""Replay step bookkeeping with a stand-in replayer: completeness, dedup, quarantine, idempotence,
crash recovery (writes are atomic)."""

from __future__ import annotations

import json
import tempfile
import threading
from pathlib import Path

import orjson
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pipeline_helpers import committed, fake_replay, match_events, write_jsonl

from pipelines.run import checks
from pipelines.steps import replaying, state
from pipelines.steps.state import load_state
from pipelines.steps.transactions import ingest_step, replay_step
from pipelines.storage.store import Store


def _run(store: Store, workers: int = 1) -> replaying.ReplayReport:
    ingest_step(store)
    return replay_step(store, replay_fn=fake_replay, workers=workers)


def _statuses(store: Store) -> dict[str, str]:
    table = store.read_table("matches", columns=["match_id", "status"])
    return dict(zip(table["match_id"].to_pylist(), table["status"].to_pylist(), strict=True))


def _assert_checks_pass(store: Store) -> dict[str, int | str]:
    con = committed(store.root)
    passed, meta = checks.match_statuses(con, load_state(store))
    assert passed, meta
    assert checks.unique_match_ids(con)[0]
    return meta


def _tree(root: Path) -> list[tuple[str, int]]:
    return sorted((str(p.relative_to(root)), p.stat().st_mtime_ns) for p in root.rglob("*")
                  if not p.name.endswith(".lock"))


def test_match_in_pieces_is_held_until_match_end(tmp_path: Path) -> None:
    store = Store(tmp_path)
    events = match_events("m1", deals=2)
    write_jsonl(store.inbox / "part1.jsonl", events[:4])
    report = _run(store)
    assert report.matches == 0
    assert _statuses(store) == {}
    assert load_state(store).matches["m1"].status == "incomplete"
    assert _assert_checks_pass(store)["rows_incomplete"] == 4
    write_jsonl(store.inbox / "part2.jsonl", events[4:])
    report = _run(store)
    assert (report.matches, report.events) == (1, len(events))
    assert _statuses(store) == {"m1": "valid"}
    assert store.read_table("matches")["n_events"].to_pylist() == [len(events)]
    assert _assert_checks_pass(store)["rows_replayed"] == len(events)


def test_exact_duplicates_are_dropped_and_conflicts_reach_the_replayer(tmp_path: Path) -> None:
    store = Store(tmp_path)
    events = match_events("dup") + match_events("clash")
    conflicting = {**match_events("clash")[2], "cards": ["HR"]}
    write_jsonl(store.inbox / "a.jsonl", events)
    write_jsonl(store.inbox / "b.jsonl", [events[1], events[2]],
                extra_lines=(orjson.dumps(conflicting).decode(),))
    report = _run(store)
    assert report.duplicates == 2
    assert _statuses(store) == {"dup": "valid", "clash": "invalid"}
    quarantine = store.read_table("quarantine").to_pylist()
    assert [(q["match_id"], q["code"], q["seq"], q["source_file"]) for q in quarantine] == [
        ("clash", "duplicate_seq", 2, "b.jsonl")]
    assert load_state(store).matches["dup"].duplicates == 2
    _assert_checks_pass(store)


def test_line_repeated_within_one_file_is_a_fault_not_a_duplicate(tmp_path: Path) -> None:
    """events.md "Validation": a repeated seq in one log is duplicate_seq; only re-delivery by
    another file is deduplicated."""
    store = Store(tmp_path)
    events = match_events("m1")
    write_jsonl(store.inbox / "a.jsonl", [*events[:3], events[2], *events[3:]])
    report = _run(store)
    assert report.duplicates == 0
    assert _statuses(store) == {"m1": "invalid"}
    rows = store.read_table("quarantine").to_pylist()
    assert [(q["code"], q["seq"]) for q in rows] == [("duplicate_seq", 2)]


def test_malformed_lines_are_quarantined_with_file_and_line(tmp_path: Path) -> None:
    store = Store(tmp_path)
    write_jsonl(store.inbox / "a.jsonl", match_events("m1"), extra_lines=("oops", '{"seq": 1}'))
    _run(store)
    rows = store.read_table("quarantine").sort_by("line_no").to_pylist()
    assert [(r["source_file"], r["line_no"], r["code"], r["payload"]) for r in rows] == [
        ("a.jsonl", 6, "malformed_line", "oops"), ("a.jsonl", 7, "malformed_line", '{"seq": 1}')]
    assert rows[0]["message"].startswith("not JSON")
    meta = _assert_checks_pass(store)
    assert (meta["rows_in"], meta["rows_malformed"]) == (7, 2)


def test_late_rows_after_replay_are_dropped_or_quarantined(tmp_path: Path) -> None:
    store = Store(tmp_path)
    events = match_events("m1")
    write_jsonl(store.inbox / "a.jsonl", events)
    _run(store)
    late_new = {"v": 1, "match": "m1", "seq": len(events), "type": "pass", "seat": "N"}
    late_clash = {**events[2], "cards": ["HR"]}
    relaid = (_relaid(events[4]),)
    write_jsonl(store.inbox / "late.jsonl", [events[3], late_new, late_clash], extra_lines=relaid)
    report = _run(store)
    assert (report.matches, report.duplicates, report.late_rows) == (0, 2, 2)
    codes = sorted((q["seq"], q["code"]) for q in store.read_table("quarantine").to_pylist())
    assert codes == [(2, "duplicate_seq"), (len(events), "event_out_of_place")]
    assert _statuses(store) == {"m1": "valid"}
    _assert_checks_pass(store)


def _relaid(event: dict[str, object]) -> str:
    """``event`` as another writer might lay it out: keys reversed, spaced."""
    return json.dumps(dict(reversed(list(event.items()))), indent=1).replace("\n", " ")


def test_copies_in_another_layout_are_duplicates(tmp_path: Path) -> None:
    """Events re-sent in another layout (key order, spacing: other bytes, so another
    ``content_hash``) are the same events: dropped as duplicates, the match valid."""
    store = Store(tmp_path)
    events = match_events("m1")
    write_jsonl(store.inbox / "a.jsonl", events)
    write_jsonl(store.inbox / "b.jsonl", [], extra_lines=tuple(_relaid(e) for e in events[:3]))
    report = _run(store)
    assert (report.matches, report.duplicates) == (1, 3)
    assert _statuses(store) == {"m1": "valid"}
    assert store.read_table("quarantine").num_rows == 0
    _assert_checks_pass(store)


def test_rerun_with_nothing_new_changes_nothing(tmp_path: Path) -> None:
    store = Store(tmp_path)
    events = match_events("m1") + match_events("m2", end=False)
    write_jsonl(store.inbox / "a.jsonl", events, extra_lines=("x",))
    _run(store)
    before = _tree(tmp_path)
    report = _run(store)
    assert report.batch_id == ""
    assert _tree(tmp_path) == before


def test_second_batch_adds_exactly_its_matches(tmp_path: Path) -> None:
    store = Store(tmp_path)
    write_jsonl(store.inbox / "a.jsonl", match_events("a1") + match_events("a2"))
    _run(store)
    write_jsonl(store.inbox / "b.jsonl", match_events("b1", deals=3))
    report = _run(store)
    assert report.matches == 1
    assert sorted(_statuses(store)) == ["a1", "a2", "b1"]
    assert store.read_table("deals").num_rows == 1 + 1 + 3
    assert checks.card_conservation(committed(store.root)) == (True, {
        "deals_checked": 5, "deals_not_two_decks": 0, "valid_deals_without_four_hands": 0, "examples": ""})


def test_crash_mid_replay_leaves_last_good_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(tmp_path)
    write_jsonl(store.inbox / "a.jsonl", match_events("m1"))
    _run(store)
    good = _statuses(store)
    write_jsonl(store.inbox / "b.jsonl", [e for m in ("m2", "m3", "m4") for e in match_events(m)])
    ingest_step(store)
    monkeypatch.setattr(replaying, "CHUNK_EVENTS", 5)
    calls = []

    def crashing(events):  # type: ignore[no-untyped-def]
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("power cut")
        return fake_replay(events)

    with pytest.raises(RuntimeError, match="power cut"):
        replay_step(store, replay_fn=crashing, workers=1)
    assert (store.staging_dir).exists()
    assert _statuses(store) == good
    replay_step(store, replay_fn=fake_replay, workers=1)
    assert sorted(_statuses(store)) == ["m1", "m2", "m3", "m4"]
    assert not store.staging_dir.exists()
    _assert_checks_pass(store)


def test_crash_before_commit_point_is_undone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Batches published but not recorded in the state (crash at the commit point) are never read,
    and are removed before the next step."""
    store = Store(tmp_path)
    write_jsonl(store.inbox / "a.jsonl", match_events("m1"))
    ingest_step(store)
    real_save = state.save_state

    def failing_save(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr("pipelines.steps.transactions.save_state", failing_save)
    with pytest.raises(OSError, match="disk full"):
        replay_step(store, replay_fn=fake_replay, workers=1)
    assert _statuses(store) == {}
    monkeypatch.setattr("pipelines.steps.transactions.save_state", real_save)
    replay_step(store, replay_fn=fake_replay, workers=1)
    assert _statuses(store) == {"m1": "valid"}
    assert store.read_table("matches").num_rows == 1
    _assert_checks_pass(store)


def test_process_pool_gives_the_same_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replaying, "CHUNK_EVENTS", 7)
    results = []
    for workers in (1, 2):
        store = Store(tmp_path / f"w{workers}")
        write_jsonl(store.inbox / "a.jsonl", [e for i in range(6) for e in match_events(f"m{i}", deals=2)])
        report = _run(store, workers=workers)
        assert report.matches == 6
        rows = store.read_table("deal_hands").to_pylist()
        results.append(sorted(rows, key=lambda r: tuple(map(str, r.values()))))
    assert results[0] == results[1]


def test_slices_of_a_bucket_give_the_same_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bucket read in slices of whole matches (bounded memory) yields the same rows."""
    from pipelines.steps import parsing

    monkeypatch.setattr(parsing, "N_BUCKETS", 1)
    results = []
    for slice_events in (10**6, 6):
        monkeypatch.setattr(replaying, "SLICE_EVENTS", slice_events)
        store = Store(tmp_path / str(slice_events))
        events = [e for i in range(5) for e in match_events(f"m{i}", deals=i % 2 + 1)]
        write_jsonl(store.inbox / "a.jsonl", events)
        write_jsonl(store.inbox / "b.jsonl", events[:3])
        report = _run(store)
        assert (report.matches, report.duplicates) == (5, 3)
        deals = store.read_table("deals").to_pylist()
        results.append(sorted(deals, key=lambda r: (r["match_id"], r["deal_no"])))
    assert results[0] == results[1]
    assert len(results[0]) == 1 + 2 + 1 + 2 + 1


def test_a_slice_across_buckets_gives_the_same_rows_in_the_same_order(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The matches of several buckets read as one slice (a run adding a few matches to many
    buckets) give the rows that slices of one match each give, in the same (bucket, match id)
    order; duplicates are dropped alike."""
    from pipelines.steps import parsing

    monkeypatch.setattr(parsing, "N_BUCKETS", 3)
    ids = [f"m{i}" for i in range(8)]
    assert len({parsing.bucket_of(m) for m in ids}) == 3
    results = []
    for slice_events in (10**6, 6):
        monkeypatch.setattr(replaying, "SLICE_EVENTS", slice_events)
        store = Store(tmp_path / str(slice_events))
        events = [e for i, m in enumerate(ids) for e in match_events(m, deals=i % 2 + 1)]
        write_jsonl(store.inbox / "a.jsonl", events)
        write_jsonl(store.inbox / "b.jsonl", events[:3])
        report = _run(store)
        assert (report.matches, report.duplicates) == (8, 3)
        results.append([(r["match_id"], r["deal_no"]) for r in store.read_table("deals").to_pylist()])
    assert results[0] == results[1]
    assert [m for m, _ in results[0]] == sorted((m for m, _ in results[0]),
                                               key=lambda m: (parsing.bucket_of(m), m))


def test_slices_are_read_ahead_in_a_thread_and_a_failed_read_fails_the_replay(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The next slice is read in a thread of its own while one is cut and sent; an error of that
    read is the replay's error, and nothing is committed."""
    monkeypatch.setattr(replaying, "SLICE_EVENTS", 6)
    read_slice = replaying._read_slice
    readers: list[str] = []

    def failing_third(*args: object, **kwargs: object) -> object:
        readers.append(threading.current_thread().name)
        if len(readers) == 3:
            raise OSError(5, "Input/output error")
        return read_slice(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(replaying, "_read_slice", failing_third)
    store = Store(tmp_path)
    write_jsonl(store.inbox / "a.jsonl", [e for i in range(5) for e in match_events(f"m{i}")])
    ingest_step(store, workers=1)
    with pytest.raises(OSError, match="Input/output error"):
        replay_step(store, replay_fn=fake_replay, workers=1)
    assert len(readers) == 3
    assert all(name.startswith("replay-reads") for name in readers)
    assert not store.has_data("deals")


@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_any_delivery_in_pieces_gives_the_same_matches(data: st.DataObject) -> None:
    """Events of several matches, shuffled across files, some re-delivered, ingested over several
    runs, each match_end last: every match is held as incomplete until its match_end arrives,
    then replayed exactly once from exactly its own events."""
    matches = {f"m{i}": match_events(f"m{i}", deals=1 + i % 2) for i in range(3)}
    body = [e for evs in matches.values() for e in evs[:-1]]
    ends = [evs[-1] for evs in matches.values()]
    n_files = data.draw(st.integers(1, 4), label="files")
    file_of = data.draw(st.lists(st.integers(0, n_files - 1), min_size=len(body), max_size=len(body)),
                        label="file of event")
    resend = data.draw(st.lists(st.sampled_from(range(len(body))), max_size=4, unique=True), label="resent")
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp))
        for f in range(n_files):
            mine = [e for e, k in zip(body, file_of, strict=True) if k == f]
            extra = [body[i] for i in resend if file_of[i] != f]
            write_jsonl(store.inbox / f"f{f}.jsonl", data.draw(st.permutations(mine)) + extra)
            _run(store)
            assert _statuses(store) == {}
        write_jsonl(store.inbox / "ends.jsonl", data.draw(st.permutations(ends)))
        _run(store)
        assert _statuses(store) == dict.fromkeys(matches, "valid")
        n_events = store.read_table("matches", columns=["match_id", "n_events"]).to_pylist()
        assert {r["match_id"]: r["n_events"] for r in n_events} == {m: len(e) for m, e in matches.items()}
        assert store.read_table("quarantine").num_rows == 0
        meta = _assert_checks_pass(store)
        assert meta["rows_in"] == len(body) + len(ends) + sum(file_of[i] != f for i in resend
                                                              for f in range(n_files))


ROW = st.tuples(st.sampled_from(["a", "b"]), st.sampled_from([None, 0, 1, 2]), st.sampled_from(["x", "y"]),
                st.sampled_from(["f1", "f2"]), st.sampled_from(["b1", "b2"]), st.booleans())


@given(st.lists(ROW, max_size=12))
def test_first_reads_keep_the_copies_of_the_first_read_of_each_event(rows: list[tuple[object, ...]]) -> None:
    """A copy of an event (match, seq, content) that a later read repeats is dropped, copies within
    one read are kept (the replay judges those); with no (match, seq) twice, nothing is dropped.
    A copy's content is its canonical JSON: one in another layout (spaced, so another line hash)
    is the same event."""
    import polars as pl

    def line(match: object, seq: object, content: object, spaced: object) -> str:
        event = {"match": match, "seq": seq, "say": content}
        return json.dumps(event, indent=1) if spaced else json.dumps(event, separators=(",", ":"))

    keys = [(m, s, f, b) for m, s, _, f, b, _ in rows]
    frame = pl.DataFrame(keys, schema={"match_id": pl.String, "seq": pl.Int64, "source_file": pl.String,
                                       "_batch": pl.String}, orient="row")
    payloads = pa.chunked_array([[line(m, s, c, sp) for m, s, c, _, _, sp in rows]], pa.string())
    kept = replaying._first_reads(frame.with_row_index("_arrival"), payloads)
    first: dict[tuple[object, ...], tuple[object, ...]] = {}
    expected = []
    for i, (match, seq, content, source, batch, _) in enumerate(rows):
        read = first.setdefault((match, seq, content), (source, batch))
        if read == (source, batch):
            expected.append(i)
    assert kept["_arrival"].to_list() == expected
