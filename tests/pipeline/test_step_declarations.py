"""Each step declares the tables it reads and writes (``Step``); the run order and the Dagster
assets' dependencies are derived from that one declaration, so it must be true. Every step
runs on a small simulated store while the store records the tables it opens: one it did not
declare fails here (as the luck step's read of ``matches`` once did)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from pipelines.run import plan
from pipelines.steps.step_reports import Step
from pipelines.storage.store import Store
from pipelines.storage.tables import TableReader
from schemas.catalog import ALL_TABLES
from simulator import simulate_to_dir

OPENING = ("read_table", "dataset", "data_files", "batch_files", "has_data", "read_files", "committed_rows")
"""The ``TableReader`` methods that open a table's data (``snapshot`` only asks versions)."""


@pytest.fixture(scope="module")
def opened_by_step(tmp_path_factory: pytest.TempPathFactory) -> dict[str, set[str]]:
    """Per downstream step, the tables it opened running for the first time on a simulated store."""
    root = tmp_path_factory.mktemp("declared") / "store"
    simulate_to_dir(root / "inbox", kind="tournament", pairs=4, rounds=2, format="deals:1", seed=5)
    plan.ingest(Store(root), workers=1)
    plan.replay(Store(root), workers=1)
    opened: set[str] = set()
    out = {}
    with pytest.MonkeyPatch.context() as patched:
        for method in OPENING:
            patched.setattr(TableReader, method, _recording(getattr(TableReader, method), opened))
        for step in plan.DOWNSTREAM_STEPS:
            opened.clear()
            step.run(Store(root).pinned())
            out[step.name] = opened & set(ALL_TABLES)
    return out


def _recording(method: Callable[..., Any], opened: set[str]) -> Callable[..., Any]:
    def recorded(self: TableReader, name: str, *args: Any, **kwargs: Any) -> Any:
        opened.add(name)
        return method(self, name, *args, **kwargs)

    return recorded


def _steps() -> Iterator[Step]:
    yield from plan.DOWNSTREAM_STEPS


@pytest.mark.parametrize("step", list(_steps()), ids=lambda s: s.name)
def test_a_step_reads_only_the_tables_it_declares(step: Step, opened_by_step: dict[str, set[str]]) -> None:
    undeclared = opened_by_step[step.name] - {*step.reads, *step.writes, *step.keeps}
    assert not undeclared, f"step {step.name} reads {sorted(undeclared)} without declaring them"


def test_the_run_order_puts_every_writer_before_its_readers() -> None:
    """Derived from the declarations: each step comes after the steps that write what it reads."""
    seen: set[str] = set(plan.INGESTED) | set(plan.REPLAYED)
    written_later = {t for s in plan.DOWNSTREAM_STEPS for t in s.writes}
    for step in plan.DOWNSTREAM_STEPS:
        assert not (set(step.reads) & (written_later - seen) - set(step.writes)), step.name
        seen |= set(step.writes)
    assert plan.DOWNSTREAM_STEPS[-1].name == "warehouse"


def test_two_steps_writing_one_table_are_refused() -> None:
    def noop(store: Store) -> Any:
        raise AssertionError

    with pytest.raises(ValueError, match="written by both a and b"):
        plan.in_dependency_order([Step("a", noop, ("t",)), Step("b", noop, ("t",))])


def test_a_dependency_cycle_is_refused() -> None:
    from graphlib import CycleError

    def noop(store: Store) -> Any:
        raise AssertionError

    with pytest.raises(CycleError):
        plan.in_dependency_order([Step("a", noop, ("x",), reads=("y",)),
                                  Step("b", noop, ("y",), reads=("x",))])
