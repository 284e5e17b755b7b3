"""What a printout holds: an event header and tables, independent of the file format."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from schemas.times import time_label


@dataclass(frozen=True, slots=True)
class Section:
    """One table: a heading, column names and rows (cells: str, int, float, bool, date or None).

    ``lines`` are short "label: value" facts printed above the table (a player's dan, club …).
    """

    title: str
    columns: Sequence[str]
    rows: Sequence[Sequence[Any]]
    lines: Sequence[str] = ()

    def __post_init__(self) -> None:
        for number, row in enumerate(self.rows, start=1):
            if len(row) != len(self.columns):
                cells, columns = len(row), len(self.columns)
                raise ValueError(f"section {self.title!r}: row {number} has {cells} cells, {columns} columns")


@dataclass(frozen=True, slots=True)
class Document:
    """A printout: ``title`` and ``subtitle`` head every page; one or more sections.

    ``page_per_section`` starts every section on a new page (PDF) or worksheet (xlsx): one page
    per player for dan certificates and player sheets.
    """

    title: str
    sections: Sequence[Section]
    subtitle: str = ""
    page_per_section: bool = False
    numeric: Sequence[str] = field(default=())
    """Column names to align right even when a cell holds text (e.g. a rank shown as ``3=``)."""

    def flat(self) -> Section:
        """All sections as one table (for csv); they must share their columns."""
        if not self.sections:
            return Section(self.title, (), ())
        columns = list(self.sections[0].columns)
        for section in self.sections[1:]:
            if list(section.columns) != columns:
                raise ValueError(
                    f"section {section.title!r} has other columns than {self.sections[0].title!r}"
                )
        return Section(self.title, columns, [row for s in self.sections for row in s.rows])


def cell_text(value: Any) -> str:
    """A cell as printed: numbers without a spurious ``.0``, dates as ``YYYY-MM-DD``, times as
    ``YYYY-MM-DD HH:MM`` followed by their UTC offset when they have one (``(UTC+08:00)``, the
    match's local time: schemas/times.py), blanks empty."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.0f}" if value.is_integer() else f"{value:.2f}".rstrip("0").rstrip(".")
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M") if value.tzinfo is None else time_label(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return ", ".join(cell_text(v) for v in value)
    return str(value)


def is_number(value: Any) -> bool:
    """Whether a cell is a number (booleans are not)."""
    return isinstance(value, int | float) and not isinstance(value, bool)
