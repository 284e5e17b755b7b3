"""Results entry: a referee's taps on the entry page → results-only v1 events, with
the levels and the round result derived by the real rules engine.

Pure: no Streamlit, no I/O. The events are built by the score-sheet importer's builder
(:func:`importers.scoresheet.match_events`, one implementation for both) and then replayed with
:func:`replay.replay_match`; what the page shows (each deal's level, declarers and levels after,
the round's end and winner) are the replay's own ``deals`` and ``matches`` rows, and an entry
the rules refuse is shown with the replay's error code and message.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from dashboards.i18n import LABELS, Lang
from dashboards.i18n import t as label
from importers.scoresheet import (
    DealResult,
    MatchSpec,
    default_match_id,
    match_events,
    order_from_winner,
)
from pipelines.reads.pairing_sheet import PairingRefused
from replay import Ruleset, replay_match
from replay.rulesets import RoundFormat
from schemas.vocabulary import PARTNER, SEATS, TEAMS
from scoring.levels import team_id
from scoring.pairing import pair_round

PAIRING_NOTES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"round (?P<r>\d+) already has results in the store"), "note_round_played"),
    (re.compile(r"no pairing without rematches exists: (?P<pairs>.*) meet again"), "note_rematches"),
    (re.compile(r"ranked by the standings after round (?P<r>\d+) \((?P<points>\w+)\)"), "note_ranked_by"),
    (
        re.compile(r"seeded 1–(?P<n>\d+) by the standings of stage (?P<stage>.*?) after round (?P<r>\d+)"),
        "note_seeded",
    ),
    (re.compile(r"table (?P<t>\d+) plays for 3rd place"), "note_third_place"),
    (re.compile(r"paired although round (?P<r>\d+) has no result for (?P<what>.*)"), "note_paired_missing"),
    (re.compile(r"snake seating, by the MP score rate after round (?P<r>\d+)"), "note_snake"),
    (re.compile(r"snake seating, drawn at random"), "note_snake_first"),
    (
        re.compile(r"snake seating, by the standings after round (?P<r>\d+) \((?P<points>\w+)\)"),
        "note_snake_standings",
    ),
)
"""The notes of ``pipelines.reads.pairing_sheet`` (written in English for `gdan pair`) and their labels."""


def pairing_note(note: str, lang: Lang) -> str:
    """A note of a pairing sheet in ``lang``: a known note's label with its numbers and names (a
    points column by its label), an unknown note as written."""
    for pattern, key in PAIRING_NOTES:
        found = pattern.match(note)
        if found:
            fields = found.groupdict()
            if "points" in fields and fields["points"] in LABELS:
                fields["points"] = label(fields["points"], lang)
            return label(key, lang).format(**fields)
    return note


def pairing_failure(exc: LookupError, lang: Lang) -> str:
    """Why a round cannot be paired, in ``lang``: a :class:`PairingRefused` by its reason's
    label, with its ids and numbers as data; any other lookup failure (the store's English
    message, e.g. a knockout's options) after a translated lead."""
    key = f"pairing_refused_{exc.reason}" if isinstance(exc, PairingRefused) else ""
    if not isinstance(exc, PairingRefused) or key not in LABELS:
        return f"{label('entry_pairing_detail', lang)}: `{exc}`"
    data = dict(exc.data)
    if "rounds" in data:
        data["rounds"] = ", ".join(map(str, data["rounds"])) or label("pairing_no_rounds", lang)
    for listed in ("tables", "teams"):
        if listed in data:
            data[listed] = ", ".join(map(str, data[listed])) or "–"
    return label(key, lang).format(**data)


RESULT_KINDS: dict[str, int] = {"double": 2, "one_three": 3, "one_four": 4}
"""The result types a referee taps, by the winner's partner's place (rules.md §5.8): 双下 (the
partner 2nd: +3 levels), 1-3 (+2), 1-4 (+1)."""


def order_of(winner: str, kind: str) -> list[str]:
    """The finishing order of a deal entered as the 1st seat and a result type; after a 1-3 or
    1-4 the opponents are listed in play order, as for a score sheet's winner + partner's place
    (docs/scoresheet.md: no level, score or dan point depends on their order)."""
    return order_from_winner(winner, RESULT_KINDS[kind])


def order_from_places(places: Sequence[str]) -> list[str]:
    """The finishing order from the seats tapped 1st, 2nd (and 3rd): partners 1st and 2nd are a
    double win (2 seats), else the 4th is the seat left. The replay checks the result; seats
    tapped twice stay in, so the replay refuses them (``malformed_field``)."""
    order = list(places)
    if len(order) >= 2 and PARTNER[order[0]] == order[1]:
        return order[:2]
    if len(order) == 3 and len(set(order)) == 3:
        return [*order, *(s for s in SEATS if s not in order)]
    return order


@dataclass(frozen=True, slots=True)
class TableEntry:
    """One table of a round as the page holds it: the match, its ruleset and format, and the
    finishing order of each deal entered so far."""

    spec: MatchSpec
    ruleset: Ruleset
    fmt: RoundFormat
    orders: tuple[tuple[str, ...], ...] = ()
    started: datetime | None = None
    """When the table's first deal was entered: the match's ``match_start.t`` (an aware time)."""


@dataclass(frozen=True, slots=True)
class Refusal:
    """An entry the rules refuse: the replay's error code and message, and the deal it is in
    (None: before the first deal, or the match's end)."""

    code: str
    message: str
    deal: int | None


@dataclass(frozen=True, slots=True)
class Derived:
    """What the replay derives from a table's entries."""

    events: list[dict[str, Any]]
    """The match's events: submitted as they are once ``over``."""
    deals: list[dict[str, Any]]
    """The replay's ``deals`` rows of the deals it accepted."""
    levels: dict[str, str]
    """Both teams' levels after the last accepted deal."""
    over: bool
    """The match is complete and valid: it can be submitted."""
    winner: str | None = None
    end_reason: str | None = None
    refusal: Refusal | None = None


def derive(entry: TableEntry) -> Derived:
    """Build the table's events and replay them.

    While the format goes on, the events have no ``match_end``; they are replayed with an
    ``abandoned`` end for the display only (never submitted). A refused entry is shown with the
    deals before it."""
    rulesets = {entry.ruleset.id: entry.ruleset}
    deals = [DealResult(no, no, list(order)) for no, order in enumerate(entry.orders, start=1)]
    events = match_events(entry.spec, entry.ruleset, entry.fmt, deals, _untimed, open_end=True)
    if entry.started is not None:
        events[0] = {**events[0], "t": entry.started.isoformat(timespec="seconds")}
    complete = events[-1]["type"] == "match_end"
    result = replay_match(events if complete else [*events, _shown_end(events)], rulesets)
    refusal: Refusal | None = None
    shown = result
    if result.error is not None:
        seq = result.error.seq if result.error.seq is not None else len(events)
        refusal = Refusal(result.error.code.value, result.error.message, _deal_at(events, seq))
        before = events[: max(seq, 1)]
        while before and before[-1]["type"] != "deal_end" and len(before) > 1:
            before = before[:-1]
        shown = replay_match([*before, _shown_end(before)], rulesets)
    rows = shown.rows["deals"] if shown.error is None else []
    match = shown.rows["matches"][0]
    levels = {t: match[f"final_level_{t}"] or "2" for t in TEAMS}
    over = complete and refusal is None
    return Derived(
        events,
        rows,
        levels,
        over,
        match["winner"] if over else None,
        match["end_reason"] if over else None,
        refusal,
    )


def _untimed(ref: int, column: str | None, expected: str, got: object) -> None:
    """The builder's report: with ``open_end`` only a deal's time can be faulted, and entered
    deals have none."""
    raise ValueError(f"deal {ref}: {column}: expected {expected}, got {got!r}")


def _shown_end(events: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """An ``abandoned`` end after ``events``: lets the replay show an open match's deals."""
    last = events[-1]
    seq = last["seq"] + 1
    return {"v": 1, "match": last["match"], "seq": seq, "type": "match_end", "reason": "abandoned"}


def _deal_at(events: Sequence[Mapping[str, Any]], seq: int) -> int | None:
    """The deal number the event at ``seq`` belongs to (None before deal 1)."""
    deal: int | None = None
    for ev in events[: seq + 1]:
        if ev["type"] == "deal_start":
            deal = ev["deal"]
    return deal


def parse_pairs(text: str, known: Mapping[str, str]) -> tuple[list[tuple[str, str]], list[str]]:
    """Pairs typed one per line, ``p01/p02`` (ids, or names from the roster ``known``: name → id);
    returns the pairs and a message per bad line. A player may carry a name and club
    (``p01 = Wang Li @ Nanjing``): :func:`parse_players` reads those."""
    pairs, problems, _ = parse_players(text, known)
    return pairs, problems


def parse_players(
    text: str, known: Mapping[str, str]
) -> tuple[list[tuple[str, str]], list[str], dict[str, dict[str, str]]]:
    """:func:`parse_pairs` with the names and clubs typed (``id = name @ club``) per player id."""
    pairs: list[tuple[str, str]] = []
    problems: list[str] = []
    typed: dict[str, dict[str, str]] = {}
    seen: set[str] = set()
    for no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        names = [p.strip() for p in line.replace(",", "/").split("/") if p.strip()]
        if len(names) != 2:
            problems.append(f"line {no}: expected two players as p01/p02, got {line.strip()!r}")
            continue
        ids = []
        for typed_player in names:
            player, _, rest = (part.strip() for part in typed_player.partition("="))
            name, _, club = (part.strip() for part in rest.partition("@"))
            ids.append(known.get(player, player))
            details = {k: v for k, v in (("name", name), ("club", club)) if v}
            if details:
                typed[ids[-1]] = details
        again = [p for p in ids if p in seen]
        if again or ids[0] == ids[1]:
            problems.append(f"line {no}: a player in one pair only, got {(again or ids)[0]!r} twice")
            continue
        seen.update(ids)
        pairs.append((ids[0], ids[1]))
    return pairs, problems, typed


def deal_orders(events: Sequence[Mapping[str, Any]]) -> list[tuple[str, ...]]:
    """Each deal's finishing order in a match's events (to load a held result for the referee)."""
    return [tuple(ev["order"]) for ev in events if ev["type"] == "deal_end"]


def first_round_seats(
    pairs: Sequence[tuple[str, str]], clubs: Mapping[str, str | None]
) -> tuple[dict[int, dict[str, str]], tuple[str, str] | None]:
    """Round 1 of a new event by scoring.md §S8 (:func:`scoring.pairing.pair_round`, the code of
    `gdan pair`, seed 0): the seats of each table (first team E–W) and the pair with a bye."""
    by_team = {team_id(list(p), ""): p for p in pairs}
    pairing = pair_round("swiss", 1, list(by_team), clubs={t: clubs.get(p[0]) for t, p in by_team.items()})
    seats = {}
    for t in pairing.tables:
        (e, w), (n, s) = by_team[t.ew], by_team[t.ns]
        seats[t.number] = {"E": e, "N": n, "W": w, "S": s}
    return seats, by_team[pairing.bye] if pairing.bye else None


def table_spec(
    event: str,
    event_name: str | None,
    stage: str | None,
    round_no: int,
    table: int | str,
    seats: Mapping[str, str],
    players: Mapping[str, Mapping[str, str]],
    match_id: str | None = None,
    revision: int = 1,
    duplicate: Mapping[str, str] | None = None,
) -> MatchSpec:
    """The match of one table, by default with the importer's match id (docs/scoresheet.md);
    a ``revision`` above 1 corrects a submitted match (docs/event-extensions.md); ``duplicate``:
    the board and room a duplicate round's table plays (``match_start.duplicate``)."""
    return MatchSpec(
        match_id or default_match_id(event, stage, round_no, str(table)),
        event,
        stage,
        round_no,
        str(table),
        {s: seats[s] for s in SEATS},
        event_name,
        {p: players[p] for p in seats.values() if players.get(p)},
        {"format": "entry"},
        revision,
        duplicate,
    )
