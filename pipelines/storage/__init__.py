"""The store on disk: Delta tables, the commit log of steps and runs, staging, recovery, and the
read-only DuckDB warehouse over one run's versions. Knows tables and versions, not what a step means."""
