"""Results count on submit: `gdan serve` picks up a submitted table and the standings page open in
Chromium shows it, with no CLI call and no reload click, in the language the visitor chose; then
SIGTERM stops the service, its dashboards' server with it.

A 4-pair Swiss event of 2 rounds, round 1 run, round 2 withheld; the page is opened on the event
and switched to 中文; one round-2 table is submitted as the entry page submits it. The waits are
liveness bounds (a hang fails the test), never a speed asserted."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest
from browser import CHROMIUM, Browser, chromium, free_port

from dashboards.i18n import t

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium (apt-get install chromium)"),
]

LIVENESS_S = 300.0
"""Longest wait for any one thing (the server up, the page drawn, the run picked up): only to stop a hang."""
HEADINGS_JS = """(() => Array.from(document.querySelectorAll('[data-testid="stMain"] h3'))
  .map(h => h.innerText).join('|'))()"""
IDLE_JS = """!document.querySelector('[data-testid="stStatusWidget"]')"""


def _eventually(what: str, condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + LIVENESS_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {LIVENESS_S:.0f} s: {what}")
        time.sleep(0.25)


@pytest.fixture
def event_store(tmp_path: Path) -> tuple[Path, str, list[Path]]:
    """A store of a Swiss event's round 1, run; the files of its round-2 tables, one per match."""
    from pipelines.run.runner import run_pipeline
    from simulator import simulate_to_dir

    store, simulated, withheld = tmp_path / "store", tmp_path / "simulated", tmp_path / "withheld"
    simulate_to_dir(simulated, "tournament", pairs=4, rounds=2, format="deals:1", seed=5)
    (store / "inbox").mkdir(parents=True)
    (simulated / "players.json").rename(store / "inbox" / "players.json")
    first, second = sorted(simulated.glob("*.jsonl"))
    first.rename(store / "inbox" / first.name)
    withheld.mkdir()
    by_match: dict[str, list[bytes]] = {}
    for line in second.read_bytes().splitlines():
        by_match.setdefault(orjson.loads(line)["match"], []).append(line)
    for match, lines in by_match.items():
        (withheld / f"{match}.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    event = str(orjson.loads(second.read_bytes().splitlines()[0])["event"]["id"])
    run_pipeline(store, workers=1)
    return store, event, sorted(withheld.iterdir())


@pytest.fixture
def service(
    event_store: tuple[Path, str, list[Path]], tmp_path: Path
) -> Iterator[tuple[str, subprocess.Popen[bytes], Path]]:
    """`gdan serve` over the event's store on a free port; yields its address, process and log file."""
    store = event_store[0]
    port = free_port()
    log = tmp_path / "serve.log"
    env = {**os.environ, "GDAN_REFRESH_SECONDS": "1", "GDAN_WARM_UP": "0"}
    gdan = Path(sys.executable).with_name("gdan")
    with log.open("wb") as out:
        proc = subprocess.Popen([str(gdan), "serve", "--store", str(store), "--port", str(port),
                                 "--poll-seconds", "0.5", "--no-reviews"], env=env, stdout=out, stderr=out)
    try:
        yield f"http://127.0.0.1:{port}", proc, log
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _submit(store: Path, match_file: Path) -> None:
    """Put a table's events into the inbox as the entry page does (anonymous: a loopback server
    without accounts)."""
    from dashboards.entry_inbox import submit
    from service.principals import Principal

    now = datetime.now(UTC)
    events = [orjson.loads(line) for line in match_file.read_bytes().splitlines()]
    submit(store, events, principal=Principal(since=now, anonymous=True), now=now)


def _headings(browser: Browser) -> str:
    return str(browser.evaluate(HEADINGS_JS)) if browser.evaluate(IDLE_JS) else ""


def test_a_submitted_table_shows_on_the_open_standings_page(
    event_store: tuple[Path, str, list[Path]],
    service: tuple[str, subprocess.Popen[bytes], Path],
    tmp_path: Path,
) -> None:
    store, event, withheld = event_store
    base, proc, log = service
    standings = f"{t('standings', 'zh')} · {t('round', 'zh')}"
    with chromium(tmp_path / "profile") as browser:
        _eventually("the service's first look at the inbox", lambda: "watching" in log.read_text())
        _eventually("the dashboards up", lambda: _answers(base))
        browser.page.goto(f"{base}/tournament?event={event}")
        _eventually("the round-1 standings", lambda: "Standings · Round 1" in _headings(browser))
        browser.page.get_by_text("中文", exact=True).click()  # a widget's state the refresh must keep
        _eventually("the page in Chinese", lambda: f"{standings} 1" in _headings(browser))

        _submit(store, withheld[0])
        _eventually("the round-2 standings on the open page", lambda: f"{standings} 2" in _headings(browser))
        assert "round=" not in browser.page.url  # the page follows the event's last round
        assert browser.evaluate("""document.querySelectorAll('[data-testid="stException"]').length""") == 0

    text = log.read_text()
    assert "1 new file(s) in the inbox" in text and "ingested 1 file(s), published run" in text
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(LIVENESS_S) == 0
    assert "stopping the service" in log.read_text()
    _eventually("the dashboards' server stopped", lambda: not _answers(base))


def _answers(base: str) -> bool:
    """Whether the dashboards' server at ``base`` answers its health check."""
    try:
        with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2):
            return True
    except OSError:
        return False
