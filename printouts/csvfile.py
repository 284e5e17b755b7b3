"""CSV printouts: one table, UTF-8, optionally with a byte-order mark so that Excel shows Chinese."""

from __future__ import annotations

import csv
import io

from printouts.document import Document, Section, cell_text

BOM = "\ufeff"


def to_csv(document: Document | Section, bom: bool = False) -> bytes:
    """The table (a document's sections joined, see :meth:`Document.flat`) as CSV bytes.

    ``bom`` prefixes a UTF-8 byte-order mark: Excel then reads the file as UTF-8 instead of the
    system code page, so names in Chinese are shown correctly. Cells are written as printed
    (:func:`cell_text`), a header row first.
    """
    section = document.flat() if isinstance(document, Document) else document
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(section.columns)
    writer.writerows([cell_text(v) for v in row] for row in section.rows)
    return ((BOM if bom else "") + out.getvalue()).encode("utf-8")
