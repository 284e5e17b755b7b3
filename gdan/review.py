"""`gdan review`: a deal's decisions with the exact endgame solver's verdicts, and on request the
single-dummy ones (sampled from the player's view) computed on the spot."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

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
    single_dummy: Annotated[
        bool,
        typer.Option(
            "--single-dummy",
            help="Also judge every real decision of the deal from the player's view (sampled layouts of "
            "the unseen cards), computed now: ≈ 5 CPU-s a deal at 8 layouts.",
        ),
    ] = False,
    layouts: Annotated[
        int, typer.Option("--layouts", min=1, help="With --single-dummy: layouts sampled per decision.")
    ] = 8,
    seed: Annotated[
        int, typer.Option("--seed", help="With --single-dummy: seed of the layouts and rollouts.")
    ] = 0,
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

    --single-dummy adds, for every real decision of the whole deal (plays, passes, the return
    card), a row of kind single_dummy: the cards the player could not see dealt at random
    --layouts times consistently with what they saw, each candidate valued per layout (the solver
    near the end, the simulator's bots otherwise), with a progress bar. Such a row gives the
    player's hand, the mean levels lost, the action taken's mean with its 95 % interval, in how
    many layouts it did worse than the best, and every candidate's mean with its interval
    (`gdan single-dummy` for more deals).
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
    columns = ["seq", "seat", "phase", "hand", "played", "best", "loss", "match_loss", "verdict",
               "cards_left", "value_before", "value_after", "choice", "kind"]
    exact: list[tuple[object, ...]] = [
        (r.seq, r.seat, r.phase, " ".join(r.hand), action_text(r.action),
         " | ".join(action_text(m) for m in r.best_moves), r.loss,
         None if r.match_loss is None else round(r.match_loss, 3), verdict(r), r.cards_left,
         r.value_before, r.value_after, r.choice, r.kind)
        for r in report.rows
    ]
    real = sum(r.choice == "real" for r in report.rows)
    title = (f"{match} deal {deal}: {len(report.rows)} decisions reviewed ({real} real choices), "
             f"{KIND_LABEL}")
    dropped = ("choice", "value_after", "value_before", "cards_left", "phase", "match_loss")
    if not single_dummy:
        emit(Rows(columns, exact), output, title=title,
             keep=("seq", "hand", "played", "best", "loss", "verdict"), drop_first=("kind", *dropped),
             empty_note=empty_note(report, cards, nodes))
        return
    from replay.single_dummy import LABEL

    sampled = sampled_rows(events, match, deal, layouts, seed)
    if not exact:
        stderr_console().print(empty_note(report, cards, nodes), markup=False)
    rows = sorted([(*r, None, None, None, None) for r in exact] + sampled, key=lambda r: (r[0], r[13]))
    emit(Rows([*columns, *SAMPLED_COLUMNS], rows), output,
         title=f"{title}; {len(sampled)} {LABEL}, {layouts} layouts",
         keep=("seq", "played", "best", "loss", "verdict", "kind"),
         drop_first=("candidates", *dropped, "played_mean", "interval", "hand", "worse_in"),
         empty_note="no decision of this deal could be reviewed either way")


SAMPLED_COLUMNS = ("played_mean", "interval", "worse_in", "candidates")
"""Columns --single-dummy adds: the action taken's mean and 95 % interval, in how many layouts it
did worse than the best (``k/N``), and every candidate's mean with its 95 % interval (empty on
exact rows)."""


def sampled_rows(
    events: list[dict[str, Any]], match: str, deal: int, layouts: int, seed: int
) -> list[tuple[object, ...]]:
    """The single-dummy verdicts of one deal as rows of the review's table (kind ``single_dummy``,
    then :data:`SAMPLED_COLUMNS`), computed with a progress bar on stderr; exit status 1 when the
    deal cannot be followed."""
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from gdan.render import stderr_console
    from pipelines.steps.single_dummy import candidates_text, decision_row, sampled_severity
    from replay.single_dummy import SampledDecision, Settings, review_deal_single_dummy
    from simulator.rollout import bot_rollout

    found: list[SampledDecision] = []
    err = stderr_console()
    with Progress(SpinnerColumn(), TextColumn("single-dummy: {task.completed} decisions judged"),
                  TimeElapsedColumn(), console=err, transient=True) as progress:
        task = progress.add_task("single-dummy", total=None)
        try:
            for d in review_deal_single_dummy(events, Settings(layouts=layouts, seed=seed), bot_rollout,
                                              deal=deal):
                found.append(d)
                progress.advance(task)
        except ValueError as exc:
            err.print(f"cannot judge deal {deal} of {match} single-dummy: {exc}", markup=False)
            raise typer.Exit(1) from exc
    rows: list[tuple[object, ...]] = []
    for d in found:
        row = decision_row(match, deal, d)
        loss = row["loss"]
        word = sampled_severity(loss)
        worse = f"worse in {d.worse_in} of {d.layouts} layouts"
        interval = f"[{row['played_low']:+.2f}, {row['played_high']:+.2f}]"
        rows.append((
            d.seq, d.seat, "return" if d.kind == "return" else None, " ".join(d.hand), row["action"],
            row["best_action"], loss, None,
            f"{word} (−{loss:.2f}), {worse}" if loss > 0 else f"{word}, {worse}", d.cards_left, None, None,
            "real", "single_dummy", row["played_mean"], interval, f"{d.worse_in}/{d.layouts}",
            candidates_text(row["candidates"]),
        ))
    return rows
