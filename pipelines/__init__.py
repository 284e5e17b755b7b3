"""Orchestration: the run plan, the store, the Dagster adapter (docs/architecture.md).

Importing the package makes Arrow allocate with the C library's allocator in this process (when
pyarrow is not loaded yet) and in every process it starts, the replay workers included, unless
``ARROW_DEFAULT_MEMORY_POOL`` already names one. pyarrow's default, mimalloc, keeps what a
process frees for later, so a run's peak was the sum of the parent's and every worker's high-water
marks: 1.86 GiB at 100k deals against 1.59 GiB with the system allocator, for the same CPU
(issue 17, docs/performance.md "Session 8").
"""

import os

os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
