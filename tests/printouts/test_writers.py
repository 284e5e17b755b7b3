"""printouts: the xlsx, pdf and csv writers on documents with Chinese names and clubs."""

from __future__ import annotations

import csv
import io
import shutil
import subprocess
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from openpyxl import load_workbook

from printouts import Document, Section, to_csv, to_pdf, to_xlsx
from printouts.pdf import FontMissing, find_cjk_font, fit_widths

COLUMNS = ["rank", "players", "club", "MP", "LP", "date"]
ROWS = [
    [1, "张伟 / 李娜", "朝阳掼蛋俱乐部", 6.0, 45, date(2026, 4, 18)],
    [2, "王芳 / 刘洋", "海淀棋牌协会", 4.5, 41.5, date(2026, 4, 18)],
    [3, "Zheng Wen / 陈静", None, 0, 13, None],
]
STANDINGS = Document(
    "北京掼蛋春季赛 — standings after round 3",
    [Section("Standings", COLUMNS, ROWS)],
    subtitle="bj-2026-spring · rules bcta",
)
LEDGERS = Document(
    "Amateur dan ledger",
    [
        Section(
            name, ["date", "points"], [[datetime(2026, 4, 18, 13, 5, tzinfo=UTC), 400]], [f"player: {name}"]
        )
        for name in ("张伟", "李娜", "王芳")
    ],
    page_per_section=True,
)


def test_xlsx_cells_hold_chinese_text_and_numbers() -> None:
    book = load_workbook(io.BytesIO(to_xlsx(STANDINGS)))
    ws = book.active
    assert ws["A1"].value == "北京掼蛋春季赛 — standings after round 3"
    assert ws["A2"].value == "bj-2026-spring · rules bcta"
    header = next(r for r in range(1, 10) if ws.cell(r, 1).value == "rank")
    assert [ws.cell(header, c).value for c in range(1, 7)] == COLUMNS
    assert ws.cell(header, 1).font.b
    first = [ws.cell(header + 1, c).value for c in range(1, 7)]
    assert first[:5] == [1, "张伟 / 李娜", "朝阳掼蛋俱乐部", 6, 45]
    assert first[5].date() == date(2026, 4, 18)
    assert ws.cell(header + 2, 5).value == 41.5
    assert ws.cell(header + 3, 3).value is None
    assert ws.freeze_panes == f"A{header + 1}"
    assert ws.column_dimensions["C"].width >= 16  # 7 CJK characters count double


def test_xlsx_one_sheet_per_section() -> None:
    book = load_workbook(io.BytesIO(to_xlsx(LEDGERS)))
    assert book.sheetnames == ["张伟", "李娜", "王芳"]
    ws = book["李娜"]
    values = [c.value for row in ws.iter_rows() for c in row if c.value is not None]
    assert "player: 李娜" in values
    assert datetime(2026, 4, 18, 13, 5) in values  # Excel has no time zones: stored naive
    assert 400 in values


@pytest.mark.parametrize("bom", [False, True])
def test_csv_round_trips_chinese_names(bom: bool) -> None:
    data = to_csv(STANDINGS, bom=bom)
    assert data.startswith(b"\xef\xbb\xbf") is bom
    rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig"), newline="")))
    assert rows[0] == COLUMNS
    assert rows[1] == ["1", "张伟 / 李娜", "朝阳掼蛋俱乐部", "6", "45", "2026-04-18"]
    assert rows[2][4] == "41.5"
    assert rows[3] == ["3", "Zheng Wen / 陈静", "", "0", "13", ""]


def test_csv_joins_sections_with_the_same_columns() -> None:
    rows = list(csv.reader(io.StringIO(to_csv(LEDGERS).decode("utf-8"))))
    assert len(rows) == 4
    mixed = Document("x", [Section("a", ["a"], [[1]]), Section("b", ["b"], [[2]])])
    with pytest.raises(ValueError, match="other columns"):
        to_csv(mixed)


def test_section_rejects_ragged_rows() -> None:
    with pytest.raises(ValueError, match="row 1 has 1 cells, 2 columns"):
        Section("t", ["a", "b"], [[1]])


def test_fit_widths_fills_the_page_and_keeps_numbers_readable() -> None:
    assert fit_widths([10, 30], 80) == [20, 60]
    squeezed = fit_widths([10, 12, 100, 100], 122)
    assert squeezed[:2] == [10, 12]  # narrow (number) columns keep their width
    assert sum(squeezed) == pytest.approx(122)


def _font_or_skip() -> Path:
    try:
        return find_cjk_font()
    except FontMissing as exc:
        pytest.skip(f"no CJK font installed: {exc}")


def _render(pdf: bytes, tmp_path: Path) -> list[Path]:
    if shutil.which("pdftoppm") is None:
        pytest.skip("pdftoppm (poppler-utils) is not installed: cannot render the PDF")
    source = tmp_path / "printout.pdf"
    source.write_bytes(pdf)
    subprocess.run(["pdftoppm", "-png", "-r", "40", str(source), str(tmp_path / "page")], check=True)
    return sorted(tmp_path.glob("page-*.png"))


def test_pdf_first_page_is_not_blank(tmp_path: Path) -> None:
    from PIL import Image, ImageStat

    _font_or_skip()
    data = to_pdf(STANDINGS)
    assert data.startswith(b"%PDF-")
    pages = _render(data, tmp_path)
    assert len(pages) == 1
    with Image.open(pages[0]) as image:
        width, height = image.size
        assert width < height  # six columns fit an A4 portrait page
        grey = image.convert("L")
        assert ImageStat.Stat(grey).extrema[0][0] < 100  # some dark ink
        header = grey.crop((0, 0, width, height // 8))
        assert ImageStat.Stat(header).stddev[0] > 5  # the event header is printed


def test_pdf_one_page_per_section(tmp_path: Path) -> None:
    _font_or_skip()
    assert len(_render(to_pdf(LEDGERS), tmp_path)) == 3


def test_pdf_names_the_missing_font(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GDAN_CJK_FONT", str(tmp_path / "missing.ttf"))
    with pytest.raises(FontMissing, match="GDAN_CJK_FONT"):
        to_pdf(STANDINGS)
