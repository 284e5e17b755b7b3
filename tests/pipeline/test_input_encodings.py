"""Input encodings real tools write: CR-only line ends (classic Mac OS), UTF-16 and UTF-32 with
a byte order mark (Windows' "Unicode" and some exporters) or without one (RFC 4627 §3's NUL
pattern); an undecodable byte is one damage row naming the encoding, not a row per line; and a
log that grew since `gdan ingest` copied it replaces its copy instead of sitting beside it."""

from __future__ import annotations

import gzip
from pathlib import Path

import orjson
import pytest
from pipeline_helpers import fake_replay, match_events
from typer.testing import CliRunner

from gdan import app
from pipelines.steps.lines import LineReader, Resume
from pipelines.steps.transactions import ingest_step, replay_step
from pipelines.storage.store import Store


def _text(events: list[dict[str, object]], end: str = "\n") -> str:
    return "".join(orjson.dumps(e).decode() + end for e in events)


def _ingested(tmp_path: Path, name: str, data: bytes) -> tuple[Store, list[dict[str, object]]]:
    store = Store(tmp_path)
    store.inbox.mkdir(parents=True)
    (store.inbox / name).write_bytes(data)
    ingest_step(store, workers=1)
    replay_step(store, replay_fn=fake_replay, workers=1)
    return store, store.read_table("raw_events").sort_by("line_no").to_pylist()


def _statuses(store: Store) -> dict[str, str]:
    table = store.read_table("matches", columns=["match_id", "status"])
    return dict(zip(table["match_id"].to_pylist(), table["status"].to_pylist(), strict=True))


@pytest.mark.parametrize("name", ["a.jsonl", "a.jsonl.gz"])
def test_cr_only_line_ends_are_line_ends(tmp_path: Path, name: str) -> None:
    """events.md "Framing": one event per line; a CR alone ends a line as classic Mac OS wrote it."""
    events = match_events("m1", deals=2)
    data = _text(events, "\r").encode()
    store, raw = _ingested(tmp_path, name, gzip.compress(data) if name.endswith(".gz") else data)
    assert [r["parse_error"] for r in raw] == [None] * len(events)
    assert [r["payload"] for r in raw] == [orjson.dumps(e).decode() for e in events]
    assert _statuses(store) == {"m1": "valid"}


@pytest.mark.parametrize(
    ("encoding", "bom"),
    [
        ("utf-16-le", b"\xff\xfe"),
        ("utf-16-be", b"\xfe\xff"),
        ("utf-32-le", b"\xff\xfe\x00\x00"),
        ("utf-32-be", b"\x00\x00\xfe\xff"),
        ("utf-16-le", b""),
        ("utf-32-be", b""),
    ],
)
def test_utf16_and_utf32_files_are_decoded(tmp_path: Path, encoding: str, bom: bytes) -> None:
    events = match_events("m1", deals=2)
    events[0]["note"] = "掼蛋 ♠"
    data = bom + _text(events, "\r\n").encode(encoding)
    store, raw = _ingested(tmp_path, "a.jsonl", data)
    assert [r["parse_error"] for r in raw] == [None] * len(events)
    assert orjson.loads(str(raw[0]["payload"]))["note"] == "掼蛋 ♠"
    assert _statuses(store) == {"m1": "valid"}


def test_an_undecodable_utf16_file_is_one_damage_row_naming_the_encoding(tmp_path: Path) -> None:
    events = match_events("m1", deals=2)
    good = b"\xff\xfe" + _text(events[:3]).encode("utf-16-le")
    lone_surrogate = "\ud800".encode("utf-16-le", "surrogatepass")
    store, raw = _ingested(tmp_path, "a.jsonl", good + lone_surrogate + "x\n".encode("utf-16-le"))
    errors = [str(r["parse_error"]) for r in raw if r["parse_error"]]
    assert [r["parse_error"] for r in raw[:3]] == [None] * 3
    assert len(errors) == 1 and "UTF-16-LE" in errors[0], errors
    (logged,) = store.read_table("ingested_files").to_pylist()
    assert logged["problem"] == "damaged" and "UTF-16-LE" in str(logged["message"])


def test_a_growing_utf16_file_is_read_on_where_it_stopped(tmp_path: Path) -> None:
    """Offsets are of the decoded content, so a resumed read continues at the right line."""
    events = match_events("m1", deals=2)
    path = tmp_path / "live.jsonl"
    path.write_bytes(b"\xff\xfe" + _text(events[:4]).encode("utf-16-le"))
    first = LineReader(path, gz=False)
    assert len(list(first.lines_iter())) == 4
    path.write_bytes(b"\xff\xfe" + _text(events).encode("utf-16-le"))

    resume = Resume(first.offset, first.lines, first.prefix, first.terminated)
    second = LineReader(path, gz=False, resume=resume)
    rest = list(second.lines_iter())
    assert second.resumed and second.first_line == 5
    assert rest == [orjson.dumps(e) for e in events[4:]]


def test_gdan_ingest_of_a_grown_log_replaces_its_copy(tmp_path: Path) -> None:
    """A live log copied twice: one file in the inbox, read on by the next run, no raw row twice."""
    events = match_events("m1", deals=3)
    data = _text(events).encode()
    cut = data.index(b"\n", len(data) // 2) + 1
    source = tmp_path / "live.jsonl"
    source.write_bytes(data[:cut])
    store = tmp_path / "store"
    runner = CliRunner()
    assert runner.invoke(app, ["ingest", str(source), "--store", str(store)]).exit_code == 0
    ingest_step(Store(store), workers=1)
    source.write_bytes(data)
    again = runner.invoke(app, ["ingest", str(source), "--store", str(store)])
    assert again.exit_code == 0 and "1 grown since their last copy" in " ".join(again.output.split())
    assert sorted(p.name for p in (store / "inbox").iterdir()) == ["live.jsonl"]
    assert ingest_step(Store(store), workers=1).files_resumed == ["live.jsonl"]
    raw = Store(store).read_table("raw_events")
    assert sorted(raw["line_no"].to_pylist()) == list(range(1, len(events) + 1))
