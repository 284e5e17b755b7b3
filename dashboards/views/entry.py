"""Results entry: a referee picks the event and round, sees every table of the round (the draw the
event registry keeps, else the pairing of scoring.md §S8, the code of `gdan pair`), taps each
deal's result, sees the levels and the round result as the rules engine derives them, and submits
each finished table to the store's inbox (``dashboards.entry_inbox``); for an event whose
opponents confirm, the other pair confirms it first and a disputed result waits in the referee's
queue (:mod:`service.confirmation`). "Pair next round" gives the next round's tables. A duplicate
(複式) event's drawn table is listed as its two rooms (``pipelines.reads.pairing_sheet.duplicate_rooms``,
scoring.md §S9), each room's table entered as its own match of the board.

The logic is :mod:`dashboards.entry` and :mod:`service`; this page lays out widgets and keeps
the entered deals in the session.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import suppress
from datetime import datetime
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from dashboards import access
from dashboards.entry import (
    RESULT_KINDS,
    TableEntry,
    deal_orders,
    derive,
    first_round_seats,
    order_of,
    pairing_failure,
    pairing_note,
    parse_players,
    table_spec,
)
from dashboards.entry_inbox import AlreadySubmitted, NotAllowed, submission_path, submit
from dashboards.i18n import LABELS
from dashboards.naming import end_reason_name, error_name, seat_name, stage_name
from dashboards.queries import entry as queries
from dashboards.ui import (
    current_store,
    from_url,
    lang,
    page_link,
    reload_data,
    run,
    show_table,
    to_url,
    tr,
    url_param,
)
from importers.jobs import file_name_problem
from pipelines.reads.pairing_sheet import PairingSheet, duplicate_rooms
from pipelines.reads.tournament_data import LookupFailed
from printouts import Section, to_csv
from replay import BUILTIN
from replay.rulesets import RoundFormat, parse_round_format
from schemas.vocabulary import SEATS
from scoring.pairing import System
from service import confirmation, registry
from service.confirmation import CONFIRMING_SIDE, ENTERING_SIDE

# The pairing systems a manager may choose (None: `gdan pair`'s auto: knockout or round robin for
# a stage named so, snake seating for a duplicate event, else Swiss); a knockout is `gdan pair`'s.
PAIRING_SYSTEMS: tuple[System | None, ...] = (None, "swiss", "round_robin", "snake")


# The event choice that opens the new-event form.
NEW = "\0new"
TABLET_CSS = """
<style>
[class*="st-key-en_"][class*="_first"], [class*="st-key-en_"][class*="_kind"] { width: 100% !important; }
[class*="st-key-en_"][class*="_first"] [data-testid="stButtonGroup"],
[class*="st-key-en_"][class*="_kind"] [data-testid="stButtonGroup"] { width: 100%; }
[class*="st-key-en_"][class*="_first"] [role="radiogroup"],
[class*="st-key-en_"][class*="_kind"] [role="radiogroup"] {
  display: grid; gap: 0.25rem; width: 100%; grid-template-columns: repeat(2, minmax(0, 1fr));
}
[class*="st-key-en_"][class*="_kind"] [role="radiogroup"] {
  grid-template-columns: repeat(3, minmax(0, 1fr));
}
[class*="st-key-en_"][class*="_first"] button, [class*="st-key-en_"][class*="_kind"] button {
  width: 100%; min-width: 0; height: auto; min-height: 3rem; margin: 0; border-radius: 0.5rem;
}
[class*="st-key-en_"][class*="_first"] button p, [class*="st-key-en_"][class*="_kind"] button p {
  white-space: normal; overflow-wrap: anywhere;
}
</style>
"""
# Tablets (768–834 px portrait): the seat and result buttons wrap inside the table's box.

st.title(tr("page_entry"))
who = access.require_writer()  # a referee of the event, an admin, or a table's token; nobody else
# Who acts on this page in what the service records: the account, or the table token's public id.
actor = who.name
# Whether the principal runs the event (an admin, an assigned referee): registrations, check-in,
# pairing, the referee's queue; a table token enters its own table's result only.
manages = who.account is not None or who.anonymous
st.caption(tr("entry_intro"))
st.html(TABLET_CSS)
store = Path(current_store())
orders: dict[str, list[tuple[str, ...]]] = st.session_state.setdefault("entry_orders", {})
started: dict[str, str] = st.session_state.setdefault("entry_started", {})

# The address's event wins: an event the cached tables do not know yet (a run since they were
# read) reloads them, and one still unknown is refused rather than replaced by another event.
wanted, wanted_round = url_param("event"), url_param("round")
registered = {e.id: e for e in registry.events(store)}
events = run(queries.entry_events)
if wanted and wanted not in registered and wanted not in set(events["event_id"]):
    reload_data()
    events = run(queries.entry_events)
    if wanted not in set(events["event_id"]):
        st.error(tr("entry_unknown_event").format(event=wanted))
        page_link("entry", tr("entry_open_default"))
        st.stop()

roster = run(queries.entry_roster)
names = {r.player_id: r.name for r in roster.itertuples() if isinstance(r.name, str)}
players: dict[str, dict[str, str]] = {
    r.player_id: {k: v for k, v in (("name", r.name), ("club", r.club)) if isinstance(v, str)}
    for r in roster.itertuples()
}
for known_event in registered.values():
    for p in known_event.players.values():
        details = {k: v for k, v in (("name", p.name), ("club", p.club)) if v}
        players[p.id] = {**players.get(p.id, {}), **details}
        if p.name:
            names[p.id] = p.name

event_rows: dict[str, dict[str, Any]] = {}
for row in events.to_dict("records"):
    event_rows[f"{row['event_id']}\0{row['stage'] if isinstance(row['stage'], str) else ''}"] = row
for known_event in registered.values():
    key = f"{known_event.id}\0{known_event.stage or ''}"
    if key not in event_rows:
        fmt_of = known_event.format
        event_rows[key] = {
            "event_id": known_event.id,
            "event_name": known_event.name,
            "stage": known_event.stage,
            "rules": known_event.rules,
            "format_kind": fmt_of.get("kind"),
            "format_deals": fmt_of.get("deals"),
            "format_minutes": fmt_of.get("minutes"),
            "last_round": None,
            "individual": False,
            "duplicate": known_event.duplicate,
        }


def _is_registered(key: str) -> bool:
    return bool(event_rows[key]["event_id"] in registered)


# The registered events (the newest first), then the store's pair events, then its individual
# events (which cannot be paired): the first is the default.
def _may_open(key: str) -> bool:
    """Whether the principal may enter results of the event ``key`` names (a table token: its own)."""
    event = event_rows[key]["event_id"]
    if who.grant is not None:
        return bool(event == who.grant.event_id)
    return who.anonymous or (who.account is not None and who.account.may_write(event))


event_rows = {k: v for k, v in event_rows.items() if _may_open(k)}
keys = sorted(
    filter(_is_registered, event_rows),
    key=lambda k: registered[event_rows[k]["event_id"]].created.at,
    reverse=True,
) + sorted(
    (k for k in event_rows if not _is_registered(k)), key=lambda k: (bool(event_rows[k]["individual"]), k)
)


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


def _player(player: str) -> str:
    """A player's name (the id when the roster has none)."""
    return names.get(player, player)


def _pair_of(seats: Mapping[str, str], side: str) -> str:
    """The names of the pair at ``side`` (``EW`` or ``NS``)."""
    return " / ".join(_player(seats[s]) for s in side)


def _registered(player: str, known: Mapping[str, Mapping[str, str]]) -> registry.Player:
    return registry.Player(player, known.get(player, {}).get("name"), known.get(player, {}).get("club"))


def _register(
    event_id: str,
    event_name: str | None,
    rules_id: str,
    fmt: RoundFormat,
    pairs: list[tuple[str, str]],
    typed: dict[str, dict[str, str]],
    confirm: bool,
    duplicate: bool,
) -> None:
    """Register the new event with its pairs and round 1's draw (a duplicate event's: by room),
    and choose it."""
    fmt_payload = {k: v for k, v in (("kind", fmt.kind), ("deals", fmt.deals), ("minutes", fmt.minutes)) if v}
    known = {**players, **typed}
    event = registry.Event(
        event_id,
        event_name,
        rules_id,
        fmt_payload,
        registry.Stamp(actor, registry.now()),
        confirmation=confirm,
        duplicate=duplicate,
        pairs=tuple(registry.Pair((_registered(a, known), _registered(b, known))) for a, b in pairs),
    )
    registry.create(store, event, in_store=set(events["event_id"]))
    clubs = {p: known.get(p, {}).get("club") for pair in pairs for p in pair}
    paired, bye_pair = first_round_seats(pairs, clubs)
    if duplicate:
        rooms = duplicate_rooms(event_id, None, 1, paired)
        tables = {t: r.seats for t, r in rooms.items()}
        registry.record_draw(store, event_id, 1, tables, bye_pair, {t: r.duplicate for t, r in rooms.items()})
    else:
        registry.record_draw(store, event_id, 1, {str(n): t for n, t in paired.items()}, bye_pair)
    st.session_state["en_pick"] = f"{event_id}\0"


# The address holds the event, its stage and the round, as on the other pages (a new event's
# form is not in it).
if "en_pick" in st.session_state:
    st.session_state["en_event"] = st.session_state.pop("en_pick")
from_url("en_event", "event", keys, parse=_from_address)
choice = st.selectbox(
    tr("event"), [*keys, NEW] if who.may_manage() or who.anonymous else keys, key="en_event",
    format_func=_event_label,
)
if choice is None:  # a referee with no event assigned, or a table token whose event is not drawn yet
    st.info(tr("entry_no_event_yours"))
    st.stop()
seats_by_table: dict[str, dict[str, str]] = {}
rooms_by_table: dict[str, dict[str, str]] = {}  # a duplicate round: each table's board and room
stored = pd.DataFrame()
last = 0
bye: str | None = None
refused: str | None = None
reg: registry.Event | None = None
if choice == NEW:
    left, right = st.columns(2)
    event_id = left.text_input(tr("entry_event_id"), key="en_new_id").strip()
    event_name = right.text_input(tr("entry_event_name"), key="en_new_name").strip() or None
    rules_id = left.selectbox(tr("ruleset"), sorted(BUILTIN), key="en_new_rules")
    format_text = right.text_input(tr("entry_format"), key="en_new_format", help=tr("entry_format_help"))
    pairs_text = st.text_area(tr("entry_pairs"), key="en_new_pairs", help=tr("entry_pairs_help"), height=200)
    confirm_on = st.checkbox(
        tr("entry_confirmation"), key="en_new_confirm", help=tr("entry_confirmation_help")
    )
    duplicate_on = st.checkbox(tr("entry_duplicate"), key="en_new_duplicate", help=tr("entry_duplicate_help"))
    ruleset = BUILTIN[rules_id]
    pairs, problems, typed = parse_players(pairs_text, {v: k for k, v in names.items()})
    for bad in problems:
        st.error(bad)
    for param in ("event", "stage", "round"):
        to_url(f"en_{param}", param, None)
    id_problem = file_name_problem(event_id)
    if id_problem is not None:
        st.info(f"{tr('entry_bad_id')}: {id_problem}")
        st.stop()
    if event_id in registered or event_id in set(events["event_id"]):
        st.error(tr("entry_event_taken").format(event=event_id))
        st.stop()
    try:
        fmt = parse_round_format(format_text) if format_text.strip() else ruleset.default_format
    except ValueError as exc:
        st.error(f"{tr('entry_bad_format')}: {exc}")
        st.stop()
    if len(pairs) < 2:
        st.info(tr("entry_no_pairs"))
        st.stop()
    if st.button(tr("entry_register"), key="en_register", type="primary"):
        try:
            _register(event_id, event_name, rules_id, fmt, pairs, typed, confirm_on, duplicate_on)
        except registry.EventExists:
            st.error(tr("entry_event_taken").format(event=event_id))
            st.stop()
        st.rerun()
    st.stop()

row = event_rows[choice]
event_id, event_name = row["event_id"], row["event_name"] if isinstance(row["event_name"], str) else None
stage = row["stage"] if isinstance(row["stage"], str) else None
reg = registered.get(event_id)
duplicate_event = bool(row.get("duplicate")) or (reg is not None and reg.duplicate)
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
    if wanted == event_id and wanted_round:
        with suppress(ValueError):  # the address's round wins over the new event's default
            st.session_state["en_round"] = _positive(wanted_round)
from_url("en_round", "round", parse=_positive)
round_no = int(st.number_input(tr("round"), min_value=1, step=1, key="en_round"))
to_url("en_round", "round", round_no, default=last + 1)

if manages:
    st.selectbox(
        tr("entry_pairing_system"),
        PAIRING_SYSTEMS,
        key=f"en_system_{event_id}",
        format_func=lambda s: tr(f"pairing_{s or 'auto'}"),
        help=tr("entry_pairing_system_help"),
    )

if reg is not None and manages:
    with st.expander(f"{tr('entry_registered_pairs')} ({len(reg.pairs)})"):
        for number, pair in enumerate(reg.pairs):
            shown = " / ".join(f"{p.name or p.id}" + (f" · {p.club}" if p.club else "") for p in pair.players)
            ticked = st.checkbox(
                f"{number + 1}. {shown}",
                value=pair.checked_in is not None,
                key=f"en_checkin_{event_id}_{number}",
                help=f"{tr('entry_checked_in')}: {' / '.join(pair.ids)}",
            )
            if ticked != (pair.checked_in is not None):
                registry.check_in(store, event_id, number, actor, ticked)

stored = run(queries.entry_round_tables, event=event_id, stage=stage, round_no=round_no)
stored_tables = {str(t) for t in stored["table"]}
draw = reg.rounds.get(round_no) if reg is not None else None


def _drawn(round_before: int) -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...] | None:
    """The registry's draw of ``round_before`` as the pairing query takes it (None: no draw)."""
    before = reg.rounds.get(round_before) if reg is not None else None
    if before is None:
        return None
    return tuple((t, tuple(sorted(s.items()))) for t, s in sorted(before.tables.items()))


def _pairing(round_to_pair: int, override: bool) -> PairingSheet:
    """The §S8/§S9 pairing of a round by the system chosen (``override``: although the round
    before lacks results, which is recorded: who, when, which tables)."""
    sheet = run(
        queries.entry_pairing,
        event=event_id,
        stage=stage,
        round_no=round_to_pair,
        drawn=_drawn(round_to_pair - 1),
        allow_missing=override,
        system=st.session_state.get(f"en_system_{event_id}"),
    )
    if sheet.missing is not None:
        registry.record_override(
            store, event_id, round_to_pair, actor, sheet.missing.tables, sheet.missing.teams
        )
    return sheet


def _override(key: str) -> None:
    st.session_state[key] = True


if draw is not None:
    seats_by_table = {t: dict(s) for t, s in draw.tables.items()}
    rooms_by_table = {t: dict(r) for t, r in draw.rooms.items()}
    bye = " / ".join(_player(p) for p in draw.bye) if draw.bye else None
elif reg is not None or stored.empty:
    override_key = f"en_override_{event_id}_{round_no}"
    try:
        sheet = _pairing(round_no, bool(st.session_state.get(override_key)))
    except LookupFailed as exc:
        refused = getattr(exc, "reason", None)
        st.error(f"{tr('entry_pairing_failed')}: {pairing_failure(exc, lang())}")
        if refused == "missing_results" and manages:
            st.button(
                tr("entry_pair_anyway"), key=f"{override_key}_btn", on_click=_override, args=(override_key,)
            )
    else:
        seats_by_table = {str(n): seats for n, seats in sheet.seats.items()}
        if duplicate_event:
            rooms = duplicate_rooms(event_id, stage, round_no, sheet.seats)
            seats_by_table = {t: r.seats for t, r in rooms.items()}
            rooms_by_table = {t: r.duplicate for t, r in rooms.items()}
        bye_row = next((r for r in sheet.rows if r[0] == "bye"), None)
        bye = str(bye_row[2]) if bye_row else None
        for note in sheet.notes:
            if note.startswith("paired although"):
                st.warning(pairing_note(note, lang()))
        if reg is not None and round_no == reg.last_drawn + 1:
            bye_ids = tuple(str(bye_row[1]).split("+")) if bye_row else None
            registry.record_draw(store, event_id, round_no, seats_by_table, bye_ids, rooms_by_table)


def _add(match: str, key: str) -> None:
    """Record the tapped deal and clear the taps for the next one (the button is enabled only
    when both are chosen, so no tap is dropped)."""
    first, kind = st.session_state.get(f"{key}_first"), st.session_state.get(f"{key}_kind")
    if not (first and kind):
        return
    orders.setdefault(match, []).append(tuple(order_of(first, kind)))
    started.setdefault(match, datetime.now().astimezone().isoformat(timespec="seconds"))
    st.session_state[f"{key}_first"] = None
    st.session_state[f"{key}_kind"] = None


def _undo(match: str) -> None:
    if orders.get(match):
        orders[match].pop()


def _deliver(revision: int) -> Any:
    """Put a match's events into the inbox, as a submission does."""
    return lambda events: submit(store, events, revision, principal=access.principal())


def _held(match_id: str, revision: int, seats: Mapping[str, str]) -> bool:
    """A result held for the opponents: their confirm and dispute buttons, or the referee's
    queue; False when nothing of the table is held."""
    held = confirmation.load(store, match_id, revision)
    if held is None:
        return False
    key = f"en_{match_id}.{revision}"
    if held.disputed is not None:
        st.warning(tr("entry_disputed").format(by=held.disputed.by, reason=held.reason or "–"))
        return True
    side = tr(f"team_{CONFIRMING_SIDE}")
    st.info(tr("entry_waiting").format(side=f"{side} ({_pair_of(seats, CONFIRMING_SIDE)})"))
    by = f"{CONFIRMING_SIDE} {seats[CONFIRMING_SIDE[0]]}/{seats[CONFIRMING_SIDE[1]]}"
    reason = st.text_input(tr("entry_dispute_reason"), key=f"{key}_reason")
    yes, no = st.columns(2)
    if yes.button(tr("entry_confirm").format(side=side), key=f"{key}_confirm", type="primary"):
        confirmation.confirm(store, match_id, revision, by, _deliver(revision))
        st.rerun()
    if no.button(tr("entry_dispute"), key=f"{key}_dispute"):
        confirmation.dispute(store, match_id, revision, by, reason)
        st.rerun()
    return True


def _table(
    table: int | str,
    seats: Mapping[str, str],
    match_id: str | None = None,
    revision: int = 1,
    referee: confirmation.Pending | None = None,
    duplicate: Mapping[str, str] | None = None,
) -> None:
    """One table: its pairs, the deals entered with what the replay derives, the taps, submit.
    With a ``revision`` above 1 it corrects the submitted ``match_id``; with ``referee`` it
    corrects a disputed held result, which the referee's submit accepts; ``duplicate``: the
    board and room of a duplicate round's table."""
    spec = table_spec(
        event_id, event_name, stage, round_no, table, seats, players, match_id, revision, duplicate
    )
    suffix = (f".rev{revision}" if revision > 1 else "") + (".ref" if referee else "")
    match, key = f"{spec.match_id}{suffix}", f"en_{spec.match_id}{suffix}"
    with st.container(border=True, key=f"entry_table_{table}{suffix}"):
        shown = f" · {tr('entry_revision')} {revision}" if revision > 1 else ""
        if duplicate:
            room_key = f"room_{duplicate['room']}"
            room = tr(room_key) if room_key in LABELS else duplicate["room"]
            shown = f" · {tr('board')} {duplicate['board']} · {tr('room')}: {room}{shown}"
        st.markdown(f"**{tr('table')} {table}**{shown}")
        st.markdown(
            f"{tr('team_EW')}: {_pair_of(seats, 'EW')}  \n{tr('team_NS')}: {_pair_of(seats, 'NS')}",
            help=" · ".join(f"{seat_name(s, lang())} {seats[s]}" for s in SEATS),
        )
        when = started.get(match)
        entry = TableEntry(
            spec, ruleset, fmt, tuple(orders.get(match, [])), datetime.fromisoformat(when) if when else None
        )
        derived = derive(entry)
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
        path = submission_path(store, spec.match_id, revision)
        if path.exists():
            st.info(f"{tr('entry_submitted')} ({path.name})")
            return
        if not access.may_enter(who, event_id, stage, round_no, table):
            st.info(tr("access_table_refused"))
            return
        if referee is None and _held(spec.match_id, revision, seats):
            return
        st.segmented_control(
            tr("entry_first"),
            list(SEATS),
            key=f"{key}_first",
            format_func=lambda s: f"{seat_name(s, lang())} {_player(seats[s])}",
        )
        st.segmented_control(
            tr("entry_result_kind"),
            list(RESULT_KINDS),
            key=f"{key}_kind",
            format_func=lambda k: tr(f"result_{k}"),
        )
        ready = bool(st.session_state.get(f"{key}_first") and st.session_state.get(f"{key}_kind"))
        if not ready:
            st.caption(tr("entry_choose_first"))
        add, undo, send = st.columns(3)
        add.button(
            tr("entry_add_deal"), key=f"{key}_add", on_click=_add, args=(match, key), disabled=not ready
        )
        undo.button(tr("entry_undo"), key=f"{key}_undo", on_click=_undo, args=(match,))
        label = tr("entry_correct_accept") if referee else tr("entry_submit")
        if send.button(label, key=f"{key}_submit", disabled=not derived.over, type="primary"):
            try:
                if referee is not None:
                    confirmation.resolve(
                        store, referee.match, referee.revision, actor, _deliver(revision), derived.events
                    )
                elif reg is not None and reg.confirmation:
                    confirmation.hold(store, derived.events, revision, f"{actor} ({ENTERING_SIDE})")
                else:
                    submit(store, derived.events, revision, principal=access.principal())
            except (AlreadySubmitted, confirmation.AlreadyPending) as exc:
                st.error(f"{tr('entry_already')}: {exc}")
            except NotAllowed as exc:
                st.error(f"{tr('access_table_refused')}: {exc}")
            else:
                st.rerun()


st.subheader(f"{tr('entry_tables')} · {tr('round')} {round_no}")
if not stored.empty:
    st.caption(tr("entry_in_store"))
    sides = {"EW": tr("team_EW"), "NS": tr("team_NS")}
    unshown = ["duplicate_board", "duplicate_room", *([] if duplicate_event else ["board", "room"])]
    show_table(
        stored.assign(
            status=[tr(f"status_{x}") if f"status_{x}" in LABELS else x for x in stored["status"]],
            winner=[
                sides.get(w, tr("draw")) if isinstance(w, str) or x == "valid" else ""
                for w, x in zip(stored["winner"], stored["status"], strict=True)
            ],
            end_reason=[end_reason_name(r, lang()) for r in stored["end_reason"]],
            **{f"player_{s}": stored[f"player_{s}"].map(_player) for s in SEATS},
            board=stored["duplicate_board"],
            room=[tr(f"room_{r}") if f"room_{r}" in LABELS else r for r in stored["duplicate_room"]],
        ).drop(columns=unshown),
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
        fixed_row = stored.set_index("match_id").loc[fix]
        revision = int(fixed_row["revision"]) + 1 if pd.notna(fixed_row["revision"]) else 2
        if f"{fix}.rev{revision}" not in orders:
            loaded = run(queries.entry_match_orders, match=fix)
            orders[f"{fix}.rev{revision}"] = [tuple(o) for o in loaded["finish_order"]]
        fixed_seats = {s: str(fixed_row[f"player_{s}"]) for s in SEATS}
        fixed_room = (
            {"board": str(fixed_row["duplicate_board"]), "room": str(fixed_row["duplicate_room"])}
            if pd.notna(fixed_row["duplicate_board"])
            else None
        )
        _table(str(fixed_row["table"]), fixed_seats, fix, revision, duplicate=fixed_room)
for drawn_table, drawn_seats in seats_by_table.items():
    if drawn_table not in stored_tables:
        _table(drawn_table, drawn_seats, duplicate=rooms_by_table.get(drawn_table))
if stored.empty and not seats_by_table and refused is None:
    st.info(tr("entry_no_tables").format(r=round_no, prev=round_no - 1), icon=":material/info:")
if bye:
    st.caption(f"{tr('bye')}: {bye}")

queue = confirmation.waiting(store, event_id, disputed=True) if manages else []
if queue:
    st.subheader(tr("entry_referee_queue"))
    for held in queue:
        start = held.events[0]
        info = start.get("event", {})
        seats = start["seats"]
        assert held.disputed is not None
        st.markdown(
            f"**{tr('round')} {info.get('round')} · {tr('table')} {info.get('table')}** · "
            + tr("entry_disputed").format(by=held.disputed.by, reason=held.reason or "–")
        )
        if st.button(tr("entry_accept"), key=f"en_accept_{held.match}.{held.revision}"):
            confirmation.resolve(store, held.match, held.revision, actor, _deliver(held.revision))
            st.rerun()
        fixing = f"{held.match}{f'.rev{held.revision}' if held.revision > 1 else ''}.ref"
        if fixing not in orders:
            orders[fixing] = deal_orders(held.events)
        _table(
            str(info.get("table")), seats, held.match, held.revision, referee=held,
            duplicate=start.get("duplicate"),
        )

if manages and st.button(tr("entry_pair_next"), key="en_pair_next"):
    after = last + 1
    try:
        sheet = _pairing(after, bool(st.session_state.get(f"en_override_{event_id}_{after}")))
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
