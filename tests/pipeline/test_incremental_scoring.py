"""Scoring steps whose cost follows the new data: the roster from parsed declarations
(``pipelines.steps.roster``), ``match_scores`` and ``standings`` by partition
(``pipelines.steps.scoring_parts``).

A store over several runs — new events, new rounds of an event, matches without an event, a
copy of a match (excluded), a correction (a new revision), an incomplete match completed later,
a late round that sorts earlier, results-only deals, a ruling — where after each run ``players``
equals the whole-store SQL over ``raw_events`` and ``match_scores``/``standings`` equal, row for
row and in order, what the pure functions give over the whole store, while the later runs score
only the partitions that changed.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import polars as pl
import pytest
from pipeline_helpers import committed

from pipelines.run.runner import run_pipeline
from pipelines.steps.roster import compute
from pipelines.steps.scoring_steps import _scored, match_scores_step, standings_step
from pipelines.steps.step_reports import RunReport
from pipelines.storage.store import Store
from scoring.deductions import deductions
from scoring.round_scores import score_matches
from scoring.standings import standings

sys.path.insert(0, str(Path(__file__).parents[1] / "replay"))
from replay_builder import Log

PAIRS = {"A": ("a1", "a2"), "B": ("b1", "b2"), "C": ("c1", "c2"), "D": ("d1", "d2"), "E": ("e1", "e2")}


def _match(match_id: str, ew: str, ns: str, *, seed: int, minute: float, event: dict[str, Any] | None = None,
           revision: int = 1, ew_wins: bool = True, names: dict[str, str] | None = None,
           ruling: bool = False) -> list[dict[str, Any]]:
    """One one-deal match of pair ``ew`` against ``ns`` at T0 + ``minute``, declaring its players
    (``names`` overrides a player's declared name)."""
    seats = {"E": PAIRS[ew][0], "W": PAIRS[ew][1], "N": PAIRS[ns][0], "S": PAIRS[ns][1]}
    start: dict[str, Any] = {"format": {"kind": "deals", "deals": 1}, "revision": revision}
    if event is not None:
        start["event"] = event
    log = Log(match=match_id, minute=minute, **start)
    log.events[0]["seats"] = seats
    log.events[0]["players"] = {p: {"name": (names or {}).get(p, p.upper()), "club": f"club-{p[0]}"}
                                for p in seats.values()}
    log.deal(leader="E", seed=seed)
    if ruling:
        log.ruling("deduction", team="NS", points={"level_points": -1})
    order = ["E", "W"] if ew_wins else ["N", "S"]
    log.play_out(order, leader="E")
    log.end_deal()
    log.end("deals", "EW" if ew_wins else "NS")
    return log.events


def _results_only(match_id: str, minute: float) -> list[dict[str, Any]]:
    log = Log(match=match_id, minute=minute, format={"kind": "deals", "deals": 1})
    log.add("deal_start", deal=1, level="2", declarers=None)
    log.add("deal_end", order=["E", "W"])
    log.end("deals", "EW")
    return log.events


def _swiss(round_no: int, table: int) -> dict[str, Any]:
    return {"id": "e-swiss", "name": "Swiss", "stage": "swiss", "round": round_no, "table": str(table)}


def _write(root: Path, name: str, events: list[dict[str, Any]]) -> None:
    inbox = Store(root).inbox
    inbox.mkdir(parents=True, exist_ok=True)
    (inbox / name).write_bytes(b"\n".join(orjson.dumps(e) for e in events) + b"\n")


def _check_against_whole(root: Path) -> None:
    """``players``, ``match_scores`` and ``standings`` equal a whole-store recompute, in order."""
    store = Store(root).pinned()
    con = committed(root)
    try:
        assert store.read_table("players").to_pylist() == compute(con).to_pylist()
    finally:
        con.close()
    rulings = _scored(store, "rulings")
    whole = score_matches(_scored(store, "matches"), _scored(store, "deals"), deductions(rulings))
    scores = pl.from_arrow(store.read_table("match_scores"))
    assert isinstance(scores, pl.DataFrame)
    assert scores.to_dicts() == whole.to_dicts()
    matches = _scored(store, "matches").drop_nulls("winner")
    winners = dict(zip(matches["match_id"].to_list(), matches["winner"].to_list(), strict=True))
    table = pl.from_arrow(store.read_table("standings"))
    assert isinstance(table, pl.DataFrame)
    assert table.to_dicts() == standings(whole, None, winners).to_dicts()


DAYS: list[dict[str, list[dict[str, Any]]]] = [
    {  # round 1 of a Swiss event of five pairs (E has the bye), casual matches, results-only deals
        "r1.jsonl": _match("s1-1", "A", "B", seed=1, minute=0, event=_swiss(1, 1))
        + _match("s1-2", "C", "D", seed=2, minute=1, event=_swiss(1, 2)),
        "casual.jsonl": _match("c1", "A", "C", seed=3, minute=5) + _results_only("ro1", minute=6),
        "other.jsonl": _match("o1", "D", "E", seed=4, minute=7,
                              event={"id": "e-other", "stage": "final", "round": 1}),
    },
    {  # round 2 (D has the bye), a copy of c1, a correction of s1-2, a renamed player, m4 incomplete
        "r2.jsonl": _match("s2-1", "A", "C", seed=5, minute=30, event=_swiss(2, 1))
        + _match("s2-2", "B", "E", seed=6, minute=31, event=_swiss(2, 2), ruling=True),
        "copy.jsonl": _match("c1-copy", "A", "C", seed=3, minute=5),
        "fix.jsonl": _match("s1-2", "C", "D", seed=2, minute=1, event=_swiss(1, 2), revision=2,
                            ew_wins=False),
        "renamed.jsonl": _match("c2", "B", "D", seed=7, minute=70, names={"b1": "Bea Renamed"}),
        "m4-start.jsonl": _match("m4", "A", "E", seed=8, minute=50)[:-2],
    },
    {  # m4 completed, a late round-1 table of the other event, a new event
        "m4-end.jsonl": _match("m4", "A", "E", seed=8, minute=50)[-2:],
        "late.jsonl": _match("o0", "B", "C", seed=9, minute=-30, event={"id": "e-other", "stage": "final",
                                                                         "round": 1}),
        "new-event.jsonl": _match("n1", "A", "B", seed=10, minute=60, event={"id": "e-new", "round": 1}),
    },
]


def run_days(root: Path, check: Callable[[Path], None]) -> list[RunReport]:
    """One run per day of :data:`DAYS` into ``root``, each followed by ``check(root)``; the reports."""
    reports = []
    for day in DAYS:
        for name, events in day.items():
            _write(root, name, events)
        reports.append(run_pipeline(root, workers=1, reviews=False))
        check(root)
    return reports


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[RunReport]]:
    """Three runs, each checked against a whole recompute; the store and the run reports."""
    root = tmp_path_factory.mktemp("incremental_scoring") / "store"
    return root, run_days(root, _check_against_whole)


def test_every_run_equals_a_whole_recompute(runs: tuple[Path, list[RunReport]]) -> None:
    root, reports = runs
    assert all(r.success for r in reports)
    con = committed(root)
    try:
        excluded = con.execute("SELECT match_id FROM duplicate_matches WHERE excluded").fetchall()
        byes = con.execute("SELECT team_id, round FROM match_scores WHERE outcome = 'bye'").fetchall()
        renamed = con.execute("SELECT name FROM players WHERE player_id = 'b1'").fetchall()
        incomplete = con.execute("SELECT count(*) FROM matches WHERE match_id = 'm4'").fetchall()
    finally:
        con.close()
    assert excluded == [("c1-copy",)]
    assert len(byes) == 2
    assert renamed == [("Bea Renamed",)]
    assert incomplete == [(1,)]


def test_later_runs_score_only_the_partitions_that_changed(runs: tuple[Path, list[RunReport]]) -> None:
    _, reports = runs
    scored = [r.step("match_scores").outputs["match_scores"] for r in reports]
    ranked = [r.step("standings").outputs["standings"] for r in reports]
    # Run 1 scores everything; run 2 the Swiss stage (new round, correction) and c2 (c1-copy is
    # excluded, m4 incomplete); run 3 m4, the other event's stage (a late table) and the new event.
    assert [(s["partitions"], s["partitions_scored"]) for s in scored] == [(4, 4), (5, 2), (7, 3)]
    assert [(s["partitions"], s["partitions_ranked"]) for s in ranked] == [(2, 2), (2, 1), (3, 2)]


def test_a_store_without_its_digests_is_scored_whole(
    runs: tuple[Path, list[RunReport]], tmp_path: Path
) -> None:
    """Deleting ``scoring_partitions`` (or a table changed since its digests) costs one whole
    recompute, to the same rows."""
    root, _ = runs
    copy = tmp_path / "store"
    shutil.copytree(root, copy)
    store = Store(copy).pinned()
    before = store.read_table("match_scores")
    shutil.rmtree(store.table_path("scoring_partitions"))
    report = match_scores_step(store)
    assert report.outputs["match_scores"]["partitions_scored"] == report.outputs["match_scores"]["partitions"]
    assert Store(copy).read_table("match_scores").equals(before)
    store.write_table("standings", store.read_table("standings")[1:])  # rows the digests do not describe
    ranked = standings_step(Store(copy).pinned()).outputs["standings"]
    assert ranked["partitions_ranked"] == ranked["partitions"]
    _check_against_whole(copy)


# -- duplicate events ----------------------------------------------------------------------------

def test_duplicate_events_compare_only_the_stages_that_changed(tmp_path: Path) -> None:
    """Two duplicate events (four pairs, two rounds each) arriving round by round: after each run
    ``duplicate_results`` and ``duplicate_standings`` are what the pure functions give over the
    whole store, and only the event stages with new rooms are compared again."""
    from scoring.duplicate import duplicate_results, duplicate_standings
    from simulator import simulate_to_dir

    rounds = []
    for seed in (3, 4):
        simulate_to_dir(tmp_path / f"sim{seed}", kind="tournament", system="duplicate", pairs=4, rounds=2,
                        format="deals:2", seed=seed)
        rounds.append(sorted((tmp_path / f"sim{seed}").glob("*.jsonl")))
    root = tmp_path / "store"
    compared = []
    for files in ([rounds[0][0]], [rounds[0][1], rounds[1][0]], [rounds[1][1]]):
        inbox = Store(root).inbox
        inbox.mkdir(parents=True, exist_ok=True)
        for f in files:
            shutil.copy(f, inbox / f.name)
        report = run_pipeline(root, workers=1, reviews=False)
        out = report.step("duplicate_events").outputs["duplicate_results"]
        compared.append((out["partitions"], out["partitions_compared"]))
        store = Store(root).pinned()
        whole = duplicate_results(_scored(store, "matches"), _scored(store, "deals"))
        assert not whole.is_empty()
        for name, want in (("duplicate_results", whole), ("duplicate_standings", duplicate_standings(whole))):
            got = pl.from_arrow(store.read_table(name))
            assert isinstance(got, pl.DataFrame)
            assert got.to_dicts() == want.to_dicts(), name
    assert compared == [(1, 1), (2, 2), (2, 1)]


# -- the dan ledger ------------------------------------------------------------------------------

def _check_dan_against_whole(root: Path) -> None:
    from scoring.dan import dan_current, dan_ledger

    store = Store(root).pinned()
    ledger, states = dan_ledger(pl.from_arrow(store.read_table("match_scores")))  # type: ignore[arg-type]
    assert not ledger.is_empty()
    for name, want in (("dan_ledger", ledger), ("dan_current", dan_current(states))):
        got = pl.from_arrow(store.read_table(name))
        assert isinstance(got, pl.DataFrame)
        assert got.to_dicts() == want.to_dicts(), name


def test_later_dan_rounds_go_on_from_the_ledger(tmp_path: Path) -> None:
    """A ``bcta`` Swiss tournament of six pairs over four rounds: rounds 1–2, then 3–4 (applied
    from the stored ledger's states), then a round of another event that sorts before them all
    (every round applied again); after each run the ledger and ``dan_current`` are those of
    applying every round at once."""
    from simulator import simulate_to_dir

    for name, seed in (("main", 3), ("early", 4)):
        simulate_to_dir(tmp_path / name, kind="tournament", rules="bcta", pairs=6, rounds=4, format="deals:1",
                        seed=seed)
    rounds = sorted((tmp_path / "main").glob("*.jsonl"))
    early = sorted((tmp_path / "early").glob("*.jsonl"))[0]
    year = orjson.loads(early.read_text().splitlines()[0])["t"][:4]
    early.write_text(early.read_text().replace(f'"t":"{year}', f'"t":"{int(year) - 1}'))  # a year earlier
    root = tmp_path / "store"
    applied = []
    for files in (rounds[:2], rounds[2:], [early]):
        inbox = Store(root).inbox
        inbox.mkdir(parents=True, exist_ok=True)
        for f in files:
            shutil.copy(f, inbox / f.name)
        report = run_pipeline(root, workers=1, reviews=False)
        applied.append(report.step("dan").outputs["dan_ledger"]["rounds_applied"])
        _check_dan_against_whole(root)
    assert applied == [6, 6, 15]


def test_a_changed_override_rescores_its_event_only(
    runs: tuple[Path, list[RunReport]], tmp_path: Path
) -> None:
    """An event's scoring override (here: a bye worth 1 match point) changes that event stage's
    digest: it alone is scored and ranked again, and both tables equal a whole recompute with it."""
    from dataclasses import replace

    from scoring.params import params_for

    root, _ = runs
    copy = tmp_path / "store"
    shutil.copytree(root, copy)
    national = params_for("national")
    bye_worth_one = replace(national.match_points, bye_match_points=1.0)
    overrides = {"e-swiss": replace(national, match_points=bye_worth_one)}
    scored = match_scores_step(Store(copy).pinned(), overrides).outputs["match_scores"]
    ranked = standings_step(Store(copy).pinned(), overrides).outputs["standings"]
    assert (scored["partitions_scored"], ranked["partitions_ranked"]) == (1, 1)
    store = Store(copy).pinned()
    ded = deductions(_scored(store, "rulings"))
    whole = score_matches(_scored(store, "matches"), _scored(store, "deals"), ded, overrides)
    scores = pl.from_arrow(store.read_table("match_scores"))
    assert isinstance(scores, pl.DataFrame)
    assert scores.to_dicts() == whole.to_dicts()
    assert sorted(scores.filter(pl.col("outcome") == "bye")["match_points"].to_list()) == [1.0, 1.0]
    matches = _scored(store, "matches").drop_nulls("winner")
    winners = dict(zip(matches["match_id"].to_list(), matches["winner"].to_list(), strict=True))
    table = pl.from_arrow(store.read_table("standings"))
    assert isinstance(table, pl.DataFrame)
    assert table.to_dicts() == standings(whole, overrides, winners).to_dicts()
