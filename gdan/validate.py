"""`gdan validate`: replay hand logs and report valid / partial / invalid matches."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer


def register(app: typer.Typer) -> None:
    """Add this module's commands to the `gdan` app."""
    app.command("validate")(validate)


def validate(
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="Event logs (.jsonl or .jsonl.gz, format v1); lines are grouped by match across all files.",
            exists=True,
            dir_okay=False,
            readable=True,
        ),
    ],
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help='One JSON object per match on stdout: {"match", "status", "error"}; '
            "malformed lines go to stderr as JSON objects with file and line.",
        ),
    ] = False,
    ruleset_files: Annotated[
        list[Path] | None,
        typer.Option(
            "--ruleset",
            help="A custom ruleset file (.toml/.json, rules.md §10) whose `id` matches can use; repeatable.",
            exists=True,
            dir_okay=False,
        ),
    ] = None,
) -> None:
    """Replay every match of the logs through the rules and report its status.

    Status per match: valid; partial (a seat's hand is missing, checked as far as known hands allow);
    results_only (no deal shows hands or play: levels and results checked from each deal's order);
    invalid (with its first offending event: seq, error code, message; codes in replay/errors.py).

    Malformed lines (not JSON, or no `match`) are reported with file and line number.

    Exit status 1 when any match is invalid or any line is malformed, else 0.
    """
    import sys

    import orjson
    from rich.console import Console
    from rich.markup import escape
    from rich.progress import Progress

    from replay.replayer import replay_match
    from replay.rulesets import BUILTIN
    from simulator.api import resolve_rules

    rulesets = dict(BUILTIN)
    for path in ruleset_files or []:
        custom = resolve_rules(str(path))
        rulesets[custom.id] = custom
    out = Console(highlight=False)
    err = Console(stderr=True, highlight=False)
    matches, malformed = _read_events(paths)
    for bad in malformed:
        if as_json:
            sys.stderr.write(orjson.dumps(bad).decode() + "\n")
        else:
            err.print(
                f"{bad['file']}:{bad['line']}: malformed line: {bad['message']}", markup=False, soft_wrap=True
            )
    counts = {"valid": 0, "partial": 0, "results_only": 0, "invalid": 0}
    invalid: list[tuple[str, str]] = []
    with Progress(console=err, transient=True, disable=len(matches) < 50) as progress:
        task = progress.add_task("replaying", total=len(matches))
        for match_id, events in matches.items():
            result = replay_match(events, rulesets)
            counts[result.status] += 1
            e = result.error
            if as_json:
                error = None if e is None else {"seq": e.seq, "code": e.code.value, "message": e.message}
                line = {"match": match_id, "status": result.status, "error": error}
                sys.stdout.write(orjson.dumps(line).decode() + "\n")
            elif e is not None:
                invalid.append((match_id, f"seq {e.seq}: {e.code.value}: {e.message}"))
            progress.advance(task)
    if not as_json:
        for match_id, message in invalid:
            out.print(f"[red]invalid[/red] {escape(match_id)}  {escape(message)}", soft_wrap=True)
        out.print(
            f"{len(matches)} matches: [green]{counts['valid']} valid[/green], "
            f"[yellow]{counts['partial']} partial[/yellow], "
            + (f"{counts['results_only']} results-only, " if counts["results_only"] else "")
            + f"[red]{counts['invalid']} invalid[/red]"
            + (f"; {len(malformed)} malformed lines" if malformed else "")
        )
    if counts["invalid"] or malformed:
        raise typer.Exit(1)


def _read_events(paths: list[Path]) -> tuple[dict[str, list[dict[str, Any]]], list[dict[str, Any]]]:
    """Events grouped by match across files, and the malformed lines (file, line, message).

    Files are read as the ingest step reads them (``pipelines.steps.lines``: a BOM is dropped, CRLF
    accepted). A damaged ``.gz`` file, or a last line without a line break that is no complete
    JSON object, is one malformed entry at its line; the lines before it are validated.
    """
    import orjson

    from pipelines.steps.lines import LineReader

    matches: dict[str, list[dict[str, Any]]] = {}
    malformed: list[dict[str, Any]] = []

    def bad(path: Path, line_no: int, message: str) -> None:
        malformed.append({"file": str(path), "line": line_no, "code": "malformed_line", "message": message})

    for path in paths:
        reader = LineReader(path, gz=path.name.endswith(".gz"))
        for line_no, raw in enumerate(reader.lines_iter(), 1):
            if not raw.strip():
                continue
            try:
                ev = orjson.loads(raw)
            except orjson.JSONDecodeError as exc:
                bad(path, line_no, f"not JSON ({exc})")
                continue
            if not isinstance(ev, dict) or not isinstance(ev.get("match"), str):
                bad(path, line_no, "not an event object with a string `match`")
                continue
            matches.setdefault(ev["match"], []).append(ev)
        if reader.damage is not None:
            bad(path, reader.lines + 1, reader.damage.message)
        elif reader.pending:
            bad(
                path,
                reader.lines + 1,
                f"the last line ({reader.pending} bytes) has no line break and is "
                "not a complete JSON object (cut off, or still being written)",
            )
    return matches, malformed
