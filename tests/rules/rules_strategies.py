"""Hypothesis strategies shared by the rules-engine tests."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st

from replay import DECK


def hands(pool: Sequence[str] = DECK, min_size: int = 1, max_size: int = 27) -> st.SearchStrategy[list[str]]:
    """Valid hands drawn from ``pool`` (distinct positions, so at most two copies of a card)."""
    return st.lists(st.integers(0, len(pool) - 1), min_size=min_size, max_size=max_size, unique=True).map(
        lambda idx: [pool[i] for i in idx]
    )
