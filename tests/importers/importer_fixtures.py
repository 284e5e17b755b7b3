"""Fixture locations and helpers shared by the importer tests.

``SHARED_NJUPT`` is the shared recordings folder, found relative to the repository root (CI
clones the repo beside ``shared/``); tests that need it are marked ``needs_shared`` and skip
when it is absent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
EXCERPT = FIXTURES / "njupt-excerpt"
EXCERPT_FILES = [EXCERPT / f"client-{k}.jsonl" for k in range(4)]
BOTZONE_4DEALS = FIXTURES / "game1-4deals.botzone.json"
BOTZONE_DEAL1 = FIXTURES / "game1-deal1.botzone.json"
BOTZONE_DEAL2 = FIXTURES / "game1-deal2.botzone.json"
"""Deal 2 of game-1 alone: level 4, EW declare, S pays E a single tribute (starts mid-match)."""
BOTZONE_DEAL4 = FIXTURES / "game1-deal4.botzone.json"
"""Deal 4 of game-1 alone: level 7, NS declare after a double win, W and E pay (starts mid-match)."""
REPO = Path(__file__).resolve().parents[2]
SHARED_NJUPT = REPO / ".." / "shared" / "fixtures" / "njupt"

needs_shared = pytest.mark.skipif(
    not SHARED_NJUPT.is_dir(), reason="shared/fixtures/njupt not beside the repo"
)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def write_jsonl(path: Path, messages: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(m) + "\n" for m in messages))
