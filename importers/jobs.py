"""Plan and run the conversions of ``gdan import``: which inputs form which match, and where
each match's events are written. A score sheet (``.csv``/``.xlsx``, importers.scoresheet) holds
many matches and is written as one file named after the sheet."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from importers.botzone import convert_botzone
from importers.errors import ConversionError
from importers.njupt import GAME_FILES, convert_njupt_client, convert_njupt_game
from importers.sniff import SourceFormat, sniff

if TYPE_CHECKING:
    from replay.rulesets import Ruleset

SCORESHEET = "scoresheet"
SHEET_SUFFIXES = (".csv", ".xlsx")
"""Suffixes ``--format auto`` reads as score sheets (``sniff`` leaves them alone: the ingest
asset reads only event logs and the foreign logs it can convert unattended)."""


@dataclass(frozen=True, slots=True)
class SheetOptions:
    """What a score sheet may leave to the command line (importers.scoresheet.convert_rows)."""

    rules: str | Ruleset | None = None
    round_format: str | None = None
    tz: tzinfo | None = None
    """Time zone of naive times (default: China, UTC+8)."""
    roster: Mapping[str, Mapping[str, str]] | None = None
    revision: int = 1
    """Above 1: every match of the sheet is that correction (``match_start.revision``)."""


@dataclass(frozen=True, slots=True)
class ImportJob:
    """One conversion: an NJUPT game (four files), an NJUPT client file, a Botzone log or a score sheet."""

    kind: str
    paths: tuple[Path, ...]

    @property
    def label(self) -> str:
        return str(self.paths[0].parent if self.kind == "njupt-game" else self.paths[0])


def plan_jobs(paths: Sequence[Path], fmt: str = "auto", game: bool = False) -> list[ImportJob]:
    """Jobs for ``gdan import`` inputs. Folders are NJUPT games; ``game`` joins four files into one.

    ``fmt`` is ``auto`` (sniff each file; ``.csv`` and ``.xlsx`` are score sheets), ``njupt``,
    ``botzone`` or ``scoresheet``. Raises ``ValueError`` for a combination that cannot work (a
    folder with ``botzone`` or ``scoresheet``, ``game`` without four files).
    """
    if game:
        if len(paths) != 4 or any(p.is_dir() for p in paths) or fmt in ("botzone", SCORESHEET):
            raise ValueError("--game needs exactly four NJUPT client files")
        return [ImportJob("njupt-game", tuple(paths))]
    jobs = []
    for path in paths:
        if path.is_dir():
            if fmt in ("botzone", SCORESHEET):
                raise ValueError(
                    f"{path} is a folder: folders are NJUPT games (client-0.jsonl … client-3.jsonl)"
                )
            jobs.append(ImportJob("njupt-game", tuple(path / name for name in GAME_FILES)))
            continue
        if fmt == SCORESHEET or (fmt == "auto" and path.suffix.lower() in SHEET_SUFFIXES):
            jobs.append(ImportJob(SCORESHEET, (path,)))
            continue
        kind = fmt if fmt != "auto" else sniff(path).value
        if kind not in (SourceFormat.NJUPT, SourceFormat.BOTZONE):
            raise ValueError(f"{path}: not an NJUPT recording or a Botzone log ({kind}); use --format")
        jobs.append(ImportJob(kind, (path,)))
    return jobs


def run_job(
    job: ImportJob,
    match_id: str | None = None,
    players: Sequence[str] | None = None,
    sheet: SheetOptions | None = None,
) -> list[dict[str, Any]]:
    """The events of one job (raises :class:`ConversionError` for damaged input)."""
    if job.kind == SCORESHEET:
        from importers.scoresheet import convert_scoresheet  # loads the rulesets (replay) on demand

        options = sheet or SheetOptions()
        path = job.paths[0]
        return convert_scoresheet(
            path, options.rules, options.round_format, options.tz, options.roster, options.revision
        )
    if job.kind == "njupt-game":
        missing = [p for p in job.paths if not p.is_file()]
        if missing:
            raise ConversionError(missing[0], None, None, "an NJUPT client recording (file missing)")
        return convert_njupt_game(list(job.paths), match_id, players)
    if job.kind == SourceFormat.NJUPT:
        return convert_njupt_client(job.paths[0], match_id, players)
    return convert_botzone(job.paths[0], match_id, players)


def file_name_problem(match_id: str) -> str | None:
    """Why ``<match_id>.jsonl`` would not be one visible file directly in the output folder, or None.

    A path separator or ``..`` would write elsewhere (outside ``--out``), and a leading dot
    makes a hidden file, which the ingest step skips.
    """
    if not match_id:
        return "it is empty"
    if "/" in match_id or "\\" in match_id or "\0" in match_id:
        return "it contains a path separator ('/' or '\\') or a NUL byte"
    if match_id.startswith("."):
        return "it starts with '.' (a hidden file, or a path outside the output folder)"
    return None


def import_job(
    job: ImportJob,
    out: Path,
    match_id: str | None = None,
    players: Sequence[str] | None = None,
    sheet: SheetOptions | None = None,
) -> tuple[Path, int]:
    """Convert one job into ``out/<match id>.jsonl`` (a score sheet: ``out/<sheet name>.jsonl``, a
    correction of it ``out/<sheet name>-r<revision>.jsonl``); return that path and the event count.

    Raises :class:`ConversionError` when the match id cannot be that file's name (see
    :func:`file_name_problem`): nothing is written outside ``out``.
    """
    events = run_job(job, match_id, players, sheet)
    if job.kind == SCORESHEET:
        revision = sheet.revision if sheet else 1
        name = job.paths[0].stem + (f"-r{revision}" if revision > 1 else "")
    else:
        name = str(events[0]["match"])
        problem = file_name_problem(name)
        if problem is not None:
            raise ConversionError(
                job.paths[0],
                None,
                "match",
                f"a match id usable as a file name in {out} ({problem})",
                events[0]["match"],
            )
    target = out / f"{name}.jsonl"
    with target.open("wb") as handle:
        for event in events:
            handle.write(orjson.dumps(event) + b"\n")
    return target, len(events)
