"""The one output renderer of every `gdan` table: a rich table, csv or json.

Every command that prints rows (``sql``, ``run``'s summary, ``standings``, ``dan``, ``ratings``,
``rules``) builds a :class:`Rows` and calls :func:`emit`, so they share one behaviour:

- csv (with a header) and json (a list of objects) always carry every column, values as queried;
- a rich table loses whole columns rather than cutting every cell short when it is wider than
  the terminal, and a note on stderr names the hidden columns;
- every cell, header and title is shown literally: a player called ``[bold]`` or a file named
  ``[/]`` is text, never rich markup (which would restyle the table or raise ``MarkupError``).

Rich is imported inside the functions so that ``gdan --help`` stays fast.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table


class OutputFormat(StrEnum):
    """The ``--format`` choices of the commands that print rows."""

    table = "table"
    csv = "csv"
    json = "json"


@dataclass(frozen=True)
class Rows:
    """A query result: column names and row tuples."""

    columns: list[str]
    rows: list[tuple[Any, ...]]

    def records(self) -> list[dict[str, Any]]:
        """The rows as dicts by column name."""
        return [dict(zip(self.columns, r, strict=True)) for r in self.rows]

    def without(self, names: Sequence[str]) -> Rows:
        """The same rows without the named columns."""
        keep = [i for i, c in enumerate(self.columns) if c not in names]
        return Rows([self.columns[i] for i in keep], [tuple(r[i] for i in keep) for r in self.rows])

    def all_zero(self, name: str) -> bool:
        """Whether column ``name`` holds only zeros and nulls."""
        i = self.columns.index(name)
        return not any(r[i] for r in self.rows)


CellFormat = Callable[[str, Any], str]
"""How a value of a column is shown in a rich table: ``(column, value) -> text``."""


def tidy_cell(column: str, value: Any) -> str:
    """A value for reading: nulls as a dash, yes/no, floats rounded to 2 places, dates, lists joined."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.2f}".rstrip("0").rstrip(".") if value != int(value) else f"{value:.0f}"
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d")
    if isinstance(value, list):
        return ",".join(map(str, value))
    return str(value)


def raw_cell(column: str, value: Any) -> str:
    """A value exactly as queried (``gdan sql``): NULL for nulls, else its ``str``."""
    return "NULL" if value is None else str(value)


def stdout_console() -> Console:
    """A console on the current ``sys.stdout`` (tables, the commands' answers)."""
    from rich.console import Console

    return Console()


def stderr_console() -> Console:
    """A console on stderr (progress, notes and errors, so stdout stays the answer alone)."""
    from rich.console import Console

    return Console(stderr=True)


def progress_bar(console: Console, *, label_width: int = 16, transient: bool = False) -> Progress:
    """The commands' progress bar: the stage, a bar, done of total, the time taken."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn(f"{{task.description:<{label_width}}}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=transient,
    )


def emit(
    result: Rows,
    output: OutputFormat = OutputFormat.table,
    *,
    title: str = "",
    labels: Mapping[str, str] | None = None,
    cell: CellFormat = tidy_cell,
    keep: Sequence[str] = (),
    drop_first: Sequence[str] = (),
    limit: int = 0,
    empty_note: str = "",
    out: Console | None = None,
) -> None:
    """Write ``result`` to stdout as a rich table, csv (with a header) or a json list of objects.

    csv: text that a spreadsheet would read as a formula is marked as text (:mod:`printouts.cells`).

    Table only: ``labels`` gives short headers, ``cell`` formats values, ``limit`` caps the rows
    shown (a note says how many there are). A table wider than the terminal loses whole
    columns: first ``drop_first`` in that order, then the others from the right, never
    ``keep``. ``empty_note`` is printed on stderr when there are no rows; ``out`` replaces the
    stdout console (``gdan run`` prints its summary on stderr).
    """
    if output is OutputFormat.csv:
        import csv

        from printouts.cells import csv_safe

        writer = csv.writer(sys.stdout)
        writer.writerow([csv_safe(c) for c in result.columns])
        writer.writerows([csv_safe(v) for v in row] for row in result.rows)
        return
    if output is OutputFormat.json:
        write_json(result.records())
        return
    console = out or stdout_console()
    notes = stderr_console()
    names = dict(labels or {})
    shown_rows = result.rows[: limit or None]
    cells = [[cell(c, v) for c, v in zip(result.columns, row, strict=True)] for row in shown_rows]
    shown = list(result.columns)
    order = dict.fromkeys((*drop_first, *reversed(shown)))
    droppable = [c for c in order if c in shown and c not in keep]
    table = _table(result, shown, cells, title, names)
    while droppable and len(shown) > 1 and natural_width(console, table) > console.width:
        shown.remove(droppable.pop(0))
        table = _table(result, shown, cells, title, names)
    console.print(table)
    hidden = [names.get(c, c) for c in result.columns if c not in shown]
    if hidden:
        notes.print(
            literal(
                f"{len(hidden)} column(s) hidden to fit {console.width} characters: "
                f"{', '.join(hidden)} (widen the terminal, or --format csv|json)",
                "dim",
            )
        )
    if limit and len(result.rows) > limit:
        notes.print(f"{len(result.rows)} rows, {limit} shown (--limit 0 for all)")
    if not result.rows and empty_note:
        notes.print(literal(empty_note))


def _table(
    result: Rows, shown: Sequence[str], cells: list[list[str]], title: str, labels: Mapping[str, str]
) -> Table:
    """The rich table of the ``shown`` columns: light rules, no outer padding, numbers right-aligned."""
    from rich import box
    from rich.table import Column, Table
    from rich.text import Text

    index = [result.columns.index(c) for c in shown]
    headers = [
        Column(Text(labels.get(c, c)), justify="right" if _numeric(result, i) else "left")
        for c, i in zip(shown, index, strict=True)
    ]
    table = Table(
        *headers,
        title=Text(title) if title else None,
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        collapse_padding=True,
    )
    for row in cells:
        table.add_row(*(Text(row[i]) for i in index))
    return table


def _numeric(result: Rows, i: int) -> bool:
    """Whether column ``i`` holds numbers (and nulls) only."""
    values = [r[i] for r in result.rows if r[i] is not None]
    return bool(values) and all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)


def natural_width(console: Console, table: Table) -> int:
    """Characters ``table`` needs to show every cell on one line."""
    from rich.measure import Measurement

    return Measurement.get(console, console.options.update_width(1_000_000), table).maximum


def write_json(data: object) -> None:
    """Write ``data`` to stdout as indented JSON (values orjson does not know as strings)."""
    import orjson

    sys.stdout.write(orjson.dumps(data, default=str, option=orjson.OPT_INDENT_2).decode() + "\n")


def literal(text: str, style: str = "") -> Any:
    """``text`` as a rich ``Text``: printed exactly as written, never parsed as markup."""
    from rich.text import Text

    return Text(text, style=style)
