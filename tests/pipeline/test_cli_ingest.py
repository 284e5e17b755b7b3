"""`gdan ingest` copies files into the inbox once: the same content is not copied again, and a
different file with a name already in the inbox is kept under a hash-prefixed name (nothing lost)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from gdan import app
from pipelines.steps.ingest import file_sha256


def test_ingest_copies_once_and_never_overwrites(tmp_path: Path) -> None:
    store = tmp_path / "store"
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    (first / "day.jsonl").write_text('{"v":1,"match":"m1","seq":0,"type":"match_start"}\n')
    (second / "day.jsonl").write_text('{"v":1,"match":"m2","seq":0,"type":"match_start"}\n')
    runner = CliRunner()

    def said(result: object) -> str:
        return " ".join(result.output.split())  # type: ignore[attr-defined]

    done = runner.invoke(app, ["ingest", str(first / "day.jsonl"), "--store", str(store)])
    assert done.exit_code == 0, done.output
    again = runner.invoke(app, ["ingest", str(first / "day.jsonl"), "--store", str(store)])
    assert again.exit_code == 0 and "0 file(s) copied" in said(again) and "1 already there" in said(again)
    other = runner.invoke(app, ["ingest", str(second / "day.jsonl"), "--store", str(store)])
    assert other.exit_code == 0 and "1 file(s) copied" in said(other)

    inbox = sorted(p.name for p in (store / "inbox").iterdir())
    prefixed = f"{file_sha256(second / 'day.jsonl')[:8]}-day.jsonl"
    assert inbox == sorted(["day.jsonl", prefixed])
    assert (store / "inbox" / prefixed).read_bytes() == (second / "day.jsonl").read_bytes()
