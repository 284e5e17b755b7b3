"""Shared Streamlit plumbing of the pages: the cached store connection, cached queries, the
language, the "no data yet" state, downloadable tables, and the state of a view in its address
(``?player=…&deal=…``: :func:`url_choice`, :func:`from_url`, :func:`to_url`) with the links
between pages (:func:`player_link`, :func:`replayer_link`, :func:`page_link`).

The connection is one in-memory DuckDB per store path and published run (``st.cache_resource``,
the last two kept). Pages call the query functions of the :mod:`dashboards.queries` modules
themselves, through :func:`run` (``run(player_summary, player=p)``), so a type checker follows
each value from the page to its SQL and sees a renamed query or a wrong parameter (no query is
named by a string). Each query runs on its own cursor (DuckDB connections are not shared between
Streamlit's script threads) and its result is cached by store path, run, query and bound
parameters (``st.cache_data``). Each script run reads the run that was the store's last when it
started (:func:`pin_run`), and :func:`follow_runs` reruns an open page when a newer one is
published, so a new result shows without a click. Dashboards never write to the store.
"""

from __future__ import annotations

import inspect
import os
import threading
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Concatenate, ParamSpec, TypeVar
from urllib.parse import urlencode

import duckdb
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from dashboards.i18n import LABELS, Lang, t
from dashboards.queries.bombs import coach_bombs, coach_bombs_per_deal, coach_win_by_bombs
from dashboards.queries.coach import coach_deal_record
from dashboards.queries.common import Con
from dashboards.queries.overview import overview_totals, status_counts
from dashboards.queries.play_patterns import jie_feng_received, play_stats
from dashboards.queries.players import filter_options, leaderboard, players
from dashboards.queries.quality import incomplete_matches, quarantine_by_code
from dashboards.queries.seats import NO_FILTERS
from dashboards.queries.tournament import events
from dashboards.queries.tributes import coach_level_gain, coach_tribute_cards, coach_tribute_kinds
from pipelines.reads.tournament_data import LookupFailed
from pipelines.storage.store import Store
from pipelines.storage.warehouse import connect, store_path
from printouts import Document, to_csv, to_pdf, to_xlsx
from printouts.cells import csv_safe
from printouts.pdf import FontMissing, find_cjk_font


def lang() -> Lang:
    """The language chosen in the sidebar (English by default)."""
    return "zh" if st.session_state.get("lang") == "zh" else "en"


def tr(key: str) -> str:
    """The label ``key`` in the current language."""
    return t(key, lang())


def current_store() -> str:
    """The store folder as a string: ``$GDAN_STORE`` or ``./data``."""
    return str(store_path())


def store_name() -> str:
    """The store as its users know it: ``$GDAN_STORE_SOURCE`` (the ``s3://`` root whose local copy
    the pages read) when set, else :func:`current_store`."""
    return os.environ.get("GDAN_STORE_SOURCE") or current_store()


def published_run(store: str) -> int | None:
    """The number of the last run published in ``store`` (None before any), read from the
    commit log's statistics: cheap enough to ask every few seconds."""
    return Store(store_path(store)).last_run()


_PINNED = "_shown_run"
"""Session-state key of (store, run) that this session's current script run reads."""


def pin_run() -> None:
    """Make this script run read the store's last published run (called once at its start)."""
    store = current_store()
    st.session_state[_PINNED] = (store, published_run(store))


def shown_run(store: str) -> int | None:
    """The run the current script run reads: the pinned one (:func:`pin_run`), else the last."""
    pinned = st.session_state.get(_PINNED)
    if isinstance(pinned, tuple) and pinned[0] == store:
        run: int | None = pinned[1]
        return run
    return published_run(store)


REFRESH_SECONDS = float(os.environ.get("GDAN_REFRESH_SECONDS", "3"))
"""How often an open page asks whether a newer run was published (``$GDAN_REFRESH_SECONDS``;
0 turns the check off)."""


def follow_runs() -> None:
    """Rerun the whole app, keeping every widget's state, when the store published a run newer
    than the one this page shows; checked every :data:`REFRESH_SECONDS` in the background."""
    if REFRESH_SECONDS <= 0:
        return

    @st.fragment(run_every=REFRESH_SECONDS)
    def check() -> None:
        store = current_store()
        if published_run(store) != shown_run(store):
            st.rerun(scope="app")

    check()


@st.cache_resource(show_spinner=False, max_entries=2)
def _connection(store: str, run: int | None) -> duckdb.DuckDBPyConnection:
    """One DuckDB connection with a view per table of ``store`` as published by run ``run``
    (None: before any run). Only the last two are kept: a script run that started before the
    newest run was published may still read the one before."""
    return connect(store, snapshot=None if run is None else Store(store_path(store)).published(run))


P = ParamSpec("P")
R = TypeVar("R")
Params = tuple[tuple[str, Any], ...]
"""A query's parameters, bound to its signature with defaults applied, sorted by name."""


@st.cache_data(show_spinner=False, max_entries=512)
def _cached(store: str, run: int | None, query: str, params: Params, _function: Callable[..., Any]) -> Any:
    """``_function(cursor, **params)`` on a fresh cursor of the connection to ``store`` at ``run``.

    Cached by store, run, ``query`` (the function's qualified name) and ``params``; the function
    object itself is not hashed (the leading underscore tells Streamlit so).
    """
    cursor = _connection(store, run).cursor()
    try:
        return _function(cursor, **dict(params))
    finally:
        cursor.close()


def _bound(function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Params:
    """The parameters of a call of ``function`` (without its connection), defaults filled in.

    Binding makes ``run(f)`` and ``run(f, x=<default>)`` one cache entry, and a wrong parameter
    a ``TypeError`` before anything is cached.
    """
    bound = inspect.signature(function).bind(None, *args, **kwargs)
    bound.apply_defaults()
    return tuple(sorted(list(bound.arguments.items())[1:]))


def _at_run(store: str, run: int | None, function: Callable[..., Any], args: tuple[Any, ...],
            kwargs: dict[str, Any]) -> Any:
    """The cached result of ``function(cursor, *args, **kwargs)`` over ``store`` as of run ``run``."""
    name = f"{function.__module__}.{function.__qualname__}"
    return _cached(store, run, name, _bound(function, args, kwargs), function)


def _run(store: str, function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The cached result of ``function(cursor, *args, **kwargs)`` over ``store`` as of the run this
    script run shows (:func:`shown_run`)."""
    return _at_run(store, shown_run(store), function, args, kwargs)


def run(query: Callable[Concatenate[Con, P], R], /, *args: P.args, **kwargs: P.kwargs) -> R:
    """The (cached) result of ``query(connection, *args, **kwargs)`` over the current store.

    ``query`` is a function of a :mod:`dashboards.queries` module; its parameters are checked like a
    direct call's.
    """
    result: R = _run(current_store(), query, args, kwargs)
    return result


WARM_QUERIES: list[tuple[Callable[..., Any], dict[str, Any]]] = [
    (overview_totals, {}),
    (status_counts, {}),
    (filter_options, {}),
    (players, {}),
    (leaderboard, {"event": None, "rules": None, "min_rounds": 0}),
    (play_stats, {"player": None}),
    (jie_feng_received, {"player": None}),
    (coach_tribute_kinds, {"player": None, "filters": NO_FILTERS}),
    (coach_tribute_cards, {"player": None, "filters": NO_FILTERS}),
    (coach_level_gain, {"player": None, "filters": NO_FILTERS}),
    (coach_deal_record, {"player": None, "filters": NO_FILTERS}),
    (coach_bombs, {"player": None, "filters": NO_FILTERS}),
    (coach_bombs_per_deal, {"player": None, "filters": NO_FILTERS}),
    (coach_win_by_bombs, {"player": None, "filters": NO_FILTERS}),
    (quarantine_by_code, {}),
    (incomplete_matches, {}),
    (events, {}),
]
"""Store-wide queries, each with the parameters a page asks for when first opened (the Tributes and
Bombs pages show everyone, unfiltered), computed in the background at start."""


@st.cache_resource(show_spinner=False, max_entries=2)
def _warm_up(store: str, run: int | None) -> threading.Thread:
    """Fill the query cache with :data:`WARM_QUERIES` in a daemon thread, once per store and run.

    The population statistics scan every play of the store; computing them while the user looks
    at the first page makes the other pages' first render fast. The cache locks per key, so a page
    asking for a query being warmed waits for that one result instead of computing it again.
    """

    def warm() -> None:
        for function, params in WARM_QUERIES:
            _at_run(store, run, function, (), params)

    thread = threading.Thread(target=warm, name=f"gdan-warm-up:{store}@{run}", daemon=True)
    thread.start()
    return thread


def warm_up() -> None:
    """Start the background warm-up of the current store unless ``GDAN_WARM_UP=0``."""
    if os.environ.get("GDAN_WARM_UP", "1") != "0":
        store = current_store()
        _warm_up(store, shown_run(store))


def reload_data() -> None:
    """Forget cached connections and results and read the store's last run from here on."""
    st.cache_data.clear()
    st.cache_resource.clear()
    pin_run()


def no_data(key: str = "no_data") -> None:
    """The friendly empty state of a page or a section."""
    st.info(tr(key), icon=":material/info:")


def _blank_missing(value: Any) -> Any:
    """A text cell's value, with None, NA and NaN as an empty string."""
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return ""
    return value


def show_table(
    df: pd.DataFrame, key: str, column_config: dict[str, Any] | None = None, **kwargs: Any
) -> None:
    """A table with a CSV download button under it; an empty table shows the empty state.

    Columns named like a label of :mod:`dashboards.i18n` get that label in the current language
    unless ``column_config`` sets them; ``*_rate`` columns show as percentages, and a missing
    value (text or number) as an empty cell rather than "None".
    """
    if df.empty:
        no_data("no_data_table")
        return
    config: dict[str, Any] = {c: tr(c) for c in df.columns if c in LABELS}
    for c in df.columns:
        if (c.endswith("_rate") or c == "share") and pd.api.types.is_numeric_dtype(df[c]):
            config[c] = st.column_config.NumberColumn(tr(c) if c in LABELS else c, format="percent")
    config.update(column_config or {})
    text = [
        c for c in df.columns if pd.api.types.is_object_dtype(df[c]) or pd.api.types.is_string_dtype(df[c])
    ]
    df = df.assign(**{c: df[c].map(_blank_missing) for c in text})
    st.dataframe(df, hide_index=True, column_config=config, placeholder="", **kwargs)
    st.download_button(
        tr("download_csv"),
        table_csv(df),
        file_name=f"{key}.csv",
        mime="text/csv",
        key=f"dl_{key}",
    )


def table_csv(df: pd.DataFrame) -> bytes:
    """A shown table as the CSV file of its download button: UTF-8, a header row, and text that a
    spreadsheet would read as a formula marked as text (:mod:`printouts.cells`)."""
    return df.rename(columns=csv_safe).map(csv_safe).to_csv(index=False).encode("utf-8")


def decided_label(step: str | None) -> str:
    """A tie-break step (``standings.decided_by``, ``duplicate_standings.decided_by``) in words.

    The first-ranked entry has none (empty cell); ``place_k`` is "more deals placed k-th".
    """
    if step is None or (not isinstance(step, str) and pd.isna(step)):
        return ""
    if step.startswith("place_") and step[6:].isdigit():
        return tr("decided_place").format(k=step[6:])
    key = f"decided_{step}"
    return tr(key) if key in LABELS else tr(step) if step in LABELS else step


def percent(value: Any) -> str:
    """A share (0…1) as a percentage, e.g. ``0.375`` → ``"38%"``; a dash when missing."""
    return "—" if value is None or pd.isna(value) else f"{value:.0%}"


def flag_low_data(values: pd.Series, low_data: pd.Series) -> pd.Series:
    """``values`` as text, with "⚠" after those whose ``low_data`` flag is set.

    Tables cannot grey out single rows, so a forecast or estimate from too little data is marked
    in its first column (the page's caption explains the mark).
    """
    return pd.Series(
        [f"{v} ⚠" if bool(flag) else str(v) for v, flag in zip(values, low_data.fillna(False), strict=True)],
        index=values.index,
    )


PRINTOUT_FORMATS: tuple[tuple[str, str], ...] = (
    ("pdf", "application/pdf"),
    ("xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
    ("csv", "text/csv"),
)
"""The printouts' file types (``printouts`` writers) with their MIME types."""


def _printout_bytes(document: Document, fmt: str) -> bytes:
    """``document`` written as ``fmt`` by the pure writers of :mod:`printouts` (csv with a BOM, so
    Excel shows Chinese)."""
    if fmt == "pdf":
        return to_pdf(document)
    if fmt == "xlsx":
        return to_xlsx(document)
    return to_csv(document, bom=True)


def printout_downloads(
    build: Callable[Concatenate[Con, P], Document],
    name: str,
    label: str,
    /,
    *args: P.args,
    **kwargs: P.kwargs,
) -> None:
    """pdf, xlsx and csv download buttons ("<label> · PDF", …) of the printout
    ``build(connection, *args, **kwargs)``, saved as ``<name>.<type>``.

    ``build`` is a document function of :mod:`pipelines.reads.printout_documents` (the ones
    `gdan export` writes), printed in the page's language. The document is built (cached, like a
    query) and written only when a button is clicked, so the page does not pay for printouts
    nobody downloads. A lookup that finds nothing (e.g. no standings yet) shows the reason
    instead of the buttons; without a Chinese font there is no pdf button.
    """
    store = current_store()
    try:
        document: Document = _run(store, build, args, {**kwargs, "lang": lang()})
    except LookupFailed as exc:
        st.caption(f"{label} · {tr('printout_unavailable')}: {exc}")
        return
    formats = [(f, m) for f, m in PRINTOUT_FORMATS if f != "pdf" or _has_cjk_font()]
    for column, (fmt, mime) in zip(st.columns(len(PRINTOUT_FORMATS)), formats, strict=False):
        column.download_button(
            f"{label} · {fmt.upper()}",
            partial(_printout_bytes, document, fmt),
            file_name=f"{name}.{fmt}",
            mime=mime,
            key=f"print_{name}_{fmt}",
            on_click="ignore",
        )


@st.cache_resource(show_spinner=False)
def _has_cjk_font() -> bool:
    """Whether the pdf writer finds a font with Chinese glyphs (checked once per process)."""
    try:
        find_cjk_font()
    except FontMissing:
        return False
    return True


def show_chart(fig: go.Figure, key: str) -> None:
    """A Plotly figure across the page width."""
    st.plotly_chart(fig, key=key, config={"displaylogo": False})


def show_figure(df: pd.DataFrame, build: Callable[[pd.DataFrame, Lang], go.Figure], key: str) -> None:
    """The chart ``build(df, lang)`` across the page width; an empty frame shows the empty state."""
    if df.empty:
        no_data("no_data_table")
        return
    show_chart(build(df, lang()), key)


def choice(
    label_key: str,
    options: list[str],
    key: str,
    all_option: bool = True,
    param: str | None = None,
    name: Callable[[str], str] = str,
) -> str | None:
    """A select box over ``options``, each shown as ``name(option)``; ``None`` when "All" is
    chosen. With ``param`` the choice is also ``?param=`` in the address (see :func:`url_choice`)."""
    values: list[str | None] = [None, *options] if all_option else list(options)
    label = tr(label_key)

    def shown(value: str | None) -> str:
        return tr("all") if value is None else name(value)

    if param is not None:
        return url_choice(st.selectbox, label, values, key=key, param=param, format_func=shown)
    picked = st.selectbox(label, values, key=key, format_func=shown)
    return picked


# ---- the view in the address: query parameters and links between pages ----------------------

T = TypeVar("T")


def url_param(param: str) -> str | None:
    """``?param=`` of the address (the last one if repeated); ``None`` when absent or empty."""
    value = st.query_params.get(param)
    return value or None


def _written(key: str) -> str:
    """The session-state key remembering what :func:`to_url` last wrote for widget ``key``."""
    return f"_url_written:{key}"


def from_url(
    key: str, param: str, options: Sequence[Any] | None = None, parse: Callable[[str], Any] = str
) -> None:
    """Before widget ``key`` is drawn, set its value from ``?param=`` so that a link opens that view.

    The address wins when the widget has no state yet (a link opened in a new tab, a page switch)
    or when the address changed since the app last wrote it (a link followed inside the app);
    otherwise the user's latest choice stays. A value ``parse`` rejects (``ValueError``) or not in
    ``options`` is ignored, so a stale link opens the default view instead of an error.
    """
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
    """Write the value of widget ``key`` as ``?param=`` (removed when it is ``None`` or ``default``),
    so that the address bar always holds the view and can be copied."""
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
    """``widget(label, options, key=key, **kwargs)`` (``st.selectbox``, ``st.radio``,
    ``st.select_slider``, …) bound to ``?param=``: the address sets it (:func:`from_url`) and it
    writes the address (:func:`to_url`, nothing when the choice is ``default``). ``parse`` turns
    the address's text into an option (e.g. ``int`` for deal numbers). Do not pass ``index`` or
    ``value``: the widget's state comes from the address or the user.
    """
    from_url(key, param, options, parse)
    picked: T = widget(label, options, key=key, **kwargs)
    to_url(key, param, picked, default)
    return picked


def url_text(label: str, *, key: str, param: str, **kwargs: Any) -> str:
    """A text input (e.g. a search box) bound to ``?param=`` like :func:`url_choice`."""
    from_url(key, param)
    text: str = st.text_input(label, key=key, **kwargs)
    to_url(key, param, text.strip(), default="")
    return text.strip()


def page_url(page: str, **params: Any) -> str:
    """The address of page ``page`` (its URL path, e.g. ``"player"``) with ``params`` (``None``
    left out) and the current language; relative, so it works under any host and base path."""
    query = {k: str(v) for k, v in params.items() if v is not None}
    if lang() != "en":
        query["lang"] = lang()
    return f"{page}?{urlencode(query)}" if query else page


def player_link(player: str, name: str | None = None) -> str:
    """The address of the Player page of ``player`` (for a ``st.column_config.LinkColumn``); with
    a ``name`` the address carries it too, for :data:`NAMED_LINK` to show the name, not the id."""
    return page_url("player", player=player, name=name)


NAMED_LINK = r"[?&]name=([^&]*)"
"""The ``display_text`` of a link column of :func:`player_link` addresses with names: the name
shows, the id is in the link (a hover shows it)."""


def replayer_link(match: str, deal: int | None = None, step: int | None = None) -> str:
    """The address of the hand replayer at ``match``, deal ``deal`` and step ``step``."""
    return page_url("replayer", match=match, deal=deal, step=step)


def page_link(page: str, label: str, icon: str | None = None, **params: Any) -> None:
    """A link (``st.page_link``) to page ``views/<page>.py`` with ``params`` and the language."""
    query = {k: str(v) for k, v in params.items() if v is not None}
    if lang() != "en":
        query["lang"] = lang()
    st.page_link(f"views/{page}.py", label=label, icon=icon, query_params=query)


# ---- choosing a player or a match by name or id ----------------------------------------------


def player_label(roster: pd.DataFrame) -> Callable[[str | None], str]:
    """The ``format_func`` "name (id)" of the roster's players ("All" for ``None``): a select box
    filters by what is typed against this label, so a name or an id finds the player."""
    names = {
        p: n for p, n in zip(roster["player_id"], roster["name"], strict=True) if isinstance(n, str) and n
    }

    def label(player: str | None) -> str:
        if player is None:
            return tr("all")
        return f"{names[player]} ({player})" if player in names else str(player)

    return label


def find_players(roster: pd.DataFrame, text: str) -> pd.DataFrame:
    """The roster's rows whose id or name contains ``text`` (case-insensitive); all when empty."""
    needle = text.strip().casefold()
    if not needle:
        return roster
    hay = roster["player_id"].astype(str) + " " + roster["name"].fillna("").astype(str)
    return roster[hay.str.casefold().str.contains(needle, regex=False)]


def player_picker(
    roster: pd.DataFrame,
    *,
    key: str,
    param: str = "player",
    label_key: str = "choose_player",
    all_option: bool = False,
) -> str | None:
    """A select box of the roster's players labelled "name (id)" (type either to find one), bound
    to ``?player=``; ``None`` for "All" (with ``all_option``) or an empty roster."""
    ids: list[str | None] = [*([None] if all_option else []), *roster["player_id"].tolist()]
    if not ids:
        return None
    return url_choice(
        st.selectbox, tr(label_key), ids, key=key, param=param, format_func=player_label(roster)
    )


def no_match(text: str, key: str = "no_player_matches") -> None:
    """The state of a search that found nothing: "No player matches “…”." (not "no data yet")."""
    st.info(tr(key).format(q=text), icon=":material/search:")


def match_label(matches: pd.DataFrame) -> Callable[[str], str]:
    """The ``format_func`` of a match: "event · round r · table t · id" (typing any part finds it)."""
    rows = matches.set_index("match_id")

    def label(match: str) -> str:
        if match not in rows.index:
            return str(match)
        row = rows.loc[match]
        parts = [str(row[c]) for c in ("event_id",) if c in row and isinstance(row[c], str)]
        for column, word in (("round", "round"), ("table", "table")):
            if column in row and pd.notna(row[column]):
                parts.append(f"{tr(word)} {int(row[column])}")
        return " · ".join([*parts, str(match)])

    return label


def match_picker(matches: pd.DataFrame, *, key: str, param: str = "match") -> str | None:
    """A select box of ``matches`` (rows of ``dashboards.queries.replayer.find_matches``) labelled by
    event, round, table and id, bound to ``?match=``; ``None`` when there are none."""
    ids: list[str] = matches["match_id"].tolist()
    if not ids:
        return None
    return url_choice(
        st.selectbox, tr("choose_match"), ids, key=key, param=param, format_func=match_label(matches)
    )


def shared_rank(values: pd.Series, decimals: int = 1) -> pd.Series:
    """Ranks of ``values``, best (highest) first, equal shown values sharing one (1, 2, 2, 4):
    values are compared as displayed, rounded to ``decimals``; a missing value has no rank."""
    return values.round(decimals).rank(method="min", ascending=False).astype("Int64")
