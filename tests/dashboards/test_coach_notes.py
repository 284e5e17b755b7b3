"""Coaches' notes and tags on deals (pipelines/reads/annotations.py): appended as new files of
``<store>/annotations/``, never editing the logs or an earlier note, read back per deal."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipelines.reads.annotations import Note, append_note, clean_tags, read_notes
from pipelines.storage.store import Store


def test_notes_are_appended_and_read_back_per_deal(tmp_path: Path) -> None:
    first = append_note(tmp_path, Note("m1", 2, "bombed too early", ("bomb timing",), step=7, author="Li"))
    append_note(tmp_path, Note("m1", 3, "other deal"))
    append_note(tmp_path, Note("m1", 2, "", ("endgame",)))
    assert first.parent == Store(tmp_path).annotations_dir
    notes, skipped = read_notes(tmp_path, match_id="m1", deal_no=2)
    assert skipped == 0
    assert [(n.text, n.tags, n.step, n.author) for n in notes] == [
        ("bombed too early", ("bomb timing",), 7, "Li"),
        ("", ("endgame",), None, None),
    ]
    assert len(read_notes(tmp_path)[0]) == 3


def test_a_note_never_rewrites_an_earlier_one(tmp_path: Path) -> None:
    path = append_note(tmp_path, Note("m1", 1, "first"))
    before = path.read_bytes()
    append_note(tmp_path, Note("m1", 1, "correction: second"))
    assert path.read_bytes() == before
    assert len(list(Store(tmp_path).annotations_dir.glob("*.jsonl"))) == 2
    assert not list(Store(tmp_path).annotations_dir.glob(".*"))  # no temporary file left


def test_an_empty_note_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="text or at least one tag"):
        append_note(tmp_path, Note("m1", 1, "  "))


def test_lines_that_are_not_notes_are_skipped_and_counted(tmp_path: Path) -> None:
    append_note(tmp_path, Note("m1", 1, "kept"))
    folder = Store(tmp_path).annotations_dir
    (folder / "hand-edited.jsonl").write_text('{"match_id": "m1"}\nnot json\n\n', encoding="utf-8")
    notes, skipped = read_notes(tmp_path, match_id="m1", deal_no=1)
    assert [n.text for n in notes] == ["kept"] and skipped == 2


def test_no_folder_means_no_notes(tmp_path: Path) -> None:
    assert read_notes(tmp_path) == ([], 0)


@pytest.mark.parametrize(
    ("typed", "tags"),
    [
        ("endgame, bomb timing", ("endgame", "bomb timing")),
        ("#endgame #bomb", ("endgame", "bomb")),
        ("a, a , ,b", ("a", "b")),
        ("", ()),
    ],
)
def test_tags_are_cleaned(typed: str, tags: tuple[str, ...]) -> None:
    assert clean_tags(typed) == tags
