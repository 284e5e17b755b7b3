"""The asset checks' SQL on hand-made tables, and their memo."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest
from pipeline_helpers import committed, fake_replay, hands, match_events, write_jsonl

from pipelines.run import checks
from pipelines.steps.incomplete import incomplete_table
from pipelines.steps.state import MatchInfo, StoreState, load_state
from pipelines.steps.transactions import ingest_step, replay_step
from pipelines.storage.store import Store
from schemas.tables import DEAL_HANDS, DEALS, MATCHES


def _deal(hand_of: dict[str, list[str] | None], status: str = "valid") -> dict[str, pa.Table]:
    rows = [{"match_id": "m", "deal_no": 1, "seat": s, "hand": h} for s, h in hand_of.items()]
    return {
        "deal_hands": pa.Table.from_pylist(rows, schema=DEAL_HANDS),
        "deals": pa.Table.from_pylist([{"match_id": "m", "deal_no": 1}], schema=DEALS),
        "matches": pa.Table.from_pylist([{"match_id": "m", "status": status}], schema=MATCHES),
    }


def _swap(card: str, by: str) -> dict[str, list[str] | None]:
    out: dict[str, list[str] | None] = dict(hands())
    east = list(out["E"] or [])
    east[east.index(card)] = by
    out["E"] = east
    return out


# rules.md §1: two 54-card decks, 108 cards, every card exactly twice, 27 to each seat.
CARD_CASES = [
    ("two full decks", hands(), "valid", True),
    ("a third copy of one card", _swap("S2", "HR"), "valid", False),
    ("a card that does not exist", _swap("S2", "X9"), "valid", False),
    ("a missing hand in a valid match", {**hands(), "N": None}, "valid", False),
    ("a missing hand in a partial match", {**hands(), "N": None}, "partial", True),
]


@pytest.mark.parametrize(("case", "hand_of", "status", "expected"), CARD_CASES,
                         ids=[c[0] for c in CARD_CASES])
def test_card_conservation(tmp_path: Path, case: str, hand_of: dict[str, list[str] | None], status: str,
                           expected: bool) -> None:
    store = Store(tmp_path)
    for name, table in _deal(hand_of, status).items():
        store.write_table(name, table)
    passed, meta = checks.card_conservation(committed(tmp_path))
    assert passed is expected, (case, meta)


def test_card_conservation_is_the_same_in_batches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """rules.md §1 on many deals: counted a few hands at a time (bounded memory), with a deal's
    hands in different batches and out of order, the check finds exactly the bad deals it finds
    counting all at once, examples included; a deal with a fifth hand row is not a full deal."""
    deals = {f"m{i:02d}": _swap("S2", "HR") if i % 7 == 3 else hands() for i in range(30)}
    rows = [{"match_id": m, "deal_no": 1, "seat": s, "hand": h}
            for m, of in deals.items() for s, h in of.items()]
    rows = rows[1::2] + rows[::2] + [{**rows[0], "seat": "E"}]
    store = Store(tmp_path)
    store.write_table("deal_hands", pa.Table.from_pylist(rows, schema=DEAL_HANDS))
    store.write_table("deals", pa.Table.from_pylist([{"match_id": m, "deal_no": 1} for m in deals],
                                                    schema=DEALS))
    store.write_table("matches", pa.Table.from_pylist([{"match_id": m, "status": "partial"} for m in deals],
                                                      schema=MATCHES))
    whole = checks.card_conservation(committed(tmp_path))
    monkeypatch.setattr(checks, "HANDS_PER_BATCH", 3)
    batched = checks.card_conservation(committed(tmp_path))
    assert whole == batched == (False, {"deals_checked": 29, "deals_not_two_decks": 4,
                                        "valid_deals_without_four_hands": 0,
                                        "examples": "m03#1, m10#1, m17#1, m24#1"})


def test_unique_match_ids_finds_duplicates(tmp_path: Path) -> None:
    store = Store(tmp_path)
    rows = [{"match_id": m, "status": "valid"} for m in ("a", "b", "a")]
    store.write_table("matches", pa.Table.from_pylist(rows, schema=MATCHES))
    assert checks.unique_match_ids(committed(tmp_path)) == (False, {"duplicate_rows": 1, "examples": "a"})


def test_match_statuses_flags_a_match_both_replayed_and_incomplete(tmp_path: Path) -> None:
    store = Store(tmp_path)
    write_jsonl(store.inbox / "a.jsonl", match_events("m1"))
    ingest_step(store)
    replay_step(store, replay_fn=fake_replay, workers=1)
    replayed = load_state(store).matches["m1"]
    store.write_table("incomplete_matches", incomplete_table(store, {"m1": replayed}))
    state = StoreState(matches={"m1": MatchInfo(bucket=0, rows=replayed.rows)})
    passed, meta = checks.match_statuses(committed(tmp_path), state)
    assert not passed
    assert (meta["both"], meta["incomplete_out_of_step"]) == (1, 0)


def test_memo_reuses_a_result_until_a_batch_is_committed(tmp_path: Path) -> None:
    store = Store(tmp_path)
    calls: list[int] = []

    def compute() -> checks.CheckResult:
        calls.append(1)
        return True, {"n": len(calls)}

    write_jsonl(store.inbox / "a.jsonl", match_events("m1"))
    ingest_step(store)
    assert checks.memoized(store, "c", ["raw_events"], compute) == (True, {"n": 1})
    passed, meta = checks.memoized(store, "c", ["raw_events"], compute)
    assert (passed, meta["n"], len(calls)) == (True, 1, 1)
    write_jsonl(store.inbox / "b.jsonl", match_events("m2"))
    ingest_step(store)
    assert checks.memoized(store, "c", ["raw_events"], compute) == (True, {"n": 2})
