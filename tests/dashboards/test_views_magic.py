"""Streamlit's "magic" writes every bare expression of a page script onto the page, so a string
left as an attribute docstring in ``dashboards/views/*.py`` shows up as text (it did: "Marks of a
reviewed decision by loss…" above the replayer's title). Only the module docstring is exempt."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

VIEWS = sorted((Path(__file__).resolve().parents[2] / "dashboards" / "views").glob("*.py"))


def magic_strings(source: str) -> list[int]:
    """Lines of the top-level bare string expressions after the module docstring."""
    body = ast.parse(source).body
    start = 1 if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) else 0
    return [
        node.lineno
        for node in body[start:]
        if isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    ]


def test_the_detector_finds_an_attribute_docstring() -> None:
    assert magic_strings('"""Module."""\nX = 1\n"""About X."""\n') == [3]
    assert magic_strings('"""Module."""\nX = 1  # about X\n') == []


@pytest.mark.parametrize("view", VIEWS, ids=lambda p: p.name)
def test_no_page_prints_a_stray_string(view: Path) -> None:
    assert magic_strings(view.read_text()) == [], f"{view.name}: bare strings are written on the page"
