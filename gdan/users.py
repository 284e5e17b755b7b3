"""`gdan users …` and `gdan tokens issue`: the accounts and table tokens of the results service.

Accounts (viewer, referee, admin) and tokens live in the store's private folder ``<store>/service/``
(:mod:`service.accounts`, :mod:`service.tokens`), never in its tables. A password is asked twice
on the terminal, or read from standard input with ``--password-stdin`` (for scripts); it is never
an argument, so it stays out of the shell's history and the process list.
"""

from __future__ import annotations

import sys
from datetime import timedelta
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from gdan.pipeline import DEFAULT_STORE, StoreOption
from gdan.render import OutputFormat, Rows, emit, literal
from service import accounts
from service.accounts import AccountError, Role

console = Console(stderr=True)
users_app = typer.Typer(
    name="users",
    help="Accounts of the results service: viewers read, referees enter their events' results, admins "
    "manage. Stored hashed (argon2) in `<store>/service/`, never in a table.",
    no_args_is_help=True,
)
tokens_app = typer.Typer(
    name="tokens",
    help="Table tokens: a link (QR code) and PIN per table that may enter only that table's result "
    "of one round.",
    no_args_is_help=True,
)

NameArgument = Annotated[str, typer.Argument(help="Account name (letters, digits, _ . @ -).")]
PasswordStdin = Annotated[
    bool, typer.Option("--password-stdin", help="Read the password from standard input (one line).")
]


def _password(from_stdin: bool) -> str:
    """The new password: one line of stdin, or typed twice on the terminal (hidden)."""
    if from_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    return str(typer.prompt("Password", hide_input=True, confirmation_prompt=True))


def _fail(exc: Exception) -> typer.Exit:
    console.print(literal(str(exc), "red"))
    return typer.Exit(1)


@users_app.command("add")
def add(
    name: NameArgument,
    role: Annotated[Role, typer.Option(help="viewer (reads), referee (enters results), admin.")] = (
        Role.VIEWER
    ),
    event: Annotated[
        list[str] | None, typer.Option("--event", "-e", help="Assign this event to the referee (repeatable).")
    ] = None,
    password_stdin: PasswordStdin = False,
    store: StoreOption = DEFAULT_STORE,
) -> None:
    """Create an account; the password is prompted twice (or read with --password-stdin)."""
    try:
        accounts.add_account(store, name, _password(password_stdin), role)
        if event:
            accounts.assign(store, name, event)
    except (AccountError, ValueError) as exc:
        raise _fail(exc) from None
    console.print(literal(f"account {name} ({role.value}) added"))


@users_app.command("list")
def list_(store: StoreOption = DEFAULT_STORE) -> None:
    """Every account with its role and the events it referees."""
    rows = [(a.name, a.role.value, ", ".join(sorted(a.events))) for a in accounts.list_accounts(store)]
    emit(Rows(["account", "role", "events"], rows), cell=lambda _c, v: str(v))
    public = "public" if accounts.pages_public(store) else "for logged-in accounts only"
    console.print(literal(f"pages: {public}"))


@users_app.command("remove")
def remove(name: NameArgument, store: StoreOption = DEFAULT_STORE) -> None:
    """Delete an account (its open sessions can no longer write)."""
    try:
        accounts.remove_account(store, name)
    except AccountError as exc:
        raise _fail(exc) from None
    console.print(literal(f"account {name} removed"))


@users_app.command("passwd")
def passwd(
    name: NameArgument, password_stdin: PasswordStdin = False, store: StoreOption = DEFAULT_STORE
) -> None:
    """Set a new password (prompted twice, or read with --password-stdin)."""
    try:
        accounts.set_password(store, name, _password(password_stdin))
    except AccountError as exc:
        raise _fail(exc) from None
    console.print(literal(f"password of {name} changed"))


@users_app.command("role")
def role(
    name: NameArgument,
    new_role: Annotated[Role, typer.Argument(metavar="ROLE", help="viewer, referee or admin.")],
    store: StoreOption = DEFAULT_STORE,
) -> None:
    """Change an account's role."""
    try:
        accounts.set_role(store, name, new_role)
    except AccountError as exc:
        raise _fail(exc) from None
    console.print(literal(f"{name} is now {new_role.value}"))


EventsArgument = Annotated[list[str], typer.Argument(help="Event ids (as in `gdan standings`).")]


@users_app.command("assign")
def assign(name: NameArgument, events: EventsArgument, store: StoreOption = DEFAULT_STORE) -> None:
    """Let the referee enter and correct results of these events."""
    try:
        account = accounts.assign(store, name, events)
    except AccountError as exc:
        raise _fail(exc) from None
    console.print(literal(f"{name} referees {', '.join(sorted(account.events))}"))


@users_app.command("unassign")
def unassign(name: NameArgument, events: EventsArgument, store: StoreOption = DEFAULT_STORE) -> None:
    """Take these events from the referee."""
    try:
        account = accounts.assign(store, name, events, assigned=False)
    except AccountError as exc:
        raise _fail(exc) from None
    console.print(literal(f"{name} referees {', '.join(sorted(account.events)) or 'no event'}"))


@users_app.command("public")
def public(
    is_public: Annotated[bool, typer.Argument(metavar="yes|no", help="yes: anyone may read the pages.",
                                              parser=lambda v: v.lower() in {"yes", "true", "1", "on"})],
    store: StoreOption = DEFAULT_STORE,
) -> None:
    """Whether the pages (standings and statistics) are public, or only for logged-in accounts."""
    accounts.set_pages_public(store, is_public)
    console.print(literal("pages are " + ("public" if is_public else "for logged-in accounts only")))


def parse_tables(text: str) -> list[int]:
    """``"1-4,7"`` → ``[1, 2, 3, 4, 7]``; a ``BadParameter`` for anything else."""
    tables: list[int] = []
    try:
        for part in filter(None, (p.strip() for p in text.split(","))):
            low, _, high = part.partition("-")
            tables.extend(range(int(low), int(high or low) + 1))
    except ValueError:
        raise typer.BadParameter(f"expected table numbers like 1-8 or 1,2,5, got {text!r}") from None
    if not tables or min(tables) < 1:
        raise typer.BadParameter(f"expected table numbers ≥ 1, got {text!r}")
    return sorted(set(tables))


def _paired_tables(store: Path, event: str, stage: str | None, round_no: int) -> list[int]:
    """The tables of the round: as the event registry drew them, else as `gdan pair` seats them; a
    duplicate round's two rooms of each board are two tables (``duplicate_rooms``, as the entry
    page lists them)."""
    from pipelines.reads.pairing_sheet import duplicate_rooms, pairing_sheet
    from pipelines.reads.tournament_data import LookupFailed, connect, is_duplicate, stage_of
    from service import registry

    registered = registry.load(store, event)
    if registered is not None and round_no in registered.rounds:
        return sorted(int(t) for t in registered.rounds[round_no].tables)
    try:
        con = connect(store)
        try:
            sheet = pairing_sheet(con, event, stage, round_no, None, 0)
            if is_duplicate(con, stage_of(con, event, stage)):
                return sorted(int(t) for t in duplicate_rooms(event, stage, round_no, sheet.seats))
        finally:
            con.close()
    except LookupFailed as exc:
        console.print(literal(f"{exc}\nname the tables with --tables (e.g. --tables 1-8)", "red"))
        raise typer.Exit(1) from None
    return sorted(int(t) for t in sheet.seats)


def _event_stage(store: Path, event: str) -> str:
    """The stage an event's results are entered under when none is named: the registry's, else the
    store's only stage of the event (``""`` for an event known to neither), so that a token's
    table is the one the entry page shows."""
    from pipelines.reads.tournament_data import LookupFailed, connect, stage_of
    from service import registry

    registered = registry.load(store, event)
    if registered is not None:
        return registered.stage or ""
    try:
        con = connect(store)
    except LookupFailed:
        return ""
    try:
        return stage_of(con, event, None).stage or ""
    except LookupFailed:
        return ""
    finally:
        con.close()


@tokens_app.command("issue")
def issue(
    event: Annotated[str, typer.Option("--event", "-e", help="Event id.")],
    round_no: Annotated[int, typer.Option("--round", "-r", help="The round (1 = the first).", min=1)],
    stage: Annotated[str | None, typer.Option(help="Stage of the event (when it has several).")] = None,
    tables: Annotated[
        str | None,
        typer.Option(help="Tables, e.g. 1-8 or 1,2,5 (default: the round's tables as `gdan pair` seats "
                     "them)."),
    ] = None,
    base_url: Annotated[
        str, typer.Option(help="The dashboards' address as the tablets reach it.")
    ] = "http://127.0.0.1:8501",
    valid_hours: Annotated[float, typer.Option(help="Hours until the tokens expire.", min=0.1)] = 6.0,
    issued_by: Annotated[str, typer.Option("--by", help="Who issues them (recorded).")] = "cli",
    store: StoreOption = DEFAULT_STORE,
    output: Annotated[
        OutputFormat, typer.Option("--format", "-f", help="Output format (csv/json: links unbroken).")
    ] = OutputFormat.table,
) -> None:
    """Print one entry link (for a QR code) and PIN per table of the round; shown only this once.

    Each may enter only its table's result of this round, once, until it expires (after
    --valid-hours, or when every table of the round is entered). Issuing a table again revokes its
    earlier token.
    """
    from service.tokens import entry_link, issue_round_tokens

    numbers = parse_tables(tables) if tables else _paired_tables(store, event, stage, round_no)
    issued = issue_round_tokens(store, event, _event_stage(store, event) if stage is None else stage,
                                round_no, numbers, issued_by,
                                timedelta(hours=valid_hours))
    rows = [(t.table, t.pin, entry_link(base_url, t), t.expires_at.strftime("%Y-%m-%d %H:%M UTC"))
            for t in issued]
    emit(Rows(["table", "pin", "link", "expires"], rows), output, cell=lambda _c, v: str(v))


def register(app: typer.Typer) -> None:
    """Add `gdan users …` and `gdan tokens …` to the `gdan` app."""
    app.add_typer(users_app)
    app.add_typer(tokens_app)
