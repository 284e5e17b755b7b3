"""Puzzles made from real mistakes: a position where one play alone keeps the best result.

The store's exact review (``play_reviews``) names the decisions that lost a level or more; those
where the solver verifies a single winning action class become puzzles
(``dashboards.queries.puzzles``). The page shows the position with every hand visible (the verdict
is double-dummy, and says so), lets the coach choose a play, and the solver answers with the line
that follows under best play and the levels it ends with (rules.md §5.8). The address holds the
puzzle (``?puzzle=<match>:<deal>:<seq>``), so a puzzle can be shared as a link.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from dashboards.naming import reading_name, seat_name
from dashboards.queries.puzzles import PUZZLE_BUDGET, store_puzzles
from dashboards.table_html import card_text, cards_html
from dashboards.ui import from_url, lang, no_data, run, to_url, tr
from replay.puzzles import Puzzle, from_json, line_after
from replay.seats import SEATS
from replay.single_dummy import action_classes
from replay.solver import Action, Solver


def action_label(action: Action, action_level: str) -> str:
    """A play as its reading and cards (plain text, for a select box), a pass as "pass"."""
    if action is None:
        return tr("pass")
    reading = reading_name(action.combo.type, action.combo.rank, action.combo.size, lang())
    return f"{reading}: {' '.join(card_text(c, action_level) for c in action.cards)}"


def action_html(action: Action, level: str) -> str:
    """A play's cards as the replayer draws them, a pass as the word."""
    return tr("pass") if action is None else cards_html(action.cards, level, lang())


def levels(value: int) -> str:
    """A value in levels for the player's team, signed."""
    return f"{value:+d}"


def show_position(puzzle: Puzzle) -> None:
    """The seat to move, the table and every hand (all visible: the verdict is double-dummy)."""
    p = puzzle.position
    st.markdown(
        tr("puzzle_to_move").format(seat=seat_name(p.turn, lang()), level=p.level),
    )
    if p.table is not None and p.table_seat is not None:
        reading = reading_name(p.table.type, p.table.rank, p.table.size, lang())
        st.markdown(tr("puzzle_table").format(seat=seat_name(p.table_seat, lang()), play=reading))
    else:
        st.markdown(tr("puzzle_lead"))
    for seat in SEATS:
        hand = p.hands[seat]
        mark = " ◀" if seat == p.turn else ""
        st.markdown(
            f"**{seat_name(seat, lang())}**{mark} ({len(hand)}): {cards_html(hand, p.level, lang())}",
            unsafe_allow_html=True,
        )


def puzzle_label(found: list[dict[str, Any]], i: int) -> str:
    """The picker's label of puzzle ``i``: its number, who erred in which match and deal, and what
    it cost ("3. Wang Wei · cup · round 2 · table 1 · deal 4 · levels lost: 2")."""
    p = found[i]
    parts = [f"{i + 1}. {p.get('player') or seat_name(str(p['turn']), lang())}"]
    parts += [str(p["event_id"])] if p.get("event_id") else []
    parts += [f"{tr(word)} {int(p[f'match_{word}'])}" for word in ("round", "table")
              if p.get(f"match_{word}") is not None]
    if not p.get("event_id"):
        parts.append(str(p["match"]))
    parts.append(tr("deal_n").format(n=int(p["deal"])))
    parts.append(f"{tr('levels_lost')}: {int(p['value']) - int(p['played_value'])}")
    return " · ".join(parts)


st.title(tr("page_puzzles"))
st.caption(tr("puzzle_kind"))
found = run(store_puzzles)
if not found:
    no_data("puzzles_none")
    st.stop()

ids = [str(p["id"]) for p in found]
from_url("pz_id", "puzzle", ids)
chosen = st.selectbox(tr("puzzle"), ids, key="pz_id", format_func=lambda i: puzzle_label(found, ids.index(i)))
to_url("pz_id", "puzzle", chosen, default=ids[0])
puzzle = from_json(found[ids.index(chosen)])
show_position(puzzle)

position = puzzle.position
solver = Solver(position.level, position.ruleset)
options = sorted(
    (a for a, _, _ in action_classes(position, solver)),
    key=lambda a: (a is None, action_label(a, position.level)),
)  # not the solver's order, which would often list the solution first
pick = st.selectbox(
    tr("puzzle_choose"),
    range(len(options)),
    key=f"pz_play:{chosen}",
    format_func=lambda i: action_label(options[i], position.level),
)
if st.button(tr("puzzle_play"), key=f"pz_go:{chosen}", type="primary"):
    action = options[pick]
    line, value = line_after(position, action, PUZZLE_BUDGET)
    solved = action in puzzle.solution
    if value is None:
        st.warning(tr("puzzle_unsolved"))
    elif solved:
        st.success(tr("puzzle_right").format(value=levels(value)))
    else:
        st.error(tr("puzzle_wrong").format(value=levels(value), best=levels(puzzle.value)))
    st.markdown(f"**{tr('puzzle_line')}**")
    for seat, step in line:
        st.markdown(f"{seat_name(seat, lang())}: {action_html(step, position.level)}", unsafe_allow_html=True)
    with st.expander(tr("puzzle_answer"), expanded=not solved):
        st.markdown(
            f"{tr('puzzle_solution')}: {action_html(puzzle.solution[0], position.level)} "
            f"({levels(puzzle.value)})",
            unsafe_allow_html=True,
        )
        st.markdown(
            f"{tr('puzzle_in_game')}: {action_html(puzzle.played, position.level)} "
            f"({levels(puzzle.played_value)})",
            unsafe_allow_html=True,
        )
