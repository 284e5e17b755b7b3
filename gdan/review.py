"""`gdan review`: a deal's decisions with the exact endgame solver's verdicts, and on request the
single-dummy ones (sampled from the player's view) computed on the spot."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from gdan.pipeline import DEFAULT_STORE, StoreOption
from gdan.render import OutputFormat

if TYPE_CHECKING:
    from collections.abc import Mapping

    from replay.review import DealReview, DecisionReview

KIND_LABEL = "exact, all hands visible (double-dummy)"
"""How an exact verdict was reached, as the output names it."""

CHOICE_NOTES = {"forced": "forced pass (no legal play)", "all_equal": "no choice (every action equal)"}
"""The verdict of a decision that was no real choice: counted, not scored."""


Row = tuple[object, ...]
"""One row of the review's table."""


def register(app: typer.Typer) -> None:
    """Add this module's command to the `gdan` app."""
    app.command("review")(review)


def verdict(review: DecisionReview) -> str:
    """The word for a decision: forced / no choice, else its severity by the match-winning chance
    it lost (``pipelines.steps.reviews.severity``) with the levels lost."""
    from pipelines.steps.reviews import severity

    return verdict_text(review.choice, severity(review), review.loss)


def verdict_text(choice: str, word: str, loss: int) -> str:
    """:func:`verdict` from a decision's choice, severity and levels lost."""
    if choice in CHOICE_NOTES:
        return CHOICE_NOTES[choice]
    return word if loss == 0 else f"{word} (−{loss})"


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
        Path | None,
        typer.Argument(
            help="An event log (.jsonl or .jsonl.gz, format v1); without it, the verdicts the store holds.",
            exists=True, dir_okay=False,
        ),
    ] = None,
    *,
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
    store: StoreOption = DEFAULT_STORE,
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

    Without FILE, the same rows as the store's last published run holds them (--store): the exact
    verdicts of the pipeline's review (play_reviews, in the pipeline's window) and those of the
    opt-in single-dummy job (single_dummy_reviews), if it reviewed the deal; --cards, --nodes,
    --single-dummy, --layouts and --seed are for a FILE.
    """
    from gdan.render import stderr_console
    from gdan.validate import _read_events
    from pipelines.steps.reviews import action_text
    from replay.review import review_deal_report
    from replay.single_dummy import LABEL
    from replay.solver import Budget

    if file is None:
        stored, sampled = stored_rows(store, match, deal)
        title = f"{match} deal {deal} in {store}: {len(stored)} decisions reviewed, {KIND_LABEL}"
        if sampled:
            title += f"; {len(sampled)} {LABEL}"
        emit_review(stored, sampled, output, title, "no decision of this deal was reviewed "
                    "(the pipeline reviews the endgame of deals showing all four hands)")
        return
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
    exact: list[Row] = [
        (r.seq, r.seat, r.phase, " ".join(r.hand), action_text(r.action),
         " | ".join(action_text(m) for m in r.best_moves), r.loss,
         None if r.match_loss is None else round(r.match_loss, 3), verdict(r), r.cards_left,
         r.value_before, r.value_after, r.choice, r.kind)
        for r in report.rows
    ]
    real = sum(r.choice == "real" for r in report.rows)
    title = (f"{match} deal {deal}: {len(report.rows)} decisions reviewed ({real} real choices), "
             f"{KIND_LABEL}")
    if not single_dummy:
        emit_review(exact, [], output, title, empty_note(report, cards, nodes))
        return
    sampled = sampled_rows(events, match, deal, layouts, seed)
    if not exact:
        stderr_console().print(empty_note(report, cards, nodes), markup=False)
    emit_review(exact, sampled, output, f"{title}; {len(sampled)} {LABEL}, {layouts} layouts",
                "no decision of this deal could be reviewed either way")


COLUMNS = ("seq", "seat", "phase", "hand", "played", "best", "loss", "match_loss", "verdict", "cards_left",
           "value_before", "value_after", "choice", "kind")
"""The columns of an exact verdict's row."""


def emit_review(exact: list[Row], sampled: list[Row], output: OutputFormat,
                title: str, note: str) -> None:
    """Print the exact rows (:data:`COLUMNS`), and with single-dummy rows the two kinds by seq in
    one table with :data:`SAMPLED_COLUMNS`; ``note`` when there is no row."""
    from gdan.render import Rows, emit

    dropped = ("choice", "value_after", "value_before", "cards_left", "phase", "match_loss")
    if not sampled:
        emit(Rows(list(COLUMNS), exact), output, title=title,
             keep=("seq", "hand", "played", "best", "loss", "verdict"), drop_first=("kind", *dropped),
             empty_note=note)
        return
    rows = sorted([(*r, None, None, None, None) for r in exact] + sampled, key=lambda r: (r[0], r[13]))
    emit(Rows([*COLUMNS, *SAMPLED_COLUMNS], rows), output, title=title,
         keep=("seq", "played", "best", "loss", "verdict", "kind"),
         drop_first=("candidates", *dropped, "played_mean", "interval", "hand", "worse_in"),
         empty_note=note)


SAMPLED_COLUMNS = ("played_mean", "interval", "worse_in", "candidates")
"""Columns --single-dummy adds: the action taken's mean and 95 % interval, in how many layouts it
did worse than the best (``k/N``), and every candidate's mean with its 95 % interval (empty on
exact rows)."""


def sampled_rows(
    events: list[dict[str, Any]], match: str, deal: int, layouts: int, seed: int
) -> list[Row]:
    """The single-dummy verdicts of one deal as rows of the review's table (kind ``single_dummy``,
    then :data:`SAMPLED_COLUMNS`), computed with a progress bar on stderr; exit status 1 when the
    deal cannot be followed."""
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from gdan.render import stderr_console
    from pipelines.steps.single_dummy import decision_row
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
    return [sampled_row(decision_row(match, deal, d)) for d in found]


def sampled_row(row: Mapping[str, Any]) -> Row:
    """A ``single_dummy_reviews`` row (``pipelines.steps.single_dummy.decision_row``) as a row of
    the review's table: kind ``single_dummy``, then :data:`SAMPLED_COLUMNS`."""
    from pipelines.steps.single_dummy import candidates_text, sampled_severity

    loss = float(row["loss"])
    word = sampled_severity(loss, float(row["match_loss"]))
    worse = f"worse in {row['worse_in']} of {row['layouts']} layouts"
    return (
        row["seq"], row["seat"], row["phase"], " ".join(row["hand"]),
        row["action"], row["best_action"], loss, round(float(row["match_loss"]), 3),
        f"{word} (−{loss:.2f}), {worse}" if loss > 0 else f"{word}, {worse}", row["cards_left"], None, None,
        "real", "single_dummy", row["played_mean"], f"[{row['played_low']:+.2f}, {row['played_high']:+.2f}]",
        f"{row['worse_in']}/{row['layouts']}", candidates_text(row["candidates"]),
    )


def stored_rows(store: Path, match: str, deal: int) -> tuple[list[Row], list[Row]]:
    """The exact rows (``play_reviews``) and single-dummy rows (``single_dummy_reviews``) of one deal
    as the store's last published run holds them; exit status 1 when the store has no such deal."""
    from gdan.pipeline import read_connection
    from gdan.render import stderr_console

    where = "WHERE match_id = ? AND deal_no = ?"
    con = read_connection(store)
    try:
        if not con.execute(f"SELECT 1 FROM deals {where}", [match, deal]).fetchall():
            stderr_console().print(f"no deal {deal} of match {match!r} in {store}", markup=False)
            raise typer.Exit(1)
        exact = con.execute(
            f"""
            SELECT seq, seat, phase, array_to_string(hand, ' ') AS hand,
                   CASE WHEN action = 'pass' THEN 'pass' ELSE array_to_string(cards, ' ') END AS played,
                   best_moves AS best, loss, round(match_loss, 3) AS match_loss, severity, cards_left,
                   value_before, value_after, choice, kind
            FROM play_reviews {where} ORDER BY seq
            """,
            [match, deal],
        )
        exact_rows = _records(exact.description, exact.fetchall())
        sampled = con.execute(f"SELECT * FROM single_dummy_reviews {where} ORDER BY seq", [match, deal])
        judged = _records(sampled.description, sampled.fetchall())
    finally:
        con.close()
    verdicts = [{**r, "verdict": verdict_text(r["choice"], r["severity"], r["loss"])} for r in exact_rows]
    return [tuple(r[c] for c in COLUMNS) for r in verdicts], [sampled_row(r) for r in judged]


def _records(description: Any, rows: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
    """DuckDB result rows as dicts by column name."""
    names = [d[0] for d in description]
    return [dict(zip(names, r, strict=True)) for r in rows]
