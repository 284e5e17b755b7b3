"""Printouts in English and Chinese: every printed word comes from printouts.labels, and the
Chinese printouts (`gdan export … --lang zh`) carry no untranslated title, header or label."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from pipelines.reads.printout_documents import (
    dan_document,
    player_document,
    round_document,
    standings_document,
)
from pipelines.reads.tournament_data import connect
from printouts import Document
from printouts.labels import ZH, seat_name, translator

SWISS = "national-swiss-s11"
LEAGUE = "bcta-league-s12"
CJK = re.compile(r"[\u4e00-\u9fff]")


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


@pytest.mark.parametrize("english", sorted(ZH))
def test_both_languages_fill_the_same_fields(english: str) -> None:
    assert _fields(english) == _fields(ZH[english])
    assert CJK.search(ZH[english])


def test_an_unlisted_text_or_language_is_an_error() -> None:
    for lang in ("en", "zh"):
        with pytest.raises(KeyError):
            translator(lang)("not in the list")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="language 'fr'"):
        translator("fr")  # type: ignore[arg-type]
    t = translator("zh")
    assert t("Table {table}", table=7) == "第 7 桌"
    assert translator("en")("Table {table}", table=7) == "Table 7"
    assert [seat_name(s, "zh") for s in "ESWN"] == ["东", "南", "西", "北"]


def _documents(store: Path, lang: str) -> list[Document]:
    con = connect(store)
    try:
        return [
            standings_document(con, SWISS, None, None, lang),  # type: ignore[arg-type]
            round_document(con, SWISS, None, 1, lang),  # type: ignore[arg-type]
            player_document(con, None, SWISS, lang),  # type: ignore[arg-type]
            dan_document(con, None, LEAGUE, lang),  # type: ignore[arg-type]
        ]
    finally:
        con.close()


def test_chinese_printouts_translate_every_title_header_and_label(sim_store: Path) -> None:
    english, chinese = _documents(sim_store, "en"), _documents(sim_store, "zh")
    for en, zh in zip(english, chinese, strict=True):
        assert CJK.search(zh.title) and not CJK.search(en.title)
        assert "打印于" in zh.subtitle and "printed" in en.subtitle
        assert len(zh.sections) == len(en.sections)
        for en_section, zh_section in zip(en.sections, zh.sections, strict=True):
            assert len(zh_section.columns) == len(en_section.columns)
            untranslated = [c for c in zh_section.columns if not CJK.search(c)]
            assert untranslated == [], zh.title
            assert all(CJK.search(line) for line in zh_section.lines), zh_section.lines
            assert len(zh_section.rows) == len(en_section.rows)
    seats = {row[3] for section in chinese[2].sections for row in section.rows}
    assert seats <= {"东", "南", "西", "北"} and seats
    results = {row[6] for section in chinese[2].sections for row in section.rows}
    assert results <= {"胜", "负", "平局"} and results
    counted = {row[4] for section in chinese[3].sections for row in section.rows}
    assert counted <= {"是", "否"} and counted
