"""What a page run by ``AppTest`` shows as text, and the English words left on a Chinese page.

:func:`shown_text` walks the page's element tree and gathers every visible string: headings,
markdown, captions, alerts, metric labels, values and deltas, widget labels and their (formatted)
options, button and link labels, expander labels, every table's column headers and text cells,
and each Plotly chart's titles, axis titles, trace names, category labels and hover templates.
Help tooltips and URLs are not text on the page. :func:`english_words` is the check
that every label is translated in 中文: ASCII words of three letters or more that are not in an
allow-list of proper names, ids, units and file types.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

import pandas as pd
from google.protobuf.message import Message
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import Block, Dataframe, Node

ALLOWED = frozenset(
    {
        "Guandan",
        "Lens",
        "English",
        "CSV",
        "JSON",
        "PDF",
        "XLSX",
        "UTC",
        "BCTA",
        "gdan",
        "run",
    }
)
"""ASCII words a Chinese page may show: the app's name, the language switch's "English", file and data
types, the time zone, the BCTA association, and the ``gdan run`` command."""

_TEXT_FIELDS = ("label", "body", "delta", "placeholder", "options")
"""Proto fields holding visible text (``options`` are a widget's formatted choices)."""
_WORD = re.compile(r"[A-Za-z][A-Za-z']{2,}")
_MARKUP = re.compile(r"<style>.*?</style>|%\{[^}]*\}|<[^>]+>|`[^`]*`|:[a-z]+\[|:material/[a-z_]+:", re.S)
"""Not words: style sheets, Plotly hover-template fields (``%{y:.1f}``), HTML tags, code spans
(commands, paths, ids written literally), Streamlit's colour directives and icons."""


def _proto_text(proto: Message) -> Iterator[str]:
    """The visible strings of one element's proto (recursively into sub-messages)."""
    for field, value in proto.ListFields():
        if field.name in ("help", "id", "form_id", "url", "page", "default", "arrow_data", "spec"):
            continue
        if field.type == field.TYPE_MESSAGE:
            for item in [value] if isinstance(value, Message) else value:
                yield from _proto_text(item)
        elif field.type == field.TYPE_STRING and field.name in _TEXT_FIELDS:
            yield from [value] if isinstance(value, str) else value


def _table_text(table: Dataframe) -> Iterator[str]:
    """Column headers (a column's label, else its name) and text cells of the visible columns."""
    config: dict[str, dict[str, Any]] = json.loads(table.proto.columns or "{}")
    frame: pd.DataFrame = table.value
    order = list(table.proto.column_order) or list(frame.columns)
    for column in order:
        settings = config.get(str(column), {})
        if column not in frame.columns or settings.get("hidden"):
            continue
        yield str(settings.get("label", column))
        link = settings.get("type_config", {})
        if link.get("type") == "link":  # the cell shows its display text, not the address
            yield str(link.get("display_text") or "") if "(" not in str(link.get("display_text")) else ""
            continue
        cells = frame[column]
        if cells.dtype == object or pd.api.types.is_string_dtype(cells):
            yield from (str(v) for v in cells.dropna().unique())


def _chart_text(spec: dict[str, Any]) -> Iterator[str]:
    """A Plotly figure's titles, axis titles, legend names, category labels and hover templates."""
    layout = spec.get("layout", {})
    for key, value in layout.items():
        if isinstance(value, dict) and (key.startswith(("xaxis", "yaxis")) or key in ("title", "legend")):
            title = value.get("title", value if key == "title" else None)
            if isinstance(title, dict) and isinstance(title.get("text"), str):
                yield title["text"]
            yield from (str(v) for v in value.get("ticktext", []))
    for annotation in layout.get("annotations", []):
        yield str(annotation.get("text", ""))
    for trace in spec.get("data", []):
        if isinstance(trace.get("name"), str):
            yield trace["name"]
        for axis in ("x", "y"):
            values = trace.get(axis)
            if isinstance(values, list):
                yield from (v for v in values if isinstance(v, str))
        for key in ("hovertemplate", "text"):
            value = trace.get(key)
            yield from [value] if isinstance(value, str) else [v for v in value or [] if isinstance(v, str)]


def _walk(node: Node) -> Iterator[Node]:
    yield node
    if isinstance(node, Block):
        for child in node.children.values():
            yield from _walk(child)


def shown_text(at: AppTest) -> list[str]:
    """Every visible string of the page's main area and sidebar (see the module docstring)."""
    texts: list[str] = []
    for node in _walk(at._tree):
        if isinstance(node, Dataframe):
            texts.extend(_table_text(node))
        elif node.type == "plotly_chart":
            texts.extend(_chart_text(json.loads(node.proto.spec)))
        elif getattr(node, "proto", None) is not None and isinstance(node.proto, Message):
            texts.extend(_proto_text(node.proto))
    return [t for t in texts if t]


def english_words(texts: Iterable[str], allowed: Iterable[str] = ()) -> set[str]:
    """ASCII words (3+ letters) of ``texts`` outside :data:`ALLOWED` and ``allowed``."""
    ok = ALLOWED | set(allowed)
    words: set[str] = set()
    for text in texts:
        words |= set(_WORD.findall(_MARKUP.sub(" ", text)))
    return words - ok
