"""A visitor's journey in a real browser (Playwright driving /usr/bin/chromium): leaderboard →
player → a row of the player's match list → the replayer at that deal → a step forward by button
and by keyboard; the copied addresses reopen the same player, match, deal and step in a new page.
In 中文 every page, in a state with data (a player, a match and deal, an event chosen), shows no
English words beyond an allow-list of proper names, ids and units."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import page_text
import pytest
from browser import CHROMIUM, Browser, chromium, streamlit_server
from dash_app import PAGES, url_path
from playwright.sync_api import Page

from dashboards.queries.coach import coach_match_list
from pipelines.storage.warehouse import connect

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium (apt-get install chromium)"),
]

ALLOWED = page_text.ALLOWED | {
    "Home",
    "scoring",
    "match_end",
    "Spring",
    "Open",
    "Duplicate",
    "Cup",
    "Player",
    "Red",
    "Blue",
    "swiss",
    "true",
    "false",
    "yyyy",
}
"""ASCII words allowed on a Chinese page: those of :data:`page_text.ALLOWED`, the
Home key, commands, file and event-type names written as code, and the test store's own names
(events "Spring Open" and "Duplicate Cup", players "Player 1" …, clubs, the stage "swiss"), the
true/false of check-box cells in a table's accessible copy and the date inputs' yyyy/mm/dd mask."""
_MAIN_TEXT = """(() => { const m = document.querySelector('[data-testid="stMain"]');
  return m ? m.innerText : ''; })()"""
_WORDS_TEXT = """(() => {
  const m = document.querySelector('[data-testid="stMain"]');
  if (!m) return '';
  const walk = document.createTreeWalker(m, NodeFilter.SHOW_TEXT);
  const out = [];
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const el = n.parentElement;
    if (!el || el.closest('code, style, script')) continue;
    if (getComputedStyle(el).fontFamily.includes('Material')) continue;
    out.push(n.textContent);
  }
  return out.join('\\n');
})()"""
"""The main area's text without code spans (commands, ids) and icons (Material Symbols ligatures
such as ``check_circle`` are text in the DOM)."""
_PICKS = """(() => Array.from(document.querySelectorAll('[data-testid="stSelectbox"] input'))
  .map(e => e.value))()"""
"""The choice shown in every select box of the page (player, match, deal …)."""
_ID = re.compile(r"\b[a-z0-9]+(?:_[a-z0-9]+)+\b|[\w.-]*/[\w./-]+|\b[\w.-]+\.jsonl\b|\S+\?\S+=\S*")
"""Not words: ids (``does_not_beat``, ``deal_start``), file paths and names, and the addresses of
link cells (``player?player=p1&lang=zh``; a table's accessible copy in the DOM holds them)."""
_STEP = re.compile(r"(?:Step|步) (\d+) / \d+")
_ROW_HEIGHT = 35
"""Height of a header or data row of Streamlit's table grid (pixels)."""


def _click(browser: Browser, x: float, y: float) -> bool:
    """Click at (x, y), then pause past the double-click interval (two clicks are two, not one
    double click); always false, so that a wait goes on clicking."""
    browser.page.mouse.click(x, y)
    browser.page.wait_for_timeout(600)
    return False


def _step_shown(browser: Browser) -> int:
    """The step number in the replayer's caption ("Step 3 / 17 · keys …")."""
    found = _STEP.search(browser.evaluate(_MAIN_TEXT))
    assert found, "the replayer shows its step"
    return int(found.group(1))


def _same_picks(one: Browser, other: Browser) -> Callable[[], bool]:
    """Whether both pages show the same choices in their select boxes (player, match, deal)."""
    return lambda: bool(one.evaluate(_PICKS) == other.evaluate(_PICKS))


def test_journey_through_the_match_list_and_copied_addresses(mini_store: Path, tmp_path: Path) -> None:
    con = connect(mini_store)
    with streamlit_server(mini_store) as base, chromium(tmp_path / "profile") as browser:
        board = browser.visit(f"{base}/leaderboard", None)
        assert board.errors == [] and board.title == "Leaderboard"
        browser.page.locator('[data-testid="stPageLink"] a[href*="player?player="]').first.click()
        player_page = browser.result(None, browser.wait_ready(title="Player"))
        assert player_page.errors == [] and player_page.title == "Player", player_page
        player = re.search(r"player=([^&]+)", player_page.url)
        assert player, player_page.url
        first = coach_match_list(con, player=player.group(1)).iloc[0]  # newest match first

        # the match list is the first table under "Matches": its first column is the replay link
        heading = browser.page.get_by_role("heading", name="Matches")
        grid = heading.locator("xpath=following::*[@data-testid='stDataFrame'][1]")
        grid.scroll_into_view_if_needed()
        box = grid.bounding_box()
        assert box is not None
        opened: list[Page] = []
        browser.page.context.on("page", lambda page: opened.append(page))
        # the first click selects the cell, the next follows its link: clicked until a page opens
        browser.wait_for(lambda: bool(opened) or _click(browser, box["x"] + 25, box["y"] + _ROW_HEIGHT * 1.5),
                         "replayer opened from the match list")
        replay = Browser(opened[0])
        replay.wait_ready(title="Hand replayer")
        url = replay.page.url
        assert f"match={first['match_id']}" in url and f"deal={int(first['deal'])}" in url, url
        assert replay.evaluate(_PICKS)[-1] == str(int(first["deal"])), replay.evaluate(_PICKS)
        assert _step_shown(replay) == 0

        replay.page.get_by_role("button", name="Next").first.click()
        replay.wait_for(lambda: _step_shown(replay) == 1 and "step=1" in replay.page.url, "step 1")
        replay.page.keyboard.press("ArrowRight")  # the same button by its key
        replay.wait_for(lambda: _step_shown(replay) == 2 and "step=2" in replay.page.url, "step 2")

        for copied, shows in ((replay.page.url, replay), (player_page.url, browser)):
            again = Browser(browser.page.context.new_page())
            again.page.goto(copied)
            again.wait_ready()
            assert again.page.url == copied
            again.wait_for(_same_picks(again, shows), "the same choices")
            if shows is replay:
                assert _step_shown(again) == 2  # same match, deal and step
        overview = browser.visit(f"{base}/overview", None)
        assert overview.title and "Overview" in overview.title and "/overview" in overview.url


def _verbatim(store: Path) -> list[str]:
    """The rules engine's and the ingest's own words the Data quality page shows as details (their
    codes are named in Chinese; the details are written once, in English)."""
    con = connect(store)
    rows = con.execute(
        "SELECT message FROM quarantine UNION SELECT error_message FROM matches "
        "UNION SELECT message FROM ingested_files"
    ).fetchall()
    return sorted((value for (value,) in rows if value), key=len, reverse=True)


def test_every_chinese_page_has_no_english_labels(mini_store: Path, tmp_path: Path) -> None:
    state = "player=p1&match=m1&deal=2&step=5&event=ev1"
    verbatim = _verbatim(mini_store)
    found: dict[str, list[str]] = {}
    with streamlit_server(mini_store) as base, chromium(tmp_path / "profile") as browser:
        for page in PAGES:
            result = browser.visit(f"{base}/{url_path(page)}?lang=zh&{state}", None)
            assert result.errors == [], (page, result.errors)
            text = _ID.sub(" ", browser.evaluate(_WORDS_TEXT))
            for detail in verbatim:
                text = text.replace(detail, " ")
            words = set(re.findall(r"[A-Za-z][A-Za-z']{2,}", text))
            if words - ALLOWED:
                found[page] = sorted(words - ALLOWED)
    assert found == {}
