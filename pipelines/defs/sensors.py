"""The inbox sensor: ``dagster dev`` on a store processes new logs by itself.

Each tick asks which of the store's inbox files are new (``pipelines.run.inbox_watch``, the same
detection ``gdan serve`` polls with) and requests one run of the pipeline job per file not seen
before. The cursor holds the files seen (by path, size and modification time), so a tick after
them requests nothing; the run key is the file's path and content hash, so the same file is never
processed twice, even if the cursor is reset. Ingest reads each file once whatever runs, so a run
requested for a file a run before it already ingested changes nothing.
"""

from collections.abc import Iterator

from dagster import DefaultSensorStatus, RunRequest, SensorEvaluationContext, sensor

from pipelines.defs.jobs import pipeline_job
from pipelines.defs.resources import StoreResource
from pipelines.run.inbox_watch import cursor_of, new_files, seen_files, stamp
from pipelines.steps.ingest import file_sha256


@sensor(job=pipeline_job, minimum_interval_seconds=30, default_status=DefaultSensorStatus.RUNNING,
        description="Requests a pipeline run for each new file in the store's inbox.")
def inbox_sensor(context: SensorEvaluationContext, store: StoreResource) -> Iterator[RunRequest]:
    """One run request per new inbox file, keyed by its path and content hash."""
    inbox = store.plain_store().inbox
    seen = seen_files(context.cursor)
    for name, path in new_files(inbox, seen):
        seen[name] = stamp(path)
        yield RunRequest(run_key=f"{name}@{file_sha256(path)}", tags={"gdan/inbox_file": name})
    context.update_cursor(cursor_of(seen))
