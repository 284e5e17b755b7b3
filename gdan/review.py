"""`gdan review`: a deal's decisions with the exact endgame solver's verdicts."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gdan.render import OutputFormat

VERDICTS = {0: "best", 1: "mistake (−1)", 2: "mistake (−2)"}
"""Verdict by loss in levels; 3 or more is a blunder."""


def register(app: typer.Typer) -> None:
    """Add this module's command to the `gdan` app."""
    app.command("review")(review)


def verdict(loss: int) -> str:
    """The word for a decision that loses ``loss`` levels."""
    return VERDICTS.get(loss, f"blunder (−{loss})")


def review(
    file: Annotated[
        Path,
        typer.Argument(help="An event log (.jsonl or .jsonl.gz, format v1).", exists=True, dir_okay=False),
    ],
    match: Annotated[str, typer.Option("--match", help="The match id.")],
    deal: Annotated[int, typer.Option("--deal", help="The deal number.")],
    cards: Annotated[
        int,
        typer.Option("--cards", help="Review decisions with at most this many cards left in all hands."),
    ] = 16,
    nodes: Annotated[int, typer.Option("--nodes", help="Solver node budget per position.")] = 200_000,
    output: Annotated[
        OutputFormat, typer.Option("--format", help="table, csv or json.")
    ] = OutputFormat.table,
) -> None:
    """Solve the deal backwards from its end and print each decision with its verdict.

    Values are levels (rules.md §5.8) for the deciding team: the position's exact value before the
    decision, the value after the action taken, and the loss (0 for a best move). The review stops
    at the first position (going backwards) the node budget cannot solve; the deal must show all
    four hands. Exit status 1 when the match or deal is not in the file or cannot be reviewed.
    """
    from gdan.render import Rows, emit, stderr_console
    from gdan.validate import _read_events
    from pipelines.steps.reviews import action_text
    from replay.review import review_deal
    from replay.solver import Budget

    matches, _ = _read_events([file])
    events = matches.get(match)
    if events is None:
        stderr_console().print(f"no match {match!r} in {file}", markup=False)
        raise typer.Exit(1)
    try:
        reviews = review_deal(events, Budget(nodes=nodes), deal=deal, max_cards_left=cards)
    except ValueError as exc:
        stderr_console().print(f"cannot review deal {deal} of {match}: {exc}", markup=False)
        raise typer.Exit(1) from exc
    rows = Rows(
        ["seq", "seat", "action", "cards_left", "value_before", "value_after", "loss", "verdict",
         "best_moves"],
        [
            (r.seq, r.seat, action_text(r.action), r.cards_left, r.value_before, r.value_after, r.loss,
             verdict(r.loss), " | ".join(action_text(m) for m in r.best_moves))
            for r in reviews
        ],
    )
    emit(rows, output, title=f"{match} deal {deal}: {len(reviews)} decisions reviewed",
         keep=("seq", "action", "loss", "verdict"), drop_first=("best_moves",),
         empty_note=f"no decision with at most {cards} cards left could be solved within {nodes} nodes")
