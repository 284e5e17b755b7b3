"""`gdan pair`: the table assignments of an event's next round (scoring.md §S8).

The pairing is :func:`scoring.pairing.pair_round`, the same code the simulator pairs its
tournaments with, fed from the store: the ranking is the standings after round N − 1, who met
whom and who had a bye come from ``match_scores`` of the rounds before N, and clubs from the
players' ``match_start.players`` entries. A knockout stage is paired as a seeded bracket
(:mod:`gdan.pair_knockout`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from gdan.pipeline import DEFAULT_STORE, OutputFormat, StoreOption

if TYPE_CHECKING:
    import duckdb

    from pipelines.tournament_data import Player, Stage
    from scoring.pairing import RoundPairing, System

console = Console(stderr=True)


class PairingSystem(StrEnum):
    """``auto``: knockout or round robin when the stage is called so, else Swiss."""

    AUTO = "auto"
    SWISS = "swiss"
    ROUND_ROBIN = "round_robin"
    KNOCKOUT = "knockout"


@dataclass(frozen=True, slots=True)
class KnockoutOptions:
    """How a knockout is seeded: the earlier stage, how many qualify, how many keep their seed."""

    seeding_stage: str | None = None
    qualifiers: int | None = None
    seeded: int | None = None
    third_place: bool = False


@dataclass(frozen=True, slots=True)
class PairingSheet:
    """A round's pairing with what a printout shows: columns and rows, title, notes."""

    title: str
    columns: list[str]
    rows: list[list[Any]]
    notes: list[str]


COLUMNS = [
    "table",
    "ew_team",
    "ew_players",
    "ew_rank",
    "ew_points",
    "ns_team",
    "ns_players",
    "ns_rank",
    "ns_points",
]


def pairing_sheet(
    con: duckdb.DuckDBPyConnection,
    event: str,
    stage_name: str | None,
    round_no: int,
    system: PairingSystem,
    seed: int,
    knockout: KnockoutOptions | None = None,
) -> PairingSheet:
    """Pair round ``round_no`` of the event from the store (raises ``LookupFailed``)."""
    from pipelines.tournament_data import LookupFailed, roster, round_scores, stage_of, standings
    from scoring.knockout import is_knockout
    from scoring.pairing import pair_round

    if system is PairingSystem.KNOCKOUT or (system is PairingSystem.AUTO and is_knockout(stage_name)):
        return _knockout_sheet(con, event, stage_name, round_no, seed, knockout or KnockoutOptions())
    stage = stage_of(con, event, stage_name)
    if system is PairingSystem.AUTO and is_knockout(stage.stage):
        return _knockout_sheet(con, event, stage.stage, round_no, seed, knockout or KnockoutOptions())
    chosen = _system(system, stage)
    earlier = round_scores(con, stage, before=round_no)
    everyone = round_scores(con, stage)
    names = roster(con)
    teams = list(dict.fromkeys(r["team_id"] for r in sorted(everyone, key=lambda r: r["team_id"])))
    table: dict[str, dict[str, Any]] = {}
    if chosen == "swiss" and round_no > 1:
        after = round_no - 1
        ranked = standings(con, stage, after)
        if not ranked:
            raise LookupFailed(
                f"event {event} has no standings after round {after} (rounds with results: "
                f"{', '.join(map(str, stage.rounds)) or 'none'}): pair round {after} first, "
                "or run `gdan run` once its results are in"
            )
        teams = [r["team_id"] for r in ranked]
        table = {r["team_id"]: r for r in ranked}
    if not teams:
        raise LookupFailed(f"event {event} has no teams in the store")
    met = {frozenset((r["team_id"], r["opp_team_id"])) for r in earlier if r["outcome"] != "bye"}
    had_bye = {r["team_id"] for r in earlier if r["outcome"] == "bye"}
    first_players = {r["team_id"]: r["player_1"] for r in everyone}
    clubs = {t: names[first_players[t]].club if first_players.get(t) in names else None for t in teams}
    pairing = pair_round(chosen, round_no, teams, met, had_bye, clubs, seed)
    return _sheet(stage, pairing, table, names, everyone, round_no)


def _knockout_sheet(
    con: duckdb.DuckDBPyConnection,
    event: str,
    stage_name: str | None,
    round_no: int,
    seed: int,
    options: KnockoutOptions,
) -> PairingSheet:
    """Knockout round ``round_no``: the seeded bracket advanced by the earlier rounds' winners."""
    from dataclasses import replace

    from gdan.pair_knockout import plan_knockout
    from pipelines.tournament_data import Stage, roster, round_scores

    plan = plan_knockout(
        con,
        event,
        stage_name,
        options.seeding_stage,
        round_no,
        options.qualifiers,
        options.seeded,
        options.third_place,
        seed,
    )
    source = plan.seeding_stage
    stage = plan.stage or Stage(event, stage_name or "knockout", source.name, source.rules, ())
    scores = round_scores(con, source)
    points = "bcta_round_score" if source.rules == "bcta" else "match_points"
    seeded = {t: {"rank": i, points: plan.ranked[t][points]} for i, t in enumerate(plan.seeds, start=1)}
    sheet = _sheet(stage, plan.pairing, seeded, roster(con), scores, round_no, points)
    notes = list(sheet.notes)
    notes.append(
        f"seeded 1–{len(plan.seeds)} by the standings of stage {source.stage} after round "
        f"{plan.after_round} (the rank columns show the seed); byes go to the top seeds and the "
        "better seed sits E–W (national Art. 24, huaian Art. 25)"
    )
    notes += [f"table {n} plays for 3rd place" for n in plan.pairing.placing]
    return replace(sheet, notes=notes)


def _system(system: PairingSystem, stage: Stage) -> System:
    """The system asked for; ``auto``: round robin for a stage named so, else Swiss."""
    if system is PairingSystem.ROUND_ROBIN or (
        system is PairingSystem.AUTO and (stage.stage or "").replace("-", "_").lower() == "round_robin"
    ):
        return "round_robin"
    return "swiss"


def _sheet(
    stage: Stage,
    pairing: RoundPairing,
    table: dict[str, dict[str, Any]],
    names: dict[str, Player],
    scores: list[dict[str, Any]],
    round_no: int,
    points: str | None = None,
) -> PairingSheet:
    from pipelines.tournament_data import Player

    players = {r["team_id"]: (r["player_1"], r["player_2"]) for r in scores}
    points = points or ("bcta_round_score" if stage.rules == "bcta" else "match_points")

    def label(team: str) -> str:
        ids = players.get(team, (None, None))
        return " / ".join((names.get(p) or Player(p)).label for p in ids if p) or team

    def standing(team: str) -> tuple[Any, Any]:
        row = table.get(team)
        return (row["rank"], row[points]) if row else (None, None)

    rows: list[list[Any]] = []
    for t in pairing.tables:
        rows.append([t.number, t.ew, label(t.ew), *standing(t.ew), t.ns, label(t.ns), *standing(t.ns)])
    for bye in pairing.byes:
        rows.append(["bye", bye, label(bye), *standing(bye), None, None, None, None])
    system = {"round_robin": "round robin", "knockout": "knockout"}.get(pairing.system, "Swiss")
    title = f"{stage.title} · round {round_no} pairing ({system}, scoring.md §S8)"
    notes = []
    if round_no in stage.rounds:
        notes.append(
            f"round {round_no} already has results in the store: this is the pairing §S8 gives, "
            "to check against the one played"
        )
    if pairing.rematches:
        shown = ", ".join(f"{a} v {b}" for a, b in pairing.rematches)
        notes.append(f"no pairing without rematches exists: {shown} meet again")
    if pairing.system == "swiss" and round_no > 1:
        notes.append(f"ranked by the standings after round {round_no - 1} ({points})")
    return PairingSheet(title, COLUMNS, rows, notes)


def pair(
    event: Annotated[str, typer.Option("--event", "-e", help="Event id (as in `gdan standings`).")],
    round_no: Annotated[int, typer.Option("--round", "-r", help="The round to pair (1 = the first).", min=1)],
    stage: Annotated[
        str | None, typer.Option(help="Stage of the event (needed when it has several).")
    ] = None,
    system: Annotated[
        PairingSystem,
        typer.Option(
            help="Pairing system; auto: knockout or round robin for a stage called so, else Swiss.",
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
    """
    from pipelines.tournament_data import LookupFailed, connect

    try:
        con = connect(store)
        try:
            ko = KnockoutOptions(seeding_stage, qualifiers, seeded, third_place)
            sheet = pairing_sheet(con, event, stage, round_no, system, seed, ko)
        finally:
            con.close()
    except LookupFailed as exc:
        console.print(f"[red]{exc}[/]")
        raise typer.Exit(1) from None
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
