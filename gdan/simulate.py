"""`gdan simulate`: write simulated tournaments, leagues or matches as event logs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    """Add `simulate` to the `gdan` app."""
    app.command("simulate")(simulate)


def simulate(
    out: Annotated[Path, typer.Option("--out", help="Directory for the *.jsonl logs and players.json.")],
    kind: Annotated[str, typer.Option("--kind", help="tournament, league or matches.")] = "tournament",
    pairs: Annotated[
        int, typer.Option("--pairs", min=2, help="Tournament: number of pairs (teams of two).")
    ] = 8,
    rounds: Annotated[
        int | None,
        typer.Option("--rounds", min=1, help="Tournament rounds (default 5) or league sessions (40)."),
    ] = None,
    rules: Annotated[
        str | None,
        typer.Option(
            "--rules",
            help="Ruleset id (national, huaian, bcta, jiangsu, njupt) or a ruleset .toml/.json file; "
            "default national, bcta for leagues.",
        ),
    ] = None,
    format: Annotated[
        str | None,
        typer.Option(
            "--format", help="until_a | deals:N | timed:MIN | timed_deals:MIN:N (default: the ruleset's)."
        ),
    ] = None,
    system: Annotated[
        str,
        typer.Option("--system", help="Tournament system: swiss, round_robin, duplicate or knockout."),
    ] = "swiss",
    knockout: Annotated[
        int,
        typer.Option(
            "--knockout", min=0, help="Tournaments: a knockout stage of the first N pairs after the rounds."
        ),
    ] = 0,
    shared_boards: Annotated[
        bool,
        typer.Option(
            "--shared-boards",
            help="Duplicate tournaments: every table of a round plays the same board, compared across "
            "all the round's rooms (default: each table's board in its own two rooms).",
        ),
    ] = False,
    seed: Annotated[
        int, typer.Option("--seed", help="Same arguments and seed give byte-identical files.")
    ] = 0,
    workers: Annotated[
        int, typer.Option("--workers", min=1, help="Worker processes (output is the same).")
    ] = 1,
    corrupt: Annotated[
        float,
        typer.Option(
            "--corrupt", min=0.0, max=1.0, help="Share of matches also written damaged to corrupt/."
        ),
    ] = 0.0,
    matches: Annotated[int, typer.Option("--matches", min=1, help="Kind matches: number of matches.")] = 20,
    players: Annotated[
        int | None, typer.Option("--players", min=4, help="League / matches: players (default 240 / 16).")
    ] = None,
) -> None:
    """Simulate Guandan with bots and write event logs (format v1), players.json (true skills) and,
    with --corrupt, labelled damaged logs plus corrupt/manifest.json."""
    from simulator import simulate_to_dir

    try:
        summary = simulate_to_dir(
            out,
            kind,
            pairs=pairs,
            rounds=rounds,
            rules=rules,
            format=format,
            seed=seed,
            workers=workers,
            corrupt=corrupt,
            players=players,
            matches=matches,
            system=system,
            knockout=knockout,
            shared_boards=shared_boards,
            progress=True,
        )
    except (ValueError, KeyError, OSError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    damaged = f"; {summary.corrupted} damaged copies in corrupt/" if summary.corrupted else ""
    typer.echo(
        f"wrote {summary.matches} matches, {summary.deals} deals, {summary.events} events "
        f"in {len(summary.files)} files to {summary.out}{damaged}"
    )
