"""`gdan pair` and `gdan export` on the simulated store (tests/conftest.py ``sim_store``).

Pairings are checked against the store's own history (no rematch, the bye, the ranking), and the
exported files are opened again (openpyxl, csv) and compared with the tables they print.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from openpyxl import load_workbook
from typer.testing import CliRunner, Result

from gdan import app
from pipelines.storage.warehouse import connect

runner = CliRunner()
SWISS = "national-swiss-s11"
LEAGUE = "bcta-league-s12"


def _gdan(store: Path, *args: str) -> Result:
    return runner.invoke(app, [*args, "--store", str(store)], env={"COLUMNS": "200"})


def _csv(result: Result) -> list[dict[str, str]]:
    assert result.exit_code == 0, result.output
    return list(csv.DictReader(io.StringIO(result.stdout)))


def _query(store: Path, sql: str, params: list[object]) -> list[tuple]:
    con = connect(store)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


def test_pair_next_swiss_round_from_the_standings(sim_store: Path) -> None:
    tables = _csv(_gdan(sim_store, "pair", "--event", SWISS, "--round", "4", "--format", "csv"))
    teams = [t for row in tables for t in (row["ew_team"], row["ns_team"]) if t]
    ranking = [
        r[0]
        for r in _query(
            sim_store,
            "SELECT team_id FROM standings WHERE event_id = ? AND after_round = 3 ORDER BY rank, team_id",
            [SWISS],
        )
    ]
    assert sorted(teams) == sorted(ranking)
    assert tables[0]["ew_team"] == ranking[0]
    assert tables[0]["ew_rank"] == "1"
    met = {
        frozenset(r)
        for r in _query(
            sim_store,
            "SELECT team_id, opp_team_id FROM match_scores WHERE event_id = ? AND outcome <> 'bye'",
            [SWISS],
        )
    }
    assert all(frozenset((row["ew_team"], row["ns_team"])) not in met for row in tables)
    names = {
        r[0]: r[1]
        for r in _query(
            sim_store,
            "SELECT player_id, json_extract_string(payload, "
            "'$.players.' || player_id || '.name') FROM (SELECT payload, "
            "unnest(json_keys(json_extract(payload, '$.players'))) AS player_id "
            "FROM raw_events WHERE type = 'match_start')",
            [],
        )
    }
    first = tables[0]["ew_team"].split("+")
    assert sorted(tables[0]["ew_players"].split(" / ")) == sorted(names[p] for p in first)


def test_pair_table_printout_and_notes(sim_store: Path) -> None:
    result = _gdan(sim_store, "pair", "--event", SWISS, "--round", "2")
    assert result.exit_code == 0, result.output
    assert "round 2 pairing (Swiss," in result.stdout
    teams = [
        r[0] for r in _query(sim_store, "SELECT DISTINCT team_id FROM standings WHERE event_id = ?", [SWISS])
    ]
    assert all(team in result.stdout for team in teams)
    assert "round 2 already has results" in result.output


def test_pair_round_robin_schedule(sim_store: Path) -> None:
    rounds = [
        _csv(
            _gdan(
                sim_store,
                "pair",
                "--event",
                SWISS,
                "--round",
                str(r),
                "--system",
                "round_robin",
                "--format",
                "csv",
            )
        )
        for r in range(1, 8)
    ]
    meetings = [frozenset((t["ew_team"], t["ns_team"])) for tables in rounds for t in tables]
    assert len(meetings) == len(set(meetings)) == 8 * 7 // 2


def test_pair_unknown_event_and_missing_standings(sim_store: Path) -> None:
    result = _gdan(sim_store, "pair", "--event", "national-swiss", "--round", "2")
    assert result.exit_code == 1
    assert f"did you mean: {SWISS}" in result.output
    result = _gdan(sim_store, "pair", "--event", SWISS, "--round", "9")
    assert result.exit_code == 1
    assert "no standings after round 8" in result.output


def test_pair_refuses_an_individual_event(sim_store: Path) -> None:
    """The league's partners rotate (its standings rank players): §S8 pairs fixed pairs, so
    `gdan pair` refuses it, whatever the system, rather than seat one player per "team"."""
    entries = _query(sim_store, "SELECT DISTINCT entry FROM standings WHERE event_id = ?", [LEAGUE])
    assert entries == [("individual",)]
    for args in (("--round", "3"), ("--round", "1"), ("--round", "2", "--system", "round_robin")):
        result = _gdan(sim_store, "pair", "--event", LEAGUE, *args)
        assert result.exit_code == 1, result.output
        said = " ".join(result.output.split())
        assert f"event {LEAGUE} (stage league) is an individual event" in said
        assert "needs fixed pairs" in said and "`gdan import`" in said
        assert "pairing (" not in said  # no table printed


def test_export_standings_xlsx(sim_store: Path, tmp_path: Path) -> None:
    out = tmp_path / "standings.xlsx"
    result = _gdan(sim_store, "export", "standings", "--event", SWISS, "--format", "xlsx", "--out", str(out))
    assert result.exit_code == 0, result.output
    ws = load_workbook(out).active
    assert "standings after round 3 of 3" in ws["A1"].value
    rows = [[c.value for c in row] for row in ws.iter_rows()]
    header = next(i for i, r in enumerate(rows) if r[0] == "rank")
    assert rows[header][:4] == ["rank", "players", "club", "team"]
    body = rows[header + 1 :]
    expected = _query(
        sim_store,
        "SELECT rank, team_id, match_points FROM standings WHERE event_id = ? "
        "AND after_round = 3 ORDER BY rank, team_id",
        [SWISS],
    )
    assert [(r[0], r[3]) for r in body] == [(rank, team) for rank, team, _ in expected]
    mp = rows[header].index("MP")
    assert [r[mp] for r in body] == [m for _, _, m in expected]
    assert all(" / " in r[1] for r in body)


def test_export_round_csv_with_bom(sim_store: Path, tmp_path: Path) -> None:
    out = tmp_path / "round.csv"
    result = _gdan(
        sim_store,
        "export",
        "round",
        "--event",
        SWISS,
        "--round",
        "1",
        "--format",
        "csv",
        "--bom",
        "--out",
        str(out),
    )
    assert result.exit_code == 0, result.output
    data = out.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    rows = list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"))))
    matches = _query(
        sim_store,
        'SELECT "table", winner FROM matches WHERE event_id = ? AND round = 1 '
        'ORDER BY CAST("table" AS INTEGER)',
        [SWISS],
    )
    assert [(r["table"], r["winner"]) for r in rows] == [
        (t, {"EW": "E–W", "NS": "N–S"}.get(w, "draw")) for t, w in matches
    ]


def test_export_dan_ledger_one_sheet_per_player(sim_store: Path, tmp_path: Path) -> None:
    players = [
        r[0] for r in _query(sim_store, "SELECT player_id FROM dan_current ORDER BY player_id LIMIT 3", [])
    ]
    out = tmp_path / "dan.xlsx"
    result = _gdan(sim_store, "export", "dan-ledger", *players, "--format", "xlsx", "--out", str(out))
    assert result.exit_code == 0, result.output
    book = load_workbook(out)
    assert len(book.sheetnames) == 3
    ledger = _query(sim_store, "SELECT count(*) FROM dan_ledger WHERE player_id = ?", [players[0]])[0][0]
    ws = book.worksheets[0]
    rows = [[c.value for c in row] for row in ws.iter_rows()]
    header = next(i for i, r in enumerate(rows) if r[0] == "date")
    assert len(rows) - header - 1 == ledger
    assert any(isinstance(r[0], str) and r[0].startswith("player: ") and players[0] in r[0] for r in rows)


def test_export_player_pdf_and_unknown_player(sim_store: Path, tmp_path: Path) -> None:
    player = _query(sim_store, "SELECT player_id FROM player_matches WHERE event_id = ? LIMIT 1", [SWISS])[0][
        0
    ]
    out = tmp_path / "player.pdf"
    result = _gdan(sim_store, "export", "player", player, "--event", SWISS, "--out", str(out))
    if result.exit_code == 1 and "no font with Chinese glyphs" in result.output:
        return  # the font-missing message is the behaviour without fonts-wqy-zenhei
    assert result.exit_code == 0, result.output
    assert out.read_bytes().startswith(b"%PDF-")
    result = _gdan(sim_store, "export", "player", "nobody-here")
    assert result.exit_code == 1
    assert "unknown player 'nobody-here'" in result.output
