"""Printouts for a tournament day: standings, round results, dan ledgers and player sheets as
``xlsx``, ``pdf`` (A4, CJK fonts) and ``csv`` files.

Pure writers: each takes a :class:`Document` (an event header and one or more tables of column
names and rows) and returns the file's bytes, so the command line writes them to a file and a
dashboard page can offer them as a download. Nothing here reads the store. Also: the printed
words in English and Chinese (:mod:`printouts.labels`), the guard that keeps typed text from
becoming a spreadsheet formula (:mod:`printouts.cells`) and the table slips with their QR codes
(:mod:`printouts.slips`).
"""

from __future__ import annotations

from printouts.csvfile import to_csv
from printouts.document import Document, Section
from printouts.xlsx import to_xlsx

__all__ = ["Document", "Section", "to_csv", "to_pdf", "to_xlsx"]


def to_pdf(document: Document) -> bytes:
    """The document as an A4 PDF (see :func:`printouts.pdf.to_pdf`); imported lazily (fpdf2)."""
    from printouts.pdf import to_pdf as write

    return write(document)
