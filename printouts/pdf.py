"""PDF printouts (A4, via fpdf2) with a CJK font, the event header and page numbers on every page.

Chinese names need a font with CJK glyphs. :func:`find_cjk_font` looks for one at run time:
``$GDAN_CJK_FONT``, then the Debian packages' files (``fonts-wqy-zenhei``, ``fonts-noto-cjk``,
``fonts-wqy-microhei``), then ``fc-match :lang=zh``; without one, :class:`FontMissing` says what
to install. Tables are as wide as the page (landscape when a portrait page would be too narrow),
their header row is repeated after a page break, and numbers are right-aligned.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from printouts.document import Document, Section, cell_text, is_number

FONT_FILES = (
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
)
"""Where the Debian CJK font packages put their fonts (tried in this order)."""
_FAMILY = "cjk"
_MARGIN = 12.0
_FONT_SIZE = 9.0
_HEADER_FILL = (221, 228, 238)
_STRIPE_FILL = (246, 247, 250)


class FontMissing(RuntimeError):
    """No font with Chinese glyphs was found: the message says how to get one."""


def find_cjk_font() -> Path:
    """The file of a font with CJK glyphs (see the module docs for the search order)."""
    configured = os.environ.get("GDAN_CJK_FONT")
    if configured:
        if Path(configured).is_file():
            return Path(configured)
        raise FontMissing(f"GDAN_CJK_FONT={configured} is not a file")
    for name in FONT_FILES:
        if Path(name).is_file():
            return Path(name)
    if shutil.which("fc-match"):
        found = subprocess.run(
            ["fc-match", "-f", "%{file}", ":lang=zh"], capture_output=True, text=True, check=False
        ).stdout.strip()
        if found and Path(found).suffix.lower() in (".ttf", ".ttc", ".otf") and Path(found).is_file():
            return Path(found)
    raise FontMissing(
        "no font with Chinese glyphs for the PDF: install one (Debian/Ubuntu: "
        "`apt-get install fonts-wqy-zenhei`) or set GDAN_CJK_FONT to a .ttf/.ttc/.otf file"
    )


def to_pdf(document: Document, font: Path | None = None) -> bytes:
    """The document as A4 PDF bytes: header (title, subtitle) and "page n / N" on every page."""
    from fpdf import FPDF

    font_file = font or find_cjk_font()

    class _Printout(FPDF):
        def header(self) -> None:
            self.set_font(_FAMILY, size=13)
            self.cell(0, 7, document.title, new_x="LMARGIN", new_y="NEXT")
            if document.subtitle:
                self.set_font(_FAMILY, size=9)
                self.set_text_color(90, 90, 90)
                self.cell(0, 5, document.subtitle, new_x="LMARGIN", new_y="NEXT")
                self.set_text_color(0, 0, 0)
            self.set_draw_color(150, 150, 150)
            self.line(self.l_margin, self.get_y() + 1, self.w - self.r_margin, self.get_y() + 1)
            self.ln(4)

        def footer(self) -> None:
            self.set_y(-_MARGIN)
            self.set_font(_FAMILY, size=8)
            self.set_text_color(90, 90, 90)
            self.cell(0, 5, f"{self.page_no()} / {{nb}}", align="C")
            self.set_text_color(0, 0, 0)

    logging.getLogger("fontTools.subset").setLevel(logging.ERROR)  # "BDF NOT subset" notes on CJK fonts
    measure = FPDF(unit="mm", format="A4")
    measure.add_font(_FAMILY, "", str(font_file))
    measure.set_font(_FAMILY, size=_FONT_SIZE)
    widths = [[_column_width(measure, s, i) for i in range(len(s.columns))] for s in document.sections]
    widest = max((sum(w) for w in widths), default=0.0)
    orientation = "landscape" if widest > 210 - 2 * _MARGIN else "portrait"
    pdf = _Printout(orientation=orientation, unit="mm", format="A4")
    pdf.set_margins(_MARGIN, _MARGIN, _MARGIN)
    pdf.set_auto_page_break(auto=True, margin=_MARGIN + 4)
    pdf.set_title(document.title)
    pdf.set_creator("Guandan Lens")
    pdf.add_font(_FAMILY, "", str(font_file))
    pdf.add_font(_FAMILY, "B", str(font_file))
    pdf.add_page()
    for index, section in enumerate(document.sections):
        if index and document.page_per_section:
            pdf.add_page()
        elif index:
            pdf.ln(6)
        _section(pdf, document, section, widths[index])
    return bytes(pdf.output())


def _section(pdf: Any, document: Document, section: Section, natural: list[float]) -> None:
    from fpdf.fonts import FontFace

    if section.title and section.title != document.title:
        pdf.set_font(_FAMILY, size=12)
        pdf.cell(0, 7, section.title, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font(_FAMILY, size=10)
    for line in section.lines:
        pdf.cell(0, 5.5, line, new_x="LMARGIN", new_y="NEXT")
    if section.lines:
        pdf.ln(2)
    if not section.columns:
        return
    pdf.set_font(_FAMILY, size=_FONT_SIZE)
    width = pdf.w - pdf.l_margin - pdf.r_margin
    align = [
        "RIGHT" if name in document.numeric or _numeric(section, i) else "LEFT"
        for i, name in enumerate(section.columns)
    ]
    with pdf.table(
        width=width,
        col_widths=fit_widths(natural, width),
        text_align=align,
        line_height=_FONT_SIZE * 0.55,
        headings_style=FontFace(fill_color=_HEADER_FILL),
        cell_fill_color=_STRIPE_FILL,
        cell_fill_mode="ROWS",
        borders_layout="HORIZONTAL_LINES",
        repeat_headings=1,
    ) as table:
        table.row([str(c) for c in section.columns])
        for row in section.rows:
            table.row([cell_text(v) for v in row])
    if not section.rows:
        pdf.cell(0, 6, "–", new_x="LMARGIN", new_y="NEXT")


def fit_widths(natural: Sequence[float], width: float, narrow: float = 25.0) -> list[float]:
    """Column widths filling ``width``: spare room is shared by all columns; when the page is too
    narrow, the wide (text) columns give up room and wrap, the narrow (number) columns keep theirs."""
    total = sum(natural)
    if total <= width:
        return [w * width / total for w in natural]
    fixed = sum(w for w in natural if w <= narrow)
    wide = total - fixed
    if fixed >= width or wide == 0:
        return [w * width / total for w in natural]
    share = (width - fixed) / wide
    return [w if w <= narrow else w * share for w in natural]


def _column_width(pdf: Any, section: Section, index: int) -> float:
    """Width in mm a column needs on one line (cells up to 70 mm, the header up to 40 mm), with padding."""
    cells = [pdf.get_string_width(cell_text(row[index])) for row in section.rows[:300]]
    header = pdf.get_string_width(str(section.columns[index]))
    return max(min(max(cells, default=0.0), 70.0), min(header, 40.0), 5.0) + 3.0


def _numeric(section: Section, index: int) -> bool:
    values: Sequence[Any] = [row[index] for row in section.rows if row[index] is not None]
    return bool(values) and all(is_number(v) for v in values)
