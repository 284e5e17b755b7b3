"""`gdan import`: convert NJUPT platform recordings, Botzone logs and tournament score sheets to
event format v1."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer


class ImportFormat(StrEnum):
    """The ``--format`` choices; ``auto`` sniffs each input (file suffix, then first line)."""

    AUTO = "auto"
    NJUPT = "njupt"
    BOTZONE = "botzone"
    SCORESHEET = "scoresheet"


def import_logs(
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="Log files, or NJUPT game folders holding client-0.jsonl … client-3.jsonl "
            "(one game, full information). A single NJUPT client file gives a partial match. "
            "Score sheets: .csv or .xlsx, one row per deal (docs/scoresheet.md).",
            exists=True,
        ),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for the event-v1 .jsonl files.")],
    fmt: Annotated[
        ImportFormat,
        typer.Option("--format", "-f", help="Source format; 'auto' sniffs each file.", case_sensitive=False),
    ] = ImportFormat.AUTO,
    game: Annotated[
        bool,
        typer.Option("--game", help="Treat the given files as the four clients of ONE NJUPT game."),
    ] = False,
    match_id: Annotated[
        str | None, typer.Option("--match-id", help="Match id to use (only with a single input).")
    ] = None,
    players: Annotated[
        str | None,
        typer.Option("--players", help="Player ids of platform seats 0,1,2,3 (E,N,W,S), comma-separated."),
    ] = None,
    rules: Annotated[
        str | None,
        typer.Option(
            help="Score sheets: ruleset id (national, huaian, bcta, jiangsu, njupt) or a ruleset "
            ".toml/.json file, for sheets without a rules column."
        ),
    ] = None,
    round_format: Annotated[
        str | None,
        typer.Option(
            "--round-format",
            help="Score sheets: until_a | deals:N | timed:MINUTES | timed_deals:MINUTES:N for sheets "
            "without a format column (default: the ruleset's).",
        ),
    ] = None,
    utc_offset: Annotated[
        float, typer.Option("--utc-offset", help="Score sheets: hours from UTC of times without a zone.")
    ] = 8.0,
    roster: Annotated[
        Path | None,
        typer.Option(
            help="Score sheets: players' names and clubs (.csv or .xlsx with columns id, name, club); "
            "a workbook's own 'players' sheet is read without it.",
            exists=True,
            dir_okay=False,
        ),
    ] = None,
    revision: Annotated[
        int,
        typer.Option(
            min=1,
            help="Score sheets: submit every match of the sheet as this correction (match_start.revision; "
            "the highest revision of a match id wins at the next `gdan run`, the earlier ones are kept "
            "as superseded). Output: <sheet name>-r<N>.jsonl.",
        ),
    ] = 1,
) -> None:
    """Convert foreign Guandan logs and score sheets to event format v1, one output file per input.

    Damaged input is reported with file, line (or log entry) and field; a score sheet with every
    bad cell as file:row:column and nothing written for it. Exit code 1 if any input failed.
    """
    from rich.console import Console
    from rich.markup import escape
    from rich.progress import Progress

    from importers import ConversionError
    from importers.jobs import SCORESHEET, file_name_problem, import_job, plan_jobs

    console = Console(stderr=True)
    player_ids = [p.strip() for p in players.split(",")] if players else None
    if player_ids is not None and len(player_ids) != 4:
        raise typer.BadParameter("expected 4 comma-separated player ids", param_hint="--players")
    try:
        jobs = plan_jobs(paths, fmt.value, game=game)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    if match_id is not None and len(jobs) != 1:
        raise typer.BadParameter("--match-id needs exactly one input", param_hint="--match-id")
    problem = None if match_id is None else file_name_problem(match_id)
    if problem is not None:
        raise typer.BadParameter(
            f"{match_id!r} cannot name the output file {match_id}.jsonl in {out}: {problem}",
            param_hint="--match-id",
        )
    sheets = any(job.kind == SCORESHEET for job in jobs)
    if revision > 1 and not sheets:
        raise typer.BadParameter("--revision applies to score sheets", param_hint="--revision")
    if sheets and (match_id is not None or player_ids is not None):
        raise typer.BadParameter(
            "a score sheet names its matches and players itself", param_hint="--match-id"
        )
    try:
        options = _sheet_options(rules, round_format, utc_offset, roster, revision) if sheets else None
    except (ValueError, KeyError, ConversionError) as exc:
        raise typer.BadParameter(str(exc)) from None
    out.mkdir(parents=True, exist_ok=True)
    failures = 0
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("importing", total=len(jobs))
        for job in jobs:
            try:
                written, count = import_job(job, out, match_id=match_id, players=player_ids, sheet=options)
            except ConversionError as exc:
                failures += 1
                for line in str(exc).splitlines():
                    console.print(f"[red]error[/red] {escape(line)}", soft_wrap=True, highlight=False)
            else:
                console.print(f"{job.label}: {count} events → {written}", soft_wrap=True, markup=False)
            progress.advance(task)
    if failures:
        console.print(f"[red]{failures} of {len(jobs)} input(s) failed[/red]")
        raise typer.Exit(1)


def _sheet_options(
    rules: str | None, round_format: str | None, utc_offset: float, roster: Path | None, revision: int
) -> Any:
    """The score-sheet options, checked before any sheet is read."""
    from datetime import timedelta, timezone

    from importers.jobs import SheetOptions
    from importers.scoresheet import read_roster
    from replay.rulesets import parse_round_format
    from simulator.api import resolve_rules

    ruleset = None if rules is None else resolve_rules(rules)
    if round_format is not None:
        parse_round_format(round_format)
    return SheetOptions(
        rules=ruleset,
        round_format=round_format,
        tz=timezone(timedelta(hours=utc_offset)),
        roster=read_roster(roster) if roster is not None else None,
        revision=revision,
    )


def register(app: typer.Typer) -> None:
    """Add ``gdan import`` to the `gdan` app."""
    app.command("import")(import_logs)
