"""Hand replayer for coaches: pick a match and a deal, then step through it with the four seats
drawn around the current trick (``dashboards.table_html``: names on seats, hands in the Guandan
order of the deal's level, wilds marked, jokers as 小王/大王), who won each trick, and the marks a
coach looks for: passes that could have beaten, partner overtakes, bombs, 接风.

Steps move with buttons that also answer the keyboard (← →, Home, T next trick, F next flagged,
M next mistake) or the slider. Decisions the endgame solver reviewed (``play_reviews``, exact
with all hands visible) are marked by severity in match terms: green ✓ best, blue ~ inaccuracy,
amber ✗ mistake, red ✗✗ blunder, and grey when they were no real choice (· forced pass, = every
action equal); the verdict shows the player's hand, the best moves and the match-winning chance.
Beside it, the verdicts of the opt-in single-dummy job (``single_dummy_reviews``, sampled from the
player's view) with the same marks by the match-winning chance given away: the player's hand, the
action taken, the chances of the best candidate and of the action taken, the candidates best first,
each with its mean, 95 % interval and chance, and in how many layouts the action
taken did worse; a decision with no exact verdict takes its slider mark from them (return cards
show on the after-tribute step). A deal the job has not reached can be reviewed on demand
(``dashboards.on_demand``: the job's settings, one review at a time per server, kept in the
session, not stored).
The address holds match, deal and step (``?match=…&deal=…&step=…``; the coach notebook's
``&seq=…`` deep links still open on that decision). Notes and tags on a deal are the one thing
the dashboards write: each is a new file of ``<store>/annotations/`` (``pipelines.reads.annotations``),
never an edit of the logs or of an earlier note.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd
import streamlit as st

from dashboards.access import read_only
from dashboards.i18n import LABELS, t
from dashboards.naming import combo_type_name, seat_name, tribute_kind_name
from dashboards.on_demand import Busy, review_deal_now
from dashboards.queries.players import players
from dashboards.queries.replayer import (
    deal_hands,
    deal_plays,
    deal_reviews,
    deal_sampled_reviews,
    deal_tributes,
    find_matches,
    match_deals,
    match_entry,
    match_events,
)
from dashboards.reconstruct import MARKS, Step, marks, next_flagged, next_trick, reconstruct
from dashboards.table_html import MARK_ICONS, card_text, cards_html, table_html
from dashboards.ui import (
    current_store,
    from_url,
    lang,
    match_picker,
    no_data,
    player_label,
    run,
    show_table,
    to_url,
    tr,
    url_choice,
    url_param,
    url_text,
)
from pipelines.reads.annotations import Note, append_note, clean_tags, read_notes
from pipelines.steps.single_dummy import sampled_severity

# Marks of a reviewed decision by severity (pipelines.steps.reviews.severity), and of a decision
# that was no real choice (counted, not scored), with their colours (symbols of the DejaVu fonts:
# emoji draw as boxes where no emoji font is installed).
REVIEW_MARKS = {
    "best": ("✓", "green"),
    "inaccuracy": ("~", "blue"),
    "mistake": ("✗", "orange"),
    "blunder": ("✗✗", "red"),
    "forced": ("·", "gray"),
    "all_equal": ("=", "gray"),
}


def review_key(verdict: Mapping[str, Any]) -> str:
    """The :data:`REVIEW_MARKS` key of a reviewed decision: its choice when it was none, else its
    severity."""
    choice = str(verdict["choice"])
    return choice if choice in ("forced", "all_equal") else str(verdict["severity"])


def review_mark(verdict: Mapping[str, Any]) -> str:
    """The mark of a reviewed decision (plain text, for the slider)."""
    return REVIEW_MARKS[review_key(verdict)][0]


def review_badge(verdict: Mapping[str, Any]) -> str:
    """:func:`review_mark` in its colour, as Streamlit markdown."""
    mark, colour = REVIEW_MARKS[review_key(verdict)]
    return f":{colour}[{mark}]"


def sampled_badge(row: Mapping[str, Any]) -> tuple[str, str]:
    """The coloured mark (Streamlit markdown) and severity of a single-dummy verdict: the exact
    verdicts' marks, by the match-winning chance given away
    (``pipelines.steps.single_dummy.sampled_severity``)."""
    key = sampled_severity(float(row["loss"]), float(row["match_loss"]))
    mark, colour = REVIEW_MARKS[key]
    return f":{colour}[{mark}]", key


def best_first(candidates: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The candidates of a single-dummy row by mean value, best first (stable on ties)."""
    return sorted(candidates, key=lambda c: -float(c["mean"]))


def shown(value: object) -> str:
    """A cell for the caption: lists joined, null as a dash."""
    if pd.api.types.is_list_like(value) and isinstance(value, Iterable):
        return " ".join(str(v) for v in value)
    return "—" if value is None or pd.isna(value) else str(value)


def seat_word(seat: object) -> str:
    """A seat letter of a table cell in the page's language (北, 东… in 中文); empty when missing."""
    return seat_name(seat, lang()) if isinstance(seat, str) else ""


def team_name(team: object) -> str:
    """A team id (``EW``/``NS``, e.g. the declarers) in words; a dash when missing."""
    return tr(f"team_{team}") if team in ("EW", "NS") else shown(team)


st.title(tr("page_replayer"))

search = url_text(tr("search_match"), key="rp_search", param="q", icon=":material/search:")
matches = run(find_matches, search=search)
linked_match = url_param("match") if "rp_match" not in st.session_state else None
if linked_match is not None and linked_match not in set(matches["match_id"]):
    # a link opens its match even when it is not among the first matches listed
    matches = pd.concat([run(find_matches, search=linked_match), matches], ignore_index=True)
    matches = matches.drop_duplicates("match_id")
if matches.empty:
    st.info(tr("no_match_matches").format(q=search) if search else tr("no_data"), icon=":material/search:")
    st.stop()
found = int(matches["total"].max())
if found > len(matches):
    st.caption(tr("matches_listed").format(n=len(matches), total=found))

c1, c2 = st.columns([3, 1])
with c1:
    match = match_picker(matches, key="rp_match")
if match is None:
    no_data()
    st.stop()
deals = run(match_deals, match=match)
if deals.empty:
    no_data("no_data_table")
    st.stop()
with c2:
    deal = int(
        url_choice(
            st.selectbox, tr("choose_deal"), deals["deal_no"].tolist(), key="rp_deal", param="deal", parse=int
        )
    )

info = deals.set_index("deal_no").loc[deal]
level = info["level"] if isinstance(info["level"], str) else None
order = info["finish_order"]
finish = " ".join(seat_name(x, lang()) for x in order) if pd.api.types.is_list_like(order) else "—"
started = matches.set_index("match_id")["started"].get(match)
st.caption(
    f"{tr('match_started')}: {shown(started)} · {tr('deal_started')}: {shown(info['started'])} · "
    f"{tr('level')}: {shown(info['level'])} · {tr('declarers')}: {team_name(info['declarers'])} · "
    f"{tr('tribute_kind')}: {tribute_kind_name(info['tribute_kind'], lang())} · {tr('position')}: {finish}"
)
for entered in run(match_entry, match=match).itertuples():  # the audit of a browser entry
    at = pd.Timestamp(entered.entered_at).tz_convert("UTC").strftime("%Y-%m-%d %H:%M UTC")
    replaces = entered.replaces_revision
    st.caption(
        tr("audit_entered_by").format(by=entered.entered_by, at=at)
        + (f" · {tr('audit_replaces').format(r=int(replaces))}" if pd.notna(replaces) else ""),
        help=f"{entered.entered_via}",
    )

hands = run(deal_hands, match=match, deal=deal)
tributes = run(deal_tributes, match=match, deal=deal)
plays = run(deal_plays, match=match, deal=deal)
name_of = player_label(run(players))
names = {
    row.seat: name_of(row.player_id) if isinstance(row.player_id, str) else None for row in hands.itertuples()
}
dealt = {
    row.seat: list(row.hand) if pd.api.types.is_list_like(row.hand) else None for row in hands.itertuples()
}
steps = reconstruct(dealt, tributes.to_dict("records"), plays.to_dict("records"))
reviews = run(deal_reviews, match=match, deal=deal)
# Reviewed decisions by seq.
verdicts = {int(r["seq"]): r for r in reviews.to_dict("records")}
sampled = run(deal_sampled_reviews, match=match, deal=deal)
# Verdicts of a review made on demand in this session, for a deal the opt-in job has not reached.
made_now_key = f"{current_store()}\x00{match}\x00{deal}"
made_now: list[dict[str, Any]] | None = st.session_state.get("rp_sd_now", {}).get(made_now_key)
if sampled.empty and made_now:
    sampled = pd.DataFrame(made_now)
# Decisions judged single-dummy by seq: the plays and passes, then the return cards (step 1).
sampled_plays = {int(r["seq"]): r for r in sampled.to_dict("records") if r["kind"] == "play"}
sampled_returns = [r for r in sampled.to_dict("records") if r["kind"] == "return"]
# Steps whose reviewed decision was a real choice that lost levels.
mistakes = [
    s.index
    for s in steps
    if s.action is not None and verdicts.get(int(s.action["seq"]), {}).get("loss", 0) > 0
    and verdicts[int(s.action["seq"])]["choice"] == "real"
]
# Steps worth a coach's look: a reviewed mistake or a mark.
flagged = sorted({*mistakes, *(s.index for s in steps if marks(s.action))})

step_key = "rp_step"
linked_seq = url_param("seq")
if (
    url_param("step") is None
    and linked_seq is not None
    and linked_seq.isdigit()
    and step_key not in st.session_state
):
    st.session_state[step_key] = next(
        (s.index for s in steps if s.action is not None and int(s.action["seq"]) == int(linked_seq)), 0
    )
from_url(step_key, "step", list(range(len(steps))), int)
if st.session_state.get(step_key, 0) >= len(steps):
    st.session_state[step_key] = 0


def go_to(index: int | None) -> None:
    """Move the replayer to step ``index`` (a button's callback; nothing when ``None``)."""
    if index is not None:
        st.session_state[step_key] = max(0, min(index, len(steps) - 1))


def step_label(s: Step) -> str:
    """The slider label of a step, with its marks and the review mark of its decision."""
    if s.index == 0:
        return tr("start")
    if s.index == 1:
        return tr("after_tribute_step")
    seq = int(s.action["seq"]) if s.action is not None else None
    verdict = verdicts.get(seq) if seq is not None else None
    single = sampled_plays.get(seq) if seq is not None else None
    if verdict is not None:
        review = f" {review_mark(verdict)}"
    elif single is not None:  # no exact verdict: the single-dummy one
        review = f" {REVIEW_MARKS[sampled_severity(float(single['loss']), float(single['match_loss']))][0]}"
    else:
        review = ""
    icons = "".join(f" {MARK_ICONS[m]}" for m in marks(s.action))
    what = tr("pass") if s.action is not None and s.action["action"] == "pass" else tr("play")
    seat = seat_name(s.action["seat"], lang()) if s.action is not None else ""
    return f"{tr('trick')} {s.trick_no} · {seat} {what}{icons}{review}"


current = int(st.session_state.get(step_key, 0))
last = len(steps) - 1
step_buttons = (
    # label key, icon, widget key, target step, shortcut, disabled
    ("first_step", "first_page", "rp_first", 0, "Home", current == 0),
    ("previous_step", "chevron_left", "rp_prev", current - 1, "Left", current == 0),
    ("next_step", "chevron_right", "rp_next", current + 1, "Right", current >= last),
    ("next_trick", "skip_next", "rp_next_trick", next_trick(steps, current), "T", current >= last),
    ("next_flagged", "flag", "rp_next_flagged", next_flagged(flagged, current), "F", not flagged),
    ("next_mistake", "error", "rp_next_mistake", next_flagged(mistakes, current), "M", not mistakes),
)
# One row, each button as wide as its label (six equal columns cut the labels off even at
# 1920 px); the row wraps on a narrow screen.
step_row = st.container(horizontal=True, key="rp_step_buttons")
for label, icon, key, target, shortcut, disabled in step_buttons:
    step_row.button(
        tr(label),
        key=key,
        icon=f":material/{icon}:",
        on_click=go_to,
        args=(target,),
        shortcut=shortcut,
        disabled=disabled,
    )
st.session_state.setdefault(step_key, 0)
step_no = int(
    st.select_slider(
        tr("step"), options=list(range(len(steps))), format_func=lambda i: step_label(steps[i]), key=step_key
    )
)
to_url(step_key, "step", step_no, default=0)
step = steps[step_no]
st.caption(f"{tr('step')} {step_no} / {len(steps) - 1} · {tr('keyboard_help')}")

st.markdown(table_html(step, names, level, lang()), unsafe_allow_html=True)
st.caption(" · ".join(f"{MARK_ICONS[m]} {tr(f'mark_{m}')}" for m in MARKS) + f" · ★ {tr('wild_card')}")

if not tributes.empty:
    with st.expander(tr("tribute_return"), expanded=step.index <= 1):
        show_table(
            tributes.assign(
                kind=[tribute_kind_name(k, lang()) for k in tributes["kind"]],
                giver=tributes["giver"].map(seat_word),
                receiver=tributes["receiver"].map(seat_word),
                anti_seats=[
                    " ".join(seat_name(x, lang()) for x in a) if pd.api.types.is_list_like(a) else ""
                    for a in tributes["anti_seats"]
                ],
            ),
            f"tributes_{match}_{deal}",
            column_config={
                "kind": tr("tribute_kind"),
                "receiver": tr("receiver_seat"),
                "card": tr("tribute_card"),
            },
        )

st.subheader(tr("review"))
kinds_shown = [tr(f"review_kind_{k}") for k in sorted(reviews["kind"].unique())]
if not sampled.empty:
    kinds_shown.append(tr("review_kind_single_dummy"))
st.caption(f"{tr('review_kinds_shown')}: {' · '.join(kinds_shown) or tr('review_kinds_none')}")
if reviews.empty:
    st.caption(tr("review_none"))
else:
    choices = reviews["choice"].value_counts()
    counts = tr("review_counts").format(
        real=int(choices.get("real", 0)), forced=int(choices.get("forced", 0)),
        equal=int(choices.get("all_equal", 0)),
    )
    kinds = " · ".join(tr(f"review_kind_{k}") for k in sorted(reviews["kind"].unique()))
    summary = f"{tr('review_summary')}: {len(reviews)} · {counts} · {tr('mistakes')}: {len(mistakes)}"
    st.caption(f"{kinds} · {summary}")
    verdict = verdicts.get(int(step.action["seq"])) if step.action is not None else None
    if verdict is None:
        st.caption(tr("review_not_this_step"))
    else:
        loss = int(verdict["loss"])
        key = review_key(verdict)
        word = tr(f"choice_{key}") if key in ("forced", "all_equal") else tr(f"severity_{key}")
        lost = f" · {tr('levels_lost')}: {loss}" if loss else ""
        phase = tr(f"phase_{verdict['phase']}")
        st.markdown(
            f"{review_badge(verdict)} **{word}**{lost} · {phase} · "
            f"{tr('value_before')}: {int(verdict['value_before']):+d} · "
            f"{tr('value_after')}: {int(verdict['value_after']):+d}"
        )
        if pd.notna(verdict["win_best"]):
            st.caption(
                f"{tr('match_chance')}: {100 * float(verdict['win_best']):.0f} % → "
                f"{100 * float(verdict['win_after']):.0f} % ({tr('match_chance_note')})"
            )
        st.markdown(
            f"{tr('player_hand')} ({seat_word(verdict['seat'])}): "
            + cards_html(list(verdict["hand"]), level, lang()),
            unsafe_allow_html=True,
        )
        best = [m.split() for m in str(verdict["best_moves"]).split(" | ")]
        st.markdown(
            f"{tr('best_moves')}: "
            + " · ".join(tr("pass") if m == ["pass"] else cards_html(m, level, lang()) for m in best),
            unsafe_allow_html=True,
        )



def show_sampled(row: Mapping[str, Any]) -> None:
    """One single-dummy verdict: its mark and severity, the mean levels lost, how often the action
    taken did worse than the best, the match-winning chance of the best candidate and of the action
    taken, the decider's hand, the action taken and the candidates best first, each with its mean
    and 95 % interval and its match-winning chance."""
    badge, key = sampled_badge(row)
    loss = float(row["loss"])
    lost = f" · {tr('mean_levels_lost')}: {loss:.2f}" if loss > 0 else ""
    what = f"{tr('sampled_return')} · " if row["kind"] == "return" else ""
    worse = tr("sampled_worse_in").format(k=int(row["worse_in"]), n=int(row["layouts"]))
    st.markdown(f"{badge} **{tr(f'severity_{key}')}**{lost} · {what}{seat_word(row['seat'])} · {worse}")
    st.caption(
        f"{tr('match_chance')}: {100 * float(row['win_best']):.0f} % → "
        f"{100 * float(row['win_played']):.0f} % ({tr('sampled_chance_note')})"
    )
    st.markdown(
        f"{tr('player_hand')} ({seat_word(row['seat'])}): " + cards_html(list(row["hand"]), level, lang()),
        unsafe_allow_html=True,
    )

    def action_html(action: str) -> str:
        return tr("pass") if action == "pass" else cards_html(action.split(), level, lang())

    def valued(mean: float, low: float, high: float) -> str:
        return f"{mean:+.2f} [{low:+.2f}, {high:+.2f}]"

    def chance(win: float) -> str:
        return f" · {tr('match_chance')} {100 * win:.0f} %"

    st.markdown(
        f"{tr('sampled_played_mean')}: {action_html(str(row['action']))} "
        + valued(float(row["played_mean"]), float(row["played_low"]), float(row["played_high"])),
        unsafe_allow_html=True,
    )
    lines = []
    for c in best_first(row["candidates"]):
        tags = [tr("sampled_played")] if c["action"] == row["action"] else []
        tags += [tr("sampled_best")] if c["action"] == row["best_action"] else []
        note = f" ({', '.join(tags)})" if tags else ""
        lines.append(f"{action_html(str(c['action']))} {valued(c['mean'], c['low'], c['high'])}"
                     f"{chance(float(c['win']))}{note}")
    st.markdown(f"{tr('sampled_candidates')}:\n" + "".join(f"\n- {line}" for line in lines),
                unsafe_allow_html=True)
    st.caption(
        tr("sampled_method").format(
            exact=int(row["exact_layouts"]), n=int(row["layouts"]), classes=int(row["classes"]),
            valued=len(lines),
        )
    )


def review_now(match: str, deal: int) -> None:
    """Review deal ``deal`` of ``match`` single-dummy on the server (``dashboards.on_demand``),
    showing progress, and keep its rows in the session."""
    events = run(match_events, match=match)
    bar = st.progress(0.0, text=tr("sampled_reviewing").format(seq="…"))
    last = max((int(s) for s in plays["seq"]), default=1)

    def advanced(row: Mapping[str, Any]) -> None:
        bar.progress(min(int(row["seq"]) / last, 1.0), text=tr("sampled_reviewing").format(seq=row["seq"]))

    try:
        rows = review_deal_now(events, match, deal, advanced)
    except Busy:
        st.warning(tr("sampled_busy"))
    except ValueError as exc:
        st.error(tr("sampled_cannot").format(reason=exc))
    else:
        st.session_state.setdefault("rp_sd_now", {})[made_now_key] = rows
        st.rerun()


st.markdown(f"**{tr('review_kind_single_dummy')}**")
if sampled.empty:
    st.caption(tr("sampled_made_now_none") if made_now is not None else tr("sampled_none"))
    if made_now is None and all(dealt.get(s) for s in "ENWS") and st.button(
        tr("sampled_review_now"), key="rp_sd_now_button", help=tr("sampled_review_now_help")
    ):
        review_now(match, deal)
else:
    if made_now:
        st.caption(tr("sampled_made_now"))
    st.caption(f"{tr('sampled_summary')}: {len(sampled)}")
    here = (
        [sampled_plays[int(step.action["seq"])]]
        if step.action is not None and int(step.action["seq"]) in sampled_plays
        else sampled_returns if step.index <= 1 else []
    )
    for row in here:
        show_sampled(row)
    if not here:
        st.caption(tr("sampled_not_this_step"))

st.subheader(tr("notes"))
notes, skipped = read_notes(current_store(), match_id=match, deal_no=deal)
for note in notes:
    where = f" · {tr('step')} {note.step}" if note.step is not None else ""
    hashtags = " ".join(f"`#{tag}`" for tag in note.tags)
    st.markdown(f"**{note.author or tr('anonymous')}** · {note.written_at}{where} {hashtags}  \n{note.text}")
if not notes:
    st.caption(tr("no_notes"))
if skipped:
    st.caption(tr("notes_skipped").format(n=skipped))
if read_only():  # notes would stay in this host's copy of the store, seen by nobody else
    st.caption(tr("notes_read_only"))
else:
    with st.form("rp_note", clear_on_submit=True):
        text = st.text_area(tr("note_text"), key="rp_note_text")
        tag_text = st.text_input(tr("note_tags"), key="rp_note_tags", placeholder=t("note_tags_hint", lang()))
        author = st.text_input(tr("note_author"), key="rp_note_author")
        at_step = st.checkbox(tr("note_at_step"), value=True, key="rp_note_at_step")
        if st.form_submit_button(tr("note_save")):
            new_tags = clean_tags(tag_text)
            if not text.strip() and not new_tags:
                st.warning(tr("note_empty"))
            else:
                append_note(
                    current_store(),
                    Note(match, deal, text.strip(), new_tags, step_no if at_step else None,
                         author.strip() or None),
                )
                st.rerun()

st.subheader(tr("flags"))
if plays.empty:
    no_data("no_plays")
elif step.action is None:
    st.caption(tr("flags_later"))
else:
    seen = plays[plays["seq"] <= step.action["seq"]]
    flags = seen.assign(
        cards=seen["cards"].map(
            lambda c: " ".join(card_text(x, level) for x in c) if pd.api.types.is_list_like(c) else ""
        ),
        seat=seen["seat"].map(seat_word),
        action=[tr(a) if a in ("play", "pass") else a for a in seen["action"]],
        combo_type=[combo_type_name(c, lang()) if isinstance(c, str) else "" for c in seen["combo_type"]],
        bomb_class=[tr(b) if isinstance(b, str) and b in LABELS else "" for b in seen["bomb_class"]],
        player_id=seen["player_id"].map(lambda p: name_of(p) if isinstance(p, str) else ""),
    )
    show_table(
        pd.DataFrame(flags),
        f"plays_{match}_{deal}",
        column_config={"player_id": tr("player"), "cards": tr("cards_played")},
    )
