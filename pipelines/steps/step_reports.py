"""What a pipeline step reports: the tables it wrote with their metadata, and its checks' outcomes.

Plain data, so ``gdan run`` (``pipelines.run.plan``) and the Dagster adapter (``pipelines.defs.assets``,
which turns a report into ``MaterializeResult`` and ``AssetCheckResult`` events) read the same
thing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

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
    """A step after the replay, declared once: its function of a pinned store, the tables it
    reads and writes. The run order (``pipelines.run.plan``) and the Dagster assets' dependencies
    (``pipelines.defs``) are derived from ``reads`` and ``writes``; a test records what each step
    really reads and fails on a table not declared.

    ``keeps``: tables only this step reads and writes, its own memory of earlier runs (partition
    digests, kept sums), not inputs of another step. ``checks``: (check name, table) of the
    checks its report carries. ``group``: where Dagster shows its assets.
    """

    name: str
    run: Callable[..., StepReport]
    """Of a pinned store (and, for the steps that take them, per-event scoring ``overrides``)."""
    writes: tuple[str, ...]
    reads: tuple[str, ...] = ()
    keeps: tuple[str, ...] = ()
    checks: tuple[tuple[str, str], ...] = ()
    group: str = "scoring"


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
