"""The journey of issue 18 in a real browser (Playwright driving /usr/bin/chromium): leaderboard →
player → replayer at a deal; the copied address reopens the same view in a new page; in 中文 the
pages show no English words beyond an allow-list of proper names, ids and units."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser import CHROMIUM, Browser, chromium, streamlit_server

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium (apt-get install chromium)"),
]

ALLOWED = {
    "Guandan",
    "Lens",
    "English",
    "CSV",
    "PDF",
    "XLSX",
    "UTC",
    "BCTA",
    "Spring",
    "Open",
    "ev1",
    "swiss",
    "Player",
}
"""ASCII words allowed on a Chinese page: the app's and events' names, file types, ids, and the
test store's player names ("Player 1" …)."""
_MAIN_TEXT = """(() => { const m = document.querySelector('[data-testid="stMain"]');
  return m ? m.innerText : ''; })()"""

_PICKS = """(() => Array.from(document.querySelectorAll('[data-testid="stSelectbox"]'))
  .map(e => e.innerText))()"""


def test_journey_by_links_and_copied_address(mini_store: Path, tmp_path: Path) -> None:
    with streamlit_server(mini_store) as base, chromium(tmp_path / "profile") as browser:
        board = browser.visit(f"{base}/leaderboard", None)
        assert board.errors == [] and board.title == "Leaderboard"
        browser.page.locator('[data-testid="stPageLink"] a[href*="player?player="]').first.click()
        player = browser.result(None, browser.wait_ready())
        assert "/player?player=" in player.url and player.errors == [], player.url
        shown = browser.visit(f"{base}/replayer?match=m1&deal=2", None)
        assert shown.errors == [] and "deal=2" in shown.url
        copied = browser.page.url
        again = browser.page.context.new_page()
        again.goto(copied)
        reopened = Browser(again)
        reopened.wait_ready()
        assert "match=m1" in again.url and "deal=2" in again.url
        picks = browser.evaluate(_PICKS)
        assert picks, "the replayer shows its match and deal pickers"
        for _ in range(40):  # the reopened page may still be drawing its pickers
            if reopened.evaluate(_PICKS) == picks:
                break
            again.wait_for_timeout(250)
        assert reopened.evaluate(_PICKS) == picks  # same match and deal chosen
        overview = browser.visit(f"{base}/overview", None)
        assert overview.title and "Overview" in overview.title and "/overview" in overview.url


@pytest.mark.parametrize("page", ["overview", "leaderboard", "dan", "tournament"])
def test_chinese_pages_have_no_english_labels(mini_store: Path, tmp_path: Path, page: str) -> None:
    with streamlit_server(mini_store) as base, chromium(tmp_path / "profile") as browser:
        result = browser.visit(f"{base}/{page}?lang=zh", None)
        assert result.errors == []
        words = set(re.findall(r"[A-Za-z][A-Za-z']{2,}", browser.evaluate(_MAIN_TEXT)))
        assert words - ALLOWED == set(), (page, sorted(words - ALLOWED))
