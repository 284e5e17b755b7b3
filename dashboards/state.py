"""The state of a view in its address, and links between pages (issue 18), for the coach's pages.

Written here because the shared helpers planned for ``dashboards/ui.py`` (branch ``journey``)
were not committed in time; the names and behaviour follow that plan so the two can be merged
into one module. A widget bound to ``?param=`` takes its value from the address when it has no
state yet or the address changed since the app last wrote it (a link followed), and writes its
value back, so the address bar can always be copied and reopens the same view.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar
from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from dashboards.ui import lang, tr

T = TypeVar("T")


def url_param(param: str) -> str | None:
    """``?param=`` of the address; ``None`` when absent or empty."""
    value = st.query_params.get(param)
    return value or None


def _written(key: str) -> str:
    """The session-state key remembering what :func:`to_url` last wrote for widget ``key``."""
    return f"_url_written:{key}"


def from_url(
    key: str, param: str, options: Sequence[Any] | None = None, parse: Callable[[str], Any] = str
) -> None:
    """Before widget ``key`` is drawn, set its value from ``?param=`` (a stale or malformed value,
    one ``parse`` rejects or not in ``options``, is ignored: the default view opens instead)."""
    text = url_param(param)
    if text is None or (key in st.session_state and st.session_state.get(_written(key)) == text):
        return
    try:
        value = parse(text)
    except ValueError:
        return
    if options is not None and value not in options:
        return
    st.session_state[key] = value
    st.session_state[_written(key)] = text


def to_url(key: str, param: str, value: Any, default: Any = None) -> None:
    """Write widget ``key``'s value as ``?param=`` (removed when ``None`` or ``default``)."""
    text = None if value is None or value == default else str(value)
    st.session_state[_written(key)] = text
    if text is None:
        if param in st.query_params:
            del st.query_params[param]
    elif st.query_params.get(param) != text:
        st.query_params[param] = text


def url_choice(
    widget: Callable[..., Any],
    label: str,
    options: Sequence[T],
    *,
    key: str,
    param: str,
    parse: Callable[[str], Any] = str,
    default: Any = None,
    **kwargs: Any,
) -> T:
    """``widget(label, options, key=key, **kwargs)`` (a select box, radio, …) bound to ``?param=``."""
    from_url(key, param, options, parse)
    picked: T = widget(label, options, key=key, **kwargs)
    to_url(key, param, picked, default)
    return picked


def url_text(label: str, *, key: str, param: str, **kwargs: Any) -> str:
    """A text input (a search box) bound to ``?param=``; its text stripped."""
    from_url(key, param)
    text: str = st.text_input(label, key=key, **kwargs)
    to_url(key, param, text.strip(), default="")
    return text.strip()


def page_url(page: str, **params: Any) -> str:
    """The relative address of page ``page`` (its URL path) with ``params`` and the language."""
    query = {k: str(v) for k, v in params.items() if v is not None}
    if lang() != "en":
        query["lang"] = lang()
    return f"{page}?{urlencode(query)}" if query else page


def player_link(player: str) -> str:
    """The address of the Player page of ``player`` (for a ``LinkColumn``)."""
    return page_url("player", player=player)


def replayer_link(match: str, deal: int | None = None, step: int | None = None) -> str:
    """The address of the hand replayer at ``match``, deal ``deal`` and step ``step``."""
    return page_url("replayer", match=match, deal=deal, step=step)


def player_label(roster: pd.DataFrame) -> Callable[[str | None], str]:
    """The label "name (id)" of the roster's players ("All" for ``None``): typing a name or an id
    in a select box finds the player."""
    names = {
        p: n for p, n in zip(roster["player_id"], roster["name"], strict=True) if isinstance(n, str) and n
    }

    def label(player: str | None) -> str:
        if player is None:
            return tr("all")
        return f"{names[player]} ({player})" if player in names else str(player)

    return label


def player_picker(
    roster: pd.DataFrame,
    *,
    key: str,
    param: str = "player",
    label_key: str = "choose_player",
    all_option: bool = False,
) -> str | None:
    """A select box of the roster's players labelled "name (id)", bound to ``?param=``; ``None``
    for "All" (with ``all_option``) or an empty roster."""
    ids: list[str | None] = [*([None] if all_option else []), *roster["player_id"].tolist()]
    if not ids:
        return None
    return url_choice(
        st.selectbox, tr(label_key), ids, key=key, param=param, format_func=player_label(roster)
    )


def match_label(matches: pd.DataFrame) -> Callable[[str], str]:
    """The label of a match: "event · round r · table t · id" (typing any part finds it)."""
    rows = matches.set_index("match_id")

    def label(match: str) -> str:
        if match not in rows.index:
            return str(match)
        row = rows.loc[match]
        parts = [str(row["event_id"])] if isinstance(row.get("event_id"), str) else []
        if pd.notna(row.get("round")):
            parts.append(f"{tr('round')} {int(row['round'])}")
        if isinstance(row.get("table"), str):
            parts.append(f"{tr('table')} {row['table']}")
        return " · ".join([*parts, str(match)])

    return label


def match_picker(matches: pd.DataFrame, *, key: str, param: str = "match") -> str | None:
    """A select box of ``matches`` (``queries.find_matches`` rows) bound to ``?match=``."""
    ids: list[str] = matches["match_id"].tolist()
    if not ids:
        return None
    return url_choice(
        st.selectbox, tr("choose_match"), ids, key=key, param=param, format_func=match_label(matches)
    )
