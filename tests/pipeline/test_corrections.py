"""Corrections, event-sourced (docs/event-extensions.md "Corrections").

A two-round Swiss event (scoring.md §S8) of four pairs is entered from a score sheet of
results-only deals (docs/scoresheet.md) under ``bcta``, one deal per round. A referee then
corrects the result of one round-1 match with ``gdan import --revision 2``; after ``gdan run``
the standings (§S4, §S7) and the dan ledger (§S5) are those of the corrected history, the
superseded events are still in ``raw_events`` and listed in ``superseded``, a rerun changes
nothing, a late lower revision never wins, and a rebuild from the inbox gives the same tables.

Figures by the rule book (scoring.md §S4/§S5, seed 001): a deal won 1st and 2nd goes up three
levels and the loser not at all, so the round's winner scores 200 + 50 (the loser did not go up)
+ 25 (a 升三級 deal) = 275 round score and 400 + 50 = 450 dan points; the loser 0 and 0.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pipeline_helpers import committed
from typer.testing import CliRunner

from gdan import app
from importers.scoresheet import convert_rows, read_sheet
from pipelines.run.runner import run_pipeline
from pipelines.steps.state import StoreState, save_state
from pipelines.storage.store import Store
from pipelines.storage.warehouse import connect
from schemas.tables import QUARANTINE

HEADER = "event,stage,round,table,EW,NS,deal,order,format,time"
PAIRS = {"A": "p1/p2", "B": "p3/p4", "C": "p5/p6", "D": "p7/p8"}
CORRECTED = "bj-swiss-r1-t1"


def _row(round_no: int, table: int, ew: str, ns: str, order: str) -> str:
    time = f"2026-06-18 1{2 + round_no}:00"
    return f"bj,swiss,{round_no},{table},{PAIRS[ew]},{PAIRS[ns]},1,{order},deals:1,{time}"


DAY = [
    _row(1, 1, "A", "B", "E W"),  # A beat B
    _row(1, 2, "C", "D", "E W"),  # C beat D
    _row(2, 1, "A", "C", "E W"),  # the round-1 winners: A beat C
    _row(2, 2, "B", "D", "E W"),  # the round-1 losers: B beat D
]
FIX = [_row(1, 1, "A", "B", "N S")]
"""The referee's correction: round 1, table 1 was won by B (N–S 1st and 2nd), not by A."""
LATE = [_row(1, 1, "A", "B", "E N W")]
"""A lower revision (1, the default) of the corrected match arriving after the correction."""


def _import(tmp: Path, store: Path, name: str, rows: list[str], *extra: str) -> None:
    sheet = tmp / f"{name}.csv"
    sheet.write_text("\n".join([HEADER, *rows]) + "\n", encoding="utf-8")
    result = CliRunner().invoke(
        app, ["import", str(sheet), "--rules", "bcta", "--out", str(Store(store).inbox), *extra]
    )
    assert result.exit_code == 0, result.output


def _query(store: Path, sql: str) -> list[tuple[Any, ...]]:
    con = connect(store)
    try:
        return [tuple(r) for r in con.execute(sql).fetchall()]
    finally:
        con.close()


STANDINGS = """SELECT player_1, player_2, rank, bcta_round_score, wins, losses, decided_by FROM standings
               WHERE event_id = 'bj' AND after_round = 2 ORDER BY rank, player_1"""
LEDGER = """SELECT player_id, round, round_points, total_after FROM dan_ledger
            WHERE player_id IN ('p1', 'p3') ORDER BY player_id, seq"""


def _snapshot(store: Path) -> dict[str, list[tuple[Any, ...]]]:
    """The tables a correction must change or keep, without ingest times (a rebuild re-ingests)."""
    return {
        "standings": _query(store, STANDINGS),
        "ledger": _query(store, LEDGER),
        "matches": _query(store, "SELECT match_id, revision, status, winner FROM matches ORDER BY match_id"),
        "scores": _query(store, "SELECT match_id, team_id, result, bcta_round_score FROM match_scores "
                                "ORDER BY match_id, team_id"),
        "superseded": _query(store, "SELECT match_id, revision, superseded_by, source_files, events "
                                    "FROM superseded ORDER BY ALL"),
        "dan_current": _query(store, "SELECT player_id, points FROM dan_current ORDER BY player_id"),
    }


@pytest.fixture(scope="module")
def corrected(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any], dict[str, Any]]:
    """A store with the day run once, then corrected and run again: (store, before, after)."""
    tmp = tmp_path_factory.mktemp("corrections")
    store = tmp / "store"
    _import(tmp, store, "day1", DAY)
    run_pipeline(store, workers=1)
    before = _snapshot(store)
    _import(tmp, store, "day1-fix", FIX, "--revision", "2")
    run_pipeline(store, workers=1)
    return store, before, _snapshot(store)


def test_the_day_before_the_correction(corrected: tuple[Path, dict[str, Any], dict[str, Any]]) -> None:
    _, before, _ = corrected
    assert before["standings"] == [  # B and C never met: C ranked higher after round 1 (§S7 step 7)
        ("p1", "p2", 1, 550, 2, 0, None),
        ("p5", "p6", 2, 275, 1, 1, "bcta_round_score"),
        ("p3", "p4", 3, 275, 1, 1, "previous_rank"),
        ("p7", "p8", 4, 0, 0, 2, "bcta_round_score"),
    ]
    assert before["ledger"] == [
        ("p1", 1, 450, 450), ("p1", 2, 450, 900), ("p3", 1, 0, 0), ("p3", 2, 450, 450),
    ]
    assert before["superseded"] == []
    assert {m: r for m, r, _, _ in before["matches"]} == dict.fromkeys(
        ["bj-swiss-r1-t1", "bj-swiss-r1-t2", "bj-swiss-r2-t1", "bj-swiss-r2-t2"], 1
    )


def test_a_correction_flips_the_standings_and_the_dan_ledger(
    corrected: tuple[Path, dict[str, Any], dict[str, Any]],
) -> None:
    _, _, after = corrected
    assert after["standings"] == [  # B won both rounds now; A and C one each, A beat C (§S7 step 2)
        ("p3", "p4", 1, 550, 2, 0, None),
        ("p1", "p2", 2, 275, 1, 1, "bcta_round_score"),
        ("p5", "p6", 3, 275, 1, 1, "head_to_head"),
        ("p7", "p8", 4, 0, 0, 2, "bcta_round_score"),
    ]
    assert after["ledger"] == [("p1", 1, 0, 0), ("p1", 2, 450, 450), ("p3", 1, 450, 450), ("p3", 2, 450, 900)]
    assert ("p1", 450) in after["dan_current"] and ("p3", 900) in after["dan_current"]
    assert [m for m in after["matches"] if m[0] == CORRECTED] == [(CORRECTED, 2, "results_only", "NS")]
    assert len(after["matches"]) == 4, "the corrected match is in `matches` once"
    corrected_scores = [s for s in after["scores"] if s[0] == CORRECTED]
    assert sorted((r, score) for _, _, r, score in corrected_scores) == [("loss", 0), ("win", 275)]


def test_the_superseded_revision_is_kept_and_listed(
    corrected: tuple[Path, dict[str, Any], dict[str, Any]],
) -> None:
    store, _, after = corrected
    assert after["superseded"] == [(CORRECTED, 1, 2, ["day1.jsonl"], 4)]
    raw = _query(store, "SELECT revision, source_file, count(*) FROM raw_events "
                        f"WHERE match_id = '{CORRECTED}' GROUP BY ALL ORDER BY revision")
    assert raw == [(1, "day1.jsonl", 4), (2, "day1-fix-r2.jsonl", 4)]
    assert _query(store, "SELECT count(*) FROM quarantine") == [(0,)]
    for table in ("deals", "player_matches"):
        counts = _query(store, f"SELECT count(*) FROM {table} WHERE match_id = '{CORRECTED}'")
        assert counts == [(1 if table == "deals" else 4,)], table
    deal = _query(store, "SELECT winning_team, level_EW_after, level_NS_after FROM deals "
                         f"WHERE match_id = '{CORRECTED}'")
    assert deal == [("NS", "2", "5")], "the deal of revision 2: N–S 1st and 2nd, +3 levels (rules.md §5.8)"


def test_a_rerun_changes_nothing(corrected: tuple[Path, dict[str, Any], dict[str, Any]]) -> None:
    store, _, after = corrected
    result = run_pipeline(store, workers=1)
    assert result.materialized == {"raw_events"}
    assert _snapshot(store) == after


def test_a_late_lower_revision_never_wins_and_a_rebuild_is_identical(
    corrected: tuple[Path, dict[str, Any], dict[str, Any]], tmp_path: Path
) -> None:
    store, _, after = corrected
    late_store = tmp_path / "store"
    shutil.copytree(store, late_store, symlinks=True)
    _import(tmp_path, late_store, "day1-late", LATE)
    run_pipeline(late_store, workers=1)
    late = _snapshot(late_store)
    assert late["standings"] == after["standings"] and late["ledger"] == after["ledger"]
    assert late["matches"] == after["matches"]
    assert late["superseded"] == [(CORRECTED, 1, 2, ["day1-late.jsonl", "day1.jsonl"], 8)]
    assert _query(late_store, "SELECT count(*) FROM quarantine") == [(0,)], "not quarantined"

    for name in ("tables", "state"):
        shutil.rmtree(late_store / name)
    (late_store / "warehouse.duckdb").unlink()
    run_pipeline(late_store, workers=1)
    assert _snapshot(late_store) == late


def test_an_unfinished_correction_holds_the_match_as_incomplete(tmp_path: Path) -> None:
    """The highest revision wins at once: until its ``match_end`` arrives the match is incomplete."""
    store = tmp_path / "store"
    _import(tmp_path, store, "day1", DAY)
    run_pipeline(store, workers=1)
    fix = Store(store).inbox / "day1-fix-r2.jsonl"
    _import(tmp_path, store, "day1-fix", FIX, "--revision", "2")
    *head, match_end = fix.read_bytes().splitlines()
    fix.write_bytes(b"".join(line + b"\n" for line in head))  # the correction without its match_end
    run_pipeline(store, workers=1)
    assert _query(store, f"SELECT count(*) FROM matches WHERE match_id = '{CORRECTED}'") == [(0,)]
    assert _query(store, "SELECT match_id, events FROM incomplete_matches") == [(CORRECTED, 7)]
    assert _query(store, f"SELECT count(*) FROM match_scores WHERE match_id = '{CORRECTED}'") == [(0,)]
    with fix.open("ab") as handle:
        handle.write(match_end + b"\n")
    run_pipeline(store, workers=1)
    assert _query(store, STANDINGS)[0][:3] == ("p3", "p4", 1)


def _quarantine(ids: list[str | None]) -> pa.Table:
    rows = [{"source_file": "f", "line_no": i, "match_id": m, "code": "c", "message": "m", "payload": "p"}
            for i, m in enumerate(ids)]
    return pa.Table.from_pylist(rows, schema=QUARANTINE)


def test_delete_rows_rewrites_only_the_files_holding_them(tmp_path: Path) -> None:
    """``Store.delete_rows``, the retraction of a replaced revision: one new Delta version in which
    untouched files are the same files and rows of other matches, null ids included, stay; the
    step's commit names it, so readers of the next run see it and a recovery keeps it."""
    store = Store(tmp_path)
    batches: list[tuple[str, list[str | None]]] = [("b1", ["a", "x", None]), ("b2", ["b"])]
    for batch, ids in batches:
        pq.write_table(_quarantine(ids), store.stage_file(batch, "quarantine"))
        save_state(store, StoreState(), batch, store.publish_batch(batch))
    before = set(store.data_files("quarantine"))
    assert store.delete_rows("quarantine", "match_id", ["nope"]) == 0
    unchanged = store.unnamed_versions().get("quarantine")
    assert unchanged is None or set(store.data_files("quarantine", unchanged)) == before, "nothing rewritten"

    assert store.delete_rows("quarantine", "match_id", ["x", "it's"]) == 1
    latest = store.unnamed_versions()["quarantine"]
    after = set(store.data_files("quarantine", latest))
    assert len(before & after) == 1 and len(after - before) == 1, "only the file holding x rewritten"
    assert store.read_table("quarantine").num_rows == 4, "not committed yet: still read as committed"
    save_state(store, StoreState(), None, store.unnamed_versions())
    assert sorted(store.read_table("quarantine")["match_id"].to_pylist(), key=str) == [None, "a", "b"]
    store.recover()
    assert store.read_table("quarantine").num_rows == 3, "a committed deletion is not rolled back"
    assert store.foreign_files() == []
    store.publish(store.snapshot())
    assert committed(tmp_path).execute("SELECT count(*) FROM quarantine").fetchone() == (3,)


def test_a_sheet_revision_marks_every_match_start(tmp_path: Path) -> None:
    sheet = tmp_path / "fix.csv"
    sheet.write_text("\n".join([HEADER, *FIX]) + "\n", encoding="utf-8")
    events = convert_rows(read_sheet(sheet), "bcta", revision=3)
    assert [e.get("revision") for e in events if e["type"] == "match_start"] == [3]
    assert all("revision" not in e for e in events if e["type"] != "match_start")
    assert "revision" not in convert_rows(read_sheet(sheet), "bcta")[0]
    with pytest.raises(ValueError, match="revision"):
        convert_rows(read_sheet(sheet), "bcta", revision=0)
    result = CliRunner().invoke(app, ["import", str(sheet), "--rules", "bcta", "--revision", "0",
                                      "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and not (tmp_path / "out").exists()
