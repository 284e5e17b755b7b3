"""The replayer's card table as HTML: four seats around the current trick (rules.md §1: partners
opposite, play goes E → N → W → S), each seat with its player, cards left and hand in the Guandan
order of the deal's level (rules.md §2), the wild cards and level cards marked, jokers as 小王/大王.

Pure functions (no Streamlit) from a :class:`dashboards.reconstruct.Step` to a string, so the
drawing is tested without a browser; the page shows it with ``st.markdown(unsafe_allow_html=True)``.
Every text is a label of :mod:`dashboards.i18n` or data escaped with :func:`html.escape`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from html import escape

from dashboards.i18n import Lang, t
from dashboards.naming import reading_name, seat_name
from dashboards.reconstruct import Step, marks
from replay.cards import display_order, is_wild
from schemas.vocabulary import BIG_JOKER, SMALL_JOKER

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "C": "♣", "D": "♦"}
RED_SUITS = ("H", "D")
MARK_ICONS = {"could_beat": "⚠", "overtake": "⤴", "bomb": "✹", "jie_feng": "↪"}
"""The icon of each coach's mark (:data:`dashboards.reconstruct.MARKS`): symbols of the DejaVu
fonts, since emoji draw as empty boxes where no emoji font is installed (a headless server)."""
WINNER_ICON = "♛"
"""The mark of the seat that won the trick."""

STYLE = """
<style>
.gd-table{display:grid;grid-template-columns:1fr 1.3fr 1fr;grid-template-rows:auto auto auto;gap:.5rem;
  background:#0b6b3a;border-radius:1rem;padding:.8rem;color:#fff}
.gd-seat{background:rgba(0,0,0,.25);border-radius:.6rem;padding:.4rem .6rem}
.gd-turn{outline:3px solid #ffd54f}
.gd-N{grid-column:2;grid-row:1}.gd-W{grid-column:1;grid-row:2}.gd-E{grid-column:3;grid-row:2}
.gd-S{grid-column:2;grid-row:3}.gd-trick{grid-column:2;grid-row:2;background:rgba(255,255,255,.12);
  border-radius:.6rem;padding:.4rem .6rem}
.gd-card{display:inline-block;background:#fff;color:#111;border-radius:.25rem;padding:0 .2rem;margin:.08rem;
  font-weight:600;min-width:1.6rem;text-align:center}
.gd-red{color:#c62828}.gd-level{box-shadow:inset 0 -3px 0 #1565c0}.gd-wild{background:#ffe082}
.gd-muted{opacity:.75;font-style:italic}
</style>
"""


def card_text(card: str, level: str | None) -> str:
    """One card as plain text, as the table draws it: suit symbol and rank (10 for ten), 小王/大王
    for the jokers, ★ after a wild (the heart level card)."""
    if card in (SMALL_JOKER, BIG_JOKER):
        return "大王" if card == BIG_JOKER else "小王"
    suit, rank = card[0], card[1:2]
    text = f"{SUIT_SYMBOLS.get(suit, suit)}{'10' if rank == 'T' else rank}"
    return text + "★" if is_wild(card, level) else text


def card_html(card: str, level: str | None, lang: Lang) -> str:
    """One card (:func:`card_text`): red hearts and diamonds, a level card underlined, a wild
    highlighted."""
    if card in (SMALL_JOKER, BIG_JOKER):
        big = card == BIG_JOKER
        name = escape(t("big_joker" if big else "small_joker", lang))
        joker = "gd-card gd-red" if big else "gd-card"
        return f'<span class="{joker}" title="{name}">{card_text(card, level)}</span>'
    classes = ["gd-card"]
    title = ""
    if card[0] in RED_SUITS:
        classes.append("gd-red")
    if card[1:2] == level:
        classes.append("gd-level")
        title = t("level_card", lang)
    if is_wild(card, level):
        classes.append("gd-wild")
        title = t("wild_card", lang)
    text = escape(card_text(card, level))
    return f'<span class="{" ".join(classes)}" title="{escape(title)}">{text}</span>'


def cards_html(cards: Iterable[str] | None, level: str | None, lang: Lang) -> str:
    """A hand or a play in the Guandan order (low to high); "unknown" for a hidden hand."""
    if cards is None:
        return f'<span class="gd-muted">{escape(t("hand_unknown", lang))}</span>'
    shown = [card_html(c, level, lang) for c in display_order(cards, level)]
    return "".join(shown) if shown else f'<span class="gd-muted">{escape(t("out", lang))}</span>'


def action_html(row: Mapping[str, object], level: str | None, lang: Lang) -> str:
    """One play or pass of the trick with its combination and the coach's marks."""
    icons = "".join(
        f' <span title="{escape(t(f"mark_{m}", lang))}">{MARK_ICONS[m]}</span>' for m in marks(row)
    )
    if row.get("action") != "play":
        return f'<span class="gd-muted">{escape(t("pass", lang))}</span>{icons}'
    combo, rank = row.get("combo_type"), row.get("combo_rank")
    name = ""
    if isinstance(combo, str):
        reading = reading_name(
            combo, rank if isinstance(rank, str) else None, _size(row.get("combo_size")), lang
        )
        name = f" · <code>{escape(reading)}</code>"
    cards = row.get("cards")
    listed = [str(c) for c in cards] if isinstance(cards, Iterable) and not isinstance(cards, str) else []
    return f"{cards_html(listed, level, lang)}{name}{icons}"


def _size(value: object) -> int | None:
    """A ``combo_size`` cell as an int (``None`` for null or NaN)."""
    try:
        return int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return None


def seat_html(step: Step, seat: str, player: str | None, level: str | None, lang: Lang) -> str:
    """One seat: its name (N or 北), player, cards left, hand; outlined when it acted at this step."""
    hand = step.hands.get(seat)
    count = "?" if hand is None else str(len(hand))
    turn = step.action is not None and step.action.get("seat") == seat
    won = f" {WINNER_ICON}" if step.winner == seat else ""
    name = escape(seat_name(seat, lang))
    head = f"<b>{name}</b> · {escape(player or '—')} · {count} {escape(t('cards', lang))}{won}"
    return (
        f'<div class="gd-seat gd-{seat}{" gd-turn" if turn else ""}">{head}<br>'
        f"{cards_html(hand, level, lang)}</div>"
    )


def trick_html(step: Step, names: Mapping[str, str | None], level: str | None, lang: Lang) -> str:
    """The centre: every play and pass of the current trick and, once it is over, who won it."""
    lines = [f"<b>{escape(t('current_trick', lang))}</b>"]
    if step.trick_no:
        lines[0] += f" {step.trick_no}"
    for row in step.trick:
        seat = str(row.get("seat"))
        who = f"{escape(seat_name(seat, lang))} {escape(names.get(seat) or '')}"
        lines.append(f"{who}: {action_html(row, level, lang)}")
    if not step.trick:
        lines.append(f'<span class="gd-muted">{escape(t("trick_not_started", lang))}</span>')
    if step.winner is not None:
        winner = step.winner
        who = f"{escape(seat_name(winner, lang))} {escape(names.get(winner) or '')}"
        lines.append(f"{WINNER_ICON} {escape(t('trick_won_by', lang))} {who}")
    return '<div class="gd-trick">' + "<br>".join(lines) + "</div>"


def table_html(step: Step, names: Mapping[str, str | None], level: str | None, lang: Lang) -> str:
    """The whole table at ``step``: style, four seats (names from ``names`` by seat) and the trick."""
    seats = "".join(seat_html(step, seat, names.get(seat), level, lang) for seat in ("N", "W", "E", "S"))
    return f'{STYLE}<div class="gd-table">{seats}{trick_html(step, names, level, lang)}</div>'
