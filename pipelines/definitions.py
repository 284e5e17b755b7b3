"""The Dagster code location: ``dagster dev -m pipelines.definitions`` (or ``dagster dev`` here).

Laid out like Dagster's ``defs/`` convention (``pipelines/defs``): every step of the run plan
(``pipelines.run.plan``) is an asset or multi-asset whose body calls the step, every store check
an asset check, so the graph shows what ``gdan run`` does and the ``pipeline`` job runs the same
code; the opt-in single-dummy review is an asset of its own job, outside it. The inbox sensor
requests a run for each new file in the store's inbox; the nightly schedule runs ``gdan maintain``.
``gdan run`` does not go through Dagster.
Resources come from the environment: the store is ``$GDAN_STORE`` or ``./data``.
"""

from __future__ import annotations

from dagster import Definitions

from pipelines.defs.assets import PIPELINE_ASSETS
from pipelines.defs.checks import PIPELINE_CHECKS
from pipelines.defs.jobs import maintain_job, pipeline_job
from pipelines.defs.resources import ExecutorResource, StoreResource
from pipelines.defs.schedules import maintain_schedule
from pipelines.defs.sensors import inbox_sensor
from pipelines.defs.single_dummy import single_dummy_job, single_dummy_reviews

defs = Definitions(
    assets=[*PIPELINE_ASSETS, single_dummy_reviews],
    asset_checks=PIPELINE_CHECKS,
    jobs=[pipeline_job, maintain_job, single_dummy_job],
    schedules=[maintain_schedule],
    sensors=[inbox_sensor],
    resources={"store": StoreResource(), "executor": ExecutorResource()},
)
