"""Tournament: standings per event and round with every tie-break column (scoring.md §S7), and
the round results (final levels, 级差, match and level-difference points, §S1–§S3). Event and
round are in the address (``?event=…&round=…``); players open the player page and matches the
replayer."""

from __future__ import annotations

import streamlit as st

from dashboards import charts
from dashboards.i18n import LABELS
from dashboards.naming import end_reason_name, entry_name, stage_name
from dashboards.queries.players import players
from dashboards.queries.tournament import (
    duplicate_results,
    duplicate_standings,
    event_rounds,
    events,
    round_results,
    standings,
)
from dashboards.ui import (
    NAMED_LINK,
    decided_label,
    from_url,
    lang,
    no_data,
    player_link,
    printout_downloads,
    replayer_link,
    run,
    show_chart,
    show_table,
    to_url,
    tr,
    url_choice,
)
from pipelines.reads.printout_documents import round_document, standings_document
from schemas.vocabulary import TEAMS


def duplicate_sections(event: str, after_round: int | None, names: dict[str, str]) -> None:
    """A duplicate (複式) event's standings, its MP table (scoring.md §S9) after ``after_round``
    (None: the last), and its results per board; pairs by their players' ``names``."""
    st.subheader(tr("duplicate_standings"))
    st.caption(tr("duplicate_intro"))
    duplicate = run(duplicate_standings, event=event, after_round=after_round)
    if not duplicate.empty:
        duplicate = duplicate.assign(
            pair=[
                " / ".join(names.get(p, p) for p in pair if isinstance(p, str))
                for pair in zip(duplicate["player_1"], duplicate["player_2"], strict=True)
            ],
            place_counts=[
                " · ".join(str(n) for n in counts) if counts is not None else ""
                for counts in duplicate["place_counts"]
            ],
            decided_by=[decided_label(d) for d in duplicate["decided_by"]],
        )[
            [
                "rank",
                "pair",
                "team_id",
                "matches",
                "deals_compared",
                "mp",
                "mp_max",
                "mp_rate",
                "place_counts",
                "decided_by",
            ]
        ]
    show_table(
        duplicate,
        "duplicate_standings",
        column_config={
            "rank": "#",
            "pair": tr("pair"),
            "team_id": tr("team"),
            "matches": st.column_config.NumberColumn(tr("board_sets"), help=tr("board_sets_help")),
            "deals_compared": tr("deals_compared"),
            "mp": tr("mp"),
            "mp_max": tr("mp_max"),
            "mp_rate": st.column_config.NumberColumn(tr("mp_rate"), format="percent"),
            "place_counts": tr("place_counts"),
            "decided_by": tr("decided_by"),
        },
    )
    st.caption(tr("duplicate_no_match_points"))
    st.subheader(tr("duplicate_boards"))
    boards = run(duplicate_results, event=event)
    if not boards.empty:
        boards = boards.assign(
            pair=[
                " / ".join(names.get(p, p) for p in pair if isinstance(p, str))
                for pair in zip(boards["player_1"], boards["player_2"], strict=True)
            ],
            room=[tr(f"room_{r}") if r in ("open", "closed") else (r or "") for r in boards["room"]],
        )[
            [
                "board",
                "deal_no",
                "direction",
                "room",
                "pair",
                "result",
                "mp",
                "mp_max",
                "place",
                "rooms",
                "match_id",
            ]
        ]
    show_table(
        boards,
        "duplicate_results",
        column_config={
            "board": tr("board"),
            "deal_no": tr("choose_deal"),
            "direction": tr("direction"),
            "room": tr("room"),
            "pair": tr("pair"),
            "result": st.column_config.NumberColumn(tr("outcome_class"), help=tr("outcome_class_help")),
            "mp": tr("mp"),
            "mp_max": tr("mp_max"),
            "place": tr("place"),
            "rooms": tr("rooms"),
            "match_id": tr("choose_match"),
        },
    )


def match_point_standings(
    event: str, round_no: int | None, shown_round: int | str, names: dict[str, str]
) -> None:
    """The standings by match points with every tie-break column (scoring.md §S7) after ``round_no``
    (None: the last); teams by their players' ``names``."""
    st.subheader(f"{tr('standings')} · {tr('round')} {shown_round}")
    table = run(standings, event=event, round_no=round_no)
    key = table["primary_key"].dropna()
    primary = key.iloc[0] if len(key) else None
    points = primary if primary in ("match_points", "bcta_round_score") else "match_points"
    if table.empty:
        st.caption(tr("standings_missing"))
    else:
        table = table.assign(
            stage=[stage_name(x, lang()) for x in table["stage"]],
            entry=[entry_name(x, lang()) for x in table["entry"]],
            decided_by=[decided_label(d) for d in table["decided_by"]],
            primary_key=[tr(k) if k in LABELS else k for k in table["primary_key"]],
            team=[
                " / ".join(names.get(p, p) for p in pair if isinstance(p, str))
                for pair in zip(table["player_1"], table["player_2"], strict=True)
            ],
        )
        show_chart(charts.standings_points(table, lang(), team="team", points=points), "standings_points")
        linked = table.assign(
            player_1=[
                player_link(p, names.get(p, p)) if isinstance(p, str) else None for p in table["player_1"]
            ],
            player_2=[
                player_link(p, names.get(p, p)) if isinstance(p, str) else None for p in table["player_2"]
            ],
        )
        # the pair by its names where the id was; the id stays in the download and the player links
        order = [c for c in linked.columns if c != "team"]
        order.insert(order.index("team_id"), "team")
        show_table(
            linked[order],
            "standings",
            column_config={
                "rank": "#",
                **{
                    c: st.column_config.LinkColumn(tr(c), display_text=NAMED_LINK)
                    for c in ("player_1", "player_2")
                },
                "team_id": None,
                "team": tr("team"),
                "match_points": tr("match_points"),
                "level_points": tr("level_points"),
                "wins": tr("wins"),
                "draws": tr("draws"),
                "losses": tr("losses"),
                "rounds": tr("rounds"),
                "levels_gained": tr("levels_gained"),
            },
        )


st.title(tr("page_tournament"))

stored_events = run(events)
if stored_events.empty:
    no_data()
    st.stop()

names = dict(zip(stored_events["event_id"], stored_events["event_name"], strict=True))
left, right = st.columns(2)
with left:
    event = url_choice(
        st.selectbox,
        tr("event"),
        stored_events["event_id"].tolist(),
        key="tn_event",
        param="event",
        format_func=lambda e: f"{names[e]} ({e})" if names.get(e) else e,
    )
rounds = [int(r) for r in run(event_rounds, event=event)["round"].dropna()]
round_options: list[int | None] = [None, *rounds]
last_round = rounds[-1] if rounds else None
from_url("tn_round", "round", round_options, parse=lambda r: None if r == "all" else int(r))
if st.session_state.get("tn_round", -1) not in round_options:
    st.session_state["tn_round"] = last_round  # by default the standings after the last round
elif st.session_state.get("tn_followed") == (event, st.session_state["tn_round"]):
    # a page left on the event's last round follows the next one when its results come in
    st.session_state["tn_round"] = last_round
st.session_state["tn_followed"] = (event, last_round)
with right:
    round_no = st.selectbox(
        tr("round"),
        round_options,
        key="tn_round",
        format_func=lambda r: tr("all") if r is None else str(r),
    )
to_url("tn_round", "round", "all" if round_no is None else round_no, default=last_round)

shown_round = round_no if round_no is not None else max(rounds, default="")
roster = run(players)
player_names = {p: n for p, n in zip(roster["player_id"], roster["name"], strict=True) if isinstance(n, str)}
duplicate_event = bool(stored_events.set_index("event_id")["duplicate"].get(event, False))
if duplicate_event:
    duplicate_sections(event, None if round_no in (None, last_round) else round_no, player_names)
if not duplicate_event:
    match_point_standings(event, round_no, shown_round, player_names)

st.subheader(tr("printouts"))
printout_downloads(
    standings_document, f"standings-{event}-r{shown_round}", tr("standings_printout"), event, None, round_no
)
if rounds:
    printout_downloads(
        round_document,
        f"round-{event}-r{shown_round}",
        f"{tr('round_printout')} {shown_round}",
        event,
        None,
        int(shown_round),
    )

st.subheader(tr("round_results"))
results = run(round_results, event=event, round_no=round_no)
if duplicate_event:  # a room's match and level points mean nothing in a duplicate event (§S9)
    results = results.drop(columns=[f"{p}_{s}" for p in ("match_points", "level_points") for s in TEAMS])
sides = {"EW": tr("team_EW"), "NS": tr("team_NS"), "bye": tr("bye")}


def pair_by_names(pair: object) -> object:
    """A team cell "id / id" with each player's name where the roster has one."""
    return " / ".join(player_names.get(p, p) for p in pair.split(" / ")) if isinstance(pair, str) else pair


show_table(
    results.assign(
        team_EW=[pair_by_names(t) for t in results["team_EW"]],
        team_NS=[pair_by_names(t) for t in results["team_NS"]],
        winner=[
            sides.get(w, w) if isinstance(w, str) else tr("draw") if s == "valid" else ""
            for w, s in zip(results["winner"], results["status"], strict=True)
        ],
        status=[tr(f"status_{s}") if f"status_{s}" in LABELS else s for s in results["status"]],
        stage=[stage_name(x, lang()) for x in results["stage"]],
        end_reason=[end_reason_name(r, lang()) for r in results["end_reason"]],
        match_id=[replayer_link(m) if isinstance(m, str) else None for m in results["match_id"]],
    ),
    "round_results",
    column_config={
        "match_id": st.column_config.LinkColumn(tr("match_id"), display_text=r"match=([^&]*)"),
        "round": tr("round"),
        "table": tr("table"),
        "started": tr("started_local"),
        "winner": tr("winner"),
        "level_diff": tr("level_diff"),
    },
)
