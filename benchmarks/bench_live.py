"""Benchmark of results that count on submit: a submitted table → the open standings page changes.

A store of about 1,000 matches (a 20-pair Swiss event whose last round is withheld, after
independent matches; the pipeline run once) is served by ``gdan serve`` on a free loopback port.
The event's standings (the Tournament page with the event in its address) are opened in headless
Chromium (Playwright, ``/usr/bin/chromium``); then, one at a time, each withheld match is submitted
the way the entry page does (``dashboards.entry_inbox.submit``, anonymous as on a loopback server
without accounts), and the time until the page's standings change is measured by polling the
page (its standings heading and the standings chart's bars). The server's log gives the
breakdown: when the watcher saw the file and how long the pipeline run took.

Run: ``.venv/bin/python benchmarks/bench_live.py --out /tmp/gdan_live`` (builds the store once;
the withheld matches are kept in ``<out>/withheld``; ``--fresh`` builds it again).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
EVENT_PAIRS = 20
EVENT_ROUNDS = 5
FORMAT = "deals:4"
MATCHES = 1_000
SEED = 43
HISTORY_START = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
"""The independent matches (two hours apart) end before the event (simulated in June 2026), as a
club's history precedes the event day: a submission re-rates only the event's rounds."""

STANDINGS_JS = """(() => {
  const heads = Array.from(document.querySelectorAll('[data-testid="stMain"] h3')).map(h => h.innerText);
  const plots = Array.from(document.querySelectorAll('.js-plotly-plot'))
    .map(p => JSON.stringify((p.data || []).map(t => [t.x, t.y])));
  return heads.join('|') + '#' + plots.join('|');
})()"""
"""What the open page shows of the standings: its headings ("Standings · Round 5") and the data of
the standings chart (each pair's points)."""
IDLE_JS = """!document.querySelector('[data-testid="stStatusWidget"]')"""
"""Whether the page is not running its script (Streamlit's "running" widget is absent)."""


def build(out: Path) -> str:
    """Simulate the store into ``out``, withhold the event's last round, run the pipeline once.

    Returns the event's id."""
    from pipelines.run.runner import run_pipeline
    from pipelines.storage.store import Store
    from simulator import simulate_to_dir

    shutil.rmtree(out, ignore_errors=True)
    inbox = Store(out).inbox
    simulate_to_dir(inbox / "event", "tournament", pairs=EVENT_PAIRS, rounds=EVENT_ROUNDS, format=FORMAT,
                    seed=SEED, workers=os.cpu_count() or 1)
    event_matches = EVENT_PAIRS // 2 * EVENT_ROUNDS
    simulate_to_dir(inbox / "matches", "matches", matches=MATCHES - event_matches, format=FORMAT,
                    seed=SEED + 1, players=64, workers=os.cpu_count() or 1, start=HISTORY_START)
    last = sorted((inbox / "event").glob(f"*-r{EVENT_ROUNDS:02d}.jsonl"))
    withheld = out / "withheld"
    withheld.mkdir()
    event = ""
    for path in last:
        by_match: dict[str, list[bytes]] = {}
        for line in path.read_bytes().splitlines():
            by_match.setdefault(orjson.loads(line)["match"], []).append(line)
        for match, lines in by_match.items():
            (withheld / f"{match}.jsonl").write_bytes(b"\n".join(lines) + b"\n")
        event = orjson.loads(path.read_bytes().splitlines()[0])["event"]["id"]
        path.unlink()
    started = time.monotonic()
    run_pipeline(out, workers=0)
    print(f"built {out}: first run {time.monotonic() - started:.0f} s", flush=True)
    return event


def event_of(out: Path) -> str:
    first = sorted((out / "withheld").glob("*.jsonl"))[0]
    return str(orjson.loads(first.read_bytes().splitlines()[0])["event"]["id"])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerLog:
    """The lines ``gdan serve`` writes, each with the time it was read (a thread reads them)."""

    def __init__(self, stream: Any) -> None:
        self.lines: list[tuple[float, str]] = []
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: Any) -> None:
        for raw in iter(stream.readline, b""):
            line = raw.decode(errors="replace").rstrip()
            self.lines.append((time.monotonic(), line))
            print(f"  serve| {line}", flush=True)

    def after(self, since: float, pattern: str) -> tuple[float, re.Match[str]] | None:
        """The first line read after ``since`` that matches ``pattern``, with its time."""
        for at, line in list(self.lines):
            found = re.search(pattern, line)
            if at >= since and found:
                return at, found
        return None


@contextmanager
def serve(store: Path, port: int) -> Iterator[ServerLog]:
    """``gdan serve`` on ``port`` over ``store`` until the block ends (then SIGTERM, as ``kill``)."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "200"}
    proc = subprocess.Popen(
        [str(Path(sys.executable).with_name("gdan")), "serve", "--store", str(store), "--port", str(port)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=ROOT,
    )
    log = ServerLog(proc.stdout)
    try:
        yield log
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)


def wait_http(url: str, timeout: float) -> None:
    import urllib.request

    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)


def submit(store: Path, path: Path) -> None:
    """Put the withheld match ``path`` into the inbox as the entry page does."""
    from dashboards.entry_inbox import submit as entry_submit
    from service.principals import Principal

    events = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    now = datetime.now(UTC)
    entry_submit(store, events, principal=Principal(since=now, anonymous=True), now=now)


def measure(store: Path, event: str, submissions: int, timeout: float) -> list[dict[str, float]]:
    from playwright.sync_api import sync_playwright

    port = free_port()
    withheld = sorted((store / "withheld").glob("*.jsonl"))[:submissions]
    rows: list[dict[str, float]] = []
    with serve(store, port) as log, sync_playwright() as pw:
        wait_http(f"http://127.0.0.1:{port}/_stcore/health", 120)
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                     args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"http://127.0.0.1:{port}/tournament?event={event}")
        page.wait_for_function(f"{STANDINGS_JS}.includes('{EVENT_ROUNDS - 1}#')", timeout=180_000)
        while log.after(0, r"ingested|run failed") is None:  # the watcher's first look (nothing new)
            time.sleep(0.5)
        for path in withheld:
            before = settled(page)
            started = time.monotonic()
            submit(store, path)
            while not page.evaluate(IDLE_JS) or page.evaluate(STANDINGS_JS) == before:
                if time.monotonic() - started > timeout:
                    raise TimeoutError(f"{path.name}: the page did not change in {timeout} s")
                time.sleep(0.1)
            seen = time.monotonic() - started
            published = log.after(started, r"published run \d+ in ([\d.]+) s")
            detected = log.after(started, r"new file")
            row = {"total": seen}
            if published is not None:
                row["run"] = float(published[1].group(1))
                row["published_at"] = published[0] - started
            if detected is not None:
                row["detected_at"] = detected[0] - started
            rows.append(row)
            print(f"{path.name}: page changed after {seen:.2f} s {row}", flush=True)
        browser.close()
    return rows


def settled(page: Any) -> str:
    """The page's standings once it has not been running, nor changed, for a second."""
    shown, since = page.evaluate(STANDINGS_JS), time.monotonic()
    while time.monotonic() - since < 1.0:
        time.sleep(0.1)
        now = page.evaluate(STANDINGS_JS)
        if now != shown or not page.evaluate(IDLE_JS):
            shown, since = now, time.monotonic()
    return str(shown)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("/tmp/gdan_live"))
    parser.add_argument("--fresh", action="store_true", help="Build the store again.")
    parser.add_argument("--build-only", action="store_true")
    parser.add_argument("--submissions", type=int, default=10)
    parser.add_argument("--timeout", type=float, default=120.0, help="Give up on one submission after this.")
    args = parser.parse_args()
    event = build(args.out) if args.fresh or not (args.out / "withheld").is_dir() else event_of(args.out)
    if args.build_only:
        return
    # a measurement consumes the withheld matches: measure on a copy of the built store
    work = args.out.with_name(args.out.name + "-run")
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(args.out, work, symlinks=True)
    rows = measure(work, event, args.submissions, args.timeout)
    totals = [r["total"] for r in rows]
    print(f"machine: {os.cpu_count()} cores; load: {os.getloadavg()}; {datetime.now(UTC):%Y-%m-%d %H:%M} UTC")
    print(f"submit → standings changed: median {statistics.median(totals):.2f} s, "
          f"p95 {percentile(totals, 0.95):.2f} s over {len(totals)} submissions")
    for part in ("detected_at", "run", "published_at"):
        values = [r[part] for r in rows if part in r]
        if values:
            print(f"  {part}: median {statistics.median(values):.2f} s, p95 {percentile(values, 0.95):.2f} s")


if __name__ == "__main__":
    main()
