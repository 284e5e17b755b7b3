"""`gdan pair`: the table assignments of an event's next round (scoring.md §S8, §S9).

The pairing is :func:`pipelines.reads.pairing_sheet.pairing_sheet` (the dashboards' results entry page
uses it too): :func:`scoring.pairing.pair_round`, the same code the simulator pairs its
tournaments with, fed from the store; a knockout stage is a seeded bracket
(:mod:`pipelines.reads.pair_knockout`).
"""

from __future__ import annotations

import sys
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from gdan.pipeline import DEFAULT_STORE, OutputFormat, StoreOption

if TYPE_CHECKING:
    from pipelines.reads.pairing_sheet import PairingSheet
    from scoring.pairing import System

console = Console(stderr=True)


class PairingSystem(StrEnum):
    """``auto``: knockout or round robin when the stage is called so, snake seating for a
    duplicate event, else Swiss."""

    AUTO = "auto"
    SWISS = "swiss"
    ROUND_ROBIN = "round_robin"
    SNAKE = "snake"
    KNOCKOUT = "knockout"


def pair(
    event: Annotated[str, typer.Option("--event", "-e", help="Event id (as in `gdan standings`).")],
    round_no: Annotated[int, typer.Option("--round", "-r", help="The round to pair (1 = the first).", min=1)],
    stage: Annotated[
        str | None, typer.Option(help="Stage of the event (needed when it has several).")
    ] = None,
    system: Annotated[
        PairingSystem,
        typer.Option(
            help="Pairing system; auto: knockout or round robin for a stage called so, snake seating "
            "for a duplicate event, else Swiss.",
            case_sensitive=False,
        ),
    ] = PairingSystem.AUTO,
    seed: Annotated[
        int, typer.Option(help="Seed of the Swiss round-1 draw (knockout: of the unseeded teams' draw).")
    ] = 0,
    seeding_stage: Annotated[
        str | None,
        typer.Option(help="Knockout: the earlier stage whose final standings seed the bracket."),
    ] = None,
    qualifiers: Annotated[
        int | None,
        typer.Option(help="Knockout: teams that qualify (the top N; default: read from round 1).", min=2),
    ] = None,
    seeded: Annotated[
        int | None,
        typer.Option(help="Knockout: only the top N keep their seed, the others draw theirs.", min=0),
    ] = None,
    third_place: Annotated[
        bool, typer.Option("--third-place", help="Knockout: the final round also plays for 3rd place.")
    ] = False,
    allow_missing: Annotated[
        bool,
        typer.Option(
            "--allow-missing",
            help="Pair although the round before has tables without a result (recorded: who, when, which).",
        ),
    ] = False,
    by: Annotated[
        str | None, typer.Option(help="Who overrides with --allow-missing (default: your login name).")
    ] = None,
    store: StoreOption = DEFAULT_STORE,
    output: Annotated[
        OutputFormat, typer.Option("--format", "-f", help="Output format.")
    ] = OutputFormat.table,
) -> None:
    """Table assignments of round N by scoring.md §S8, from the standings after round N − 1.

    Swiss: teams ranked by the standings are paired top-down with the closest scores, never
    twice the same opponents, and with an odd number the lowest-ranked team without a bye sits
    out (once per team). Round 1 is a seeded random draw keeping teams of one club apart.
    Round robin: the standard circle rotation over the event's teams (sorted by team id).
    Knockout: a single-elimination bracket seeded from the earlier stage's final standings,
    seeds placed so that the top seeds meet latest and byes going to the top seeds (national
    Art. 24, huaian Art. 25); round N advances the winners of the rounds before.
    The pairing code is the simulator's. Each table seats the first team E–W, the second N–S.
    An individual event (partners rotate between rounds, e.g. a dan league) is refused: §S8
    pairs fixed pairs; seat its tables yourself and import their score sheets (`gdan import`).

    Snake seating (scoring.md §S9), the default for a duplicate event: round 1 drawn at random,
    then table 1 = ranks 1 v 2, table 2 = ranks 4 v 3, table 3 = ranks 5 v 6, … by the MP score
    rate after round N − 1 (by the standings for another event); each table's boards are also
    played in the other room with the seats turned. A duplicate event paired --system swiss is
    ranked by its MP score rate too: its standings are the MP table.

    A round after one with tables that have no result (the tables the event registry drew, or
    teams of the event without a match) is refused too, since their teams would be left out;
    --allow-missing pairs it anyway and records the override in the store's service folder.
    """
    import getpass

    from pipelines.reads.pairing_sheet import KnockoutOptions, pairing_sheet
    from pipelines.reads.tournament_data import LookupFailed, connect
    from service import registry

    systems: dict[PairingSystem, System] = {
        PairingSystem.SWISS: "swiss",
        PairingSystem.ROUND_ROBIN: "round_robin",
        PairingSystem.SNAKE: "snake",
        PairingSystem.KNOCKOUT: "knockout",
    }
    chosen = systems.get(system)
    try:
        con = connect(store)
        try:
            ko = KnockoutOptions(seeding_stage, qualifiers, seeded, third_place)
            registered = registry.load(store, event)
            before = registered.rounds.get(round_no - 1) if registered else None
            drawn = before.tables if before else None
            sheet = pairing_sheet(con, event, stage, round_no, chosen, seed, ko, drawn, allow_missing)
        finally:
            con.close()
    except LookupFailed as exc:
        console.print(f"[red]{exc}[/]")
        raise typer.Exit(1) from None
    if sheet.missing is not None:
        who = by or getpass.getuser()
        registry.record_override(store, event, round_no, who, sheet.missing.tables, sheet.missing.teams)
        console.print(f"[yellow]override recorded: {who} paired round {round_no} without those results[/]")
    if output is OutputFormat.csv:
        from printouts import Section, to_csv

        sys.stdout.write(to_csv(Section(sheet.title, sheet.columns, sheet.rows)).decode("utf-8"))
    elif output is OutputFormat.json:
        import orjson

        records = [dict(zip(sheet.columns, r, strict=True)) for r in sheet.rows]
        sys.stdout.write(
            orjson.dumps(
                {"title": sheet.title, "tables": records, "notes": sheet.notes}, option=orjson.OPT_INDENT_2
            ).decode()
            + "\n"
        )
    else:
        _print_table(sheet)
    if output is not OutputFormat.json:
        for note in sheet.notes:
            console.print(f"[dim]{note}[/]")


def _print_table(sheet: PairingSheet) -> None:
    from rich import box
    from rich.console import JustifyMethod
    from rich.table import Table

    from printouts.document import cell_text

    table = Table(title=sheet.title, box=box.SIMPLE_HEAD, pad_edge=False)
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("table", "right"),
        ("E–W", "left"),
        ("rank", "right"),
        ("pts", "right"),
        ("N–S", "left"),
        ("rank", "right"),
        ("pts", "right"),
    )
    for header, justify in columns:
        table.add_column(header, justify=justify)
    for r in sheet.rows:
        ew = f"{r[2]}\n[dim]{r[1]}[/]" if r[2] != r[1] else r[1]
        ns = "[italic]bye[/]" if r[5] is None else f"{r[6]}\n[dim]{r[5]}[/]" if r[6] != r[5] else r[5]
        table.add_row(str(r[0]), ew, cell_text(r[3]), cell_text(r[4]), ns, cell_text(r[7]), cell_text(r[8]))
    Console().print(table)


def register(app: typer.Typer) -> None:
    """Add ``gdan pair`` to the `gdan` app."""
    app.command("pair")(pair)
