"""Guandan Lens dashboards: the Streamlit entry point (``streamlit run dashboards/app.py``).

Builds the navigation over the pages in ``dashboards/views/`` (not ``pages/``: Streamlit would also
serve that folder as legacy file-based pages that bypass this entry point), the language switch
and the store controls in the sidebar. The store is ``$GDAN_STORE`` (default ``./data``); the pages
read its last published run and follow newer ones by themselves (``dashboards.ui.follow_runs``),
and only the results entry page writes (to its inbox), for a logged-in referee or admin or a
table's token (:mod:`dashboards.access`), and it is not in the menu for anyone else (nor for
anyone on a read-only server: `gdan dashboard` over an ``s3://`` store's local copy). When the
store's pages are not public (``gdan users public no``), a visitor sees only the login.
Store-wide statistics are computed in the background for each run, once the page shown has run
(``GDAN_WARM_UP=0`` turns that off).
"""

from __future__ import annotations

import streamlit as st

from dashboards import access
from dashboards.i18n import LANGS
from dashboards.ui import follow_runs, from_url, pin_run, reload_data, store_name, to_url, tr, warm_up

# (file, label key, URL path, icon) of every page, in menu order.
PAGES: list[tuple[str, str, str, str]] = [
    ("views/overview.py", "page_overview", "overview", ":material/dashboard:"),
    ("views/leaderboard.py", "page_leaderboard", "leaderboard", ":material/leaderboard:"),
    ("views/player.py", "page_player", "player", ":material/person:"),
    ("views/head_to_head.py", "page_head_to_head", "head-to-head", ":material/group:"),
    ("views/dan.py", "page_dan", "dan", ":material/military_tech:"),
    ("views/tributes.py", "page_tributes", "tributes", ":material/swap_horiz:"),
    ("views/bombs.py", "page_bombs", "bombs", ":material/local_fire_department:"),
    ("views/tournament.py", "page_tournament", "tournament", ":material/emoji_events:"),
    ("views/entry.py", "page_entry", "entry", ":material/edit_note:"),
    ("views/replayer.py", "page_replayer", "replayer", ":material/play_circle:"),
    ("views/puzzles.py", "page_puzzles", "puzzles", ":material/extension:"),
    ("views/quality.py", "page_quality", "quality", ":material/rule:"),
]

st.set_page_config(page_title="Guandan Lens · 掼蛋", page_icon="🃏", layout="wide")
pin_run()  # this script run reads the store's last published run, whatever is published meanwhile

from_url("lang", "lang", list(LANGS))  # a shared link may open in 中文: ?lang=zh
access.token_from_address()  # a table's link: /entry?token=…
who = access.principal()

with st.sidebar:
    chosen = st.radio(tr("language"), list(LANGS), format_func=LANGS.__getitem__, key="lang", horizontal=True)
    to_url("lang", "lang", chosen, default="en")
    st.caption(f"{tr('store')}: `{store_name()}`")
    if st.button(tr("reload"), key="reload"):
        reload_data()
    access.sidebar(who)
    follow_runs()  # a newly published run reruns the open page: new results show without a click


def login_page() -> None:
    """The only page of a store whose pages are not public, for a visitor not logged in."""
    st.title(tr("access_login"))
    st.info(tr("access_login_required"))


if who is None and not access.pages_public():
    st.navigation([st.Page(login_page, title=tr("access_login"), url_path="login", default=True)]).run()
    st.stop()

writer = who is not None and who.may_enter_results()
pages = [
    st.Page(path, title=tr(label), url_path=url, icon=icon)
    for path, label, url, icon in PAGES
    if writer or url != "entry"
]


def home() -> None:
    """The root address opens the first page at its own path, with the link's query parameters.

    Streamlit serves its default page at ``/`` only (``/overview`` would be "page not found"), so
    the default is this hidden page and every page of :data:`PAGES` keeps its ``/<url path>``.
    """
    st.switch_page(pages[0], query_params=st.query_params.to_dict())


navigation = st.navigation(
    [st.Page(home, title=tr("app_title"), url_path="home", default=True, visibility="hidden"), *pages]
)
due = access.entry_address_due()
if due is not None and writer:
    st.switch_page(next(p for p in pages if p.url_path == "entry"), query_params=due)
try:
    navigation.run()
finally:
    warm_up()  # after the page's own queries (also when it stops early), not competing with them
