"""`gdan export`: printouts of a tournament day as xlsx, pdf (A4, CJK fonts) or csv.

- ``standings``: an event's standings after a round (names, clubs, every tie-break column);
- ``round``: a round's results table by table (levels, winner, points; the bye);
- ``dan-ledger``: per player one page: current amateur dan and the ledger of bcta rounds (§S5);
- ``player``: per player one page: name, club, dan, rating and every match played;
- ``slips``: per table of a round one A4 page to put on the table: the pairs and seats, blank
  deal lines and a QR code of the table's results-entry link.

Every printout is in English or Chinese (``--lang zh``).

The documents are built by :mod:`pipelines.reads.printout_documents` (shared with the dashboards'
download buttons); the files are written by the pure writers of ``printouts``.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.console import Console

from gdan.pipeline import DEFAULT_STORE, StoreOption, object_storage_errors
from pipelines.reads.printout_documents import (
    dan_document,
    player_document,
    round_document,
    standings_document,
)
from printouts.labels import Lang

if TYPE_CHECKING:
    from printouts import Document

T = TypeVar("T")
console = Console(stderr=True)
app = typer.Typer(
    name="export",
    help="Printouts as xlsx, pdf (A4, Chinese fonts, page numbers) or csv: standings, a round's "
    "results, dan ledgers, player sheets.",
    no_args_is_help=True,
    rich_markup_mode="markdown",
)


class FileFormat(StrEnum):
    """The printout's file type."""

    xlsx = "xlsx"
    pdf = "pdf"
    csv = "csv"


FormatOption = Annotated[FileFormat, typer.Option("--format", "-f", help="File type.", case_sensitive=False)]
OutOption = Annotated[
    Path | None, typer.Option("--out", "-o", help="File to write (default: a name from the printout, here).")
]
BomOption = Annotated[
    bool,
    typer.Option("--bom/--no-bom", help="csv: start with a UTF-8 byte-order mark, so Excel shows Chinese."),
]
EventOption = Annotated[str, typer.Option("--event", "-e", help="Event id (as in `gdan standings`).")]
StageOption = Annotated[str | None, typer.Option(help="Stage of the event (needed when it has several).")]
LangOption = Annotated[
    Lang, typer.Option("--lang", help="Language of every title, header and label: en or zh (中文).")
]
PlayersArgument = Annotated[
    list[str] | None,
    typer.Argument(help="Player ids or names; none: every player (of --event, when given)."),
]


def _write(document: Document, fmt: FileFormat, out: Path | None, default_name: str, bom: bool) -> None:
    from printouts import to_csv, to_pdf, to_xlsx
    from printouts.pdf import FontMissing

    if bom and fmt is not FileFormat.csv:
        raise typer.BadParameter(
            "--bom applies to csv only (xlsx and pdf hold Unicode anyway)", param_hint="--bom"
        )
    writers: dict[FileFormat, Callable[[Document], bytes]] = {
        FileFormat.csv: lambda d: to_csv(d, bom=bom),
        FileFormat.xlsx: to_xlsx,
        FileFormat.pdf: to_pdf,
    }
    try:
        data = writers[fmt](document)
    except FontMissing as exc:
        console.print(f"[red]{exc}[/]")
        raise typer.Exit(1) from None
    target = out or Path(f"{_safe(default_name)}.{fmt.value}")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    pages = f", {len(document.sections)} page(s)/sheet(s)" if document.page_per_section else ""
    console.print(f"wrote {target} ({len(data):,} bytes{pages})", markup=False, highlight=False)


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in name)


def _run(build: Callable[..., T], *args: Any) -> T:
    """Open the store, build the document (or its data); unknown events/players exit 1 with the message.

    An ``s3://`` store is read from this host's reading copy, pulled now."""
    from pipelines.reads.tournament_data import LookupFailed, connect
    from pipelines.storage.remote import readable

    with object_storage_errors(args[0]):
        local = readable(args[0])
    try:
        con = connect(local)
        try:
            return build(con, *args[1:])
        finally:
            con.close()
    except LookupFailed as exc:
        console.print(f"[red]{exc}[/]")
        raise typer.Exit(1) from None


# --- standings ------------------------------------------------------------------------------------


@app.command("standings")
def export_standings(
    event: EventOption,
    stage: StageOption = None,
    round_no: Annotated[
        int | None, typer.Option("--round", "-r", help="After this round (default: the last).", min=1)
    ] = None,
    fmt: FormatOption = FileFormat.pdf,
    out: OutOption = None,
    bom: BomOption = False,
    lang: LangOption = "en",
    store: StoreOption = DEFAULT_STORE,
) -> None:
    """An event's standings after a round: rank, players' names and clubs, every tie-break column."""
    document = _run(standings_document, store, event, stage, round_no, lang)
    _write(document, fmt, out, f"standings-{event}", bom)


# --- a round's results ---------------------------------------------------------------------------------


@app.command("round")
def export_round(
    event: EventOption,
    round_no: Annotated[int, typer.Option("--round", "-r", help="The round.", min=1)],
    stage: StageOption = None,
    fmt: FormatOption = FileFormat.pdf,
    out: OutOption = None,
    bom: BomOption = False,
    lang: LangOption = "en",
    store: StoreOption = DEFAULT_STORE,
) -> None:
    """A round's results table by table: both pairs with clubs, final levels, winner, points, the bye."""
    document = _run(round_document, store, event, stage, round_no, lang)
    _write(document, fmt, out, f"round-{event}-r{round_no}", bom)


# --- dan ledgers and player sheets -----------------------------------------------------------------------


@app.command("dan-ledger")
def export_dan(
    players: PlayersArgument = None,
    event: Annotated[str | None, typer.Option("--event", "-e", help="The players of this event.")] = None,
    fmt: FormatOption = FileFormat.pdf,
    out: OutOption = None,
    bom: BomOption = False,
    lang: LangOption = "en",
    store: StoreOption = DEFAULT_STORE,
) -> None:
    """Dan certificates: per player one page (pdf) or sheet (xlsx) with the current amateur dan,
    progress to the next one and every bcta round of the ledger (§S5). csv: the ledgers in one table."""
    document = _run(dan_document, store, players, event, lang)
    _write(document, fmt, out, f"dan-ledger-{_only(players) or event or 'all'}", bom)


@app.command("player")
def export_player(
    players: PlayersArgument = None,
    event: Annotated[
        str | None, typer.Option("--event", "-e", help="Only this event's matches and players.")
    ] = None,
    fmt: FormatOption = FileFormat.pdf,
    out: OutOption = None,
    bom: BomOption = False,
    lang: LangOption = "en",
    store: StoreOption = DEFAULT_STORE,
) -> None:
    """Player sheets: per player one page (pdf) or sheet (xlsx): name, club, dan, rating and every match."""
    document = _run(player_document, store, players, event, lang)
    one = _only(players)
    _write(document, fmt, out, f"player-{one}" if one else f"players-{event or 'all'}", bom)


# --- table slips ------------------------------------------------------------------------------------------


@app.command("slips")
def export_slips(
    event: EventOption,
    round_no: Annotated[int, typer.Option("--round", "-r", help="The round to seat.", min=1)],
    base_url: Annotated[
        str,
        typer.Option(
            "--base-url",
            help="Address of the dashboards as the tables' tablets reach it, e.g. http://10.0.0.5:8501.",
        ),
    ],
    stage: StageOption = None,
    deals: Annotated[
        int | None,
        typer.Option(
            help="Blank deal lines on each slip (default: the registered round format's deals, else 12).",
            min=1,
            max=20,
        ),
    ] = None,
    tokens: Annotated[
        bool,
        typer.Option(
            "--tokens/--no-tokens",
            help="Print a new table token per table (QR code of its link, and its PIN; the round's "
            "earlier tokens of those tables are revoked); --no-tokens: the plain entry link, for "
            "a referee's login.",
        ),
    ] = True,
    valid_hours: Annotated[float, typer.Option(help="Tokens: hours until they expire.", min=0.1)] = 6.0,
    issued_by: Annotated[str, typer.Option("--by", help="Tokens: who issues them (recorded).")] = "cli",
    out: OutOption = None,
    lang: LangOption = "en",
    store: StoreOption = DEFAULT_STORE,
) -> None:
    """Table slips (PDF, one A4 page per table): event, round, table number, both pairs with names
    and seats, blank deal lines, and a QR code of the table's results-entry link: a new table
    token's link (BASE/entry?token=…) with its PIN printed, or with --no-tokens the plain
    BASE/entry?event=…&stage=…&round=…&table=… (entering then needs a referee's login).

    The tables are the round's draw in the event registry (the results-entry page's events),
    else its stored matches when it has results, else its pairing (`gdan pair`, from the
    standings after the round before).
    """
    from printouts.pdf import FontMissing, find_cjk_font
    from printouts.slips import TableSlip, entry_link, to_slips_pdf

    if not base_url.startswith(("http://", "https://")):
        raise typer.BadParameter(
            "expected an address starting with http:// or https://", param_hint="--base-url"
        )
    drawn = _drawn_seats(store, event, round_no)
    title, stage_name, tables, planned = drawn or (*_run(_round_seats, store, event, stage, round_no), None)
    try:
        font = find_cjk_font()  # before any token is issued (and the round's earlier ones revoked)
    except FontMissing as exc:
        console.print(f"[red]{exc}[/]")
        raise typer.Exit(1) from None
    access = (
        _token_access(
            store, event, stage_name, round_no, [t for t, _, _ in tables], base_url, issued_by, valid_hours
        )
        if tokens
        else {t: (entry_link(base_url, event, stage_name, round_no, t), None) for t, _, _ in tables}
    )
    slips = [
        TableSlip(
            event=title,
            stage=stage_name,
            round_no=round_no,
            table=table,
            seats=seats,
            link=access[table][0],
            pin=access[table][1],
            deals=deals or planned or 12,
            duplicate=room,
        )
        for table, seats, room in tables
    ]
    data = to_slips_pdf(slips, lang, font)
    target = out or Path(f"{_safe(f'slips-{event}-r{round_no}')}.pdf")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    console.print(
        f"wrote {target} ({len(data):,} bytes, {len(slips)} table(s))", markup=False, highlight=False
    )


def _token_access(
    store: Path,
    event: str,
    stage: str | None,
    round_no: int,
    tables: list[str],
    base_url: str,
    issued_by: str,
    valid_hours: float,
) -> dict[str, tuple[str, str | None]]:
    """A new table token per table (:mod:`service.tokens`): its entry link and PIN, by table."""
    from datetime import timedelta

    from service.tokens import entry_link, issue_round_tokens

    named = [t for t in tables if not t.isdigit() or int(t) < 1]
    if named:
        raise typer.BadParameter(
            f"tables {', '.join(named)} are not numbered: table tokens need table numbers 1, 2, …",
            param_hint="--no-tokens",
        )
    issued = issue_round_tokens(
        store, event, stage or "", round_no, [int(t) for t in tables], issued_by, timedelta(hours=valid_hours)
    )
    return {str(t.table): (entry_link(base_url, t), t.pin) for t in issued}


Seated = list[tuple[str, dict[str, str], dict[str, str] | None]]
"""Per table in table order: its number, the players as printed by seat, and a duplicate round's
board and room (``board``, ``room``; None for another round)."""


def _drawn_seats(store: Path, event: str, round_no: int) -> tuple[str, str | None, Seated, int | None] | None:
    """The round's tables as the event registry drew them (names by seat, in table order, with a
    duplicate round's rooms), with the event's printed name, stage and the deals of its round
    format; None when not drawn."""
    from service import registry

    registered = registry.load(store, event)
    if registered is None or round_no not in registered.rounds:
        return None
    people = registered.players
    draw = registered.rounds[round_no]
    drawn = draw.tables
    tables = [
        (
            table,
            {s: (people[p].name or p) if p in people else p for s, p in drawn[table].items()},
            dict(draw.rooms[table]) if table in draw.rooms else None,
        )
        for table in sorted(drawn, key=_table_order)
    ]
    deals = registered.format.get("deals")
    return registered.name or event, registered.stage, tables, deals if isinstance(deals, int) else None


def _table_order(table: str) -> tuple[bool, int, str]:
    """Tables by number, named ones after them."""
    return not table.isdigit(), int(table) if table.isdigit() else 0, table


def _round_seats(con: Any, event: str, stage: str | None, round_no: int) -> tuple[str, str | None, Seated]:
    """The event's printed name, its stage, and per table (in table order) the players' names by
    seat: from the round's stored matches (latest revision), else from its pairing (a duplicate
    round's: each board at its two room tables, as the entry page lists them)."""
    from pipelines.reads.pairing_sheet import KnockoutOptions, duplicate_rooms, pairing_sheet
    from pipelines.reads.tournament_data import LookupFailed, Player, is_duplicate, roster, rows, stage_of

    info = stage_of(con, event, stage)
    names = roster(con)
    played = rows(
        con,
        'SELECT "table", player_E AS E, player_N AS N, player_W AS W, player_S AS S, duplicate_board, '
        "duplicate_room FROM matches WHERE event_id = ? AND stage IS NOT DISTINCT FROM ? AND round = ? "
        'QUALIFY row_number() OVER (PARTITION BY "table" ORDER BY revision DESC) = 1',
        [event, info.stage, round_no],
    )
    rooms: dict[str, dict[str, str]] = {}
    if played:
        seated = {str(r["table"]): {s: r[s] for s in "ENWS"} for r in played}
        rooms = {
            str(r["table"]): {"board": r["duplicate_board"], "room": r["duplicate_room"]}
            for r in played
            if r["duplicate_board"] is not None
        }
    else:
        sheet = pairing_sheet(con, event, info.stage, round_no, None, 0, KnockoutOptions())
        seated = {str(number): seats for number, seats in sheet.seats.items()}
        if is_duplicate(con, info):
            by_room = duplicate_rooms(event, info.stage, round_no, sheet.seats)
            seated = {t: r.seats for t, r in by_room.items()}
            rooms = {t: r.duplicate for t, r in by_room.items()}
    if not seated:
        raise LookupFailed(f"event {event}: no tables in round {round_no} to print slips for")
    order = sorted(seated, key=_table_order)
    tables = [
        (
            table,
            {s: (names.get(p) or Player(p)).label if p else "" for s, p in seated[table].items()},
            rooms.get(table),
        )
        for table in order
    ]
    return info.name or event, info.stage, tables


def _only(players: list[str] | None) -> str | None:
    """The one player named, for the default file name; ``None`` for none or several."""
    return players[0] if players and len(players) == 1 else None


def register(root: typer.Typer) -> None:
    """Add ``gdan export …`` to the `gdan` app."""
    root.add_typer(app)
