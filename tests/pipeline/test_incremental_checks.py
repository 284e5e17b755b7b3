"""Card conservation after an append checks only the deals appended since its memo (issue 17,
"Speed and scale"), with the same outcome and metadata as a check of the whole store: over
several additions, a bad deal arriving in a later batch, and a correction (whose retraction
deletes rows, so the check is computed whole again)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from pipeline_helpers import fake_replay, hands, match_events, write_jsonl

from pipelines import checks, replaying, store_checks
from pipelines.steps import ingest_step, replay_step
from pipelines.store import Store


@pytest.fixture(autouse=True)
def stand_in_replayer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replaying, "default_replay_fn", lambda: fake_replay)


def _bad_deal(events: list[dict[str, Any]], deal: int) -> list[dict[str, Any]]:
    """East holds a third copy of a card in ``deal`` (rules.md §1: two decks, each card twice)."""
    for event in events:
        if event["type"] == "deal_start" and event["deal"] == deal:
            east = list(hands()["E"])
            east[east.index("S2")] = "HR"
            event["hands"] = {**hands(), "E": east}
    return events


def _revised(events: list[dict[str, Any]], revision: int) -> list[dict[str, Any]]:
    events[0]["revision"] = revision
    return events


def _add(root: Path, name: str, events: list[dict[str, Any]]) -> None:
    store = Store(root)
    write_jsonl(store.inbox / name, events)
    ingest_step(store, workers=1)
    replay_step(store, replay_fn=fake_replay, workers=1)


class _Whole:
    """Counts the checks computed over the whole store (``store_checks._con``)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        real = store_checks._con

        def counted(store: Store) -> Any:
            self.calls += 1
            return real(store)

        monkeypatch.setattr(store_checks, "_con", counted)
        self.real = real


Result = tuple[bool, dict[str, Any]]


def _check_and_whole(root: Path, whole: _Whole) -> tuple[Result, Result]:
    """(the run's check, memoized; the same check computed over the whole store, not memoized)."""
    outcome = store_checks.card_conservation(Store(root).pinned())
    reference = checks.card_conservation(whole.real(Store(root).pinned()))
    return (outcome.passed, dict(outcome.metadata)), reference


# Each step: what arrives, whether the check is then computed whole (no memo yet, or rows
# deleted since), and whether it passes (rules.md §1; a replaced revision's rows retracted, events.md).
STEPS = [
    ("first batch: no memo yet, computed whole", "a.jsonl",
     lambda: [e for i in range(3) for e in match_events(f"m{i}", deals=2)], True, True),
    ("an addition: only its deals", "b.jsonl",
     lambda: [e for i in range(3, 5) for e in match_events(f"m{i}", deals=3)], False, True),
    ("a later batch with a bad deal", "c.jsonl",
     lambda: _bad_deal(match_events("bad", deals=12), 10) + match_events("m5"), False, False),
    ("another addition after it", "d.jsonl", lambda: match_events("m6", deals=2), False, False),
    ("a correction of the bad match: rows deleted, computed whole", "e.jsonl",
     lambda: _revised(match_events("bad", deals=12), 2), True, True),
    ("an addition after the correction", "f.jsonl",
     lambda: match_events("m7", deals=4) + _bad_deal(match_events("bad2"), 1), False, False),
]


def test_card_conservation_over_new_batches_equals_the_whole_store_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = _Whole(monkeypatch)
    for label, name, events, computed_whole, passes in STEPS:
        before = whole.calls
        _add(tmp_path, name, events())
        outcome, reference = _check_and_whole(tmp_path, whole)
        assert outcome == reference, label
        assert outcome[0] is passes, label
        assert (whole.calls > before) is computed_whole, label
    assert outcome[1]["deals_checked"] == 3 * 2 + 2 * 3 + 12 + 1 + 2 + 4 + 1
    assert outcome[1]["examples"] == "bad2#1"


def test_the_memo_combined_with_is_the_one_of_the_latest_versions_whatever_the_row_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The memo table's files come in no set order, and a store may hold memos of the older form
    (a hash key): the memo of the latest versions is found."""
    whole = _Whole(monkeypatch)
    store = Store(tmp_path)
    legacy = {"name": "card_conservation", "key": "0" * 64, "passed": True, "metadata": "{}"}
    store.append(store.memory_path("check_memos"), pa.Table.from_pylist([legacy], schema=checks.MEMOS),
                 "legacy", step=False)
    real = Store.read_memory

    def reversed_rows(self: Store, name: str, schema: Any, *, latest: bool = False) -> Any:
        rows = real(self, name, schema, latest=latest)
        return rows.take(pa.array(range(rows.num_rows - 1, -1, -1), pa.int64()))

    monkeypatch.setattr(Store, "read_memory", reversed_rows)
    for i, events in enumerate([match_events("m1"), _bad_deal(match_events("m2"), 1), match_events("m3")]):
        _add(tmp_path, f"{i}.jsonl", events)
        outcome, reference = _check_and_whole(tmp_path, whole)
        assert outcome == reference
    assert whole.calls == 1


def test_a_rerun_with_nothing_new_returns_the_memo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    whole = _Whole(monkeypatch)
    _add(tmp_path, "a.jsonl", _bad_deal(match_events("m1", deals=2), 2))
    first = store_checks.card_conservation(Store(tmp_path).pinned())
    again = store_checks.card_conservation(Store(tmp_path).pinned())
    assert whole.calls == 1
    assert (again.passed, again.metadata["examples"]) == (first.passed, "m1#2") == (False, "m1#2")
    assert "cached" in again.metadata


def test_examples_are_the_first_five_bad_deals_by_name_however_the_deals_are_sliced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Results over disjoint deals combine exactly only if each gives the first five by name."""
    events = [e for m in ("x", "y") for e in match_events(m, deals=11)]
    for m in ("x", "y"):
        for deal in range(1, 12):
            _bad_deal([e for e in events if e["match"] == m], deal)
    _add(tmp_path, "a.jsonl", events)
    con = store_checks._con(Store(tmp_path).pinned())
    expected = ", ".join(sorted(f"{m}#{d}" for m in ("x", "y") for d in range(1, 12))[:5])
    for per_slice in (1, 3, 100):
        monkeypatch.setattr(checks, "DEALS_PER_SLICE", per_slice)
        assert checks.card_conservation(con)[1]["examples"] == expected, per_slice
