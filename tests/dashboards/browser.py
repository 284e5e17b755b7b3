"""Drive the dashboards in headless Chromium for the browser test and the page screenshots.

``streamlit run`` serves the app; one Chromium process is steered over the DevTools protocol
(``websockets``, a Streamlit dependency), which unlike ``--dump-dom`` waits for the app's
websocket-rendered content. For each page it loads the URL, waits until Streamlit has finished
running the script, counts error boxes (``stException``) and saves a PNG screenshot.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from websockets.sync.client import ClientConnection, connect

CHROMIUM = Path("/usr/bin/chromium")
APP = Path(__file__).resolve().parents[2] / "dashboards" / "app.py"

_READY_JS = """(() => {
  const running = document.querySelector('[data-testid="stStatusWidget"]');
  const skeleton = document.querySelector('[data-testid="stAppSkeleton"]');
  const heading = document.querySelector('[data-testid="stMain"] h1');
  return !running && !skeleton && !!heading;
})()"""
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
        _wait_http(f"http://127.0.0.1:{port}/_stcore/health", 60)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=20)


@dataclass
class PageResult:
    """What the browser saw on one page."""

    url: str
    title: str | None
    errors: list[str]
    sidebar: str
    seconds: float


class Browser:
    """One headless Chromium page steered over the DevTools protocol."""

    def __init__(self, ws: ClientConnection) -> None:
        self._ws = ws
        self._id = 0

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """Send one command and return its result (events received meanwhile are skipped)."""
        self._id += 1
        self._ws.send(json.dumps({"id": self._id, "method": method, "params": params}))
        while True:
            message = json.loads(self._ws.recv(timeout=60))
            if message.get("id") == self._id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    def evaluate(self, expression: str) -> Any:
        return self.call("Runtime.evaluate", expression=expression, returnByValue=True)["result"].get("value")

    def visit(self, url: str, screenshot: Path | None, timeout: float = 45) -> PageResult:
        """Load ``url``, wait until the script run is over (and charts drew), check, screenshot."""
        start = time.monotonic()
        self.call("Page.navigate", url=url)
        time.sleep(1.0)
        ready_since = None
        while time.monotonic() - start < timeout:
            if self.evaluate(_READY_JS):
                ready_since = ready_since or time.monotonic()
                if time.monotonic() - ready_since > 1.5:
                    break
            else:
                ready_since = None
            time.sleep(0.25)
        seconds = time.monotonic() - start
        result = PageResult(
            url,
            self.evaluate(_TITLE_JS),
            self.evaluate(_ERRORS_JS) or [],
            self.evaluate(_SIDEBAR_JS) or "",
            seconds,
        )
        if screenshot is not None:
            data = self.call("Page.captureScreenshot", format="png")["data"]
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            screenshot.write_bytes(base64.b64decode(data))
        return result


@contextmanager
def chromium(profile: Path, width: int = 1400, height: int = 1000) -> Iterator[Browser]:
    """A headless Chromium with one page, sized ``width`` × ``height``."""
    port = free_port()
    proc = subprocess.Popen(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            f"--remote-debugging-port={port}",
            f"--window-size={width},{height}",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        targets = json.loads(_wait_http(f"http://127.0.0.1:{port}/json/list", 30))
        page = next(t for t in targets if t.get("type") == "page")
        with connect(page["webSocketDebuggerUrl"], max_size=None, open_timeout=30) as ws:
            browser = Browser(ws)
            browser.call("Page.enable")
            browser.call(
                "Emulation.setDeviceMetricsOverride",
                width=width,
                height=height,
                deviceScaleFactor=1,
                mobile=False,
            )
            yield browser
    finally:
        proc.terminate()
        proc.wait(timeout=20)
