"""The inbox sensor: ``dagster dev`` on a store processes new logs by itself.

Each tick lists the store's inbox (the files ingest reads, ``pipelines.steps.ingest.inbox_files``)
and requests one run of the pipeline job per file not seen before. The cursor holds the files
seen (by path, size and modification time), so a tick after them requests nothing; the run key is
the file's path and content hash, so the same file is never processed twice, even if the cursor
is reset. Ingest reads each file once whatever runs, so a run requested for a file a run before it
already ingested changes nothing.
"""

import json
from collections.abc import Iterator
from pathlib import Path

from dagster import DefaultSensorStatus, RunRequest, SensorEvaluationContext, sensor

from pipelines.defs.jobs import pipeline_job
from pipelines.defs.resources import StoreResource
from pipelines.steps.ingest import file_sha256, inbox_files


def seen_files(cursor: str | None) -> dict[str, str]:
    """The files a cursor records: path in the inbox → its size and modification time."""
    return dict(json.loads(cursor)) if cursor else {}


def _stamp(path: Path) -> str:
    info = path.stat()
    return f"{info.st_size}:{info.st_mtime_ns}"


def new_files(inbox: Path, seen: dict[str, str]) -> Iterator[tuple[str, Path]]:
    """The inbox's files (path in the inbox, path) that ``seen`` does not record as they are now."""
    for path in inbox_files(inbox):
        name = path.relative_to(inbox).as_posix()
        if seen.get(name) != _stamp(path):
            yield name, path


@sensor(job=pipeline_job, minimum_interval_seconds=30, default_status=DefaultSensorStatus.RUNNING,
        description="Requests a pipeline run for each new file in the store's inbox.")
def inbox_sensor(context: SensorEvaluationContext, store: StoreResource) -> Iterator[RunRequest]:
    """One run request per new inbox file, keyed by its path and content hash."""
    inbox = store.plain_store().inbox
    seen = seen_files(context.cursor)
    for name, path in new_files(inbox, seen):
        seen[name] = _stamp(path)
        yield RunRequest(run_key=f"{name}@{file_sha256(path)}", tags={"gdan/inbox_file": name})
    context.update_cursor(json.dumps(sorted(seen.items())))
