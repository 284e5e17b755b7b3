"""The results entry page end to end in a real browser: Playwright drives the
Debian Chromium against ``streamlit run``; a new event's 4-table round (8 pairs, 16 players) is
entered with taps and submitted, ``gdan run`` processes the inbox, and the standings and dan
ledger in the store are those of the same results imported as a score sheet (the independent
route, docs/scoresheet.md), and the Tournament page shows them."""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from entry_browser import CHROMIUM, TIMEOUT_MS, entry_server, keyed, outside, register, settle, tap

from pipelines.storage.warehouse import connect

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium (apt-get install chromium)"),
]

PAIRS = [(f"p{2 * i + 1:02}", f"p{2 * i + 2:02}") for i in range(8)]
DOUBLE, ONE_THREE, ONE_FOUR = "双下", "1-3", "1-4"
DEALS = {
    1: [("E", DOUBLE, "E W", "5 : N–S 2"), ("N", ONE_THREE, "N W S E", "5 : N–S 4")],
    2: [("N", DOUBLE, "N S", "2 : N–S 5"), ("N", DOUBLE, "N S", "2 : N–S 8")],
    3: [("E", ONE_FOUR, "E N S W", "3 : N–S 2"), ("W", ONE_THREE, "W S E N", "5 : N–S 2")],
    4: [("S", ONE_THREE, "S E N W", "2 : N–S 4"), ("E", DOUBLE, "E W", "5 : N–S 4")],
}
"""Per table, each deal's taps (1st seat, result type), the order a score sheet writes, and the
levels the page shows after it (E–W … : N–S …, rules.md §5.8: +3, +2, +1)."""
GDAN = Path(sys.executable).parent / "gdan"
"""The installed `gdan` command of this environment."""
WINNERS = {1: "EW", 2: "NS", 3: "EW", 4: "EW"}


def _gdan(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(GDAN), *args], capture_output=True, text=True, timeout=600, check=False)


def _rows(store: Path, sql: str) -> list[tuple[object, ...]]:
    con = connect(store)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _score_sheet(path: Path, seats: dict[int, dict[str, str]]) -> Path:
    """The same results as a score sheet (one row per deal)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["event", "round", "table", "E", "N", "W", "S", "deal", "order"])
    for table, deals in DEALS.items():
        for no, (_, _, order, _) in enumerate(deals, start=1):
            writer.writerow(["cup", 1, table, *(seats[table][s] for s in "ENWS"), no, order])
    path.write_text(out.getvalue(), encoding="utf-8")
    return path


def test_enter_a_round_submit_run_and_see_the_standings(tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=TIMEOUT_MS)
    store = tmp_path / "store"
    with entry_server(store) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(f"{base}/entry")
        expect(page.locator('[data-testid="stMain"] h1')).to_have_text("Results entry")
        settle(page)
        register(page, "cup", "bcta", "\n".join(f"{a}/{b}" for a, b in PAIRS))
        for table in DEALS:
            expect(page.locator(keyed(f"entry_table_{table}"))).to_be_visible()
        for table, deals in DEALS.items():
            match = f"cup-r1-t{table}"
            box = page.locator(keyed(f"entry_table_{table}"))
            for first, kind, _, levels in deals:
                tap(page, match, first, kind)
                expect(box).to_contain_text(f"Levels: E–W {levels}")
            expect(box.locator('[data-testid="stAlertContentSuccess"]')).to_contain_text("Round over")
            page.locator(f"{keyed(f'en_{match}_submit')} button").click()
            settle(page)
            expect(box).to_contain_text("Submitted")
        assert page.locator('[data-testid="stException"]').count() == 0

        inbox = sorted((store / "inbox" / "entry").iterdir())
        assert [p.name for p in inbox] == [f"cup-r1-t{t}.jsonl" for t in DEALS]
        starts = [orjson.loads(p.read_bytes().splitlines()[0]) for p in inbox]
        seats = {t: start["seats"] for t, start in zip(DEALS, starts, strict=True)}
        done = _gdan("run", "--store", str(store))
        assert done.returncode == 0, done.stdout + done.stderr

        # the Tournament page shows the new standings (after the sidebar's reload)
        page.goto(f"{base}/tournament")
        settle(page)
        page.locator(f"{keyed('reload')} button").click()
        settle(page)
        with page.expect_download() as download:
            page.locator(f"{keyed('dl_standings')} button").click()
        shown = list(csv.DictReader(io.StringIO(Path(download.value.path()).read_text("utf-8"))))
        browser.close()

    # the store: each table's result, standings and dan ledger for all 16 players
    results = dict(_rows(store, "SELECT \"table\", winner FROM matches WHERE event_id = 'cup'"))
    assert {int(t): w for t, w in results.items()} == WINNERS
    assert _rows(store, "SELECT DISTINCT status FROM matches") == [("results_only",)]
    standings = _rows(store, "SELECT team_id, rank, wins FROM standings WHERE event_id = 'cup'")
    assert len(standings) == 8 and sum(int(w) for _, _, w in standings) == 4
    team = {"EW": ("E", "W"), "NS": ("N", "S")}
    winners = {"+".join(sorted(seats[t][s] for s in team[w])) for t, w in WINNERS.items()}
    assert {t for t, _, w in standings if w == 1} == winners
    assert {t for t, r, _ in standings if r == 1} <= winners
    ledger = _rows(store, "SELECT count(DISTINCT player_id) FROM dan_ledger")
    assert ledger == [(16,)]

    # the same results imported as a score sheet give the same standings and dan ledger
    other = tmp_path / "sheet-store"
    sheet = _score_sheet(tmp_path / "round1.csv", seats)
    imported = _gdan("import", str(sheet), "--rules", "bcta", "--out", str(other / "inbox"))
    assert imported.returncode == 0, imported.stdout + imported.stderr
    assert _gdan("run", "--store", str(other), "--create").returncode == 0
    for table in ("standings", "dan_ledger", "dan_current", "match_scores"):
        # entered matches are dated (match_start.t), the sheet's are not: times are left out
        untimed = _rows(
            store, f"SELECT column_name FROM (DESCRIBE {table}) WHERE column_type NOT LIKE 'TIMESTAMP%'"
        )
        columns = ", ".join(f'"{c}"' for (c,) in untimed)
        query = f"SELECT {columns} FROM {table} ORDER BY ALL"
        assert _rows(store, query) == _rows(other, query), table
    dated = _rows(store, "SELECT count(*) FROM matches WHERE started_at IS NULL OR utc_offset_min IS NULL")
    assert dated == [(0,)]
    assert sorted(r["team_id"] for r in shown) == sorted(str(t) for t, _, _ in standings)


NAMES = ["王小明", "李华", "张伟", "刘洋", "陈静", "杨帆", "赵磊", "黄敏"]


def test_tablet_portrait_keeps_every_button_inside(tmp_path: Path) -> None:
    """At 820×1180 (a tablet in portrait; 768 and 834 too) every seat, result and action button
    of a table lies inside the viewport and the table's box, in English and Chinese, with names
    on the seat buttons; Add deal is disabled, with its message, until seat and result are chosen."""
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=TIMEOUT_MS)
    store = tmp_path / "store"
    pairs = "\n".join(
        f"p{2 * i + 1:02} = {NAMES[2 * i]} @ 南京 / p{2 * i + 2:02} = {NAMES[2 * i + 1]} @ 苏州"
        for i in range(4)
    )
    with entry_server(store) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        for width, height, lang in (
            (820, 1180, "en"),
            (820, 1180, "zh"),
            (768, 1024, "zh"),
            (834, 1194, "en"),
        ):
            page = browser.new_page(viewport={"width": width, "height": height})
            page.set_default_timeout(TIMEOUT_MS)
            page.goto(f"{base}/entry" + ("?lang=zh" if lang == "zh" else ""))
            settle(page)
            if not (store / "service" / "events" / "cup.json").exists():
                register(page, "cup", "bcta", pairs)
            seat = page.locator(f"{keyed('en_cup-r1-t1_first')} button").first
            expect(seat).to_be_visible()
            settle(page)
            box = page.locator(keyed("entry_table_1"))
            box.scroll_into_view_if_needed()
            page.screenshot(path=tmp_path / f"entry-tablet-{width}-{lang}.png")
            assert outside(page, "entry_table_1") == [], (width, lang)
            assert page.locator(f"{keyed('en_cup-r1-t1_first')} button").count() == 4
            assert page.locator(f"{keyed('en_cup-r1-t1_kind')} button").count() == 3
            assert any(n in seat.inner_text() for n in NAMES) and "p0" not in seat.inner_text()
            expect(page.locator(f"{keyed('en_cup-r1-t1_add')} button")).to_be_disabled()
            page.close()
        browser.close()
