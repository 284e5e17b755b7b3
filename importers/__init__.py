"""Importers: foreign Guandan log formats converted to event format v1 (events.md).

- NJUPT Guandan AI platform recordings (``njupt``): a game folder of four clients'
  recordings (full information) or one client's recording (partial);
- Botzone GuanDan match logs (``botzone``);
- tournament score sheets (``scoresheet``, ``.csv``/``.xlsx``: importers.scoresheet), converted
  by ``gdan import`` only, since a sheet may need ``--rules`` and a roster.

``detect_and_convert`` is the entry point of the ingest asset: it yields event-v1 JSON lines
for a foreign file, or returns None when the file already is event v1.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from importers.botzone import convert_botzone
from importers.errors import ConversionError
from importers.jobs import ImportJob, run_job
from importers.njupt import GAME_FILES, convert_njupt_client, convert_njupt_game
from importers.sniff import SourceFormat, sniff

__all__ = [
    "GAME_FILES",
    "ConversionError",
    "SourceFormat",
    "convert_botzone",
    "convert_njupt_client",
    "convert_njupt_game",
    "convert_path",
    "detect_and_convert",
    "sniff",
]


def convert_path(path: Path, fmt: SourceFormat | None = None) -> list[dict[str, Any]]:
    """Events of a foreign file, or of an NJUPT game folder (``client-0.jsonl`` … ``client-3.jsonl``).

    ``fmt`` forces the format; by default it is sniffed. Raises :class:`ConversionError` for
    damaged input and for a file that is neither format.
    """
    path = Path(path)
    if path.is_dir():
        return run_job(ImportJob("njupt-game", tuple(path / name for name in GAME_FILES)))
    found = fmt or sniff(path)
    if found not in (SourceFormat.NJUPT, SourceFormat.BOTZONE):
        raise ConversionError(path, 1, None, "an NJUPT recording or a Botzone log", f"{found.value} content")
    return run_job(ImportJob(found.value, (path,)))


def detect_and_convert(path: Path) -> Iterator[str] | None:
    """Event-v1 JSON lines of a foreign log file; None when it is not a foreign format.

    None covers files that already are event v1 and anything :func:`sniff` does not recognise
    (e.g. ``.jsonl.gz``), which the caller reads as event v1 or reports as unsupported.
    ``client-K.jsonl`` next to all four client files is one NJUPT game: ``client-0.jsonl``
    yields the whole game (full information) and the other three yield nothing. Conversion is
    eager: damaged input raises :class:`ConversionError` here, before any line is yielded.
    """
    path = Path(path)
    found = sniff(path)
    if found not in (SourceFormat.NJUPT, SourceFormat.BOTZONE):
        return None
    game = _game_folder_of(path) if found is SourceFormat.NJUPT else None
    if game is not None:
        events = convert_path(game) if path.name == GAME_FILES[0] else []
    else:
        events = convert_path(path, found)
    return (orjson.dumps(event).decode() for event in events)


def _game_folder_of(path: Path) -> Path | None:
    """The folder when ``path`` is one of the four client files of an NJUPT game folder."""
    if path.name not in GAME_FILES:
        return None
    folder = path.parent
    return folder if all((folder / name).is_file() for name in GAME_FILES) else None
