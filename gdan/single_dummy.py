"""`gdan single-dummy`: every real decision judged from the player's own view (sampled layouts)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gdan.render import OutputFormat


def register(app: typer.Typer) -> None:
    """Add this module's command to the `gdan` app."""
    app.command("single-dummy")(single_dummy)


def single_dummy(
    files: Annotated[
        list[Path],
        typer.Argument(help="Event logs (.jsonl or .jsonl.gz, format v1).", exists=True, dir_okay=False),
    ],
    match: Annotated[str | None, typer.Option("--match", help="Only this match.")] = None,
    deal: Annotated[int | None, typer.Option("--deal", help="Only this deal (with --match).")] = None,
    review_all: Annotated[
        bool, typer.Option("--all", help="Every deal of every match in the files (a long job).")
    ] = False,
    layouts: Annotated[int, typer.Option("--layouts", min=1, help="Layouts sampled per decision.")] = 32,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the sampled layouts and rollouts.")] = 0,
    candidates: Annotated[
        int, typer.Option("--candidates", min=2, help="Action classes valued per decision at most.")
    ] = 6,
    seconds: Annotated[
        float | None, typer.Option("--seconds", min=1, help="Stop starting new deals after this long.")
    ] = None,
    output: Annotated[
        OutputFormat, typer.Option("--format", help="table, csv or json.")
    ] = OutputFormat.table,
) -> None:
    """Review decisions single-dummy: for each play, pass and return card, deal the cards the
    player could not see at random (consistent with their hand, every play and the tribute cards
    they knew, rules.md §6) and value each candidate in every layout: exactly by the endgame solver
    near the end, otherwise by the simulator's bots playing it out.

    Values are levels (rules.md §5.8) for the deciding team; each row gives the played and the
    best candidate's mean with a 95 % interval and in how many layouts the played one did worse.
    Name a match and deal, a match (all its deals), or --all. Exit status 1 when nothing matches.
    """

    from gdan.render import Rows, emit, progress_bar, stderr_console
    from gdan.validate import _read_events
    from pipelines.steps.single_dummy import (
        COLUMNS,
        JobReport,
        candidates_text,
        review_matches,
        reviewable_deals,
    )
    from replay.single_dummy import LABEL, Settings

    err = stderr_console()
    if not review_all and match is None:
        err.print("name a match (--match, maybe with --deal) or review --all", markup=False)
        raise typer.Exit(1)
    found, _ = _read_events(list(files))
    if match is not None:
        if match not in found:
            err.print(f"no match {match!r} in the files", markup=False)
            raise typer.Exit(1)
        found = {match: found[match]}
    if deal is not None:
        if match is None:
            err.print("--deal needs --match", markup=False)
            raise typer.Exit(1)
        if deal not in reviewable_deals(found[match]):
            err.print(
                f"deal {deal} of {match} is not in the file or does not show all four hands", markup=False
            )
            raise typer.Exit(1)
    settings = Settings(layouts=layouts, seed=seed, max_candidates=candidates)
    total = 1 if deal is not None else sum(len(reviewable_deals(events)) for events in found.values())
    report = JobReport()
    with progress_bar(err, label_width=14, transient=True) as progress:
        task = progress.add_task("single-dummy", total=total)
        rows = list(
            review_matches(
                found,
                settings,
                deal=deal,
                seconds=seconds,
                on_deal=lambda: progress.advance(task),
                report=report,
            )
        )
    for failure in report.failed or ():
        err.print(f"cannot review {failure}", markup=False)
    if report.skipped:
        err.print(
            f"budget of {seconds} s spent: {report.skipped} of {total} deals not reviewed", markup=False
        )
    cells = [{**r, "hand": " ".join(r["hand"]), "candidates": candidates_text(r["candidates"])} for r in rows]
    emit(
        Rows(list(COLUMNS), [tuple(r[c] for c in COLUMNS) for r in cells]),
        output,
        title=f"{report.deals} deals, {len(rows)} decisions — {LABEL}, {layouts} layouts",
        keep=("seq", "action", "best_action", "loss", "worse_in"),
        drop_first=("candidates", "label", "classes", "exact_layouts", "played_low", "played_high", "hand"),
        empty_note="no decision with a choice could be reviewed",
    )
