"""Results entry (issue 14): a referee picks the event and round, sees the round's tables (the
pairing of scoring.md §S8, the code of `gdan pair`), taps each deal's result, sees the levels and
the round result as the rules engine derives them, and submits each finished table to the
store's inbox (``dashboards.entry_inbox``). "Pair next round" gives the next round's tables.

The logic is :mod:`dashboards.entry`; this page only lays out widgets and keeps the entered
deals in the session.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd
import streamlit as st

from dashboards.entry import (
    RESULT_KINDS,
    TableEntry,
    derive,
    first_round_seats,
    order_of,
    pairing_failure,
    pairing_note,
    parse_pairs,
    table_spec,
)
from dashboards.entry_inbox import AlreadySubmitted, submission_path, submit
from dashboards.i18n import LABELS
from dashboards.naming import end_reason_name, error_name, seat_name, stage_name
from dashboards.queries import entry as queries
from dashboards.ui import current_store, from_url, lang, run, show_table, to_url, tr, url_param
from importers.jobs import file_name_problem
from pipelines.reads.tournament_data import LookupFailed
from printouts import Section, to_csv
from replay import BUILTIN
from replay.rulesets import RoundFormat, parse_round_format
from schemas.vocabulary import SEATS

# The event choice that opens the new-event form.
NEW = "\0new"

st.title(tr("page_entry"))
st.caption(tr("entry_intro"))
orders: dict[str, list[tuple[str, ...]]] = st.session_state.setdefault("entry_orders", {})

roster = run(queries.entry_roster)
names = {r.player_id: r.name for r in roster.itertuples() if isinstance(r.name, str)}
players = {
    r.player_id: {k: v for k, v in (("name", r.name), ("club", r.club)) if isinstance(v, str)}
    for r in roster.itertuples()
}
events = run(queries.entry_events)
stages = [s if isinstance(s, str) else "" for s in events["stage"]]
keys = [f"{e}\0{s}" for e, s in zip(events["event_id"], stages, strict=True)]
event_rows = dict(zip(keys, events.to_dict("records"), strict=True))


def _event_label(key: str) -> str:
    if key == NEW:
        return tr("entry_new_event")
    row = event_rows[key]
    stage = f" · {stage_name(row['stage'], lang())}" if isinstance(row["stage"], str) else ""
    return (
        f"{row['event_name']} ({row['event_id']}){stage}"
        if isinstance(row["event_name"], str)
        else (f"{row['event_id']}{stage}")
    )


def _from_address(event: str) -> str:
    """The choice of ``?event=`` (with ``?stage=`` when the event has several stages)."""
    found = [k for k in keys if event_rows[k]["event_id"] == event]
    if not found:
        raise ValueError(event)
    stage = url_param("stage")
    return next((k for k in found if event_rows[k]["stage"] == stage), found[0])


def _positive(text: str) -> int:
    """A round number of the address (a ``ValueError`` below 1)."""
    if int(text) < 1:
        raise ValueError(text)
    return int(text)


# The address holds the event, its stage and the round, as on the other pages (a new event's
# form is not in it).
from_url("en_event", "event", keys, parse=_from_address)
choice = st.selectbox(tr("event"), [*keys, NEW], key="en_event", format_func=_event_label)
seats_by_table: dict[int | str, dict[str, str]] = {}
stored = pd.DataFrame()
last = 0
bye: str | None = None
refused: str | None = None
if choice == NEW:
    left, right = st.columns(2)
    event_id = left.text_input(tr("entry_event_id"), key="en_new_id").strip()
    event_name = right.text_input(tr("entry_event_name"), key="en_new_name").strip() or None
    rules_id = left.selectbox(tr("ruleset"), sorted(BUILTIN), key="en_new_rules")
    format_text = right.text_input(tr("entry_format"), key="en_new_format", help=tr("entry_format_help"))
    stage = None
    pairs_text = st.text_area(tr("entry_pairs"), key="en_new_pairs", help=tr("entry_pairs_help"), height=200)
    ruleset = BUILTIN[rules_id]
    pairs, problems = parse_pairs(pairs_text, {v: k for k, v in names.items()})
    for bad in problems:
        st.error(bad)
    round_no = 1
    st.caption(f"{tr('round')} 1")
    for param in ("event", "stage", "round"):
        to_url(f"en_{param}", param, None)
    id_problem = file_name_problem(event_id)
    if id_problem is not None:
        st.info(f"{tr('entry_bad_id')}: {id_problem}")
        st.stop()
    try:
        fmt = parse_round_format(format_text) if format_text.strip() else ruleset.default_format
    except ValueError as exc:
        st.error(f"{tr('entry_bad_format')}: {exc}")
        st.stop()
    if len(pairs) < 2:
        st.info(tr("entry_no_pairs"))
        st.stop()
    clubs = {p: players.get(p, {}).get("club") for pair in pairs for p in pair}
    paired, bye_pair = first_round_seats(pairs, clubs)
    seats_by_table = {number: table for number, table in paired.items()}
    bye = " / ".join(bye_pair) if bye_pair else None
else:
    row = event_rows[choice]
    event_id, event_name = row["event_id"], row["event_name"] if isinstance(row["event_name"], str) else None
    stage = row["stage"] if isinstance(row["stage"], str) else None
    if row["rules"] not in BUILTIN:
        st.error(f"{tr('entry_unknown_rules')}: {row['rules']}")
        st.stop()
    ruleset = BUILTIN[row["rules"]]
    fmt = RoundFormat(
        row["format_kind"],
        deals=int(row["format_deals"]) if pd.notna(row["format_deals"]) else None,
        minutes=int(row["format_minutes"]) if pd.notna(row["format_minutes"]) else None,
    )
    last = int(row["last_round"]) if pd.notna(row["last_round"]) else 0
    to_url("en_event", "event", event_id)
    several = sum(event_rows[k]["event_id"] == event_id for k in keys) > 1
    to_url("en_stage", "stage", stage if several else None)
    if st.session_state.get("en_round_of") != choice or "en_round" not in st.session_state:
        st.session_state["en_round"] = last + 1  # another event: its next round, not the last one's
        st.session_state["en_round_of"] = choice
    from_url("en_round", "round", parse=_positive)
    round_no = int(st.number_input(tr("round"), min_value=1, step=1, key="en_round"))
    to_url("en_round", "round", round_no, default=last + 1)
    stored = run(queries.entry_round_tables, event=event_id, stage=stage, round_no=round_no)
    if stored.empty:
        try:
            sheet = run(queries.entry_pairing, event=event_id, stage=stage, round_no=round_no)
        except LookupFailed as exc:
            st.error(f"{tr('entry_pairing_failed')}: {pairing_failure(exc, lang())}")
            refused = getattr(exc, "reason", None)
        else:
            seats_by_table = {number: seats for number, seats in sheet.seats.items()}
            bye = next((str(r[2]) for r in sheet.rows if r[0] == "bye"), None)


def _player(player: str) -> str:
    return f"{names[player]} ({player})" if player in names else player


def _add(match: str, key: str) -> None:
    """Record the tapped deal and clear the taps for the next one."""
    first, kind = st.session_state.get(f"{key}_first"), st.session_state.get(f"{key}_kind")
    if first and kind:
        orders.setdefault(match, []).append(tuple(order_of(first, kind)))
    st.session_state[f"{key}_first"] = None
    st.session_state[f"{key}_kind"] = None


def _undo(match: str) -> None:
    if orders.get(match):
        orders[match].pop()


def _table(
    table: int | str, seats: Mapping[str, str], match_id: str | None = None, revision: int = 1
) -> None:
    """One table: its pairs, the deals entered with what the replay derives, the taps, submit.
    With a ``revision`` above 1 it corrects the submitted ``match_id``."""
    spec = table_spec(event_id, event_name, stage, round_no, table, seats, players, match_id, revision)
    suffix = f".rev{revision}" if revision > 1 else ""
    match, key = f"{spec.match_id}{suffix}", f"en_{spec.match_id}{suffix}"
    ew, ns = (" / ".join(_player(seats[s]) for s in pair) for pair in (("E", "W"), ("N", "S")))
    with st.container(border=True, key=f"entry_table_{table}{suffix}"):
        shown = f" · {tr('entry_revision')} {revision}" if revision > 1 else ""
        st.markdown(f"**{tr('table')} {table}**{shown} · {tr('team_EW')}: {ew} · {tr('team_NS')}: {ns}")
        derived = derive(TableEntry(spec, ruleset, fmt, tuple(orders.get(match, []))))
        if derived.deals:
            st.dataframe(
                pd.DataFrame(
                    {
                        tr("choose_deal"): [d["deal_no"] for d in derived.deals],
                        tr("level"): [d["level"] for d in derived.deals],
                        tr("declarers"): [d["declarers"] or "" for d in derived.deals],
                        tr("entry_order"): [" ".join(d["finish_order"]) for d in derived.deals],
                        tr("entry_level_gain"): [d["level_gain"] for d in derived.deals],
                        tr("entry_levels_after"): [
                            f"{d['level_EW_after']} : {d['level_NS_after']}" for d in derived.deals
                        ],
                        tr("entry_a"): ["✓" if d["a_attempt"] else "" for d in derived.deals],
                    }
                ),
                hide_index=True,
                key=f"{key}_deals",
                placeholder="",
            )
        levels = f"{tr('entry_levels_now')}: E–W {derived.levels['EW']} : N–S {derived.levels['NS']}"
        if derived.refusal is not None:
            where = f" ({tr('choose_deal')} {derived.refusal.deal})" if derived.refusal.deal else ""
            st.error(
                f"{tr('entry_refused')}{where}: {error_name(derived.refusal.code, lang())}. "
                f"{tr('error_message')}: {derived.refusal.message}"
            )
        elif derived.over:
            side = {"EW": tr("team_EW"), "NS": tr("team_NS")}
            result = side.get(derived.winner or "", tr("draw"))
            reason = f"entry_end_{derived.end_reason}"
            ended = tr(reason) if reason in LABELS else str(derived.end_reason)
            ended = f"{tr('end_reason')}: {ended}"
            st.success(f"{tr('entry_over')} · {tr('winner')}: {result} · {levels} · {ended}")
        else:
            st.caption(f"{tr('entry_open')} · {levels}")
        path = submission_path(Path(current_store()), spec.match_id, revision)
        if path.exists():
            st.info(f"{tr('entry_submitted')} ({path.name})")
            return
        left, middle = st.columns(2)
        left.segmented_control(
            tr("entry_first"),
            list(SEATS),
            key=f"{key}_first",
            format_func=lambda s: f"{seat_name(s, lang())} {seats[s]}",
        )
        middle.segmented_control(
            tr("entry_result_kind"),
            list(RESULT_KINDS),
            key=f"{key}_kind",
            format_func=lambda k: tr(f"result_{k}"),
        )
        add, undo, send = st.columns(3)
        add.button(tr("entry_add_deal"), key=f"{key}_add", on_click=_add, args=(match, key))
        undo.button(tr("entry_undo"), key=f"{key}_undo", on_click=_undo, args=(match,))
        if send.button(tr("entry_submit"), key=f"{key}_submit", disabled=not derived.over, type="primary"):
            try:
                submit(Path(current_store()), derived.events, revision)
            except AlreadySubmitted as exc:
                st.error(f"{tr('entry_already')}: {exc}")
            st.rerun()


st.subheader(f"{tr('entry_tables')} · {tr('round')} {round_no}")
if not stored.empty:
    st.caption(tr("entry_in_store"))
    sides = {"EW": tr("team_EW"), "NS": tr("team_NS")}
    show_table(
        stored.assign(
            status=[tr(f"status_{x}") if f"status_{x}" in LABELS else x for x in stored["status"]],
            winner=[sides.get(w, tr("draw")) if isinstance(w, str) or x == "valid" else ""
                    for w, x in zip(stored["winner"], stored["status"], strict=True)],
            end_reason=[end_reason_name(r, lang()) for r in stored["end_reason"]],
        ),
        f"entry-{event_id}-r{round_no}",
        column_config={f"player_{x}": f"{tr('player')} {seat_name(x, lang())}" for x in SEATS},
    )
    fix = st.selectbox(
        tr("entry_correct"),
        [None, *stored["match_id"]],
        key="en_correct",
        format_func=lambda m: tr("entry_none") if m is None else m,
    )
    if fix is not None:
        row = stored.set_index("match_id").loc[fix]
        revision = int(row["revision"]) + 1 if pd.notna(row["revision"]) else 2
        if f"{fix}.rev{revision}" not in orders:
            loaded = run(queries.entry_match_orders, match=fix)
            orders[f"{fix}.rev{revision}"] = [tuple(o) for o in loaded["finish_order"]]
        fixed_seats = {s: str(row[f"player_{s}"]) for s in SEATS}
        _table(str(row["table"]), fixed_seats, fix, revision)
for number, seats in seats_by_table.items():
    _table(number, seats)
if stored.empty and not seats_by_table and choice != NEW and refused != "individual":
    st.info(tr("entry_no_tables").format(r=round_no, prev=round_no - 1), icon=":material/info:")
if bye:
    st.caption(f"{tr('bye')}: {bye}")

if choice != NEW and st.button(tr("entry_pair_next"), key="en_pair_next"):
    after = last + 1
    try:
        sheet = run(queries.entry_pairing, event=event_id, stage=stage, round_no=after)
    except LookupFailed as exc:
        st.error(f"{tr('entry_pairing_failed')}: {pairing_failure(exc, lang())}")
    else:
        title = tr("pairing_title").format(event=_event_label(choice), r=after)
        st.markdown(f"**{title}**")
        st.dataframe(
            pd.DataFrame(
                [[tr("bye") if r[0] == "bye" else r[0], *r[1:]] for r in sheet.rows], columns=sheet.columns
            ),
            hide_index=True,
            key="en_next_table",
            placeholder="",
            column_config={c: tr(c) for c in sheet.columns if c in LABELS},
        )
        for note in sheet.notes:
            st.caption(pairing_note(note, lang()))
        st.download_button(
            tr("download_csv"),
            to_csv(Section(sheet.title, sheet.columns, sheet.rows)),
            file_name=f"pairing-{event_id}-r{after}.csv",
            mime="text/csv",
            key="en_next_csv",
        )
