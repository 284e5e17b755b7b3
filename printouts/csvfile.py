"""CSV printouts: one table, UTF-8, optionally with a byte-order mark so that Excel shows Chinese."""

from __future__ import annotations

import csv
import io
from typing import Any

from printouts.cells import csv_safe
from printouts.document import Document, Section, cell_text, is_number

BOM = "\ufeff"


def to_csv(document: Document | Section, bom: bool = False) -> bytes:
    """The table (a document's sections joined, see :meth:`Document.flat`) as CSV bytes.

    ``bom`` prefixes a UTF-8 byte-order mark: Excel then reads the file as UTF-8 instead of the
    system code page, so names in Chinese are shown correctly. Cells are written as printed
    (:func:`cell_text`), a header row first; text that would read as a formula is marked as text
    (:func:`printouts.cells.csv_safe`).
    """
    section = document.flat() if isinstance(document, Document) else document
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([csv_safe(str(c)) for c in section.columns])
    writer.writerows([_cell(v) for v in row] for row in section.rows)
    return ((BOM if bom else "") + out.getvalue()).encode("utf-8")


def _cell(value: Any) -> str:
    """A cell as printed; any text (a list of names joined included) guarded, numbers as they are."""
    text = cell_text(value)
    return text if is_number(value) else str(csv_safe(text))
