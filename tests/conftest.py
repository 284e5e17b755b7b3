"""Shared fixtures: ``sim_store``, a small simulated store run through the whole pipeline.

Used by the pipeline, scoring, dashboards and notebook tests. Also the Hypothesis settings of every
property test: no per-example deadline and no "too slow" health check, so that a property passes
or fails by what the code computes, never by how busy the machine is (Hypothesis's default fails
an example that takes over 200 ms).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("any_speed", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("any_speed")

SIM_TOURNAMENT = {"kind": "tournament", "pairs": 8, "rounds": 3, "format": "deals:2", "seed": 11}
SIM_LEAGUE = {"kind": "league", "players": 16, "rounds": 2, "format": "deals:2", "seed": 12}
"""The sample: a Swiss tournament of 8 pairs x 3 rounds and a small league, 2 deals a match."""


def simulate_sample(inbox: Path) -> None:
    """Simulate the sample tournament and league into ``inbox``."""
    from simulator import simulate_to_dir

    simulate_to_dir(inbox / "tournament", **SIM_TOURNAMENT)  # type: ignore[arg-type]
    simulate_to_dir(inbox / "league", **SIM_LEAGUE)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def sim_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Path of a store holding the sample, fully processed by the pipeline (ingest -> warehouse).

    Session-scoped: treat it as read-only.
    """
    from pipelines.run.runner import run_pipeline
    from pipelines.storage.store import Store

    root = tmp_path_factory.mktemp("sim_store")
    simulate_sample(Store(root).inbox)
    run_pipeline(root, workers=1)
    return root
