"""When Dagster maintains the store by itself: ``gdan maintain`` once a night."""

from __future__ import annotations

from dagster import DefaultScheduleStatus, ScheduleDefinition

from pipelines.defs.jobs import maintain_job

maintain_schedule = ScheduleDefinition(
    name="nightly_maintain",
    job=maintain_job,
    cron_schedule="0 4 * * *",
    default_status=DefaultScheduleStatus.RUNNING,
    description="Compact and vacuum the store's tables at 04:00 (gdan maintain); nothing a reader "
    "sees changes, and runs older than the retention stop being readable with --as-of.",
)
