"""The chunk summary tables (incremental cost proportional to the new data).

``seat_patterns``, ``deal_fingerprints``, ``player_match_patterns`` and ``player_match_leads``
are computed per replayed chunk and appended; ``duplicate_matches``, ``player_patterns`` and
``player_leads`` are sums or comparisons of them. Over several runs, with copies, a partial copy,
results-only deals, corrections (retracted revisions, docs/event-extensions.md "Corrections")
and late files, every one of them equals a whole-store recompute from ``plays``, ``deal_hands``
and ``tributes``, and ``duplicate_matches`` equals what the whole-store SQL it replaced gave.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pipeline_helpers import pattern_tables

from pipelines.run.runner import run_pipeline
from pipelines.steps.duplicates import duplicate_matches, ingest_order
from pipelines.steps.fingerprints import deal_fingerprints
from pipelines.steps.state import load_state
from pipelines.storage.store import Store
from pipelines.storage.warehouse import connect
from schemas.tables import DEAL_HANDS, PLAYS

sys.path.insert(0, str(Path(__file__).parents[1] / "replay"))
from replay_builder import Log

OLD_FINGERPRINTS_SQL = """
WITH h AS (
    SELECT match_id, deal_no,
           string_agg(seat || '=' || array_to_string(list_sort(hand), ','), ';' ORDER BY seat) AS hands
    FROM deal_hands WHERE hand IS NOT NULL GROUP BY ALL),
p AS (
    SELECT match_id, deal_no,
           string_agg(seat || ':' || action || ':' || coalesce(array_to_string(cards, ','), ''), ';'
                      ORDER BY seq) AS actions
    FROM plays GROUP BY ALL)
SELECT match_id, deal_no, md5(coalesce(hands, '') || '|' || coalesce(actions, '')) AS fingerprint
FROM p LEFT JOIN h USING (match_id, deal_no)
ORDER BY match_id, deal_no
"""
"""The whole-store SQL ``duplicate_matches`` ran on every run before (main at d5ba196): the reference."""

SUMMARIES = ("seat_patterns", "deal_fingerprints", "player_match_patterns", "player_match_leads")


# -- the fingerprint equals the whole-store SQL's, deal by deal (property) ---------------------

CARDS = ["S2", "H2", "C3", "D3", "SA", "HA", "SB", "HR", "HT", "CT"]
actions = st.lists(
    st.tuples(st.integers(1, 3), st.sampled_from("ENWS"), st.sampled_from(["play", "pass"]),
              st.lists(st.sampled_from(CARDS), max_size=4)),
    max_size=30,
)
hands = st.dictionaries(st.tuples(st.integers(1, 3), st.sampled_from("ENWS")),
                        st.none() | st.lists(st.sampled_from(CARDS), max_size=6), max_size=12)


@settings(max_examples=60, deadline=None)
@given(actions, hands, st.permutations(list(range(30))))
def test_fingerprints_equal_the_whole_store_sql(
    acts: list[tuple[int, str, str, list[str]]], dealt: dict[tuple[int, str], list[str] | None],
    shuffle: list[int],
) -> None:
    """Hands in any order, unknown hands, passes without cards, rows out of seq order: the same md5."""
    play_rows = [{"match_id": "m" if i % 3 else "n", "deal_no": d, "seq": i, "trick_no": 1, "pos_in_trick": 0,
                  "is_lead": False, "seat": s, "action": a, "cards": None if a == "pass" else c}
                 for i, (d, s, a, c) in enumerate(acts)]
    play_rows = [play_rows[i] for i in shuffle if i < len(play_rows)]
    hand_rows = [{"match_id": m, "deal_no": d, "seat": s, "hand": h}
                 for (d, s), h in dealt.items() for m in ("m", "n")]
    plays = pa.Table.from_pylist([{f.name: r.get(f.name) for f in PLAYS} for r in play_rows], schema=PLAYS)
    deal_hands = pa.Table.from_pylist([{f.name: r.get(f.name) for f in DEAL_HANDS} for r in hand_rows],
                                      schema=DEAL_HANDS)
    con = duckdb.connect()
    con.register("plays", plays)
    con.register("deal_hands", deal_hands)
    want = con.execute(OLD_FINGERPRINTS_SQL).to_arrow_table().to_pylist()
    assert deal_fingerprints(plays, deal_hands).to_pylist() == want


# -- a store over several runs ---------------------------------------------------------------

def _two_deals(match_id: str, second_seed: int = 2, revision: int = 1) -> list[dict[str, Any]]:
    """Deal 1 (seed 1): E, N, W go out, so EW go up two levels and S pays E a tribute (rules.md
    §6) before deal 2 (seed ``second_seed``), which S and N win 1st and 2nd."""
    log = Log(match=match_id, format={"kind": "deals", "deals": 2}, revision=revision)
    log.deal(leader="E", seed=1)
    log.play_out(["E", "N", "W"], leader="E")
    log.end_deal()
    log.deal("4", "EW", seed=second_seed)
    log.tribute("S", "E")
    log.give_back("E", "S")
    log.play_out(["S", "N"], leader="S")
    log.end_deal()
    log.end("deals", "NS")
    return log.events


def _one_deal(match_id: str, order: list[str], seed: int, revision: int = 1) -> list[dict[str, Any]]:
    log = Log(match=match_id, format={"kind": "deals", "deals": 1}, revision=revision)
    log.deal(leader="E", seed=seed)
    log.play_out(order, leader="E")
    log.end_deal()
    log.end("deals", "EW" if order[0] in "EW" else "NS")
    return log.events


def _results_only(match_id: str) -> list[dict[str, Any]]:
    """One results-only deal (events.md "Results-only deals"): no hands, no play."""
    log = Log(match=match_id, format={"kind": "deals", "deals": 1})
    log.add("deal_start", deal=1, level="2", declarers=None)
    log.add("deal_end", order=["E", "W"])
    log.end("deals", "EW")
    return log.events


def _write(root: Path, name: str, events: list[dict[str, Any]]) -> None:
    inbox = Store(root).inbox
    inbox.mkdir(parents=True, exist_ok=True)
    (inbox / name).write_bytes(b"\n".join(orjson.dumps(e) for e in events) + b"\n")


def _sorted_rows(table: pa.Table) -> list[tuple[Any, ...]]:
    return sorted((tuple(r.values()) for r in table.to_pylist()), key=repr)


def _check_against_a_whole_store_recompute(root: Path) -> list[tuple[Any, ...]]:
    """Every summary table equals a recompute from the store's plays, deal_hands and tributes;
    ``duplicate_matches`` equals the old whole-store SQL's; returns its rows."""
    store = Store(root)
    con = connect(root)
    try:
        whole = pattern_tables(con)
        fingerprints = con.execute(OLD_FINGERPRINTS_SQL).to_arrow_table()
        tables = {n: con.execute(f"SELECT * FROM {n}").to_arrow_table()
                  for n in (*SUMMARIES, "player_patterns", "player_leads", "duplicate_matches")}
    finally:
        con.close()
    for name in ("seat_patterns", "player_patterns", "player_leads"):
        assert _sorted_rows(tables[name]) == _sorted_rows(whole[name]), name
    assert tables["player_patterns"].to_pylist() == whole["player_patterns"].to_pylist(), "row order"
    assert _sorted_rows(tables["deal_fingerprints"]) == _sorted_rows(fingerprints)
    reference = duplicate_matches(fingerprints, ingest_order(load_state(store)))
    assert tables["duplicate_matches"].to_pylist() == reference.to_pylist()
    return [(r["match_id"], r["duplicate_of"], r["deals"], r["match_deals"], r["excluded"])
            for r in tables["duplicate_matches"].to_pylist()]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[list[tuple[Any, ...]]]:
    """Three runs; after each, the ``duplicate_matches`` rows (checked against the recompute)."""
    root = tmp_path_factory.mktemp("chunk_summaries") / "store"
    m4 = _one_deal("m4", ["W", "S", "E"], seed=7)
    _write(root, "day1.jsonl", _two_deals("m1") + _one_deal("m2", ["N", "E", "S"], seed=5)
           + _results_only("ro"))
    run_pipeline(root, workers=1)
    found = [_check_against_a_whole_store_recompute(root)]
    _write(root, "copy.jsonl", _two_deals("m1-copy"))  # every deal a copy: excluded
    _write(root, "part.jsonl", _two_deals("m1-part", second_seed=3))  # deal 1 a copy: listed
    _write(root, "ro-copy.jsonl", _results_only("ro-copy"))  # results-only deals are not compared
    _write(root, "fix-m2.jsonl", _one_deal("m2", ["E", "W"], seed=5, revision=2))  # a correction
    _write(root, "m4-start.jsonl", m4[:-2])  # m4 incomplete until its end arrives
    run_pipeline(root, workers=1)
    found.append(_check_against_a_whole_store_recompute(root))
    _write(root, "m4-end.jsonl", m4[-2:])  # the late rest of m4
    late = _two_deals("m1")
    _write(root, "m1-late.jsonl", [late[3], {**late[3], "seq": 99}])  # a repeat (dropped), one quarantined
    _write(root, "fix-copy.jsonl", _two_deals("m1-copy", second_seed=4, revision=2))  # no longer a copy
    run_pipeline(root, workers=1)
    found.append(_check_against_a_whole_store_recompute(root))
    con = connect(root)
    try:
        found.append(con.execute("SELECT match_id, status, revision FROM matches ORDER BY 1").fetchall())
    finally:
        con.close()
    return found


def test_the_first_run_equals_a_whole_store_recompute(runs: list[list[tuple[Any, ...]]]) -> None:
    assert runs[0] == []


def test_a_copy_is_excluded_and_a_partial_copy_listed(runs: list[list[tuple[Any, ...]]]) -> None:
    assert runs[1] == [("m1-copy", "m1", 2, 2, True), ("m1-part", "m1", 1, 2, False)]


def test_a_corrected_copy_leaves_them(runs: list[list[tuple[Any, ...]]]) -> None:
    """The retracted revision's fingerprints are gone: m1-copy revision 2 repeats only deal 1."""
    assert runs[2] == [("m1-copy", "m1", 1, 2, False), ("m1-part", "m1", 1, 2, False)]
    statuses = dict((m, (s, r)) for m, s, r in runs[3])
    assert statuses["m1-copy"][1] == 2 and statuses["m2"][1] == 2
    assert statuses["m4"][0] == "valid" and statuses["ro"][0] == "results_only"


# -- a store replayed before the summary tables existed (item 3) -----------------------------

def _store_of_the_layout_before(root: Path, monkeypatch: pytest.MonkeyPatch) -> Store:
    """m1 and m2 replayed as before the chunk summaries: none appended, and ``seat_patterns``
    rewritten whole by the patterns step."""
    from pipelines.run import plan
    from pipelines.steps import replay_task

    _write(root, "day1.jsonl", _two_deals("m1") + _one_deal("m2", ["N", "E", "S"], seed=5))
    with monkeypatch.context() as before:
        before.setattr(replay_task, "summarise", lambda tables: {})
        before.setattr(plan, "backfill", lambda store: {})
        run_pipeline(root, workers=1)
    store = Store(root)
    con = connect(root)
    try:
        store.write_table("seat_patterns", pattern_tables(con)["seat_patterns"])
    finally:
        con.close()
    return store


def test_the_first_run_after_the_upgrade_fills_them_once(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """One whole-store pass (here in slices of a few matches), then incremental: the old
    ``seat_patterns`` is replaced, not appended to, and nothing lacks afterwards."""
    from pipelines.steps import backfill

    root = tmp_path / "store"
    store = _store_of_the_layout_before(root, monkeypatch)
    assert backfill.lacking(store) == list(SUMMARIES)
    monkeypatch.setattr(backfill, "SLICE_PLAYS", 60)  # several slices
    _write(root, "copy.jsonl", _two_deals("m1-copy"))
    report = run_pipeline(root, workers=1)
    backfilled = {n: m.get("rows_backfilled") for n, m in report.step("replay").outputs.items()}
    assert all(backfilled[n] for n in SUMMARIES), backfilled
    assert _check_against_a_whole_store_recompute(root) == [("m1-copy", "m1", 2, 2, True)]
    assert backfill.lacking(Store(root)) == []
    assert backfill.backfill(Store(root)) == {}
    _write(root, "m3.jsonl", _one_deal("m3", ["W", "E"], seed=9))
    report = run_pipeline(root, workers=1)
    assert not any("rows_backfilled" in m for m in report.step("replay").outputs.values())
    _check_against_a_whole_store_recompute(root)


def test_a_backfill_killed_before_its_commit_is_redone(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Readers keep the published run meanwhile; the next run commits the same tables."""
    from pipelines.steps import backfill

    root = tmp_path / "store"
    store = _store_of_the_layout_before(root, monkeypatch)
    con = connect(root)
    published = _sorted_rows(con.execute("SELECT * FROM seat_patterns").to_arrow_table())
    con.close()

    def killed(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    with monkeypatch.context() as crash:
        crash.setattr(Store, "commit", killed)
        with pytest.raises(KeyboardInterrupt):
            backfill.backfill(store)
    assert backfill.lacking(Store(root)) == list(SUMMARIES)
    con = connect(root)
    assert _sorted_rows(con.execute("SELECT * FROM seat_patterns").to_arrow_table()) == published
    con.close()
    run_pipeline(root, workers=1)
    assert backfill.lacking(Store(root)) == []
    assert _check_against_a_whole_store_recompute(root) == []
