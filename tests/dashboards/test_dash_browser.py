"""The real app in headless Chromium: ``streamlit run`` serves the dashboards on
a store, every page loads without a Streamlit error box, and a screenshot of each page is saved.
It runs from ``make screenshots`` (``GDAN_SCREENSHOTS=docs/screenshots`` and ``GDAN_SCREENSHOT_STORE``
a demo store) to refresh the README's pictures; ``GDAN_SCREENSHOTS`` alone names another folder and
the app reads the small simulated store. ``make test`` leaves it out: it repeats what
``test_journey_browser.py`` checks in the same browser. Besides one picture per page (the
Player's shows its match list): the replayer in the middle of a deal in English and in 中文,
and the Bombs page in 中文."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from browser import CHROMIUM, chromium, streamlit_server
from dash_app import PAGES, url_path

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium (apt-get install chromium)"),
    pytest.mark.skipif(
        "GDAN_SCREENSHOTS" not in os.environ,
        reason="make screenshots: in make test every page is opened in Chromium by "
        "test_journey_browser.py (no error box, no English in 中文) and in English by AppTest",
    ),
]

MID_DEAL = "deal=2&step=30"
"""The replayer's pictures: deal 2 of the first match (after a tribute), 30 steps into its play."""
ENTRY_ROUND = "event=national-swiss-s0&round=5"
"""The entry page's picture: the demo's Swiss event, last round (another store opens the default view)."""


def test_every_page_renders_in_chromium(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    shots = Path(os.environ["GDAN_SCREENSHOTS"])
    shots.mkdir(parents=True, exist_ok=True)
    given = os.environ.get("GDAN_SCREENSHOT_STORE")  # the simulated store is built only when needed
    store = Path(given) if given else Path(request.getfixturevalue("sim_store"))
    with streamlit_server(store) as base, chromium(tmp_path / "profile") as browser:
        results = {page: browser.visit(f"{base}/{url_path(page)}", shots / f"{page}.png") for page in PAGES}
        replayer = browser.visit(f"{base}/replayer?{MID_DEAL}", shots / "replayer.png")
        chinese = browser.visit(f"{base}/bombs?lang=zh", shots / "bombs_zh.png")
        replayer_zh = browser.visit(f"{base}/replayer?{MID_DEAL}&lang=zh", shots / "replayer_zh.png")
        # the referee's view: a pair event's round with its tables (the demo league is individual)
        entry = browser.visit(f"{base}/entry?{ENTRY_ROUND}", shots / "entry.png")
    for page, result in results.items():
        assert result.errors == [], (page, result.errors)
        assert result.title, f"{page}: no page title rendered"
        # the entry point ran: its navigation titles and language switch are in the sidebar
        assert "Hand replayer" in result.sidebar and "中文" in result.sidebar, (page, result.sidebar)
        shot = shots / f"{page}.png"
        assert shot.stat().st_size > 10_000, f"{page}: screenshot looks empty"
    assert "Overview" in results["overview"].title
    assert "Hand replayer" in results["replayer"].title
    assert replayer.errors == [] and "step=30" in replayer.url
    assert chinese.errors == [] and chinese.title == "炸弹"  # ?lang=zh opens the app in Chinese
    assert replayer_zh.errors == [] and replayer_zh.title == "牌局回放"
    assert entry.errors == []
