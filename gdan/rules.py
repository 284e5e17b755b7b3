"""`gdan rules`: ask the rules engine as a referee would (rules.md §3–§4).

``gdan rules readings --level 2 H2 S5 S6 S7 S8`` lists every reading of a set of cards;
``gdan rules beats --level 7 "<play>" "<table>"`` says whether a play beats the play on the table,
naming the reading pairs that do; ``gdan rules ruleset <id or file>`` shows a ruleset's parameters.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from replay.combos import Combo

rules_app = typer.Typer(
    name="rules",
    help="Rules engine for referees: readings of a set of cards and whether one play beats another.",
    no_args_is_help=True,
    rich_markup_mode="markdown",
)

LevelOpt = Annotated[str, typer.Option("--level", "-l", help="Level rank of the deal: 2-9, T, J, Q, K or A.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON instead of text.")]


def _name(c: Combo) -> str:
    """A reading as people say it: sequences by their span (``straight A2345``), see ``replay.naming``."""
    from replay.naming import combo_name

    return combo_name(c.type, c.rank, c.size)


def _combo_dict(c: Combo) -> dict[str, object]:
    """A reading as JSON: type, rank, size and its §4 bomb class (null for non-bombs)."""
    from replay import bomb_class

    return {"type": c.type, "rank": c.rank, "size": c.size, "bomb_class": bomb_class(c)}


def _fail(message: str) -> None:
    """Print an error on stderr and exit with code 2 (bad input)."""
    from rich.console import Console
    from rich.markup import escape

    Console(stderr=True, soft_wrap=True).print(f"[red]error:[/red] {escape(message)}")
    raise typer.Exit(code=2)


def _declared(found: list[Combo], declared: str | None, side: str) -> list[Combo]:
    """Keep only the declared reading ``TYPE:RANK`` of one side (all readings when None)."""
    if declared is None:
        return found
    type_, _, rank = declared.partition(":")
    kept = [c for c in found if (c.type, c.rank) == (type_, rank)]
    if not kept:
        options = ", ".join(f"{c.type}:{c.rank}" for c in found)
        _fail(f"{declared!r} is not a reading of the {side}; its readings: {options}")
    return kept


@rules_app.command("readings")
def readings_cmd(
    cards: Annotated[list[str], typer.Argument(help="Cards, e.g. H2 S5 S6 S7 S8 (or one quoted string).")],
    level: LevelOpt = "2",
    json_out: JsonOpt = False,
) -> None:
    """List every reading of CARDS as one combination at LEVEL (weakest first); none = not a play."""
    import orjson
    from rich.console import Console
    from rich.markup import escape

    from gdan.render import Rows, emit
    from replay import card_list, readings, wilds_in

    try:
        flat = card_list(" ".join(cards))
        found = readings(flat, level)
    except ValueError as exc:
        _fail(str(exc))
        return
    if json_out:
        payload = {"cards": flat, "level": level, "readings": [_combo_dict(c) for c in found]}
        typer.echo(orjson.dumps(payload).decode())
        return
    console = Console()
    wild = wilds_in(flat, level)
    head = f"{' '.join(flat)} at level {level}" + (f" ({wild} wild)" if wild else "")
    if not found:
        console.print(f"{escape(head)}: [bold red]not a combination[/bold red]")
        raise typer.Exit(code=1)
    rows = [(_name(c), c.type, c.rank, c.size, _combo_dict(c)["bomb_class"]) for c in found]
    emit(Rows(["reading", "type", "rank", "size", "bomb class"], rows), title=head, keep=("reading",))


@rules_app.command("beats")
def beats_cmd(
    play: Annotated[str, typer.Argument(help='The play, space-separated cards in quotes, e.g. "S9 S9".')],
    table: Annotated[str, typer.Argument(help='The last play of the trick, e.g. "D8 C8".')],
    level: LevelOpt = "2",
    play_as: Annotated[
        str | None, typer.Option("--as", help="Declared reading of PLAY as TYPE:RANK, e.g. straight:4.")
    ] = None,
    table_as: Annotated[
        str | None, typer.Option("--table-as", help="Declared reading of TABLE as TYPE:RANK, e.g. tube:6.")
    ] = None,
    json_out: JsonOpt = False,
) -> None:
    """Say whether PLAY beats TABLE at LEVEL (rules.md §4), listing the reading pairs that beat.

    Without --as/--table-as every reading of each side is considered. Exit code 0 when some
    reading of PLAY beats some reading of TABLE, 1 when none does, 2 on bad input.
    """
    import orjson
    from rich.console import Console

    from replay import beats, card_list, readings

    try:
        play_cards, table_cards = card_list(play), card_list(table)
        play_r, table_r = readings(play_cards, level), readings(table_cards, level)
    except ValueError as exc:
        _fail(str(exc))
        return
    for name, cards, found in (("play", play_cards, play_r), ("table", table_cards, table_r)):
        if not found:
            _fail(f"{name} {' '.join(cards)} is not a combination at level {level}")
    play_r = _declared(play_r, play_as, "play")
    table_r = _declared(table_r, table_as, "table")
    pairs = [(p, t) for p in play_r for t in table_r if beats(p, t, level)]
    if json_out:
        payload = {
            "play": play_cards,
            "table": table_cards,
            "level": level,
            "beats": bool(pairs),
            "play_readings": [_combo_dict(c) for c in play_r],
            "table_readings": [_combo_dict(c) for c in table_r],
            "beating_pairs": [{"play": _combo_dict(p), "table": _combo_dict(t)} for p, t in pairs],
        }
        typer.echo(orjson.dumps(payload).decode())
    else:
        console = Console()
        verdict = "[bold green]beats[/bold green]" if pairs else "[bold red]does not beat[/bold red]"
        console.print(f"{' '.join(play_cards)} {verdict} {' '.join(table_cards)} at level {level}")
        for p in play_r:
            for t in table_r:
                mark = "beats" if (p, t) in pairs else "does not beat"
                console.print(f"  {_name(p)} {mark} {_name(t)}")
    if not pairs:
        raise typer.Exit(code=1)


@rules_app.command("ruleset")
def ruleset_cmd(
    source: Annotated[
        str,
        typer.Argument(
            help="A built-in ruleset id (national, huaian, bcta, jiangsu, …) or a .toml/.json ruleset file."
        ),
    ],
    json_out: JsonOpt = False,
) -> None:
    """Show every parameter of a ruleset; checks a custom ruleset file (unknown keys are errors)."""
    from dataclasses import asdict

    import orjson

    from gdan.render import Rows, emit
    from simulator.api import resolve_rules

    try:
        ruleset = resolve_rules(source)
    except (KeyError, ValueError, OSError) as exc:
        _fail(str(exc.args[0] if isinstance(exc, KeyError) else exc))
        return
    data = asdict(ruleset)
    if json_out:
        typer.echo(orjson.dumps(data).decode())
        return
    rows: list[tuple[str, str]] = []
    for key, value in data.items():
        if isinstance(value, dict):
            rows += [(f"{key}.{sub}", str(v)) for sub, v in value.items()]
        elif key not in ("id", "name"):
            rows.append((key, str(value)))
    emit(
        Rows(["parameter", "value"], rows), title=f"ruleset {ruleset.id}: {ruleset.name}", keep=("parameter",)
    )


def register(app: typer.Typer) -> None:
    """Add the ``rules`` command group to the `gdan` app."""
    app.add_typer(rules_app, name="rules")
