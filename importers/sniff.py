"""Pick the importer for a file: by file-name suffix first, else by a look at its first line.

Suffixes (documented in the README "Importers" section):

- ``*.njupt.jsonl`` — one client's NJUPT platform recording;
- ``*.botzone.json`` — a Botzone GuanDan match log;
- ``*.jsonl`` / ``*.json`` otherwise are sniffed: a first JSON object with ``"v"`` and
  ``"match"`` is already event v1; one with ``"type"`` ``notify``/``act`` and a ``"stage"`` is
  an NJUPT recording; a JSON array (or an object with ``"log"``) whose entries hold
  ``"output"`` is a Botzone log.
"""

from __future__ import annotations

import re
from enum import StrEnum
from pathlib import Path

import orjson

from importers.common import BOM

NJUPT_SUFFIX = ".njupt.jsonl"
BOTZONE_SUFFIX = ".botzone.json"
_SNIFF_BYTES = 1 << 16
_LOG_OBJECT = re.compile(rb'\{\s*"log"\s*:')


class SourceFormat(StrEnum):
    """What a log file holds."""

    EVENTS = "events"
    NJUPT = "njupt"
    BOTZONE = "botzone"
    UNKNOWN = "unknown"


def sniff(path: Path) -> SourceFormat:
    """The format of ``path`` by suffix, else by its first line (see the module docs)."""
    name = path.name.lower()
    if name.endswith(NJUPT_SUFFIX):
        return SourceFormat.NJUPT
    if name.endswith(BOTZONE_SUFFIX):
        return SourceFormat.BOTZONE
    with path.open("rb") as handle:
        head = handle.read(_SNIFF_BYTES)
    stripped = head.removeprefix(BOM).lstrip()
    if stripped.startswith(b"[") or _LOG_OBJECT.match(stripped):
        return SourceFormat.BOTZONE if b'"output"' in head else SourceFormat.UNKNOWN
    first_line = stripped.split(b"\n", 1)[0]
    try:
        first = orjson.loads(first_line)
    except orjson.JSONDecodeError:
        return SourceFormat.UNKNOWN
    if not isinstance(first, dict):
        return SourceFormat.UNKNOWN
    if "v" in first and "match" in first:
        return SourceFormat.EVENTS
    if first.get("type") in ("notify", "act") and "stage" in first:
        return SourceFormat.NJUPT
    return SourceFormat.UNKNOWN
