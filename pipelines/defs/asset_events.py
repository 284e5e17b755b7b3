"""Dagster events of a step's report: one ``MaterializeResult`` per table, one ``AssetCheckResult`` per check.

The Dagster assets (``pipelines.defs.assets``) yield these from each asset body, so the UI shows
the metadata ``gdan run`` reports.
"""

from __future__ import annotations

from collections.abc import Iterator

from dagster import AssetCheckResult, MaterializeResult

from pipelines.steps.step_reports import CheckOutcome, StepReport


def check_result(outcome: CheckOutcome) -> AssetCheckResult:
    """The Dagster result of one check."""
    return AssetCheckResult(check_name=outcome.name, asset_key=outcome.table, passed=outcome.passed,
                            metadata=dict(outcome.metadata))


def step_events(report: StepReport) -> Iterator[MaterializeResult | AssetCheckResult]:
    """A materialization per table the step wrote, then its checks' results."""
    for table, metadata in report.outputs.items():
        yield MaterializeResult(asset_key=table, metadata=dict(metadata))
    for outcome in report.checks:
        yield check_result(outcome)
