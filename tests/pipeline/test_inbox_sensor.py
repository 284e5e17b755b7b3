"""The inbox sensor: each file dropped into the store's inbox brings exactly one run request,
keyed by the file, and a tick with nothing new requests nothing."""

from __future__ import annotations

from pathlib import Path

from dagster import RunRequest, build_sensor_context
from pipeline_helpers import match_events, write_jsonl

from pipelines.defs.resources import StoreResource
from pipelines.defs.sensors import inbox_sensor


def _tick(root: Path, cursor: str | None) -> tuple[list[RunRequest], str | None]:
    context = build_sensor_context(cursor=cursor, resources={"store": StoreResource(root=str(root))})
    requests = [r for r in inbox_sensor(context) if isinstance(r, RunRequest)]  # type: ignore[union-attr]
    return requests, context.cursor


def test_each_new_inbox_file_requests_one_run_and_a_second_tick_none(tmp_path: Path) -> None:
    root = tmp_path / "store"
    assert _tick(root, None)[0] == []
    write_jsonl(root / "inbox" / "a.jsonl", match_events("a"))
    write_jsonl(root / "inbox" / "day2" / "b.jsonl", match_events("b"))
    (root / "inbox" / ".partial.jsonl").write_text("{}")

    requests, cursor = _tick(root, None)
    assert sorted(r.run_key.split("@")[0] for r in requests if r.run_key) == ["a.jsonl", "day2/b.jsonl"]
    assert len({r.run_key for r in requests}) == 2
    assert _tick(root, cursor)[0] == []

    write_jsonl(root / "inbox" / "c.jsonl", match_events("c"))
    requests, cursor = _tick(root, cursor)
    assert [r.tags["gdan/inbox_file"] for r in requests] == ["c.jsonl"]
    assert _tick(root, cursor)[0] == []


def test_the_run_key_follows_the_content_so_a_file_is_not_processed_twice(tmp_path: Path) -> None:
    """A cursor lost (or a file touched) asks again, under the same run key, which Dagster
    does not launch twice; a file whose content changed gets a new key."""
    root = tmp_path / "store"
    path = write_jsonl(root / "inbox" / "a.jsonl", match_events("a"))
    first, _ = _tick(root, None)
    again, _ = _tick(root, None)
    assert [r.run_key for r in again] == [r.run_key for r in first]
    write_jsonl(path, match_events("a", deals=2))
    changed, _ = _tick(root, None)
    assert [r.run_key for r in changed] != [r.run_key for r in first]
