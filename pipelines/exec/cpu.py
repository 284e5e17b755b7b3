"""CPU seconds the pipeline's workers spent per stage in this process: parse, replay, reviews.

Each task measures its own CPU in the worker (``time.process_time``) and returns it with its
result; the step adds it here as the results come in, so a benchmark running the pipeline in
one process reads the split of a run (``benchmarks/bench_pipeline.py``) whatever the steps'
callers return. Like ``pipelines.storage.delta.READS``: counters for measuring, never for decisions.
"""

from __future__ import annotations

CPU_S: dict[str, float] = {}
"""Stage name -> CPU seconds summed over the workers' tasks, since this process started."""


def add_cpu(stage: str, seconds: float) -> None:
    """Count ``seconds`` of worker CPU to ``stage``."""
    CPU_S[stage] = CPU_S.get(stage, 0.0) + seconds
