"""Cells a user typed stay data: the guard against formula injection in spreadsheets.

A spreadsheet program runs a cell that begins with ``=``, ``+``, ``-`` or ``@`` as a formula
(``=HYPERLINK(…)``, ``=cmd|…``), and a leading tab or carriage return can hide such a start
(OWASP, "CSV Injection"). Player, club and event names reach every export, so each text cell
that begins with one of these is written as text: in a csv file with a ``'`` in front, in an
xlsx workbook as a string cell with Excel's quote prefix. Numbers stay numbers: ``-3`` is
a number, only text such as ``"-3"`` is guarded.
"""

from __future__ import annotations

from typing import Any

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet program read a cell as a formula (OWASP)."""

TEXT_MARK = "'"
"""The prefix that makes a csv cell text in Excel, LibreOffice and Google Sheets."""


def reads_as_formula(value: Any) -> bool:
    """Whether ``value`` is text that a spreadsheet program would take for a formula."""
    return isinstance(value, str) and value.startswith(FORMULA_STARTS)


def csv_safe(value: Any) -> Any:
    """``value`` for a csv cell: text that would read as a formula gets :data:`TEXT_MARK` in
    front; everything else (numbers included, negative ones too) is returned unchanged."""
    return TEXT_MARK + value if reads_as_formula(value) else value
