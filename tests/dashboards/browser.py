"""Drive the dashboards in headless Chromium for the browser test and the page screenshots.

``streamlit run`` serves the app; Playwright drives the Debian Chromium (``/usr/bin/chromium``,
``chromium.launch(executable_path=…)``: no browser download). For each page it loads the URL,
waits until Streamlit has finished running the script, counts error boxes (``stException``) and
saves a PNG screenshot.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, sync_playwright

CHROMIUM = Path("/usr/bin/chromium")
APP = Path(__file__).resolve().parents[2] / "dashboards" / "app.py"
LIVENESS_S = 300.0
"""The bound on any wait in the browser (a page's run, a redraw, Playwright's own waits): only a
bound on a hang, since every wait ends as soon as its condition holds; generous, so that a
machine loaded many times over makes the browser tests slower, never failed."""

_READY_JS = """(() => {
  const app = document.querySelector('[data-testid="stApp"]');
  const running = document.querySelector('[data-testid="stStatusWidget"]');
  const skeleton = document.querySelector('[data-testid="stAppSkeleton"]');
  const heading = document.querySelector('[data-testid="stMain"] h1');
  return !!app && app.dataset.testScriptState === 'notRunning' && !running && !skeleton && !!heading;
})()"""
"""Whether the script run is over (Streamlit's own ``data-test-script-state``; its status widget
shows only after half a second of running) and the page has its title."""
_ERRORS_JS = """(() => Array.from(document.querySelectorAll('[data-testid="stException"]'))
  .map(e => e.innerText.slice(0, 300)))()"""
_SIDEBAR_JS = """(() => { const s = document.querySelector('[data-testid="stSidebar"]');
  return s ? s.innerText : ''; })()"""
_TITLE_JS = """(() => { const h = document.querySelector('[data-testid="stMain"] h1');
  return h ? h.innerText : null; })()"""


def free_port() -> int:
    """A TCP port free on localhost right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_http(url: str, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                return response.read().decode()
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)


@contextmanager
def streamlit_server(store: Path) -> Iterator[str]:
    """``streamlit run dashboards/app.py`` on a free port reading ``store``; yields the base URL."""
    port = free_port()
    env = {**os.environ, "GDAN_STORE": str(store)}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            str(APP),
            "--server.headless",
            "true",
            "--server.port",
            str(port),
            "--browser.gatherUsageStats",
            "false",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_http(f"http://127.0.0.1:{port}/_stcore/health", LIVENESS_S)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=LIVENESS_S)


@dataclass
class PageResult:
    """What the browser saw on one page."""

    url: str
    title: str | None
    errors: list[str]
    sidebar: str
    seconds: float


class Browser:
    """One headless Chromium page driven by Playwright (the Debian ``/usr/bin/chromium``; nothing
    downloads)."""

    def __init__(self, page: Page) -> None:
        self.page = page

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page."""
        return self.page.evaluate(expression)

    def wait_ready(self, timeout: float = LIVENESS_S, *, title: str | None = None) -> float:
        """Wait until Streamlit finished running the script (and charts drew), and the page is
        titled ``title`` when given (after a click that switches pages, the last page is still
        ready until the new run starts); seconds waited. Fails if that takes over ``timeout``."""
        start = time.monotonic()
        time.sleep(1.0)
        ready_since = None
        while True:
            ready = self.evaluate(_READY_JS) and (title is None or self.evaluate(_TITLE_JS) == title)
            now = time.monotonic()
            if ready:
                ready_since = ready_since or now
                if now - ready_since > 1.5:
                    return now - start
            else:
                ready_since = None
            shown = self.evaluate(_TITLE_JS)
            assert now - start < timeout, f"{self.page.url} not ready after {timeout:.0f} s: {shown!r}"
            time.sleep(0.25)

    def wait_for(self, check: Callable[[], bool], what: str, timeout: float = LIVENESS_S) -> None:
        """Wait until ``check()`` is true (the page redraws after a click or a key); fails after
        ``timeout``, naming ``what`` it waited for."""
        deadline = time.monotonic() + timeout
        while not check():
            assert time.monotonic() < deadline, f"{self.page.url}: no {what} after {timeout:.0f} s"
            self.page.wait_for_timeout(250)

    def result(self, screenshot: Path | None, seconds: float) -> PageResult:
        """What the page shows now; a PNG screenshot saved to ``screenshot`` if given."""
        result = PageResult(
            self.page.url,
            self.evaluate(_TITLE_JS),
            self.evaluate(_ERRORS_JS) or [],
            self.evaluate(_SIDEBAR_JS) or "",
            seconds,
        )
        if screenshot is not None:
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            self.page.screenshot(path=str(screenshot))
        return result

    def visit(self, url: str, screenshot: Path | None, timeout: float = LIVENESS_S) -> PageResult:
        """Load ``url``, wait until the script run is over (and charts drew), check, screenshot."""
        self.page.goto(url)
        return self.result(screenshot, self.wait_ready(timeout))


@contextmanager
def chromium(profile: Path, width: int = 1400, height: int = 1000) -> Iterator[Browser]:
    """A headless Chromium with one page, sized ``width`` × ``height`` (``profile`` is unused by
    Playwright's fresh context; kept so callers need not change)."""
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            context = browser.new_context(viewport={"width": width, "height": height})
            context.set_default_timeout(LIVENESS_S * 1000)  # clicks, navigations, new pages
            yield Browser(context.new_page())
        finally:
            browser.close()
