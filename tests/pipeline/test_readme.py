"""README "Tables" documents every table of ``schemas.ALL_TABLES`` and every column of each."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from schemas.catalog import ALL_TABLES

README = (Path(__file__).parents[2] / "README.md").read_text()
TABLES_SECTION = README.split("\n## Tables\n", 1)[1].split("\n## ", 1)[0]
SUMMARY = TABLES_SECTION.split("\n### Scoring", 1)[1]
"""The summary table of the scoring tables: one row per table."""


def _section(name: str) -> str:
    """The ``### name`` subsection, or the row of the summary table that starts with `name`."""
    heading = re.search(rf"^### {name} —.*?(?=^### |\Z)", TABLES_SECTION, flags=re.M | re.S)
    if heading:
        return heading.group(0)
    row = re.search(rf"^\| `{name}` \|.*$", SUMMARY, flags=re.M)
    assert row, f"README Tables has no section or row for {name}"
    return row.group(0)


@pytest.mark.parametrize("name", sorted(ALL_TABLES))
def test_every_column_is_documented(name: str) -> None:
    text = _section(name)
    documented = set(re.findall(r"`([a-z_0-9A-Z]+)`", text))
    missing = [f.name for f in ALL_TABLES[name] if f.name not in documented]
    assert not missing, f"README Tables, {name}: undocumented columns {missing}"


def test_no_documented_table_is_unknown() -> None:
    headings = set(re.findall(r"^### ([a-z_]+) —", TABLES_SECTION, flags=re.M))
    rows = set(re.findall(r"^\| `([a-z_]+)` \|", SUMMARY, flags=re.M))
    assert headings | rows <= set(ALL_TABLES)
