"""The checks after an append look only at what was appended since their memo, with the same
outcome and metadata as a check of the whole store.

Card conservation: over several additions, a bad deal arriving in a later batch, and a
correction (whose retraction deletes rows, so the check is computed whole again). match_statuses
and unique_match_ids: over a match in pieces, late events, malformed lines, a duplicate match id
and a correction."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pyarrow as pa
import pytest
from pipeline_helpers import fake_replay, hands, match_events, write_jsonl

from pipelines.run import checks, store_checks
from pipelines.steps import replaying
from pipelines.steps.state import load_state
from pipelines.steps.transactions import ingest_step, replay_step
from pipelines.storage.store import Store


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


def _add(root: Path, name: str, events: list[dict[str, Any]], extra_lines: tuple[str, ...] = (),
         replay_fn: Callable[[pa.Table], dict[str, pa.Table]] = fake_replay) -> None:
    store = Store(root)
    write_jsonl(store.inbox / name, events, extra_lines)
    ingest_step(store, workers=1)
    replay_step(store, replay_fn=replay_fn, workers=1)


class _Whole:
    """Counts the checks computed over the whole store (``store_checks._con``)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        real = store_checks._con

        def counted(store: Store, tables: list[str]) -> Any:
            self.calls += 1
            return real(store, tables)

        monkeypatch.setattr(store_checks, "_con", counted)
        self.real = real


Result = tuple[bool, dict[str, Any]]


def _check_and_whole(root: Path, whole: _Whole) -> tuple[Result, Result]:
    """(the run's check, memoized; the same check computed over the whole store, not memoized)."""
    outcome = store_checks.card_conservation(Store(root).pinned())
    tables = store_checks.CARD_CONSERVATION_TABLES
    reference = checks.card_conservation(whole.real(Store(root).pinned(), tables))
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


def test_examples_are_the_first_five_bad_deals_by_name_however_the_hands_are_batched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Results over disjoint deals combine exactly only if each gives the first five by name."""
    events = [e for m in ("x", "y") for e in match_events(m, deals=11)]
    for m in ("x", "y"):
        for deal in range(1, 12):
            _bad_deal([e for e in events if e["match"] == m], deal)
    _add(tmp_path, "a.jsonl", events)
    con = store_checks._con(Store(tmp_path).pinned(), store_checks.CARD_CONSERVATION_TABLES)
    expected = ", ".join(sorted(f"{m}#{d}" for m in ("x", "y") for d in range(1, 12))[:5])
    for per_batch in (1, 3, 100):
        monkeypatch.setattr(checks, "HANDS_PER_BATCH", per_batch)
        assert checks.card_conservation(con)[1]["examples"] == expected, per_batch


def _cloning_replay(events: pa.Table) -> dict[str, pa.Table]:
    """The stand-in replayer, but the ``matches`` row of a match ``clone-<id>`` carries the id
    ``<id>``: a duplicate match id (and a raw match in neither table), which the pipeline itself
    never makes."""
    out = fake_replay(events)
    ids = [m.removeprefix("clone-") for m in out["matches"]["match_id"].to_pylist()]
    out["matches"] = out["matches"].set_column(0, "match_id", pa.array(ids, pa.string()))
    return out


PIECES = match_events("p", deals=3)

# Each step: what arrives (events, malformed lines, the replayer), whether match_statuses and
# unique_match_ids are then computed whole (no memo yet, or matches rows deleted since), and
# whether each passes. m0 and m1 are replayed in one batch with m2, so m2's correction rewrites
# their matches file (string_view columns) that later lookups of m0 read.
STATUS_STEPS = [
    ("first batch: no memo yet", lambda: [e for m in ("m0", "m1", "m2") for e in match_events(m)],
     (), fake_replay, True, (True, True)),
    ("a match in pieces: the first piece", lambda: PIECES[:4], (), fake_replay, False, (True, True)),
    ("malformed lines and another match", lambda: match_events("m3", deals=2), ("not json", "[1]"),
     fake_replay, False, (True, True)),
    ("the second piece", lambda: PIECES[4:8], (), fake_replay, False, (True, True)),
    ("late events of a replayed match (an exact copy and a new one)",
     lambda: [match_events("m1")[1], {**match_events("m1")[2], "seq": 9}], (), fake_replay, False,
     (True, True)),
    ("the last piece: incomplete to complete", lambda: PIECES[8:], (), fake_replay, False, (True, True)),
    ("a correction of m2: matches rows deleted, computed whole", lambda: _revised(match_events("m2"), 2),
     (), fake_replay, True, (True, True)),
    ("an addition after the correction", lambda: match_events("m4") + match_events("q", end=False), (),
     fake_replay, False, (True, True)),
    ("a duplicate of m0's id (and a raw match replayed under another id)", lambda: match_events("clone-m0"),
     (), _cloning_replay, False, (False, False)),
    ("another addition after it", lambda: match_events("m5"), ("{}",), fake_replay, False, (False, False)),
]


def _whole_results(root: Path, whole: _Whole) -> tuple[Result, Result]:
    """match_statuses and unique_match_ids computed over the whole store, not memoized."""
    store = Store(root).pinned()
    return (checks.match_statuses(whole.real(store, store_checks.MATCH_STATUSES_TABLES), load_state(store)),
            checks.unique_match_ids(whole.real(store, store_checks.UNIQUE_MATCH_IDS_TABLES)))


def test_match_statuses_and_unique_ids_after_appends_equal_the_whole_store_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = _Whole(monkeypatch)
    for label, name, events, malformed, replay_fn, computed_whole, passes in [
        (label, f"{i}.jsonl", *rest) for i, (label, *rest) in enumerate(STATUS_STEPS)
    ]:
        _add(tmp_path, name, events(), malformed, replay_fn)
        outcomes = []
        for check in (store_checks.match_statuses, store_checks.unique_match_ids):
            before = whole.calls
            outcome = check(Store(tmp_path).pinned())
            assert (whole.calls > before) is computed_whole, (label, outcome.name)
            outcomes.append((outcome.passed, {k: v for k, v in outcome.metadata.items() if k != "cached"}))
        assert tuple(outcomes) == _whole_results(tmp_path, whole), label
        assert tuple(o[0] for o in outcomes) == passes, label
    (_, statuses), (_, unique) = outcomes
    assert (statuses["neither"], statuses["rows_malformed"], statuses["matches_incomplete"]) == (1, 3, 1)
    assert unique == {"duplicate_rows": 1, "examples": "m0"}


def test_match_statuses_from_a_memo_without_its_incomplete_ids_is_computed_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A memo of the older form does not list the incomplete matches the update needs."""
    whole = _Whole(monkeypatch)
    _add(tmp_path, "a.jsonl", match_events("m1") + match_events("p", end=False))
    passed, meta = checks.match_statuses(
        whole.real(Store(tmp_path).pinned(), store_checks.MATCH_STATUSES_TABLES), load_state(Store(tmp_path)))
    del meta[checks.INCOMPLETE_IDS]
    versions = {t: Store(tmp_path).version(t) for t in ("raw_events", "matches", "incomplete_matches")}
    key = orjson.dumps(versions, option=orjson.OPT_SORT_KEYS).decode()
    old = {"name": "match_statuses", "key": key, "passed": passed, "metadata": orjson.dumps(meta).decode()}
    store = Store(tmp_path)
    store.append(store.memory_path("check_memos"), pa.Table.from_pylist([old], schema=checks.MEMOS), "old",
                 step=False)
    _add(tmp_path, "b.jsonl", match_events("m2"))
    before = whole.calls
    outcome = store_checks.match_statuses(Store(tmp_path).pinned())
    assert whole.calls == before + 1
    assert (outcome.passed, dict(outcome.metadata)) == _whole_results(tmp_path, whole)[0]


def test_duplicate_examples_are_the_first_five_by_name_of_the_memo_and_the_new_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = _Whole(monkeypatch)
    later = ["b", "c", "d", "e", "f", "g"]
    for name, ids in [("a.jsonl", later), ("b.jsonl", ["a"]), ("c.jsonl", ["h"])]:
        _add(tmp_path, name, [e for m in ids for e in match_events(m) + match_events(f"clone-{m}")],
             replay_fn=_cloning_replay)
        before = whole.calls
        outcome = store_checks.unique_match_ids(Store(tmp_path).pinned())
        assert (whole.calls > before) is (name == "a.jsonl")
        assert (outcome.passed, dict(outcome.metadata)) == _whole_results(tmp_path, whole)[1]
    assert outcome.metadata == {"duplicate_rows": 8, "examples": "a, b, c, d, e"}
