"""The dan ledger resumed from a stored ledger (``scoring.dan.states_from_ledger`` and
``continue_ledger``) is the ledger of applying every round at once, whatever the split: any
rounds, promotions, window resets and uncounted rounds (small thresholds and windows, so that
they happen often)."""

from __future__ import annotations

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st
from scoring_builders import dan_round, scores

from scoring.dan import continue_ledger, dan_current, dan_ledger, dan_rounds, states_from_ledger
from scoring.params import DanParams

SMALL = DanParams(thresholds=(1000, 2000, 3000), windows=(3, 3, 3))
PAIRS = [("a", "b"), ("c", "d"), ("e", "f"), ("a", "c")]

games = st.lists(
    st.tuples(st.sampled_from(range(len(PAIRS))), st.sampled_from(range(len(PAIRS))),
              st.sampled_from([0, 100, 300, 400, 600]), st.sampled_from([0, 100, 300, 400, 600])),
    min_size=1, max_size=30,
)


def _scores(per_round: list[tuple[int, int, int, int]]) -> pl.DataFrame:
    rows = []
    for i, (ew, ns, pe, pn) in enumerate(per_round):
        if set(PAIRS[ew]) & set(PAIRS[ns]):
            continue
        rows.extend(dan_round(f"m{i:03d}", i, PAIRS[ew], PAIRS[ns], pe, pn, rules="bcta"))
    return scores(*rows)


@settings(max_examples=80, deadline=None)
@given(games, st.integers(0, 30))
def test_a_resumed_ledger_is_the_whole_ledger(per_round: list[tuple[int, int, int, int]], split: int) -> None:
    table = _scores(per_round)
    whole, final = dan_ledger(table, SMALL)
    rounds = dan_rounds(table, SMALL)
    done = min(split, len(rounds))
    first = continue_ledger(rounds[:done], {}, SMALL)
    states = states_from_ledger(first)
    resumed = pl.concat([first, continue_ledger(rounds[done:], states, SMALL)]).sort("player_id", "seq")
    assert resumed.to_dicts() == whole.to_dicts()
    assert states == final
    assert dan_current(states, SMALL).to_dicts() == dan_current(final, SMALL).to_dicts()
