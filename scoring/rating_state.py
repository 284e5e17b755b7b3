"""The ratings' resume point as two tables (``rating_state``, ``rating_progress``) and back.

A run with new rounds rates only those, from the posterior the last run stopped at
(``scoring.ratings.rate_from``); that posterior is kept in the store as plain rows so that it is
re-derivable like every table: deleting both tables only makes the next run rate the whole
history again, to the same floats.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pyarrow as pa

from schemas.scoring import RATING_PROGRESS, RATING_STATE
from scoring.frames import frame
from scoring.params import RatingParams
from scoring.ratings import GaussianRatings, RatingState, WinCalibration

_LAST_PLAYED = RATING_STATE.field("last_played").type


def state_tables(state: RatingState) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The ``rating_state`` and ``rating_progress`` rows of ``state``."""
    model, cal = state.model, state.model.calibration
    assert cal is not None
    ids = sorted(model.index, key=model.index.__getitem__)
    n = len(ids)
    offsets = pa.array(np.arange(n + 1, dtype=np.int32) * n)
    players = pa.table(
        {
            "position": pa.array(range(n), pa.int32()),
            "player_id": pa.array(ids, pa.string()),
            "mu": pa.array(model.mu, pa.float64()),
            "cov": pa.ListArray.from_arrays(offsets, pa.array(model.cov.ravel(), pa.float64())),
            "rounds": pa.array([state.counts[pid][0] for pid in ids], pa.int32()),
            "deals": pa.array([state.counts[pid][1] for pid in ids], pa.int32()),
            "last_played": pa.array([state.last.get(pid) for pid in ids], _LAST_PLAYED),
        },
        schema=RATING_STATE,
    )
    progress = {
        "model_params": state.params,
        "rounds": state.rounds,
        "inputs_digest": state.digest,
        "calibration_scale": cal.scale,
        "calibration_fitted_at": cal.fitted_at,
        "calibration_z": cal.z,
        "calibration_won": cal.won,
    }
    table = pl.from_arrow(players)
    assert isinstance(table, pl.DataFrame)
    return table, frame([progress], RATING_PROGRESS)


def state_from_tables(players: pl.DataFrame, progress: pl.DataFrame, p: RatingParams) -> RatingState | None:
    """The state the two tables hold, for parameters ``p`` (None: no state or not one row of progress)."""
    if progress.height != 1:
        return None
    row = progress.row(0, named=True)
    players = players.sort("position")
    n = players.height
    calibration = WinCalibration(p.calibration_min, p.calibration_refit, scale=row["calibration_scale"],
                                 z=list(row["calibration_z"]), won=list(row["calibration_won"]),
                                 fitted_at=row["calibration_fitted_at"])
    model = GaussianRatings(
        p,
        index={pid: i for i, pid in enumerate(players["player_id"])},
        mu=players["mu"].to_numpy().astype(np.float64, copy=True),
        cov=players["cov"].to_arrow().flatten().to_numpy().astype(np.float64, copy=True).reshape(n, n),
        calibration=calibration,
    )
    counts = {pid: [r, d] for pid, r, d in players.select("player_id", "rounds", "deals").iter_rows()}
    last = dict(players.select("player_id", "last_played").iter_rows())
    return RatingState(row["model_params"], row["rounds"], row["inputs_digest"], model, counts, last)
