"""Robustness: input that real tools write, damaged input, and input that changes.

- damaged ``.jsonl.gz`` files: the readable lines are kept, the damage quarantined with file and
  position, the other files go on, and the run says so (item 2);
- a UTF-8 BOM and CRLF line ends are accepted; bad bytes are still refused (item 6);
- the same match under two ids is found by content and scored once (item 7);
- an empty input file is reported (item 11);
- a file that grows between runs is read on where the last read stopped (item 12);
- ``gdan ingest ..`` and ``gdan import --match-id`` write only where they say (item 17).
"""

from __future__ import annotations

import gzip
import os
import zlib
from pathlib import Path

import orjson
import polars as pl
import pytest
from pipeline_helpers import fake_replay, match_events, write_jsonl
from typer.testing import CliRunner

from gdan import app
from gdan.pipeline import EXIT_QUARANTINED
from pipelines.steps import replaying
from pipelines.steps.state import load_state
from pipelines.steps.transactions import ingest_step, replay_step
from pipelines.storage.store import Store

runner = CliRunner()


def _run(store: Store) -> None:
    ingest_step(store, workers=1)
    replay_step(store, replay_fn=fake_replay, workers=1)


def _statuses(store: Store) -> dict[str, str]:
    table = store.read_table("matches", columns=["match_id", "status"])
    return dict(zip(table["match_id"].to_pylist(), table["status"].to_pylist(), strict=True))


def _quarantine(store: Store) -> list[tuple[str, int, str | None, str]]:
    rows = store.read_table("quarantine").to_pylist()
    return sorted((r["source_file"], r["line_no"], r["match_id"], r["code"]) for r in rows)


def _lines(events: list[dict[str, object]]) -> list[bytes]:
    return [orjson.dumps(e) + b"\n" for e in events]


def _said(result: object) -> str:
    return " ".join(result.output.split())  # type: ignore[attr-defined]


# -- item 2: a damaged .jsonl.gz ---------------------------------------------------------------


def _truncated_gzip(path: Path, events: list[dict[str, object]], keep: float = 0.6) -> int:
    """Write ``events`` gzip-compressed, cut to ``keep`` of the file; return the whole lines readable."""
    data = gzip.compress(b"".join(_lines(events)))
    cut = data[: int(len(data) * keep)]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(cut)
    readable = zlib.decompressobj(wbits=31).decompress(cut)
    return readable.count(b"\n")


def test_truncated_gzip_keeps_its_readable_lines_and_quarantines_the_damage(tmp_path: Path) -> None:
    store = Store(tmp_path)
    events = match_events("cut", deals=6)
    readable = _truncated_gzip(store.inbox / "a.jsonl.gz", events)
    assert 0 < readable < len(events)
    write_jsonl(store.inbox / "b.jsonl", match_events("other"))
    report = ingest_step(store, workers=1)
    assert sorted(report.files_read) == ["a.jsonl.gz", "b.jsonl"]
    [problem] = report.problems
    assert problem.startswith("a.jsonl.gz: truncated gzip data: the file ends at compressed byte ")
    assert f"lines 1–{readable} read, the damage quarantined as line {readable + 1}" in problem
    raw = store.read_table("raw_events").to_pylist()
    kept = sorted(r["line_no"] for r in raw if r["source_file"] == "a.jsonl.gz" and r["parse_error"] is None)
    assert kept == list(range(1, readable + 1))
    replay_step(store, replay_fn=fake_replay, workers=1)
    assert _quarantine(store) == [("a.jsonl.gz", readable + 1, None, "malformed_line")]
    [row] = store.read_table("quarantine").to_pylist()
    assert row["message"].startswith("truncated gzip data") and "compressed byte" in row["message"]
    assert _statuses(store) == {"other": "valid"}
    assert load_state(store).matches["cut"].status == "incomplete"


def test_a_file_named_gz_that_is_not_gzip_is_quarantined_and_others_go_on(tmp_path: Path) -> None:
    store = Store(tmp_path)
    write_jsonl(store.inbox / "plain.jsonl", match_events("m1"))
    (store.inbox / "plain.jsonl").rename(store.inbox / "plain.jsonl.gz")
    write_jsonl(store.inbox / "b.jsonl", match_events("m2"))
    _run(store)
    assert _statuses(store) == {"m2": "valid"}
    [row] = store.read_table("quarantine").to_pylist()
    assert (row["source_file"], row["line_no"], row["code"]) == ("plain.jsonl.gz", 1, "malformed_line")
    assert row["message"].startswith('not gzip data: the file starts with b\'{"v":1,"\', expected the gzip ')
    assert row["payload"].startswith('{"v":1,"match":"m1"')


def test_corrupt_gzip_data_is_located(tmp_path: Path) -> None:
    store = Store(tmp_path)
    data = bytearray(gzip.compress(b"".join(_lines(match_events("m1", deals=20)))))
    middle = len(data) // 2
    data[middle : middle + 64] = bytes(64)
    store.inbox.mkdir(parents=True)
    (store.inbox / "a.jsonl.gz").write_bytes(bytes(data))
    report = ingest_step(store, workers=1)
    [problem] = report.problems
    assert problem.startswith(
        f"a.jsonl.gz: damaged gzip data in compressed bytes 0–{len(data) - 1} of {len(data)}: "
    )


def test_gdan_run_and_validate_name_the_damaged_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replaying, "default_replay_fn", lambda: fake_replay)
    store = Store(tmp_path / "store")
    readable = _truncated_gzip(store.inbox / "a.jsonl.gz", match_events("cut", deals=6))
    write_jsonl(store.inbox / "b.jsonl", match_events("other"))
    result = runner.invoke(app, ["run", "--store", str(store.root), "--workers", "1"])
    assert result.exit_code == EXIT_QUARANTINED, result.output  # the damage is quarantined: alert
    assert "warning: a.jsonl.gz: truncated gzip data" in _said(result)
    assert f"quarantined as line {readable + 1}" in _said(result)
    checked = runner.invoke(app, ["validate", str(store.inbox / "a.jsonl.gz")])
    assert checked.exit_code == 1
    assert "Aborted" not in checked.output
    assert f"a.jsonl.gz:{readable + 1}: malformed line: truncated gzip data" in _said(checked)


# -- item 6: BOM and CRLF ----------------------------------------------------------------------

BOM = b"\xef\xbb\xbf"


@pytest.mark.parametrize("name", ["a.jsonl", "a.jsonl.gz"])
def test_a_bom_and_crlf_line_ends_are_accepted(tmp_path: Path, name: str) -> None:
    """events.md "Framing": UTF-8 JSON Lines; the BOM is an encoding signature, CRLF a line end."""
    store = Store(tmp_path)
    store.inbox.mkdir(parents=True)
    events = match_events("m1")
    text = BOM + b"".join(line.replace(b"\n", b"\r\n") for line in _lines(events))
    (store.inbox / name).write_bytes(gzip.compress(text) if name.endswith(".gz") else text)
    _run(store)
    raw = store.read_table("raw_events").sort_by("line_no").to_pylist()
    assert [r["parse_error"] for r in raw] == [None] * len(events)
    assert raw[0]["payload"] == orjson.dumps(events[0]).decode()
    assert _statuses(store) == {"m1": "valid"}


def test_bad_bytes_are_still_refused(tmp_path: Path) -> None:
    """Only a BOM at the very start is dropped; one inside the file, or bytes that are not UTF-8,
    make their line malformed (events.md "Framing")."""
    store = Store(tmp_path)
    store.inbox.mkdir(parents=True)
    events = match_events("m1")
    lines = _lines(events)
    lines.insert(2, BOM + lines[2])
    lines.insert(4, b'{"v":1,"match":"m1","seq":9,"note":"\xff"}\n')
    (store.inbox / "a.jsonl").write_bytes(BOM + b"".join(lines))
    ingest_step(store, workers=1)
    raw = store.read_table("raw_events").sort_by("line_no").to_pylist()
    errors = [(r["line_no"], (r["parse_error"] or "")[:10]) for r in raw if r["parse_error"]]
    assert errors == [(3, "not JSON: "), (5, "not UTF-8:")]


def test_gdan_validate_accepts_a_bom(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(BOM + b"".join(_lines(match_events("m1"))))
    result = runner.invoke(app, ["validate", str(path)])
    assert "malformed" not in result.output
    assert "1 matches" in result.output


NJUPT_GAME = Path("/work/shared/fixtures/njupt/game-0")


@pytest.mark.skipif(not NJUPT_GAME.exists(), reason="shared NJUPT fixture not available")
def test_a_foreign_log_with_a_bom_is_recognised_and_converted(tmp_path: Path) -> None:
    from importers import detect_and_convert, sniff
    from importers.sniff import SourceFormat

    client = tmp_path / "client.jsonl"
    client.write_bytes(BOM + (NJUPT_GAME / "client-0.jsonl").read_bytes())
    assert sniff(client) is SourceFormat.NJUPT
    converted = detect_and_convert(client)
    assert converted is not None and orjson.loads(next(converted))["type"] == "match_start"


# -- item 7: the same match under two ids ------------------------------------------------------


def _simulated(inbox: Path) -> list[dict[str, object]]:
    """A small simulated round (2 matches, 1 deal each) in ``inbox``; returns its events."""
    from simulator import simulate_to_dir

    summary = simulate_to_dir(inbox / "day1", kind="tournament", pairs=4, rounds=1, format="deals:1", seed=3)
    [name] = summary.files
    return [orjson.loads(line) for line in (inbox / "day1" / name).read_bytes().splitlines() if line.strip()]


def test_a_match_copied_under_another_id_is_listed_and_scored_once(tmp_path: Path) -> None:
    from pipelines.run.runner import run_pipeline

    store = Store(tmp_path)
    events = _simulated(store.inbox)
    original = sorted({str(e["match"]) for e in events})[0]
    run_pipeline(tmp_path, workers=1)
    scored_before = store.read_table("match_scores").num_rows
    ratings_before = store.read_table("ratings").sort_by("player_id").to_pylist()
    copy = [{**e, "match": "copy-of-" + original} for e in events if e["match"] == original]
    write_jsonl(store.inbox / "day1-again.jsonl", copy)
    run_pipeline(tmp_path, workers=1)

    statuses = _statuses(store)
    assert statuses["copy-of-" + original] == statuses[original] == "valid"
    raw_ids = set(store.read_table("raw_events", columns=["match_id"])["match_id"].to_pylist())
    assert "copy-of-" + original in raw_ids
    [row] = store.read_table("duplicate_matches").to_pylist()
    assert row == {
        "match_id": "copy-of-" + original,
        "duplicate_of": original,
        "deals": 1,
        "match_deals": 1,
        "excluded": True,
        "reason": f"every deal (1) with the same hands and plays as in match {original!r}, "
        "ingested earlier; left out of scoring",
    }
    scores = store.read_table("match_scores")
    assert scores.num_rows == scored_before
    assert "copy-of-" + original not in scores["match_id"].to_pylist()
    assert store.read_table("ratings").sort_by("player_id").to_pylist() == ratings_before


def _deal_tables(deals: dict[str, list[list[str]]]) -> tuple[object, object]:
    """``deal_hands`` and ``plays`` rows: per match, per deal, the single cards played in turn."""
    import pyarrow as pa
    from pipeline_helpers import hands

    from schemas.tables import DEAL_HANDS, PLAYS

    hand_rows, play_rows = [], []
    for match_id, per_deal in deals.items():
        for deal_no, cards in enumerate(per_deal, start=1):
            hand_rows += [
                {"match_id": match_id, "deal_no": deal_no, "seat": seat, "hand": hand}
                for seat, hand in hands().items()
            ]
            play_rows += [
                {
                    "match_id": match_id,
                    "deal_no": deal_no,
                    "trick_no": 1,
                    "seq": i,
                    "pos_in_trick": i,
                    "is_lead": i == 0,
                    "seat": "ENWS"[i % 4],
                    "action": "play",
                    "cards": [card],
                }
                for i, card in enumerate(cards)
            ]
    return pa.Table.from_pylist(hand_rows, schema=DEAL_HANDS), pa.Table.from_pylist(play_rows, schema=PLAYS)


def test_duplicates_need_the_same_hands_and_the_same_plays() -> None:
    """Same hands but other plays (a duplicate board's other room) is no copy; a match sharing
    only some deals is listed but still scored; the earlier match in ingest order is the original."""
    from pipelines.steps.duplicates import duplicate_matches
    from pipelines.steps.fingerprints import deal_fingerprints

    deal_hands, plays = _deal_tables(
        {
            "room-open": [["S2", "S3"]],
            "room-closed": [["S3", "S2"]],
            "a": [["H5"], ["H6"]],
            "b-copy": [["H5"], ["H6"]],
            "c-part": [["H5"], ["H9"]],
        }
    )
    order = pl.DataFrame({"match_id": ["room-open", "room-closed", "b-copy", "a", "c-part"],
                          "order": [0, 0, 1, 0, 2]})
    rows = duplicate_matches(deal_fingerprints(plays, deal_hands), order).to_pylist()
    assert [
        (r["match_id"], r["duplicate_of"], r["deals"], r["match_deals"], r["excluded"]) for r in rows
    ] == [("b-copy", "a", 2, 2, True), ("c-part", "a", 1, 2, False)]
    assert (
        rows[1]["reason"] == "1 of 2 deals with the same hands and plays as in match 'a', ingested "
        "earlier; still scored, check it"
    )


# -- item 11: an empty file --------------------------------------------------------------------


def test_empty_files_are_reported_and_logged(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.inbox.mkdir(parents=True)
    (store.inbox / "empty.jsonl").write_bytes(b"")
    (store.inbox / "blank.jsonl").write_bytes(b"\n\r\n\n")
    (store.inbox / "empty.jsonl.gz").write_bytes(gzip.compress(b""))
    report = ingest_step(store, workers=1)
    assert sorted(report.problems) == [
        "blank.jsonl: no events: only 3 blank line(s)",
        "empty.jsonl.gz: no events: no lines (empty once decompressed)",
        "empty.jsonl: empty file (0 bytes): no events",
    ]
    log = store.read_table("ingested_files").sort_by("source_file").to_pylist()
    assert [(r["source_file"], r["problem"], r["rows"]) for r in log] == [
        ("blank.jsonl", "empty", 0),
        ("empty.jsonl", "empty", 0),
        ("empty.jsonl.gz", "empty", 0),
    ]
    files = load_state(store).files.values()
    assert sorted(f.name for f in files if f.problem == "empty") == [
        "blank.jsonl",
        "empty.jsonl",
        "empty.jsonl.gz",
    ]


def test_gdan_run_warns_about_an_empty_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replaying, "default_replay_fn", lambda: fake_replay)
    store = Store(tmp_path)
    store.inbox.mkdir(parents=True)
    (store.inbox / "empty.jsonl").write_bytes(b"")
    result = runner.invoke(app, ["run", "--store", str(tmp_path), "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "warning: empty.jsonl: empty file (0 bytes): no events" in _said(result)


# -- item 12: a file that grows between runs ---------------------------------------------------


def test_a_growing_file_is_read_on_where_the_last_run_stopped(tmp_path: Path) -> None:
    """A live log cut mid-line, then completed, under one name."""
    store = Store(tmp_path)
    store.inbox.mkdir(parents=True)
    live = store.inbox / "live.jsonl"
    data = b"".join(_lines(match_events("m1", deals=3)))
    cut = data.index(b"\n", len(data) // 2) + 20
    live.write_bytes(data[:cut])
    _run(store)
    assert load_state(store).matches["m1"].status == "incomplete"
    assert store.read_table("raw_events")["parse_error"].null_count == data[:cut].count(b"\n")
    with live.open("ab") as handle:
        handle.write(data[cut:])
    report = ingest_step(store, workers=1)
    assert report.files_resumed == ["live.jsonl"]
    replay_step(store, replay_fn=fake_replay, workers=1)
    assert _statuses(store) == {"m1": "valid"}
    raw = store.read_table("raw_events")
    assert sorted(raw["line_no"].to_pylist()) == list(range(1, data.count(b"\n") + 1))
    assert raw["parse_error"].null_count == raw.num_rows
    assert _quarantine(store) == []
    log = store.read_table("ingested_files").sort_by("first_line").to_pylist()
    assert [(r["first_line"], r["resumed"], r["problem"]) for r in log] == [
        (1, False, "unfinished_line"),
        (data[:cut].count(b"\n") + 1, True, None),
    ]


def test_a_simulated_live_log_replays_valid_when_written_in_two_runs(tmp_path: Path) -> None:
    """The same repro with the real replayer (``head -N``, run, append the rest, run): every match
    valid, as when the halves arrive as two files."""
    from pipelines.run.runner import run_pipeline

    source = Store(tmp_path / "source")
    events = _simulated(source.inbox)
    data = b"".join(_lines(events))
    store = Store(tmp_path / "store")
    store.inbox.mkdir(parents=True)
    live = store.inbox / "live.jsonl"
    cut = data.index(b"\n", len(data) // 2) + 30
    live.write_bytes(data[:cut])
    run_pipeline(store.root, workers=1)
    with live.open("ab") as handle:
        handle.write(data[cut:])
    run_pipeline(store.root, workers=1)
    assert set(_statuses(store).values()) == {"valid"}
    assert len(_statuses(store)) == len({e["match"] for e in events})
    assert _quarantine(store) == []


def test_a_gzip_file_still_being_written_is_read_on_once_complete(tmp_path: Path) -> None:
    """A truncated .gz is quarantined where it stops; once complete, the rest is read (not the
    start again) and the match replays valid."""
    store = Store(tmp_path)
    events = match_events("m1", deals=20)
    readable = _truncated_gzip(store.inbox / "live.jsonl.gz", events, keep=0.5)
    _run(store)
    write_jsonl(store.inbox / "live.jsonl.gz", events)
    report = ingest_step(store, workers=1)
    assert (report.files_resumed, report.rows, report.problems) == (
        ["live.jsonl.gz"],
        len(events) - readable,
        [],
    )
    replay_step(store, replay_fn=fake_replay, workers=1)
    assert _statuses(store) == {"m1": "valid"}
    assert _quarantine(store) == [("live.jsonl.gz", readable + 1, None, "malformed_line")]


def test_a_complete_last_line_without_a_line_break_is_read_now(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.inbox.mkdir(parents=True)
    live = store.inbox / "live.jsonl"
    first = b"".join(_lines(match_events("m1")))
    live.write_bytes(first.rstrip(b"\n"))
    _run(store)
    assert _statuses(store) == {"m1": "valid"}
    live.write_bytes(first + b"".join(_lines(match_events("m2"))))
    _run(store)
    assert _statuses(store) == {"m1": "valid", "m2": "valid"}
    raw = store.read_table("raw_events")
    assert sorted(raw["line_no"].to_pylist()) == list(range(1, 11))
    assert raw["parse_error"].null_count == 10


def test_a_file_whose_start_changed_is_new_and_its_repeated_events_are_dropped(tmp_path: Path) -> None:
    """A log rewritten with other content at its start is read whole again; the events of the
    first read it repeats are dropped as re-delivered, not reported as duplicate_seq."""
    store = Store(tmp_path)
    store.inbox.mkdir(parents=True)
    live = store.inbox / "live.jsonl"
    m1 = _lines(match_events("m1"))
    live.write_bytes(b"".join(m1[:3]))
    _run(store)
    live.write_bytes(b"".join(_lines(match_events("m0")) + m1))
    report = ingest_step(store, workers=1)
    assert report.files_resumed == []
    replay = replay_step(store, replay_fn=fake_replay, workers=1)
    assert _statuses(store) == {"m0": "valid", "m1": "valid"}
    assert replay.duplicates == 3
    assert _quarantine(store) == []


def test_a_line_repeated_within_one_read_is_still_a_fault(tmp_path: Path) -> None:
    """Dropping re-reads does not hide a log that repeats a line itself (events.md "Validation")."""
    store = Store(tmp_path)
    store.inbox.mkdir(parents=True)
    lines = _lines(match_events("m1"))
    (store.inbox / "a.jsonl").write_bytes(b"".join([*lines[:3], lines[2], *lines[3:]]))
    _run(store)
    assert _statuses(store) == {"m1": "invalid"}


# -- item 17: files go where they are said to go -----------------------------------------------


def test_gdan_ingest_of_a_parent_folder_copies_into_the_inbox(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    logs = tmp_path / "logs"
    write_jsonl(logs / "day1" / "a.jsonl", match_events("m1"))
    (logs / "day2").mkdir()
    store = tmp_path / "store"
    monkeypatch.chdir(logs / "day2")
    result = runner.invoke(app, ["ingest", "..", "--store", str(store)])
    assert result.exit_code == 0, result.output
    assert "1 file(s) copied" in _said(result)
    copied = sorted(p.relative_to(store).as_posix() for p in store.rglob("*") if p.is_file())
    assert copied == ["inbox/logs/day1/a.jsonl"]


def test_gdan_import_refuses_a_match_id_that_leaves_the_output_folder(tmp_path: Path) -> None:
    source = Path(__file__).parents[1] / "importers" / "fixtures" / "game1-deal1.botzone.json"
    out = tmp_path / "a" / "b" / "out"
    before = sorted(p for p in tmp_path.rglob("*"))
    result = runner.invoke(app, ["import", str(source), "--out", str(out), "--match-id", "../../x"])
    assert result.exit_code == 2
    assert "--match-id" in result.output and "path separator" in _said(result)
    assert sorted(p for p in tmp_path.rglob("*")) == before


def test_an_imported_match_id_is_a_plain_file_name(tmp_path: Path) -> None:
    from importers import ConversionError
    from importers.jobs import ImportJob, import_job

    source = Path(__file__).parents[1] / "importers" / "fixtures" / "game1-deal1.botzone.json"
    with pytest.raises(ConversionError, match=r"match: expected a match id usable as a file name"):
        import_job(ImportJob("botzone", (source,)), tmp_path, match_id=".hidden")
    assert os.listdir(tmp_path) == []
