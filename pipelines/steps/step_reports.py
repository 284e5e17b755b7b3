"""What a pipeline step reports: the tables it wrote with their metadata, and its checks' outcomes.

Plain data, so ``gdan run`` (``pipelines.run.plan``) and the Dagster adapter (``pipelines.defs.assets``,
which turns a report into ``MaterializeResult`` and ``AssetCheckResult`` events) read the same
thing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pipelines.storage.store import Store

MetaValue = int | str | bool
Meta = dict[str, MetaValue]
"""Metadata of a written table or a check: counts, names, flags."""


@dataclass(frozen=True, slots=True)
class CheckOutcome:
    """One data check: its name, the table (asset key) it guards, whether it passed, its figures."""

    name: str
    table: str
    passed: bool
    metadata: Meta = field(default_factory=dict)

    def describe(self) -> str:
        """``table:name {metadata}``, as ``PipelineFailedError`` names a failure."""
        return f"{self.table}:{self.name} {self.metadata}"


@dataclass(frozen=True, slots=True)
class StepReport:
    """One step's result: per table (asset key) it wrote, that table's metadata, and its checks.

    ``outputs`` is empty when the step wrote nothing a downstream step needs to see (the replay
    step of a run with nothing new, ``pipelines.run.plan.replay``).
    """

    name: str
    outputs: dict[str, Meta] = field(default_factory=dict)
    checks: tuple[CheckOutcome, ...] = ()


@dataclass(frozen=True, slots=True)
class Step:
    """A step after the replay: its name, its function of a pinned store, the tables it writes."""

    name: str
    run: Callable[[Store], StepReport]
    tables: tuple[str, ...]


@dataclass(slots=True)
class RunReport:
    """A whole run of the plan: the steps that ran, in order, those skipped, every check's outcome."""

    steps: list[StepReport] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    checks: list[CheckOutcome] = field(default_factory=list)

    def add(self, step: StepReport) -> StepReport:
        """Record ``step`` and its checks; returns it."""
        self.steps.append(step)
        self.checks.extend(step.checks)
        return step

    @property
    def materialized(self) -> set[str]:
        """The tables (asset keys) the run wrote or reported, as Dagster would list materializations."""
        return {name for step in self.steps for name in step.outputs}

    @property
    def failed(self) -> list[CheckOutcome]:
        """The checks that did not pass."""
        return [c for c in self.checks if not c.passed]

    @property
    def success(self) -> bool:
        """Every check passed (a step that raised never returns a report)."""
        return not self.failed

    def step(self, name: str) -> StepReport:
        """The report of the step called ``name``; KeyError when it did not run."""
        found = next((s for s in self.steps if s.name == name), None)
        if found is None:
            raise KeyError(f"step {name!r} did not run (ran: {[s.name for s in self.steps]})")
        return found
