"""`gdan puzzles`: positions from real deals with one winning idea the player missed."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

puzzles_app = typer.Typer(help="Puzzles made from the mistakes of reviewed deals.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    """Add this module's command group to the `gdan` app."""
    app.add_typer(puzzles_app, name="puzzles")


@puzzles_app.command("export")
def export(
    files: Annotated[
        list[Path],
        typer.Argument(help="Event logs (.jsonl or .jsonl.gz, format v1).", exists=True, dir_okay=False),
    ],
    out: Annotated[Path, typer.Option("--out", help="The JSON file to write (a list of puzzles).")],
    cards: Annotated[
        int, typer.Option("--cards", min=2, help="Look at decisions with at most this many cards left.")
    ] = 14,
    nodes: Annotated[int, typer.Option("--nodes", min=1, help="Solver node budget per position.")] = 100_000,
) -> None:
    """Review every deal exactly (all hands visible, double-dummy) and write the puzzles: decisions
    where one action class alone keeps the best value, verified against every other class by the
    solver, and the action taken lost at least one level (rules.md §5.8). Each puzzle holds the full
    position, every move of the solution, the action taken and both values. Deals the log does not
    let the review follow are named on stderr and skipped."""
    import json

    from gdan.render import progress_bar, stderr_console
    from gdan.validate import _read_events
    from pipelines.steps.single_dummy import reviewable_deals
    from replay.puzzles import find_puzzles, to_json
    from replay.solver import Budget

    err = stderr_console()
    matches, _ = _read_events(list(files))
    jobs = [(m, d) for m in sorted(matches) for d in reviewable_deals(matches[m])]
    found = []
    with progress_bar(err, label_width=10, transient=True) as progress:
        task = progress.add_task("puzzles", total=len(jobs))
        for match, deal in jobs:
            try:
                found.extend(
                    find_puzzles(matches[match], Budget(nodes=nodes), deal=deal, max_cards_left=cards)
                )
            except ValueError as exc:
                err.print(f"cannot review {match} deal {deal}: {exc}", markup=False)
            progress.advance(task)
    out.write_text(
        json.dumps([to_json(p) for p in found], ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    err.print(f"{len(found)} puzzles from {len(jobs)} deals written to {out}", markup=False)
