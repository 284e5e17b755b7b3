"""Access control in a real browser (Playwright + the Debian Chromium against ``streamlit run``):
a visitor and a viewer have no results entry in the menu; a table's link opens the entry page for
that table only; a referee of another event gets no table; failed logins are throttled. Screenshots
in English and Chinese go to ``<tmp>/shots``."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from entry_browser import CHROMIUM, TIMEOUT_MS, entry_server, keyed, settle
from playwright.sync_api import Page

from dashboards.entry import first_round_seats
from service import registry
from service.accounts import Role, add_account, assign
from service.throttle import MAX_FAILURES
from service.tokens import entry_link, issue_round_tokens

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium (apt-get install chromium)"),
]

PASSWORD = "long enough"
PAIRS = [(f"p{2 * i + 1:02}", f"p{2 * i + 2:02}") for i in range(8)]
NAV = '[data-testid="stSidebarNav"]'
MAIN = '[data-testid="stMain"]'
NOT_YOURS = "You may not enter this table's result."


def register_cup(store: Path) -> None:
    """The event ``cup``: 8 pairs and round 1's draw in the registry, as an admin registers it."""
    pairs = tuple(registry.Pair((registry.Player(a), registry.Player(b))) for a, b in PAIRS)
    stamp = registry.Stamp("boss", registry.now())
    event = registry.Event("cup", "Cup", "national", {"kind": "until_a"}, stamp, pairs=pairs)
    registry.create(store, event, ())
    tables, bye = first_round_seats(PAIRS, {})
    registry.record_draw(store, "cup", 1, {str(n): t for n, t in tables.items()}, bye)


def counted(store: Path) -> int:
    """Failed logins the store counts against the account ``ref``."""
    path = store / "service" / "throttle.json"
    return len(orjson.loads(path.read_bytes()).get("account:ref", [])) if path.exists() else 0


def wait_for(page: Page, store: Path, failures: int) -> None:
    """Wait (up to the browser timeout) until the store counts ``failures`` failed logins."""
    for _ in range(TIMEOUT_MS // 250):
        if counted(store) == failures:
            return
        page.wait_for_timeout(250)
    raise AssertionError("the server did not count the failed login")


def test_who_may_reach_and_write_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=TIMEOUT_MS)
    monkeypatch.setenv("GDAN_ANONYMOUS_WRITES", "0")  # a server that requires logins
    store, shots = tmp_path / "store", tmp_path / "shots"
    add_account(store, "fan", PASSWORD, Role.VIEWER)
    add_account(store, "ref", PASSWORD, Role.REFEREE)
    assign(store, "ref", ["league"])
    register_cup(store)
    (token,) = issue_round_tokens(store, "cup", "", 1, [2], "boss")

    def log_in(page: Page, name: str, password: str) -> None:
        page.locator(f"{keyed('access_name')} input").fill(name)
        page.locator(f"{keyed('access_password')} input").fill(password)
        page.locator(f"{keyed('access_login_submit')} button").click()
        settle(page)


    with entry_server(store) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(TIMEOUT_MS)
            page.goto(f"{base}/overview")
            settle(page)
            expect(page.locator(NAV)).to_contain_text("Data quality")
            expect(page.locator(NAV)).not_to_contain_text("Results entry")
            log_in(page, "fan", PASSWORD)
            expect(page.locator('[data-testid="stSidebar"]')).to_contain_text("Signed in: fan (viewer)")
            expect(page.locator(NAV)).not_to_contain_text("Results entry")
            shots.mkdir(parents=True)
            page.screenshot(path=str(shots / "login-viewer-en.png"))

            # a table's link (its QR code): the entry page, that table only
            page = browser.new_page(viewport={"width": 820, "height": 1180})
            page.goto(entry_link(base, token))
            settle(page)
            expect(page.locator('[data-testid="stMain"] h1')).to_have_text("Results entry")
            expect(page.locator(keyed("en_cup-r1-t2_first"))).to_be_visible()
            for other in (1, 3, 4):
                expect(page.locator(keyed(f"entry_table_{other}"))).to_contain_text(NOT_YOURS)
                expect(page.locator(keyed(f"en_cup-r1-t{other}_first"))).to_have_count(0)
            page.screenshot(path=str(shots / "entry-token-en.png"), full_page=True)
            page.goto(f"{entry_link(base, token)}&lang=zh")  # reloaded: the link still grants the table
            settle(page)
            expect(page.locator(keyed("entry_table_1"))).to_contain_text("您无权录入本桌成绩")
            page.screenshot(path=str(shots / "entry-token-zh.png"), full_page=True)

            # a referee of another event: the entry page, but no event of theirs and no table to write
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{base}/overview")
            settle(page)
            log_in(page, "ref", PASSWORD)
            expect(page.locator(NAV)).to_contain_text("Results entry")
            page.locator(NAV).get_by_text("Results entry").click()  # cup is not theirs: not offered
            settle(page)
            expect(page.locator(MAIN)).to_contain_text("No event here is yours to enter")
            expect(page.locator(keyed("entry_table_1"))).to_have_count(0)
            expect(page.locator(keyed("en_cup-r1-t1_first"))).to_have_count(0)

            # repeated failures: throttled, even with the right password afterwards
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{base}/overview?lang=zh")
            settle(page)
            for failures in range(1, MAX_FAILURES + 1):
                log_in(page, "ref", "wrong password")
                wait_for(page, store, failures)  # the server counted this one
                expect(page.locator('[data-testid="stSidebar"]')).to_contain_text("账号或密码错误")
            log_in(page, "ref", PASSWORD)
            expect(page.locator('[data-testid="stSidebar"]')).to_contain_text("失败次数过多")
            expect(page.locator(NAV)).not_to_contain_text("成绩录入")
            page.screenshot(path=str(shots / "login-throttled-zh.png"))
        finally:
            browser.close()
