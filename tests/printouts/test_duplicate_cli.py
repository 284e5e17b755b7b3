"""A duplicate event in `gdan standings`, `gdan pair` and `gdan export` (scoring.md §S9): the
standings are the MP table, the next round is snake-seated by it, the printout prints it."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from gdan import app

runner = CliRunner()
EVENT = "national-duplicate-s1"


@pytest.fixture(scope="module")
def dup_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four pairs, two rounds of one-deal boards, each board in an open and a closed room."""
    from pipelines.run.runner import run_pipeline
    from pipelines.storage.store import Store
    from simulator import simulate_to_dir

    root = tmp_path_factory.mktemp("dup_store")
    simulate_to_dir(Store(root).inbox, kind="tournament", system="duplicate", pairs=4, rounds=2,
                    format="deals:1", seed=1)
    run_pipeline(root, workers=1, reviews=False)
    return root


def _gdan(store: Path, *args: str) -> Result:
    result = runner.invoke(app, [*args, "--store", str(store)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result


def test_standings_are_the_mp_table(dup_store: Path) -> None:
    """§S9: MP, MP available, score rate, boards placed 1st/2nd; two rooms of a board are one match."""
    rows = json.loads(_gdan(dup_store, "standings", "--event", EVENT, "--format", "json").stdout)
    assert [r["rank"] for r in rows] == sorted(r["rank"] for r in rows)
    assert {r["matches"] for r in rows} == {2}  # two rounds: two board-sets, four rooms
    for r in rows:
        assert r["mp_max"] == 2 * r["deals_compared"]  # each result against the other room's: 2 MP
        assert r["mp_rate"] == pytest.approx(r["mp"] / r["mp_max"])
        assert sum(r["place_counts"]) == r["deals_compared"]
    rates = [r["mp_rate"] for r in rows]
    assert rates == sorted(rates, reverse=True)
    after_1 = json.loads(_gdan(dup_store, "standings", "-e", EVENT, "-r", "1", "--format", "json").stdout)
    assert {r["matches"] for r in after_1} == {1}


def test_next_round_is_snake_seated_by_mp_rate(dup_store: Path) -> None:
    """§S9: table 1 = ranks 1 v 2, table 2 = ranks 4 v 3 (ties in the order the table lists them)."""
    rows = json.loads(_gdan(dup_store, "standings", "--event", EVENT, "--format", "json").stdout)
    ranking = [r["team_id"] for r in rows]
    sheet = json.loads(_gdan(dup_store, "pair", "--event", EVENT, "--round", "3", "--format", "json").stdout)
    tables = [(t["ew_team"], t["ns_team"]) for t in sheet["tables"]]
    assert tables == [(ranking[0], ranking[1]), (ranking[3], ranking[2])]
    assert [t["ew_points"] for t in sheet["tables"]] == [rows[0]["mp_rate"], rows[3]["mp_rate"]]
    assert any(n.startswith("snake seating, by the MP score rate after round 2") for n in sheet["notes"])


def test_a_swiss_pairing_ranks_by_mp_rate(dup_store: Path) -> None:
    """§S9: a duplicate event's ranking is its MP table, also when a referee pairs it Swiss
    (seed 004 moves players by the Swiss method by the current ranking)."""
    rows = json.loads(_gdan(dup_store, "standings", "--event", EVENT, "--format", "json").stdout)
    rate = {r["team_id"]: r["mp_rate"] for r in rows}
    args = ("pair", "--event", EVENT, "--round", "3", "--system", "swiss", "--format", "json")
    sheet = json.loads(_gdan(dup_store, *args).stdout)
    assert [t["ew_points"] for t in sheet["tables"]] == [rate[t["ew_team"]] for t in sheet["tables"]]
    assert "ranked by the standings after round 2 (mp_rate)" in sheet["notes"]


def test_standings_printout_is_the_mp_table(dup_store: Path, tmp_path: Path) -> None:
    """The standings printout of a duplicate event is its MP table, in Chinese here."""
    out = tmp_path / "standings.csv"
    _gdan(dup_store, "export", "standings", "-e", EVENT, "--format", "csv", "--out", str(out), "--lang", "zh")
    lines = out.read_text(encoding="utf-8-sig").splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("名次"))
    table = list(csv.DictReader(io.StringIO("\n".join(lines[header:]))))
    assert list(table[0])[4:9] == ["场次", "比较副数", "比赛分 MP", "MP 满分", "MP 得分率"]
    assert {r["场次"] for r in table} == {"2"}


def test_a_knockout_after_a_duplicate_stage_is_seeded_by_its_mp_table(tmp_path: Path) -> None:
    """A knockout seeded from a duplicate stage (huaian Art. 25: by the earlier stage's standings)
    takes the MP table's top 2 (§S9: those are the duplicate stage's standings), 1 v 2."""
    from pipelines.run.runner import run_pipeline
    from pipelines.storage.store import Store
    from simulator import simulate_to_dir

    simulate_to_dir(Store(tmp_path).inbox, kind="tournament", system="duplicate", pairs=4, rounds=2,
                    knockout=2, format="deals:1", seed=2)
    run_pipeline(tmp_path, workers=1, reviews=False)
    args = ("--event", "national-duplicate-s2", "--format", "json")
    rows = json.loads(_gdan(tmp_path, "standings", *args, "--stage", "duplicate").stdout)
    sheet = json.loads(_gdan(tmp_path, "pair", *args, "--stage", "knockout", "--round", "1").stdout)
    (table,) = sheet["tables"]
    assert (table["ew_team"], table["ns_team"]) == (rows[0]["team_id"], rows[1]["team_id"])
    assert (table["ew_points"], table["ns_points"]) == (rows[0]["mp_rate"], rows[1]["mp_rate"])


def test_no_match_point_standings_for_a_duplicate_event(dup_store: Path) -> None:
    """§S9: a duplicate event's standings are the MP table alone; match points would count each
    room of a board as a match, so the pipeline ranks none, and the event is still listed."""
    from pipelines.storage.warehouse import connect

    con = connect(dup_store)
    try:
        (rows,) = con.execute("SELECT count(*) FROM standings WHERE event_id = ?", [EVENT]).fetchone() or (0,)
    finally:
        con.close()
    assert rows == 0
    listed = json.loads(_gdan(dup_store, "standings", "--format", "json").stdout)
    assert [(e["event_id"], e["rounds"], e["entries"]) for e in listed] == [(EVENT, 2, 4)]


def test_slips_of_the_next_round_are_one_per_room(dup_store: Path) -> None:
    """§S9: round 3's 2 snake tables are played in two rooms each, so `gdan export slips` seats
    4 tables (1–4, as the entry page lists them), the closed room's pairs' directions swapped."""
    from gdan.export import _round_seats
    from pipelines.reads.tournament_data import connect

    con = connect(dup_store)
    try:
        _, _, tables = _round_seats(con, EVENT, None, 3)
    finally:
        con.close()
    seats = {table: seated for table, seated, _ in tables}
    assert list(seats) == ["1", "2", "3", "4"]
    assert [room["room"] for _, _, room in tables if room] == ["open", "closed"] * 2
    for open_room, closed_room in (("1", "2"), ("3", "4")):
        opened, closed = seats[open_room], seats[closed_room]
        assert closed == {"E": opened["N"], "N": opened["E"], "W": opened["S"], "S": opened["W"]}


def test_round_printout_names_board_and_room_not_points(dup_store: Path, tmp_path: Path) -> None:
    """A duplicate round's results printout: each room table with its board and room; no match or
    level points (a room's mean nothing, §S9)."""
    out = tmp_path / "round.csv"
    _gdan(dup_store, "export", "round", "-e", EVENT, "-r", "1", "--format", "csv", "--out", str(out))
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8-sig"))))
    rooms = [(r["table"], r["room"]) for r in rows]
    assert rooms == [("1", "open room"), ("2", "closed room"), ("3", "open room"), ("4", "closed room")]
    assert rows[0]["board"] == rows[1]["board"] != rows[2]["board"]
    assert not any("points" in c or "LP" in c for c in rows[0])
