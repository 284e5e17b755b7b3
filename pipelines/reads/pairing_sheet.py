"""The table assignments of an event's round from the store (scoring.md §S8), for `gdan pair`
and the dashboards' results entry page.

The pairing is :func:`scoring.pairing.pair_round`, the same code the simulator pairs its
tournaments with, fed from the store: the ranking is the standings after round N − 1, who met
whom and who had a bye come from ``match_scores`` of the rounds before N, and clubs from the
players' ``match_start.players`` entries. A knockout stage is paired as a seeded bracket
(:mod:`pipelines.reads.pair_knockout`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pipelines.reads.tournament_data import LookupFailed

if TYPE_CHECKING:
    import duckdb

    from pipelines.reads.tournament_data import Player, Stage
    from scoring.pairing import MissingResults, RoundPairing, System


class PairingRefused(LookupFailed):
    """A round the store cannot pair. The message is `gdan pair`'s English; ``reason`` names the
    case and ``data`` holds its ids and numbers, for the dashboards to say it in their language:

    - ``individual``: the stage's partners rotate (``event``, ``stage``);
    - ``no_standings``: no standings after the round before (``event``, ``after``, ``rounds``);
    - ``no_teams``: the stage has no teams (``event``);
    - ``missing_results``: the round before has tables without a result (``event``, ``round``,
      ``tables``, ``teams``), unless overridden.
    """

    def __init__(self, message: str, reason: str, **data: Any) -> None:
        super().__init__(message)
        self.reason = reason
        self.data = data


@dataclass(frozen=True, slots=True)
class KnockoutOptions:
    """How a knockout is seeded: the earlier stage, how many qualify, how many keep their seed."""

    seeding_stage: str | None = None
    qualifiers: int | None = None
    seeded: int | None = None
    third_place: bool = False


@dataclass(frozen=True, slots=True)
class PairingSheet:
    """A round's pairing with what a printout shows: columns and rows, title, notes; and the
    seats of each table (the first team E–W, the second N–S) for entering its results."""

    title: str
    columns: list[str]
    rows: list[list[Any]]
    notes: list[str]
    seats: dict[int, dict[str, str]] = field(default_factory=dict)
    """Per table number, the player id at each seat E, N, W, S (teams with both players known)."""
    missing: MissingResults | None = None
    """The results the round before lacks, when the pairing was asked to go on without them."""


ROOMS = ("open", "closed")
"""The rooms of a duplicate board (``match_start.duplicate.room``)."""
TURNED = {"E": "N", "N": "E", "W": "S", "S": "W"}
"""The closed room's seat → the open room's seat of its player: the pairs swap directions."""


@dataclass(frozen=True, slots=True)
class RoomTable:
    """One room of a duplicate board: the player at each seat, the board and the room."""

    seats: dict[str, str]
    board: str
    room: str

    @property
    def duplicate(self) -> dict[str, str]:
        """``match_start.duplicate`` of the room's match."""
        return {"board": self.board, "room": self.room}


def duplicate_rooms(
    event: str, stage: str | None, round_no: int, tables: Mapping[int, Mapping[str, str]]
) -> dict[str, RoomTable]:
    """The tables of a duplicate round, by room (scoring.md §S9: each table's board is also played
    in the other room with the seats turned; `national` Art. 29 二: the pair E–W in the open room
    sits N–S in the closed room): drawn table *k* (``tables``: the seats the pairing gives it)
    becomes board *k*, played at table 2k − 1 (the open room, seats as drawn) and table 2k (the
    closed room), as the simulator numbers a duplicate round's rooms. Keyed by table number."""
    rooms: dict[str, RoomTable] = {}
    for number in sorted(tables):
        seats = {s: tables[number][s] for s in TURNED}
        board = "-".join(p for p in (event, stage, f"r{round_no}", f"b{number}") if p)
        rooms[str(2 * number - 1)] = RoomTable(seats, board, ROOMS[0])
        rooms[str(2 * number)] = RoomTable({s: seats[o] for s, o in TURNED.items()}, board, ROOMS[1])
    return rooms


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
    system: System | None,
    seed: int,
    knockout: KnockoutOptions | None = None,
    drawn: Mapping[str, Mapping[str, str]] | None = None,
    allow_missing: bool = False,
) -> PairingSheet:
    """Pair round ``round_no`` of the event from the store (raises ``LookupFailed``);
    ``system`` None: knockout or round robin for a stage named so, else Swiss. An individual
    event (partners rotate between rounds) is refused: §S8 pairs fixed pairs
    (:func:`refuse_individual`). So is a round after one with tables that have no result
    (``drawn``: that round's tables as drawn, per table the player at each seat, when known),
    unless ``allow_missing``: the sheet then says which are missing, for the caller to record
    the override."""
    from pipelines.reads.tournament_data import (
        duplicate_ranking,
        is_duplicate,
        roster,
        round_scores,
        stage_of,
        standings,
    )
    from schemas.vocabulary import is_knockout
    from scoring.pairing import pair_round

    if system == "knockout" or (system is None and is_knockout(stage_name)):
        return _knockout_sheet(con, event, stage_name, round_no, seed, knockout or KnockoutOptions())
    stage = stage_of(con, event, stage_name)
    if system is None and is_knockout(stage.stage):
        return _knockout_sheet(con, event, stage.stage, round_no, seed, knockout or KnockoutOptions())
    chosen = system or _auto_system(con, stage)
    refuse_individual(con, stage)
    earlier = round_scores(con, stage, before=round_no)
    everyone = round_scores(con, stage)
    names = roster(con)
    teams = list(dict.fromkeys(r["team_id"] for r in sorted(everyone, key=lambda r: r["team_id"])))
    table: dict[str, dict[str, Any]] = {}
    duplicate = is_duplicate(con, stage)
    by_mp = False
    if chosen in ("swiss", "snake") and round_no > 1:
        after = round_no - 1
        by_mp = duplicate  # seed 004: a duplicate event's ranking is its MP table, whatever seats it
        ranked = duplicate_ranking(con, stage, after) if by_mp else standings(con, stage, after)
        if not ranked:
            raise PairingRefused(
                f"event {event} has no standings after round {after} (rounds with results: "
                f"{', '.join(map(str, stage.rounds)) or 'none'}): pair round {after} first, "
                "or run `gdan run` once its results are in",
                "no_standings",
                event=event,
                after=after,
                rounds=stage.rounds,
            )
        teams = [r["team_id"] for r in ranked]
        table = {r["team_id"]: r for r in ranked}
    if not teams:
        raise PairingRefused(f"event {event} has no teams in the store", "no_teams", event=event)
    missing = _missing(round_no, earlier, drawn, duplicate) if round_no > 1 else None
    if missing is not None and not allow_missing:
        tables = f" (tables {', '.join(missing.tables)})" if missing.tables else ""
        raise PairingRefused(
            f"round {missing.round} of event {event} has no result for {len(missing.teams)} teams"
            f"{tables}: {', '.join(missing.teams)}. Enter them first, or pair without them "
            "explicitly (`gdan pair --allow-missing`; the override is recorded)",
            "missing_results",
            event=event,
            round=missing.round,
            tables=missing.tables,
            teams=missing.teams,
        )
    met = {frozenset((r["team_id"], r["opp_team_id"])) for r in earlier if r["outcome"] != "bye"}
    had_bye = {r["team_id"] for r in earlier if r["outcome"] == "bye"}
    first_players = {r["team_id"]: r["player_1"] for r in everyone}
    clubs = {t: names[first_players[t]].club if first_players.get(t) in names else None for t in teams}
    pairing = pair_round(chosen, round_no, teams, met, had_bye, clubs, seed)
    points = "mp_rate" if by_mp else None
    sheet = _sheet(stage, pairing, table, names, everyone, round_no, points)
    if missing is None:
        return sheet
    from dataclasses import replace

    what = [f"table {t}" for t in missing.tables] or list(missing.teams)
    note = f"paired although round {missing.round} has no result for {', '.join(what)}"
    return replace(sheet, notes=[*sheet.notes, note], missing=missing)


def _missing(
    round_no: int,
    earlier: list[dict[str, Any]],
    drawn: Mapping[str, Mapping[str, str]] | None,
    by_table: bool = False,
) -> MissingResults | None:
    """The results round ``round_no`` − 1 lacks (:func:`scoring.pairing.missing_results`): the
    teams of the stage's rounds before, or of its draw, without a played match in it; ``by_table``
    (a duplicate stage, its pairs meeting in two rooms): also each drawn table without a match.
    A round with neither a draw nor any result is not checked (a round robin is paired ahead)."""
    from scoring.levels import team_id
    from scoring.pairing import missing_results

    before = round_no - 1
    played = {r["team_id"] for r in earlier if r["round"] == before and r["outcome"] != "bye"}
    teams = {r["team_id"] for r in earlier}
    if drawn is None and not played:
        return None  # a round not played yet: a round robin's schedule is paired ahead
    tables = None
    if drawn is not None:
        tables = {
            str(n): (team_id([s["E"], s["W"]], ""), team_id([s["N"], s["S"]], "")) for n, s in drawn.items()
        }
    played_tables = {str(r["table"]) for r in earlier if r["round"] == before and r["outcome"] != "bye"}
    return missing_results(before, teams, played, tables, played_tables if by_table else None)


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

    from pipelines.reads.pair_knockout import plan_knockout
    from pipelines.reads.tournament_data import Stage, roster, round_scores

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
    refuse_individual(con, source)
    points = plan.points
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


def refuse_individual(con: duckdb.DuckDBPyConnection, stage: Stage) -> None:
    """Raise :class:`PairingRefused` for an individual stage: partners rotate, so scoring ranks
    its players (``standings.entry = individual``, decided by ``scoring.standings``). §S8 pairs
    fixed pairs, and neither it nor the rule books (`national` Art. 17, 27) say how players are
    seated at tables of four, so pairing one would seat one player per "team"."""
    from pipelines.reads.tournament_data import is_individual

    if not is_individual(con, stage):
        return
    where = f"event {stage.event_id}" + (f" (stage {stage.stage})" if stage.stage else "")
    raise PairingRefused(
        f"{where} is an individual event: partners rotate between rounds, so its standings rank "
        "players, not pairs. The pairing of scoring.md §S8 needs fixed pairs, and neither §S8 nor "
        "the rule books say how players are seated at tables of four. Seat the round's tables "
        "yourself and enter their results on a score sheet (`gdan import`, docs/scoresheet.md).",
        "individual",
        event=stage.event_id,
        stage=stage.stage,
    )


def _auto_system(con: duckdb.DuckDBPyConnection, stage: Stage) -> System:
    """Round robin for a stage named so; snake seating for a duplicate (複式) stage (scoring.md
    §S9); else Swiss."""
    from pipelines.reads.tournament_data import is_duplicate

    if (stage.stage or "").replace("-", "_").lower() == "round_robin":
        return "round_robin"
    return "snake" if is_duplicate(con, stage) else "swiss"


def _sheet(
    stage: Stage,
    pairing: RoundPairing,
    table: dict[str, dict[str, Any]],
    names: dict[str, Player],
    scores: list[dict[str, Any]],
    round_no: int,
    points: str | None = None,
) -> PairingSheet:
    from pipelines.reads.tournament_data import Player

    players = {r["team_id"]: (r["player_1"], r["player_2"]) for r in scores}
    points = points or ("bcta_round_score" if stage.rules == "bcta" else "match_points")

    def label(team: str) -> str:
        ids = players.get(team, (None, None))
        return " / ".join((names.get(p) or Player(p)).label for p in ids if p) or team

    def standing(team: str) -> tuple[Any, Any]:
        row = table.get(team)
        return (row["rank"], row[points]) if row else (None, None)

    rows: list[list[Any]] = []
    seats: dict[int, dict[str, str]] = {}
    for t in pairing.tables:
        rows.append([t.number, t.ew, label(t.ew), *standing(t.ew), t.ns, label(t.ns), *standing(t.ns)])
        (e, w), (n, s) = players.get(t.ew, (None, None)), players.get(t.ns, (None, None))
        if e and w and n and s:
            seats[t.number] = {"E": e, "N": n, "W": w, "S": s}
    for bye in pairing.byes:
        rows.append(["bye", bye, label(bye), *standing(bye), None, None, None, None])
    names_of = {"round_robin": "round robin", "knockout": "knockout", "snake": "snake"}
    system = names_of.get(pairing.system, "Swiss")
    section = "§S9" if pairing.system == "snake" else "§S8"
    title = f"{stage.title} · round {round_no} pairing ({system}, scoring.md {section})"
    notes = []
    if round_no in stage.rounds:
        notes.append(
            f"round {round_no} already has results in the store: this is the pairing §S8 gives, "
            "to check against the one played"
        )
    if pairing.rematches and pairing.system != "snake":
        shown = ", ".join(f"{a} v {b}" for a, b in pairing.rematches)
        notes.append(f"no pairing without rematches exists: {shown} meet again")
    if pairing.system == "swiss" and round_no > 1:
        notes.append(f"ranked by the standings after round {round_no - 1} ({points})")
    if pairing.system == "snake":
        ranked = (
            "drawn at random"
            if round_no == 1
            else f"by the MP score rate after round {round_no - 1}"
            if points == "mp_rate"
            else f"by the standings after round {round_no - 1} ({points})"
        )
        notes.append(
            f"snake seating, {ranked}: table 1 = ranks 1 v 2, table 2 = ranks 4 v 3, …; each table's "
            "boards are also played in the other room with the seats turned (scoring.md §S9)"
        )
    return PairingSheet(title, COLUMNS, rows, notes, seats)
