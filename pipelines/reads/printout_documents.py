"""The printouts' documents (``printouts.Document``) built from the store: standings after a
round, a round's results, dan ledgers and player sheets.

Shared by `gdan export` (which writes them to files) and the dashboards (which offer them as
downloads), so both print the same thing, in English or Chinese (``lang``: every printed word
comes from :mod:`printouts.labels`); the data comes through
:mod:`pipelines.reads.tournament_data` (read-only), the files are made by the pure writers of
``printouts``. Unknown events, rounds or players raise
:class:`pipelines.reads.tournament_data.LookupFailed`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import date
from typing import TYPE_CHECKING, Any

from printouts.labels import Lang, seat_name, translator
from schemas.times import local_time, offset_label

if TYPE_CHECKING:
    import duckdb

    from pipelines.reads.tournament_data import Stage
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


def _printed(lang: Lang, offsets: Iterable[int | None] = ()) -> str:
    """The subtitle's end: the day printed and, for a document with times, the offsets they are in.

    Each time is printed in its match's local time (``matches.utc_offset_min``, schemas/times.py),
    as the tournament day's clocks showed it; ``offsets`` are those of the times printed.
    """
    t = translator(lang)
    zones = sorted({o or 0 for o in offsets})
    times = t(" · times in each match's local time ({zones})", zones=", ".join(map(offset_label, zones)))
    return t(
        "printed {day}{times} · Guandan Lens", day=date.today().isoformat(), times=times if zones else ""
    )


def _team(names: dict[str, Any], *ids: str | None) -> tuple[str, str]:
    """Players' names joined with " / ", and their clubs (once when they share one)."""
    from pipelines.reads.tournament_data import Player

    people = [names.get(p) or Player(p) for p in ids if p]
    clubs = list(dict.fromkeys(p.club for p in people if p.club))
    return " / ".join(p.label for p in people), " / ".join(clubs)


# --- standings ------------------------------------------------------------------------------------


def standings_document(
    con: duckdb.DuckDBPyConnection, event: str, stage: str | None, round_no: int | None, lang: Lang = "en"
) -> Document:
    """The standings after a round (default: the last), columns in the ruleset's tie-break order;
    a duplicate event's are its MP table (:func:`duplicate_standings_document`)."""
    from pipelines.reads.tournament_data import LookupFailed, is_duplicate, roster, stage_of, standings
    from printouts import Document, Section
    from scoring.params import params_for

    info = stage_of(con, event, stage)
    after = round_no or max(info.rounds)
    if is_duplicate(con, info):
        return duplicate_standings_document(con, info, after, lang)
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
    t = translator(lang)
    body = []
    for r in table:
        players, clubs = _team(names, r["player_1"], r["player_2"])
        values = {
            **r,
            "players": players,
            "clubs": clubs,
            "decided_by": t(_LABELS[r["decided_by"]]) if r["decided_by"] in _LABELS else r["decided_by"],
        }
        body.append([values[c] for c in columns])
    section = Section(t("Standings after round {after}", after=after), [t(_LABELS[c]) for c in columns], body)
    ranked = ", ".join(t(_LABELS[c]) for c in (p.primary, *chain))
    return Document(
        t(
            "{title} — standings after round {after} of {of}",
            title=info.title,
            after=after,
            of=max(info.rounds),
        ),
        [section],
        subtitle=t(
            "{event} · rules {rules} · ranked by {ranked} · {printed}",
            event=event,
            rules=info.rules,
            ranked=ranked,
            printed=_printed(lang),
        ),
    )


DUPLICATE_COLUMNS = ("rank", "players", "clubs", "team_id", "matches", "deals_compared", "mp", "mp_max",
                     "mp_rate", "place_counts", "decided_by")
"""The columns of a duplicate event's standings (scoring.md §S9), in the CLI and the printouts."""

DUPLICATE_LABELS = {
    "matches": "matches",
    "deals_compared": "results compared",
    "mp": "matchpoints",
    "mp_max": "MP available",
    "mp_rate": "MP score rate",
    "place_counts": "boards 1st · 2nd · …",
}
"""Short headers of the duplicate standings' columns."""


def duplicate_decided(decided: str | None) -> tuple[str, dict[str, str]] | None:
    """A duplicate standings' ``decided_by`` as a printable template and its fields (None: first
    place): ``mp_rate``, ``place_k`` (more boards placed k-th) or ``shared``."""
    if decided is None:
        return None
    if decided.startswith("place_"):
        return "more boards placed {k}", {"k": decided.removeprefix("place_")}
    return {"mp_rate": "MP score rate", "shared": "shared rank"}.get(decided, decided), {}


def duplicate_standings_document(
    con: duckdb.DuckDBPyConnection, info: Stage, after: int, lang: Lang = "en"
) -> Document:
    """A duplicate (複式) event's standings after a round: the MP table of scoring.md §S9 (MP, MP
    available, MP score rate, boards placed 1st, 2nd, …; tied pairs share the rank and the next
    is skipped); ``matches`` counts board-sets, the rooms of one board being one match."""
    from pipelines.reads.tournament_data import LookupFailed, duplicate_ranking, roster
    from printouts import Document, Section

    table = duplicate_ranking(con, info, after)
    if not table:
        raise LookupFailed(
            f"duplicate event {info.event_id} has no compared boards up to round {after}; rounds: "
            f"{', '.join(map(str, info.rounds))}"
        )
    names = roster(con)
    t = translator(lang)
    labels = {**_LABELS, **DUPLICATE_LABELS}
    last = max(info.rounds)
    body = []
    for r in table:
        players, clubs = _team(names, r["player_1"], r["player_2"])
        decided = duplicate_decided(r["decided_by"])
        values = {
            **r,
            "players": players,
            "clubs": clubs,
            "mp_rate": f"{r['mp_rate']:.2%}" if r["mp_rate"] is not None else None,
            "place_counts": " · ".join(map(str, r["place_counts"] or [])),
            "decided_by": None if decided is None else t(decided[0], **decided[1]),
        }
        body.append([values[c] for c in DUPLICATE_COLUMNS])
    section = Section(
        t("Standings after round {after}", after=after), [t(labels[c]) for c in DUPLICATE_COLUMNS], body
    )
    return Document(
        t("{title} — standings after round {after} of {of}", title=info.title, after=after, of=last),
        [section],
        subtitle=t(
            "{event} · rules {rules} · ranked by {ranked} · {printed}",
            event=info.event_id,
            rules=info.rules,
            ranked=t("MP score rate, then boards placed 1st, 2nd, … (duplicate, seed 004)"),
            printed=_printed(lang),
        ),
    )


# --- a round's results ---------------------------------------------------------------------------------


def round_document(
    con: duckdb.DuckDBPyConnection, event: str, stage: str | None, round_no: int, lang: Lang = "en"
) -> Document:
    """A round's results, table by table: both pairs, final levels, winner, points; then the bye.
    A duplicate round's tables show their board and room instead of points: a room's match and
    level points mean nothing there, its standings being the MP table (scoring.md §S9)."""
    from pipelines.reads.tournament_data import LookupFailed, is_duplicate, roster, round_scores, stage_of
    from printouts import Document, Section

    info = stage_of(con, event, stage)
    scores = round_scores(con, info, round_no=round_no)
    if not scores:
        raise LookupFailed(
            f"event {event} has no results in round {round_no}; rounds: {', '.join(map(str, info.rounds))}"
        )
    names = roster(con)
    t = translator(lang)
    points = "bcta_round_score" if info.rules == "bcta" else "match_points"
    duplicate = is_duplicate(con, info)
    by_match: dict[str, dict[str, dict[str, Any]]] = {}
    byes = []
    for r in scores:
        if r["outcome"] == "bye":
            byes.append(r)
        else:
            by_match.setdefault(r["match_id"], {})[r["side"]] = r
    columns = [
        t("table"),
        t("E–W"),
        t("club E–W"),
        t("N–S"),
        t("club N–S"),
        t("levels"),
        t("winner"),
        *(
            (t("board"), t("room"))
            if duplicate
            else (
                t("{points} E–W", points=t(_LABELS[points])),
                t("{points} N–S", points=t(_LABELS[points])),
                t("LP E–W"),
                t("LP N–S"),
            )
        ),
        t("deals"),
    ]
    body = []
    for sides in by_match.values():
        ew, ns = sides.get("EW"), sides.get("NS")
        if ew is None or ns is None:
            continue
        ew_players, ew_club = _team(names, ew["player_1"], ew["player_2"])
        ns_players, ns_club = _team(names, ns["player_1"], ns["player_2"])
        levels = f"{ew['final_level_EW'] or '–'} : {ew['final_level_NS'] or '–'}"
        winner = t({"EW": "E–W", "NS": "N–S"}.get(ew["winner"] or "", "draw"))
        if ew["passed_a"]:
            winner += t(" (passed A)")
        body.append(
            [
                ew["table"],
                ew_players,
                ew_club,
                ns_players,
                ns_club,
                levels,
                winner,
                *(
                    (ew["duplicate_board"], _room(t, ew["duplicate_room"]))
                    if duplicate
                    else (ew[points], ns[points], ew["level_points"], ns["level_points"])
                ),
                ew["deals_played"],
            ]
        )
    for r in byes:
        players, club = _team(names, r["player_1"], r["player_2"])
        scored = (None, None) if duplicate else (r[points], None, r["level_points"], None)
        body.append([t("bye"), players, club, None, None, None, None, *scored, None])
    section = Section(t("Round {round} results", round=round_no), columns, body)
    return Document(
        t("{title} — round {round} results", title=info.title, round=round_no),
        [section],
        subtitle=t(
            "{event} · rules {rules} · {printed}", event=event, rules=info.rules, printed=_printed(lang)
        ),
        numeric=(t("table"),),
    )


def _room(t: Callable[..., str], room: str | None) -> str | None:
    """A duplicate room as printed (``open``/``closed`` translated)."""
    return t(f"{room} room") if room in ("open", "closed") else room


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


def dan_document(
    con: duckdb.DuckDBPyConnection, players: list[str] | None, event: str | None, lang: Lang = "en"
) -> Document:
    """One page per player: current amateur dan (§S5) and the ledger of every bcta round."""
    from pipelines.reads.tournament_data import roster, rows
    from printouts import Document, Section

    names = roster(con)
    t = translator(lang)
    ids = _player_ids(con, players, event, "dan_ledger")
    current = {
        r["player_id"]: r
        for r in rows(con, "SELECT * FROM dan_current WHERE list_contains(?, player_id)", [ids])
    }
    columns = [
        t("date"),
        t("event"),
        t("round"),
        t("opponents' dans"),
        t("counted"),
        t("round points"),
        t("earned"),
        t("dan"),
        t("total"),
        t("window"),
        t("note"),
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
        lines = [t("player: {name} ({id})", name=person.label if person else pid, id=pid)]
        if person and person.club:
            lines.append(t("club: {club}", club=person.club))
        if now:
            to_next = (
                t(
                    "{points} points to dan {dan} ({progress}), {left} rounds left in the window",
                    points=f"{now['points_to_next']:,}",
                    dan=now["next_dan"],
                    progress=f"{now['progress']:.0%}",
                    left=now["rounds_left"],
                )
                if now["next_dan"] is not None
                else t("highest dan")
            )
            lines += [
                t(
                    "amateur dan: {dan} · points: {points}",
                    dan=now["dan"] or t("none"),
                    points=f"{now['points']:,}",
                ),
                t("next: {next}", next=to_next),
                t(
                    "rounds: {played} played, {counted} counted",
                    played=now["rounds"],
                    counted=now["counted_rounds"],
                ),
            ]
        else:
            lines.append(t("no bcta rounds: no amateur dan points (§S5)"))
        body = [
            [
                local_time(r["started_at"], r["utc_offset_min"]),
                r["event_id"],
                r["round"],
                r["opponent_dans"],
                None if r["counted"] is None else t("yes" if r["counted"] else "no"),
                r["round_points"],
                r["points_earned"],
                r["dan_after"],
                r["total_after"],
                f"{r['window_rounds_used']}/{r['window_size']}" if r["window_size"] else None,
                t(r["event"]) if r["event"] else None,
            ]
            for r in ledger
        ]
        sections.append(Section(person.label if person else pid, columns, body, lines))
    return Document(
        t("Amateur dan ledger (BCTA, scoring.md §S5)"),
        sections,
        subtitle=_printed(lang, offsets),
        page_per_section=True,
        numeric=(t("window"),),
    )


def player_document(
    con: duckdb.DuckDBPyConnection, players: list[str] | None, event: str | None, lang: Lang = "en"
) -> Document:
    """One page per player: name, club, dan, rating, and every match with partner, opponents, result."""
    from pipelines.reads.tournament_data import Player, roster, rows
    from printouts import Document, Section

    names = roster(con)
    t = translator(lang)
    ids = _player_ids(con, players, event, "player_matches")
    columns = [
        t("date"),
        t("event"),
        t("round"),
        t("seat"),
        t("partner"),
        t("opponents"),
        t("result"),
        t("levels"),
        t("deals won"),
        t("1st places"),
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
        lines = [t("player: {name} ({id})", name=person.label, id=pid)]
        if person.club:
            lines.append(t("club: {club}", club=person.club))
        if dan:
            lines.append(
                t(
                    "amateur dan: {dan} ({points} points)",
                    dan=dan[0]["dan"] or t("none"),
                    points=f"{dan[0]['points']:,}",
                )
            )
        if rating:
            provisional = t(" (provisional)") if rating[0]["provisional"] else ""
            lines.append(
                t(
                    "rating: {rating}{provisional}",
                    rating=f"{rating[0]['rating']:.1f}",
                    provisional=provisional,
                )
            )
        wins = sum(m["result"] == "win" for m in matches)
        lines.append(t("matches: {matches} · won {wins}", matches=len(matches), wins=wins))
        body = [
            [
                local_time(m["started_at"], m["utc_offset_min"]),
                m["event_id"],
                m["round"],
                seat_name(m["seat"], lang) if m["seat"] else None,
                (names.get(m["partner_id"]) or Player(m["partner_id"])).label if m["partner_id"] else None,
                ", ".join((names.get(o) or Player(o)).label for o in (m["opponent_ids"] or [])),
                t(m["result"]) if m["result"] else None,
                f"{m['final_level']} : {m['opp_final_level']}",
                m["deals_won"],
                m["first_places"],
            ]
            for m in matches
        ]
        sections.append(Section(person.label, columns, body, lines))
    title = t("Player record · {event}", event=event) if event else t("Player record")
    return Document(title, sections, subtitle=_printed(lang, offsets), page_per_section=True)
