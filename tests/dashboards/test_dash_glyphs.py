"""Every character the dashboards print has a glyph in an installed font (emoji on the
replayer's buttons drew as empty boxes in the headless Chromium of a server with no emoji font).

The strings are those of the dashboards' code and labels (string literals that are not
docstrings); the fonts are the TrueType/OpenType files of ``/usr/share/fonts`` (DejaVu, Liberation,
WenQuanYi Zen Hei on the CI machine), read with fontTools. Icons go through Streamlit's bundled
Material Symbols font (``icon=":material/…:"``), which needs no system font.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FONTS = Path("/usr/share/fonts")
CJK_BLOCKS = ((0x3000, 0x303F), (0x4E00, 0x9FFF), (0xFF00, 0xFFEF))
"""CJK punctuation, unified ideographs and full-width forms: the Chinese labels' characters."""


def is_cjk(ch: str) -> bool:
    """Whether `ch` belongs to the Chinese labels' blocks (:data:`CJK_BLOCKS`)."""
    return any(low <= ord(ch) <= high for low, high in CJK_BLOCKS)


def shown_strings(source: str) -> list[str]:
    """The string literals of a module, docstrings left out (they are never on the page)."""
    tree = ast.parse(source)
    docstrings = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


@cache
def installed_glyphs() -> frozenset[int]:
    """Code points with a glyph in some font file under /usr/share/fonts."""
    ttlib = pytest.importorskip("fontTools.ttLib")
    points: set[int] = set()
    for path in [*FONTS.rglob("*.tt[fc]"), *FONTS.rglob("*.otf")]:
        fonts = ttlib.TTCollection(path).fonts if path.suffix == ".ttc" else [ttlib.TTFont(path, lazy=True)]
        for font in fonts:
            points.update(font.getBestCmap() or {})
    return frozenset(points)


def test_chinese_labels_are_told_from_other_characters() -> None:
    assert [is_cjk(ch) for ch in "掼、（a⏮"] == [True, True, True, False, False]


def test_the_detector_sees_a_missing_emoji() -> None:
    strings = shown_strings('"""A docstring 🔍."""\nLABEL = "⏮ start"\n')
    assert strings == ["⏮ start"]


@pytest.mark.skipif(not FONTS.is_dir(), reason="no /usr/share/fonts on this machine")
@pytest.mark.parametrize(
    "module", sorted((ROOT / "dashboards").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT))
)
def test_every_printed_character_has_a_glyph(module: Path) -> None:
    glyphs = installed_glyphs()
    if not glyphs:
        pytest.skip("no font files under /usr/share/fonts")
    # Without any CJK font (a developer's machine; .ci/run installs fonts-wqy-zenhei) the Chinese
    # labels cannot be checked, the other characters still are.
    cjk_font = ord("中") in glyphs
    missing = {
        ch
        for text in shown_strings(module.read_text(encoding="utf-8"))
        for ch in text
        if ord(ch) > 127 and ord(ch) not in glyphs and ch != "\ufe0f" and (cjk_font or not is_cjk(ch))
    }
    assert not missing, f"{module.name}: no installed font draws {sorted(missing)}"
