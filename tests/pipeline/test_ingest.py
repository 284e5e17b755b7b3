"""Ingest: every line kept as received, malformed lines flagged, each file read once."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pipeline_helpers import match_events, write_jsonl

from pipelines.steps import ingest
from pipelines.steps.parsing import MALFORMED_BUCKET, bucket_of, canonical_hash, parse_line
from pipelines.steps.state import load_state
from pipelines.steps.transactions import ingest_step
from pipelines.storage.staged_parts import PartWriter
from pipelines.storage.store import Store

# events.md "Framing": a line must be a JSON object with a string `match` (else malformed_line);
# seq and type are passed on as found (the replay judges them: malformed_field, unknown_type).
PARSE_CASES = [
    (b'{"v":1,"match":"m","seq":3,"type":"play"}', "m", 3, "play", None),
    (b'{"v":1,"match":"m","seq":"3","type":7}', "m", None, None, None),
    (b'{"v":1,"match":"m","seq":true,"type":"pass"}', "m", None, "pass", None),
    (b'{"v":1,"seq":0,"type":"play"}', None, None, None, "no string `match` field"),
    (b'{"v":1,"match":12,"seq":0}', None, None, None, "no string `match` field"),
    (b'{"v":1,"match":"","seq":0}', None, None, None, "no string `match` field"),
    (b'[1, 2]', None, None, None, "not a JSON object"),
    (b'{"v":1,"match":"m"', None, None, None, "not JSON"),
    (b"\xff\xfe{}", None, None, None, "not UTF-8"),
]


@pytest.mark.parametrize(("line", "match", "seq", "kind", "error"), PARSE_CASES)
def test_parse_line(line: bytes, match: str | None, seq: int | None, kind: str | None,
                    error: str | None) -> None:
    row = parse_line(line)
    assert (row.match_id, row.seq, row.type) == (match, seq, kind)
    if error is None:
        assert row.parse_error is None
        assert row.payload == line.decode()
    else:
        assert row.parse_error is not None and row.parse_error.startswith(error)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=10,
)


@given(extra=st.dictionaries(st.text(min_size=1, max_size=6).filter(lambda k: k not in {"match", "seq"}),
                             json_values, max_size=5), seq=st.integers(0, 10**6))
def test_canonical_hash_ignores_spacing_and_key_order(extra: dict[str, object], seq: int) -> None:
    """Two copies of one event that differ only in layout are the same content (the dedup key of
    copies whose line hashes differ), and each row keeps its line as received."""
    event = {"match": "m", "seq": seq, **extra}
    compact = json.dumps(event, separators=(",", ":")).encode()
    spaced = json.dumps(dict(reversed(list(event.items()))), indent=1).replace("\n", " ").encode()
    assert canonical_hash(compact.decode()) == canonical_hash(spaced.decode())
    assert parse_line(compact).payload == compact.decode()
    assert parse_line(spaced).content_hash != parse_line(compact).content_hash


def test_content_hash_is_the_lines_and_canonical_hash_differs_with_content() -> None:
    a = b'{"match":"m","seq":1,"type":"pass","seat":"E"}'
    b = b'{"match":"m","seq":1,"type":"pass","seat":"N"}'
    assert parse_line(a).content_hash == parse_line(a).content_hash != parse_line(b).content_hash
    assert canonical_hash(a.decode()) != canonical_hash(b.decode())


def test_every_line_is_kept_with_file_and_line(tmp_path: Path) -> None:
    store = Store(tmp_path)
    write_jsonl(store.inbox / "a.jsonl", match_events("m1"), extra_lines=("garbage", "", '{"no":"match"}'))
    report = ingest_step(store)
    assert (report.rows, report.malformed, report.blank_lines, report.new_matches) == (5 + 2, 2, 1, 1)
    raw = store.read_table("raw_events").sort_by("line_no")
    assert raw["line_no"].to_pylist() == [1, 2, 3, 4, 5, 6, 8]
    assert set(raw["source_file"].to_pylist()) == {"a.jsonl"}
    lines = (store.inbox / "a.jsonl").read_text().splitlines()
    assert raw["payload"].to_pylist() == [lines[n - 1] for n in raw["line_no"].to_pylist()]
    assert raw["parse_error"].is_null().to_pylist() == [True] * 5 + [False, False]


def test_gzip_files_are_read(tmp_path: Path) -> None:
    store = Store(tmp_path)
    write_jsonl(store.inbox / "a.jsonl.gz", match_events("m1"))
    assert gzip.decompress((store.inbox / "a.jsonl.gz").read_bytes())
    assert ingest_step(store).rows == 5


def test_each_file_content_is_read_once(tmp_path: Path) -> None:
    store = Store(tmp_path)
    write_jsonl(store.inbox / "a.jsonl", match_events("m1"))
    assert ingest_step(store).files_read == ["a.jsonl"]
    (store.inbox / "copy.jsonl").write_bytes((store.inbox / "a.jsonl").read_bytes())
    (store.inbox / "a.jsonl").rename(store.inbox / "renamed.jsonl")
    second = ingest_step(store)
    assert second.files_read == []
    assert sorted(second.files_seen_before) == ["copy.jsonl", "renamed.jsonl"]
    assert store.read_table("raw_events").num_rows == 5


def test_rows_are_bucketed_by_match(tmp_path: Path) -> None:
    store = Store(tmp_path)
    write_jsonl(store.inbox / "a.jsonl", match_events("m1") + match_events("m2"), extra_lines=("x",))
    report = ingest_step(store)
    expected: dict[int, set[str | None]] = {}
    for match_id, bucket in (("m1", bucket_of("m1")), ("m2", bucket_of("m2")), (None, MALFORMED_BUCKET)):
        expected.setdefault(bucket, set()).add(match_id)
    for bucket, ids in expected.items():
        files = store.batch_files("raw_events", [report.batch_id], {"bucket": bucket})
        assert set(store.read_files("raw_events", files)["match_id"].to_pylist()) == ids
    assert len(store.data_files("raw_events")) == len(expected)


def test_unsupported_files_are_reported_not_read(tmp_path: Path) -> None:
    store = Store(tmp_path)
    (store.inbox).mkdir(parents=True)
    (store.inbox / "notes.txt").write_text("hello\n")
    (store.inbox / ".hidden.jsonl").write_text("{}\n")
    report = ingest_step(store)
    assert report.files_unsupported == ["notes.txt"]
    assert report.rows == 0
    again = ingest_step(store)
    assert again.files_unsupported == ["notes.txt"]
    assert not store.staging_dir.exists()


def test_state_tracks_match_completeness(tmp_path: Path) -> None:
    store = Store(tmp_path)
    write_jsonl(store.inbox / "a.jsonl", match_events("done") + match_events("open", end=False))
    ingest_step(store)
    matches = load_state(store).matches
    assert (matches["done"].ready, matches["open"].ready) == (True, False)
    assert (matches["done"].rows, matches["open"].rows) == (5, 4)


def test_parallel_parsing_gives_the_same_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunked parsing in worker processes keeps every line with its own line number."""
    from pipelines.steps import ingest

    monkeypatch.setattr(ingest, "CHUNK_LINES", 4)
    monkeypatch.setattr(ingest, "POOL_MIN_BYTES", 0)
    tables = []
    for workers in (1, 2):
        store = Store(tmp_path / f"w{workers}")
        events = [e for m in ("a", "b", "c") for e in match_events(m, deals=2)]
        write_jsonl(store.inbox / "x.jsonl", events, extra_lines=("bad",))
        write_jsonl(store.inbox / "y.jsonl", match_events("d"))
        report = ingest_step(store, workers=workers)
        assert (report.rows, report.malformed, report.new_matches) == (3 * 8 + 1 + 5, 1, 4)
        raw = store.read_table("raw_events").drop_columns(["ingested_at"])
        tables.append(raw.sort_by([("source_file", "ascending"), ("line_no", "ascending")]))
    assert tables[0].equals(tables[1])
    assert tables[0]["line_no"].to_pylist()[:25] == list(range(1, 26))


def test_ingest_reports_progress_per_file(tmp_path: Path) -> None:
    import io

    from rich.console import Console
    from rich.progress import Progress

    from pipelines.exec.progress import show_with

    store = Store(tmp_path)
    write_jsonl(store.inbox / "a.jsonl", match_events("m1"))
    write_jsonl(store.inbox / "b.jsonl", match_events("m2"))
    progress = Progress(console=Console(file=io.StringIO()))
    with show_with(progress):
        ingest_step(store)
    [task] = progress.tasks
    assert (task.description, task.total, task.completed) == ("ingest files", 2, 2)


NJUPT_GAME = Path("/work/shared/fixtures/njupt/game-0")


@pytest.mark.skipif(not NJUPT_GAME.exists(), reason="shared NJUPT fixture not available")
def test_foreign_logs_are_converted_on_ingest(tmp_path: Path) -> None:
    """An NJUPT game folder (four client recordings) becomes one match of event-v1 rows."""
    import shutil

    store = Store(tmp_path)
    shutil.copytree(NJUPT_GAME, store.inbox / "game-0")
    report = ingest_step(store, workers=1)
    assert len(report.files_read) == 4
    assert (report.malformed, report.new_matches) == (0, 1)
    raw = store.read_table("raw_events")
    assert set(raw["source_file"].to_pylist()) == {"game-0/client-0.jsonl"}
    assert raw["type"].to_pylist()[0] == "match_start"


@pytest.mark.skipif(not NJUPT_GAME.exists(), reason="shared NJUPT fixture not available")
def test_a_foreign_log_that_fails_conversion_is_kept_as_malformed_lines(tmp_path: Path) -> None:
    import shutil

    store = Store(tmp_path)
    shutil.copytree(NJUPT_GAME, store.inbox / "game-0")
    client = store.inbox / "game-0" / "client-0.jsonl"
    lines = client.read_text().splitlines()
    lines[0] = lines[0].replace('"H3"', '"X3"', 1)
    client.write_text("\n".join(lines) + "\n")
    report = ingest_step(store, workers=1)
    assert report.malformed == len(lines)
    raw = store.read_table("raw_events", columns=["source_file", "line_no", "payload", "parse_error"])
    rows = [r for r in raw.to_pylist() if r["source_file"] == "game-0/client-0.jsonl"]
    assert sorted(r["line_no"] for r in rows) == list(range(1, len(lines) + 1))
    first = min(rows, key=lambda r: r["line_no"])
    assert first["payload"] == lines[0]
    assert first["parse_error"].startswith("conversion failed: ") and "client-0.jsonl" in first["parse_error"]


def test_chunks_hold_exactly_chunk_lines_whatever_the_reads(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader hands over lines in runs of one read each (``LineReader.blocks``); the parsing
    tasks still get ``CHUNK_LINES`` consecutive lines each, numbered from the file's first."""
    from datetime import UTC, datetime

    from pipelines.steps import ingest, lines

    monkeypatch.setattr(lines, "READ_BYTES", 50)
    monkeypatch.setattr(ingest, "CHUNK_LINES", 7)
    path = tmp_path / "x.jsonl"
    written = [_play_line(i) for i in range(30)]
    path.write_bytes(b"\r\n".join(written) + b"\r\n")
    todo = [ingest._Read(path, "x.jsonl", "digest", None, {})]
    reads = [len(block) for block in lines.LineReader(path, gz=False).blocks()]
    assert len(reads) > 5 and max(reads) < 7
    chunks = list(ingest._chunks(todo, ingest.IngestReport("b"), datetime.now(UTC)))
    assert [len(c[0]) for c in chunks] == [7, 7, 7, 7, 2]
    assert [c[2] for c in chunks] == [1, 8, 15, 22, 29]
    assert [line for c in chunks for line in c[0]] == written


def _play_line(i: int) -> bytes:
    return json.dumps({"v": 1, "match": f"m{i % 3}", "seq": i, "type": "play"}).encode()


def test_declared_revisions_are_found_in_order_in_a_run_of_lines() -> None:
    """docs/event-extensions.md "Corrections — match_start.revision" (the extension of events.md
    "Event types"): a ``match_start`` with ``revision`` > 1 declares the match's revision; the
    later declaration wins, and ``revision`` elsewhere in a line declares nothing."""
    from pipelines.steps.ingest import _declare_revisions

    def start(match: str, revision: int) -> bytes:
        event = {"v": 1, "match": match, "seq": 0, "type": "match_start", "revision": revision}
        return json.dumps(event).encode()

    run = [start("a", 2), b'{"v":1,"match":"b","seq":3,"type":"play","note":"revision"}', _play_line(1),
           start("b", 1), start("a", 3), start("c", 4)]
    revisions: dict[str, int] = {"z": 2}
    _declare_revisions(run, revisions)
    assert revisions == {"z": 2, "a": 3, "c": 4}
    untouched: dict[str, int] = {}
    _declare_revisions([_play_line(i) for i in range(5)], untouched)
    assert untouched == {}


def test_many_flushes_keep_every_row_in_line_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Buffered rows flushed every 3 rows lose no row and keep each bucket's rows in line order,
    one row group a flush."""
    monkeypatch.setattr(ingest, "FLUSH_ROWS", 3)
    monkeypatch.setattr(ingest, "CHUNK_LINES", 2)
    store = Store(tmp_path)
    events = match_events("m1", deals=2) + match_events("m2")
    write_jsonl(store.inbox / "a.jsonl", events)
    report = ingest_step(store)
    by_bucket: dict[int, list[int]] = {}
    for line_no, event in enumerate(events, start=1):
        by_bucket.setdefault(bucket_of(str(event["match"])), []).append(line_no)
    for bucket, line_numbers in by_bucket.items():
        files = store.batch_files("raw_events", [report.batch_id], {"bucket": bucket})
        assert store.read_files("raw_events", files)["line_no"].to_pylist() == line_numbers
    groups = sum(pq.ParquetFile(f).num_row_groups for f in store.data_files("raw_events"))
    assert groups >= len(events) // 3


def test_a_failed_bucket_write_fails_the_ingest_and_commits_nothing(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A bucket write that fails fails the ingest with its error and nothing of the run is
    committed; the next run reads the file whole."""
    monkeypatch.setattr(ingest, "FLUSH_ROWS", 3)
    monkeypatch.setattr(ingest, "CHUNK_LINES", 2)

    class FailingWriter(PartWriter):
        def write(self, table: pa.Table) -> None:
            raise OSError("disk full")

    monkeypatch.setattr(ingest, "PartWriter", FailingWriter)
    store = Store(tmp_path)
    events = match_events("m1", deals=2)
    write_jsonl(store.inbox / "a.jsonl", events)
    with pytest.raises(OSError, match="disk full"):
        ingest_step(store)
    assert store.read_table("raw_events").num_rows == 0
    monkeypatch.setattr(ingest, "PartWriter", PartWriter)
    assert ingest_step(store).files_read == ["a.jsonl"]
    assert store.read_table("raw_events").num_rows == len(events)
