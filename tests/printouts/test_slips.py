"""Table slips (printouts/slips.py, `gdan export slips`): one A4 page per table with the table
number, both pairs by name and seat, blank deal lines and a QR code of the table's entry link.

Pages are read back with poppler (``pdftotext``, ``pdftoppm``) and the QR codes decoded with
``zbarimg`` (Debian ``zbar-tools``); a test skips, saying which, when a tool is missing.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from urllib.parse import unquote

import pytest
from typer.testing import CliRunner

from gdan import app
from pipelines.reads.tournament_data import connect, roster, rows
from printouts.pdf import FontMissing, find_cjk_font
from printouts.slips import TableSlip, entry_link, to_slips_pdf

runner = CliRunner()
SWISS = "national-swiss-s11"
BASE = "http://10.0.0.5:8501"
SEATS = {"E": "张伟", "W": "李娜", "N": "Wang Fang", "S": "刘洋"}


def _needs(*tools: str) -> None:
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (Debian: poppler-utils, zbar-tools)")


def _font_or_skip() -> None:
    try:
        find_cjk_font()
    except FontMissing as exc:
        pytest.skip(str(exc))


def _pages_text(pdf: Path) -> list[str]:
    """The text of each page, line by line as laid out, without white space (pdftotext separates
    pages with a form feed and does not keep every space between Chinese and Latin text);
    compare with :func:`_bare`."""
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True)
    return [_bare(page) for page in text.stdout.split("\f")[:-1]]


def _bare(text: str) -> str:
    return "".join(text.split())


def _qr_links(pdf: Path, tmp_path: Path) -> list[str]:
    """The QR code decoded on each page, in page order."""
    subprocess.run(["pdftoppm", "-png", "-r", "150", str(pdf), str(tmp_path / "slip")], check=True)
    links = []
    for page in sorted(tmp_path.glob("slip-*.png")):
        found = subprocess.run(
            ["zbarimg", "-q", "--raw", str(page)], capture_output=True, text=True, check=False
        )
        links.append(found.stdout.strip())
    return links


def test_entry_link_names_event_stage_round_and_table() -> None:
    assert (
        entry_link(BASE + "/", "bj cup", "swiss", 3, "7")
        == "http://10.0.0.5:8501/entry?event=bj+cup&stage=swiss&round=3&table=7"
    )
    assert entry_link(BASE, "ev", None, 1, "A&B") == "http://10.0.0.5:8501/entry?event=ev&round=1&table=A%26B"


def test_a_slip_needs_four_seats_and_a_link() -> None:
    with pytest.raises(ValueError, match="table 3: expected a player at E, N, W and S"):
        TableSlip("ev", 1, "3", {"E": "a", "W": "b", "N": "c"}, link="http://x/entry")
    with pytest.raises(ValueError, match="no entry link"):
        TableSlip("ev", 1, "3", SEATS, link="")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_slips_one_page_per_table_with_names_table_pin_and_qr(tmp_path: Path, lang: str) -> None:
    _font_or_skip()
    _needs("pdftotext")
    closed = {"board": "bj-r2-b6", "room": "closed"}  # a duplicate round's table: its board and room
    slips = [
        TableSlip(
            "北京掼蛋春季赛", 2, str(n), SEATS, link=entry_link(BASE, "bj", stage, 2, str(n)), pin=pin,
            duplicate=room, stage=stage,
        )
        for n, pin, room, stage in ((1, "4711", None, "swiss"), (12, None, closed, "决赛"))
    ]
    pdf = tmp_path / "slips.pdf"
    pdf.write_bytes(to_slips_pdf(slips, lang))  # type: ignore[arg-type]
    pages = _pages_text(pdf)
    assert len(pages) == 2
    for page, table in zip(pages, ("1", "12"), strict=True):
        assert all(_bare(name) in page for name in SEATS.values())
        assert "北京掼蛋春季赛" in page
        assert (f"第{table}桌" if lang == "zh" else f"Table{table}") in page
        assert ("东西" if lang == "zh" else "E–W") in page
    assert ("瑞士移位·第2轮" if lang == "zh" else "·Swiss·round2") in pages[0]  # a usual stage id in words
    assert "·决赛·" in pages[1]  # any other stage name as written
    assert ("验证码：4711" if lang == "zh" else "PIN:4711") in pages[0]
    assert "PIN" not in pages[1]
    assert ("牌组bj-r2-b6·闭室" if lang == "zh" else "Boardbj-r2-b6·closedroom") in pages[1]
    assert "bj-r2-b6" not in pages[0]
    _needs("pdftoppm", "zbarimg")
    assert _qr_links(pdf, tmp_path) == [s.link for s in slips]


@pytest.mark.parametrize(("round_no", "source"), [(3, "played"), (4, "pairing")])
def test_cli_slips_of_a_played_round_and_of_the_next_one(
    sim_store: Path, tmp_path: Path, round_no: int, source: str
) -> None:
    """Round 3 has results: its stored tables; round 4 has none yet: the pairing `gdan pair` gives."""
    _font_or_skip()
    _needs("pdftotext")
    pdf = tmp_path / "slips.pdf"
    result = runner.invoke(
        app,
        [
            *("export", "slips", "--event", SWISS, "--round", str(round_no), "--base-url", BASE),
            *("--lang", "zh", "--no-tokens", "--out", str(pdf), "--store", str(sim_store)),
        ],
    )
    assert result.exit_code == 0, result.output
    con = connect(sim_store)
    try:
        names = roster(con)
        played = rows(
            con,
            'SELECT "table", player_E, player_N, player_W, player_S FROM matches '
            'WHERE event_id = ? AND round = ? ORDER BY CAST("table" AS INTEGER)',
            [SWISS, 3],
        )
    finally:
        con.close()
    pages = _pages_text(pdf)
    assert len(pages) == 4  # 8 pairs: 4 tables
    for number, page in enumerate(pages, start=1):
        assert f"第{number}桌" in page and f"第{round_no}轮" in page
    if source == "played":
        for page, match in zip(pages, played, strict=True):
            for seat in "ENWS":
                assert _bare(names[match[f"player_{seat}"]].label) in page
    else:
        everyone = {
            p.label for pid, p in names.items() if pid in {m[f"player_{s}"] for m in played for s in "ENWS"}
        }
        assert all(sum(_bare(name) in page for name in everyone) == 4 for page in pages)
    _needs("pdftoppm", "zbarimg")
    assert _qr_links(pdf, tmp_path) == [
        f"{BASE}/entry?event={SWISS}&stage=swiss&round={round_no}&table={n}" for n in range(1, 5)
    ]


def test_cli_slips_refuses_a_base_url_without_scheme(sim_store: Path) -> None:
    result = runner.invoke(
        app,
        [
            "export",
            "slips",
            "--event",
            SWISS,
            "--round",
            "1",
            "--base-url",
            "10.0.0.5:8501",
            "--store",
            str(sim_store),
        ],
    )
    assert result.exit_code == 2
    assert "http://" in result.output


def test_cli_slips_of_a_round_drawn_in_the_event_registry_with_table_tokens(tmp_path: Path) -> None:
    """Before anything is played the store has no tables: the registry's draw and registered
    names are printed, with as many deal lines as the registered round format has deals; each
    slip carries a new table token (service/tokens.py): its link in the QR code, its PIN printed,
    and both let in only that table of that round."""
    from datetime import UTC, datetime

    from service import registry
    from service import tokens as table_tokens
    from service.registry import Event, Player, Stamp

    store = tmp_path / "store"
    stamp = Stamp("referee", "2026-12-07T01:00:00+00:00")
    registry.create(
        store, Event("ux-cup", "UX 杯", "bcta", {"kind": "deals", "deals": 3}, stamp), in_store=()
    )
    names = {f"p{i}": f"选手{i}" for i in range(1, 9)}
    for i in range(1, 9, 2):
        registry.register_pair(
            store, "ux-cup", (Player(f"p{i}", names[f"p{i}"]), Player(f"p{i + 1}", names[f"p{i + 1}"]))
        )
    tables = {
        "2": {"E": "p5", "W": "p6", "N": "p7", "S": "p8"},
        "1": {"E": "p1", "W": "p2", "N": "p3", "S": "p4"},
    }
    registry.record_draw(store, "ux-cup", 1, tables, None)
    pdf = tmp_path / "slips.pdf"
    _font_or_skip()
    result = runner.invoke(
        app,
        [
            "export",
            "slips",
            "--event",
            "ux-cup",
            "--round",
            "1",
            "--base-url",
            BASE,
            "--out",
            str(pdf),
            "--store",
            str(store),
        ],
    )
    assert result.exit_code == 0, result.output
    _needs("pdftotext")
    pages = _pages_text(pdf)
    assert len(pages) == 2
    for page, table in zip(pages, ("1", "2"), strict=True):
        assert f"Table{table}" in page and "UX杯" in page
        assert all(names[p] in page for p in tables[table].values())
        deal_lines = page.split("levelsafter(E–W:N–S)")[1].split("signatures")[0]
        assert deal_lines == "123"  # the numbered blank lines, one per deal of the format
    pins = [page.split("PIN:")[1][:6] for page in pages]
    grants = [table_tokens.redeem(store, pin, now=datetime.now(UTC)) for pin in pins]
    assert [(g.event_id, g.round_no, g.table) for g in grants if g] == [("ux-cup", 1, 1), ("ux-cup", 1, 2)]
    _needs("pdftoppm", "zbarimg")
    links = _qr_links(pdf, tmp_path)
    assert all(link.startswith(f"{BASE}/entry?token=") for link in links)
    tokens = [unquote(link.split("token=", 1)[1]) for link in links]
    by_link = [table_tokens.redeem(store, token, now=datetime.now(UTC)) for token in tokens]
    assert [g.table for g in by_link if g] == [1, 2]
