"""Simulated Guandan: bots, a referee that writes event logs, tournaments, leagues, corruption.

Public API: `simulate_to_dir` (whole runs to files), `simulate_match` (one match in memory),
`SimulationSummary`.
"""

from simulator.api import SimulationSummary, simulate_match, simulate_to_dir

__all__ = ["SimulationSummary", "simulate_match", "simulate_to_dir"]
