"""The printouts' documents (``printouts.Document``) built from the store: standings after a
round, a round's results, dan ledgers and player sheets.

Shared by `gdan export` (which writes them to files) and the dashboards (which offer them as
downloads), so both print the same thing; the data comes through
:mod:`pipelines.reads.tournament_data` (read-only), the files are made by the pure writers of
``printouts``. Unknown events, rounds or players raise
:class:`pipelines.reads.tournament_data.LookupFailed`.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from typing import TYPE_CHECKING, Any

from schemas.times import local_time, offset_label

if TYPE_CHECKING:
    import duckdb

    from printouts import Document

TIE_BREAK_LABELS: dict[str, str] = {
    "match_points": "MP",
    "level_points": "LP",
    "bcta_round_score": "BCTA score",
    "head_to_head": "H2H",
    "raw_level_diff": "level diff",
    "opponents_score": "opp score",
    "previous_rank": "prev rank",
    "tied_level_points": "LP among tied",
    "opponents_level_points": "opp LP",
    "levels_gained": "levels gained",
    "deducted_match_points": "MP deducted",
    "deducted_level_points": "LP deducted",
    "decided_by": "decided by",
}
"""Short names of the standings' tie-break columns (scoring.md §S7), for every printed or terminal table."""

_LABELS = {
    "rank": "rank",
    "team_id": "team",
    "players": "players",
    "clubs": "club",
    "rounds": "rounds",
    "wins": "W",
    "draws": "D",
    "losses": "L",
    "byes": "byes",
    **TIE_BREAK_LABELS,
}


def _printed(offsets: Iterable[int | None] = ()) -> str:
    """The subtitle's end: the day printed and, for a document with times, the offsets they are in.

    Each time is printed in its match's local time (``matches.utc_offset_min``, schemas/times.py),
    as the tournament day's clocks showed it; ``offsets`` are those of the times printed.
    """
    zones = sorted({o or 0 for o in offsets})
    times = f" · times in each match's local time ({', '.join(map(offset_label, zones))})" if zones else ""
    return f"printed {date.today().isoformat()}{times} · Guandan Lens"


def _team(names: dict[str, Any], *ids: str | None) -> tuple[str, str]:
    """Players' names joined with " / ", and their clubs (once when they share one)."""
    from pipelines.reads.tournament_data import Player

    people = [names.get(p) or Player(p) for p in ids if p]
    clubs = list(dict.fromkeys(p.club for p in people if p.club))
    return " / ".join(p.label for p in people), " / ".join(clubs)


# --- standings ------------------------------------------------------------------------------------


def standings_document(
    con: duckdb.DuckDBPyConnection, event: str, stage: str | None, round_no: int | None
) -> Document:
    """The standings after a round (default: the last), columns in the ruleset's tie-break order."""
    from pipelines.reads.tournament_data import LookupFailed, roster, stage_of, standings
    from printouts import Document, Section
    from scoring.params import params_for

    info = stage_of(con, event, stage)
    after = round_no or max(info.rounds)
    table = standings(con, info, after)
    if not table:
        raise LookupFailed(
            f"event {event} has no standings after round {after}; rounds: {', '.join(map(str, info.rounds))}"
        )
    p = params_for(info.rules).standings
    chain = [c for c in dict.fromkeys((*p.two_tied, *p.many_tied)) if c != p.primary]
    record = [c for c in ("wins", "draws", "losses", "byes") if c not in chain]
    columns = ["rank", "players", "clubs", "team_id", "rounds", *record, p.primary, *chain, "decided_by"]
    names = roster(con)
    body = []
    for r in table:
        players, clubs = _team(names, r["player_1"], r["player_2"])
        values = {
            **r,
            "players": players,
            "clubs": clubs,
            "decided_by": _LABELS.get(r["decided_by"] or "", r["decided_by"]),
        }
        body.append([values[c] for c in columns])
    section = Section(f"Standings after round {after}", [_LABELS.get(c, c) for c in columns], body)
    ranked = ", ".join(_LABELS.get(c, c) for c in (p.primary, *chain))
    return Document(
        f"{info.title} — standings after round {after} of {max(info.rounds)}",
        [section],
        subtitle=f"{event} · rules {info.rules} · ranked by {ranked} · {_printed()}",
    )


# --- a round's results ---------------------------------------------------------------------------------


def round_document(con: duckdb.DuckDBPyConnection, event: str, stage: str | None, round_no: int) -> Document:
    """A round's results, table by table: both pairs, final levels, winner, points; then the bye."""
    from pipelines.reads.tournament_data import LookupFailed, roster, round_scores, stage_of
    from printouts import Document, Section

    info = stage_of(con, event, stage)
    scores = round_scores(con, info, round_no=round_no)
    if not scores:
        raise LookupFailed(
            f"event {event} has no results in round {round_no}; rounds: {', '.join(map(str, info.rounds))}"
        )
    names = roster(con)
    points = "bcta_round_score" if info.rules == "bcta" else "match_points"
    by_match: dict[str, dict[str, dict[str, Any]]] = {}
    byes = []
    for r in scores:
        if r["outcome"] == "bye":
            byes.append(r)
        else:
            by_match.setdefault(r["match_id"], {})[r["side"]] = r
    columns = [
        "table",
        "E–W",
        "club E–W",
        "N–S",
        "club N–S",
        "levels",
        "winner",
        f"{_LABELS[points]} E–W",
        f"{_LABELS[points]} N–S",
        "LP E–W",
        "LP N–S",
        "deals",
    ]
    body = []
    for sides in by_match.values():
        ew, ns = sides.get("EW"), sides.get("NS")
        if ew is None or ns is None:
            continue
        ew_players, ew_club = _team(names, ew["player_1"], ew["player_2"])
        ns_players, ns_club = _team(names, ns["player_1"], ns["player_2"])
        levels = f"{ew['final_level_EW'] or '–'} : {ew['final_level_NS'] or '–'}"
        winner = {"EW": "E–W", "NS": "N–S"}.get(ew["winner"] or "", "draw")
        if ew["passed_a"]:
            winner += " (passed A)"
        body.append(
            [
                ew["table"],
                ew_players,
                ew_club,
                ns_players,
                ns_club,
                levels,
                winner,
                ew[points],
                ns[points],
                ew["level_points"],
                ns["level_points"],
                ew["deals_played"],
            ]
        )
    for r in byes:
        players, club = _team(names, r["player_1"], r["player_2"])
        body.append(
            ["bye", players, club, None, None, None, None, r[points], None, r["level_points"], None, None]
        )
    section = Section(f"Round {round_no} results", columns, body)
    return Document(
        f"{info.title} — round {round_no} results",
        [section],
        subtitle=f"{event} · rules {info.rules} · {_printed()}",
        numeric=("table",),
    )


# --- dan ledgers and player sheets -----------------------------------------------------------------------


def _player_ids(
    con: duckdb.DuckDBPyConnection, players: list[str] | None, event: str | None, table: str
) -> list[str]:
    from pipelines.reads.tournament_data import LookupFailed, resolve_players, rows

    if players:
        return resolve_players(con, players)
    if event is not None:
        found = [
            r["player_id"]
            for r in rows(
                con, "SELECT DISTINCT player_id FROM player_matches WHERE event_id = ? ORDER BY 1", [event]
            )
        ]
        if not found:
            raise LookupFailed(f"no players in event {event!r}")
        return found
    found = [r["player_id"] for r in rows(con, f"SELECT DISTINCT player_id FROM {table} ORDER BY 1")]
    if not found:
        raise LookupFailed(f"no rows in {table}: has `gdan run` scored this store?")
    return found


def dan_document(con: duckdb.DuckDBPyConnection, players: list[str] | None, event: str | None) -> Document:
    """One page per player: current amateur dan (§S5) and the ledger of every bcta round."""
    from pipelines.reads.tournament_data import roster, rows
    from printouts import Document, Section

    names = roster(con)
    ids = _player_ids(con, players, event, "dan_ledger")
    current = {
        r["player_id"]: r
        for r in rows(con, "SELECT * FROM dan_current WHERE list_contains(?, player_id)", [ids])
    }
    columns = [
        "date",
        "event",
        "round",
        "opponents' dans",
        "counted",
        "round points",
        "earned",
        "dan",
        "total",
        "window",
        "note",
    ]
    sections = []
    offsets: list[int | None] = []
    for pid in ids:
        ledger = rows(
            con,
            "SELECT l.*, m.utc_offset_min FROM dan_ledger l LEFT JOIN matches m USING (match_id) "
            "WHERE l.player_id = ? ORDER BY l.seq",
            [pid],
        )
        offsets.extend(r["utc_offset_min"] for r in ledger if r["started_at"] is not None)
        person = names.get(pid)
        now = current.get(pid)
        lines = [f"player: {person.label if person else pid} ({pid})"]
        if person and person.club:
            lines.append(f"club: {person.club}")
        if now:
            to_next = (
                f"{now['points_to_next']:,} points to dan {now['next_dan']} "
                f"({now['progress']:.0%}), {now['rounds_left']} rounds left in the window"
                if now["next_dan"] is not None
                else "highest dan"
            )
            lines += [
                f"amateur dan: {now['dan'] or 'none'} · points: {now['points']:,}",
                f"next: {to_next}",
                f"rounds: {now['rounds']} played, {now['counted_rounds']} counted",
            ]
        else:
            lines.append("no bcta rounds: no amateur dan points (§S5)")
        body = [
            [
                local_time(r["started_at"], r["utc_offset_min"]),
                r["event_id"],
                r["round"],
                r["opponent_dans"],
                r["counted"],
                r["round_points"],
                r["points_earned"],
                r["dan_after"],
                r["total_after"],
                f"{r['window_rounds_used']}/{r['window_size']}" if r["window_size"] else None,
                r["event"],
            ]
            for r in ledger
        ]
        sections.append(Section(person.label if person else pid, columns, body, lines))
    return Document(
        "Amateur dan ledger (BCTA, scoring.md §S5)",
        sections,
        subtitle=_printed(offsets),
        page_per_section=True,
        numeric=("window",),
    )


def player_document(con: duckdb.DuckDBPyConnection, players: list[str] | None, event: str | None) -> Document:
    """One page per player: name, club, dan, rating, and every match with partner, opponents, result."""
    from pipelines.reads.tournament_data import Player, roster, rows
    from printouts import Document, Section

    names = roster(con)
    ids = _player_ids(con, players, event, "player_matches")
    columns = [
        "date",
        "event",
        "round",
        "seat",
        "partner",
        "opponents",
        "result",
        "levels",
        "deals won",
        "1st places",
    ]
    sections = []
    offsets: list[int | None] = []
    for pid in ids:
        person = names.get(pid) or Player(pid)
        matches = rows(
            con,
            "SELECT pm.*, m.utc_offset_min FROM player_matches pm LEFT JOIN matches m USING (match_id) "
            "WHERE pm.player_id = ? AND (?::VARCHAR IS NULL OR pm.event_id = ?) "
            "ORDER BY pm.started_at NULLS LAST, pm.match_id",
            [pid, event, event],
        )
        offsets.extend(m["utc_offset_min"] for m in matches if m["started_at"] is not None)
        dan = rows(con, "SELECT dan, points FROM dan_current WHERE player_id = ?", [pid])
        rating = rows(con, "SELECT rating, provisional FROM ratings WHERE player_id = ?", [pid])
        lines = [f"player: {person.label} ({pid})"]
        if person.club:
            lines.append(f"club: {person.club}")
        if dan:
            lines.append(f"amateur dan: {dan[0]['dan'] or 'none'} ({dan[0]['points']:,} points)")
        if rating:
            lines.append(
                f"rating: {rating[0]['rating']:.1f}{' (provisional)' if rating[0]['provisional'] else ''}"
            )
        wins = sum(m["result"] == "win" for m in matches)
        lines.append(f"matches: {len(matches)} · won {wins}")
        body = [
            [
                local_time(m["started_at"], m["utc_offset_min"]),
                m["event_id"],
                m["round"],
                m["seat"],
                (names.get(m["partner_id"]) or Player(m["partner_id"])).label if m["partner_id"] else None,
                ", ".join((names.get(o) or Player(o)).label for o in (m["opponent_ids"] or [])),
                m["result"],
                f"{m['final_level']} : {m['opp_final_level']}",
                m["deals_won"],
                m["first_places"],
            ]
            for m in matches
        ]
        sections.append(Section(person.label, columns, body, lines))
    title = f"Player record · {event}" if event else "Player record"
    return Document(title, sections, subtitle=_printed(offsets), page_per_section=True)
