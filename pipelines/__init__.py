"""Orchestration: the run plan, the store, the Dagster adapter (docs/architecture.md).

Importing the package makes Arrow allocate with the C library's allocator in this process (when
pyarrow is not loaded yet) and in every process it starts, the replay workers included, unless
``ARROW_DEFAULT_MEMORY_POOL`` already names one. pyarrow's default, mimalloc, keeps what a
process frees for later, so a run's peak was the sum of the parent's and every worker's high-water
marks: 1.86 GiB at 100k deals against 1.59 GiB with the system allocator, for the same CPU
(docs/performance.md).
"""

import os

os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")


def release_freed_memory() -> None:
    """Hand the memory this process freed back to the system (``malloc_trim`` under glibc, through
    pyarrow's pool), so that a step's peak does not stack on what the steps before it freed.

    With the C library's allocator freed memory stays in the heap until trimmed: on a first run
    of 1M deals the run's process held ~2 GiB of freed memory from one step into the next, and
    its peak was 3.3 GiB (docs/performance.md)."""
    import pyarrow as pa  # here, not above: the allocator is chosen before pyarrow loads

    pa.default_memory_pool().release_unused()
