"""Table slips: one A4 page per table of a round, put on the table before it is played.

A slip shows the event, the round and (large) the table number, the two pairs with their
players' names and seats, numbered blank lines to write each deal's result on (who went out
1st, the partner's place, the levels after the deal), signature lines, and a QR code
(``segno``) of the table's results-entry link, the link itself in small print, and its PIN when
the link needs one.

Pure: a slip is plain data (:class:`TableSlip`); where the link and PIN come from (a plain
entry link, or a per-table token) is the caller's business.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from printouts.labels import Lang, seat_name, stage_text, translator
from printouts.pdf import find_cjk_font

_FAMILY = "cjk"
_MARGIN = 15.0
_QR_SIZE = 48.0
_LINE_FILL = (246, 247, 250)
_HEADER_FILL = (221, 228, 238)


@dataclass(frozen=True, slots=True)
class TableSlip:
    """What one table's slip prints."""

    event: str
    """The event as printed (its name, else its id)."""
    round_no: int
    table: str
    seats: Mapping[str, str]
    """Seat letter (E, N, W, S) → the player as printed (a name, else the id)."""
    link: str
    """The table's results-entry link, encoded in the QR code."""
    pin: str | None = None
    """Printed under the QR code when the link asks for one."""
    stage: str | None = None
    deals: int = 12
    """How many blank deal lines to print."""
    duplicate: Mapping[str, str] | None = None
    """A duplicate round's table: the board it plays and its room (``board``, ``room``)."""

    def __post_init__(self) -> None:
        if sorted(self.seats) != ["E", "N", "S", "W"]:
            raise ValueError(
                f"table {self.table}: expected a player at E, N, W and S, got {sorted(self.seats)}"
            )
        if not self.link:
            raise ValueError(f"table {self.table}: no entry link for the QR code")


def entry_link(base_url: str, event: str, stage: str | None, round_no: int, table: str) -> str:
    """The results-entry page of one table: ``BASE/entry?event=…&stage=…&round=…&table=…``
    (no stage for an event without one)."""
    query = {"event": event, **({"stage": stage} if stage else {}), "round": round_no, "table": table}
    return f"{base_url.rstrip('/')}/entry?{urlencode(query)}"


def qr_png(link: str) -> bytes:
    """``link`` as a QR code (PNG, error correction M, a 4-module quiet zone)."""
    import segno

    out = io.BytesIO()
    segno.make(link, error="m", micro=False).save(out, kind="png", scale=10, border=4)
    return out.getvalue()


def to_slips_pdf(slips: Sequence[TableSlip], lang: Lang = "en", font: Path | None = None) -> bytes:
    """The slips as an A4 PDF, one page per table, every word in ``lang``."""
    from fpdf import FPDF

    logging.getLogger("fontTools.subset").setLevel(logging.ERROR)  # "BDF NOT subset" notes on CJK fonts
    if not slips:
        raise ValueError("no tables to print slips for")
    font_file = font or find_cjk_font()
    pdf = FPDF(orientation="portrait", unit="mm", format="A4")
    pdf.set_margins(_MARGIN, _MARGIN, _MARGIN)
    pdf.set_auto_page_break(auto=False)
    pdf.set_title(translator(lang)("Table slip"))
    pdf.set_creator("Guandan Lens")
    pdf.add_font(_FAMILY, "", str(font_file))
    pdf.add_font(_FAMILY, "B", str(font_file))
    for slip in slips:
        pdf.add_page()
        _slip(pdf, slip, lang)
    return bytes(pdf.output())


def _slip(pdf: Any, slip: TableSlip, lang: Lang) -> None:
    from fpdf.fonts import FontFace

    t = translator(lang)
    text_width = pdf.w - 2 * _MARGIN - _QR_SIZE - 6
    pdf.set_font(_FAMILY, size=11)
    pdf.set_text_color(90, 90, 90)
    pdf.cell(text_width, 6, t("Table slip"), new_x="LMARGIN", new_y="NEXT")
    pdf.set_text_color(0, 0, 0)
    pdf.set_font(_FAMILY, size=14)
    where = (
        t("{event} · {stage} · round {round}", event=slip.event, stage=stage_text(slip.stage, t),
          round=slip.round_no)
        if slip.stage
        else t("{event} · round {round}", event=slip.event, round=slip.round_no)
    )
    pdf.multi_cell(text_width, 7, where, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(2)
    pdf.set_font(_FAMILY, size=34)
    pdf.cell(text_width, 16, t("Table {table}", table=slip.table), new_x="LMARGIN", new_y="NEXT")
    if slip.duplicate:
        pdf.set_font(_FAMILY, size=14)
        room = t(f"{slip.duplicate['room']} room") if slip.duplicate["room"] in ("open", "closed") else ""
        pdf.cell(text_width, 8, t("Board {board} · {room}", board=slip.duplicate["board"], room=room),
                 new_x="LMARGIN", new_y="NEXT")

    qr_x = pdf.w - _MARGIN - _QR_SIZE
    pdf.image(io.BytesIO(qr_png(slip.link)), x=qr_x, y=_MARGIN, w=_QR_SIZE, h=_QR_SIZE)
    pdf.set_xy(qr_x - 4, _MARGIN + _QR_SIZE + 1)
    pdf.set_font(_FAMILY, size=8)
    pdf.multi_cell(_QR_SIZE + 8, 3.6, t("Scan to enter the results of this table"), align="C")
    pdf.set_x(qr_x - 4)
    pdf.set_font(_FAMILY, size=6)
    pdf.multi_cell(_QR_SIZE + 8, 2.8, slip.link, align="C")
    if slip.pin:
        pdf.set_x(qr_x - 4)
        pdf.set_font(_FAMILY, size=12)
        pdf.multi_cell(_QR_SIZE + 8, 6, t("PIN: {pin}", pin=slip.pin), align="C")

    pdf.set_xy(_MARGIN, max(pdf.get_y(), _MARGIN + 40) + 4)
    pdf.set_font(_FAMILY, size=12)
    with pdf.table(
        width=pdf.w - 2 * _MARGIN,
        col_widths=(22, 22, 136),
        line_height=9,
        headings_style=FontFace(fill_color=_HEADER_FILL),
        borders_layout="HORIZONTAL_LINES",
        first_row_as_headings=False,
    ) as table:
        for team, seats in (("E–W", ("E", "W")), ("N–S", ("N", "S"))):
            for i, seat in enumerate(seats):
                table.row([t(team) if i == 0 else "", seat_name(seat, lang), slip.seats[seat]])
    pdf.ln(6)

    pdf.set_font(_FAMILY, size=10)
    header = [t("deal"), t("went out 1st"), t("partner's place"), t("levels after (E–W : N–S)")]
    with pdf.table(
        width=pdf.w - 2 * _MARGIN,
        col_widths=(16, 44, 44, 76),
        line_height=_deal_line_height(pdf, slip.deals),
        text_align=("CENTER", "LEFT", "LEFT", "LEFT"),
        headings_style=FontFace(fill_color=_HEADER_FILL),
        cell_fill_color=_LINE_FILL,
        cell_fill_mode="ROWS",
    ) as table:
        table.row(header)
        for deal in range(1, slip.deals + 1):
            table.row([str(deal), "", "", ""])

    pdf.set_y(pdf.h - _MARGIN - 16)
    pdf.set_font(_FAMILY, size=9)
    pdf.cell(0, 5, t("signatures (E–W, N–S, referee)"), new_x="LMARGIN", new_y="NEXT")
    y = pdf.get_y() + 9
    third = (pdf.w - 2 * _MARGIN) / 3
    for i in range(3):
        pdf.line(_MARGIN + i * third + 2, y, _MARGIN + (i + 1) * third - 6, y)


def _deal_line_height(pdf: Any, deals: int) -> float:
    """Lines tall enough to write in (≤ 11 mm), but all of them fitting above the signatures."""
    room = pdf.h - _MARGIN - 24 - pdf.get_y()
    return max(5.0, min(11.0, room / (deals + 1)))
