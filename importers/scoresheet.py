"""Convert a tournament day's score sheet (one row per deal) to event format v1 (events.md).

Associations play at physical tables and write down only each deal's result. Each match of
the sheet becomes a match of **results-only deals** (events.md "Results-only deals"):
``match_start``; per deal a ``deal_start`` without hands, no play or pass, and a ``deal_end``
with the finishing order and the teams' levels after the deal; ``match_end``. Levels,
declarers, A attempts and failures and the match's end and winner are derived here by
rules.md §2, §5.8 and §7 under the match's ruleset; the replay derives them again and
cross-checks every one.

**Columns** (header row, case-insensitive; docs/scoresheet.md has an example sheet):

- ``event``, ``round``, ``table``, ``deal`` — required; a match is one (event, stage, round,
  table); its deals are numbered 1, 2, … without gaps (rows may come in any order);
- the players: ``E``, ``N``, ``W``, ``S`` (a player id per seat), or ``EW`` and ``NS`` (two
  pairs, ``p017/p102``: the first player sits E or N, the second W or S);
- the result: ``order`` (seats, or player ids, by finishing position: ``E N W S``, ``ENW``,
  ``E W`` after a double win), or ``winner`` (the seat or player id that went out first) and
  ``partner_place`` (2, 3 or 4). The sheet does not say in which order the two opponents
  finished after a 3rd or 4th place of the partner, so they are listed in play order after
  the winner (no level, score or dan point depends on it);
- optional: ``time`` (when the deal started: ``2026-06-18 13:05``, naive times are in the
  ``tz`` given; a date alone, ``2026-06-18`` or an Excel date cell, is 00:00 of that day
  in ``tz``, so the match's local date is the sheet's), ``rules`` (ruleset id), ``format``
  (``until_a``, ``deals:N``, ``timed:MINUTES``, ``timed_deals:MINUTES:N``; default: the
  ruleset's), ``match`` (match id; default ``<event>-r<round>-t<table>``, with ``-<stage>``
  after the event when given), ``event_name``, ``stage``.

Every fault is reported with the sheet's row number (the header is row 1) and the column, as
``file:row:column: expected …``; the whole sheet is checked and all faults are raised together
in one :class:`ScoreSheetError`, so nothing is half-imported. Reading ``.csv`` (UTF-8, or the
GB18030 that Excel writes on Chinese systems) and ``.xlsx`` happens at the edge
(:func:`read_sheet`: a workbook's formula is read as its saved result; merged cells and
formulas without a usable result are refused, naming the sheet and cell); :func:`convert_rows`
is a pure function of the cells.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone, tzinfo
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

from importers.common import EventWriter
from importers.errors import ConversionError
from schemas.vocabulary import NEXT, PARTNER, PREV, RANKS, SEATS, TEAM, TEAM_SEATS, TEAMS

if TYPE_CHECKING:
    from replay.rulesets import RoundFormat, Ruleset

CHINA = timezone(timedelta(hours=8))

REQUIRED = ("event", "round", "table", "deal")
SEAT_COLUMNS = tuple(s.lower() for s in SEATS)
PAIR_COLUMNS = ("ew", "ns")
RESULT_COLUMNS = ("order", "winner", "partner_place")
OPTIONAL = ("time", "rules", "format", "match", "event_name", "stage")
COLUMNS = (*REQUIRED, *SEAT_COLUMNS, *PAIR_COLUMNS, *RESULT_COLUMNS, *OPTIONAL)
"""Every column a score sheet may have (header names, lower case)."""
ROSTER_COLUMNS = ("id", "name", "club")
"""Columns of a roster (the ``players`` sheet of a workbook, or ``--roster``)."""

_MATCH_COLUMNS = ("rules", "format", "event_name", *SEAT_COLUMNS, *PAIR_COLUMNS)
"""Cells that describe the match, not the deal: every row of a match must agree."""
_PARTNER_PLACES = (2, 3, 4)
"""The places the 1st-place player's partner may take (rules.md §5.5)."""
_SEAT_LETTERS = re.compile(r"^[ENWSenws][ENWSenws\s,;>/\-]*$")
_TOKENS = re.compile(r"[\s,;>/、，]+")
_PAIR_SPLIT = re.compile(r"\s*[/&+、，,]\s*")

Cell = Any
"""A cell as read: str, int, float, datetime or None (blank)."""


class ScoreSheetError(ConversionError):
    """Every fault of one score sheet; ``problems`` holds each, located by row and column."""

    def __init__(self, problems: Sequence[ConversionError]) -> None:
        first = problems[0]
        super().__init__(first.path, first.line, first.field, first.expected, first.got)
        self.problems = list(problems)
        self.args = ("\n".join(str(p) for p in self.problems),)


@dataclass(frozen=True, slots=True)
class Sheet:
    """A score sheet as read from its file: header names and the data rows with their row numbers."""

    path: Path
    header: tuple[str, ...]
    rows: tuple[tuple[int, tuple[Cell, ...]], ...]
    roster: dict[str, dict[str, str]] = field(default_factory=dict)
    """Players' names and clubs from the workbook's ``players`` sheet (id → {name, club})."""


# --- reading (the edge) ---------------------------------------------------------------------------


def read_sheet(path: Path) -> Sheet:
    """Read a ``.csv`` or ``.xlsx`` score sheet (a workbook's ``deals`` sheet, else its first sheet;
    its ``players`` sheet, when present, is the roster)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".xlsx":
        with _workbook(path) as book:
            names = ["deals" if "deals" in book.sheetnames else None]
            (header, rows), *players = _sheets_rows(
                path, book, names + ["players"] * ("players" in book.sheetnames)
            )
            roster = _roster(path, *players[0]) if players else {}
        return Sheet(path, header, rows, roster)
    if suffix in (".csv", ".tsv"):
        return Sheet(path, *_read_csv_rows(path))
    raise ConversionError(
        path, None, None, "a score sheet ending in .csv or .xlsx", path.suffix or "no suffix"
    )


def read_roster(path: Path) -> dict[str, dict[str, str]]:
    """Names and clubs from a roster file: ``.csv``, or ``.xlsx`` (its ``players`` sheet, else the
    first), with the columns ``id``, ``name``, ``club``."""
    path = Path(path)
    if path.suffix.lower() != ".xlsx":
        return _roster(path, *_read_csv_rows(path))
    with _workbook(path) as book:
        ((header, rows),) = _sheets_rows(path, book, ["players" if "players" in book.sheetnames else None])
    return _roster(path, header, rows)


Rows = tuple[tuple[int, tuple[Cell, ...]], ...]
"""Data rows with their 1-based row numbers in the sheet (the header is row 1)."""


def _read_csv_rows(path: Path) -> tuple[tuple[str, ...], Rows]:
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        try:
            text = data.decode("gb18030")
        except UnicodeDecodeError:
            raise ConversionError(path, None, None, "a text file in UTF-8 or GB18030") from None
    first = text.split("\n", 1)[0]
    delimiter = "\t" if "\t" in first else ";" if first.count(";") > first.count(",") else ","
    lines = list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))
    if not lines:
        raise ConversionError(path, 1, None, "a header row naming the columns (the file is empty)")
    rows = tuple((i, tuple(_blank(c) for c in line)) for i, line in enumerate(lines[1:], start=2))
    return tuple(lines[0]), rows


@dataclass(frozen=True, slots=True)
class _Book:
    """A workbook opened twice: ``values`` holds what each cell shows (a formula's saved result),
    ``cells`` what was typed (formulas as such, and the merged ranges)."""

    values: Any
    cells: Any

    @property
    def sheetnames(self) -> list[str]:
        return list(self.values.sheetnames)

    def sheet(self, name: str | None = None) -> tuple[Any, Any]:
        """The named worksheet (default: the first) as (values, typed cells)."""
        title = name or self.values.sheetnames[0]
        return self.values[title], self.cells[title]


@contextmanager
def _workbook(path: Path) -> Iterator[_Book]:
    """The workbook (see :class:`_Book`); a damaged file is a :class:`ConversionError`."""
    import openpyxl

    try:
        book = _Book(openpyxl.load_workbook(path, data_only=True), openpyxl.load_workbook(path))
    except Exception as exc:  # a damaged file raises zipfile, KeyError or openpyxl errors
        raise ConversionError(path, None, None, "an Excel workbook (.xlsx)", type(exc).__name__) from None
    try:
        yield book
    finally:
        book.values.close()
        book.cells.close()


def _sheets_rows(path: Path, book: _Book, names: Sequence[str | None]) -> list[tuple[tuple[str, ...], Rows]]:
    """Header and data rows of each named worksheet (``None``: the first). Merged cells and
    formulas without a usable saved result (:func:`_cell_faults`) of all of them are raised
    together, each naming the sheet and cell."""
    read: list[tuple[tuple[str, ...], Rows]] = []
    faults: list[ConversionError] = []
    for name in names:
        values, cells = book.sheet(name)
        lines = [tuple(row) for row in values.iter_rows(values_only=True)]
        if not lines:
            raise ConversionError(
                path, 1, None, f"a header row naming the columns (sheet {values.title!r} is empty)"
            )
        header = tuple("" if h is None else str(h) for h in lines[0])
        faults += _cell_faults(path, header, values, cells)
        read.append(
            (header, tuple((i, tuple(_blank(c) for c in line)) for i, line in enumerate(lines[1:], start=2)))
        )
    if faults:
        raise ScoreSheetError(faults)
    return read


def _cell_faults(path: Path, header: Sequence[str], values: Any, cells: Any) -> list[ConversionError]:
    """The cells a sheet cannot be read from, each at ``file:row:column`` with the sheet and cell.

    A merged range shows its value in its first cell only, so the rows below would silently
    lose it; a formula is read as the result Excel saved with it (what the sheet shows), but a
    formula without one (a workbook written by a program and never opened in a spreadsheet),
    or whose result is an error such as ``#REF!``, has no value to read.
    """

    def column(index: int) -> str:
        return header[index - 1] if index <= len(header) and header[index - 1] else f"column {index}"

    where = f"sheet {values.title!r}"
    faults = [
        ConversionError(
            path,
            merged.min_row,
            column(merged.min_col),
            f"one value per cell ({where}: cells {merged.coord} are merged; unmerge them and "
            "write the value into every cell)",
        )
        for merged in sorted(cells.merged_cells.ranges, key=lambda r: (r.min_row, r.min_col))
    ]
    for row in cells.iter_rows():
        for typed in row:
            if typed.data_type != "f":
                continue
            shown = values[typed.coordinate]
            if shown.value is None:
                expected = "a value, not a formula without a saved result"
                advice = "open and save the workbook in a spreadsheet program, or paste the values"
                faults.append(
                    ConversionError(
                        path,
                        typed.row,
                        column(typed.column),
                        f"{expected} ({where}, cell {typed.coordinate}: {advice})",
                        str(typed.value),
                    )
                )
            elif shown.data_type == "e":
                faults.append(
                    ConversionError(
                        path,
                        typed.row,
                        column(typed.column),
                        f"a value ({where}, cell {typed.coordinate}: the formula {typed.value} "
                        "gives an error)",
                        shown.value,
                    )
                )
    return faults


def _blank(value: Cell) -> Cell:
    return None if isinstance(value, str) and not value.strip() else value


def _roster(
    path: Path, header: Sequence[str], rows: Iterable[tuple[int, Sequence[Cell]]]
) -> dict[str, dict[str, str]]:
    names = [_column_name(h) for h in header]
    if "id" not in names:
        raise ConversionError(
            path, 1, None, f"a roster header with the columns {', '.join(ROSTER_COLUMNS)}", header
        )
    roster: dict[str, dict[str, str]] = {}
    for _, cells in rows:
        record = {n: _text(c) for n, c in zip(names, cells, strict=False) if n in ROSTER_COLUMNS}
        player = record.get("id")
        if player:
            roster[player] = {k: v for k in ("name", "club") if (v := record.get(k))}
    return roster


# --- conversion (pure) ----------------------------------------------------------------------------


@dataclass(slots=True)
class _Deal:
    row: int
    cells: dict[str, Cell]
    number: int
    order: list[str] | None = None
    time: datetime | None = None


@dataclass(slots=True)
class _Match:
    """The rows of one match, collected before its deals are derived."""

    key: tuple[str, str | None, int, str]
    match_id: str
    first_row: int
    cells: dict[str, Cell]
    seats: dict[str, str] | None = None
    deals: list[_Deal] = field(default_factory=list)
    revision: int = 1
    """The correction's number every match of the import carries (``MatchSpec.revision``)."""


class _Problems:
    """Collects every fault of a sheet, each at ``file:row:column``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.items: list[ConversionError] = []

    def add(self, row: int, column: str | None, expected: str, got: object = None) -> None:
        self.items.append(ConversionError(self.path, row, column, expected, got))


def convert_scoresheet(
    path: Path,
    rules: str | Ruleset | None = None,
    round_format: str | None = None,
    tz: tzinfo | None = None,
    roster: Mapping[str, Mapping[str, str]] | None = None,
    revision: int = 1,
) -> list[dict[str, Any]]:
    """Read a score sheet file and convert it (see :func:`convert_rows`); ``roster`` adds to the
    workbook's own ``players`` sheet."""
    sheet = read_sheet(path)
    return convert_rows(sheet, rules, round_format, tz, {**sheet.roster, **(roster or {})}, revision)


def convert_rows(
    sheet: Sheet,
    rules: str | Ruleset | None = None,
    round_format: str | None = None,
    tz: tzinfo | None = None,
    roster: Mapping[str, Mapping[str, str]] | None = None,
    revision: int = 1,
) -> list[dict[str, Any]]:
    """The events of every match of ``sheet``, matches in order of their first row.

    ``rules`` (a ruleset id or a custom :class:`Ruleset`) and ``round_format`` apply where the
    sheet has no ``rules`` / ``format`` cell. ``roster`` (player id → name, club) fills
    ``match_start.players``. Naive times are in ``tz`` (default: China, UTC+8). A ``revision``
    above 1 makes every match a correction (``match_start.revision``, docs/event-extensions.md):
    it replaces the lower revisions of the same match ids once ingested. Raises
    :class:`ScoreSheetError` listing every fault, ``ValueError`` for a revision below 1.
    """
    from replay.rulesets import BUILTIN, Ruleset

    if isinstance(revision, bool) or not isinstance(revision, int) or revision < 1:
        raise ValueError(f"a revision is an integer ≥ 1, got {revision!r}")

    problems = _Problems(sheet.path)
    rulesets: dict[str, Ruleset] = dict(BUILTIN)
    if isinstance(rules, Ruleset):
        rulesets[rules.id] = rules
        rules = rules.id
    names = _check_header(sheet.header, problems, has_rules=rules is not None)
    if problems.items:
        raise ScoreSheetError(problems.items)
    matches, orphans = _collect(sheet, names, problems, revision)
    # A row that belongs to no match (a bad event, round, table or deal cell) leaves a gap in some
    # match's deals: then the cells are still checked, but deal numbers and results are not derived.
    whole = not orphans
    events: list[dict[str, Any]] = []
    seen_players: dict[tuple[str, int, str], tuple[int, str]] = {}
    for match in matches:
        _check_players(match, seen_players, problems)
        events += _match_events(
            match, rulesets, rules, round_format, tz or CHINA, roster or {}, problems, whole
        )
    if problems.items:
        raise ScoreSheetError(sorted(problems.items, key=lambda p: p.line or 0))
    return events


def default_match_id(event: str, stage: str | None, round_no: int, table: str) -> str:
    """``<event>-r<round>-t<table>``, with ``-<stage>`` after the event when given."""
    return "-".join(p for p in (event, stage, f"r{round_no}", f"t{table}") if p is not None)


def _display(name: str) -> str:
    """A column as the sheet's header shows it: seats and pairs in capitals."""
    return name.upper() if name in SEAT_COLUMNS + PAIR_COLUMNS else name


def _column_name(header: str) -> str:
    return re.sub(r"[\s\-]+", "_", header.strip().lower())


def _check_header(header: Sequence[str], problems: _Problems, has_rules: bool) -> list[str]:
    names = [_column_name(h) for h in header]
    for name, raw in zip(names, header, strict=True):
        if name and name not in COLUMNS:
            problems.add(1, raw, f"one of the columns {', '.join(map(_display, COLUMNS))}", raw)
    for name in [n for n in dict.fromkeys(names) if n and names.count(n) > 1]:
        problems.add(1, name, "each column once", f"{names.count(name)} columns")
    present = set(names)
    for name in REQUIRED:
        if name not in present:
            problems.add(1, name, "this column (required)")
    by_seat, by_pair = set(SEAT_COLUMNS) & present, set(PAIR_COLUMNS) & present
    if by_seat and by_pair:
        problems.add(1, "EW", "the players either by seat (E, N, W, S) or as pairs (EW, NS), not both")
    elif by_seat != set(SEAT_COLUMNS) and by_pair != set(PAIR_COLUMNS):
        missing = sorted(set(SEAT_COLUMNS) - by_seat) if by_seat else sorted(set(PAIR_COLUMNS) - by_pair)
        column = missing[0].upper() if by_seat or by_pair else "E"
        problems.add(1, column, "the players: columns E, N, W, S, or EW and NS")
    if "order" not in present and not {"winner", "partner_place"} <= present:
        problems.add(1, "order", "the result: an order column, or winner and partner_place")
    if not has_rules and "rules" not in present:
        problems.add(1, "rules", "a rules column, or the ruleset given with --rules")
    return names


def _collect(
    sheet: Sheet, names: list[str], problems: _Problems, revision: int
) -> tuple[list[_Match], int]:
    """Group the rows into matches by their event, round, table and deal cells; also return how
    many rows could not be placed in a match."""
    orphans = 0
    matches: dict[str, _Match] = {}
    keys: dict[tuple[str, str | None, int, str], str] = {}
    for row, raw in sheet.rows:
        if all(c is None for c in raw):
            continue
        if len(raw) > len(names) and any(c is not None for c in raw[len(names) :]):
            problems.add(row, None, f"at most {len(names)} cells (as many as the header names)", len(raw))
        cells = {n: (raw[i] if i < len(raw) else None) for i, n in enumerate(names) if n}
        event = _required_text(cells, "event", row, problems)
        round_no = _positive(cells, "round", row, problems)
        table = _required_text(cells, "table", row, problems)
        deal_no = _positive(cells, "deal", row, problems)
        if event is None or round_no is None or table is None or deal_no is None:
            orphans += 1
            continue
        stage = _text(cells.get("stage"))
        key = (event, stage, round_no, table)
        match_id = _text(cells.get("match")) or default_match_id(event, stage, round_no, table)
        if match_id in matches and matches[match_id].key != key:
            problems.add(
                row,
                "match",
                f"a match id not used by another match (row {matches[match_id].first_row})",
                match_id,
            )
            orphans += 1
            continue
        if key in keys and keys[key] != match_id:
            problems.add(row, "match", f"the same match id as row {matches[keys[key]].first_row}", match_id)
            orphans += 1
            continue
        keys[key] = match_id
        match = matches.get(match_id)
        if match is None:
            match = matches[match_id] = _Match(key, match_id, row, cells, revision=revision)
        else:
            for name in _MATCH_COLUMNS:
                if name in cells and _text(cells[name]) != _text(match.cells.get(name)):
                    problems.add(
                        row,
                        _display(name),
                        f"the same value in every row of match {match_id} "
                        f"(row {match.first_row}: {_text(match.cells.get(name))!r})",
                        _text(cells[name]),
                    )
        match.deals.append(_Deal(row, cells, deal_no))
    return list(matches.values()), orphans


def _check_players(
    match: _Match, seen: dict[tuple[str, int, str], tuple[int, str]], problems: _Problems
) -> None:
    """Read the match's four players; a player may sit at one table per round only."""
    cells, row = match.cells, match.first_row
    seats: dict[str, str] = {}
    if "e" in cells:
        for seat in SEATS:
            player = _text(cells.get(seat.lower()))
            if player is None:
                problems.add(row, seat, "a player id")
            else:
                seats[seat] = player
    else:
        for team in TEAMS:
            value = _text(cells.get(team.lower()))
            pair = [p for p in _PAIR_SPLIT.split(value) if p] if value else []
            if len(pair) != 2:
                problems.add(row, team, "two player ids, as in p017/p102", value)
                continue
            first, second = TEAM_SEATS[team]
            seats[first], seats[second] = pair
    if len(seats) != 4:
        return
    if len(set(seats.values())) != 4:
        problems.add(row, "E" if "e" in cells else "EW", "four different players", sorted(seats.values()))
        return
    event, _, round_no, _ = match.key
    for seat, player in seats.items():
        other = seen.get((event, round_no, player))
        if other is not None:
            column = seat if "e" in cells else TEAM[seat]
            problems.add(
                row,
                column,
                f"a player at one table per round ({player} also plays {other[1]}, row {other[0]})",
                player,
            )
        seen[(event, round_no, player)] = (row, match.match_id)
    match.seats = {seat: seats[seat] for seat in SEATS}


def _match_events(
    match: _Match,
    rulesets: Mapping[str, Ruleset],
    default_rules: str | None,
    default_format: str | None,
    tz: tzinfo,
    roster: Mapping[str, Mapping[str, str]],
    problems: _Problems,
    whole: bool,
) -> list[dict[str, Any]]:
    """Check one match's cells, then (when the sheet's rows all belong to matches: ``whole``)
    its deal numbers, and derive its deals and end (rules.md §2, §5.8, §7). Faults go to
    ``problems``."""
    before = len(problems.items)
    cells, row = match.cells, match.first_row
    rules_id = _text(cells.get("rules")) or default_rules
    ruleset = rulesets.get(rules_id or "")
    if ruleset is None:
        problems.add(row, "rules", f"a ruleset id ({', '.join(sorted(rulesets))})", rules_id)
        return []
    fmt_text = _text(cells.get("format")) or default_format
    fmt = ruleset.default_format
    if fmt_text is not None:
        from replay.rulesets import ROUND_FORMAT_HELP, parse_round_format

        try:
            fmt = parse_round_format(fmt_text)
        except ValueError:
            problems.add(row, "format", f"a round format: {ROUND_FORMAT_HELP}", fmt_text)
            return []
    deals = sorted(match.deals, key=lambda d: (d.number, d.row))
    for expected, deal in enumerate(deals if whole else [], start=1):
        if deal.number < expected:
            problems.add(
                deal.row,
                "deal",
                f"each deal number once per match (also in row {deals[expected - 2].row})",
                deal.number,
            )
            break
        if deal.number > expected:
            problems.add(
                deal.row,
                "deal",
                f"deal {expected} before deal {deal.number} (deals are numbered 1, 2, … without gaps)",
                deal.number,
            )
            break
    if match.seats is None:
        return []
    for deal in deals:
        deal.order = _order(deal, match.seats, problems)
        deal.time = _time(deal, tz, problems)
    times = [d for d in deals if d.time is not None]
    blank = [d for d in deals if d.cells.get("time") is None]
    if times and blank:
        problems.add(blank[0].row, "time", "a time for every deal of the match, or for none")
    for earlier, later in pairwise(times):
        if later.time is not None and earlier.time is not None and later.time < earlier.time:
            problems.add(
                later.row,
                "time",
                f"a time not before deal {earlier.number}'s ({earlier.time:%H:%M})",
                _text(later.cells.get("time")),
            )
    if len(problems.items) > before or not whole:
        return []
    return _derive(match, ruleset, fmt, deals, roster, problems)


def _derive(
    match: _Match,
    ruleset: Ruleset,
    fmt: RoundFormat,
    deals: list[_Deal],
    roster: Mapping[str, Mapping[str, str]],
    problems: _Problems,
) -> list[dict[str, Any]]:
    """The events of one match of the sheet (:func:`match_events`), faults at its rows."""
    assert match.seats is not None
    event, stage, round_no, table = match.key
    spec = MatchSpec(
        match.match_id,
        event,
        stage,
        round_no,
        table,
        match.seats,
        _text(match.cells.get("event_name")),
        {p: roster[p] for p in match.seats.values() if roster.get(p)},
        {"format": "scoresheet", "rows": [d.row for d in deals]},
        match.revision,
    )
    results = []
    for d in deals:
        assert d.order is not None
        results.append(DealResult(d.row, d.number, d.order, d.time, _text(d.cells.get("time"))))
    return match_events(spec, ruleset, fmt, results, problems.add)


@dataclass(frozen=True, slots=True)
class MatchSpec:
    """What a results-only match's ``match_start`` says besides its ruleset and format: the
    match id, the event (id, stage, round, table, name), the seats and the players' names."""

    match_id: str
    event: str
    stage: str | None
    round: int
    table: str
    seats: Mapping[str, str]
    event_name: str | None = None
    players: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    """Name and club per player id (``match_start.players``)."""
    source: Mapping[str, Any] = field(default_factory=dict)
    """Where the results come from (``match_start.source``: a sheet's rows, the entry page)."""
    revision: int = 1
    """The correction's number (``match_start.revision``, docs/event-extensions.md): written when > 1."""
    duplicate: Mapping[str, str] | None = None
    """The duplicate board and room the match is (``match_start.duplicate``: ``board``, ``room``)."""


@dataclass(frozen=True, slots=True)
class DealResult:
    """One deal's result: its number, the finishing order (2 seats after a double win, else 4)
    and when it started; ``ref`` locates a fault (a sheet's row, the entry page's deal)."""

    ref: int
    number: int
    order: Sequence[str]
    time: datetime | None = None
    time_text: str | None = None
    """The time as the referee wrote it (shown in a fault)."""


Report = Callable[[int, str | None, str, object], None]
"""Where :func:`match_events` reports a fault: ``(ref, column, expected, got)``."""


def match_events(
    match: MatchSpec,
    ruleset: Ruleset,
    fmt: RoundFormat,
    deals: Sequence[DealResult],
    report: Report,
    *,
    open_end: bool = False,
) -> list[dict[str, Any]]:
    """The match's events, deal by deal as the replay will derive them: declarers and level
    (rules.md §2), levels won (§5.8), A passed or failed and what failures cause (§7, §10), the end
    by the format, with the ruleset's draw breaker. A timed round whose deals stop before its
    last deal ended at the time limit: ``match_end`` then carries the limit's time.

    Strict (a score sheet): a deal after the end, or deals that do not end the match, are
    reported and nothing is returned. ``open_end`` (the entry page, while the referee types):
    every deal is written, and ``match_end`` only when the last deal ends the match, so the
    replay itself refuses a deal after the end (``match_already_over``) and an open match can
    be shown deal by deal."""
    from replay.outcome import extra_deal_due, level_outcome, round_winner

    start = deals[0].time if deals else None
    deadline = (
        start + timedelta(minutes=fmt.minutes) if start and fmt.minutes and fmt.kind != "deals" else None
    )
    writer = EventWriter(match.match_id)
    info: dict[str, Any] = {"id": match.event, "round": match.round, "table": match.table}
    if match.event_name:
        info["name"] = match.event_name
    if match.stage:
        info["stage"] = match.stage
    fmt_payload = {k: v for k, v in (("kind", fmt.kind), ("deals", fmt.deals), ("minutes", fmt.minutes)) if v}
    start_event: dict[str, Any] = {
        "rules": ruleset.id,
        "format": fmt_payload,
        "seats": dict(match.seats),
        "event": info,
    }
    players = {p: dict(match.players[p]) for p in match.seats.values() if match.players.get(p)}
    if players:
        start_event["players"] = players
    if match.source:
        start_event["source"] = dict(match.source)
    if match.revision > 1:
        start_event["revision"] = match.revision
    if match.duplicate:
        start_event["duplicate"] = dict(match.duplicate)
    writer.emit("match_start", **({"t": start.isoformat()} if start else {}), **start_event)
    levels = dict.fromkeys(TEAMS, RANKS[0])
    failures = dict.fromkeys(TEAMS, 0)
    declarers: str | None = None
    last_declarers: str | None = None
    previous_winner: str | None = None
    extra_deal = False
    # A sheet cannot mark the event's last round (docs/event-extensions.md "Last round"); its stage
    # column says whether a knockout's level round is played on (`national`, `huaian`).
    breaks_ties = ruleset.extra_deal_breaks(info)
    end: tuple[str, str | None] | None = None
    for deal in deals:
        if end is not None:
            if open_end:
                end = None
            else:
                report(
                    deal.ref,
                    "deal",
                    f"no deal after deal {deal.number - 1}: the match was over ({end[0]})",
                    deal.number,
                )
                return []
        if deadline is not None and deal.number > 1 and deal.time is not None and deal.time >= deadline:
            report(
                deal.ref,
                "time",
                f"a start before the time limit {deadline:%H:%M} ({fmt.kind}: no deal "
                "starts after it, rules.md §7)",
                deal.time_text,
            )
            return []
        level = levels[declarers] if declarers else min(levels.values(), key=RANKS.index)
        start_payload: dict[str, Any] = {"deal": deal.number, "level": level, "declarers": declarers}
        writer.emit("deal_start", **({"t": deal.time.isoformat()} if deal.time else {}), **start_payload)
        order = list(deal.order)
        outcome = level_outcome(ruleset, levels, declarers, level, order, failures, extra_deal=extra_deal)
        levels, failures = outcome.levels, outcome.failures
        writer.emit("deal_end", order=order, levels={t: levels[t] for t in TEAMS})
        last_declarers, declarers, previous_winner = declarers, outcome.winner, outcome.winner
        if outcome.end is not None:
            end = (outcome.end, outcome.match_winner)
        elif fmt.kind in ("deals", "timed_deals") and fmt.deals and deal.number >= fmt.deals:
            if extra_deal_due(ruleset, breaks_ties, extra_deal, levels):
                extra_deal = True  # one more deal breaks the tie (rules.md §7)
            else:
                end = ("deals", round_winner(ruleset, levels, last_declarers, previous_winner, extra_deal))
    if end is None:
        tie_open = extra_deal_due(ruleset, breaks_ties, extra_deal, levels)
        if fmt.kind in ("timed", "timed_deals") and not tie_open and deals:
            end = ("time", round_winner(ruleset, levels, last_declarers, previous_winner, extra_deal))
        elif open_end:
            return writer.events
        elif tie_open:
            report(
                deals[-1].ref,
                "deal",
                "one extra deal after this one: the levels are equal and the ruleset "
                "breaks the tie with an extra deal (rules.md §7)",
                None,
            )
            return []
        else:
            last = deals[-1]
            goal = "until a team passes A" if fmt.kind == "until_a" else f"{fmt.deals} deals"
            report(
                last.ref,
                "deal",
                f"the match's deals {goal} (format {fmt.kind}; the sheet ends after "
                f"deal {last.number} with levels EW {levels['EW']}, NS {levels['NS']})",
                None,
            )
            return []
    reason, winner_team = end
    end_payload: dict[str, Any] = {
        "reason": reason,
        "winner": winner_team,
        "levels": {t: levels[t] for t in TEAMS},
    }
    if deadline is not None and reason == "time":
        end_payload = {"t": deadline.isoformat(), **end_payload}
    writer.emit("match_end", **end_payload)
    return writer.events


def _order(deal: _Deal, seats: Mapping[str, str], problems: _Problems) -> list[str] | None:
    """The deal's finishing order as events.md wants it: 2 seats after a double win, else 4."""
    from replay.outcome import partner_place

    cells = deal.cells
    by_player = {p.lower(): s for s, p in seats.items()}
    text = _text(cells.get("order"))
    winner_text, place_text = _text(cells.get("winner")), _text(cells.get("partner_place"))
    if text is None and winner_text is None:
        column = "order" if "order" in cells else "winner"
        problems.add(deal.row, column, "the deal's result (finishing order, or winner and partner_place)")
        return None
    order: list[str] | None = None
    if text is not None:
        order = _parse_order(text, by_player)
        if order is None or len(set(order)) != len(order):
            problems.add(
                deal.row,
                "order",
                "seats (E N W S) or the match's player ids by finishing position, each once",
                text,
            )
            return None
        if len(order) < 2:
            problems.add(deal.row, "order", "at least the 1st and 2nd places", text)
            return None
        if len(order) == 2 and TEAM[order[0]] != TEAM[order[1]]:
            problems.add(
                deal.row, "order", "3 or 4 places (2 only after a double win, partners 1st and 2nd)", text
            )
            return None
    if winner_text is not None:
        first = winner_text.upper() if winner_text.upper() in SEATS else by_player.get(winner_text.lower())
        place = _int(place_text)
        if first is None:
            problems.add(
                deal.row,
                "winner",
                f"the seat (E N W S) or player id ({', '.join(seats.values())}) that finished 1st",
                winner_text,
            )
            return None
        if place not in _PARTNER_PLACES:
            problems.add(deal.row, "partner_place", "the winner's partner's place: 2, 3 or 4", place_text)
            return None
        derived = order_from_winner(first, place)
        if order is not None and (order[0] != first or partner_place(order) != place):
            problems.add(
                deal.row,
                "order",
                f"an order agreeing with winner {winner_text} and partner_place {place}",
                text,
            )
            return None
        order = order or derived
    assert order is not None
    if len(order) == 2 or TEAM[order[0]] == TEAM[order[1]]:
        return order[:2]
    return order + [s for s in SEATS if s not in order] if len(order) == 3 else order


def _parse_order(text: str, by_player: Mapping[str, str]) -> list[str] | None:
    if _SEAT_LETTERS.match(text) and not by_player.get(text.lower()):
        return [c.upper() for c in text if c.upper() in SEATS]
    seats = [by_player.get(token.lower()) for token in _TOKENS.split(text.strip()) if token]
    return None if any(s is None for s in seats) else [s for s in seats if s is not None]


def order_from_winner(first: str, partner_place: int) -> list[str]:
    """The order from the 1st seat and its partner's place; the opponents in play order (see module docs)."""
    partner, opponents = PARTNER[first], [NEXT[first], PREV[first]]
    if partner_place == 2:
        return [first, partner]
    if partner_place == 3:
        return [first, opponents[0], partner, opponents[1]]
    return [first, *opponents, partner]


def _time(deal: _Deal, tz: tzinfo, problems: _Problems) -> datetime | None:
    value = deal.cells.get("time")
    if value is None:
        return None
    if not isinstance(value, datetime):
        try:
            value = datetime.fromisoformat(str(value).strip())
        except ValueError:
            problems.add(
                deal.row,
                "time",
                "a date and time such as 2026-06-18 13:05 or 2026-06-18T13:05:00+08:00",
                value,
            )
            return None
    return value if value.tzinfo is not None else value.replace(tzinfo=tz)


def _text(value: Cell) -> str | None:
    """A cell as text: numbers without a trailing ``.0`` (Excel stores 3 as 3.0), blanks as None."""
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value).strip()
    return text or None


def _int(text: str | None) -> int | None:
    return int(text) if text is not None and text.isdigit() else None


def _required_text(cells: Mapping[str, Cell], name: str, row: int, problems: _Problems) -> str | None:
    text = _text(cells.get(name))
    if text is None:
        problems.add(row, name, "a value (required)")
    return text


def _positive(cells: Mapping[str, Cell], name: str, row: int, problems: _Problems) -> int | None:
    text = _text(cells.get(name))
    number = _int(text)
    if number is None or number < 1:
        problems.add(row, name, "a whole number from 1", text)
        return None
    return number
