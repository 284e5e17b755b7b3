"""Hand replayer: pick a match and a deal, then step through it trick by trick (or play by play)
with all four hands, the table, the tribute and return, and the derived flags of each play.

Decisions the endgame solver reviewed (``play_reviews``, issue 16) are marked green (best move),
amber (lost 1 level) or red (lost 2 or more), with the best moves and the values before and after;
a button jumps to the next mistake. The page opens at ``?match=…&deal=…&seq=…`` (the coach
notebook's deep links) on that decision.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd
import streamlit as st

from dashboards import queries
from dashboards.reconstruct import Step, reconstruct
from dashboards.ui import no_data, run, show_table, tr
from replay.naming import combo_name
from schemas.vocabulary import BIG_JOKER, SMALL_JOKER

_SUIT = {"S": "♠", "H": ":red[♥", "C": "♣", "D": ":red[♦"}
MARKS = ("🟢", "🟠", "🔴")
"""Marks of a reviewed decision by loss: 0 (best), 1 level, 2 or more levels."""


def review_mark(loss: int) -> str:
    """The green / amber / red mark of a decision that lost ``loss`` levels."""
    return MARKS[min(loss, 2)]


def cards_md(cards: Iterable[str] | None) -> str:
    """Cards as Markdown: suit symbols, red hearts and diamonds, 小王/大王 for the jokers."""
    if cards is None:
        return f"*{tr('hand_unknown')}*"
    out = []
    for card in cards:
        if card == SMALL_JOKER:
            out.append("🃏B")
        elif card == BIG_JOKER:
            out.append(":red[🃏R]")
        else:
            suit = _SUIT[card[0]]
            out.append(f"{suit}{card[1]}]" if suit.startswith(":red") else f"{suit}{card[1]}")
    return " ".join(out) if out else f"*{tr('out')}*"


def seat_box(step: Step, seat: str, players: dict[str, str]) -> None:
    """One seat: player, cards left and the hand."""
    hand = step.hands.get(seat)
    count = "?" if hand is None else len(hand)
    marker = " ◀" if step.action is not None and step.action["seat"] == seat else ""
    st.markdown(f"**{seat}** · {players.get(seat) or ''} · {count} {tr('cards')}{marker}")
    st.markdown(cards_md(hand))


st.title(tr("page_replayer"))

search = st.text_input("🔎 " + tr("choose_match"), key="rp_search")
matches = run(queries.find_matches, search=search)
if matches.empty:
    no_data()
    st.stop()

c1, c2 = st.columns([3, 1])
match_ids = matches["match_id"].tolist()
link = st.query_params.to_dict()
if link.get("match") in match_ids and "rp_match" not in st.session_state:
    st.session_state["rp_match"] = link["match"]
with c1:
    match = st.selectbox(tr("choose_match"), match_ids, key="rp_match")
deals = run(queries.match_deals, match=match)
if deals.empty:
    no_data("no_data_table")
    st.stop()
deal_nos = deals["deal_no"].tolist()
linked_deal = link.get("deal", "")
if link.get("match") == match and linked_deal.isdigit() and int(linked_deal) in deal_nos \
        and "rp_deal" not in st.session_state:
    st.session_state["rp_deal"] = int(linked_deal)
with c2:
    deal = int(st.selectbox(tr("choose_deal"), deal_nos, key="rp_deal"))

info = deals.set_index("deal_no").loc[deal]


def shown(value: object) -> str:
    """A cell for the caption: lists joined, null as a dash."""
    if pd.api.types.is_list_like(value) and isinstance(value, Iterable):
        return " ".join(str(v) for v in value)
    return "—" if value is None or pd.isna(value) else str(value)


st.caption(
    f"{tr('level')}: {shown(info['level'])} · {tr('declarers')}: {shown(info['declarers'])} · "
    f"{tr('tribute_kind')}: {shown(info['tribute_kind'])} · {tr('position')}: {shown(info['finish_order'])}"
)

hands = run(queries.deal_hands, match=match, deal=deal)
tributes = run(queries.deal_tributes, match=match, deal=deal)
plays = run(queries.deal_plays, match=match, deal=deal)
players = dict(zip(hands["seat"], hands["player_id"], strict=True))
dealt = {
    row.seat: list(row.hand) if pd.api.types.is_list_like(row.hand) else None for row in hands.itertuples()
}
steps = reconstruct(dealt, tributes.to_dict("records"), plays.to_dict("records"))
reviews = run(queries.deal_reviews, match=match, deal=deal)
verdicts = {int(r["seq"]): r for r in reviews.to_dict("records")}
"""Reviewed decisions by seq."""
mistakes = [
    s.index for s in steps
    if s.action is not None and verdicts.get(int(s.action["seq"]), {}).get("loss", 0) > 0
]
"""Steps (indexes into ``steps``) whose decision lost levels."""

if link.get("seq", "").isdigit() and link.get("match") == match and "rp_step" not in st.session_state:
    linked = next(
        (s.index for s in steps if s.action is not None and int(s.action["seq"]) == int(link["seq"])), None
    )
    if linked is not None:
        st.session_state["rp_by_trick"] = False
        st.session_state["rp_step"] = linked


def _jump_to_next_mistake(current: int) -> None:
    """Show every play and pass, and move to the first mistake after step ``current``."""
    later = [i for i in mistakes if i > current] or mistakes
    st.session_state["rp_by_trick"] = False
    st.session_state["rp_step"] = later[0]


def step_label(s: Step) -> str:
    """The slider label of a step, with the review mark of its decision."""
    if s.index == 0:
        return tr("start")
    if s.index == 1:
        return tr("after_tribute_step")
    verdict = verdicts.get(int(s.action["seq"])) if s.action is not None else None
    mark = f" {review_mark(int(verdict['loss']))}" if verdict is not None else ""
    return f"{tr('trick')} {s.trick_no} · {s.label}{mark}"


st.session_state.setdefault("rp_by_trick", True)
by_trick = st.toggle(tr("trick"), key="rp_by_trick")
visible = [s for s in steps if s.action is None or s.last_of_trick] if by_trick else steps
labels = {i: step_label(s) for i, s in enumerate(visible)}
step_no = st.select_slider(tr("step"), options=list(labels), format_func=labels.__getitem__, key="rp_step")
step = visible[step_no]

if not tributes.empty:
    with st.expander(tr("tribute_return"), expanded=step.index <= 1):
        show_table(tributes, f"tributes_{match}_{deal}")

north = st.columns(3)
with north[1]:
    seat_box(step, "N", players)
middle = st.columns(3)
with middle[0]:
    seat_box(step, "W", players)
with middle[1]:
    st.markdown(f"**{tr('on_table')}**")
    if step.table is not None:
        combo = combo_name(step.table["combo_type"], step.table["combo_rank"], step.table.get("combo_size"))
        st.markdown(f"{step.table['seat']}: {cards_md(step.table['cards'])} · `{combo}`")
    for row in step.trick:
        text = cards_md(row["cards"]) if row["action"] == "play" else f"*{tr('pass')}*"
        st.markdown(f"{row['seat']} → {text}")
with middle[2]:
    seat_box(step, "E", players)
south = st.columns(3)
with south[1]:
    seat_box(step, "S", players)

st.subheader(tr("review"))
if reviews.empty:
    st.caption(tr("review_none"))
else:
    st.caption(f"{tr('review_summary')}: {len(reviews)} · {tr('mistakes')}: {len(mistakes)}")
    st.button(tr("next_mistake"), key="rp_next_mistake", disabled=not mistakes,
              on_click=_jump_to_next_mistake, args=(step.index,))
    verdict = verdicts.get(int(step.action["seq"])) if step.action is not None else None
    if verdict is None:
        st.caption(tr("review_not_this_step"))
    else:
        loss = int(verdict["loss"])
        word = tr("review_best") if loss == 0 else f"{tr('review_mistake')} −{loss}"
        st.markdown(
            f"{review_mark(loss)} **{word}** · {tr('value_before')}: {int(verdict['value_before']):+d} · "
            f"{tr('value_after')}: {int(verdict['value_after']):+d}"
        )
        best = [m.split() for m in str(verdict["best_moves"]).split(" | ")]
        st.markdown(f"{tr('best_moves')}: " + " · ".join(
            f"*{tr('pass')}*" if m == ["pass"] else cards_md(m) for m in best))

st.subheader(tr("flags"))
if plays.empty:
    no_data("no_plays")
elif step.action is None:
    st.caption(tr("flags_later"))
else:
    seen = plays[plays["seq"] <= step.action["seq"]]
    flags = seen.assign(
        cards=seen["cards"].map(lambda c: " ".join(c) if pd.api.types.is_list_like(c) else "")
    )
    show_table(pd.DataFrame(flags), f"plays_{match}_{deal}")
