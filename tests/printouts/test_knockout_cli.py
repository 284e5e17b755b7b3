"""A simulated Swiss then top-6 knockout through the pipeline, and `gdan pair` for its rounds.

The simulator pairs its knockout stage with ``scoring.knockout`` (seeded from its Swiss ranking);
the store must replay every match valid, rank the knockout by the round a team went out
(`huaian` Art. 29 二), and `gdan pair` must give the same bracket from the store's standings
and winners (`national` Art. 24, `huaian` Art. 25).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from gdan import app
from pipelines.storage.warehouse import connect

runner = CliRunner()
EVENT = "national-swiss-s5"
SIM = {"kind": "tournament", "pairs": 7, "rounds": 2, "seed": 5, "knockout": 6}
"""national, rounds played to A: every knockout match has a winner (huaian Art. 14 五)."""


@pytest.fixture(scope="module")
def ko_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from pipelines.run.runner import run_pipeline
    from pipelines.storage.store import Store
    from simulator import simulate_to_dir

    root = tmp_path_factory.mktemp("ko_store")
    simulate_to_dir(Store(root).inbox / "ko", **SIM)  # type: ignore[arg-type]
    run_pipeline(root, workers=1)
    return root


def _gdan(store: Path, *args: str) -> Result:
    return runner.invoke(app, [*args, "--store", str(store)], env={"COLUMNS": "200"})


def _csv(result: Result) -> list[dict[str, str]]:
    assert result.exit_code == 0, result.output
    return list(csv.DictReader(io.StringIO(result.stdout)))


def _query(store: Path, sql: str, params: list[object] | None = None) -> list[tuple]:
    con = connect(store)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def _played(store: Path, rnd: int) -> list[tuple[str, str]]:
    """The knockout round's tables as played: (E–W team, N–S team) in table order."""
    return [
        (r[0], r[1])
        for r in _query(
            store,
            "SELECT e.team_id, n.team_id FROM match_scores e JOIN match_scores n USING (match_id) "
            "JOIN matches m USING (match_id) WHERE e.event_id = ? AND e.stage = 'knockout' "
            "AND e.round = ? AND e.side = 'EW' AND n.side = 'NS' ORDER BY try_cast(m.\"table\" AS INTEGER)",
            [EVENT, rnd],
        )
    ]


def test_knockout_matches_replay_valid_with_a_winner(ko_store: Path) -> None:
    rows = _query(
        ko_store,
        "SELECT round, status, winner FROM matches WHERE event_id = ? AND stage = 'knockout' ORDER BY round",
        [EVENT],
    )
    assert [r[0] for r in rows] == [1, 1, 2, 2, 3]
    assert all(status == "valid" and winner in ("EW", "NS") for _, status, winner in rows)


def test_knockout_standings_by_the_round_a_team_went_out(ko_store: Path) -> None:
    """6 qualifiers: champion, runner-up, two semi-final losers 3rd, two round-1 losers 5th;
    seeds 1 and 2 had byes (no bye row is scored for them)."""
    final = _query(
        ko_store,
        "SELECT team_id, rank FROM standings WHERE event_id = ? AND stage = 'knockout' AND after_round = 3",
        [EVENT],
    )
    assert sorted(rank for _, rank in final) == [1, 2, 3, 3, 5, 5]
    ((ew, ns),) = _played(ko_store, 3)
    ((winner,),) = _query(
        ko_store,
        "SELECT winner FROM matches WHERE event_id = ? AND stage = 'knockout' AND round = 3",
        [EVENT],
    )
    champion = ew if winner == "EW" else ns
    assert dict(final)[champion] == 1
    byes = _query(ko_store, "SELECT count(*) FROM match_scores WHERE stage = 'knockout' AND outcome = 'bye'")
    assert byes == [(0,)]


@pytest.mark.parametrize("rnd", [1, 2, 3])
def test_pair_knockout_gives_the_bracket_played(ko_store: Path, rnd: int) -> None:
    """Round 1 from the Swiss standings (top 6, byes to seeds 1 and 2), later rounds from the
    winners in the store: the tables the simulator played."""
    tables = _csv(
        _gdan(
            ko_store, "pair", "--event", EVENT, "--stage", "knockout", "--round", str(rnd), "--format", "csv"
        )
    )
    played = [(r["ew_team"], r["ns_team"]) for r in tables if r["table"] != "bye"]
    assert played == _played(ko_store, rnd)
    byes = [r["ew_team"] for r in tables if r["table"] == "bye"]
    if rnd == 1:
        ranking = [
            r[0]
            for r in _query(
                ko_store,
                "SELECT team_id FROM standings WHERE event_id = ? AND stage = 'swiss' AND after_round = 2 "
                "ORDER BY rank, team_id",
                [EVENT],
            )
        ]
        assert byes == ranking[:2]
        assert [r["ew_rank"] for r in tables] == ["4", "3", "1", "2"]
    else:
        assert byes == []


def _pair_final_8(store: Path, rnd: int, *extra: str) -> Result:
    """``gdan pair`` for a top-4 knockout stage ``final-8`` seeded from the Swiss stage."""
    return _gdan(
        store,
        "pair",
        "--event",
        EVENT,
        "--system",
        "knockout",
        "--stage",
        "final-8",
        "--seeding-stage",
        "swiss",
        "--qualifiers",
        "4",
        "--round",
        str(rnd),
        *extra,
    )


def test_pair_knockout_round_one_before_it_is_played_and_errors(ko_store: Path) -> None:
    """Pairing a knockout not yet in the store: seeded from the named stage, top N."""
    result = _pair_final_8(ko_store, 1)
    assert result.exit_code == 0, result.output
    assert "knockout" in result.stdout
    tables = _csv(_pair_final_8(ko_store, 1, "--format", "csv"))
    assert [(r["ew_rank"], r["ns_rank"]) for r in tables] == [("1", "4"), ("2", "3")]
    early = _pair_final_8(ko_store, 2)
    assert early.exit_code == 1
    assert "has no winner yet" in " ".join(early.output.split())  # rich wraps the message
