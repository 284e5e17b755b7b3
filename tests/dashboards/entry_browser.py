"""Helpers of the results entry browser test: a ``streamlit run`` server on a store, and the
entry page steered with Playwright (the Debian Chromium, nothing downloaded).

Widgets are found by the ``st-key-<key>`` class Streamlit gives every keyed widget and container.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Page, expect

CHROMIUM = Path("/usr/bin/chromium")
APP = Path(__file__).resolve().parents[2] / "dashboards" / "app.py"
TIMEOUT_MS = 300_000
"""The bound on every wait (Playwright's, the server's start and stop): only a bound on a hang, since
every wait ends as soon as its condition holds; generous for a machine loaded many times over."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def entry_server(store: Path) -> Iterator[str]:
    """``streamlit run dashboards/app.py`` on a free port reading ``store``; yields the base URL."""
    port = _free_port()
    env = {**os.environ, "GDAN_STORE": str(store), "GDAN_WARM_UP": "0"}
    args = ["--server.headless", "true", "--server.port", str(port), "--browser.gatherUsageStats", "false"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(APP), *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + TIMEOUT_MS / 1000
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.3)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=TIMEOUT_MS / 1000)


def settle(page: Page) -> None:
    """Wait until Streamlit has finished the script run a widget change started (as far as the page
    can tell: a run that has not started 300 ms after the change is not waited for, so what the
    test reads next is waited for by its own ``expect``)."""
    page.wait_for_timeout(300)
    expect(page.locator('[data-testid="stApp"]')).to_have_attribute(
        "data-test-script-state", "notRunning", timeout=TIMEOUT_MS
    )
    expect(page.locator('[data-testid="stStatusWidget"]')).to_have_count(0, timeout=TIMEOUT_MS)
    page.wait_for_timeout(200)


def keyed(key: str) -> str:
    """The CSS selector of the widget or container with Streamlit ``key``, not a stale copy: while
    a rerun redraws the page, the last run's element stays in it marked ``data-stale`` beside the
    new one (a click then found two buttons of one key on a loaded machine)."""
    return f".st-key-{key}:not([data-stale='true'])"


def choose(page: Page, key: str, option: str) -> None:
    """Pick ``option`` in the selectbox ``key``."""
    page.locator(f"{keyed(key)} [role='combobox']").click()
    page.get_by_role("option", name=option, exact=True).click()
    settle(page)


def type_text(page: Page, key: str, text: str, area: bool = False) -> None:
    """Type into the text input (or text area) ``key`` and commit it."""
    field = page.locator(f"{keyed(key)} {'textarea' if area else 'input'}")
    field.fill(text)
    field.press("Control+Enter" if area else "Enter")
    settle(page)


def register(page: Page, event: str, rules: str, pairs: str) -> None:
    """Fill the new-event form (the default choice of an empty store) and register the event."""
    type_text(page, "en_new_id", event)
    choose(page, "en_new_rules", rules)
    type_text(page, "en_new_pairs", pairs, area=True)
    page.locator(f"{keyed('en_register')} button").click()
    settle(page)


def outside(page: Page, box_key: str) -> list[str]:
    """The buttons of the container ``box_key`` whose bounding box is not inside both the
    viewport's width and the container (each as its text and box)."""
    width = page.viewport_size["width"] if page.viewport_size else 0
    box = page.locator(keyed(box_key)).bounding_box()
    assert box is not None, box_key
    found = []
    for button in page.locator(f"{keyed(box_key)} button").all():
        r = button.bounding_box()
        assert r is not None
        inside = (
            r["x"] >= max(0, box["x"]) - 0.5
            and r["x"] + r["width"] <= min(width, box["x"] + box["width"]) + 0.5
            and r["y"] >= box["y"] - 0.5
            and r["y"] + r["height"] <= box["y"] + box["height"] + 0.5
        )
        if not inside:
            found.append(f"{button.inner_text()!r} at {r}")
    return found


def tap(page: Page, match: str, first: str, kind_label: str) -> None:
    """Enter one deal of ``match``: the 1st seat, the result type (each waited for until it shows
    as chosen), Add deal."""
    for key, text in ((f"en_{match}_first", f"{first} p"), (f"en_{match}_kind", kind_label)):
        page.locator(f"{keyed(key)} button", has_text=text).click()
        chosen = page.locator(f"{keyed(key)} button[aria-checked='true']")
        expect(chosen).to_contain_text(text, timeout=TIMEOUT_MS)
        settle(page)
    page.locator(f"{keyed(f'en_{match}_add')} button").click()
    settle(page)
