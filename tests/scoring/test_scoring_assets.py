"""The scoring steps end to end on a temporary store: tables written, checks passing, views."""

from __future__ import annotations

from pathlib import Path

import pytest
from scoring_builders import deal, deals, match, matches

from pipelines.steps.scoring_steps import SCORING_STEPS, SCORING_TABLES
from pipelines.storage.store import Store
from pipelines.storage.warehouse import connect
from schemas.scoring import SCORING


@pytest.fixture
def store_root(tmp_path: Path) -> Path:
    rows = [
        match("r1a", ("a", "b"), ("c", "d"), ("A", "5"), "EW", rules="bcta", passed_a="EW", minute=0),
        match("r1b", ("e", "f"), ("g", "h"), ("6", "6"), None, rules="bcta", minute=1),
        match("r2a", ("a", "b"), ("e", "f"), ("4", "3"), "EW", rules="bcta", rnd=2, minute=60),
        match("r2b", ("c", "d"), ("g", "h"), ("3", "5"), "NS", rules="bcta", rnd=2, minute=61),
    ]
    store = Store(tmp_path)
    store.write_table("matches", matches(*rows).to_arrow())
    store.write_table("deals", deals(deal("r1a", 1, "EW", 3), deal("r1a", 2, "NS", 2)).to_arrow())
    return tmp_path


def test_the_steps_write_every_scoring_table(store_root: Path) -> None:
    reports = [step.run(Store(store_root).pinned()) for step in SCORING_STEPS]
    assert [t for r in reports for t in r.outputs] == list(SCORING_TABLES)
    checks = [c for r in reports for c in r.checks]
    assert len(checks) == 5 and all(c.passed for c in checks)
    con = connect(store_root, snapshot=Store(store_root).snapshot())
    counts = {name: con.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0] for name in SCORING}
    assert counts["match_scores"] == 8
    assert counts["standings"] == 8
    assert counts["dan_ledger"] == 16
    assert counts["dan_current"] == counts["ratings"] == counts["pro_dan"] == 8
    assert counts["rating_history"] == 16
    assert counts["partners"] == 4
    top = con.execute("SELECT team_id FROM standings WHERE after_round = 2 AND rank = 1").fetchall()
    assert top == [("a+b",)]


def test_scoring_tables_of_the_simulated_sample(sim_store: Path) -> None:
    """The whole pipeline on the shared sample (a Swiss tournament and a small league)."""
    from scoring.dan_checks import ledger_problems

    con = connect(sim_store)
    scored, matches_ = con.execute(
        "SELECT (SELECT count(DISTINCT match_id) FROM match_scores), "
        "(SELECT count(*) FROM matches WHERE status IN ('valid', 'partial') AND end_reason <> 'abandoned')"
    ).fetchone()
    assert scored == matches_ > 0
    entries = dict(
        con.execute("SELECT entry, count(DISTINCT event_id) FROM standings GROUP BY entry").fetchall()
    )
    assert entries == {"pair": 1, "individual": 1}
    ranks = con.execute(
        "SELECT event_id, after_round, min(rank), count(*) FROM standings GROUP BY ALL"
    ).fetchall()
    assert all(r[2] == 1 for r in ranks)
    ledger = con.execute("SELECT * FROM dan_ledger").pl()
    assert ledger.height > 0 and ledger_problems(ledger) == []
    players = con.execute("SELECT count(*), count(DISTINCT player_id) FROM ratings").fetchone()
    assert players[0] == players[1] > 0
