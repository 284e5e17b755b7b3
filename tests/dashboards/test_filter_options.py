"""The coach filter bar's option lists (``dashboards.filters._listed``): a store whose matches
carry no event id, level or ruleset gives a null cell, which must offer no option, not crash the
Player page (it did for ``pd.NA``: the 100k benchmark store of simulated matches without events)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dashboards.filters import _listed


@pytest.mark.parametrize(
    ("cell", "options"),
    [
        (None, []),
        (math.nan, []),
        (pd.NA, []),
        (np.array(["league-s1", "swiss-s3"], dtype=object), ["league-s1", "swiss-s3"]),
        ([2, 14], ["2", "14"]),
        (np.array([], dtype=object), []),
    ],
)
def test_option_cells(cell: object, options: list[str]) -> None:
    assert _listed(cell) == options
