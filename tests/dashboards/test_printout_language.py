"""The dashboards' printout download buttons print in the page's language (printouts.labels)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

import pipelines.reads.printout_documents as documents


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_printout_buttons_use_the_page_language(
    open_app: Callable[[Path, str], AppTest], mini_store: Path, monkeypatch: pytest.MonkeyPatch, lang: str
) -> None:
    asked: list[str] = []
    build = documents.standings_document

    def standings_document(
        con: Any, event: str, stage: str | None, round_no: int | None, lang: Any = "en"
    ) -> Any:
        asked.append(lang)
        return build(con, event, stage, round_no, lang)

    standings_document.__qualname__ = f"standings_document_{lang}"  # its own cache entry
    monkeypatch.setattr(documents, "standings_document", standings_document)
    at = open_app(mini_store, "tournament")
    at.sidebar.radio(key="lang").set_value(lang).run()
    assert not at.exception
    assert asked and asked[-1] == lang
    labels = [b.proto.label for b in at.get("download_button")]
    assert any(label.endswith(" · XLSX") for label in labels)
