"""Score sheets (importers/scoresheet.py): rows of deal results → results-only matches (events.md).

Good sheets: the events and every derived field (levels, declarers, A, match end). Damaged
sheets: every bad cell reported as ``file:row:column``, nothing converted or written.
"""

from __future__ import annotations

import csv
import re
import zipfile
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson
import pytest
from openpyxl import Workbook
from typer.testing import CliRunner

from gdan import app
from importers.scoresheet import ScoreSheetError, convert_scoresheet, read_roster

DOCS = Path(__file__).parents[2] / "docs"
HEADER = ["event", "round", "table", "E", "N", "W", "S", "deal", "order"]
SEATS = ["p1", "p2", "p3", "p4"]


def sheet(tmp_path: Path, rows: list[list[Any]], header: list[str] = HEADER, name: str = "day.csv") -> Path:
    path = tmp_path / name
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def deals(*orders: str, table: str = "1", round_no: int = 1) -> list[list[Any]]:
    return [["ev", round_no, table, *SEATS, i, order] for i, order in enumerate(orders, start=1)]


def by_type(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]


def problems(exc: pytest.ExceptionInfo[ScoreSheetError]) -> list[tuple[int | None, str | None]]:
    return [(p.line, p.field) for p in exc.value.problems]


def test_results_only_deals_with_derived_levels(tmp_path: Path) -> None:
    """events.md "Results-only deals": deal_start without hands, deal_end with the order and the
    levels of rules.md §5.8 (partner 2nd +3, 3rd +2, 4th +1), declarers = previous 1st team."""
    path = sheet(tmp_path, deals("E W", "N E S", "ENWS", "S N"))
    events = convert_scoresheet(path, rules="national", round_format="deals:4")
    assert [e["seq"] for e in events] == list(range(len(events)))
    assert {e["match"] for e in events} == {"ev-r1-t1"}
    start = events[0]
    assert start["type"] == "match_start"
    assert start["rules"] == "national"
    assert start["format"] == {"kind": "deals", "deals": 4}
    assert start["seats"] == dict(zip("ENWS", SEATS, strict=True))
    assert start["event"] == {"id": "ev", "round": 1, "table": "1"}
    starts, ends = by_type(events, "deal_start"), by_type(events, "deal_end")
    assert all("hands" not in s for s in starts)
    assert not by_type(events, "play") and not by_type(events, "pass")
    assert [(s["deal"], s["level"], s["declarers"]) for s in starts] == [
        (1, "2", None),
        (2, "5", "EW"),
        (3, "4", "NS"),
        (4, "7", "EW"),
    ]
    assert [e["order"] for e in ends] == [["E", "W"], ["N", "E", "S", "W"], ["E", "N", "W", "S"], ["S", "N"]]
    assert [e["levels"] for e in ends] == [
        {"EW": "5", "NS": "2"},
        {"EW": "5", "NS": "4"},
        {"EW": "7", "NS": "4"},
        {"EW": "7", "NS": "7"},
    ]
    assert events[-1] == {
        "v": 1,
        "match": "ev-r1-t1",
        "seq": 9,
        "type": "match_end",
        "reason": "deals",
        "winner": None,
        "levels": {"EW": "7", "NS": "7"},
    }


def test_pairs_and_winner_with_partner_place(tmp_path: Path) -> None:
    """Players as two pairs; the result as winner (seat or player id) + partner's place: the
    opponents are listed in play order after the winner."""
    header = ["event", "round", "table", "EW", "NS", "deal", "winner", "partner_place"]
    rows = [["ev", 2, "5", "p1/p3", "p2 / p4", 1, "N", 3], ["ev", 2, "5", "p1/p3", "p2 / p4", 2, "p3", 4]]
    events = convert_scoresheet(sheet(tmp_path, rows, header), rules="national", round_format="deals:2")
    assert events[0]["seats"] == {"E": "p1", "N": "p2", "W": "p3", "S": "p4"}
    ends = by_type(events, "deal_end")
    assert [e["order"] for e in ends] == [["N", "W", "S", "E"], ["W", "S", "N", "E"]]
    assert [e["levels"] for e in ends] == [{"EW": "2", "NS": "4"}, {"EW": "3", "NS": "4"}]
    assert events[-1]["winner"] == "NS"


def test_passing_a_ends_the_match(tmp_path: Path) -> None:
    """rules.md §7: declarers at A pass it with 1st place and the partner not 4th."""
    orders = ["E W"] * 4 + ["E N W S"]  # 2→5→8→J→A, then at A: 1st and partner 3rd passes
    events = convert_scoresheet(sheet(tmp_path, deals(*orders)), rules="national")
    assert events[0]["format"] == {"kind": "until_a"}
    assert by_type(events, "deal_start")[-1]["level"] == "A"
    assert events[-1]["reason"] == "passed_a"
    assert events[-1]["winner"] == "EW"


def test_bcta_third_failure_at_a_loses_the_round(tmp_path: Path) -> None:
    """``bcta``: the third failed attempt at A gives the round to the opponents (rules.md §7)."""
    orders = ["E W"] * 4 + ["E N S W"] * 3  # at A, 1st with the partner 4th: failures 1, 2, 3
    events = convert_scoresheet(sheet(tmp_path, deals(*orders)), rules="bcta", round_format="deals:11")
    assert events[-1]["reason"] == "a_failures"
    assert events[-1]["winner"] == "NS"


def test_time_limit_end_at_the_deadline(tmp_path: Path) -> None:
    """A timed round ends at its limit: match_end carries the limit's time; deal times are kept."""
    rows = [
        [*r, t] for r, t in zip(deals("E W", "N S"), ["2026-06-18 13:05", "2026-06-18 13:50"], strict=True)
    ]
    events = convert_scoresheet(sheet(tmp_path, rows, [*HEADER, "time"]), rules="jiangsu")
    assert events[0]["t"] == "2026-06-18T13:05:00+08:00"
    assert by_type(events, "deal_start")[1]["t"] == "2026-06-18T13:50:00+08:00"
    assert events[-1]["reason"] == "time"
    assert events[-1]["t"] == "2026-06-18T13:55:00+08:00"  # jiangsu: 50 minutes
    assert events[-1]["winner"] is None


def test_docs_template_csv_and_xlsx_agree() -> None:
    """The downloadable templates (docs/) convert, and the workbook (with its players sheet) gives
    the same events as the csv with its roster file: Chinese names and clubs included."""
    from importers.scoresheet import read_roster

    roster = read_roster(DOCS / "scoresheet-players.csv")
    from_csv = convert_scoresheet(DOCS / "scoresheet-template.csv", rules="bcta", roster=roster)
    from_xlsx = convert_scoresheet(DOCS / "scoresheet-template.xlsx", rules="bcta")
    assert from_csv == from_xlsx
    assert from_xlsx[0]["players"]["p017"] == {"name": "张伟", "club": "朝阳掼蛋俱乐部"}
    assert from_xlsx[0]["event"]["name"] == "北京掼蛋春季赛"
    assert len(by_type(from_xlsx, "match_end")) == 2


def test_gb18030_csv_from_a_chinese_excel(tmp_path: Path) -> None:
    """Excel on a Chinese system saves CSV in GB18030: it is read as such."""
    path = tmp_path / "gbk.csv"
    text = "event,event_name,round,table,E,N,W,S,deal,order\nev,春季赛,1,1,p1,p2,p3,p4,1,E W\n"
    path.write_bytes(text.encode("gb18030"))
    events = convert_scoresheet(path, rules="national", round_format="deals:1")
    assert events[0]["event"]["name"] == "春季赛"


def test_damaged_csv_reports_every_bad_cell(tmp_path: Path) -> None:
    rows = [
        ["ev", 1, "1", *SEATS, 1, "E X"],  # row 2: not a seat
        ["ev", "x", "1", *SEATS, 2, "N E S"],  # row 3: bad round
        ["ev", 1, "1", *SEATS, 3, "E N"],  # row 4: two places without a double win
        ["ev", 1, "2", "p1", "p5", "p6", "p7", 1, "N S"],  # row 5: p1 already plays at table 1
        ["", 1, "3", "p8", "p9", "p10", "p11", 1, "S N"],  # row 6: no event
    ]
    path = sheet(tmp_path, rows)
    with pytest.raises(ScoreSheetError) as exc:
        convert_scoresheet(path, rules="national")
    assert problems(exc) == [(2, "order"), (3, "round"), (4, "order"), (5, "E"), (6, "event")]
    lines = str(exc.value).splitlines()
    assert lines[0] == (
        f"{path}:2: order: expected seats (E N W S) or the match's player ids by finishing "
        "position, each once, got 'E X'"
    )
    assert lines[1] == f"{path}:3: round: expected a whole number from 1, got 'x'"


def test_damaged_header(tmp_path: Path) -> None:
    path = sheet(tmp_path, deals("E W"), ["event", "rnd", "table", "E", "N", "W", "deal", "order"])
    with pytest.raises(ScoreSheetError) as exc:
        convert_scoresheet(path)
    assert problems(exc) == [(1, "rnd"), (1, "round"), (1, "S"), (1, "rules")]


def test_match_level_faults(tmp_path: Path) -> None:
    """Deal numbers with a gap, a deal after the match ended, a player changing mid-match."""
    rows = [
        *deals("E W", "N S", "E W", table="1"),  # deals format 2: deal 3 is one too many (row 4)
        ["ev", 1, "2", "r1", "r2", "r3", "r4", 1, "E W"],
        ["ev", 1, "2", "r1", "r2", "r3", "r4", 3, "E W"],  # row 6: deal 2 missing
        ["ev", 1, "3", "q1", "q2", "q3", "q4", 1, "E W"],
        ["ev", 1, "3", "q1", "q2", "q3", "q9", 2, "E W"],  # row 8: S changes
    ]
    with pytest.raises(ScoreSheetError) as exc:
        convert_scoresheet(sheet(tmp_path, rows), rules="national", round_format="deals:2")
    assert problems(exc) == [(4, "deal"), (6, "deal"), (8, "S")]
    assert "no deal after deal 2: the match was over (deals)" in str(exc.value)


@pytest.mark.parametrize("kind", ["csv", "xlsx"])
def test_a_date_alone_is_midnight_of_that_day_in_the_sheet_zone(tmp_path: Path, kind: str) -> None:
    """docs/scoresheet.md ``time``: a date without a time (text, or an Excel date cell) is 00:00
    of that day in the sheet's zone (default China, UTC+8), so the match's local date is the
    sheet's date and its offset is kept (matches.utc_offset_min, schemas/times.py)."""
    from replay import replay_match
    from schemas.times import local_time, time_label

    if kind == "csv":
        path = sheet(tmp_path, [[*r, "2026-06-18"] for r in deals("E W", "N S")], [*HEADER, "time"])
    else:
        book = Workbook()
        ws = book.active
        ws.append([*HEADER, "time"])
        for r in deals("E W", "N S"):
            ws.append([*r, datetime(2026, 6, 18)])
        path = tmp_path / "day.xlsx"
        book.save(path)
    events = convert_scoresheet(path, rules="national", round_format="deals:2")
    assert events[0]["t"] == "2026-06-18T00:00:00+08:00"
    assert {e["t"] for e in by_type(events, "deal_start")} == {"2026-06-18T00:00:00+08:00"}
    (match,) = replay_match(events).rows["matches"]
    assert match["utc_offset_min"] == 480
    shown = time_label(local_time(match["started_at"], match["utc_offset_min"]))
    assert shown == "2026-06-18 00:00 (UTC+08:00)"


def test_damaged_xlsx_reports_rows_and_columns(tmp_path: Path) -> None:
    book = Workbook()
    ws = book.active
    ws.append([*HEADER, "time"])
    ws.append(["ev", 1, 1, *SEATS, 1, "E W", datetime(2026, 6, 18, 13, 5)])
    ws.append(["ev", 1, 1, *SEATS, 2.0, "N E", "tomorrow"])
    ws.append(["ev", 1, 1, *SEATS, 3, None, datetime(2026, 6, 18, 13, 25)])
    path = tmp_path / "day.xlsx"
    book.save(path)
    with pytest.raises(ScoreSheetError) as exc:
        convert_scoresheet(path, rules="national", round_format="deals:3")
    assert problems(exc) == [(3, "order"), (3, "time"), (4, "order")]


def test_cli_writes_nothing_for_a_damaged_sheet(tmp_path: Path) -> None:
    """All or nothing: one bad cell, no output file, exit 1, the cell named on stderr."""
    good = sheet(tmp_path, deals("E W"), name="good.csv")
    bad = sheet(tmp_path, [*deals("E W"), ["ev", 1, "2", "q1", "q2", "q3", "q4", 1, "EQ"]], name="bad.csv")
    out = tmp_path / "out"
    runner = CliRunner()
    result = runner.invoke(
        app, ["import", str(bad), "--rules", "national", "--round-format", "deals:1", "--out", str(out)]
    )
    assert result.exit_code == 1
    assert f"{bad}:3: order: expected" in result.output
    assert not list(out.glob("*"))
    result = runner.invoke(
        app,
        [
            "import",
            "--format",
            "scoresheet",
            str(good),
            "--rules",
            "national",
            "--round-format",
            "deals:1",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    lines = (out / "good.jsonl").read_bytes().splitlines()
    assert [orjson.loads(line)["type"] for line in lines] == [
        "match_start",
        "deal_start",
        "deal_end",
        "match_end",
    ]


def test_a_level_knockout_round_takes_its_play_off_deal(tmp_path: Path) -> None:
    """national Art. 49 二 "打平時，加賽一副，至決出勝負": a knockout stage's sheet needs the deal
    after a level round (and replays valid with it); a Swiss round ending level is a draw."""
    from replay import replay_match

    header = [*HEADER, "stage"]

    def rows(stage: str, *orders: str) -> list[list[Any]]:
        return [[*row, stage] for row in deals(*orders)]

    level = ("E W", "N S")  # EW +3, then NS +3: 5:5
    events = convert_scoresheet(sheet(tmp_path, rows("knockout", *level, "E N W S"), header),
                                rules="national", round_format="deals:2")
    assert (events[-1]["reason"], events[-1]["winner"], events[-1]["levels"]) == (
        "deals", "EW", {"EW": "7", "NS": "5"})
    replay = replay_match(events)
    assert replay.valid, replay.error
    assert [d["extra_deal"] for d in replay.rows["deals"]] == [False, False, True]
    with pytest.raises(ScoreSheetError, match="one extra deal after this one"):
        convert_scoresheet(sheet(tmp_path, rows("knockout", *level), header), rules="national",
                           round_format="deals:2")
    swiss = convert_scoresheet(sheet(tmp_path, rows("swiss", *level), header), rules="national",
                               round_format="deals:2")
    assert swiss[-1]["winner"] is None


def test_results_only_sheet_replays() -> None:
    """The replay derives the same levels and results (events.md "Results-only deals")."""
    from replay import replay_match

    events = convert_scoresheet(DOCS / "scoresheet-template.csv", rules="bcta")
    for match in sorted({e["match"] for e in events}):
        replay = replay_match([e for e in events if e["match"] == match])
        assert replay.valid, replay.error
        assert replay.rows["matches"][0]["status"] == "results_only"


def test_cli_roster_and_rules_options(tmp_path: Path) -> None:
    """--roster fills match_start.players; --utc-offset places naive times; one file per sheet."""
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app,
        [
            "import",
            str(DOCS / "scoresheet-template.csv"),
            "--rules",
            "bcta",
            "--roster",
            str(DOCS / "scoresheet-players.csv"),
            "--utc-offset",
            "9",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    events = [orjson.loads(line) for line in (out / "scoresheet-template.jsonl").read_bytes().splitlines()]
    start = events[0]
    assert start["players"]["p044"] == {"name": "王芳", "club": "海淀棋牌协会"}
    assert start["t"] == "2026-04-18T13:05:00+09:00"
    assert {e["match"] for e in events} == {"bj-2026-spring-swiss-r1-t1", "bj-2026-spring-swiss-r1-t2"}


def _workbook_with_players(tmp_path: Path, names: list[Any]) -> tuple[Workbook, Path]:
    """A workbook with a ``deals`` sheet (one match, two deals) and a ``players`` sheet."""
    book = Workbook()
    ws = book.active
    ws.title = "deals"
    ws.append(HEADER)
    for r in deals("E W", "N S"):
        ws.append(r)
    players = book.create_sheet("players")
    players.append(["id", "name", "club"])
    for player, name in zip(SEATS, names, strict=True):
        players.append([player, name, "Club"])
    return book, tmp_path / "day.xlsx"


def _save_with_results(
    book: Workbook, path: Path, sheet_file: str, results: dict[str, tuple[str, str]]
) -> None:
    """Save ``book`` with the formula results a spreadsheet program would store beside the
    formulas (openpyxl writes none): ``results`` maps a cell to (cell type, saved value)."""
    book.save(path)
    with zipfile.ZipFile(path) as old:
        parts = {name: old.read(name) for name in old.namelist()}
    xml = parts[sheet_file].decode("utf-8")
    for cell, (kind, value) in results.items():
        xml, found = re.subn(
            rf'<c r="{cell}"><f>(.*?)</f><v ?/>', rf'<c r="{cell}" t="{kind}"><f>\1</f><v>{value}</v>', xml
        )
        assert found == 1, cell
    parts[sheet_file] = xml.encode("utf-8")
    with zipfile.ZipFile(path, "w") as new:
        for name, data in parts.items():
            new.writestr(name, data)


def test_formula_without_a_saved_result_is_refused_naming_the_cell(tmp_path: Path) -> None:
    """A formula written by a program and never calculated has no value: refused, not read as blank."""
    book, path = _workbook_with_players(tmp_path, ["张伟", '="Li"&"Na"', "王芳", "刘洋"])
    book["deals"]["D3"] = "=D2"
    book.save(path)
    with pytest.raises(ScoreSheetError) as exc:
        convert_scoresheet(path, rules="national", round_format="deals:2")
    assert problems(exc) == [(3, "E"), (3, "name")]
    deals_fault, name_fault = (str(p) for p in exc.value.problems)
    assert "sheet 'deals', cell D3" in deals_fault and "'=D2'" in deals_fault
    assert "sheet 'players', cell B3" in name_fault and "without a saved result" in name_fault


def test_formula_with_a_saved_result_reads_what_the_sheet_shows(tmp_path: Path) -> None:
    book, path = _workbook_with_players(tmp_path, ["张伟", '="Li"&" Na"', "王芳", "刘洋"])
    _save_with_results(book, path, "xl/worksheets/sheet2.xml", {"B3": ("str", "Li Na")})
    events = convert_scoresheet(path, rules="national", round_format="deals:2")
    assert events[0]["players"]["p2"]["name"] == "Li Na"


def test_formula_giving_an_error_is_refused(tmp_path: Path) -> None:
    book, path = _workbook_with_players(tmp_path, ["张伟", "=#REF!", "王芳", "刘洋"])
    _save_with_results(book, path, "xl/worksheets/sheet2.xml", {"B3": ("e", "#REF!")})
    with pytest.raises(ScoreSheetError) as exc:
        convert_scoresheet(path, rules="national", round_format="deals:2")
    assert problems(exc) == [(3, "name")]
    assert "cell B3: the formula =#REF! gives an error" in str(exc.value) and "'#REF!'" in str(exc.value)


def test_merged_cells_are_refused_naming_the_range(tmp_path: Path) -> None:
    """A merged range holds its value in its first cell only: the rows below would lose it."""
    book, path = _workbook_with_players(tmp_path, ["张伟", "李娜", "王芳", "刘洋"])
    book["deals"].merge_cells("A2:A3")
    book["players"].merge_cells("C2:C5")
    book.save(path)
    with pytest.raises(ScoreSheetError) as exc:
        convert_scoresheet(path, rules="national", round_format="deals:2")
    assert problems(exc) == [(2, "event"), (2, "club")]  # every sheet's faults together
    assert "sheet 'deals': cells A2:A3 are merged" in str(exc.value)
    assert "sheet 'players': cells C2:C5 are merged" in str(exc.value)
    with pytest.raises(ScoreSheetError) as exc:
        read_roster(path)
    assert problems(exc) == [(2, "club")]
