"""Importing ``pipelines`` makes the run and the replay workers it spawns allocate Arrow memory with
the system allocator (``pipelines/__init__.py``), unless the user chose an allocator."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from pipeline_helpers import match_events, write_jsonl

from pipelines.run import plan
from pipelines.storage.store import Store

CHILD = """
import multiprocessing
import pipelines
import pyarrow as pa

def backend(_):
    return pa.default_memory_pool().backend_name

if __name__ == "__main__":
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        print(pa.default_memory_pool().backend_name, pool.map(backend, [0])[0])
"""


def _backends(tmp_path: Path, env: dict[str, str]) -> list[str]:
    """The allocator of a process that imported ``pipelines`` first, and of a worker it spawned."""
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                         check=True, timeout=120)
    return out.stdout.split()


def test_the_run_and_its_workers_use_the_system_allocator(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    assert _backends(tmp_path, env) == ["system", "system"]


def test_an_allocator_the_user_chose_is_kept(tmp_path: Path) -> None:
    env = {**os.environ, "ARROW_DEFAULT_MEMORY_POOL": "jemalloc"}
    assert _backends(tmp_path, env) == ["jemalloc", "jemalloc"]


def test_the_run_hands_freed_memory_back_after_every_step(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Freed memory is handed back after ingest, the replay, each downstream step and each check,
    so that a step's peak does not stack on what the steps before it freed."""
    phases: list[int] = []
    monkeypatch.setattr(plan, "release_freed_memory", lambda: phases.append(len(phases)))
    write_jsonl(Store(tmp_path).inbox / "a.jsonl", match_events("m1"))
    report = plan.run_plan(tmp_path, workers=1)
    assert len(report.steps) == 2 + len(plan.DOWNSTREAM_STEPS)
    assert len(phases) == len(report.steps) + len(plan.INGEST_CHECKS) + len(plan.REPLAY_CHECKS)
