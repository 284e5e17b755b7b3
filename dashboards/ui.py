"""Shared Streamlit plumbing of the pages: the cached store connection, cached queries, the
language, the "no data yet" state and downloadable tables.

The connection is one in-memory DuckDB per store path (``st.cache_resource``). Pages call the
query functions of :mod:`dashboards.queries` themselves, through :func:`run`
(``run(queries.player_summary, player=p)``), so a type checker follows each value from the page
to its SQL and sees a renamed query or a wrong parameter (no query is named by a string). Each
query runs on its own cursor (DuckDB connections are not shared between Streamlit's script
threads) and its result is cached by store path, query and bound parameters (``st.cache_data``).
Dashboards never write to the store.
"""

from __future__ import annotations

import inspect
import os
import threading
from collections.abc import Callable
from functools import partial
from typing import Any, Concatenate, ParamSpec, TypeVar

import duckdb
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from dashboards import queries
from dashboards.i18n import LABELS, Lang, t
from pipelines.tournament_data import LookupFailed
from pipelines.warehouse import connect, store_path
from printouts import Document, to_csv, to_pdf, to_xlsx
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


@st.cache_resource(show_spinner=False)
def _connection(store: str) -> duckdb.DuckDBPyConnection:
    """One DuckDB connection with a view per table of ``store``."""
    return connect(store)


P = ParamSpec("P")
R = TypeVar("R")
Params = tuple[tuple[str, Any], ...]
"""A query's parameters, bound to its signature with defaults applied, sorted by name."""


@st.cache_data(show_spinner=False, max_entries=512)
def _cached(store: str, query: str, params: Params, _function: Callable[..., Any]) -> Any:
    """``_function(cursor, **params)`` on a fresh cursor of the store's connection.

    Cached by store, ``query`` (the function's qualified name) and ``params``; the function
    object itself is not hashed (the leading underscore tells Streamlit so).
    """
    cursor = _connection(store).cursor()
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


def _run(store: str, function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The cached result of ``function(cursor, *args, **kwargs)`` over ``store``."""
    name = f"{function.__module__}.{function.__qualname__}"
    return _cached(store, name, _bound(function, args, kwargs), function)


def run(query: Callable[Concatenate[queries.Con, P], R], /, *args: P.args, **kwargs: P.kwargs) -> R:
    """The (cached) result of ``query(connection, *args, **kwargs)`` over the current store.

    ``query`` is a function of :mod:`dashboards.queries`; its parameters are checked like a
    direct call's.
    """
    result: R = _run(current_store(), query, args, kwargs)
    return result


WARM_QUERIES: list[tuple[Callable[..., Any], dict[str, Any]]] = [
    (queries.overview_totals, {}),
    (queries.status_counts, {}),
    (queries.filter_options, {}),
    (queries.players, {}),
    (queries.leaderboard, {"event": None, "rules": None, "min_rounds": 0}),
    (queries.play_stats, {"player": None}),
    (queries.jie_feng_received, {"player": None}),
    (queries.bomb_summary, {"rules": None}),
    (queries.bombs_per_deal, {"rules": None}),
    (queries.bombs_by_class, {"rules": None}),
    (queries.bomb_timing, {"rules": None}),
    (queries.win_by_bombs, {"rules": None}),
    (queries.tribute_kinds, {"rules": None}),
    (queries.tribute_card_ranks, {"rules": None}),
    (queries.level_gain_after_tribute, {"rules": None}),
    (queries.quarantine_by_code, {}),
    (queries.incomplete_matches, {}),
    (queries.events, {}),
]
"""Store-wide queries (same parameters as the pages' defaults) computed in the background at start."""


@st.cache_resource(show_spinner=False)
def _warm_up(store: str) -> threading.Thread:
    """Fill the query cache with :data:`WARM_QUERIES` in a daemon thread, once per store and process.

    The population statistics scan every play of the store; computing them while the user looks
    at the first page makes the other pages' first render fast. The cache locks per key, so a page
    asking for a query being warmed waits for that one result instead of computing it again.
    """

    def warm() -> None:
        for function, params in WARM_QUERIES:
            _run(store, function, (), params)

    thread = threading.Thread(target=warm, name=f"gdan-warm-up:{store}", daemon=True)
    thread.start()
    return thread


def warm_up() -> None:
    """Start the background warm-up of the current store unless ``GDAN_WARM_UP=0``."""
    if os.environ.get("GDAN_WARM_UP", "1") != "0":
        _warm_up(current_store())


def reload_data() -> None:
    """Forget cached connections and results, e.g. after the pipeline wrote new files."""
    st.cache_data.clear()
    st.cache_resource.clear()


def no_data(key: str = "no_data") -> None:
    """The friendly empty state of a page or a section."""
    st.info(tr(key), icon="ℹ️")


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
    unless ``column_config`` sets them; ``*_rate`` columns show as percentages, and missing text
    as an empty cell rather than "None".
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
    st.dataframe(df, hide_index=True, column_config=config, **kwargs)
    st.download_button(
        tr("download_csv"),
        df.to_csv(index=False).encode("utf-8"),
        file_name=f"{key}.csv",
        mime="text/csv",
        key=f"dl_{key}",
    )


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
    build: Callable[Concatenate[queries.Con, P], Document],
    name: str,
    label: str,
    /,
    *args: P.args,
    **kwargs: P.kwargs,
) -> None:
    """pdf, xlsx and csv download buttons ("<label> · PDF", …) of the printout
    ``build(connection, *args, **kwargs)``, saved as ``<name>.<type>``.

    ``build`` is a document function of :mod:`pipelines.printout_documents` (the ones `gdan
    export` writes). The document is built (cached, like a query) and written only when a button
    is clicked, so the page does not pay for printouts nobody downloads. A lookup that finds
    nothing (e.g. no standings yet) shows the reason instead of the buttons; without a Chinese
    font there is no pdf button.
    """
    store = current_store()
    try:
        document: Document = _run(store, build, args, kwargs)
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


def choice(label_key: str, options: list[str], key: str, all_option: bool = True) -> str | None:
    """A select box over ``options``; ``None`` when "All" is chosen."""
    values: list[str | None] = [None, *options] if all_option else list(options)
    picked = st.selectbox(
        tr(label_key), values, key=key, format_func=lambda v: tr("all") if v is None else str(v)
    )
    return picked
