"""`gdan review`: a deal's decisions with the exact endgame solver's verdicts."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from gdan.render import OutputFormat

if TYPE_CHECKING:
    from replay.review import DealReview, DecisionReview

KIND_LABEL = "exact, all hands visible (double-dummy)"
"""How an exact verdict was reached, as the output names it."""

CHOICE_NOTES = {"forced": "forced pass (no legal play)", "all_equal": "no choice (every action equal)"}
"""The verdict of a decision that was no real choice: counted, not scored."""


def register(app: typer.Typer) -> None:
    """Add this module's command to the `gdan` app."""
    app.command("review")(review)


def verdict(review: DecisionReview) -> str:
    """The word for a decision: forced / no choice, else its severity by the match-winning chance
    it lost (``pipelines.steps.reviews.severity``) with the levels lost."""
    from pipelines.steps.reviews import severity

    if review.choice in CHOICE_NOTES:
        return CHOICE_NOTES[review.choice]
    word = severity(review)
    return word if review.loss == 0 else f"{word} (−{review.loss})"


def empty_note(report: DealReview, cards: int, nodes: int) -> str:
    """Why a deal has no reviewed decision, from what the review could do."""
    if report.status == "outside_window":
        return (f"no decision in the window: the deal ended with at least {report.fewest_cards} cards "
                f"in all hands, more than --cards {cards}")
    if report.status == "no_play":
        return "the log shows no play or pass in this deal"
    return (f"{report.in_window} decisions with at most {cards} cards left, the latest of them not solved "
            f"within {nodes} nodes (raise --nodes)")


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
    ] = 20,
    nodes: Annotated[int, typer.Option("--nodes", help="Solver node budget per position.")] = 200_000,
    output: Annotated[
        OutputFormat, typer.Option("--format", help="table, csv or json.")
    ] = OutputFormat.table,
) -> None:
    """Solve the deal backwards from its end and print each decision with its verdict.

    Verdicts are exact with all four hands visible (double-dummy). Each row: the player's hand,
    the action played, the best actions, the loss in levels (rules.md §5.8) for the deciding team
    and in match-winning chance (the team's chance to win the match after the deal, best minus
    played, replay.match_value), and the verdict: forced passes and decisions where every action
    is equal are shown but not scored. The review stops at the first position (going backwards)
    the node budget cannot solve; the deal must show all four hands. Exit status 1 when the match
    or deal is not in the file or cannot be reviewed.
    """
    from gdan.render import Rows, emit, stderr_console
    from gdan.validate import _read_events
    from pipelines.steps.reviews import action_text
    from replay.review import review_deal_report
    from replay.solver import Budget

    matches, _ = _read_events([file])
    events = matches.get(match)
    if events is None:
        stderr_console().print(f"no match {match!r} in {file}", markup=False)
        raise typer.Exit(1)
    try:
        report = review_deal_report(events, Budget(nodes=nodes), deal=deal, max_cards_left=cards)
    except ValueError as exc:
        stderr_console().print(f"cannot review deal {deal} of {match}: {exc}", markup=False)
        raise typer.Exit(1) from exc
    rows = Rows(
        ["seq", "seat", "phase", "hand", "played", "best", "loss", "match_loss", "verdict", "cards_left",
         "value_before", "value_after", "choice", "kind"],
        [
            (r.seq, r.seat, r.phase, " ".join(r.hand), action_text(r.action),
             " | ".join(action_text(m) for m in r.best_moves), r.loss,
             None if r.match_loss is None else round(r.match_loss, 3), verdict(r), r.cards_left,
             r.value_before, r.value_after, r.choice, r.kind)
            for r in report.rows
        ],
    )
    real = sum(r.choice == "real" for r in report.rows)
    title = (f"{match} deal {deal}: {len(report.rows)} decisions reviewed ({real} real choices), "
             f"{KIND_LABEL}")
    emit(rows, output, title=title,
         keep=("seq", "hand", "played", "best", "loss", "verdict"),
         drop_first=("kind", "choice", "value_after", "value_before", "cards_left", "phase", "match_loss"),
         empty_note=empty_note(report, cards, nodes))
