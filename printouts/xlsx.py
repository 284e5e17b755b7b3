"""Excel printouts (``.xlsx``, via openpyxl): the event header, bold column names, frozen panes.

Text is stored as Unicode in the workbook, so names and clubs in Chinese open correctly in
Excel and WPS; numbers stay numbers (sortable, summable) and columns are sized to their content
(a CJK character counted twice as wide as a Latin one). Text that would read as a formula (a
name such as ``=HYPERLINK(…)``) is stored as a string cell with Excel's quote prefix, never as a
formula (:mod:`printouts.cells`).
"""

from __future__ import annotations

import io
import re
import unicodedata
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from printouts.cells import reads_as_formula
from printouts.document import Document, Section, cell_text, is_number

_SHEET_NAME_BAD = re.compile(r"[\[\]:*?/\\]")
_MAX_WIDTH = 60


def to_xlsx(document: Document) -> bytes:
    """The document as an xlsx workbook: one worksheet, or one per section with ``page_per_section``."""
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.title = _sheet_name(document.title, set())
    if document.page_per_section:
        used: set[str] = set()
        for i, section in enumerate(document.sections):
            ws = sheet if i == 0 else book.create_sheet()
            ws.title = _sheet_name(section.title, used)
            used.add(ws.title)
            _write(ws, document, [section])
    else:
        _write(sheet, document, document.sections)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _write(ws: Any, document: Document, sections: Sequence[Section]) -> None:
    from openpyxl.styles import Alignment, Font, PatternFill

    header_fill = PatternFill("solid", fgColor="DDE4EE")
    _append(ws, [document.title])
    ws.cell(row=1, column=1).font = Font(bold=True, size=14)
    if document.subtitle:
        _append(ws, [document.subtitle])
    widths: dict[int, int] = {}
    freeze = None
    for section in sections:
        ws.append([])
        if section.title and section.title != document.title:
            _append(ws, [section.title])
            ws.cell(row=ws.max_row, column=1).font = Font(bold=True, size=12)
        for line in section.lines:
            _append(ws, [line])
        _append(ws, list(section.columns))
        header_row = ws.max_row
        freeze = freeze or f"A{header_row + 1}"
        for col, name in enumerate(section.columns, start=1):
            cell = ws.cell(row=header_row, column=col)
            cell.font = Font(bold=True)
            cell.fill = header_fill
            widths[col] = max(widths.get(col, 0), _width(name))
        for row in section.rows:
            _append(ws, [_value(v) for v in row])
            for col, value in enumerate(row, start=1):
                widths[col] = max(widths.get(col, 0), _width(cell_text(value)))
                if is_number(value) or section.columns[col - 1] in document.numeric:
                    ws.cell(row=ws.max_row, column=col).alignment = Alignment(horizontal="right")
    if freeze and len(sections) == 1:
        ws.freeze_panes = freeze
    from openpyxl.utils import get_column_letter

    for col, width in widths.items():
        ws.column_dimensions[get_column_letter(col)].width = min(width + 2, _MAX_WIDTH)


def _append(ws: Any, values: Sequence[Any]) -> None:
    """Add a row below the last; text that openpyxl would store as a formula, or that Excel would
    parse as one when the cell is edited, becomes a quote-prefixed string cell."""
    ws.append(values)
    for col, value in enumerate(values, start=1):
        if reads_as_formula(value):
            cell = ws.cell(row=ws.max_row, column=col)
            cell.data_type = "s"
            cell.quotePrefix = True


def _value(value: Any) -> Any:
    """A cell as stored: numbers and dates as such (timezone dropped: Excel has none), lists joined."""
    if isinstance(value, bool | list | tuple):
        return cell_text(value)
    if isinstance(value, datetime):
        return value.replace(tzinfo=None)
    return value


def _width(text: str) -> int:
    """Display width: East Asian wide and full-width characters count 2."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _sheet_name(title: str, used: set[str]) -> str:
    """A valid, unique worksheet name (≤ 31 characters, none of []:*?/\\)."""
    base = _SHEET_NAME_BAD.sub(" ", title).strip()[:31] or "sheet"
    name, n = base, 2
    while name in used:
        suffix = f" ({n})"
        name, n = base[: 31 - len(suffix)] + suffix, n + 1
    return name
